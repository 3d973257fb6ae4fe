//! Recording runs: a research report or an experiment (a run file, or a run
//! just made), each against the chapter revision it examined, with the
//! environment and git provenance; and committing a record to git.

use std::path::{Path, PathBuf};

use chrono::Utc;

use super::{Project, diff, runs};
use crate::bench::BenchRun;
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use crate::records::create::{self, RunBasics};
use crate::records::{Record, RunKind, StoredVerdict, store};
use crate::{env, provenance};

/// A record just stored, and where.
#[derive(Debug, Clone)]
pub struct Stored {
    pub path: PathBuf,
    pub record: Record,
}

/// What the user said about a run they record.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunNotes<'a> {
    /// The revision examined (fingerprint, prefix, or snapshot file);
    /// default: the current snapshot.
    pub revision: Option<&'a str>,
    pub note: Option<&'a str>,
    /// The run this one follows; default: the latest of the same kind.
    pub previous: Option<&'a str>,
}

fn basics(
    project: &Project,
    chapter: &Chapter,
    notes: RunNotes<'_>,
    kind: RunKind,
) -> Result<RunBasics> {
    let revision = match notes.revision {
        Some(spec) => create::resolve_revision(project.layout(), chapter, spec)?,
        None => create::current_revision(chapter),
    };
    Ok(RunBasics {
        revision,
        note: notes.note.map(str::to_string),
        previous: runs::previous(project, chapter, notes.previous, kind)?,
        git: provenance::collect(project.layout().root()),
        now: Utc::now(),
    })
}

/// A research report that lacks required sections, when `strict` refuses it.
fn refuse_incomplete(path: &Path, missing: &[String]) -> Error {
    Error::invalid(
        path,
        format!("missing required sections: {}", missing.join(", ")),
    )
}

/// Records a research report. An incomplete report is refused when `strict`,
/// and stored otherwise (its record says which sections are missing). A
/// report that is still a draft (places left for the author, unticked
/// checklist boxes, claim-audit rows with no response) is refused unless
/// `draft`, and then stored as a draft, which never changes the chapter's
/// research state.
pub fn research(
    project: &Project,
    chapter: &Chapter,
    report: &Path,
    notes: RunNotes<'_>,
    strict: bool,
    draft: bool,
) -> Result<Stored> {
    let text = create::read_report(report)?;
    let check = crate::records::report::check(&text);
    if strict && !check.complete() {
        return Err(refuse_incomplete(report, &check.sections_missing));
    }
    if !draft && let Some(reasons) = check.draft_reasons() {
        return Err(Error::Draft {
            path: report.to_path_buf(),
            reasons,
        });
    }
    let basics = basics(project, chapter, notes, RunKind::Research)?;
    let (path, record) = create::record_research(
        project.layout(),
        chapter,
        &basics,
        &env::collect(),
        &project.layout().portable_source(report),
        &text,
        draft,
    )?;
    Ok(Stored { path, record })
}

/// Records a run file as an experiment, with its claim verdicts against the
/// revision it is recorded for.
pub fn run_file(
    project: &Project,
    chapter: &Chapter,
    file: &Path,
    notes: RunNotes<'_>,
) -> Result<Stored> {
    let run = BenchRun::load(file)?;
    let bytes = crate::text::read_at_most(file, crate::text::MAX_FILE_BYTES)
        .map_err(|e| Error::io(file, e))?;
    let basics = basics(project, chapter, notes, RunKind::Experiment)?;
    let diffed = diff::diff_run(project, chapter, &basics.revision.snapshot, &run)?;
    let source = project.layout().portable_source(file);
    let (path, record) = create::record_experiment(
        project.layout(),
        chapter,
        &basics,
        &source,
        &run,
        &bytes,
        diff::stored_verdicts(&diffed.diff),
    )?;
    Ok(Stored { path, record })
}

/// Records a run just made against the chapter's current snapshot;
/// `source` says what made it (the command), `verdicts` are the
/// comparison's when the caller already made it.
pub fn bench_run(
    project: &Project,
    chapter: &Chapter,
    run: &BenchRun,
    source: &str,
    verdicts: Option<Vec<StoredVerdict>>,
) -> Result<Stored> {
    let bytes = run.to_yaml()?.into_bytes();
    let basics = basics(project, chapter, RunNotes::default(), RunKind::Experiment)?;
    let verdicts = match verdicts {
        Some(v) => v,
        None => {
            let diffed = diff::diff_run(project, chapter, &chapter.state.current_snapshot, run)?;
            diff::stored_verdicts(&diffed.diff)
        }
    };
    let (path, record) = create::record_experiment(
        project.layout(),
        chapter,
        &basics,
        source,
        run,
        &bytes,
        verdicts,
    )?;
    Ok(Stored { path, record })
}

/// Commits a stored record and its evidence on top of HEAD; returns the
/// commit id.
pub fn commit(project: &Project, record: &Record) -> Result<String> {
    let files = store::record_files(project.layout(), record);
    let message = format!("Record {} run {}", record.kind, record.run_id);
    provenance::commit_files(project.layout().root(), &files, &message)
}
