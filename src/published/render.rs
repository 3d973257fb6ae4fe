//! `diff` output as text tables and Markdown; JSON and YAML are the
//! comparison's own serialization.

use crate::text::escape::visible;
use std::fmt::Write as _;

use super::diff::{ClaimResult, PublishedDiff, short_step};
use super::verdict::{ClaimVerdict, FlaggedVerdict, Paint, Plain, VerdictFlag, short_ratio};
use crate::text::table::{Align, aligned};

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
                s.push_str(&format!(" ({differs} of them {name}"));
                let (uncertain, name) = with(&VerdictFlag::MagnitudeUncertain(0.0, 0.0));
                if uncertain > 0 {
                    s.push_str(&format!(", {uncertain} {name}"));
                }
                s.push(')');
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
    if published.is_nan() {
        format!(
            "says {}; no table of the chapter gives it to hold the prose against",
            fmt_num(stated)
        )
    } else if consistent && (stated - published).abs() < 1e-9 {
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
/// ratio and the criterion, the rounds, and a line on each flag; then the
/// counts. The verdicts' and flags' names are marked by `paint`.
pub fn claims_text(c: &PublishedDiff, paint: &dyn Paint) -> String {
    claims_block(c, paint, true)
}

/// As [`claims_text`]; without `explain_flags`, a flag is not explained in
/// each claim's block (a legend does it once, see [`legend`]), though what
/// it is about still is.
pub fn claims_block(c: &PublishedDiff, paint: &dyn Paint, explain_flags: bool) -> String {
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
        if r.published.is_nan() {
            // A claim over the start: the chapter's tables print no such
            // figure.
            let _ = writeln!(
                s,
                "      published  {}: the chapter's tables print no such figure",
                visible(&r.metric)
            );
        } else {
            let _ = writeln!(
                s,
                "      published  {} = {} = {}",
                visible(&r.metric),
                r.published_formula,
                fmt_num(r.published)
            );
        }
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
        if let Some(line) = rounds_line(r) {
            let _ = writeln!(s, "      rounds     {line}");
        }
        let _ = writeln!(
            s,
            "      prose      {}",
            prose_note(r.stated, r.published, r.prose_consistent)
        );
        for flag in r.flags().iter().filter(|_| explain_flags) {
            let _ = writeln!(s, "      {}: {}", flag.painted(paint), explained(flag, r));
        }
        if let Some(reason) = &r.reason {
            let _ = writeln!(s, "      {}", visible(reason));
        }
    }
    let _ = writeln!(s, "{}", verdict_summary(c, paint));
    s
}

/// The claim's values over the rounds and their interval, in a line; a
/// single run says so. None for a claim that was not measured.
fn rounds_line(r: &ClaimResult) -> Option<String> {
    r.measured?;
    if !matches!(
        r.verdict,
        ClaimVerdict::Reproduced | ClaimVerdict::NotReproduced | ClaimVerdict::Inconclusive
    ) {
        return None;
    }
    let Some(e) = &r.rounds else {
        return Some("a single run: no interval".into());
    };
    let values: Vec<String> = e.values.iter().map(|&v| fmt_num(v)).collect();
    let mut line = format!(
        "{} of {} undisturbed: {}",
        e.values.len(),
        e.rounds,
        if values.is_empty() {
            "-".to_string()
        } else {
            values.join(" ")
        }
    );
    match &e.interval {
        Some(i) => line.push_str(&format!(
            "; 95% interval {} to {} (median {}; {}, coverage {:.1}%)",
            fmt_num(i.low),
            fmt_num(i.high),
            fmt_num(i.median),
            e.method,
            i.coverage * 100.0
        )),
        None => line.push_str(&format!(
            "; no interval (it needs {} undisturbed rounds)",
            super::interval::MIN_ROUNDS
        )),
    }
    // The measured line divides rows that are each the median of their own
    // undisturbed rounds; where the rows were disturbed in different rounds
    // it can fall outside every round the verdict reads, and must not pass
    // for their value.
    let (low, high) = e
        .values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
    if let Some(m) = r.measured
        && !e.values.is_empty()
        && (m < low || m > high)
    {
        line.push_str(&format!(
            "; the measured line, {}, is not one of these: its rows are medians over different rounds, and the verdict reads these",
            fmt_num(m)
        ));
    }
    Some(line)
}

