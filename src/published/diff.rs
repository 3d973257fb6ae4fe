//! Measured against published: every matching cell side by side, then each
//! claim's verdict.

use serde::Serialize;

use super::audit::{self, Discrepancy, TableWindow};
use super::claim_rounds::{self, RoundsEvidence};
use super::claims::{self, Claim, ClaimsFile, TableSet};
use super::tables::{Malformed, Table};
use super::verdict::{ClaimVerdict, FlaggedVerdict, VerdictFlag};
use crate::bench::{BenchRun, Column, ProducerKind, WindowKind};

/// One cell, published and measured.
#[derive(Debug, Clone, Serialize)]
pub struct CellDiff {
    pub column: String,
    pub published: f64,
    pub measured: f64,
    /// measured / published (None when published is 0).
    pub ratio: Option<f64>,
}

/// One published row matched with a measured one.
#[derive(Debug, Clone, Serialize)]
pub struct RowDiff {
    pub workers: usize,
    pub cells: Vec<CellDiff>,
}

/// One published table against the measured run.
#[derive(Debug, Clone, Serialize)]
pub struct TableDiff {
    pub header: String,
    pub producer: ProducerKind,
    /// Whether the run used the table's cost, batch and consumer.
    pub same_settings: bool,
    /// What the table's ex/s was taken over (by its own identity).
    pub window: WindowKind,
    /// What the run's was.
    pub run_window: WindowKind,
    pub rows: Vec<RowDiff>,
    /// Published worker counts the run did not measure.
    pub unmeasured_workers: Vec<usize>,
}

/// One claim checked.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimResult {
    pub id: String,
    pub quote: String,
    pub location: String,
    pub metric: String,
    /// What the prose says.
    pub stated: f64,
    /// The metric on the chapter's own tables.
    pub published: f64,
    /// Whether the prose agrees with its own table (within the tolerance).
    pub prose_consistent: bool,
    pub measured: Option<f64>,
    /// measured / published, when both are known and published is not 0.
    pub ratio: Option<f64>,
    /// The metric over the chapter's tables, with their values.
    pub published_formula: String,
    /// The metric over the run, with its values.
    pub measured_formula: Option<String>,
    pub criterion: String,
    /// The size band the claim commits to (docs/formats.md, "claims.yaml"), if any.
    pub magnitude_within: Option<f64>,
    /// Set when the direction holds but the size does not: the ratio.
    pub magnitude_differs: Option<f64>,
    /// Set when the direction holds and the interval of the ratio over the
    /// rounds straddles the size band: its ends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub magnitude_uncertain: Option<(f64, f64)>,
    /// The claim's values over the run's rounds; absent for a single run
    /// (a run of one round, as every run made before rounds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<RoundsEvidence>,
    /// Set when the evidence is the embedded engine's and the metric reads
    /// the wait or the work of CPU-bound workers that, with the loop,
    /// outnumber the CPUs (as many workers as CPUs or more):
    /// rows whose split between wait and work turns on where the
    /// scheduler's time slice runs out, which small differences between the
    /// model and the real DataLoader move (docs/engine.md, "Engine against
    /// PyTorch"). Names the row: `spin, 8 workers on 1 CPU`. Also set when
    /// the metric reads the ex/s of a row with process workers in a run
    /// whose training step is under 1 ms, shorter than any the engine was
    /// compared at, where with no step at all its ex/s ran x0.93 to x1.37
    /// of PyTorch's (docs/engine.md, "Without a training step"): `sleep, 8
    /// workers, consumer under 1 ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_limit: Option<String>,
    /// Set when the metric reads the ex/s of a configuration with workers
    /// whose window (from the loader's creation: a run with no warm-up) is
    /// at least [`START_SHARE_FLAGGED`] start-up, time to the first batch:
    /// the row it is largest in and the share, `sleep, 8 workers: 69% of
    /// the window before the first batch`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_in_window: Option<String>,
    pub verdict: ClaimVerdict,
    /// Why, for INCONCLUSIVE, NOT_COMPARABLE and UNRUN.
    pub reason: Option<String>,
    /// Whether the quoted sentence is in the revision compared with.
    pub quote_found: bool,
    /// When it is not: the closest sentence of that revision.
    pub closest_sentence: Option<String>,
}

