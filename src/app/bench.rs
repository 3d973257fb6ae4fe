//! Running the pipeline benchmark: checks the settings, takes the
//! environment's fingerprint, and runs every configuration in rounds with
//! this binary as the worker executable. Progress goes to a callback;
//! nothing is printed.

use crate::bench::{self, BenchRun, Decided, PipelineConfig, Settings};
use crate::env;
use crate::error::{Error, Result};

/// Runs `settings`; `on_step` is called after every batch the loop takes,
/// `decided` after each round from the minimum on (see
/// [`bench::rounds::run_rounds`]).
pub fn run(
    settings: &Settings,
    on_step: impl FnMut(&PipelineConfig),
    decided: Decided<'_>,
) -> Result<BenchRun> {
    settings.check()?;
    let exe = std::env::current_exe()
        .map_err(|e| Error::Other(format!("cannot find this executable: {e}")))?;
    bench::run_suite(settings, env::collect(), &exe, on_step, decided)
}

/// Runs `settings` on the real PyTorch DataLoader through the embedded
/// harness, with `python`, on the CPUs the settings ask for, in rounds.
pub fn run_reference(
    settings: &Settings,
    python: &std::path::Path,
    decided: Decided<'_>,
) -> Result<BenchRun> {
    settings.check()?;
    bench::suite::run_reference_suite(settings, env::collect(), python, decided)
}