/// The claims not REPRODUCED, and the REPRODUCED ones with a flag about
/// the measurement, one line each with the reason: what to read first.
pub fn needs_attention(c: &PublishedDiff, paint: &dyn Paint) -> Vec<String> {
    c.claims
        .iter()
        .filter(|r| r.verdict != ClaimVerdict::Reproduced || !r.flags().is_empty())
        .filter(|r| {
            r.verdict != ClaimVerdict::Reproduced
                || r.flags()
                    .iter()
                    .any(|f| !matches!(f, VerdictFlag::ModelLimit(_)))
        })
        .map(|r| {
            let why = match (&r.reason, r.verdict) {
                (Some(reason), _) => reason.clone(),
                (None, ClaimVerdict::NotReproduced) => match &r.rounds {
                    Some(super::claim_rounds::RoundsEvidence {
                        interval: Some(i), ..
                    }) => format!(
                        "interval {} to {} fails {}",
                        fmt_num(i.low),
                        fmt_num(i.high),
                        r.criterion
                    ),
                    _ => format!(
                        "measured {} fails {}",
                        r.measured.map_or("-".into(), fmt_num),
                        r.criterion
                    ),
                },
                (None, _) => r
                    .flags()
                    .iter()
                    .filter(|f| !matches!(f, VerdictFlag::ModelLimit(_)))
                    .map(|f| explained(f, r))
                    .collect::<Vec<_>>()
                    .join("; "),
            };
            format!("{}: {}, {why}", r.id, r.flagged().painted(paint))
        })
        .collect()
}

/// Each verdict class and each flag that appears in
/// `diffs`, explained once, in the order the classes and flags are listed.
pub fn legend(diffs: &[&PublishedDiff], paint: &dyn Paint) -> Vec<String> {
    let claims: Vec<&ClaimResult> = diffs.iter().flat_map(|d| &d.claims).collect();
    let mut lines: Vec<String> = ClaimVerdict::all()
        .filter(|class| claims.iter().any(|r| r.verdict == *class))
        .map(|class| {
            format!(
                "{}: {}",
                paint.paint(class.tone(), &class.to_string()),
                class.meaning()
            )
        })
        .collect();
    let mut seen: Vec<VerdictFlag> = Vec::new();
    for flag in claims.iter().flat_map(|r| r.flags()) {
        if !seen.iter().any(|f| f.is_like(&flag)) {
            seen.push(flag);
        }
    }
    lines.extend(
        seen.iter()
            .map(|f| format!("{}: {}", paint.paint(f.tone(), f.name()), f.meaning())),
    );
    lines
}