impl ClaimResult {
    /// The flags beside the verdict, in the order they are printed.
    pub fn flags(&self) -> Vec<VerdictFlag> {
        let mut flags = Vec::new();
        if let Some(ratio) = self.magnitude_differs {
            flags.push(VerdictFlag::MagnitudeDiffers(ratio));
        }
        if let Some((lo, hi)) = self.magnitude_uncertain {
            flags.push(VerdictFlag::MagnitudeUncertain(lo, hi));
        }
        if let Some(row) = &self.model_limit {
            flags.push(VerdictFlag::ModelLimit(row.clone()));
        }
        if let Some(row) = &self.start_in_window {
            flags.push(VerdictFlag::StartInWindow(row.clone()));
        }
        if !self.quote_found {
            flags.push(VerdictFlag::QuoteMissing);
        }
        flags
    }

    /// The verdict with its flags: `REPRODUCED, magnitude differs (x0.007),
    /// QUOTE_MISSING`.
    pub fn flagged(&self) -> FlaggedVerdict {
        FlaggedVerdict {
            class: self.verdict,
            flags: self.flags(),
        }
    }
}

/// Everything `diff` reports.
#[derive(Debug, Clone, Serialize)]
pub struct PublishedDiff {
    pub tables: Vec<TableDiff>,
    pub claims: Vec<ClaimResult>,
    /// The chapter's tables against themselves.
    pub audit: Vec<Discrepancy>,
    /// What each table's ex/s was taken over, as its rows say.
    pub windows: Vec<TableWindow>,
    /// Table-like fragments that did not parse.
    pub malformed: Vec<Malformed>,
    /// CPUs the run used.
    pub run_cpus: usize,
}

impl PublishedDiff {
    /// Whether a check failed: a claim NOT_REPRODUCED, or a claim whose
    /// quoted sentence is no longer in the revision.
    pub fn any_not_reproduced(&self) -> bool {
        self.claims.iter().any(|c| c.flagged().fails())
    }
}

/// Looks a claim's quote up in a revision's normalized text: found when
/// every part of it (`...` or `…` marks an elision) is there; otherwise the
/// closest sentence of the text, as a hint.
pub fn find_quote(quote: &str, normalized_text: &str) -> (bool, Option<String>) {
    use crate::chapter::normalize::normalize;
    // A part prose-v1 refuses cannot be in a text it normalized, so such a
    // quote is not found.
    let parts: Option<Vec<String>> = quote
        .split('…')
        .flat_map(|p| p.split("..."))
        .map(|p| normalize(p).ok())
        .collect();
    let found = parts.is_some_and(|parts| {
        parts
            .iter()
            .filter(|p| !p.is_empty())
            .all(|p| normalized_text.contains(p.as_str()))
    });
    if found {
        return (true, None);
    }
    // The sentence sharing most of the quote's words (the shorter on a tie),
    // cut to its last words when a flattened table runs into it.
    let words = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .filter(|w| !w.is_empty())
            .collect()
    };
    let wanted = words(&quote.replace("...", " ").replace('…', " "));
    let score = |s: &str| {
        let have = words(s);
        wanted.iter().filter(|w| have.contains(w)).count()
    };
    let closest = sentences(normalized_text)
        .filter(|s| score(s) > 0)
        .max_by(|a, b| score(a).cmp(&score(b)).then(b.len().cmp(&a.len())))
        .map(|s| {
            let all: Vec<&str> = s.split_whitespace().collect();
            let keep = wanted.len() * 2 + 4;
            if all.len() > keep {
                format!("… {}", all[all.len() - keep..].join(" "))
            } else {
                s.to_string()
            }
        });
    (false, closest)
}

/// The sentences of a normalized text: cut after `.`, `?` or `!` and a space.
pub fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .match_indices(['.', '?', '!'])
            .map(|(i, _)| i + 1)
            .find(|&i| rest[i..].starts_with(' ') || i == rest.len())
            .unwrap_or(rest.len());
        let (s, r) = rest.split_at(end);
        rest = r.trim_start();
        Some(s.trim())
    })
    .filter(|s| !s.is_empty())
}

