//! The run file `bench --out` writes (schema `research_companion.bench-run.v1`,
//! a public interface documented in docs/formats.md): its rows, repeats and
//! histograms (`run_check` reads one back and checks it).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::config::ProducerKind;
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
    /// The engine that measured, when it was not the embedded one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceEngine>,
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
            None => "the embedded engine (a model of the DataLoader)".into(),
        }
    }

    /// The summary row for a producer and worker count.
    pub fn row(&self, producer: ProducerKind, workers: usize) -> Option<&Row> {
        self.results
            .iter()
            .find(|r| r.producer == producer && r.workers == workers)
            .map(|r| &r.summary)
    }
}

impl BenchRun {
    /// The run as the YAML text of a run file.
    pub fn to_yaml(&self) -> Result<String> {
        yaml_io::to_string(self)
    }
}
