//! `diff` output as text tables and Markdown; JSON and YAML are the
//! comparison's own serialization.

use crate::text::visible;
use std::fmt::Write as _;

use super::diff::{ClaimResult, PublishedDiff};
use super::verdict::{ClaimVerdict, FlaggedVerdict, Paint, Plain, VerdictFlag, short_ratio};
use crate::text::{Align, aligned};

fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// Counts of each verdict class, as one line, the classes' and flags'
/// names marked by `paint`: `6 claims: 5 REPRODUCED (1 of them magnitude
/// differs), 1 NOT_REPRODUCED, 0 NOT_COMPARABLE, 0 UNRUN; 1 QUOTE_MISSING`.
pub fn verdict_summary(c: &PublishedDiff, paint: &dyn Paint) -> String {
    let flagged: Vec<FlaggedVerdict> = c.claims.iter().map(|r| r.flagged()).collect();
    // How many claims carry a flag like this one, and its name.
    let with = |flag: &VerdictFlag| {
        let n = flagged.iter().filter(|v| v.has(flag)).count();
        (n, paint.paint(flag.tone(), flag.name()))
    };
    let classes: Vec<String> = ClaimVerdict::all()
        .map(|class| {
            let n = flagged.iter().filter(|v| v.class == class).count();
            let mut s = format!("{n} {}", paint.paint(class.tone(), &class.to_string()));
            if class == ClaimVerdict::Reproduced {
                let (differs, name) = with(&VerdictFlag::MagnitudeDiffers(0.0));
                s.push_str(&format!(" ({differs} of them {name})"));
            }
            s
        })
        .collect();
    let (missing, quote_missing) = with(&VerdictFlag::QuoteMissing);
    let (limited, model_limit) = with(&VerdictFlag::ModelLimit(String::new()));
    format!(
        "{} claims: {}; {missing} {quote_missing}{}",
        c.claims.len(),
        classes.join(", "),
        if limited > 0 {
            format!("; {limited} under a {model_limit}")
        } else {
            String::new()
        }
    )
}

fn prose_note(stated: f64, published: f64, consistent: bool) -> String {
    if consistent && (stated - published).abs() < 1e-9 {
        format!("says {}, which its own table gives", fmt_num(stated))
    } else if consistent {
        format!(
            "says {}; its own table gives {}, within the claim's tolerance",
            fmt_num(stated),
            fmt_num(published)
        )
    } else {
        format!(
            "MISMATCH: says {}, its own table gives {}",
            fmt_num(stated),
            fmt_num(published)
        )
    }
}

/// Plain-text report for an author: the claims' verdicts first, each with
/// its sentence, formula and values; the cell-by-cell comparison only when
/// `cells`; then the audit of the chapter's own numbers.
pub fn text(c: &PublishedDiff, cells: bool, paint: &dyn Paint) -> String {
    let mut s = claims_text(c, paint);
    if cells {
        s.push('\n');
        s.push_str(&cells_text(c));
    }
    s.push_str(&audit_text(c));
    s
}

/// The claims, one block each: verdict and flags, the sentence, the metric
/// on the published tables with their values, the measured values, the
/// ratio and the criterion, and a line on each flag; then the counts. The
/// verdicts' and flags' names are marked by `paint`.
pub fn claims_text(c: &PublishedDiff, paint: &dyn Paint) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Claims (run on {} CPU(s))", c.run_cpus);
    if c.claims.is_empty() {
        let _ = writeln!(s, "  none: the chapter has no claims.yaml");
    }
    for r in &c.claims {
        let _ = writeln!(
            s,
            "  {}  {}: \"{}\"",
            r.flagged().painted(paint),
            visible(&r.id),
            visible(&r.quote)
        );
        let _ = writeln!(
            s,
            "      published  {} = {} = {}",
            visible(&r.metric),
            r.published_formula,
            fmt_num(r.published)
        );
        match (&r.measured_formula, r.measured) {
            (Some(f), Some(m)) => {
                let _ = writeln!(
                    s,
                    "      measured   {f} = {}   ratio {}   criterion {}",
                    fmt_num(m),
                    r.ratio
                        .map_or("-".into(), |x| format!("x{}", short_ratio(x))),
                    r.criterion
                );
            }
            _ => {
                let _ = writeln!(s, "      measured   -   criterion {}", r.criterion);
            }
        }
        let _ = writeln!(
            s,
            "      prose      {}",
            prose_note(r.stated, r.published, r.prose_consistent)
        );
        for flag in r.flags() {
            let _ = writeln!(s, "      {}: {}", flag.painted(paint), explained(&flag, r));
        }
        if let Some(reason) = &r.reason {
            let _ = writeln!(s, "      {}", visible(reason));
        }
    }
    let _ = writeln!(s, "{}", verdict_summary(c, paint));
    s
}

/// What a flag on a claim means, after its name in the claim's block.
fn explained(flag: &VerdictFlag, r: &ClaimResult) -> String {
    match flag {
        VerdictFlag::MagnitudeDiffers(_) => {
            let band = r.magnitude_within.unwrap_or(1.0);
            format!(
                "the direction holds, the size does not (band {} to {})",
                short_ratio(1.0 / band),
                short_ratio(band)
            )
        }
        VerdictFlag::ModelLimit(_) => "the embedded engine measured it, and in such rows the split between wait and work turns on where the scheduler's time slice runs out, which a small difference from the real DataLoader moves; a run on the pytorch engine (the real DataLoader) checks it".into(),
        VerdictFlag::QuoteMissing => format!(
            "the quoted sentence is not in this revision{}",
            r.closest_sentence
                .as_ref()
                .map(|c| format!("; closest: \"{}\"", visible(c)))
                .unwrap_or_default()
        ),
    }
}

