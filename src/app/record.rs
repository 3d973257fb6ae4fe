//! Recording runs: a research report or an experiment (a run file, or a run
//! just made), each against the chapter revision it examined, with the
//! environment and git provenance; and committing a record to git.

use std::path::{Path, PathBuf};

use chrono::Utc;

use super::{Project, diff, runs};
use crate::bench::BenchRun;
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use crate::records::create::{self, Compared, RunBasics};
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
) -> Result<ResearchStored> {
    let text = create::read_report(report)?;
    let check = crate::records::report::check(&text);
    if let Some(why) = crate::records::report::over_bounds(text.len(), &check) {
        return Err(Error::invalid(report, why));
    }
    if check.sections_present.is_empty() {
        // Not a review report at all (a plain text, the wrong file): stored,
        // it would fail the chapter's state with nothing to show for it.
        return Err(Error::invalid(
            report,
            format!(
                "none of the seven required sections is there; a review report has the headings {}",
                crate::records::report::REQUIRED_SECTIONS.join(", ")
            ),
        ));
    }
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
    let unknown = unknown_claims(project, chapter, &text)?;
    let (path, record) = create::record_research(
        project.layout(),
        chapter,
        &basics,
        &env::collect(),
        &project.layout().portable_source(report),
        &text,
        draft,
    )?;
    Ok(ResearchStored {
        stored: Stored { path, record },
        unknown_claims: unknown,
    })
}

/// A research run as stored, with the claim ids its claim audit names that
/// the chapter does not have.
pub struct ResearchStored {
    pub stored: Stored,
    /// Claim audit rows that name a claim by an id (`spin-999: ...`) that
    /// is not one of the chapter's: readers show them as leads, not as
    /// findings on a claim.
    pub unknown_claims: Vec<String>,
}

/// The ids a report's claim audit names that are not claims of the
/// chapter. A row's claim is taken for an id when the part before any `:`
/// is one word of letters, digits, `-`, `_` or `.`, with a digit or a
/// `-` in it; other rows are prose, which readers keep as leads anyway.
fn unknown_claims(project: &Project, chapter: &Chapter, text: &str) -> Result<Vec<String>> {
    let ids: Vec<String> = super::claims::quotes(project, chapter)?
        .into_iter()
        .map(|(id, _)| id.to_lowercase())
        .collect();
    let mut unknown: Vec<String> = crate::records::report_items::read(text)
        .audit
        .iter()
        .map(|row| crate::records::report_items::claim_key(&row.claim))
        .filter(|key| looks_like_an_id(key) && !ids.contains(key))
        .collect();
    unknown.dedup();
    Ok(unknown)
}

fn looks_like_an_id(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && key.chars().any(|c| c.is_ascii_digit() || c == '-')
}

/// Whether a run that cannot be compared with the chapter's tables may be
/// recorded as its experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Incomparable {
    /// Refuse it, naming the first setting that differs.
    Refuse,
    /// Record it, marked: it never becomes the evidence readers show.
    RecordMarked,
}

/// The run's comparison with `snapshot` as a record keeps it; a run that
/// cannot be compared is refused unless `incomparable` allows it. `what`
/// names the run in the error.
fn compared(
    project: &Project,
    chapter: &Chapter,
    snapshot: &str,
    run: &BenchRun,
    incomparable: Incomparable,
    what: &str,
) -> Result<Compared> {
    let not_comparable = diff::comparability(project, chapter, snapshot, run)?;
    if let Some(reason) = &not_comparable
        && incomparable == Incomparable::Refuse
    {
        return Err(Error::NotComparable {
            what: what.to_string(),
            chapter: chapter.key.to_string(),
            reason: reason.clone(),
        });
    }
    let diffed = diff::diff_run(project, chapter, snapshot, run)?;
    Ok(Compared {
        verdicts: diff::stored_verdicts(&diffed.diff),
        not_comparable,
    })
}

