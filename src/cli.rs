//! Command-line types only (clap derive), and the value enums that map onto
//! the core's own types; nothing below the command line knows about clap.
//! Commands turn these into the core's types before anything runs.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use clap::builder::{RangedU64ValueParser, TypedValueParser};

use crate::bench::settings::{
    MAX_BATCH_SIZE, MAX_BATCHES, MAX_COST_MS, MAX_PREFETCH, MAX_REPEAT, MAX_SAMPLE_FLOATS,
    MAX_TIMER_SLACK_NS, MAX_WORKERS,
};
use crate::bench::{ProducerKind, WorkerKind};
use crate::output::Format;

/// The documented range of every numeric option (README, "Limits"); clap
/// refuses a value outside it before anything runs.
fn ranged<T>(lo: u64, hi: u64) -> impl TypedValueParser<Value = T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
    <T as TryFrom<u64>>::Error: Send + Sync + 'static + std::error::Error + ToString,
{
    RangedU64ValueParser::<T>::new().range(lo..=hi)
}

/// A finite number of milliseconds from 0 to the cost limit.
fn cost_ms(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() || !(0.0..=MAX_COST_MS).contains(&v) {
        return Err(format!("must be a number from 0 to {MAX_COST_MS}, got {s}"));
    }
    Ok(v)
}

/// Longest time a fetch may be given, in seconds (an hour).
pub const MAX_FETCH_SECONDS: f64 = 3600.0;
/// Largest body a fetch may be allowed, in bytes (1 GiB).
pub const MAX_FETCH_BYTES: u64 = 1 << 30;

/// A number of seconds above 0 and at most an hour.
fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() || v <= 0.0 || v > MAX_FETCH_SECONDS {
        return Err(format!(
            "must be a number of seconds above 0 and at most {MAX_FETCH_SECONDS}, got {s}"
        ));
    }
    Ok(v)
}

/// Parses the command line (exits with clap's usage error on bad arguments).
pub fn parse() -> Cli {
    Cli::parse()
}

/// Keep a technical book's chapter claims backed by evidence you can re-check.
#[derive(Debug, Parser)]
#[command(name = "research_companion", version, about, propagate_version = true)]
pub struct Cli {
    /// Project root holding book-snapshots/ and records/ [default: the nearest
    /// folder at or above the current one that has book-snapshots/]
    #[arg(
        long,
        global = true,
        env = "RESEARCH_COMPANION_ROOT",
        value_name = "DIR"
    )]
    pub root: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the prose-v1 SHA-256 of files (or standard input), like sha256sum
    Fingerprint(FingerprintArgs),
    /// List the registered chapters and the state of their current snapshot
    Chapters(ChaptersArgs),
    /// Show one chapter's manifest
    #[command(subcommand)]
    Chapter(ChapterCommand),
    /// Manage stored chapter snapshots
    #[command(subcommand)]
    Snapshot(SnapshotCommand),
    /// Check a chapter's claims.yaml against its current snapshot
    #[command(subcommand)]
    Claims(ClaimsCommand),
    /// Check stored snapshots against their fingerprints and the published one
    Verify(VerifyArgs),
    /// Run the chapter's sleep/spin pipeline experiment and measure where the loop waits
    Bench(BenchArgs),
    /// Print the environment fingerprint recorded with every run
    Env(EnvArgs),
    /// Record a research run (a report) or an experiment run (a bench run file)
    Record(RecordArgs),
    /// List recorded runs, newest first, CURRENT or STALE against the chapter
    History(HistoryArgs),
    /// One line per chapter: CURRENT, STALE or NEVER_RESEARCHED
    Status(HistoryArgs),
    /// Write a chapter's research data in the book site's schema
    Publish(PublishArgs),
    /// Compare a measured run with the chapter's published tables, claim by claim
    Diff(DiffArgs),
    /// Two measured runs side by side: every number beside its twin, with ratios
    Compare(CompareArgs),
    /// The main job: run the chapter's experiment, compare it, record it
    Reproduce(ReproduceArgs),
    /// Fetch the chapter's snapshot over HTTP and store it when it changed
    Fetch(FetchArgs),
    /// Render the research prompt for a chapter
    Prompt(PromptArgs),
    /// Render a review report draft with the seven required sections
    Report(ReportArgs),
    /// Write the whole book's evidence as a static HTML site
    Site(SiteArgs),
    /// Print a shell completion script
    Completions(CompletionsArgs),
}

#[derive(Debug, Args)]
pub struct FingerprintArgs {
    /// Files to fingerprint; `-` or nothing reads standard input
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Hash the bytes as they are, without normalizing (same as sha256sum)
    #[arg(long, conflicts_with = "show_normalized")]
    pub raw: bool,
    /// Print the normalized text instead of its fingerprint
    #[arg(long)]
    pub show_normalized: bool,
}

