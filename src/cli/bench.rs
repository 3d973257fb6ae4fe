//! Running the pipeline engine: `bench` and `env`, and the value enums
//! `reproduce` shares with them.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::formats::{ListFormat, ranged, timer_slack};
use crate::bench::settings::{
    DEFAULT_BUDGET_S, MAX_BATCH_SIZE, MAX_BATCHES, MAX_BUDGET_S, MAX_COST_MS, MAX_PREFETCH,
    MAX_PYTHON_COST_SCALE, MAX_REPEAT, MAX_ROUNDS, MAX_SAMPLE_FLOATS, MAX_TIMER_SLACK_NS,
    MAX_WORKERS,
};
use crate::bench::{ProducerKind, WorkerKind};
use crate::output::Format;

/// A finite number of milliseconds from 0 to the cost limit.
fn cost_ms(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() || !(0.0..=MAX_COST_MS).contains(&v) {
        return Err(format!("must be a number from 0 to {MAX_COST_MS}, got {s}"));
    }
    Ok(v)
}

/// A finite scale from 0 to the limit.
fn python_scale(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() || !(0.0..=MAX_PYTHON_COST_SCALE).contains(&v) {
        return Err(format!(
            "must be a number from 0 to {MAX_PYTHON_COST_SCALE}, got {s}"
        ));
    }
    Ok(v)
}

/// A scale of the workers' start: above 0, finite, up to the limit.
fn start_scale(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !(v.is_finite() && v > 0.0 && v <= MAX_PYTHON_COST_SCALE) {
        return Err(format!(
            "must be a number above 0, up to {MAX_PYTHON_COST_SCALE}, got {s}"
        ));
    }
    Ok(v)
}

/// `--budget`: a finite number of seconds from 0 to a day.
pub fn budget_s(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() || !(0.0..=MAX_BUDGET_S).contains(&v) {
        return Err(format!(
            "must be a number of seconds from 0 to {MAX_BUDGET_S}, got {s}"
        ));
    }
    Ok(v)
}

/// `--producer`: how a producer spends its per-sample cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProducerArg {
    /// The thread sleeps: latency, no CPU
    Sleep,
    /// Busy until the thread has used the cost in CPU time
    Spin,
    /// Busy until a wall-clock deadline (the pitfall the chapter warns about)
    SpinWall,
}

impl From<ProducerArg> for ProducerKind {
    fn from(p: ProducerArg) -> ProducerKind {
        match p {
            ProducerArg::Sleep => ProducerKind::Sleep,
            ProducerArg::Spin => ProducerKind::Spin,
            ProducerArg::SpinWall => ProducerKind::SpinWall,
        }
    }
}

/// `--engine`: what measures the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// This tool's engine (the model)
    Embedded,
    /// The real torch.utils.data.DataLoader (the reference)
    Pytorch,
    /// PyTorch, then the embedded engine, and the two side by side
    Both,
}

/// `--window`: which steps ex/s is taken over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WindowArg {
    /// The measured steps, after a warm-up, while the pipeline is full
    SteadyState,
    /// From the loader's creation to the last batch
    WholeRun,
}

impl From<WindowArg> for crate::bench::WindowKind {
    fn from(w: WindowArg) -> crate::bench::WindowKind {
        match w {
            WindowArg::SteadyState => crate::bench::WindowKind::SteadyState,
            WindowArg::WholeRun => crate::bench::WindowKind::WholeRun,
        }
    }
}

/// `--transport`: how a worker process hands a batch over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TransportArg {
    /// The worker's own thread writes the batch into the pipe
    Pipe,
    /// A feeder thread in the worker writes it (multiprocessing.Queue)
    Queue,
    /// The data in shared memory, its descriptor passed over a Unix socket
    /// by a sharer thread (PyTorch's file_descriptor strategy)
    SharedFd,
}

