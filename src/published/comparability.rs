//! Whether a run can be compared with a chapter's published tables at all:
//! the experiment the tables describe (each table's producer, cost, batch
//! and consumer, its worker counts) and what its claims require (the CPUs,
//! the kind of workers). A run that differs in any of them is still a run,
//! but not evidence about the chapter's claims, so recording it as the
//! chapter's experiment takes the author's word (`record` says which).

use super::claims::ClaimsFile;
use super::tables::Table;
use crate::bench::{BenchRun, ProducerKind, Settings};

/// The first setting in which `run` differs from what the chapter's tables
/// and claims measured, in words (`cost_ms: the run used 1 ms/sample, the
/// chapter's sleep table 2 ms/sample`); None when the run can be compared.
pub fn first_difference(
    tables: &[Table],
    claims: Option<&ClaimsFile>,
    run: &BenchRun,
) -> Option<String> {
    difference(
        tables,
        claims,
        &run.settings,
        |p, w| run.row(p, w).is_some(),
        Some(run.cpus_used.len()),
    )
}

/// [`first_difference`] for a run about to be made with `settings`, so it
/// is refused before it runs (the CPUs only when `settings` fixes them).
pub fn planned_difference(
    tables: &[Table],
    claims: Option<&ClaimsFile>,
    settings: &Settings,
) -> Option<String> {
    difference(
        tables,
        claims,
        settings,
        |p, w| settings.producers.contains(&p) && settings.workers.contains(&w),
        settings.cpus,
    )
}

fn difference(
    tables: &[Table],
    claims: Option<&ClaimsFile>,
    s: &Settings,
    measured: impl Fn(ProducerKind, usize) -> bool,
    cpus: Option<usize>,
) -> Option<String> {
    if tables.is_empty() {
        return Some("the chapter's snapshot publishes no tables to compare it with".into());
    }
    let num = crate::text::format::number;
    for t in tables {
        let h = &t.header;
        let which = format!("the chapter's {} table", h.producer);
        let workers = t.workers();
        if !workers.iter().any(|w| measured(h.producer, *w)) {
            return Some(format!(
                "producers: the run did not measure the {} producer of {which}",
                h.producer
            ));
        }
        if (h.cost_ms - s.cost_ms).abs() > 1e-9 {
            return Some(format!(
                "cost_ms: the run used {} ms/sample, {which} {} ms/sample",
                num(s.cost_ms),
                num(h.cost_ms)
            ));
        }
        if h.batch_size != s.batch_size {
            return Some(format!(
                "batch_size: the run used batches of {}, {which} {}",
                s.batch_size, h.batch_size
            ));
        }
        if (h.consumer_ms - s.consumer_ms).abs() > 1e-9 {
            return Some(format!(
                "consumer_ms: the run used {} ms/batch, {which} {} ms/batch",
                num(s.consumer_ms),
                num(h.consumer_ms)
            ));
        }
        let missing: Vec<usize> = workers
            .iter()
            .copied()
            .filter(|w| !measured(h.producer, *w))
            .collect();
        if !missing.is_empty() {
            return Some(format!(
                "workers: the run did not measure {} of {which}'s {}",
                crate::text::format::list(&missing),
                crate::text::format::list(&workers)
            ));
        }
    }
    for t in tables {
        let window = super::audit::table_window(t).kind;
        if window != s.window {
            return Some(format!(
                "window: {}",
                super::diff::window_difference(t.header.producer, window, s.window)
            ));
        }
    }
    let claims = claims.map(|c| c.claims.as_slice()).unwrap_or_default();
    if let Some(n) = claims.iter().find_map(|c| c.preconditions.cpus)
        && let Some(used) = cpus.filter(|used| *used != n)
    {
        return Some(format!(
            "cpus: the chapter's claims need {n} CPU(s), the run used {used}"
        ));
    }
    if let Some(k) = claims.iter().find_map(|c| c.preconditions.worker_kind)
        && s.worker_kind != k
    {
        return Some(format!(
            "worker_kind: the chapter's claims need {k} workers, the run used {}",
            s.worker_kind
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{chapter06_tables, run_like};

    #[test]
    fn the_chapters_own_experiment_can_be_compared() {
        let tables = chapter06_tables();
        assert_eq!(first_difference(&tables, None, &run_like(&tables, 1)), None);
    }

    #[test]
    fn the_first_setting_that_differs_is_named() {
        let tables = chapter06_tables();
        let mut run = run_like(&tables, 1);
        run.settings.batch_size = 16;
        run.settings.cost_ms = 1.0;
        let why = first_difference(&tables, None, &run).unwrap();
        assert!(
            why.starts_with("cost_ms: the run used 1 ms/sample"),
            "{why}"
        );
        let mut run = run_like(&tables, 1);
        run.results.retain(|r| r.workers != 8);
        let why = first_difference(&tables, None, &run).unwrap();
        assert!(
            why.starts_with("workers: the run did not measure 8"),
            "{why}"
        );
        assert_eq!(
            first_difference(&[], None, &run_like(&tables, 1)).as_deref(),
            Some("the chapter's snapshot publishes no tables to compare it with")
        );
    }
}