/// Every published cell beside the measured one, with their ratio.
pub fn cells_text(c: &PublishedDiff) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Published vs measured (ratio = measured / published; absolute numbers are context, not expected to reproduce)"
    );
    for t in &c.tables {
        let _ = writeln!(s, "\n{}", t.header);
        if !t.same_settings {
            let _ = writeln!(
                s,
                "  (the run used different cost, batch or consumer settings: not the same experiment)"
            );
        }
        let mut rows = Vec::new();
        for r in &t.rows {
            for (i, cell) in r.cells.iter().enumerate() {
                rows.push(vec![
                    if i == 0 {
                        r.workers.to_string()
                    } else {
                        String::new()
                    },
                    cell.column.clone(),
                    fmt_num(cell.published),
                    fmt_num(cell.measured),
                    cell.ratio.map_or("-".into(), |x| format!("{x:.2}")),
                ]);
            }
        }
        s.push_str(&aligned(
            &["workers", "column", "published", "measured", "ratio"],
            &rows,
            &[
                Align::Right,
                Align::Left,
                Align::Right,
                Align::Right,
                Align::Right,
            ],
        ));
        if !t.unmeasured_workers.is_empty() {
            let _ = writeln!(
                s,
                "  not measured: workers {}",
                crate::text::list(&t.unmeasured_workers)
            );
        }
    }
    s
}

/// The chapter's own numbers checked against themselves, and table-like
/// fragments that did not parse.
pub fn audit_text(c: &PublishedDiff) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\nThe chapter's own numbers");
    if c.audit.is_empty() {
        let _ = writeln!(
            s,
            "  consistent: every ex/s, wait_frac and percentile order agrees with its row"
        );
    }
    for d in &c.audit {
        let _ = writeln!(
            s,
            "  {} workers={} {}: states {}, the row implies {} ({}; table at {})",
            d.table, d.workers, d.column, d.stated, d.implied, d.rule, d.location
        );
    }
    for m in &c.malformed {
        let _ = writeln!(
            s,
            "  table-like fragment at {} did not parse: {}",
            m.location, m.problem
        );
    }
    s
}

/// Markdown report.
pub fn markdown(c: &PublishedDiff) -> String {
    let mut s = String::new();
    for t in &c.tables {
        let _ = writeln!(s, "`{}`\n", t.header);
        let _ = writeln!(
            s,
            "| workers | column | published | measured | ratio |\n| ---: | --- | ---: | ---: | ---: |"
        );
        for r in &t.rows {
            for cell in &r.cells {
                let ratio = cell.ratio.map_or("-".into(), |x| format!("{x:.2}"));
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {ratio} |",
                    r.workers,
                    cell.column,
                    fmt_num(cell.published),
                    fmt_num(cell.measured)
                );
            }
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "| claim | verdict | published | measured | criterion | prose |\n| --- | --- | ---: | ---: | --- | --- |"
    );
    for r in &c.claims {
        let verdict = match &r.reason {
            Some(why) => format!("{} ({})", r.flagged(), visible(why)),
            None => r.flagged().to_string(),
        };
        let _ = writeln!(
            s,
            "| {} | {verdict} | {} | {} | {} | {} |",
            visible(&r.id),
            fmt_num(r.published),
            r.measured.map_or("-".into(), fmt_num),
            r.criterion,
            prose_note(r.stated, r.published, r.prose_consistent)
        );
    }
    let _ = writeln!(s, "\n{}", verdict_summary(c, &Plain));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::ProducerKind;
    use crate::published::claims::{self, TableSet};
    use crate::published::diff::diff_run;
    use crate::testing::{chapter06_tables, prose06, repo_layout, run_like};

    /// Chapter 06's claims against a run where every verdict class and flag
    /// shows up: a sleep producer that does not scale (NOT_REPRODUCED), a
    /// vanishing wait (magnitude differs), the embedded engine's spin rows on
    /// one CPU (model limit), an edited sentence (QUOTE_MISSING), and, on a
    /// run with thread workers, a precondition unmet (NOT_COMPARABLE); a
    /// run without 8 workers leaves the claims UNRUN.
    fn every_verdict() -> Vec<PublishedDiff> {
        let tables = chapter06_tables();
        let path = repo_layout().claims_file(&crate::testing::chapter06().key);
        let claims = claims::load(&path, &TableSet::from_published(&tables)).unwrap();
        let edited = prose06().replace("got 7.4 times faster", "got much faster");
        let mut flagged = run_like(&tables, 1);
        for r in flagged.results.iter_mut() {
            match (r.producer, r.workers) {
                (ProducerKind::Sleep, 8) => r.summary.ex_per_s = 420.0,
                (ProducerKind::Spin, 8) => r.summary.wait_mean_ms = 0.2,
                _ => {}
            }
        }
        let mut threads = run_like(&tables, 1);
        threads.settings.worker_kind = crate::bench::WorkerKind::Thread;
        let mut short = run_like(&tables, 1);
        short.results.retain(|r| r.workers != 8);
        [flagged, threads, short]
            .iter()
            .map(|run| diff_run(&tables, &[], Some(&claims), &edited, run))
            .collect()
    }

    #[test]
    fn every_verdict_and_flag_in_the_text_forms() {
        let text: String = every_verdict()
            .iter()
            .map(|c| {
                format!(
                    "{}\n{}\n{}\n",
                    text(c, true, &Plain),
                    markdown(c),
                    verdict_summary(c, &Plain)
                )
            })
            .collect();
        insta::assert_snapshot!(text);
    }
}
