//! The run file `bench --out` writes (schema `research_companion.bench-run.v1`,
//! a public interface documented in docs/formats.md): its rows, repeats and
//! histograms (`run_check` reads one back and checks it).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::config::{ProducerKind, WorkerKind};
use super::settings::Settings;
use super::verdict::PipelineVerdict;
use crate::env::Environment;
use crate::error::Result;
use crate::yaml_io;

/// Schema name of a run file written by `bench --out`.
pub const RUN_SCHEMA: &str = "research_companion.bench-run.v1";

/// One row: the chapter's columns, then what the chapter leaves implicit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub producer: ProducerKind,
    pub workers: usize,
    /// Samples over wall time of the window.
    pub ex_per_s: f64,
    pub wait_mean_ms: f64,
    pub wait_p50_ms: f64,
    pub wait_p95_ms: f64,
    pub wait_max_ms: f64,
    /// Mean time of the step after the batch arrived.
    pub work_ms: f64,
    /// wait_mean / (wait_mean + work).
    pub wait_frac: f64,
    /// Iterator creation to first batch: the workers' start, measured
    /// apart from ex/s when the window is a steady state.
    pub startup_ms: f64,
    /// CPU the workers' start cost: the loop's while it started them, and
    /// each worker's to its first index; absent without workers and in run
    /// files written before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_cpu_ms: Option<f64>,
    /// Steps after the first and before the measured ones; absent in run
    /// files written before windows (their settings say it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup_batches: Option<u64>,
    /// Batches made after the measured ones and never measured; absent in
    /// run files written before windows, which had none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail_batches: Option<u64>,
    /// ex/s of the zero-overhead schedule.
    pub bound_ex_per_s: f64,
    /// ex_per_s / bound_ex_per_s.
    pub efficiency: f64,
    /// Consumer thread's run-queue delay per step.
    pub consumer_run_delay_ms: f64,
    /// Consumer thread's CPU time per step.
    pub consumer_cpu_ms: f64,
    /// All workers' CPU time together.
    pub workers_cpu_ms: f64,
    /// Consumer's involuntary context switches in the window.
    pub involuntary_switches: u64,
    pub verdict: PipelineVerdict,
    /// Measured batches (histogram counts).
    pub batches: u64,
    pub window_ms: f64,
    /// Digest of every batch's contents; equal for every worker count and kind.
    pub data_digest: String,
    pub max_outstanding: usize,
    /// (max - min) / median of ex/s over repeats; in summaries only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ex_per_s_spread: Option<f64>,
    /// The share (0 to 1) of the run's CPUs that other processes took while
    /// this ran (`outside_load`); in summaries, the median over the runs
    /// the row is made of. Absent where it was not measured (run files
    /// written before it was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside: Option<f64>,
    /// The outside share passed the threshold (`outside_load::DISTURBED_ABOVE`);
    /// in summaries: some round has no undisturbed run of this
    /// configuration.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disturbed: bool,
}

/// One repeat: its row and its histograms (HdrHistogram V2 + deflate, base64).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatResult {
    pub row: Row,
    pub wait_histogram_ns: String,
    pub work_histogram_ns: String,
    /// The round it ran in, from 1; absent in run files made before rounds,
    /// which read as one round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<usize>,
}

impl RepeatResult {
    /// The round it ran in (1 when the run file has no rounds).
    pub fn round(&self) -> usize {
        self.round.unwrap_or(1)
    }
}

/// A configuration's summary over its repeats (medians) and every repeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigResult {
    pub producer: ProducerKind,
    pub workers: usize,
    pub summary: Row,
    pub repeats: Vec<RepeatResult>,
}

impl ConfigResult {
    /// The highest outside share among its disturbed runs of `round`, when
    /// no run of that round was undisturbed.
    pub fn disturbed_in(&self, round: usize) -> Option<f64> {
        let of_round = self.repeats.iter().filter(|r| r.round() == round);
        if of_round.clone().any(|r| !r.row.disturbed) {
            return None;
        }
        of_round
            .filter_map(|r| r.row.outside.filter(|_| r.row.disturbed))
            .max_by(f64::total_cmp)
    }

