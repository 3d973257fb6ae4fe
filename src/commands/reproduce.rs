//! `reproduce`: the main job. Run the chapter's experiment as its tables
//! describe it, compare it claim by claim, and record it.

use super::{RunView, knob_flag, print_stored, refuse_existing, run_with_progress, settings_error};
use crate::app::{Project, reproduce};
use crate::bench::Knob;
use crate::cli::ReproduceArgs;
use crate::error::{Outcome, Result};
use crate::output::{Format, Out, wrote};
use crate::published::{plot, render};
use crate::text::list;

/// `reproduce`
pub fn run(out: &mut Out, project: &Project, args: ReproduceArgs) -> Result<Outcome> {
    // Only these knobs come from the command line; the others from the
    // chapter's tables.
    let flags = |e| {
        settings_error(
            e,
            |k| matches!(k, Knob::Batches | Knob::Repeat).then(|| knob_flag(k)),
            "the chapter's tables",
        )
    };
    let chapter = project.chapter(&args.chapter)?;
    let mut settings = reproduce::settings(project, &chapter)?;
    settings.batches = args.batches;
    settings.repeat = args.repeat;
    settings.worker_kind = args.worker_kind.into();
    settings.check().map_err(|e| flags(e.into()))?;
    refuse_existing(args.out.as_deref())?;
    refuse_existing(args.plot.as_deref())?;
    eprintln!(
        "reproducing {}: producers {}, {} ms/sample, batch {}, consumer {} ms, workers {}, {} CPU(s), {} batches",
        chapter.key,
        list(&settings.producers),
        settings.cost_ms,
        settings.batch_size,
        settings.consumer_ms,
        list(&settings.workers),
        settings.cpus.map_or("all".to_string(), |n| n.to_string()),
        settings.batches
    );
    let run = run_with_progress(&settings).map_err(flags)?;
    out.emit(
        &RunView {
            run: &run,
            wide: args.wide,
        },
        Format::Text,
    )?;
    let done = reproduce::conclude(
        project,
        &chapter,
        &run,
        (!args.no_record).then_some("reproduce"),
    )?;
    out.write("\n")?;
    out.write(&render::text(&done.compared.comparison))?;
    if let Some(path) = &args.out {
        crate::atomic::write_new(path, run.to_yaml()?.as_bytes())?;
        wrote(path, "run");
    }
    if let Some(path) = &args.plot {
        plot::write(path, &done.compared.tables, &run)?;
        wrote(path, "plot");
    }
    if let Some(stored) = &done.stored {
        print_stored(out, stored)?;
    }
    Ok(Outcome::check(
        !done.compared.comparison.any_not_reproduced(),
    ))
}
