//! Looking up recorded runs: the latest of a kind, a run named by id, and the
//! run a comparison is about (a run file, a recorded run, or the latest).

use std::path::Path;

use super::Project;
use crate::bench::BenchRun;
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use crate::ids::RunId;
use crate::records::{Record, RunKind};

/// The chapter's latest recorded run of `kind`.
pub fn latest(project: &Project, chapter: &Chapter, kind: RunKind) -> Result<Option<Record>> {
    let (records, _) = project.records(chapter)?;
    Ok(records.into_iter().find(|r| r.kind == kind))
}

/// The chapter's latest experiment that is evidence about its claims (one
/// not recorded as incomparable): what `diff --latest` and `report` read.
pub fn latest_evidence(project: &Project, chapter: &Chapter) -> Result<Option<Record>> {
    let (records, _) = project.records(chapter)?;
    Ok(crate::records::latest_evidence(&records).cloned())
}

/// A recorded run of the chapter, by id; the error says when it is not one.
/// A retracted run is refused, with its retraction.
pub fn recorded(project: &Project, chapter: &Chapter, id: &RunId) -> Result<Record> {
    let (records, _) = project.records_with_retracted(chapter)?;
    let record = records
        .into_iter()
        .find(|r| r.run_id == *id)
        .ok_or_else(|| Error::Usage(format!("run {id} is not recorded for {}", chapter.key)))?;
    match &record.retraction {
        Some(r) => Err(Error::Usage(format!(
            "run {id} was retracted ({}); nothing reads it as evidence or research",
            r.label()
        ))),
        None => Ok(record),
    }
}

/// The run a new record follows: the one given (checked to be recorded for
/// the chapter), or else the chapter's latest run of the same kind.
pub fn previous(
    project: &Project,
    chapter: &Chapter,
    given: Option<&str>,
    kind: RunKind,
) -> Result<Option<RunId>> {
    match given {
        None => Ok(latest(project, chapter, kind)?.map(|r| r.run_id)),
        Some(text) => {
            let id = RunId::parse(text)?;
            recorded(project, chapter, &id).map(|r| Some(r.run_id))
        }
    }
}

/// A recorded experiment with its run file read back.
#[derive(Debug, Clone)]
pub struct RecordedRun {
    pub record: Record,
    pub run: BenchRun,
}

/// Reads the run file a recorded experiment keeps.
pub fn experiment(project: &Project, record: Record) -> Result<RecordedRun> {
    let Some(exp) = &record.experiment else {
        return Err(Error::Usage(format!(
            "run {} is a {} run, not an experiment",
            record.run_id, record.kind
        )));
    };
    let layout = project.layout();
    let path = layout.evidence_file(&record.run_id.chapter, &exp.file);
    let text = crate::records::store::read_evidence_text(layout, &record, &exp.file, &exp.sha256)?;
    let run = BenchRun::parse(&text, &path)?;
    Ok(RecordedRun { record, run })
}

/// The text of a research record's stored report, read from inside the
/// records folder as `experiment` reads a run file, for publishing: every
/// URL in it without its secrets (the stored copy stays byte for byte);
/// None for a record with no report.
pub fn report_text(project: &Project, record: &Record) -> Result<Option<String>> {
    let Some(info) = &record.report else {
        return Ok(None);
    };
    let text = crate::records::store::read_evidence_text(
        project.layout(),
        record,
        &info.file,
        &info.sha256,
    )?;
    Ok(Some(
        crate::text::redact::redact_urls_in(&text).into_owned(),
    ))
}

/// Which run a comparison is about.
#[derive(Debug, Clone, Copy)]
pub enum RunSource<'a> {
    /// A run file written by `bench --out`, compared with the chapter's
    /// current snapshot.
    File(&'a Path),
    /// A recorded experiment, compared with the revision it examined.
    Recorded(&'a str),
    /// The chapter's latest recorded experiment.
    Latest,
}

/// A run, the chapter and the snapshot file it is compared with, and its
/// record when it was recorded.
#[derive(Debug, Clone)]
pub struct Selected {
    pub run: BenchRun,
    pub chapter: Chapter,
    pub snapshot: String,
    pub record: Option<Record>,
    /// With the latest run: the later experiments passed over because they
    /// decided nothing, newest first.
    pub passed_over: Vec<RunId>,
}

/// Finds the run `source` names. `chapter` names the chapter for a run file
/// or the latest run (else the only registered one); a recorded run carries
/// its own chapter.
pub fn select(project: &Project, source: RunSource<'_>, chapter: Option<&str>) -> Result<Selected> {
    let from_record = |chapter: Chapter, record: Record, passed_over| -> Result<Selected> {
        let recorded = experiment(project, record)?;
        Ok(Selected {
            run: recorded.run,
            snapshot: recorded.record.revision.snapshot.clone(),
            record: Some(recorded.record),
            chapter,
            passed_over,
        })
    };
    match source {
        RunSource::File(path) => {
            let chapter = project.the_chapter(chapter)?;
            Ok(Selected {
                run: BenchRun::load(path)?,
                snapshot: chapter.state.current_snapshot.clone(),
                record: None,
                chapter,
                passed_over: Vec::new(),
            })
        }
        RunSource::Recorded(text) => {
            let id = RunId::parse(text)?;
            let chapter = project.chapter(&id.chapter.to_string())?;
            let record = recorded(project, &chapter, &id)?;
            from_record(chapter, record, Vec::new())
        }
        RunSource::Latest => {
            let chapter = project.the_chapter(chapter)?;
            let (records, _) = project.records(&chapter)?;
            let record = crate::records::latest_evidence(&records)
                .cloned()
                .ok_or_else(|| {
                    Error::Usage(format!("no experiment run is recorded for {}", chapter.key))
                })?;
            let passed_over = crate::records::undecided_since_evidence(&records)
                .into_iter()
                .map(|r| r.run_id.clone())
                .collect();
            from_record(chapter, record, passed_over)
        }
    }
}