    /// Whether every run of it was disturbed (its row is then of disturbed
    /// runs, not of quiet ones).
    pub fn disturbed_throughout(&self) -> bool {
        !self.repeats.is_empty() && self.repeats.iter().all(|r| r.row.disturbed)
    }

    /// The rounds this configuration ran in, in order.
    pub fn rounds(&self) -> Vec<usize> {
        let mut rounds: Vec<usize> = self.repeats.iter().map(RepeatResult::round).collect();
        rounds.sort_unstable();
        rounds.dedup();
        rounds
    }
}

/// The whole run, as `bench --out` writes it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchRun {
    pub schema: String,
    pub created_at: DateTime<Utc>,
    pub tool_version: String,
    pub settings: Settings,
    /// CPUs the run actually used (the affinity mask during the run).
    pub cpus_used: Vec<usize>,
    pub environment: Environment,
    pub measurement_overhead_ns_per_step: f64,
    /// What measuring the outside load cost per configuration, in ns
    /// (absent in run files made before it was measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_load_cost_ns: Option<f64>,
    pub results: Vec<ConfigResult>,
    /// The engine that measured, when it was not the embedded one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceEngine>,
    /// The embedded engine's model that measured, by the date it landed
    /// (`calibration::ENGINE_MODEL`): runs of two models are two engines.
    /// Absent in PyTorch's runs and in run files made before runs named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_model: Option<String>,
    /// With `--calibrate-to-pytorch`: the factor of PyTorch's Python in the
    /// run beside this one (its per-batch probe, or in runs before the
    /// probe its start) that set its Python and hand-off costs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibrated_to_pytorch: Option<f64>,
}

/// What produced a run's measurements when it was not the embedded engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceEngine {
    /// `pytorch`.
    pub engine: String,
    pub python: String,
    pub torch: String,
    /// torch.multiprocessing's sharing strategy (`file_descriptor` on Linux).
    pub sharing_strategy: String,
    pub start_method: String,
    /// What starting the workers cost PyTorch's Python on this machine
    /// (absent in run files made before the harness measured it, and in
    /// runs without workers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<PythonStart>,
    /// What PyTorch's per-batch path cost its Python on this machine, hot
    /// (absent in run files made before the harness measured it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_batch: Option<PythonPerBatch>,
    /// The share (0 to 1) of the machine's CPUs the run did not use that
    /// other processes took while it ran: a loaded machine slows Python's
    /// start even on other CPUs. Absent where the run used every CPU, and
    /// in run files made before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elsewhere_busy: Option<f64>,
}

/// The CPU PyTorch spent starting its worker processes, the medians over a
/// harness run's configurations with workers (over a run of several rounds,
/// the medians of its harness runs' medians): the figures `WORKER_FORK` and
/// `WORKER_START` model, measured where the run was.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PythonStart {
    /// The loop thread's CPU in `iter(loader)`, per worker it forked, in ms.
    pub fork_ms: f64,
    /// A worker's process CPU from its fork to `worker_init_fn`, in ms.
    pub setup_ms: f64,
    /// Worker starts measured (a worker count once per configuration run
    /// that started them).
    pub workers: usize,
}

/// The CPU PyTorch's per-batch path spent, hot, at the run's batch size
/// with samples of 64 floats, a producer of cost 0 and no consumer: the
/// difference of a run of 300 batches and one of 60 with one worker, per
/// batch between (over a run of several rounds, the medians of its
/// harness runs'): the figures `FIGURES_LOOP_PER_BATCH_US` and
/// `FIGURES_WORKER_PER_BATCH_US` hold, measured where the run was.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PythonPerBatch {
    pub batch_size: usize,
    /// The loop's main thread, in µs per batch.
    pub loop_us: f64,
    /// The worker process, every thread, in µs per batch.
    pub worker_us: f64,
    /// Probes measured (one per harness run).
    pub probes: usize,
}

impl std::fmt::Display for ReferenceEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} DataLoader (torch {}, Python {}, {} sharing, {})",
            self.engine, self.torch, self.python, self.sharing_strategy, self.start_method
        )
    }
}