/// What a flag on a claim means, after its name in the claim's block.
fn explained(flag: &VerdictFlag, r: &ClaimResult) -> String {
    match flag {
        VerdictFlag::MagnitudeUncertain(lo, hi) => {
            let band = r.magnitude_within.unwrap_or(1.0);
            format!(
                "interval x{} to x{} straddles the band {} to {}",
                short_ratio(*lo),
                short_ratio(*hi),
                short_ratio(1.0 / band),
                short_ratio(band)
            )
        }
        VerdictFlag::MagnitudeDiffers(_) => {
            let band = r.magnitude_within.unwrap_or(1.0);
            format!(
                "the direction holds, the size does not (band {} to {})",
                short_ratio(1.0 / band),
                short_ratio(band)
            )
        }
        VerdictFlag::ModelLimit(row) if row.ends_with(&short_step()) => {
            let (low, high) = crate::bench::NO_TRAINING_STEP_EX_S;
            let least = crate::bench::SHORTEST_STEP_COMPARED_MS;
            format!("the embedded engine measured it with a consumer under {least} ms a batch; it was compared with the real DataLoader from {least} ms up and at 0 ms, where its ex/s with workers ran x{low} to x{high} of PyTorch's; a run on the pytorch engine (the real DataLoader) checks it")
        }
        VerdictFlag::ModelLimit(_) => "the embedded engine measured it, and in such rows the split between wait and work turns on where the scheduler's time slice runs out, which a small difference from the real DataLoader moves; a run on the pytorch engine (the real DataLoader) checks it".into(),
        VerdictFlag::StartInWindow(_) => "the window starts when the loader is made, and that much of it passed before the first batch (the workers' start, their first batches made side by side); a run of more batches per configuration weighs it less; do that before reading the size as the chapter's".into(),
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
        if t.window != t.run_window {
            let _ = writeln!(
                s,
                "  (the table's ex/s is over a {}, the run's over a {}: not the same quantity)",
                t.window.label(),
                t.run_window.label()
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
                crate::text::format::list(&t.unmeasured_workers)
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
    for w in &c.windows {
        let _ = writeln!(s, "  window: {}", w.in_words());
    }
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
    use crate::testing::{chapter06_tables, in_rounds, prose06, repo_layout, run_like};

    /// Chapter 06's claims against a run where every verdict class and flag
    /// shows up: a sleep producer that does not scale (NOT_REPRODUCED), a
    /// vanishing wait (magnitude differs), the embedded engine's spin rows on
    /// one CPU (model limit), an edited sentence (QUOTE_MISSING), and, on a
    /// run with thread workers, a precondition unmet (NOT_COMPARABLE); a
    /// run without 8 workers leaves the claims UNRUN; and six rounds where
    /// the sleep speed-up straddles its criterion and spin w8 is disturbed
    /// in three (INCONCLUSIVE both ways), and six where the wait's ratio
    /// straddles its band (magnitude uncertain).
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
        let undecided = in_rounds(run_like(&tables, 1), 6, |round, row| {
            match (row.producer, row.workers) {
                (ProducerKind::Sleep, 8) => row.ex_per_s *= 0.6 + 0.03 * round as f64,
                (ProducerKind::Spin, 8) if round <= 3 => {
                    row.outside = Some(0.38);
                    row.disturbed = true;
                }
                _ => {}
            }
        });
        let uncertain = in_rounds(run_like(&tables, 1), 6, |round, row| {
            if (row.producer, row.workers) == (ProducerKind::Spin, 8) {
                row.wait_mean_ms *= 0.44 + 0.02 * round as f64;
            }
        });
        [flagged, threads, short, undecided, uncertain]
            .iter()
            .map(|run| diff_run(&tables, &[], Some(&claims), &edited, run))
            .collect()
    }

    #[test]
    fn each_model_limit_is_explained_by_its_own_cause() {
        let r = every_verdict()[0].claims[0].clone();
        let why = |row: &str| explained(&VerdictFlag::ModelLimit(row.into()), &r);
        let slice = why("spin, 8 workers on 1 CPU");
        assert!(slice.contains("time slice"), "{slice}");
        let no_step = why("sleep, 8 workers, consumer under 1 ms");
        assert!(
            no_step.contains("at 0 ms, where its ex/s with workers ran x0.93 to x1.37"),
            "{no_step}"
        );
        assert!(!no_step.contains("time slice"), "{no_step}");
        // The legend gives the same measured range.
        let (low, high) = crate::bench::NO_TRAINING_STEP_EX_S;
        let legend = VerdictFlag::ModelLimit(String::new()).meaning();
        assert!(
            legend.contains(&format!("ran x{low} to x{high} of PyTorch's")),
            "{legend}"
        );
        let least = crate::bench::SHORTEST_STEP_COMPARED_MS;
        assert!(
            legend.contains(&format!("a consumer under {least} ms a batch")),
            "{legend}"
        );
    }

    #[test]
    fn every_verdict_and_flag_in_the_text_forms() {
        let text: String = every_verdict()
            .iter()
            .map(|c| {
                format!(
                    "{}\n{}\n{}\nneeds attention:\n{}\nlegend:\n{}\n",
                    text(c, true, &Plain),
                    markdown(c),
                    verdict_summary(c, &Plain),
                    needs_attention(c, &Plain).join("\n"),
                    legend(&[c], &Plain).join("\n")
                )
            })
            .collect();
        insta::assert_snapshot!(text);
    }

    #[test]
    fn a_measured_value_outside_the_rounds_the_verdict_reads_says_so() {
        let tables = chapter06_tables();
        let path = repo_layout().claims_file(&crate::testing::chapter06().key);
        let claims = claims::load(&path, &TableSet::from_published(&tables)).unwrap();
        // Spin at 0 workers disturbed in the first four rounds, where spin
        // at 8 waits far less: the 8-worker row's median is of those rounds,
        // the claim's rounds are the last two.
        let run = in_rounds(run_like(&tables, 1), 6, |round, row| {
            match (row.producer, row.workers) {
                (ProducerKind::Spin, 0) if round < 4 => {
                    row.outside = Some(0.4);
                    row.disturbed = true;
                }
                (ProducerKind::Spin, 8) if round < 4 => row.wait_mean_ms *= 0.3,
                _ => {}
            }
        });
        let d = diff_run(&tables, &[], Some(&claims), &prose06(), &run);
        let out = text(&d, false, &Plain);
        let block: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.contains("spin-wait-mean-62.8-to-28.1:"))
            .take(4)
            .collect();
        let rounds = block
            .iter()
            .find(|l| l.trim_start().starts_with("rounds"))
            .unwrap();
        assert!(rounds.contains("3 of 6 undisturbed: 0.447"), "{block:#?}");
        assert!(
            rounds.contains("the measured line, 0.291, is not one of these"),
            "{block:#?}"
        );
        // A claim whose rows share their rounds says nothing of the kind.
        let sleep = out
            .lines()
            .skip_while(|l| !l.contains("sleep-speedup-7.4x:"))
            .find(|l| l.trim_start().starts_with("rounds"))
            .unwrap();
        assert!(!sleep.contains("is not one of these"), "{sleep}");
    }
}
