//! `bench` and `env`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Context;
use crate::bench::{self, BenchRun, Settings, export};
use crate::cli::{BenchArgs, BenchFormat, Cpus, EnvArgs, ListFormat};
use crate::error::{Error, Result};
use crate::{atomic, env, yaml_io};

/// Turns the command line into the benchmark's own settings.
pub fn settings(args: &BenchArgs) -> Settings {
    Settings {
        producers: args.producer.clone(),
        cost_ms: args.cost_ms,
        batch_size: args.batch_size,
        consumer_ms: args.consumer_ms,
        workers: args.workers.clone(),
        batches: args.batches,
        warmup_batches: args.warmup_batches,
        repeat: args.repeat,
        prefetch_factor: args.prefetch_factor,
        cpus: match args.cpus {
            Cpus::All => None,
            Cpus::Count(n) => Some(n),
        },
        worker_kind: args.worker_kind,
        in_order: !args.out_of_order,
        seed: args.seed,
        sample_floats: args.sample_floats,
        timer_slack_ns: args.timer_slack_ns,
        delay_batch: args.delay_batch,
        watchdog_ms: args.watchdog_ms,
    }
}

/// Runs a suite with a progress bar on stderr (hidden when stderr is not a
/// terminal) and Ctrl-C wired to stop it cleanly.
pub fn run_with_progress(settings: &Settings) -> Result<BenchRun> {
    settings.check()?;
    if env::is_debug_build() {
        eprintln!(
            "WARNING: this is a DEBUG build; its numbers are not comparable with the chapter's. \
             Use `cargo run --release`."
        );
    }
    install_interrupt_handler();
    let environment = env::collect();
    let exe = std::env::current_exe()
        .map_err(|e| Error::Other(format!("cannot find this executable: {e}")))?;
    let pb =
        ProgressBar::with_draw_target(Some(settings.total_steps()), ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} {msg:<28} [{bar:30}] {pos}/{len} batches, {elapsed}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let mut label = String::new();
    let result = bench::run_suite(settings, environment, &exe, |cfg| {
        let l = cfg.label();
        if l != label {
            pb.set_message(l.clone());
            label = l;
        }
        pb.inc(1);
    });
    pb.finish_and_clear();
    result
}

fn install_interrupt_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(bench::interrupt);
    });
}

/// `bench`
pub fn run(ctx: &mut Context, args: BenchArgs) -> Result<u8> {
    let settings = settings(&args);
    settings.check()?;
    if let Some(out) = &args.out
        && out.exists()
    {
        return Err(Error::WouldOverwrite { path: out.clone() });
    }
    let record_to = if args.record {
        Some(super::records::record_chapter(
            ctx,
            args.chapter.as_deref(),
        )?)
    } else {
        None
    };
    let run = run_with_progress(&settings)?;
    print_run(ctx, &run, args.format, args.wide)?;
    if let Some(out) = &args.out {
        write_run_file(out, &run)?;
        eprintln!("run written to {}", out.display());
    }
    if let Some(chapter) = &record_to {
        super::records::record_bench_run(ctx, chapter, &run, None)?;
    }
    Ok(0)
}

/// Prints a run in the chosen format.
pub fn print_run(ctx: &mut Context, run: &BenchRun, format: BenchFormat, wide: bool) -> Result<()> {
    match format {
        BenchFormat::Text => {
            ctx.out.write(&export::text(run, wide))?;
            ctx.out.write(&export::footer(run))
        }
        BenchFormat::Markdown => ctx.out.write(&export::markdown(run, wide)),
        BenchFormat::Csv => ctx.out.write(&export::csv(run)),
        BenchFormat::Json => ctx.out.json(run),
        BenchFormat::Yaml => ctx.out.yaml(run),
    }
}

/// Writes a run file, never over an existing one.
pub fn write_run_file(path: &std::path::Path, run: &BenchRun) -> Result<()> {
    let text = yaml_io::to_string(run)?;
    atomic::write_new(path, text.as_bytes())
}

/// `env`
pub fn env(ctx: &mut Context, args: EnvArgs) -> Result<u8> {
    let e = env::collect();
    match args.format {
        ListFormat::Text => ctx.out.write(&env::render_table(&e))?,
        ListFormat::Json => ctx.out.json(&e)?,
        ListFormat::Yaml => ctx.out.yaml(&e)?,
    }
    Ok(0)
}
