//! Runs a whole benchmark: every producer against every worker count, in
//! rounds (`rounds`), each configuration with the outside load measured
//! around it (`outside_load`), on the CPUs and timer slack the settings ask
//! for, restoring the thread's own settings afterwards.

use std::path::Path;
use std::time::{Duration, Instant};

use chrono::Utc;

use super::config::{PipelineConfig, ProducerKind};
use super::outside_load::{self, LoadWindow};
use super::rounds::{self, RoundEngine, RoundPlan, SystemMachine};
use super::run_file::{
    BenchRun, ConfigResult, PythonPerBatch, PythonStart, RUN_SCHEMA, RepeatResult,
};
use super::settings::{MAX_ROUNDS, Settings};
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

/// Asked after each round from the minimum on, with the run so far:
/// whether it settles what it is for (see [`rounds::run_rounds`]).
pub type Decided<'a> = &'a mut dyn FnMut(&BenchRun) -> bool;

/// Runs every configuration of `settings` on the calling thread, in
/// rounds. `on_step` is called after every step (for a progress bar).
pub fn run_suite(
    settings: &Settings,
    environment: Environment,
    worker_exe: &Path,
    on_step: impl FnMut(&PipelineConfig),
    decided: Decided<'_>,
) -> Result<BenchRun> {
    settings.check()?;
    pinned(settings, |cpus_used| {
        suite_on(
            settings,
            environment,
            worker_exe,
            cpus_used,
            on_step,
            decided,
        )
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
    on_step: impl FnMut(&PipelineConfig),
    decided: Decided<'_>,
) -> Result<BenchRun> {
    let mut run = BenchRun {
        schema: RUN_SCHEMA.into(),
        created_at: Utc::now(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        settings: settings.clone(),
        cpus_used: cpus_used.clone(),
        environment,
        measurement_overhead_ns_per_step: engine::measurement_overhead_ns(),
        outside_load_cost_ns: Some(rounds::outside_load_cost_ns()),
        results: Vec::new(),
        reference: None,
        engine_model: Some(super::calibration::ENGINE_MODEL.into()),
        calibrated_to_pytorch: None,
    };
    let mut embedded = Embedded {
        settings,
        worker_exe,
        cpus: &cpus_used,
        on_step,
    };
    let mut machine = SystemMachine::new(cpus_used.clone(), interrupt::interrupted);
    let results = rounds::run_rounds(
        round_plan(settings),
        &settings.configurations(),
        &mut embedded,
        &mut machine,
        &mut asked_with(&run, decided),
    )?;
    run.results = results;
    if interrupt::interrupted() {
        return Err(Error::Interrupted);
    }
    run.created_at = Utc::now();
    Ok(run)
}

/// `decided` asked with the run so far: `run` with the rounds' results.
fn asked_with<'a>(
    run: &'a BenchRun,
    decided: Decided<'a>,
) -> impl FnMut(&[ConfigResult]) -> bool + 'a {
    move |results| {
        let so_far = BenchRun {
            results: results.to_vec(),
            ..run.clone()
        };
        decided(&so_far)
    }
}

/// Runs `settings` on PyTorch's DataLoader through the harness this crate
/// ships, with `python`, in rounds: one harness run per round (and per
/// producer for the configurations run again), each configuration with
/// the outside load the harness measured around it.
pub fn run_reference_suite(
    settings: &Settings,
    environment: Environment,
    python: &Path,
    decided: Decided<'_>,
) -> Result<BenchRun> {
    settings.check()?;
    pinned(settings, |cpus_used| {
        let load_cost = rounds::outside_load_cost_ns();
        let mut harness = Harness {
            settings,
            environment: &environment,
            python,
            first: None,
            starts: Vec::new(),
            per_batch: Vec::new(),
        };
        // What `decided` is asked with: the run so far, its engine named
        // once the rounds are done (the verdicts do not depend on it).
        let so_far = BenchRun {
            schema: RUN_SCHEMA.into(),
            created_at: Utc::now(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            settings: settings.clone(),
            cpus_used: cpus_used.clone(),
            environment: environment.clone(),
            measurement_overhead_ns_per_step: 0.0,
            outside_load_cost_ns: Some(load_cost),
            results: Vec::new(),
            reference: None,
            engine_model: None,
            calibrated_to_pytorch: None,
        };
        let elsewhere = Elsewhere::start(&cpus_used);
        let mut machine = SystemMachine::new(cpus_used, interrupt::interrupted);
        let results = rounds::run_rounds(
            round_plan(settings),
            &settings.configurations(),
            &mut harness,
            &mut machine,
            &mut asked_with(&so_far, decided),
        )?;
        let mut first = harness.first.expect("the first round ran");
        if let Some(reference) = &mut first.reference {
            reference.start = super::pytorch_harness::start_over_rounds(&harness.starts);
            reference.per_batch = super::pytorch_harness::per_batch_over_rounds(&harness.per_batch);
            reference.elsewhere_busy = elsewhere.share();
        }
        Ok(BenchRun {
            created_at: Utc::now(),
            settings: settings.clone(),
            outside_load_cost_ns: Some(load_cost),
            results,
            ..first
        })
    })
}

/// How busy the machine's CPUs outside a run's were while it ran: other
/// processes' share of them (the run's own processes are pinned to its
/// CPUs and spend nothing there).
struct Elsewhere {
    cpus: Vec<usize>,
    before: Option<String>,
    started: std::time::Instant,
}

impl Elsewhere {
    fn start(cpus_used: &[usize]) -> Self {
        let before = sys::proc_stat();
        let cpus = before
            .as_deref()
            .map(outside_load::parse_proc_stat)
            .unwrap_or_default()
            .into_keys()
            .filter(|c| !cpus_used.contains(c))
            .collect();
        Elsewhere {
            cpus,
            before,
            started: std::time::Instant::now(),
        }
    }

    /// None where the run used every CPU or `/proc/stat` could not be read.
    fn share(&self) -> Option<f64> {
        let (before, after) = (self.before.as_deref()?, sys::proc_stat()?);
        if self.cpus.is_empty() {
            return None;
        }
        let wall_ns = self.started.elapsed().as_nanos() as u64;
        outside_load::busy_share(before, &after, &self.cpus, wall_ns, 0, sys::clock_tick_ns())
    }
}

/// PyTorch's DataLoader, a harness run per round.
struct Harness<'a> {
    settings: &'a Settings,
    environment: &'a Environment,
    python: &'a Path,
    /// The first harness run: its versions and CPUs name the whole run.
    first: Option<BenchRun>,
    /// What starting the workers cost, per harness run that measured it.
    starts: Vec<PythonStart>,
    /// What the per-batch path cost hot, per harness run that measured it.
    per_batch: Vec<PythonPerBatch>,
}

impl RoundEngine for Harness<'_> {
    fn run_configs(
        &mut self,
        configs: &[(ProducerKind, usize)],
        round: usize,
    ) -> Result<Vec<Vec<RepeatResult>>> {
        // The harness runs every producer it is given against every worker
        // count: a whole round in one run, the configurations run again in
        // one run per producer, with that producer's workers.
        let mut calls: Vec<Settings> = Vec::new();
        if configs == self.settings.configurations().as_slice() {
            calls.push(self.settings.clone());
        } else {
            for &(p, _) in configs {
                if calls.iter().any(|s| s.producers == [p]) {
                    continue;
                }
                let mut s = self.settings.clone();
                s.producers = vec![p];
                s.workers = configs
                    .iter()
                    .filter(|(q, _)| *q == p)
                    .map(|&(_, w)| w)
                    .collect();
                calls.push(s);
            }
        }
        let mut measured: Vec<ConfigResult> = Vec::new();
        for s in calls {
            let run = super::pytorch_harness::run(&s, self.environment.clone(), self.python)?;
            measured.extend(run.results.iter().cloned());
            self.starts
                .extend(run.reference.as_ref().and_then(|r| r.start));
            self.per_batch
                .extend(run.reference.as_ref().and_then(|r| r.per_batch));
            self.first.get_or_insert(run);
        }
        Ok(configs
            .iter()
            .map(|&(p, w)| {
                let mut runs = measured
                    .iter()
                    .find(|c| c.producer == p && c.workers == w)
                    .map(|c| c.repeats.clone())
                    .unwrap_or_default();
                for r in &mut runs {
                    r.round = Some(round);
                }
                runs
            })
            .collect())
    }
}