/// Output format for listings and checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Text,
    Json,
    Yaml,
}

impl From<ListFormat> for Format {
    fn from(f: ListFormat) -> Format {
        match f {
            ListFormat::Text => Format::Text,
            ListFormat::Json => Format::Json,
            ListFormat::Yaml => Format::Yaml,
        }
    }
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
}

/// `reproduce --engine`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReproduceEngineArg {
    /// This tool's engine (the model)
    Embedded,
    /// The real torch.utils.data.DataLoader (the reference)
    Pytorch,
    /// The embedded engine, then PyTorch, and the two side by side
    Both,
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
    /// OS processes, batches sent through a pipe (the chapter's picture)
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

#[derive(Debug, Args)]
pub struct ChaptersArgs {
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

#[derive(Debug, Subcommand)]
pub enum ChapterCommand {
    /// Everything chapter.yaml says about a chapter, readable
    Show {
        /// Stable id, book-id/chapter-id, or a chapter id only one book uses
        id: String,
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
    /// Register a chapter: its folder, chapter.yaml, the first snapshot and
    /// a claims.yaml skeleton listing the tables the text publishes
    New(Box<NewChapterArgs>),
    /// Move an old chapter.yaml's snapshot list into snapshots.yaml, once
    /// (every other line and comment of chapter.yaml stays)
    Migrate {
        /// Stable id, book-id/chapter-id, or a chapter id only one book uses
        id: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum ClaimsCommand {
    /// List the sentences that state numbers no claim quotes, the claims
    /// whose quote is gone, and the metrics that fail (exit 1 if any)
    Check {
        /// Stable id, book-id/chapter-id, or a chapter id only one book uses
        id: String,
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
}

#[derive(Debug, Args)]
pub struct NewChapterArgs {
    /// The chapter to create, as book-id/chapter-id (e.g. my-book/07)
    #[arg(value_name = "BOOK/CHAPTER")]
    pub key: String,
    /// The chapter's text (an excerpt unless --complete), stored byte for byte
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The chapter's title
    #[arg(long)]
    pub title: String,
    /// The chapter's number [default: the digits of its id]
    #[arg(long)]
    pub number: Option<u32>,
    /// The book's title, needed for a book's first chapter
    #[arg(long, value_name = "TITLE")]
    pub book_title: Option<String>,
    /// The site's stable id [default: BOOK-CHAPTER-chapter]
    #[arg(long)]
    pub stable_id: Option<String>,
    /// The chapter's public page
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// The chapter's research page
    #[arg(long, value_name = "URL")]
    pub research_pack_url: Option<String>,
    /// Where `fetch` gets the chapter's text
    #[arg(long, value_name = "URL")]
    pub snapshot_url: Option<String>,
    /// The prose fingerprint the book publishes (64 hex digits)
    #[arg(long, value_name = "HEX")]
    pub published_fingerprint: Option<String>,
    /// What research on this chapter should decide
    #[arg(long, value_name = "TEXT")]
    pub objective: Option<String>,
    /// FILE is the complete chapter rather than an excerpt
    #[arg(long)]
    pub complete: bool,
}

#[derive(Debug, Subcommand)]
pub enum SnapshotCommand {
    /// Store a new snapshot of a chapter's text and make it current
    Add {
        /// Stable id, book-id/chapter-id, or a chapter id only one book uses
        id: String,
        /// The text file to store (kept byte for byte)
        file: PathBuf,
        /// Where the text came from [default: the file's path]
        #[arg(long, value_name = "URL")]
        source: Option<String>,
        /// The file is the complete chapter rather than an excerpt
        #[arg(long)]
        complete: bool,
    },
    /// What changed in the prose between two snapshots, word by word, and
    /// which claims' sentences the change touched
    Diff {
        /// Stable id, book-id/chapter-id, or a chapter id only one book uses
        id: String,
        /// The older snapshot: a fingerprint, a prefix of one, or a snapshot
        /// file [default: the one before the current]
        from: Option<String>,
        /// The newer snapshot [default: the current]
        to: Option<String>,
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Chapters to verify [default: all]
    pub ids: Vec<String>,
    /// Also fail when the current snapshot differs from the published fingerprint
    #[arg(long)]
    pub strict: bool,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to generate for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
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
    /// Batches to run before measuring
    #[arg(long, default_value_t = 0, value_parser = ranged::<u64>(0, MAX_BATCHES))]
    pub warmup_batches: u64,
    /// Runs per configuration; rows show medians and the spread of ex/s
    #[arg(long, default_value_t = 1, value_parser = ranged::<usize>(1, MAX_REPEAT as u64))]
    pub repeat: usize,
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
    /// rebuild, measured on PyTorch 2.15); 0 for none. Thread workers pay none
    #[arg(long, default_value_t = crate::bench::PYTORCH_RECEIVE_MS, allow_negative_numbers = true, value_parser = cost_ms)]
    pub receive_ms: f64,
    /// Worker CPU in milliseconds for handing off each batch through the
    /// worker's helper threads (the real DataLoader's feeder and resource
    /// sharer, measured on PyTorch 2.15); 0 for none. `pipe` and thread
    /// workers have no helpers and pay none
    #[arg(long, default_value_t = crate::bench::PYTORCH_SEND_MS, allow_negative_numbers = true, value_parser = cost_ms)]
    pub send_ms: f64,
    /// Switch interval in milliseconds of the modelled interpreter locks
    /// (CPython's default is 5), one in the loop's process and one in each
    /// worker process: the loop and each worker's main thread hold theirs
    /// while they compute, and helper threads (the loop's index feeders,
    /// each worker's feeder and sharer) wait up to this long before asking;
    /// 0 for no lock. `pipe` and thread workers have no helpers and none
    #[arg(long, default_value_t = crate::bench::CPYTHON_SWITCH_INTERVAL_MS, allow_negative_numbers = true, value_parser = cost_ms)]
    pub switch_interval_ms: f64,
    /// Which engine measures: this tool's own, or the real PyTorch
    /// DataLoader through the harness this tool ships (needs torch)
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
    /// Timer slack for the run, in ns (the kernel default is 50000)
    #[arg(long, default_value_t = 1, value_parser = ranged::<u64>(0, MAX_TIMER_SLACK_NS))]
    pub timer_slack_ns: u64,
    /// Add the columns beyond the chapter's: startup, bound, efficiency, run-queue delay, CPU, verdict
    #[arg(long)]
    pub wide: bool,
    #[arg(long, value_enum, default_value_t = BenchFormat::Text)]
    pub format: BenchFormat,
    /// Write the whole run (settings, environment, rows, histograms) as YAML
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Store the run as an experiment record of the chapter
    #[arg(long)]
    pub record: bool,
    /// Chapter the run is recorded against [default: the only registered one]
    #[arg(long, value_name = "ID", requires = "record")]
    pub chapter: Option<String>,
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

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("evidence").required(true).args(["report", "run"]))]
pub struct RecordArgs {
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    pub chapter: String,
    /// The research report (Markdown) to record; a copy is stored
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// A run file written by `bench --out`, recorded as an experiment
    #[arg(long, value_name = "FILE")]
    pub run: Option<PathBuf>,
    /// The revision examined: a fingerprint, a unique prefix of one, or a stored
    /// snapshot file [default: the current snapshot]
    #[arg(long, value_name = "REV")]
    pub revision: Option<String>,
    /// A note kept with the record
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
    /// The run this one follows [default: the chapter's latest run of the same kind]
    #[arg(long, value_name = "RUN_ID")]
    pub previous: Option<String>,
    /// Refuse a report that lacks any of the seven required sections
    #[arg(long)]
    pub strict: bool,
    /// Store an unfinished report as a draft: kept with its record, but it
    /// never changes the chapter's research state
    #[arg(long, requires = "report")]
    pub draft: bool,
    /// Commit the new record and its evidence to the git repository
    #[arg(long)]
    pub commit: bool,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Chapter [default: all]
    pub chapter: Option<String>,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    #[arg(required_unless_present = "site", conflicts_with = "site")]
    pub chapter: Option<String>,
    /// Write to FILE instead of standard output (`-`: standard output); a file
    /// is replaced only if this tool wrote it
    #[arg(long, value_name = "FILE", conflicts_with = "site")]
    pub out: Option<PathBuf>,
    /// Write every registered chapter's file into the site folder DIR, at
    /// content/research/chapters/<book>/<chapter>.yaml, replacing only files
    /// this tool wrote
    #[arg(long, value_name = "DIR")]
    pub site: Option<PathBuf>,
}

/// Output format of `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    Table,
    Markdown,
    Json,
    Yaml,
}

impl From<DiffFormat> for Format {
    fn from(f: DiffFormat) -> Format {
        match f {
            DiffFormat::Table => Format::Text,
            DiffFormat::Markdown => Format::Markdown,
            DiffFormat::Json => Format::Json,
            DiffFormat::Yaml => Format::Yaml,
        }
    }
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("which").args(["run_file", "run", "latest", "all_envs"]).required(true))]
pub struct DiffArgs {
    /// A run file written by `bench --out`
    #[arg(value_name = "RUN_FILE")]
    pub run_file: Option<PathBuf>,
    /// A recorded experiment run, by run id
    #[arg(long, value_name = "RUN_ID")]
    pub run: Option<String>,
    /// The chapter's latest recorded experiment run
    #[arg(long)]
    pub latest: bool,
    /// Each claim's verdict in every environment that recorded experiments
    /// (the latest run of each), with a line per claim
    #[arg(long)]
    pub all_envs: bool,
    /// Chapter to compare with [default: the run's, or the only registered one]
    #[arg(long, value_name = "ID")]
    pub chapter: Option<String>,
    #[arg(long, value_enum, default_value_t = DiffFormat::Table)]
    pub format: DiffFormat,
    /// Also draw ex/s against workers and the wait/work split as SVG
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Also compare every published cell with the measured one
    #[arg(long)]
    pub cells: bool,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The first run: a run file written by `bench --out`, or a recorded run id
    #[arg(value_name = "RUN_A")]
    pub a: String,
    /// The second run, compared with the first (ratios are B ÷ A)
    #[arg(value_name = "RUN_B")]
    pub b: String,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    /// [default: every chapter whose snapshot publishes tables]
    pub chapter: Option<String>,
    /// Measured batches per configuration
    #[arg(long, default_value_t = crate::bench::DEFAULT_BATCHES, value_parser = ranged::<u64>(1, MAX_BATCHES))]
    pub batches: u64,
    /// Runs per configuration (medians are compared)
    #[arg(long, default_value_t = 1, value_parser = ranged::<usize>(1, MAX_REPEAT as u64))]
    pub repeat: usize,
    /// Workers as OS processes (as the chapter) or threads
    #[arg(long, value_enum, default_value_t = WorkerKindArg::Process)]
    pub worker_kind: WorkerKindArg,
    /// Which engine measures: this tool's, the real PyTorch DataLoader, or
    /// both back to back (each recorded, then compared side by side)
    #[arg(long, value_enum, default_value_t = ReproduceEngineArg::Embedded)]
    pub engine: ReproduceEngineArg,
    /// The Python that runs the PyTorch harness
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: PathBuf,
    /// Add the columns beyond the chapter's
    #[arg(long)]
    pub wide: bool,
    /// Also write the run file here
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Also draw the comparison as SVG
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Do not store an experiment record
    #[arg(long)]
    pub no_record: bool,
    /// Also compare every published cell with the measured one
    #[arg(long)]
    pub cells: bool,
    /// `json`: each chapter's comparison and record, for scripts
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
}

#[derive(Debug, Args)]
pub struct PromptArgs {
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    pub chapter: String,
    /// Write to FILE instead of standard output (never over an existing file)
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Quote this many characters of the chapter, then cut at the end of a word
    #[arg(long, value_name = "N", default_value_t = crate::render::DEFAULT_EXCERPT_CHARS, value_parser = ranged::<usize>(0, 100_000_000))]
    pub excerpt_chars: usize,
    /// Folder whose templates override the embedded ones, file by file
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
    /// `json` prints the rendered text with everything the template was given
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
}

/// Output format of `prompt`, `report` and `reproduce`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DocFormat {
    Text,
    Json,
}

impl From<DocFormat> for Format {
    fn from(f: DocFormat) -> Format {
        match f {
            DocFormat::Text => Format::Text,
            DocFormat::Json => Format::Json,
        }
    }
}

#[derive(Debug, Args)]
pub struct SiteArgs {
    /// The folder to write: new, empty, or a site this command wrote before
    /// (which it replaces whole)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Folder whose templates override the embedded ones, file by file
    /// (site/index.html.j2, site/chapter.html.j2, site/style.css.j2)
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    pub chapter: String,
    /// The experiment run whose verdicts to use [default: the latest recorded]
    #[arg(long, value_name = "RUN_ID")]
    pub run: Option<String>,
    /// Write to FILE (and the plot beside it) instead of standard output
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Folder whose templates override the embedded ones, file by file
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
    /// `json` prints the rendered text with everything the template was given
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    pub chapter: String,
    /// Fetch from URL instead of the chapter's snapshot URL
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Seconds to wait for the connection
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = seconds)]
    pub connect_timeout: f64,
    /// Seconds the whole request may take, body included
    #[arg(long, value_name = "SECS", default_value_t = 60.0, value_parser = seconds)]
    pub timeout: f64,
    /// Largest body accepted, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = crate::fetch::DEFAULT_MAX_BYTES, value_parser = ranged::<u64>(1, MAX_FETCH_BYTES))]
    pub max_bytes: u64,
}
