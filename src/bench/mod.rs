//! The embedded pipeline benchmark that reproduces chapter 06's experiment: a
//! producer that sleeps or spins per sample, workers as threads or processes,
//! a consumer doing fixed CPU work, and measurements of where the loop waits.
//!
//! `config` holds the knobs, `dataset` the samples, `pool` the workers,
//! `engine` the consumer loop, `bound` the ideal, `export` the output formats;
//! this module runs a whole suite and turns measurements into rows.

pub mod bound;
pub mod config;
pub mod dataset;
pub mod engine;
pub mod export;
pub mod pool;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use base64::Engine as _;
use chrono::{DateTime, Utc};
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use serde::{Deserialize, Serialize};

pub use config::{PipelineConfig, ProducerKind, ProducerSpec, WorkerKind};

use crate::env::Environment;
use crate::error::{Error, Result};
use crate::sys;

/// Schema name of a run file written by `bench --out`.
pub const RUN_SCHEMA: &str = "research_companion.bench-run.v1";

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Marks the run as interrupted (called from the Ctrl-C handler).
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// A whole benchmark: every producer against every worker count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub producers: Vec<ProducerKind>,
    pub cost_ms: f64,
    pub batch_size: usize,
    pub consumer_ms: f64,
    pub workers: Vec<usize>,
    pub batches: u64,
    pub warmup_batches: u64,
    pub repeat: usize,
    pub prefetch_factor: usize,
    /// CPUs the run was restricted to (None: whatever the process had).
    pub cpus: Option<usize>,
    pub worker_kind: WorkerKind,
    pub in_order: bool,
    pub seed: u64,
    pub sample_floats: usize,
    pub timer_slack_ns: u64,
    /// Test aid: (batch index, extra ms) to slow one batch down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_batch: Option<(u64, u64)>,
    /// Watchdog limit in ms (None: the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watchdog_ms: Option<u64>,
}

impl Settings {
    /// The chapter's experiment as published: sleep and spin, 2.0 ms/sample,
    /// batch 32, consumer 8 ms/batch, workers 0,1,2,4,8, on 1 CPU.
    pub fn chapter_defaults() -> Self {
        Settings {
            producers: vec![ProducerKind::Sleep, ProducerKind::Spin],
            cost_ms: 2.0,
            batch_size: 32,
            consumer_ms: 8.0,
            workers: vec![0, 1, 2, 4, 8],
            batches: DEFAULT_BATCHES,
            warmup_batches: 0,
            repeat: 1,
            prefetch_factor: 2,
            cpus: Some(1),
            worker_kind: WorkerKind::Process,
            in_order: true,
            seed: 0,
            sample_floats: 64,
            timer_slack_ns: 1,
            delay_batch: None,
            watchdog_ms: None,
        }
    }

    /// Checks every knob before anything runs.
    pub fn check(&self) -> Result<()> {
        config::check_knobs(
            self.cost_ms,
            self.consumer_ms,
            self.batch_size,
            &self.workers,
            self.prefetch_factor,
            self.batches,
        )
        .map_err(Error::Usage)?;
        if self.producers.is_empty() {
            return Err(Error::Usage(
                "--producer needs at least one producer".into(),
            ));
        }
        if self.repeat == 0 {
            return Err(Error::Usage("--repeat must be at least 1, got 0".into()));
        }
        if self.sample_floats == 0 {
            return Err(Error::Usage(
                "--sample-floats must be at least 1, got 0".into(),
            ));
        }
        Ok(())
    }

    /// The configuration for one producer and worker count.
    pub fn pipeline(&self, producer: ProducerKind, workers: usize) -> PipelineConfig {
        PipelineConfig {
            spec: ProducerSpec {
                producer,
                cost_ns: config::ms_to_ns(self.cost_ms),
                batch_size: self.batch_size,
                sample_floats: self.sample_floats,
                seed: self.seed,
                timer_slack_ns: self.timer_slack_ns,
                delay_batch: self.delay_batch,
            },
            consumer_ns: config::ms_to_ns(self.consumer_ms),
            workers,
            prefetch_factor: self.prefetch_factor,
            worker_kind: self.worker_kind,
            in_order: self.in_order,
            batches: self.batches,
            warmup_batches: self.warmup_batches,
            watchdog_ms: self.watchdog_ms,
        }
    }

