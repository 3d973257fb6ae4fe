//! `prompt` and `report`: the research prompt and the review report draft.

use std::path::Path;

use super::refuse_existing;
use crate::app::{Project, documents};
use crate::atomic;
use crate::cli::{DocFormat, PromptArgs, ReportArgs};
use crate::error::{Outcome, Result};
use crate::output::{Out, warn, wrote};
use crate::render::{self, Templates};

/// A rendered document with what its template was given (`--format json`).
#[derive(serde::Serialize)]
struct DocView<'a> {
    text: &'a str,
    context: &'a serde_json::Value,
}

/// Writes a document to `out` (never over a file) or to standard output, as
/// text or as JSON with its context.
fn emit(
    out: &mut Out,
    to: Option<&Path>,
    doc: DocView<'_>,
    format: DocFormat,
    what: &str,
) -> Result<()> {
    let text = match format {
        DocFormat::Text => doc.text.to_string(),
        DocFormat::Json => {
            let mut s = serde_json::to_string_pretty(&doc)
                .map_err(|e| crate::error::Error::Other(format!("cannot write JSON: {e}")))?;
            s.push('\n');
            s
        }
    };
    match to {
        Some(path) => {
            atomic::write_new(path, text.as_bytes())?;
            wrote(path, what);
            Ok(())
        }
        None => out.write(&text),
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
    let view = DocView {
        text: &doc.text,
        context: &doc.context,
    };
    emit(out, args.out.as_deref(), view, args.format, "prompt")?;
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
    let view = DocView {
        text: &doc.text,
        context: &doc.context,
    };
    emit(out, args.out.as_deref(), view, args.format, "report")?;
    Ok(Outcome::Ok)
}
