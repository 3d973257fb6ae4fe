//! Runs a whole benchmark: every producer against every worker count, each
//! repeated, on the CPUs and timer slack the settings ask for, restoring the
//! thread's own settings afterwards.

use std::path::Path;

use chrono::Utc;

use super::config::PipelineConfig;
use super::run_file::{BenchRun, ConfigResult, RUN_SCHEMA};
use super::settings::Settings;
use super::{engine, interrupt, stats};

/// SIGINT's number on Linux.
const SIGINT: i32 = 2;
use crate::env::Environment;
use crate::error::{EngineError, Error, Result, ThreadSetting};
use crate::sys;

/// Restores the thread's affinity and timer slack when the run ends.
struct ThreadSettingsGuard {
    affinity: Vec<usize>,
    slack: u64,
}

impl Drop for ThreadSettingsGuard {
    fn drop(&mut self) {
        let _ = sys::set_affinity(&self.affinity);
        let _ = sys::set_timer_slack(self.slack);
    }
}

/// Runs every configuration of `settings` on the calling thread.
/// `on_step` is called after every step (for a progress bar).
pub fn run_suite(
    settings: &Settings,
    environment: Environment,
    worker_exe: &Path,
    on_step: impl FnMut(&PipelineConfig),
) -> Result<BenchRun> {
    settings.check()?;
    pinned(settings, |cpus_used| {
        suite_on(settings, environment, worker_exe, cpus_used, on_step)
    })
}

/// Runs `f` with the calling thread on the CPUs and timer slack `settings`
/// ask for (children inherit both), handing it the CPUs in use; restores
/// the thread's own afterwards.
pub fn pinned<T>(settings: &Settings, f: impl FnOnce(Vec<usize>) -> Result<T>) -> Result<T> {
    let available = sys::affinity().map_err(|source| Error::ThreadSetting {
        setting: ThreadSetting::ReadAffinity,
        source,
    })?;
    let _guard = ThreadSettingsGuard {
        affinity: available.clone(),
        slack: sys::timer_slack(),
    };
    if let Some(n) = settings.cpus {
        if n > available.len() {
            return Err(Settings::too_many_cpus(n, &available).into());
        }
        sys::set_affinity(&available[..n]).map_err(|source| Error::ThreadSetting {
            setting: ThreadSetting::SetAffinity,
            source,
        })?;
    }
    sys::set_timer_slack(settings.timer_slack_ns).map_err(|source| Error::ThreadSetting {
        setting: ThreadSetting::SetTimerSlack,
        source,
    })?;
    f(sys::affinity().unwrap_or_default())
}

fn suite_on(
    settings: &Settings,
    environment: Environment,
    worker_exe: &Path,
    cpus_used: Vec<usize>,
    mut on_step: impl FnMut(&PipelineConfig),
) -> Result<BenchRun> {
    let overhead = engine::measurement_overhead_ns();

    let mut results = Vec::new();
    for &producer in &settings.producers {
        for &workers in &settings.workers {
            let cfg = settings.pipeline(producer, workers);
            let mut repeats = Vec::new();
            for _ in 0..settings.repeat {
                let measured =
                    engine::run(&cfg, worker_exe, &interrupt::interrupted, || on_step(&cfg))
                        .map_err(|e| match e {
                            engine::RunError::Interrupted => Error::Interrupted,
                            // A worker killed by SIGINT was caught by a Ctrl-C
                            // in the instant before it left the run's process
                            // group: the run was interrupted, the worker did
                            // not fail.
                            engine::RunError::Failed(EngineError::Pool(p))
                                if p.signal() == Some(SIGINT) =>
                            {
                                Error::Interrupted
                            }
                            engine::RunError::Failed(source) => Error::Engine {
                                config: cfg.label(),
                                source,
                            },
                        })?;
                repeats.push(stats::repeat_result(&cfg, &measured, cpus_used.len()));
            }
            let summary = stats::summarize(&repeats);
            results.push(ConfigResult {
                producer,
                workers,
                summary,
                repeats,
            });
        }
    }
    Ok(BenchRun {
        schema: RUN_SCHEMA.into(),
        created_at: Utc::now(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        settings: settings.clone(),
        cpus_used,
        environment,
        measurement_overhead_ns_per_step: overhead,
        results,
        reference: None,
    })
}
