//! One pipeline configuration: the producer and worker kinds, what a worker
//! needs to produce batches, and the knobs of one producer-and-workers run.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::window::WindowKind;

/// How a producer spends its per-sample cost.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::Display,
    strum::EnumIter,
    strum::EnumString,
    strum::VariantNames,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ProducerKind {
    /// The thread sleeps: latency, no CPU.
    Sleep,
    /// Busy until the thread has used the cost in CPU time: fixed CPU work.
    Spin,
    /// Busy until a wall-clock deadline: the pitfall, which lets a pre-empted
    /// worker "finish" work it never did.
    SpinWall,
}

impl ProducerKind {
    /// Every producer's name, as tables, run files and the command line spell it.
    pub const NAMES: &'static [&'static str] = <Self as strum::VariantNames>::VARIANTS;

    /// The name as claim metrics spell it (`spin-wall` is `spin_wall`).
    pub fn ident(self) -> String {
        super::metric_name::ident(&self.to_string())
    }

    /// Whether producing needs the CPU (spinning) rather than only time
    /// (sleeping): such producers compete with the loop for the CPUs.
    pub fn needs_cpu(self) -> bool {
        self != ProducerKind::Sleep
    }
}

/// How workers run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display, strum::EnumString,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum WorkerKind {
    /// Each worker is a real OS process (this binary re-executed); batches
    /// cross a process boundary through a pipe, as in PyTorch.
    Process,
    /// Each worker is a thread in the consumer's process.
    Thread,
}

/// How a worker process hands a finished batch to the training loop.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::Display,
    strum::EnumString,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Transport {
    /// The worker's own thread writes the batch into the pipe.
    #[default]
    Pipe,
    /// The worker's thread puts the batch on a queue; a feeder thread in the
    /// worker writes it into the pipe, as `multiprocessing.Queue` does, so
    /// the batch reaches the loop only once the feeder is scheduled.
    Queue,
    /// As `queue`, but the batch's data lives in a shared-memory file and
    /// only a small header goes through the pipe; the loop then connects to
    /// a sharer thread in the worker, which passes the file's descriptor
    /// over a Unix socket (SCM_RIGHTS), and reads the data through it: the
    /// `file_descriptor` sharing strategy of PyTorch on Linux.
    SharedFd,
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
    /// Worker CPU per batch for handing it off, in nanoseconds, spent by
    /// the helper threads of `queue` and `shared-fd` (see
    /// [`super::calibration::FEEDER_PART_OF_SEND`]); `pipe` and thread
    /// workers have no helpers and pay none.
    #[serde(default)]
    pub send_ns: u64,
    /// With `queue` and `shared-fd`: the switch interval of the global
    /// interpreter lock of the loop's process and of each worker's, in
    /// nanoseconds (see [`super::gil`]); 0 for no lock. `pipe` workers
    /// have no helper threads to contend for it.
    #[serde(default)]
    pub switch_interval_ns: u64,
    /// Scale of the modelled Python CPU beyond the hand-off (see
    /// [`super::python_costs`]); 0 for none.
    #[serde(default)]
    pub python_scale: f64,
    /// Scale of the loop's CPU forking each worker (see
    /// [`super::calibration::WORKER_FORK`]).
    #[serde(default)]
    pub fork_scale: f64,
    /// Scale of a worker's set-up and of its first batches' extra (see
    /// [`super::calibration::WORKER_START`]).
    #[serde(default)]
    pub setup_scale: f64,
    /// How a worker process hands batches over (thread workers hand them
    /// over in memory).
    #[serde(default)]
    pub transport: Transport,
    /// With `queue` and `shared-fd`: the pool's folder for the workers'
    /// sharer sockets (`<pid>.sock`) and the result queue's lock, set by
    /// the pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub socket_dir: Option<std::path::PathBuf>,
}

/// One pipeline configuration: a producer and a worker count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PipelineConfig {
    pub spec: ProducerSpec,
    /// Consumer's CPU work per batch, in nanoseconds.
    pub consumer_ns: u64,
    /// CPU time the loop spends taking in each batch from a worker process
    /// (decoding, fetching, rebuilding), in nanoseconds; threads pay none.
    #[serde(default)]
    pub receive_ns: u64,
    pub workers: usize,
    pub prefetch_factor: usize,
    pub worker_kind: WorkerKind,
    pub in_order: bool,
    /// Batches measured, after the first (iterator creation to first batch is
    /// reported as startup) and after the warm-up batches.
    pub batches: u64,
    pub warmup_batches: u64,
    /// Batches the dataset holds after the measured ones: handed out while
    /// they run, never taken, so the window ends with the pipeline full.
    #[serde(default)]
    pub tail_batches: u64,
    /// What ex/s is taken over.
    #[serde(default = "super::window::whole_run_before_windows")]
    pub window: WindowKind,
    /// How long the loop may wait for a batch before the watchdog fails the
    /// run; None for the default (10 s plus four times the slowest batch).
    pub watchdog_ms: Option<u64>,
}

impl PipelineConfig {
    /// Per-batch producer time P = batch x cost.
    pub fn batch_cost(&self) -> Duration {
        Duration::from_nanos(self.spec.cost_ns * self.spec.batch_size as u64)
    }

    /// Worker CPU per batch for handing it off: the send cost when worker
    /// processes hand batches to helper threads, nothing otherwise.
    pub fn send(&self) -> Duration {
        match (self.workers, self.worker_kind, self.spec.transport) {
            (0, _, _) | (_, WorkerKind::Thread, _) | (_, _, Transport::Pipe) => Duration::ZERO,
            (_, WorkerKind::Process, Transport::Queue | Transport::SharedFd) => {
                Duration::from_nanos(self.spec.send_ns)
            }
        }
    }

    /// Consumer time C.
    pub fn consumer(&self) -> Duration {
        Duration::from_nanos(self.consumer_ns)
    }

    /// Loop CPU per batch received: the receive cost when batches come from
    /// worker processes, nothing otherwise.
    pub fn receive(&self) -> Duration {
        match (self.workers, self.worker_kind) {
            (0, _) | (_, WorkerKind::Thread) => Duration::ZERO,
            (_, WorkerKind::Process) => Duration::from_nanos(self.receive_ns),
        }
    }

    /// Every batch the loop takes: the first, the warm-up, the measured.
    pub fn total_batches(&self) -> u64 {
        1 + self.warmup_batches + self.batches
    }

    /// Every batch the dataset holds: those the loop takes, and the tail.
    pub fn dataset_batches(&self) -> u64 {
        self.total_batches() + self.tail_batches
    }

    /// Batches in the measured window: every batch from the iterator's
    /// creation when a whole-run window has no warm-up, else the measured
    /// ones.
    pub fn window_batches(&self) -> u64 {
        if self.window == WindowKind::WholeRun && self.warmup_batches == 0 {
            self.total_batches()
        } else {
            self.batches
        }
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

/// Milliseconds (as the user writes them) to nanoseconds.
pub fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}
