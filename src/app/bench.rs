//! Running the pipeline benchmark: checks the settings, takes the
//! environment's fingerprint, and runs every configuration with this binary
//! as the worker executable. Progress goes to a callback; nothing is printed.

use crate::bench::{self, BenchRun, PipelineConfig, Settings};
use crate::env;
use crate::error::{Error, Result};

/// Runs `settings`; `on_step` is called after every batch the loop takes.
pub fn run(settings: &Settings, on_step: impl FnMut(&PipelineConfig)) -> Result<BenchRun> {
    settings.check()?;
    let exe = std::env::current_exe()
        .map_err(|e| Error::Other(format!("cannot find this executable: {e}")))?;
    bench::run_suite(settings, env::collect(), &exe, on_step)
}

/// Runs `settings` on the real PyTorch DataLoader through the embedded
/// harness, with `python`, on the CPUs the settings ask for.
pub fn run_reference(settings: &Settings, python: &std::path::Path) -> Result<BenchRun> {
    settings.check()?;
    let environment = env::collect();
    bench::pinned(settings, |_| {
        bench::pytorch_harness::run(settings, environment, python)
    })
}
