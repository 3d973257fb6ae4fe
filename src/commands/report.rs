//! `report`: a review report draft with the seven required sections, and
//! its plot beside it when written to a file.

use crate::app::{Project, documents};
use crate::atomic;
use crate::cli::ReportArgs;
use crate::error::{Outcome, Result};
use crate::output::document::{DocView, emit_document};
use crate::output::{Out, refuse_existing, warn};
use crate::render::{self, Templates};

/// `report`
pub fn run(out: &mut Out, project: &Project, args: ReportArgs) -> Result<Outcome> {
    let templates = Templates::new(args.templates.as_deref())?;
    let now = render::now()?;
    let chapter = project.chapter(&args.chapter)?;
    refuse_existing(args.out.as_deref())?;
    if let Some(to) = &args.out {
        crate::app::output_folder::prepare(project.layout(), to)?;
    }
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
    for b in &doc.skipped {
        warn(format!(
            "skipping unreadable record: {} (the draft is made from the records that can be read; `history` shows the broken one)",
            b.error
        ));
    }
    if let (Some(plot), Some(to)) = (&doc.plot, &args.out) {
        atomic::write_new(&to.with_file_name(&plot.name), plot.svg.as_bytes())?;
    }
    let view = DocView {
        text: &doc.text,
        context: &doc.context,
    };
    emit_document(out, args.out.as_deref(), view, args.format.into(), "report")?;
    Ok(Outcome::Ok)
}
