//! The chapter's notebook: `notebook add`, `notebook run`, `notebook
//! check`, `notebook report`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::formats::{ListFormat, ranged};
use crate::output::Format;

/// Longest cell timeout, in seconds (a day).
pub const MAX_CELL_TIMEOUT: u64 = 86_400;
/// Most kernels at once.
pub const MAX_JOBS: u64 = 16;
/// Most fresh kernels per notebook.
pub const MAX_NOTEBOOK_REPEAT: u64 = 100;

/// Longest kernelspec name `--kernel` takes.
pub const MAX_KERNEL_NAME: usize = 64;

/// `--kernel`: a kernelspec name as Jupyter names them (letters, digits,
/// `.`, `_`, `-`), 1 to [`MAX_KERNEL_NAME`] characters; anything else
/// (an empty name among them) is refused before any kernel starts, so it
/// is never recorded as the kernel a run used.
fn kernel_name(text: &str) -> Result<String, String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if text.is_empty() {
        return Err("a kernel name cannot be empty; give a kernelspec name such as python3".into());
    }
    if text.len() > MAX_KERNEL_NAME {
        return Err(format!(
            "{} characters, more than the {MAX_KERNEL_NAME} a kernel name may have",
            text.chars().count()
        ));
    }
    match text.chars().find(|c| !ok(*c)) {
        Some(c) => Err(format!(
            "'{}' holds {c:?}; a kernelspec name holds only letters, digits, '.', '_' and '-'",
            crate::text::escape::visible(text)
        )),
        None => Ok(text.to_string()),
    }
}

#[derive(Debug, Subcommand)]
pub enum NotebookCommand {
    /// Store a snapshot of the chapter's notebook (numbered, never edited) from a file or a URL
    Add(NotebookAddArgs),
    /// Run the stored notebook in fresh Jupyter kernels and record each cell's outcome and output
    Run(NotebookRunArgs),
    /// Audit a saved notebook without running it (exit 1 when there are findings)
    Check(NotebookCheckArgs),
    /// The book's notebook execution report, from the records
    Report(NotebookReportArgs),
}

#[derive(Debug, Args)]
pub struct NotebookAddArgs {
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    pub chapter: String,
    /// A notebook file, or a URL (a Colab or GitHub page's notebook is
    /// downloaded from GitHub) [default: the notebook chapter.yaml lists]
    #[arg(value_name = "FILE|URL")]
    pub from: Option<String>,
    /// Where the notebook came from [default: the URL, or the file's path]
    #[arg(long, value_name = "URL")]
    pub source: Option<String>,
    /// Seconds to wait for the connection
    #[arg(long, value_name = "SECS", default_value_t = 10.0, allow_negative_numbers = true, value_parser = super::chapters::seconds)]
    pub connect_timeout: f64,
    /// Seconds the whole download may take
    #[arg(long, value_name = "SECS", default_value_t = 60.0, allow_negative_numbers = true, value_parser = super::chapters::seconds)]
    pub timeout: f64,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("which").args(["chapters", "all"]).required(true))]
pub struct NotebookRunArgs {
    /// Chapters whose stored notebook to run
    pub chapters: Vec<String>,
    /// Every chapter that has a stored notebook
    #[arg(long)]
    pub all: bool,
    /// The Python that runs the harness and whose kernel runs the notebook
    /// (it needs nbclient and ipykernel)
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: PathBuf,
    /// The Jupyter kernel: a kernelspec name, 1 to 64 letters, digits,
    /// `.`, `_` or `-`
    #[arg(long, value_name = "NAME", default_value = "python3", value_parser = kernel_name)]
    pub kernel: String,
    /// Seconds a code cell may run before it is stopped (a timeout fails it)
    #[arg(long, value_name = "S", default_value_t = 120, value_parser = ranged::<u64>(1, MAX_CELL_TIMEOUT))]
    pub cell_timeout: u64,
    /// Fresh kernels per notebook; a cell that fails in some and passes in
    /// others is FLAKY
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = ranged::<usize>(1, MAX_NOTEBOOK_REPEAT))]
    pub repeat: usize,
    /// Kernels run at once
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = ranged::<usize>(1, MAX_JOBS))]
    pub jobs: usize,
    /// Do not store a notebook record
    #[arg(long)]
    pub no_record: bool,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
pub struct NotebookCheckArgs {
    /// A notebook file, or a chapter (its current stored notebook)
    #[arg(value_name = "CHAPTER|FILE")]
    pub target: String,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

/// Output format of `notebook report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Markdown,
    Json,
}

impl From<ReportFormat> for Format {
    fn from(f: ReportFormat) -> Format {
        match f {
            ReportFormat::Markdown => Format::Markdown,
            ReportFormat::Json => Format::Json,
        }
    }
}

#[derive(Debug, Args)]
pub struct NotebookReportArgs {
    /// Only this book's chapters [default: every book]
    #[arg(long, value_name = "BOOK")]
    pub book: Option<String>,
    #[arg(long, value_enum, default_value_t = ReportFormat::Markdown)]
    pub format: ReportFormat,
}