    /// Batches every configuration yields, over all repeats.
    pub fn total_steps(&self) -> u64 {
        let per = 1 + self.warmup_batches + self.batches;
        per * (self.producers.len() * self.workers.len() * self.repeat) as u64
    }
}

/// Measured batches per configuration by default: the whole default run
/// (ten configurations on one CPU) then takes about 50 s.
pub const DEFAULT_BATCHES: u64 = 90;

/// Where the loop's time goes, by a documented rule (README, "Verdicts").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The loop mostly waits for data.
    ProducerBound,
    /// The loop mostly computes; data arrives in time.
    ConsumerBound,
    /// The consumer waits for a CPU for a material share of its work:
    /// producers and consumer compete, and waiting moved into the step.
    Contended,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::ProducerBound => "producer-bound",
            Verdict::ConsumerBound => "consumer-bound",
            Verdict::Contended => "contended",
        })
    }
}

/// Share of the step the consumer may wait on a run queue before the row is
/// `contended`.
pub const CONTENDED_SHARE: f64 = 0.10;
/// Share of the step spent waiting for data above which a row is
/// `producer-bound`.
pub const PRODUCER_BOUND_WAIT_FRAC: f64 = 0.10;

/// Applies the verdict rule.
pub fn verdict(wait_frac: f64, run_delay_ms: f64, work_ms: f64) -> Verdict {
    if work_ms > 0.0 && run_delay_ms >= CONTENDED_SHARE * work_ms {
        Verdict::Contended
    } else if wait_frac >= PRODUCER_BOUND_WAIT_FRAC {
        Verdict::ProducerBound
    } else {
        Verdict::ConsumerBound
    }
}

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
    /// Iterator creation to first batch.
    pub startup_ms: f64,
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
    pub verdict: Verdict,
    /// Measured batches (histogram counts).
    pub batches: u64,
    pub window_ms: f64,
    /// Digest of every batch's contents; equal for every worker count and kind.
    pub data_digest: String,
    pub max_outstanding: usize,
    /// (max - min) / median of ex/s over repeats; in summaries only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ex_per_s_spread: Option<f64>,
}

/// One repeat: its row and its histograms (HdrHistogram V2 + deflate, base64).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatResult {
    pub row: Row,
    pub wait_histogram_ns: String,
    pub work_histogram_ns: String,
}

/// A configuration's summary over its repeats (medians) and every repeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigResult {
    pub producer: ProducerKind,
    pub workers: usize,
    pub summary: Row,
    pub repeats: Vec<RepeatResult>,
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
    pub results: Vec<ConfigResult>,
}

