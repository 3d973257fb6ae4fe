//! `record`: store a research report or an experiment's run file as a run of
//! a chapter.

use crate::app::Project;
use crate::app::record::{self, RunNotes};
use crate::cli::RecordArgs;
use crate::error::{Error, Outcome, Result};
use crate::output::stored::print_stored;
use crate::output::{Out, warn};

/// `record`
pub fn run(out: &mut Out, project: &Project, args: RecordArgs) -> Result<Outcome> {
    let chapter = project.chapter(&args.chapter)?;
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
        (Some(report), _) => {
            let stored =
                record::research(project, &chapter, report, notes, args.strict, args.draft)
                    .map_err(|e| match e {
                        Error::Draft { .. } => Error::Usage(format!(
                            "{e}; finish it, or keep it with --draft (a draft never changes the chapter's research state)"
                        )),
                        other => other,
                    })?;
            if let Some(r) = &stored.record.report
                && !r.complete
            {
                warn(format!(
                    "{}: missing required sections: {}",
                    report.display(),
                    r.check.sections_missing.join(", ")
                ));
            }
            stored
        }
        (None, Some(run)) => record::run_file(project, &chapter, run, notes)?,
        (None, None) => unreachable!("clap requires --report or --run"),
    };
    print_stored(out, &stored)?;
    if args.commit {
        let id = record::commit(project, &stored.record)?;
        out.line(format!("  commit:   {id}"))?;
    }
    Ok(Outcome::Ok)
}
