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
    let record_to = if args.record {
        Some(
            project
                .the_chapter(args.chapter.as_deref())
                .map_err(|e| match e {
                    Error::SeveralChapters { .. } => {
                        Error::Usage(format!("{e}; name one with --chapter"))
                    }
                    other => other,
                })?,
        )
    } else {
        None
    };
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
            &record::bench_run(project, chapter, &run, "bench --record", None)?,
        )?;
    }
    Ok(Outcome::Ok)
}
