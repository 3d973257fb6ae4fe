//! `diff`: a measured run against what a chapter revision published: its
//! tables cell by cell and its claims one by one.

use super::Project;
use super::runs::{self, RunSource};
use crate::bench::BenchRun;
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use crate::published::claims::TableSet;
use crate::published::diff::{self, ClaimResult, PublishedDiff};
use crate::published::tables::Table;
use crate::published::{read_claims, read_prose, read_tables};
use crate::records::status::{self, ClaimAcrossEnvironments, EnvironmentEvidence};
use crate::records::{Record, StoredVerdict};

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

/// Whether `run` can be compared with the tables and claims of one
/// snapshot of a chapter: None when it can, else the first setting that
/// differs (`published::comparability`).
pub fn comparability(
    project: &Project,
    chapter: &Chapter,
    snapshot: &str,
    run: &BenchRun,
) -> Result<Option<String>> {
    let parsed = read_tables(project.layout(), chapter, snapshot)?;
    let claims = read_claims(project.layout(), chapter, &parsed)?;
    Ok(crate::published::comparability::first_difference(
        &parsed.tables,
        claims.as_ref(),
        run,
    ))
}

/// [`comparability`] of a run about to be made with `settings`, against
/// the chapter's current snapshot.
pub fn planned_comparability(
    project: &Project,
    chapter: &Chapter,
    settings: &crate::bench::Settings,
) -> Result<Option<String>> {
    let snapshot = &chapter.state.current_snapshot;
    let parsed = read_tables(project.layout(), chapter, snapshot)?;
    let claims = read_claims(project.layout(), chapter, &parsed)?;
    Ok(crate::published::comparability::planned_difference(
        &parsed.tables,
        claims.as_ref(),
        settings,
    ))
}

/// A run `diff` was asked about, and what it found.
#[derive(Debug, Clone)]
pub struct DiffedRun {
    pub run: BenchRun,
    pub chapter: Chapter,
    /// The snapshot file compared with.
    pub snapshot: String,
    pub diffed: Diffed,
    /// The recorded run's id (None for a run file).
    pub run_id: Option<crate::ids::RunId>,
    /// With the latest run: the later experiments passed over because they
    /// decided nothing, newest first.
    pub passed_over: Vec<crate::ids::RunId>,
}

/// `diff`: the run `source` names against the snapshot it is compared with
/// (a run file: the chapter's current one; a recorded run: the revision it
/// examined). `chapter` names the chapter of a run file or of the latest
/// run (else the only one registered). Refused when the snapshot publishes
/// no tables, saying what looked like one.
pub fn diff(project: &Project, source: RunSource<'_>, chapter: Option<&str>) -> Result<DiffedRun> {
    let selected = runs::select(project, source, chapter)?;
    let diffed = diff_run(
        project,
        &selected.chapter,
        &selected.snapshot,
        &selected.run,
    )?;
    if diffed.tables.is_empty() {
        return Err(Error::Usage(format!(
            "{}: the snapshot {} holds no published tables{}",
            selected.chapter.key,
            selected.snapshot,
            crate::published::tables::why_no_tables(&diffed.diff.malformed)
        )));
    }
    Ok(DiffedRun {
        run_id: selected.record.map(|r| r.run_id),
        run: selected.run,
        chapter: selected.chapter,
        snapshot: selected.snapshot,
        diffed,
        passed_over: selected.passed_over,
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

/// Each claim's verdict in every environment that recorded experiments
/// (`diff --all-envs`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct AcrossEnvironments {
    pub chapter: String,
    /// The latest experiment of each environment, newest first, of the
    /// measurement this tool makes today.
    pub environments: Vec<EnvironmentEvidence>,
    /// Environments whose latest experiment is an earlier measurement:
    /// shown, never compared with the others.
    pub earlier_measurements: Vec<EnvironmentEvidence>,
    pub claims: Vec<ClaimAcrossEnvironments>,
}

impl AcrossEnvironments {
    /// The chapter's records (newest first) compared across environments.
    pub fn of(chapter: String, records: &[Record]) -> Self {
        let (environments, earlier_measurements) = status::by_measurement(records);
        let claims = status::across_environments(&environments);
        AcrossEnvironments {
            chapter,
            environments,
            earlier_measurements,
            claims,
        }
    }

    /// Whether a claim is NOT_REPRODUCED in some environment.
    pub fn any_not_reproduced(&self) -> bool {
        self.claims
            .iter()
            .any(|c| c.verdicts.iter().any(|(_, v)| v.fails()))
    }
}

/// The chapter's claims across every environment that recorded an
/// experiment of it: `chapter` names it (else the only one registered).
pub fn all_envs(project: &Project, chapter: Option<&str>) -> Result<AcrossEnvironments> {
    let chapter = project.the_chapter(chapter)?;
    let (records, _) = project.records(&chapter)?;
    let across = AcrossEnvironments::of(chapter.key.to_string(), &records);
    // Earlier measurements alone are still runs to show, apart.
    if across.environments.is_empty() && across.earlier_measurements.is_empty() {
        return Err(Error::Usage(format!(
            "no experiment run is recorded for {}",
            chapter.key
        )));
    }
    Ok(across)
}
