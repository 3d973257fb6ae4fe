//! A measured run against the chapter's published claims or another run:
//! `diff`, `compare`, and `reproduce` (which runs the chapter's experiment
//! and diffs it).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::bench::WorkerKindArg;
use super::formats::{DocFormat, ListFormat, ranged};
use crate::bench::settings::{DEFAULT_BUDGET_S, MAX_BATCHES, MAX_REPEAT, MAX_ROUNDS};
use crate::output::Format;

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
    /// The chapter's latest recorded experiment run that decided a claim
    /// (later ones that decided nothing are named and passed over)
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
    #[command(flatten)]
    pub bands: super::formats::BandArgs,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

/// `reproduce --engine`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReproduceEngineArg {
    /// This tool's engine (the model)
    Embedded,
    /// The real torch.utils.data.DataLoader (the reference)
    Pytorch,
    /// PyTorch, then the embedded engine, and the two side by side
    Both,
}

/// Fresh kernels `reproduce` runs a chapter's notebook in by default: three
/// tell a value that varies from one that does not, and a cell that fails
/// in one kernel from one that always fails, in about three times the
/// notebook's own time.
pub const DEFAULT_KERNELS: usize = 3;

#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    /// [default: every chapter of every book: its tables where it publishes
    /// some, its notebook claims where it has some]
    pub chapter: Option<String>,
    /// Every chapter of every book (as when no chapter is named), each
    /// with the kinds of evidence it has
    #[arg(long, conflicts_with = "chapter")]
    pub all: bool,
    /// Measured steps per configuration in each round, over the window the chapter's tables define; a configuration whose steady step is short measures up to 8 times as many, rounded up to whole turns of its workers
    #[arg(long, default_value_t = crate::app::reproduce::BATCHES_PER_ROUND, value_parser = ranged::<u64>(1, MAX_BATCHES))]
    pub batches: u64,
    /// Rounds at least: every configuration once per round; a claim's verdict reads a 95% interval over the undisturbed rounds (6 is the fewest that give one), and rounds are added while a claim is undecided, within --budget
    #[arg(long, default_value_t = crate::app::reproduce::MIN_ROUNDS, value_parser = ranged::<usize>(1, MAX_ROUNDS as u64))]
    pub rounds: usize,
    /// Seconds after which no re-run of a disturbed configuration, wait for a quiet machine or extra round starts (the --rounds always run); 0 for none
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_BUDGET_S, allow_negative_numbers = true, value_parser = super::bench::budget_s)]
    pub budget: f64,
    /// Also exit 1 when a claim is INCONCLUSIVE
    #[arg(long)]
    pub strict: bool,
    /// Runs per configuration in each round, back to back (their medians make the round's cell)
    #[arg(long, default_value_t = 1, value_parser = ranged::<usize>(1, MAX_REPEAT as u64))]
    pub repeat: usize,
    /// Workers as OS processes (as the chapter) or threads
    #[arg(long, value_enum, default_value_t = WorkerKindArg::Process)]
    pub worker_kind: WorkerKindArg,
    /// Which engine measures: this tool's, the real PyTorch DataLoader, or
    /// both back to back (each recorded, then compared side by side)
    #[arg(long, value_enum, default_value_t = ReproduceEngineArg::Embedded)]
    pub engine: ReproduceEngineArg,
    /// With --engine both: run the embedded half at this machine's Python
    /// speed as PyTorch's run of the chapter just before it measured it (the
    /// comparison's line "Python here"): its Python costs and its hand-off's
    /// costs by the factor of PyTorch's per-batch probe, its workers' start
    /// by the fork's and the set-up's own ratios; the chapter's tables need
    /// a worker count above 0
    #[arg(long)]
    pub calibrate_to_pytorch: bool,
    /// The Python that runs the PyTorch harness [default: python3]; given,
    /// it also runs the chapter's notebook in fresh kernels for its notebook
    /// claims (it needs nbclient, ipykernel and what the notebook imports).
    /// Not given, the notebook claims are UNRUN
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Fresh kernels the notebook runs in, for its notebook claims: a value
    /// that varies across kernels gets its range (its 95% interval from 6),
    /// a cell that fails in some makes its claims INCONCLUSIVE
    #[arg(long, value_name = "N", default_value_t = DEFAULT_KERNELS, value_parser = ranged::<usize>(1, super::notebook::MAX_NOTEBOOK_REPEAT))]
    pub kernels: usize,
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
