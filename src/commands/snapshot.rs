//! `snapshot add` and `snapshot diff`: a chapter's stored snapshots.

use crate::app::chapters;
use crate::app::{Project, changes};
use crate::chapter::{AddOutcome, Scope};
use crate::cli::SnapshotCommand;
use crate::error::{Outcome, Result};
use crate::output::{Out, Render};

impl Render for changes::ProseChange {
    fn text(&self) -> Result<String> {
        let mut s = format!(
            "{} -> {}\n  {} ({} removed, {} added)\n",
            self.from,
            self.to,
            self.summary(),
            self.words_removed,
            self.words_added
        );
        if !self.exact {
            s.push_str(
                "  the revisions differ in too many places to trace every word: a stretch past the diff's budget counts as replaced whole\n",
            );
        }
        for p in &self.passages {
            s.push_str(&format!("  … {} …\n", crate::text::escape::visible(p)));
        }
        Ok(s)
    }
}

/// `snapshot add`, `snapshot diff`
pub fn run(out: &mut Out, project: &Project, cmd: SnapshotCommand) -> Result<Outcome> {
    let (id, file, source, complete) = match cmd {
        SnapshotCommand::Add {
            id,
            file,
            source,
            complete,
        } => (id, file, source, complete),
        SnapshotCommand::Diff {
            id,
            from,
            to,
            format,
        } => {
            let ch = project.chapter(&id)?;
            let (a, b) = changes::pick(project, &ch, from.as_deref(), to.as_deref())?;
            let change = changes::between(project, &ch, &a, &b)?;
            out.emit(&change, format.into())?;
            return Ok(Outcome::Ok);
        }
    };
    let ch = project.chapter(&id)?;
    let scope = if complete {
        Scope::Complete
    } else {
        Scope::Excerpt
    };
    let line = match chapters::add_snapshot(project, &ch, &file, source, scope)? {
        AddOutcome::Stored(e) => format!(
            "stored {} as {} ({}); it is now current",
            e.file, e.fingerprint, e.scope
        ),
        AddOutcome::Unchanged(e) => format!(
            "unchanged: the current snapshot {} has the same prose ({}); nothing written",
            e.file, e.fingerprint
        ),
        AddOutcome::Reverted(e) => format!(
            "same prose as the older snapshot {} ({}); it is current again",
            e.file, e.fingerprint
        ),
        AddOutcome::Restored(e) => format!(
            "restored {}: its file was missing, and this text has its prose ({}); it is current",
            e.file, e.fingerprint
        ),
    };
    out.line(line)?;
    let ch = project.chapter(&id)?;
    print_stale(out, &crate::app::status::stale_research(project, &ch)?)?;
    Ok(Outcome::Ok)
}

/// The research runs that examined another revision than the current one.
fn print_stale(out: &mut Out, stale: &[crate::records::Record]) -> Result<()> {
    if stale.is_empty() {
        return out.line("  no research run is STALE");
    }
    out.line(format!("  research runs STALE ({}):", stale.len()))?;
    for r in stale {
        out.line(format!(
            "    {}  {}  examined {}",
            r.run_id,
            r.recorded_at.format("%Y-%m-%d"),
            r.revision.fingerprint.short()
        ))?;
    }
    Ok(())
}
