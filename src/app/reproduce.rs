//! Reproducing a chapter: the experiment its published tables describe (their
//! headers give producer, cost, batch and consumer, their rows the worker
//! counts, the claims' preconditions the CPUs), and the conclusion of a run
//! of it: compared with the current snapshot and, unless asked not to,
//! recorded.

use super::record::{self, Stored};
use super::{Project, diff};
use crate::bench::{BenchRun, Settings};
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use crate::published::{read_claims, read_tables};

/// The chapter's experiment as its current snapshot's tables describe it.
pub fn settings(project: &Project, chapter: &Chapter) -> Result<Settings> {
    let parsed = read_tables(project.layout(), chapter, &chapter.state.current_snapshot)?;
    let Some(first) = parsed.tables.first() else {
        // Say why, when something looked like a table.
        let fragments: Vec<String> = parsed
            .malformed
            .iter()
            .map(|m| {
                format!(
                    "; a table-like fragment at {} did not parse: {}",
                    m.location, m.problem
                )
            })
            .collect();
        return Err(Error::Usage(format!(
            "{}: the current snapshot holds no published tables to reproduce{}",
            chapter.key,
            fragments.concat()
        )));
    };
    let mut s = Settings::chapter_defaults();
    s.producers.clear();
    s.workers.clear();
    for t in &parsed.tables {
        if !t.header.same_settings_as(&first.header) {
            return Err(Error::Usage(format!(
                "the chapter's tables use different settings ({} and {}); run `bench` for each by hand",
                first.header, t.header
            )));
        }
        if !s.producers.contains(&t.header.producer) {
            s.producers.push(t.header.producer);
        }
        for w in t.workers() {
            if !s.workers.contains(&w) {
                s.workers.push(w);
            }
        }
    }
    s.workers.sort();
    s.cost_ms = first.header.cost_ms;
    s.batch_size = first.header.batch_size;
    s.consumer_ms = first.header.consumer_ms;
    if let Some(claims) = read_claims(project.layout(), chapter, &parsed)?
        && let Some(n) = claims.claims.iter().find_map(|c| c.preconditions.cpus)
    {
        s.cpus = Some(n);
    }
    Ok(s)
}

/// What a reproduction concluded.
#[derive(Debug, Clone)]
pub struct Reproduced {
    pub diffed: diff::Diffed,
    /// The experiment record, unless recording was turned off.
    pub stored: Option<Stored>,
}

/// Compares a run of the chapter's experiment with its current snapshot and
/// records it (with the verdicts just computed) when `record` names what
/// made the run.
pub fn conclude(
    project: &Project,
    chapter: &Chapter,
    run: &BenchRun,
    record: Option<&str>,
) -> Result<Reproduced> {
    let diffed = diff::diff_run(project, chapter, &chapter.state.current_snapshot, run)?;
    let stored = match record {
        Some(source) => {
            let verdicts = diff::stored_verdicts(&diffed.diff);
            Some(record::bench_run(
                project,
                chapter,
                run,
                source,
                Some(verdicts),
            )?)
        }
        None => None,
    };
    Ok(Reproduced { diffed, stored })
}
