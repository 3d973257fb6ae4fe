//! `record`: store a research report or an experiment's run file as a run of
//! a chapter; `record retract`: withdraw one.

use crate::app::Project;
use crate::app::record::{self, Incomparable, RunNotes, Stored};
use crate::cli::{RecordArgs, RecordCommand};
use crate::error::{Error, Outcome, Result};
use crate::output::stored::print_stored;
use crate::output::{Out, warn};

/// `record`
pub fn run(out: &mut Out, project: &Project, args: RecordArgs) -> Result<Outcome> {
    if let Some(RecordCommand::Retract {
        run_id,
        reason,
        commit,
    }) = &args.action
    {
        return retract(out, project, run_id, reason, *commit);
    }
    let chapter = project.chapter(args.chapter.as_deref().unwrap_or_default())?;
    if args.commit {
        // Checked first: a record stored and then not committed would leave
        // the tree changed by a command that failed.
        crate::provenance::check_can_commit(project.layout().root())?;
    }
    let notes = RunNotes {
        revision: args.revision.as_deref(),
        note: args.note.as_deref(),
        previous: args.previous.as_deref(),
    };
    let stored = match (&args.report, &args.run) {
        (Some(report), _) => research(project, &chapter, report, notes, &args)?,
        (None, Some(run)) => {
            let incomparable = if args.not_comparable {
                Incomparable::RecordMarked
            } else {
                Incomparable::Refuse
            };
            record::run_file(project, &chapter, run, notes, incomparable).map_err(|e| match e {
                Error::NotComparable { .. } => Error::Usage(format!(
                    "{e}; record it anyway with --not-comparable (it is kept, marked, and never shown as the chapter's evidence)"
                )),
                other => other,
            })?
        }
        (None, None) => unreachable!("clap requires --report or --run"),
    };
    print_stored(out, &stored)?;
    if args.commit {
        let id = record::commit(project, &stored.record)?;
        out.line(format!("  commit:   {id}"))?;
    }
    Ok(Outcome::Ok)
}

/// `record --report`: the report checked and stored, with a warning for
/// missing sections.
fn research(
    project: &Project,
    chapter: &crate::chapter::Chapter,
    report: &std::path::Path,
    notes: RunNotes<'_>,
    args: &RecordArgs,
) -> Result<Stored> {
    let done = record::research(project, chapter, report, notes, args.strict, args.draft)
        .map_err(|e| match e {
            Error::Draft { .. } => Error::Usage(format!(
                "{e}; finish it, or keep it with --draft (a draft never changes the chapter's research state)"
            )),
            other => other,
        })?;
    let stored = done.stored;
    for id in &done.unknown_claims {
        warn(format!(
            "{}: the claim audit names `{}`, which is not a claim of {} (they are in {}); readers keep the row as a lead",
            report.display(),
            crate::text::escape::visible(id),
            chapter.key,
            project.layout().claims_file(&chapter.key).display()
        ));
    }
    if let Some(r) = &stored.record.report
        && !r.complete
    {
        warn(format!(
            "{}: missing required sections: {}",
            report.display(),
            r.check.sections_missing.join(", ")
        ));
    }
    Ok(stored)
}

/// `record retract`
fn retract(
    out: &mut Out,
    project: &Project,
    run_id: &str,
    reason: &str,
    commit: bool,
) -> Result<Outcome> {
    if commit {
        crate::provenance::check_can_commit(project.layout().root())?;
    }
    let done = record::retract(project, run_id, reason)?;
    out.line(format!(
        "retracted {} ({} run of {})",
        done.retraction.retracts,
        done.record.kind,
        done.record.recorded_at.format("%Y-%m-%d")
    ))?;
    out.line(format!("  file:     {}", done.path.display()))?;
    out.line(format!(
        "  reason:   {}",
        crate::text::escape::visible(reason)
    ))?;
    out.line(
        "  status, prompt, report, publish and site no longer read the run; history shows it retracted",
    )?;
    if commit {
        let id = record::commit_retraction(project, &done)?;
        out.line(format!("  commit:   {id}"))?;
    }
    Ok(Outcome::Ok)
}