/// Records a run file as an experiment, with its claim verdicts against the
/// revision it is recorded for. A run that cannot be compared with that
/// revision's tables is refused unless `incomparable` allows it.
pub fn run_file(
    project: &Project,
    chapter: &Chapter,
    file: &Path,
    notes: RunNotes<'_>,
    incomparable: Incomparable,
) -> Result<Stored> {
    let run = BenchRun::load(file)?;
    let bytes = crate::text::read::read_at_most(file, crate::text::read::MAX_FILE_BYTES)
        .map_err(|e| Error::io(file, e))?;
    let basics = basics(project, chapter, notes, RunKind::Experiment)?;
    let what = file.display().to_string();
    let compared = compared(
        project,
        chapter,
        &basics.revision.snapshot,
        &run,
        incomparable,
        &what,
    )?;
    let source = project.layout().portable_source(file);
    let (path, record) = create::record_experiment(
        project.layout(),
        chapter,
        &basics,
        &source,
        &run,
        &bytes,
        compared,
        None,
    )?;
    Ok(Stored { path, record })
}

/// Records a run just made against the chapter's current snapshot;
/// `source` says what made it (the command), `verdicts` are the
/// comparison's when the caller already made it. A run that cannot be
/// compared with the chapter's tables is refused unless `incomparable`
/// allows it. `notebook`: the run of the chapter's notebook made beside it,
/// kept in the same record (see `create::record_experiment`).
pub fn bench_run(
    project: &Project,
    chapter: &Chapter,
    run: &BenchRun,
    source: &str,
    verdicts: Option<Vec<StoredVerdict>>,
    incomparable: Incomparable,
    notebook: Option<&crate::notebook::NotebookRunFile>,
) -> Result<Stored> {
    let bytes = run.to_yaml()?.into_bytes();
    let basics = basics(project, chapter, RunNotes::default(), RunKind::Experiment)?;
    let snapshot = &chapter.state.current_snapshot;
    let mut compared = compared(project, chapter, snapshot, run, incomparable, "the run")?;
    if let Some(v) = verdicts {
        compared.verdicts = v;
    }
    let (path, record) = create::record_experiment(
        project.layout(),
        chapter,
        &basics,
        source,
        run,
        &bytes,
        compared,
        notebook,
    )?;
    Ok(Stored { path, record })
}

/// A retraction just stored, and where.
#[derive(Debug, Clone)]
pub struct Retracted {
    pub path: PathBuf,
    pub retraction: crate::records::retraction::Retraction,
    /// The run withdrawn.
    pub record: Record,
}

/// Withdraws a recorded run, with the author's reason: a retraction file
/// beside the records (the record itself is never edited). Refused for a
/// run that is not recorded or is retracted already, and for an empty or
/// overlong reason.
pub fn retract(project: &Project, run: &str, reason: &str) -> Result<Retracted> {
    let id = crate::ids::RunId::parse(run)?;
    crate::records::retraction::check_reason(reason).map_err(Error::Usage)?;
    let chapter = project.chapter(&id.chapter.to_string())?;
    let (records, _) = project.records_with_retracted(&chapter)?;
    let record = records
        .into_iter()
        .find(|r| r.run_id == id)
        .ok_or_else(|| Error::Usage(format!("run {id} is not recorded for {}", chapter.key)))?;
    if let Some(r) = &record.retraction {
        return Err(Error::Usage(format!(
            "run {id} is retracted already ({}, retraction {})",
            r.label(),
            r.id
        )));
    }
    let (path, retraction) = store::retract(project.layout(), &record, reason, Utc::now())?;
    Ok(Retracted {
        path,
        retraction,
        record,
    })
}

/// Commits a stored retraction on top of HEAD; returns the commit id.
pub fn commit_retraction(project: &Project, r: &Retracted) -> Result<String> {
    let message = format!("Retract run {}", r.retraction.retracts);
    provenance::commit_files(
        project.layout().root(),
        std::slice::from_ref(&r.path),
        &message,
    )
}

/// Commits a stored record and its evidence on top of HEAD; returns the
/// commit id.
pub fn commit(project: &Project, record: &Record) -> Result<String> {
    let files = store::record_files(project.layout(), record);
    let message = format!("Record {} run {}", record.kind, record.run_id);
    provenance::commit_files(project.layout().root(), &files, &message)
}