impl BenchRun {
    /// Which engine measured the run, in words: the real DataLoader with its
    /// versions, or this tool's model of it.
    pub fn evidence(&self) -> String {
        match &self.reference {
            Some(reference) => format!("the {reference}"),
            // A model without the Python costs is a different model.
            None if self.settings.worker_kind == super::WorkerKind::Thread => {
                "the embedded engine (thread workers: no process hand-off, no Python costs)".into()
            }
            None if self.settings.python_cost_scale <= 0.0 => {
                "the embedded engine (a model of the DataLoader, its Python costs off)".into()
            }
            None => match self.calibrated_to_pytorch {
                Some(f) => format!(
                    "the embedded engine (a model of the DataLoader, its Python costs calibrated to PyTorch's Python beside it, x{})",
                    crate::text::format::setting(f)
                ),
                None => "the embedded engine (a model of the DataLoader)".into(),
            },
        }
    }

    /// The settings (by their names in the run file) this run recorded but
    /// did not run: a run on PyTorch has none of the embedded model's
    /// knobs (it records them at their defaults); for the embedded engine,
    /// [`super::Settings::model_knobs_not_run`].
    pub fn settings_not_run(&self) -> &'static [&'static str] {
        if self.reference.is_some() {
            &super::settings::MODEL_KNOBS
        } else {
            self.settings.model_knobs_not_run()
        }
    }

    /// How many rounds the run has: 1 for a run file made before rounds
    /// (read as one round, a single run).
    pub fn rounds(&self) -> usize {
        self.results
            .iter()
            .flat_map(|c| c.repeats.iter().map(RepeatResult::round))
            .max()
            .unwrap_or(1)
    }

    /// Whether outside load was measured (run files made before it was are
    /// not).
    pub fn outside_measured(&self) -> bool {
        self.results
            .iter()
            .flat_map(|c| &c.repeats)
            .any(|r| r.row.outside.is_some())
    }

    /// How many of its configuration runs were disturbed, and the highest
    /// outside share any run had.
    /// Configurations left with a round that has no undisturbed run, and
    /// of them those with no undisturbed run at all.
    pub fn left_disturbed(&self) -> (usize, usize) {
        let some = self.results.iter().filter(|c| c.summary.disturbed).count();
        let throughout = self
            .results
            .iter()
            .filter(|c| c.disturbed_throughout())
            .count();
        (some, throughout)
    }

    pub fn disturbance(&self) -> (usize, Option<f64>) {
        let runs = self.results.iter().flat_map(|c| &c.repeats);
        let disturbed = runs.clone().filter(|r| r.row.disturbed).count();
        let highest = runs.filter_map(|r| r.row.outside).max_by(f64::total_cmp);
        (disturbed, highest)
    }

    /// The run's window in words: `steady-state window: 20 to 160 measured
    /// steps a configuration, after a warm-up of 4 to 20 (the pipeline's
    /// fill and 4 more), 0 to 16 batches made after them and never
    /// measured`, or `whole-run window: 90 batches a configuration from the
    /// loader's creation`. The ranges come from the rows (the settings for
    /// run files whose rows do not say).
    pub fn window_text(&self) -> String {
        let s = &self.settings;
        let rows = || self.results.iter().map(|c| &c.summary);
        let span = |counts: Vec<u64>, fallback: u64| {
            super::window::span(counts).unwrap_or_else(|| fallback.to_string())
        };
        let warmups: Vec<u64> = rows().filter_map(|r| r.warmup_batches).collect();
        match s.window {
            super::WindowKind::SteadyState if warmups.is_empty() => format!(
                "steady-state window: {} measured steps a configuration",
                self.measured_steps_text(),
            ),
            super::WindowKind::SteadyState => format!(
                "steady-state window: {} measured steps a configuration, after a warm-up of {} (at least the pipeline's fill and {} more), {} batches made after them and never measured",
                self.measured_steps_text(),
                span(warmups, s.warmup_batches),
                super::window::SETTLE_BATCHES,
                span(rows().filter_map(|r| r.tail_batches).collect(), 0),
            ),
            super::WindowKind::WholeRun if s.warmup_batches > 0 => format!(
                "window after a warm-up of {}, up to the pipeline's drain: {} measured batches a configuration (an older run file)",
                s.warmup_batches, s.batches
            ),
            super::WindowKind::WholeRun => format!(
                "whole-run window: {} batches a configuration from the loader's creation, the workers' start inside",
                s.batches
            ),
        }
    }

    /// The workers' start at the largest worker count, in a line: `8
    /// process workers took 0.47 s to deliver their first batch (sleep; 95
    /// ms of CPU to start them), 1.09 s (spin; ...), measured apart from
    /// ex/s`. None without workers.
    pub fn start_text(&self) -> Option<String> {
        let w = self
            .results
            .iter()
            .map(|c| c.workers)
            .max()
            .filter(|w| *w > 0)?;
        let kind = if self.reference.is_some() {
            super::WorkerKind::Process
        } else {
            self.settings.worker_kind
        };
        let each: Vec<String> = self
            .results
            .iter()
            .filter(|c| c.workers == w)
            .map(|c| {
                let cpu = c
                    .summary
                    .start_cpu_ms
                    .map(|ms| format!("; {ms:.0} ms of CPU to start them"))
                    .unwrap_or_default();
                format!("{:.2} s ({}{cpu})", c.summary.startup_ms / 1e3, c.producer)
            })
            .collect();
        let apart = match self.settings.window {
            super::WindowKind::SteadyState => "measured apart from ex/s",
            super::WindowKind::WholeRun => "inside ex/s, whose window is the whole run",
        };
        Some(format!(
            "{w} {kind} worker{} took {} to deliver the first batch, {apart}",
            if w == 1 { "" } else { "s" },
            each.join(", ")
        ))
    }

    /// The measured steps of the run's configurations: `20` or `20 to
    /// 160`.
    pub fn measured_steps_text(&self) -> String {
        super::window::span(self.results.iter().map(|c| c.summary.batches))
            .unwrap_or_else(|| self.settings.batches.to_string())
    }

    /// The summary row for a producer and worker count.
    pub fn row(&self, producer: ProducerKind, workers: usize) -> Option<&Row> {
        self.results
            .iter()
            .find(|r| r.producer == producer && r.workers == workers)
            .map(|r| &r.summary)
    }
}

