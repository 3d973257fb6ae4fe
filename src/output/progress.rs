//! Running the engine from the command line: the embedded engine with a
//! progress bar on standard error and Ctrl-C wired to stop it cleanly, or
//! PyTorch's DataLoader, said so on standard error (`bench`, `reproduce`);
//! and the same bar and Ctrl-C for notebook runs (`notebook run`).

use std::path::Path;

use super::warn;
use crate::bench::{BenchRun, Decided, Settings};
use crate::error::{Error, Result};

/// Runs a benchmark with a progress bar on standard error (hidden when it is
/// not a terminal) and Ctrl-C wired to stop it cleanly; `decided` says
/// after each round whether to stop (see `bench::rounds`).
pub fn run_with_progress(settings: &Settings, decided: Decided<'_>) -> Result<BenchRun> {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    settings.check()?;
    if crate::env::is_debug_build() {
        warn(
            "this is a DEBUG build; its numbers are not comparable with the chapter's. \
             Use `cargo run --release`.",
        );
    }
    catch_ctrl_c();
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
    let result = crate::app::bench::run(
        settings,
        |cfg| {
            let l = cfg.label();
            if l != label {
                pb.set_message(l.clone());
                label = l;
            }
            // Re-runs and extra rounds go beyond the rounds asked for.
            if pb.length().is_some_and(|n| pb.position() >= n) {
                pb.inc_length(settings.steps_per_round());
            }
            pb.inc(1);
        },
        decided,
    );
    pb.finish_and_clear();
    result
}

/// Wires Ctrl-C and SIGTERM to the interrupt flag the engine, the PyTorch
/// harness and the notebook runs read, once per process: the run then stops
/// its workers (or the harness and its workers), writes nothing and the
/// command exits 130.
pub fn catch_ctrl_c() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(crate::bench::interrupt::interrupt);
    });
}

/// A progress bar over `cells` code cells on standard error (hidden when
/// it is not a terminal), for notebook runs.
pub fn cell_bar(cells: u64) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    let pb = ProgressBar::with_draw_target(Some(cells), ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template("{spinner} notebook cells [{bar:30}] {pos}/{len}, {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb
}

/// Runs `settings` on PyTorch's DataLoader with `python`, saying so on
/// stderr; `flags` names the flag behind a settings error, `decided` says
/// after each round whether to stop.
pub fn run_on_pytorch(
    settings: &Settings,
    python: &Path,
    flags: impl Fn(Error) -> Error,
    decided: Decided<'_>,
) -> Result<BenchRun> {
    crate::bench::pytorch_harness::timeout_from_env()?;
    // Only the Python itself makes a usage error here.
    crate::bench::pytorch_harness::check_python(python).map_err(super::flags::name_python_flag)?;
    catch_ctrl_c();
    eprintln!(
        "running {} configuration(s) on PyTorch's DataLoader with {}, {} round(s) at least",
        settings.producers.len() * settings.workers.len() * settings.repeat,
        python.display(),
        settings.rounds
    );
    crate::app::bench::run_reference(settings, python, decided).map_err(|e| match e {
        Error::Usage(_) => super::flags::name_python_flag(e),
        other => flags(other),
    })
}