impl BenchRun {
    /// The summary row for a producer and worker count.
    pub fn row(&self, producer: ProducerKind, workers: usize) -> Option<&Row> {
        self.results
            .iter()
            .find(|r| r.producer == producer && r.workers == workers)
            .map(|r| &r.summary)
    }
}

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
    mut on_step: impl FnMut(&PipelineConfig),
) -> Result<BenchRun> {
    settings.check()?;
    let available = sys::affinity()
        .map_err(|e| Error::Other(format!("cannot read the CPU affinity mask: {e}")))?;
    let _guard = ThreadSettingsGuard {
        affinity: available.clone(),
        slack: sys::timer_slack(),
    };
    if let Some(n) = settings.cpus {
        if n == 0 || n > available.len() {
            return Err(Error::Usage(format!(
                "--cpus {n}: this process may use {} CPU(s) ({:?})",
                available.len(),
                available
            )));
        }
        sys::set_affinity(&available[..n])
            .map_err(|e| Error::Other(format!("cannot set CPU affinity: {e}")))?;
    }
    sys::set_timer_slack(settings.timer_slack_ns)
        .map_err(|e| Error::Other(format!("cannot set timer slack: {e}")))?;
    let cpus_used = sys::affinity().unwrap_or_default();
    let overhead = engine::measurement_overhead_ns();

    let mut results = Vec::new();
    for &producer in &settings.producers {
        for &workers in &settings.workers {
            let cfg = settings.pipeline(producer, workers);
            let mut repeats = Vec::new();
            for _ in 0..settings.repeat {
                let measured = engine::run(&cfg, worker_exe, &interrupted, || on_step(&cfg))
                    .map_err(|e| match e {
                        engine::RunError::Interrupted => Error::Interrupted,
                        engine::RunError::Pool(p) => {
                            Error::Other(format!("{} failed: {p}", cfg.label()))
                        }
                        engine::RunError::Stalled { limit, batch, worker } => Error::Other(format!(
                            "{} failed: {worker} delivered nothing for {:.1} s while batch {batch} was due \
                             (watchdog); it is hung or stopped",
                            cfg.label(),
                            limit.as_secs_f64()
                        )),
                    })?;
                repeats.push(repeat_result(&cfg, &measured, cpus_used.len()));
            }
            let summary = summarize(&repeats);
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
    })
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// Turns one measurement into a row and serialized histograms.
pub fn repeat_result(cfg: &PipelineConfig, m: &engine::Measured, cpus: usize) -> RepeatResult {
    let window_s = m.window.as_secs_f64();
    let ex_per_s = m.window_samples as f64 / window_s;
    let ideal = bound::ideal_window(cfg, cpus);
    let bound_ex_per_s = m.window_samples as f64 / ideal;
    let wait_mean_ms = m.wait.mean() / 1e6;
    let work_ms = m.work.mean() / 1e6;
    let wait_frac = if wait_mean_ms + work_ms > 0.0 {
        wait_mean_ms / (wait_mean_ms + work_ms)
    } else {
        0.0
    };
    let steps = m.window_steps.max(1) as f64;
    let consumer_run_delay_ms = m.consumer_sched.run_delay_ns as f64 / 1e6 / steps;
    let row = Row {
        producer: cfg.spec.producer,
        workers: cfg.workers,
        ex_per_s,
        wait_mean_ms,
        wait_p50_ms: ms(m.wait.value_at_quantile(0.50)),
        wait_p95_ms: ms(m.wait.value_at_quantile(0.95)),
        wait_max_ms: ms(m.wait.max()),
        work_ms,
        wait_frac,
        startup_ms: m.startup.as_secs_f64() * 1e3,
        bound_ex_per_s,
        efficiency: ex_per_s / bound_ex_per_s,
        consumer_run_delay_ms,
        consumer_cpu_ms: m.consumer_sched.on_cpu_ns as f64 / 1e6 / steps,
        workers_cpu_ms: m.workers.iter().map(|w| w.cpu_ns).sum::<u64>() as f64 / 1e6,
        involuntary_switches: m.consumer_involuntary_switches,
        verdict: verdict(wait_frac, consumer_run_delay_ms, work_ms),
        batches: m.wait.len(),
        window_ms: window_s * 1e3,
        data_digest: format!("{:016x}", m.data_digest),
        max_outstanding: m.max_outstanding,
        ex_per_s_spread: None,
    };
    RepeatResult {
        row,
        wait_histogram_ns: serialize(&m.wait),
        work_histogram_ns: serialize(&m.work),
    }
}

/// Serializes a histogram as base64 of the V2 deflate format.
pub fn serialize(h: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new()
        .serialize(h, &mut bytes)
        .expect("in-memory serialization cannot fail");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Reads a histogram written by [`serialize`].
pub fn deserialize(text: &str) -> std::result::Result<Histogram<u64>, String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|e| e.to_string())?;
    hdrhistogram::serialization::Deserializer::new()
        .deserialize(&mut std::io::Cursor::new(bytes))
        .map_err(|e| format!("{e:?}"))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Medians over repeats of every figure, and the spread of ex/s. The verdict
/// is re-derived from the medians; counts and digests come from the repeat
/// whose ex/s is the median one.
pub fn summarize(repeats: &[RepeatResult]) -> Row {
    let rows: Vec<&Row> = repeats.iter().map(|r| &r.row).collect();
    let med = |f: fn(&Row) -> f64| median(rows.iter().map(|r| f(r)).collect());
    let ex = med(|r| r.ex_per_s);
    let closest = rows
        .iter()
        .min_by(|a, b| (a.ex_per_s - ex).abs().total_cmp(&(b.ex_per_s - ex).abs()))
        .expect("at least one repeat");
    let mut row = (*closest).clone();
    row.ex_per_s = ex;
    row.wait_mean_ms = med(|r| r.wait_mean_ms);
    row.wait_p50_ms = med(|r| r.wait_p50_ms);
    row.wait_p95_ms = med(|r| r.wait_p95_ms);
    row.wait_max_ms = med(|r| r.wait_max_ms);
    row.work_ms = med(|r| r.work_ms);
    row.wait_frac = med(|r| r.wait_frac);
    row.startup_ms = med(|r| r.startup_ms);
    row.bound_ex_per_s = med(|r| r.bound_ex_per_s);
    row.efficiency = med(|r| r.efficiency);
    row.consumer_run_delay_ms = med(|r| r.consumer_run_delay_ms);
    row.consumer_cpu_ms = med(|r| r.consumer_cpu_ms);
    row.workers_cpu_ms = med(|r| r.workers_cpu_ms);
    row.window_ms = med(|r| r.window_ms);
    row.verdict = verdict(row.wait_frac, row.consumer_run_delay_ms, row.work_ms);
    if rows.len() > 1 {
        let lo = rows
            .iter()
            .map(|r| r.ex_per_s)
            .fold(f64::INFINITY, f64::min);
        let hi = rows
            .iter()
            .map(|r| r.ex_per_s)
            .fold(f64::NEG_INFINITY, f64::max);
        row.ex_per_s_spread = Some((hi - lo) / ex);
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_rule_names_where_the_loop_waits() {
        // The chapter's rows: inline sleep waits for data...
        assert_eq!(verdict(0.90, 0.0, 7.5), Verdict::ProducerBound);
        // ...eight sleeping workers keep up with the consumer...
        assert_eq!(verdict(0.09 * 0.5, 0.2, 9.6), Verdict::ConsumerBound);
        // ...and eight spinning workers steal the consumer's CPU.
        assert_eq!(verdict(0.39, 30.0, 43.2), Verdict::Contended);
        // The thresholds themselves.
        assert_eq!(verdict(0.10, 0.0, 8.0), Verdict::ProducerBound);
        assert_eq!(verdict(0.099, 0.79, 8.0), Verdict::ConsumerBound);
        assert_eq!(verdict(0.0, 0.8, 8.0), Verdict::Contended);
    }

    #[test]
    fn summaries_take_medians_and_the_spread_of_ex_s() {
        let row = |ex: f64| Row {
            producer: ProducerKind::Sleep,
            workers: 1,
            ex_per_s: ex,
            wait_mean_ms: ex / 100.0,
            wait_p50_ms: 0.0,
            wait_p95_ms: 0.0,
            wait_max_ms: 0.0,
            work_ms: 8.0,
            wait_frac: 0.5,
            startup_ms: 0.0,
            bound_ex_per_s: 500.0,
            efficiency: ex / 500.0,
            consumer_run_delay_ms: 0.0,
            consumer_cpu_ms: 8.0,
            workers_cpu_ms: 0.0,
            involuntary_switches: 0,
            verdict: Verdict::ProducerBound,
            batches: 10,
            window_ms: 1.0,
            data_digest: "x".into(),
            max_outstanding: 2,
            ex_per_s_spread: None,
        };
        let repeats: Vec<RepeatResult> = [480.0, 500.0, 490.0]
            .into_iter()
            .map(|ex| RepeatResult {
                row: row(ex),
                wait_histogram_ns: String::new(),
                work_histogram_ns: String::new(),
            })
            .collect();
        let s = summarize(&repeats);
        assert_eq!(s.ex_per_s, 490.0);
        assert_eq!(s.wait_mean_ms, 4.9);
        assert!((s.ex_per_s_spread.unwrap() - 20.0 / 490.0).abs() < 1e-12);
    }
}