impl From<TransportArg> for crate::bench::Transport {
    fn from(t: TransportArg) -> crate::bench::Transport {
        match t {
            TransportArg::Pipe => crate::bench::Transport::Pipe,
            TransportArg::Queue => crate::bench::Transport::Queue,
            TransportArg::SharedFd => crate::bench::Transport::SharedFd,
        }
    }
}

/// `--worker-kind`: how workers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WorkerKindArg {
    /// OS processes, batches handed over as PyTorch does (shared-fd) unless bench's --transport says otherwise (the chapter's picture)
    Process,
    /// Threads in the loop's own process
    Thread,
}

impl From<WorkerKindArg> for WorkerKind {
    fn from(w: WorkerKindArg) -> WorkerKind {
        match w {
            WorkerKindArg::Process => WorkerKind::Process,
            WorkerKindArg::Thread => WorkerKind::Thread,
        }
    }
}

/// Output format of `bench`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchFormat {
    Text,
    Json,
    Yaml,
    Markdown,
    Csv,
}

impl From<BenchFormat> for Format {
    fn from(f: BenchFormat) -> Format {
        match f {
            BenchFormat::Text => Format::Text,
            BenchFormat::Json => Format::Json,
            BenchFormat::Yaml => Format::Yaml,
            BenchFormat::Markdown => Format::Markdown,
            BenchFormat::Csv => Format::Csv,
        }
    }
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Producers to run: sleep, spin (CPU time), spin-wall (wall-clock deadline)
    #[arg(long, value_enum, value_delimiter = ',', default_value = "sleep,spin")]
    pub producer: Vec<ProducerArg>,
    /// Per-sample producer cost in milliseconds
    #[arg(long, default_value_t = 2.0, allow_negative_numbers = true, value_parser = cost_ms)]
    pub cost_ms: f64,
    /// Samples per batch
    #[arg(long, default_value_t = 32, value_parser = ranged::<usize>(1, MAX_BATCH_SIZE as u64))]
    pub batch_size: usize,
    /// Consumer's CPU work per batch in milliseconds
    #[arg(long, default_value_t = 8.0, allow_negative_numbers = true, value_parser = cost_ms)]
    pub consumer_ms: f64,
    /// Worker counts to run
    #[arg(long, value_delimiter = ',', default_value = "0,1,2,4,8", value_parser = ranged::<usize>(0, MAX_WORKERS as u64))]
    pub workers: Vec<usize>,
    /// Measured batches per configuration (after the first batch and the warm-up)
    #[arg(long, default_value_t = crate::bench::DEFAULT_BATCHES, value_parser = ranged::<u64>(1, MAX_BATCHES))]
    pub batches: u64,
    /// With the steady-state window: warm-up steps at least (each worker count takes at least prefetch_factor x workers + 4); the whole-run window has none
    #[arg(long, default_value_t = 0, value_parser = ranged::<u64>(0, MAX_BATCHES))]
    pub warmup_batches: u64,
    /// What ex/s is taken over: the measured steps of a steady state (after the warm-up, with the pipeline still full at the end, as chapter 06's tables), or the whole run from the loader's creation (the workers' start inside)
    #[arg(long, value_enum, default_value_t = WindowArg::SteadyState)]
    pub window: WindowArg,
    /// Runs per configuration in each round, back to back; rows show medians and the spread of ex/s
    #[arg(long, default_value_t = 1, value_parser = ranged::<usize>(1, MAX_REPEAT as u64))]
    pub repeat: usize,
    /// Rounds: every configuration once per round, in the same order; rows show the medians over the undisturbed rounds and the spread of ex/s
    #[arg(long, default_value_t = 1, value_parser = ranged::<usize>(1, MAX_ROUNDS as u64))]
    pub rounds: usize,
    /// Seconds after which no re-run of a disturbed configuration or wait for a quiet machine starts (the rounds asked for always run); 0 for none
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_BUDGET_S, allow_negative_numbers = true, value_parser = budget_s)]
    pub budget: f64,
    /// Batches each worker may have outstanding
    #[arg(long, default_value_t = 2, value_parser = ranged::<usize>(1, MAX_PREFETCH as u64))]
    pub prefetch_factor: usize,
    /// Restrict the whole run to this many CPUs, or `all` for no restriction
    #[arg(long, default_value = "1", value_parser = parse_cpus)]
    pub cpus: Cpus,
    /// Workers as OS processes (the chapter's picture) or threads
    #[arg(long, value_enum, default_value_t = WorkerKindArg::Process)]
    pub worker_kind: WorkerKindArg,
    /// How process workers hand batches over: `pipe` (the worker's thread
    /// writes the batch), `queue` (a feeder thread in the worker writes it,
    /// like multiprocessing.Queue) or `shared-fd` (the batch waits in shared
    /// memory and the loop fetches its descriptor from a sharer thread, like
    /// PyTorch's file_descriptor strategy)
    #[arg(long, value_enum, default_value_t = TransportArg::SharedFd)]
    pub transport: TransportArg,
    /// Loop CPU in milliseconds for taking in each batch from a worker
    /// process (the real DataLoader's decoding, descriptor fetch and tensor
    /// rebuild, measured on PyTorch 2.15); 0 for none. Refused with thread
    /// workers, which have no hand-off
    #[arg(long, default_value_t = crate::bench::DEFAULT_RECEIVE_MS, allow_negative_numbers = true, value_parser = cost_ms)]
    pub receive_ms: f64,
    /// Worker CPU in milliseconds for handing off each batch through the
    /// worker's helper threads (the real DataLoader's feeder and resource
    /// sharer, measured on PyTorch 2.15); 0 for none. Refused with `pipe`
    /// and thread workers, which have no helper threads
    #[arg(long, default_value_t = crate::bench::DEFAULT_SEND_MS, allow_negative_numbers = true, value_parser = cost_ms)]
    pub send_ms: f64,
    /// Switch interval in milliseconds of the modelled interpreter locks
    /// (CPython's default is 5), one in the loop's process and one in each
    /// worker process: the loop and each worker's main thread hold theirs
    /// while they compute, and helper threads (the loop's index feeders,
    /// each worker's feeder and sharer) wait up to this long before asking;
    /// 0 for no lock. `pipe` and thread workers have no helpers and none
    #[arg(long, default_value_t = crate::bench::CPYTHON_SWITCH_INTERVAL_MS, allow_negative_numbers = true, value_parser = cost_ms)]
    pub switch_interval_ms: f64,
    /// Scale of the modelled Python CPU beyond the hand-off, measured on
    /// PyTorch 2.15: each sample's call into __getitem__ and its tensor,
    /// default_collate, the index queues' pickling, the loop's and workers'
    /// bookkeeping; 1 as measured (on a busy machine), 0.5 as a quiet
    /// machine of this kind runs them, 0 for none, up to 100. Refused with
    /// thread workers, which have none
    #[arg(long, default_value_t = crate::bench::PYTHON_COST_SCALE, allow_negative_numbers = true, value_parser = python_scale)]
    pub python_cost_scale: f64,
    /// Scale of the loop's CPU forking each worker (PyTorch's
    /// Process.start()) in place of --python-cost-scale's, above 0, up to
    /// 100: PyTorch's fork and its workers' set-up can be far apart from
    /// one machine to another. Refused with thread workers [default: 0.55
    /// with the default --python-cost-scale, else --python-cost-scale's]
    #[arg(long, allow_negative_numbers = true, value_parser = start_scale)]
    pub fork_cost_scale: Option<f64>,
    /// Scale of each worker's set-up after its fork and of its first
    /// batches' extra CPU in place of --python-cost-scale's, above 0, up to
    /// 100. Refused with thread workers [default: 0.8 with the default
    /// --python-cost-scale, else --python-cost-scale's]
    #[arg(long, allow_negative_numbers = true, value_parser = start_scale)]
    pub setup_cost_scale: Option<f64>,
    /// With --engine both: run the embedded half at this machine's Python
    /// speed as PyTorch's run just before it measured it (the comparison's
    /// line "Python here"): its Python costs and its hand-off's receive and
    /// send costs by the factor of PyTorch's per-batch probe, its workers'
    /// start by the fork's and the set-up's own ratios. It sets
    /// --python-cost-scale, --fork-cost-scale, --setup-cost-scale,
    /// --receive-ms and --send-ms, so it takes none of them, and needs a
    /// worker count above 0
    #[arg(long, conflicts_with_all = ["python_cost_scale", "fork_cost_scale", "setup_cost_scale", "receive_ms", "send_ms"])]
    pub calibrate_to_pytorch: bool,
    /// Which engine measures: this tool's own, the real PyTorch DataLoader
    /// through the harness this tool ships (needs torch), or both back to
    /// back, printed side by side
    #[arg(long, value_enum, default_value_t = EngineArg::Embedded)]
    pub engine: EngineArg,
    /// The Python that runs the PyTorch harness
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: PathBuf,
    /// Take the first ready batch instead of delivering in order
    #[arg(long)]
    pub out_of_order: bool,
    /// Seed for the samples' contents
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Floats per sample tensor
    #[arg(long, default_value_t = 64, value_parser = ranged::<usize>(1, MAX_SAMPLE_FLOATS as u64))]
    pub sample_floats: usize,
    /// Timer slack for the run, in ns, at least 1 (the kernel's default is 50000; 0 would ask for that default)
    #[arg(long, default_value_t = 1, value_parser = timer_slack(MAX_TIMER_SLACK_NS))]
    pub timer_slack_ns: u64,
    /// Add the columns beyond the chapter's: startup, start_cpu, bound, eff, run_delay, cons_cpu, wrk_cpu, nivcsw, spread, outside, verdict, digest
    #[arg(long)]
    pub wide: bool,
    #[arg(long, value_enum, default_value_t = BenchFormat::Text)]
    pub format: BenchFormat,
    // With --engine both: how far apart the engines' rows may be.
    #[command(flatten)]
    pub bands: super::formats::BandArgs,
    /// Write the whole run (settings, environment, rows, histograms) as YAML
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Store the run as an experiment record of the chapter
    #[arg(long)]
    pub record: bool,
    /// Chapter the run is recorded against [default: the only registered one]
    #[arg(long, value_name = "ID", requires = "record")]
    pub chapter: Option<String>,
    /// Record the run even though it cannot be compared with the chapter's
    /// tables (other settings): kept, marked, never shown as its evidence
    #[arg(long, requires = "record")]
    pub not_comparable: bool,
    /// Fail the run when no batch arrives for MS milliseconds [default: 10 s
    /// plus four times the slowest expected batch]
    #[arg(long, hide = true, value_name = "MS", value_parser = ranged::<u64>(1, 86_400_000))]
    pub watchdog_ms: Option<u64>,
    /// Test aid: slow batch INDEX down by MS milliseconds
    #[arg(long, hide = true, value_parser = parse_delay, value_name = "INDEX:MS")]
    pub delay_batch: Option<(u64, u64)>,
}

/// `--cpus N` or `--cpus all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cpus {
    All,
    Count(usize),
}

fn parse_cpus(s: &str) -> Result<Cpus, String> {
    if s == "all" {
        return Ok(Cpus::All);
    }
    match s.parse::<usize>() {
        Ok(n @ 1..=4096) => Ok(Cpus::Count(n)),
        _ => Err(format!(
            "expected a number of CPUs from 1 to 4096, or `all`, got '{s}'"
        )),
    }
}

fn parse_delay(s: &str) -> Result<(u64, u64), String> {
    let (i, ms) = s.split_once(':').ok_or("expected INDEX:MS")?;
    let ms: u64 = ms.parse().map_err(|_| "bad MS")?;
    if ms > 600_000 {
        return Err("MS must be at most 600000".into());
    }
    Ok((i.parse().map_err(|_| "bad INDEX")?, ms))
}

#[derive(Debug, Args)]
pub struct EnvArgs {
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}
