//! `prompt` and `report`: the research prompt and the review report draft.

use std::path::Path;

use super::refuse_existing;
use crate::app::{Project, documents};
use crate::atomic;
use crate::cli::{PromptArgs, ReportArgs};
use crate::error::{Outcome, Result};
use crate::output::{Out, warn, wrote};
use crate::render::{self, Templates};

/// Writes a document to `out` (never over a file) or to standard output.
fn emit(out: &mut Out, to: Option<&Path>, text: &str, what: &str) -> Result<()> {
    match to {
        Some(path) => {
            atomic::write_new(path, text.as_bytes())?;
            wrote(path, what);
            Ok(())
        }
        None => out.write(text),
    }
}

/// `prompt`
pub fn prompt(out: &mut Out, project: &Project, args: PromptArgs) -> Result<Outcome> {
    let templates = Templates::new(args.templates.as_deref())?;
    let chapter = project.chapter(&args.chapter)?;
    refuse_existing(args.out.as_deref())?;
    let doc = documents::prompt(project, &chapter, &templates, args.excerpt_chars)?;
    for b in &doc.skipped {
        warn(format!("skipping unreadable record: {}", b.error));
    }
    emit(out, args.out.as_deref(), &doc.text, "prompt")?;
    Ok(Outcome::Ok)
}

/// `report`
pub fn report(out: &mut Out, project: &Project, args: ReportArgs) -> Result<Outcome> {
    let templates = Templates::new(args.templates.as_deref())?;
    let now = render::now()?;
    let chapter = project.chapter(&args.chapter)?;
    refuse_existing(args.out.as_deref())?;
    // The plot goes beside the report, named after it.
    let plot_name = args.out.as_ref().map(|out| {
        let stem = out
            .file_stem()
            .map_or("report".into(), |s| s.to_string_lossy().into_owned());
        format!("{stem}.plot.svg")
    });
    let doc = documents::report(
        project,
        &chapter,
        &templates,
        args.run.as_deref(),
        now,
        plot_name,
    )?;
    if let (Some(plot), Some(to)) = (&doc.plot, &args.out) {
        atomic::write_new(&to.with_file_name(&plot.name), plot.svg.as_bytes())?;
    }
    emit(out, args.out.as_deref(), &doc.text, "report")?;
    Ok(Outcome::Ok)
}