/// The rounds `settings` ask for: their minimum, extra rounds up to the
/// limit, within their budget.
pub fn round_plan(settings: &Settings) -> RoundPlan {
    RoundPlan {
        min_rounds: settings.rounds,
        max_rounds: MAX_ROUNDS.max(settings.rounds),
        budget: settings.budget_s.map(Duration::from_secs_f64),
    }
}

/// The embedded engine, one configuration after another, each with its
/// outside load measured around it.
struct Embedded<'a, F> {
    settings: &'a Settings,
    worker_exe: &'a Path,
    cpus: &'a [usize],
    on_step: F,
}

impl<F: FnMut(&PipelineConfig)> RoundEngine for Embedded<'_, F> {
    fn run_configs(
        &mut self,
        configs: &[(ProducerKind, usize)],
        round: usize,
    ) -> Result<Vec<Vec<RepeatResult>>> {
        let mut all = Vec::new();
        for &(producer, workers) in configs {
            let cfg = self.settings.pipeline(producer, workers);
            let mut runs = Vec::new();
            for _ in 0..self.settings.repeat {
                runs.push(self.one_run(&cfg, round)?);
            }
            all.push(runs);
        }
        Ok(all)
    }
}

impl<F: FnMut(&PipelineConfig)> Embedded<'_, F> {
    /// One run of `cfg`: the counters read before its workers start and
    /// after they were stopped and waited for.
    fn one_run(&mut self, cfg: &PipelineConfig, round: usize) -> Result<RepeatResult> {
        let before = sys::proc_stat();
        let own = sys::own_and_children_cpu_ns();
        let started = Instant::now();
        let on_step = &mut self.on_step;
        let measured = engine::run(cfg, self.worker_exe, &interrupt::interrupted, || {
            on_step(cfg)
        })
        .map_err(|e| engine_error(cfg, e))?;
        let wall = started.elapsed();
        let own = sys::own_and_children_cpu_ns().saturating_sub(own);
        let after = sys::proc_stat();
        let mut run = stats::repeat_result(cfg, &measured, self.cpus.len());
        let window = LoadWindow {
            before: before.as_deref(),
            after: after.as_deref(),
            wall_ns: wall.as_nanos() as u64,
            own_cpu_ns: own,
            // With no workers the loop is the pipeline's only thread.
            single_thread_run_delay_ns: (cfg.workers == 0)
                .then_some(measured.consumer_sched.run_delay_ns),
        };
        run.row.outside = outside_load::outside_share(&window, self.cpus, sys::clock_tick_ns());
        run.row.disturbed = run.row.outside.is_some_and(outside_load::is_disturbed);
        run.round = Some(round);
        Ok(run)
    }
}

/// An engine failure as the run's error.
fn engine_error(cfg: &PipelineConfig, e: engine::RunError) -> Error {
    match e {
        engine::RunError::Interrupted => Error::Interrupted,
        // A worker killed by SIGINT was caught by a Ctrl-C in the instant
        // before it left the run's process group: the run was interrupted,
        // the worker did not fail.
        engine::RunError::Failed(EngineError::Pool(p)) if p.signal() == Some(SIGINT) => {
            Error::Interrupted
        }
        engine::RunError::Failed(source) => Error::Engine {
            config: cfg.label(),
            source,
        },
    }
}