/// Compares a run with the chapter's tables and claims; `text` is the
/// revision's normalized prose, where each claim's quote is looked up.
pub fn diff_run(
    tables: &[Table],
    malformed: &[Malformed],
    claims: Option<&ClaimsFile>,
    text: &str,
    run: &BenchRun,
) -> PublishedDiff {
    // Each table's window, read once from its rows.
    let windows: Vec<TableWindow> = tables.iter().map(audit::table_window).collect();
    let mut diffs = Vec::new();
    for (t, window) in tables.iter().zip(&windows) {
        let producer = t.header.producer;
        let mut rows = Vec::new();
        let mut unmeasured = Vec::new();
        for w in t.workers() {
            let Some(m) = run.row(producer, w) else {
                unmeasured.push(w);
                continue;
            };
            let cells = t
                .columns
                .iter()
                .filter(|c| **c != Column::Workers)
                .filter_map(|c| {
                    let published = t.cell(w, c)?.value;
                    let measured = c.measured(m)?;
                    let ratio = (published != 0.0).then(|| measured / published);
                    Some(CellDiff {
                        column: c.name().to_string(),
                        published,
                        measured,
                        ratio,
                    })
                })
                .collect();
            rows.push(RowDiff { workers: w, cells });
        }
        diffs.push(TableDiff {
            header: t.header.to_string(),
            producer,
            same_settings: t.header.same_experiment(&run.settings),
            window: window.kind,
            run_window: run.settings.window,
            rows,
            unmeasured_workers: unmeasured,
        });
    }
    let published_set = TableSet::from_published(tables);
    let measured_set = TableSet::from_run(run);
    let results = claims
        .map(|f| {
            f.claims
                .iter()
                .map(|c| {
                    check_claim(
                        c,
                        tables,
                        &windows,
                        &published_set,
                        &measured_set,
                        text,
                        run,
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    PublishedDiff {
        tables: diffs,
        claims: results,
        audit: tables.iter().flat_map(audit::audit).collect(),
        windows,
        malformed: malformed.to_vec(),
        run_cpus: run.cpus_used.len(),
    }
}

/// A claim checked against the chapter's own tables only: its published
/// value and whether the prose agrees with it, verdict UNRUN.
pub fn unrun(c: &Claim, published: &TableSet, text: &str, reason: Option<String>) -> ClaimResult {
    let published_value = claims::evaluate_published(&c.metric, published).unwrap_or(f64::NAN);
    // A claim over the start has no published value: nothing to hold its
    // prose against.
    let measured_only = claims::reads_measured_only(&c.metric);
    let (quote_found, closest_sentence) = find_quote(&c.quote, text);
    ClaimResult {
        id: c.id.clone(),
        quote: c.quote.clone(),
        location: c.location.clone(),
        metric: c.metric.clone(),
        stated: c.stated.value,
        published: published_value,
        prose_consistent: measured_only
            || (published_value - c.stated.value).abs() <= c.stated.tolerance + 1e-12,
        measured: None,
        ratio: None,
        published_formula: claims::with_values(&c.metric, published),
        measured_formula: None,
        criterion: c.reproduce.to_string(),
        magnitude_within: c.magnitude.map(|m| m.within),
        magnitude_differs: None,
        magnitude_uncertain: None,
        rounds: None,
        model_limit: None,
        start_in_window: None,
        verdict: ClaimVerdict::Unrun,
        reason,
        quote_found,
        closest_sentence,
    }
}

fn check_claim(
    c: &Claim,
    tables: &[Table],
    windows: &[TableWindow],
    published: &TableSet,
    measured: &TableSet,
    text: &str,
    run: &BenchRun,
) -> ClaimResult {
    let mut result = unrun(c, published, text, None);
    let measured_value = match claims::evaluate(&c.metric, measured) {
        Ok(v) => v,
        Err(_) => {
            result.reason = Some(
                "the run has no measurement for every table and worker count the metric reads"
                    .into(),
            );
            return result;
        }
    };
    result.measured = Some(measured_value);
    result.measured_formula = Some(claims::with_values(&c.metric, measured));
    result.ratio = (result.published != 0.0 && result.published.is_finite())
        .then(|| measured_value / result.published);
    let mut unmet = Vec::new();
    if let Some(n) = c.preconditions.cpus
        && run.cpus_used.len() != n
    {
        unmet.push(format!(
            "needs {n} CPU(s), the run used {}",
            run.cpus_used.len()
        ));
    }
    if let Some(k) = c.preconditions.worker_kind
        && run.settings.worker_kind != k
    {
        unmet.push(format!(
            "needs {k} workers, the run used {}",
            run.settings.worker_kind
        ));
    }
    let s = &run.settings;
    for producer in claims::producers_used(&c.metric) {
        if let Some(t) = tables.iter().find(|t| t.header.producer == producer)
            && !t.header.same_experiment(s)
        {
            let h = &t.header;
            unmet.push(format!(
                "the chapter's {producer} table is {} ms/sample, batch {}, consumer {} ms; the run used {} ms/sample, batch {}, consumer {} ms",
                h.cost_ms, h.batch_size, h.consumer_ms, s.cost_ms, s.batch_size, s.consumer_ms
            ));
        }
    }
    // The start is measured apart from ex/s in either window, so a claim
    // that reads only the start is not held to the window.
    let only_the_start = claims::cells_used(&c.metric)
        .iter()
        .all(|(_, _, column)| claims::MEASURED_ONLY.contains(&column.as_str()));
    for producer in claims::producers_used(&c.metric)
        .into_iter()
        .filter(|_| !only_the_start)
    {
        if let Some(w) = windows.iter().find(|w| w.producer == producer)
            && w.kind != s.window
        {
            unmet.push(window_difference(producer, w.kind, s.window));
        }
    }
    if !unmet.is_empty() {
        result.verdict = ClaimVerdict::NotComparable;
        result.reason = Some(unmet.join("; "));
        return result;
    }
    // The verdict, over the rounds when the run has them; then, when the
    // direction held, whether the size did.
    let judged = claim_rounds::judge_claim(c, measured_value, result.ratio, result.published, run);
    result.verdict = judged.verdict;
    result.reason = judged.reason;
    result.rounds = judged.evidence;
    result.magnitude_uncertain = judged.magnitude_uncertain;
    if judged.magnitude_outside {
        result.magnitude_differs = result.ratio;
    }
    result.model_limit = model_limit(&c.metric, run);
    result.start_in_window = start_in_window(&c.metric, run);
    result
}

/// Why a claim over a table whose window differs from the run's cannot be
/// compared: `the chapter's sleep table measured a steady state (...); this
/// run measured the whole run (...)`.
pub fn window_difference(producer: ProducerKind, table: WindowKind, run: WindowKind) -> String {
    let say = |w: WindowKind| match w {
        WindowKind::SteadyState => {
            "a steady state (ex/s per measured step, the workers' start and the pipeline's fill outside)"
        }
        WindowKind::WholeRun => {
            "the whole run (from the loader's creation, the workers' start inside)"
        }
    };
    format!(
        "the chapter's {producer} table measured {}; this run measured {}",
        say(table),
        say(run)
    )
}

/// The share of a window, start-up from the loader's creation to its first
/// batch, from which a claim's ex/s carries [`VerdictFlag::StartInWindow`].
/// Chapter 06's 8 workers on one CPU start in about 0.45 s on the real
/// DataLoader: a fifth of a window of 90 batches at the chapter's speed-up.
pub const START_SHARE_FLAGGED: f64 = 0.2;

/// The row of the largest start-up share among the configurations with
/// workers whose ex/s the metric reads (see [`ClaimResult::start_in_window`]).
fn start_in_window(metric: &str, run: &BenchRun) -> Option<String> {
    if run.settings.window == WindowKind::SteadyState || run.settings.warmup_batches > 0 {
        return None; // the window starts after the warm-up
    }
    claims::cells_used(metric)
        .into_iter()
        .filter(|(_, workers, column)| *workers > 0 && column == "ex_s")
        .filter_map(|(producer, workers, _)| {
            let row = run.row(producer, workers)?;
            let share = row.startup_ms / row.window_ms;
            (share.is_finite() && share >= START_SHARE_FLAGGED)
                .then_some((producer, workers, share))
        })
        .max_by(|a, b| a.2.total_cmp(&b.2))
        .map(|(producer, workers, share)| {
            format!(
                "{producer}, {workers} worker{}: {:.0}% of the window before the first batch",
                if workers == 1 { "" } else { "s" },
                (share * 100.0).min(100.0)
            )
        })
}

/// What a model limit's row ends with when the run's training step was
/// shorter than any the engine was compared at with PyTorch:
/// `consumer under 1 ms`, from the threshold the rule itself uses.
pub fn short_step() -> String {
    format!(
        "consumer under {} ms",
        crate::bench::SHORTEST_STEP_COMPARED_MS
    )
}

/// The model limit a claim's evidence falls under (see
/// [`ClaimResult::model_limit`]): the first such row the metric reads.
fn model_limit(metric: &str, run: &BenchRun) -> Option<String> {
    if run.reference.is_some() {
        return None; // the real DataLoader measured it
    }
    let cpus = run.cpus_used.len();
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let cells = claims::cells_used(metric);
    let oversubscribed = cells.iter().find(|(producer, workers, column)| {
        // With the loop, as many CPU-bound workers as CPUs already
        // queue for a CPU.
        producer.needs_cpu() && *workers >= cpus && (column.starts_with("wait") || column == "work")
    });
    if let Some((producer, workers, _)) = oversubscribed {
        return Some(format!(
            "{producer}, {workers} worker{} on {cpus} CPU{}",
            plural(*workers),
            plural(cpus)
        ));
    }
    // Under the shortest training step compared, the engine's ex/s with
    // workers is not known to be PyTorch's (docs/engine.md, "Without a
    // training step").
    let no_step = run.engine_under_the_shortest_step();
    cells
        .iter()
        .find(|(_, workers, column)| no_step && *workers > 0 && column == "ex_s")
        .map(|(producer, workers, _)| {
            format!(
                "{producer}, {workers} worker{}, {}",
                plural(*workers),
                short_step()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::ProducerKind;
    use crate::published::claims::{self, ClaimsFile};
    use crate::published::render;
    use crate::published::verdict::Plain;
    use crate::testing::{chapter06_tables, prose06, repo_layout, run_like};

    fn claims06(tables: &[Table]) -> ClaimsFile {
        let path = repo_layout().claims_file(&crate::testing::chapter06().key);
        claims::load(&path, &TableSet::from_published(tables)).unwrap()
    }

    fn verdict<'a>(c: &'a PublishedDiff, id: &str) -> &'a ClaimResult {
        c.claims.iter().find(|r| r.id == id).unwrap()
    }

    #[test]
    fn the_chapters_own_numbers_reproduce_every_claim() {
        let tables = chapter06_tables();
        let c = diff_run(
            &tables,
            &[],
            Some(&claims06(&tables)),
            &prose06(),
            &run_like(&tables, 1),
        );
        assert_eq!(c.claims.len(), 6);
        for r in &c.claims {
            assert_eq!(r.verdict, ClaimVerdict::Reproduced, "{r:?}");
            assert!(r.prose_consistent, "{r:?}");
            assert_eq!(r.measured, Some(r.published), "{r:?}");
        }
        assert!(!c.any_not_reproduced());
        // Every published cell has its twin, at ratio 1.
        let spin = &c.tables[1];
        assert_eq!(spin.producer, ProducerKind::Spin);
        assert!(spin.same_settings && spin.unmeasured_workers.is_empty());
        assert_eq!(spin.rows.len(), 5);
        assert!(
            spin.rows
                .iter()
                .flat_map(|r| &r.cells)
                .all(|x| x.ratio == Some(1.0))
        );
    }

    #[test]
    fn the_engines_wait_and_work_under_cpu_bound_oversubscription_carry_the_model_limit() {
        let tables = chapter06_tables();
        let claims = claims06(&tables);
        let limited = |c: &PublishedDiff| -> Vec<String> {
            c.claims
                .iter()
                .filter(|r| r.model_limit.is_some())
                .map(|r| r.id.clone())
                .collect()
        };
        let check = |run: &BenchRun| diff_run(&tables, &[], Some(&claims), &prose06(), run);
        let embedded = check(&run_like(&tables, 1));
        // The wait, wait-fraction, work and step claims read spin rows with
        // 8 workers on 1 CPU; the ex/s claims do not read wait or work.
        assert_eq!(
            limited(&embedded),
            [
                "spin-wait-mean-62.8-to-28.1",
                "spin-wait-frac-0.89-to-0.39",
                "spin-work-7.8-to-43.2",
                "spin-step-five-times-slower"
            ]
        );
        let r = verdict(&embedded, "spin-wait-mean-62.8-to-28.1");
        assert_eq!(r.verdict, ClaimVerdict::Reproduced);
        assert_eq!(
            r.flagged().to_string(),
            "REPRODUCED, model limit (spin, 8 workers on 1 CPU)"
        );
        // Measured by the real DataLoader: no model, no limit.
        let pytorch = crate::testing::measured_by_pytorch(run_like(&tables, 1));
        assert!(render::verdict_summary(&embedded, &Plain).ends_with("; 4 under a model limit"));
        let c = check(&pytorch);
        assert!(limited(&c).is_empty());
        assert!(!render::verdict_summary(&c, &Plain).contains("model limit"));
        // On 8 CPUs the CPU precondition makes the claims NOT_COMPARABLE,
        // and a claim that is not compared names no limit.
        assert!(limited(&check(&run_like(&tables, 8))).is_empty());
    }

    #[test]
    fn a_whole_run_against_the_chapters_steady_state_tables_is_not_comparable() {
        let tables = chapter06_tables();
        let claims = claims06(&tables);
        let mut run = run_like(&tables, 1);
        run.settings.window = WindowKind::WholeRun;
        let c = diff_run(&tables, &[], Some(&claims), &prose06(), &run);
        for r in &c.claims {
            assert_eq!(r.verdict, ClaimVerdict::NotComparable, "{}", r.id);
            let why = r.reason.as_deref().unwrap_or_default();
            assert!(
                why.contains("table measured a steady state (ex/s per measured step, the workers' start and the pipeline's fill outside); this run measured the whole run (from the loader's creation"),
                "{why}"
            );
        }
        assert!(
            c.tables.iter().all(
                |t| t.window == WindowKind::SteadyState && t.run_window == WindowKind::WholeRun
            )
        );
        // The same run over the steady state compares.
        run.settings.window = WindowKind::SteadyState;
        let c = diff_run(&tables, &[], Some(&claims), &prose06(), &run);
        assert!(
            c.claims
                .iter()
                .all(|r| r.verdict == ClaimVerdict::Reproduced)
        );
    }

    #[test]
    fn a_claim_over_the_start_has_no_published_value_and_no_window() {
        let tables = chapter06_tables();
        let mut claims = claims06(&tables);
        let mut start = claims.claims[0].clone();
        start.id = "sleep-start".into();
        start.metric = "sleep.w8.startup".into();
        claims.claims = vec![start];
        let mut run = run_like(&tables, 1);
        for r in &mut run.results {
            r.summary.startup_ms = 300.0;
        }
        for window in [WindowKind::SteadyState, WindowKind::WholeRun] {
            run.settings.window = window;
            let c = diff_run(&tables, &[], Some(&claims), &prose06(), &run);
            let r = &c.claims[0];
            assert_ne!(r.verdict, ClaimVerdict::NotComparable, "{window}: {r:?}");
            assert!(r.published.is_nan());
            assert_eq!(r.measured, Some(300.0));
            assert!(r.prose_consistent, "nothing to hold the prose against");
        }
    }

    #[test]
    fn an_ex_s_claim_over_a_whole_run_window_mostly_start_up_says_so() {
        let tables = chapter06_tables();
        // 8 sleeping workers took 450 ms to their first batch of a 650 ms
        // window, as the real DataLoader's did over 20 batches.
        let mut run = run_like(&tables, 1);
        run.settings.window = WindowKind::WholeRun;
        let starting = |run: &mut BenchRun, producer, workers, startup_ms: f64| {
            let r = run
                .results
                .iter_mut()
                .find(|r| r.producer == producer && r.workers == workers)
                .unwrap();
            r.summary.startup_ms = startup_ms;
            r.summary.window_ms = 650.0;
        };
        starting(&mut run, ProducerKind::Sleep, 8, 450.0);
        // The 0-worker row's start is no worker's: never flagged.
        starting(&mut run, ProducerKind::Sleep, 0, 640.0);
        assert_eq!(
            start_in_window("sleep.w8.ex_s / sleep.w0.ex_s", &run).as_deref(),
            Some("sleep, 8 workers: 69% of the window before the first batch")
        );
        // Claims that read no ex/s of that row carry nothing.
        assert_eq!(start_in_window("sleep.w8.wait_mean", &run), None);
        assert_eq!(start_in_window("sleep.w0.ex_s", &run), None);
        // Under a fifth of the window, a window after a warm-up, or a
        // steady state: no flag.
        starting(&mut run, ProducerKind::Sleep, 8, 120.0);
        assert_eq!(start_in_window("sleep.w8.ex_s", &run), None);
        starting(&mut run, ProducerKind::Sleep, 8, 450.0);
        run.settings.warmup_batches = 10;
        assert_eq!(start_in_window("sleep.w8.ex_s", &run), None);
        run.settings.warmup_batches = 0;
        run.settings.window = WindowKind::SteadyState;
        assert_eq!(start_in_window("sleep.w8.ex_s", &run), None);
    }

    #[test]
    fn the_limit_starts_where_the_workers_and_the_loop_outnumber_the_cpus() {
        let tables = chapter06_tables();
        let on = |cpus| run_like(&tables, cpus);
        assert_eq!(
            model_limit("spin.w1.wait_mean", &on(1)).as_deref(),
            Some("spin, 1 worker on 1 CPU")
        );
        assert_eq!(
            model_limit("spin.w2.work / spin.w0.work", &on(2)).as_deref(),
            Some("spin, 2 workers on 2 CPUs")
        );
        // One spinning worker and the loop fit on two CPUs.
        assert_eq!(model_limit("spin.w1.wait_mean", &on(2)), None);
        // Throughput, and producers that sleep, are not what the limit is about.
        assert_eq!(model_limit("spin.w8.ex_s / spin.w0.ex_s", &on(1)), None);
        assert_eq!(model_limit("sleep.w8.wait_mean", &on(1)), None);
    }

    #[test]
    fn under_the_shortest_training_step_the_engines_ex_s_with_workers_carries_the_model_limit() {
        let tables = chapter06_tables();
        let mut run = run_like(&tables, 1);
        run.settings.consumer_ms = 0.0;
        assert_eq!(
            model_limit("sleep.w8.ex_s / sleep.w0.ex_s", &run).as_deref(),
            Some("sleep, 8 workers, consumer under 1 ms")
        );
        // The 0-worker row has no hand-off to be cheap in, and the wait is
        // all of the step on both engines.
        assert_eq!(model_limit("sleep.w0.ex_s", &run), None);
        assert_eq!(model_limit("sleep.w8.wait_frac", &run), None);
        // The time-slice limit names its own row first.
        assert_eq!(
            model_limit("spin.w8.work / spin.w8.ex_s", &run).as_deref(),
            Some("spin, 8 workers on 1 CPU")
        );
        // A step as short as any compared, or thread workers: no limit.
        run.settings.consumer_ms = 0.5;
        assert!(model_limit("sleep.w8.ex_s", &run).is_some());
        run.settings.consumer_ms = 1.0;
        assert_eq!(model_limit("sleep.w8.ex_s", &run), None);
        run.settings.consumer_ms = 0.0;
        run.settings.worker_kind = crate::bench::WorkerKind::Thread;
        assert_eq!(model_limit("sleep.w8.ex_s", &run), None);
    }

    #[test]
    fn a_sleep_producer_that_does_not_scale_is_not_reproduced() {
        let tables = chapter06_tables();
        let mut run = run_like(&tables, 1);
        for r in run
            .results
            .iter_mut()
            .filter(|r| r.producer == ProducerKind::Sleep)
        {
            r.summary.ex_per_s = 420.0;
        }
        let c = diff_run(&tables, &[], Some(&claims06(&tables)), &prose06(), &run);
        let r = verdict(&c, "sleep-speedup-7.4x");
        assert_eq!(r.verdict, ClaimVerdict::NotReproduced);
        assert_eq!(r.measured, Some(1.0));
        assert!(c.any_not_reproduced());
        // The spin claims do not read the sleep table and still hold.
        assert_eq!(
            verdict(&c, "spin-454-vs-449").verdict,
            ClaimVerdict::Reproduced
        );
    }

    #[test]
    fn a_run_on_other_cpus_or_settings_is_not_comparable_and_says_why() {
        let tables = chapter06_tables();
        let claims = claims06(&tables);
        let c = diff_run(
            &tables,
            &[],
            Some(&claims),
            &prose06(),
            &run_like(&tables, 2),
        );
        for r in &c.claims {
            assert_eq!(r.verdict, ClaimVerdict::NotComparable, "{r:?}");
            assert!(
                r.reason
                    .as_deref()
                    .unwrap()
                    .contains("needs 1 CPU(s), the run used 2")
            );
        }
        let mut run = run_like(&tables, 1);
        run.settings.batch_size = 16;
        let c = diff_run(&tables, &[], Some(&claims), &prose06(), &run);
        assert!(!c.tables[0].same_settings);
        let reason = verdict(&c, "sleep-speedup-7.4x").reason.clone().unwrap();
        assert!(
            reason.contains("the chapter's sleep table is 2 ms/sample, batch 32"),
            "{reason}"
        );
        let mut run = run_like(&tables, 1);
        run.settings.worker_kind = crate::bench::WorkerKind::Thread;
        let c = diff_run(&tables, &[], Some(&claims), &prose06(), &run);
        assert_eq!(
            verdict(&c, "spin-step-five-times-slower").verdict,
            ClaimVerdict::NotComparable
        );
        assert_eq!(
            verdict(&c, "spin-work-7.8-to-43.2").verdict,
            ClaimVerdict::Reproduced
        );
    }

    #[test]
    fn a_run_missing_a_worker_count_leaves_claims_that_need_it_unrun() {
        let tables = chapter06_tables();
        let mut run = run_like(&tables, 1);
        run.results.retain(|r| r.workers != 8);
        let c = diff_run(&tables, &[], Some(&claims06(&tables)), &prose06(), &run);
        assert_eq!(c.tables[0].unmeasured_workers, vec![8]);
        for r in &c.claims {
            assert_eq!(r.verdict, ClaimVerdict::Unrun, "{r:?}");
            assert_eq!(r.measured, None);
            assert!(r.reason.is_some());
        }
    }

    #[test]
    fn a_wait_that_vanishes_reproduces_the_direction_but_not_the_size() {
        let tables = chapter06_tables();
        let mut run = run_like(&tables, 1);
        for r in run.results.iter_mut() {
            if r.producer == ProducerKind::Spin && r.workers == 8 {
                r.summary.wait_mean_ms = 0.2;
            }
        }
        let c = diff_run(&tables, &[], Some(&claims06(&tables)), &prose06(), &run);
        let r = verdict(&c, "spin-wait-mean-62.8-to-28.1");
        assert_eq!(r.verdict, ClaimVerdict::Reproduced);
        let differs = r.magnitude_differs.expect("flagged");
        assert!(
            (differs - (0.2 / 62.8) / (28.1 / 62.8)).abs() < 1e-9,
            "{differs}"
        );
        assert_eq!(
            r.flagged().to_string(),
            "REPRODUCED, magnitude differs (x0.00712), model limit (spin, 8 workers on 1 CPU)"
        );
        // A claim within its band is not flagged.
        assert!(
            verdict(&c, "sleep-speedup-7.4x")
                .magnitude_differs
                .is_none()
        );
        assert!(
            render::verdict_summary(&c, &Plain)
                .contains("6 REPRODUCED (1 of them magnitude differs)")
        );
    }

    #[test]
    fn a_quote_the_revision_no_longer_has_is_missing_with_a_hint() {
        let tables = chapter06_tables();
        let edited = prose06().replace("got 7.4 times faster", "got much faster");
        let c = diff_run(
            &tables,
            &[],
            Some(&claims06(&tables)),
            &edited,
            &run_like(&tables, 1),
        );
        let r = verdict(&c, "sleep-speedup-7.4x");
        assert!(!r.quote_found);
        let hint = r.closest_sentence.as_deref().unwrap();
        assert!(
            hint.ends_with("The first pipeline got much faster."),
            "{hint}"
        );
        assert_eq!(
            r.verdict,
            ClaimVerdict::Reproduced,
            "the measurement still speaks"
        );
        assert!(c.any_not_reproduced(), "a missing quote fails the check");
        // An elided quote is found part by part.
        assert!(verdict(&c, "spin-wait-mean-62.8-to-28.1").quote_found);
    }

    #[test]
    fn without_claims_the_tables_are_still_compared() {
        let tables = chapter06_tables();
        let c = diff_run(&tables, &[], None, &prose06(), &run_like(&tables, 1));
        assert!(c.claims.is_empty());
        assert_eq!(c.tables.len(), 2);
        assert_eq!(c.run_cpus, 1);
    }
}
