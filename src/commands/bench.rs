//! `bench`: run the pipeline benchmark with the settings on the command
//! line, print it, and write or record it when asked.

use crate::app::{Project, record};
use crate::atomic;
use crate::bench::{BenchRun, Settings};
use crate::cli::{BenchArgs, Cpus};
use crate::error::{Error, Outcome, Result};
use crate::output::flags::{knob_flag, refuse_for_pytorch, settings_error};
use crate::output::progress::{run_on_pytorch, run_with_progress};
use crate::output::run_view::RunView;
use crate::output::stored::print_stored;
use crate::output::{Out, refuse_existing, wrote};

/// The command line as the benchmark's own settings.
fn settings(args: &BenchArgs) -> Settings {
    Settings {
        producers: args.producer.iter().map(|&p| p.into()).collect(),
        cost_ms: args.cost_ms,
        batch_size: args.batch_size,
        consumer_ms: args.consumer_ms,
        workers: args.workers.clone(),
        batches: args.batches,
        warmup_batches: args.warmup_batches,
        repeat: args.repeat,
        rounds: args.rounds,
        budget_s: Some(args.budget),
        prefetch_factor: args.prefetch_factor,
        cpus: match args.cpus {
            Cpus::All => None,
            Cpus::Count(n) => Some(n),
        },
        worker_kind: args.worker_kind.into(),
        in_order: !args.out_of_order,
        seed: args.seed,
        sample_floats: args.sample_floats,
        timer_slack_ns: args.timer_slack_ns,
        delay_batch: args.delay_batch,
        watchdog_ms: args.watchdog_ms,
        transport: args.transport.into(),
        receive_ms: args.receive_ms,
        send_ms: args.send_ms,
        switch_interval_ms: args.switch_interval_ms,
    }
}

/// `bench`
pub fn run(out: &mut Out, project: &Project, args: BenchArgs) -> Result<Outcome> {
    let flags = |e| settings_error(e, |k| Some(knob_flag(k)), "");
    let settings = settings(&args);
    settings.check().map_err(|e| flags(e.into()))?;
    if args.engine == crate::cli::EngineArg::Pytorch {
        refuse_for_pytorch(&settings)?;
    }
    refuse_existing(args.out.as_deref())?;
    let record_to = record_target(project, &args, &settings)?;
    // No claims to settle: the rounds asked for are enough.
    let decided = &mut |_: &BenchRun| true;
    let run = match args.engine {
        crate::cli::EngineArg::Embedded => run_with_progress(&settings, decided).map_err(flags)?,
        crate::cli::EngineArg::Pytorch => run_on_pytorch(&settings, &args.python, flags, decided)?,
    };
    out.emit(
        &RunView {
            run: &run,
            wide: args.wide,
        },
        args.format.into(),
    )?;
    if let Some(path) = &args.out {
        atomic::write_new(path, run.to_yaml()?.as_bytes())?;
        wrote(path, "run");
    }
    if let Some(chapter) = &record_to {
        print_stored(
            out,
            &record::bench_run(
                project,
                chapter,
                &run,
                "bench --record",
                None,
                incomparable(args.not_comparable),
            )
            .map_err(not_comparable_hint)?,
        )?;
    }
    Ok(Outcome::Ok)
}

/// The chapter `--record` records against, checked before anything runs:
/// named (or the only one), and, unless `--not-comparable`, one whose tables
/// these settings can be compared with.
fn record_target(
    project: &Project,
    args: &BenchArgs,
    settings: &Settings,
) -> Result<Option<crate::chapter::Chapter>> {
    if !args.record {
        return Ok(None);
    }
    let chapter = project
        .the_chapter(args.chapter.as_deref())
        .map_err(|e| match e {
            Error::SeveralChapters { .. } => Error::Usage(format!("{e}; name one with --chapter")),
            other => other,
        })?;
    if !args.not_comparable
        && let Some(reason) = crate::app::diff::planned_comparability(project, &chapter, settings)?
    {
        return Err(not_comparable_hint(Error::NotComparable {
            what: "a run with these settings".into(),
            chapter: chapter.key.to_string(),
            reason,
        }));
    }
    Ok(Some(chapter))
}

/// `--not-comparable` as the core's word for it.
fn incomparable(allowed: bool) -> record::Incomparable {
    if allowed {
        record::Incomparable::RecordMarked
    } else {
        record::Incomparable::Refuse
    }
}

/// Says which flag records a run that cannot be compared anyway.
fn not_comparable_hint(e: Error) -> Error {
    match e {
        Error::NotComparable { .. } => Error::Usage(format!(
            "{e}; record it anyway with --not-comparable (it is kept, marked, and never shown as the chapter's evidence)"
        )),
        other => other,
    }
}
