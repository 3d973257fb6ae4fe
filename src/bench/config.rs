//! The knobs of one pipeline run, checked before anything runs.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How a producer spends its per-sample cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ProducerKind {
    /// The thread sleeps: latency, no CPU.
    Sleep,
    /// Busy until the thread has used the cost in CPU time: fixed CPU work.
    Spin,
    /// Busy until a wall-clock deadline: the pitfall, which lets a pre-empted
    /// worker "finish" work it never did.
    SpinWall,
}

impl fmt::Display for ProducerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProducerKind::Sleep => "sleep",
            ProducerKind::Spin => "spin",
            ProducerKind::SpinWall => "spin-wall",
        })
    }
}

/// How workers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum WorkerKind {
    /// Each worker is a real OS process (this binary re-executed); batches
    /// cross a process boundary through a pipe, as in PyTorch.
    Process,
    /// Each worker is a thread in the consumer's process.
    Thread,
}

impl fmt::Display for WorkerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WorkerKind::Process => "process",
            WorkerKind::Thread => "thread",
        })
    }
}

/// What one worker needs to produce batches; also sent to worker processes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProducerSpec {
    pub producer: ProducerKind,
    /// Per-sample cost in nanoseconds.
    pub cost_ns: u64,
    pub batch_size: usize,
    pub sample_floats: usize,
    pub seed: u64,
    pub timer_slack_ns: u64,
    /// Test aid: batch index whose production takes this much longer (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_batch: Option<(u64, u64)>,
}

/// One pipeline configuration: a producer and a worker count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PipelineConfig {
    pub spec: ProducerSpec,
    /// Consumer's CPU work per batch, in nanoseconds.
    pub consumer_ns: u64,
    pub workers: usize,
    pub prefetch_factor: usize,
    pub worker_kind: WorkerKind,
    pub in_order: bool,
    /// Batches measured, after the first (iterator creation to first batch is
    /// reported as startup) and after the warm-up batches.
    pub batches: u64,
    pub warmup_batches: u64,
    /// How long the loop may wait for a batch before the watchdog fails the
    /// run; None for the default (10 s plus four times the slowest batch).
    pub watchdog_ms: Option<u64>,
}

impl PipelineConfig {
    /// Per-batch producer time P = batch x cost.
    pub fn batch_cost(&self) -> Duration {
        Duration::from_nanos(self.spec.cost_ns * self.spec.batch_size as u64)
    }

    /// Consumer time C.
    pub fn consumer(&self) -> Duration {
        Duration::from_nanos(self.consumer_ns)
    }

    /// Every batch the iterator yields: the first, the warm-up, the measured.
    pub fn total_batches(&self) -> u64 {
        1 + self.warmup_batches + self.batches
    }

    /// Batches outstanding at most: prefetch_factor x workers.
    pub fn max_outstanding(&self) -> usize {
        self.prefetch_factor * self.workers
    }

    /// `producer=spin workers=8`, for error messages.
    pub fn label(&self) -> String {
        format!("producer={} workers={}", self.spec.producer, self.workers)
    }
}

/// Upper bounds on knobs, so a typo cannot start a run of days.
pub const MAX_WORKERS: usize = 256;

/// Checks the knobs a user gave; the message names the knob and its value.
pub fn check_knobs(
    cost_ms: f64,
    consumer_ms: f64,
    batch_size: usize,
    workers: &[usize],
    prefetch_factor: usize,
    batches: u64,
) -> Result<(), String> {
    if !cost_ms.is_finite() || cost_ms < 0.0 {
        return Err(format!(
            "--cost-ms must be a finite number >= 0, got {cost_ms}"
        ));
    }
    if !consumer_ms.is_finite() || consumer_ms < 0.0 {
        return Err(format!(
            "--consumer-ms must be a finite number >= 0, got {consumer_ms}"
        ));
    }
    if cost_ms > 60_000.0 || consumer_ms > 60_000.0 {
        return Err("--cost-ms and --consumer-ms must be at most 60000".into());
    }
    if batch_size == 0 {
        return Err("--batch-size must be at least 1, got 0".into());
    }
    if let Some(w) = workers.iter().find(|w| **w > MAX_WORKERS) {
        return Err(format!("--workers must be at most {MAX_WORKERS}, got {w}"));
    }
    if workers.is_empty() {
        return Err("--workers needs at least one worker count".into());
    }
    if prefetch_factor == 0 {
        return Err("--prefetch-factor must be at least 1, got 0".into());
    }
    if batches == 0 {
        return Err("--batches must be at least 1, got 0".into());
    }
    Ok(())
}

/// Milliseconds (as the user writes them) to nanoseconds.
pub fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}