/// The shortest training step, in ms, at which the embedded engine was
/// compared with the real DataLoader with a step at all (the grid's
/// shortest consumer, docs/log/2026-12-04-intel-grid-start-and-no-step.md,
/// "The whole grid"); below it only no
/// step was measured, and there the two part.
pub const SHORTEST_STEP_COMPARED_MS: f64 = 1.0;

/// The embedded engine's ex/s with workers over the real DataLoader's with
/// no training step: the lowest and the highest of 16 rows (sleeping and
/// spinning workers, batch 4 and 32, 1 and 2 CPUs, 1 ms of work a batch,
/// calibrated to PyTorch beside it; docs/engine.md, "Without a training
/// step").
pub const NO_TRAINING_STEP_EX_S: (f64, f64) = (0.93, 1.37);

impl BenchRun {
    /// Whether the embedded engine ran this with process workers and a
    /// training step shorter than [`SHORTEST_STEP_COMPARED_MS`], where its
    /// ex/s with workers is not known to be the real DataLoader's: with no
    /// step at all it ran [`NO_TRAINING_STEP_EX_S`] of it.
    pub fn engine_under_the_shortest_step(&self) -> bool {
        self.reference.is_none()
            && self.settings.consumer_ms < SHORTEST_STEP_COMPARED_MS
            && self.settings.worker_kind == WorkerKind::Process
    }

    /// The limit [`Self::engine_under_the_shortest_step`] names, as a
    /// sentence: what was measured there, and what measures it.
    pub fn shortest_step_text(&self) -> String {
        let (low, high) = NO_TRAINING_STEP_EX_S;
        format!(
            "consumer under {SHORTEST_STEP_COMPARED_MS} ms a batch (here {} ms): the engine was compared with the real DataLoader from {SHORTEST_STEP_COMPARED_MS} ms up and at 0 ms, where its ex/s with workers was x{low} to x{high} of PyTorch's (docs/engine.md, \"Without a training step\"); a run on the pytorch engine measures the real rate",
            self.settings.consumer_ms
        )
    }

    /// The run as the YAML text of a run file.
    pub fn to_yaml(&self) -> Result<String> {
        yaml_io::to_string(self)
    }
}
