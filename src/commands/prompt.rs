//! `prompt`: the research prompt for a chapter, rendered from its template.

use crate::app::{Project, documents};
use crate::cli::PromptArgs;
use crate::error::{Outcome, Result};
use crate::output::document::{DocView, emit_document};
use crate::output::{Out, refuse_existing, warn};
use crate::render::Templates;

/// `prompt`
pub fn run(out: &mut Out, project: &Project, args: PromptArgs) -> Result<Outcome> {
    let templates = Templates::new(args.templates.as_deref())?;
    let chapter = project.chapter(&args.chapter)?;
    refuse_existing(args.out.as_deref())?;
    if let Some(to) = &args.out {
        crate::app::output_folder::prepare(project.layout(), to)?;
    }
    let doc = documents::prompt(project, &chapter, &templates, args.excerpt_chars)?;
    for b in &doc.skipped {
        warn(format!("skipping unreadable record: {}", b.error));
    }
    for line in &doc.unreadable {
        warn(format!("skipping {line}"));
    }
    let view = DocView {
        text: &doc.text,
        context: &doc.context,
    };
    emit_document(out, args.out.as_deref(), view, args.format.into(), "prompt")?;
    Ok(Outcome::Ok)
}
