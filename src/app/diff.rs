//! `diff`: a measured run against what a chapter revision published: its
//! tables cell by cell and its claims one by one.

use super::Project;
use crate::bench::BenchRun;
use crate::chapter::Chapter;
use crate::error::Result;
use crate::published::claims::TableSet;
use crate::published::diff::{self, ClaimResult, PublishedDiff};
use crate::published::tables::Table;
use crate::published::{read_claims, read_prose, read_tables};
use crate::records::StoredVerdict;

/// What `diff` found, and the published tables it compared with.
#[derive(Debug, Clone)]
pub struct Diffed {
    pub diff: PublishedDiff,
    pub tables: Vec<Table>,
}

/// Compares `run` with the tables and claims of one snapshot of a chapter.
pub fn diff_run(
    project: &Project,
    chapter: &Chapter,
    snapshot: &str,
    run: &BenchRun,
) -> Result<Diffed> {
    let parsed = read_tables(project.layout(), chapter, snapshot)?;
    let claims = read_claims(project.layout(), chapter, &parsed)?;
    let prose = read_prose(project.layout(), chapter, snapshot)?;
    Ok(Diffed {
        diff: diff::diff_run(
            &parsed.tables,
            &parsed.malformed,
            claims.as_ref(),
            &prose,
            run,
        ),
        tables: parsed.tables,
    })
}

/// Compares a recorded experiment with the revision it examined.
pub fn diff_recorded(
    project: &Project,
    chapter: &Chapter,
    experiment: &super::runs::RecordedRun,
) -> Result<Diffed> {
    diff_run(
        project,
        chapter,
        &experiment.record.revision.snapshot,
        &experiment.run,
    )
}

/// The claims of one snapshot checked against its own tables only, every
/// verdict UNRUN with `reason`; and the tables.
pub fn unrun_claims(
    project: &Project,
    chapter: &Chapter,
    snapshot: &str,
    reason: &str,
) -> Result<(Vec<ClaimResult>, Vec<Table>)> {
    let parsed = read_tables(project.layout(), chapter, snapshot)?;
    let claims = read_claims(project.layout(), chapter, &parsed)?;
    let prose = read_prose(project.layout(), chapter, snapshot)?;
    let set = TableSet::from_published(&parsed.tables);
    let results = claims
        .map(|f| {
            f.claims
                .iter()
                .map(|c| diff::unrun(c, &set, &prose, Some(reason.to_string())))
                .collect()
        })
        .unwrap_or_default();
    Ok((results, parsed.tables))
}

/// Claim verdicts as an experiment record keeps them.
pub fn stored_verdicts(c: &PublishedDiff) -> Vec<StoredVerdict> {
    c.claims.iter().map(StoredVerdict::of).collect()
}
