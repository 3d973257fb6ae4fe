//! Running a notebook once in a fresh Jupyter kernel, through the nbclient
//! harness this crate embeds (`nbclient_harness.py`), as the PyTorch engine
//! runs its harness: written to a folder of the run's own (`contain`), run
//! with the Python given, within bounds (`bounded_child`: its own process
//! group, a deadline from the cell timeout and the number of cells, its
//! output capped), and killed by Linux if this tool dies (the parent death
//! signal; the harness asks the same for its Jupyter kernel). The
//! kernel works in an empty folder made for the run, with the run's folder
//! as its `TMPDIR` and Jupyter runtime folder; whatever way the run ends,
//! every process carrying the run's mark is killed and the folder removed.
//! What the kernel printed comes back as text with this machine's facts
//! replaced (`scrub`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;

use super::contain::{self, RUN_MARK, RunFolder};
use super::run::{CellOutcome, CellRun, KernelRun, Versions};
use super::scrub::{LocalFacts, Scrubber, bounded, plain_text};
use crate::bounded_child::{self, ChildLimits, Ended};
use crate::error::{Error, Result};

/// The harness, as shipped.
pub const HARNESS: &str = include_str!("nbclient_harness.py");

/// How to get nbclient and ipykernel, for the error that says they are
/// missing.
pub const INSTALL: &str = "install them with `python3 -m venv DIR && DIR/bin/pip install nbclient ipykernel` and use DIR/bin/python";

/// One line of error when `python` cannot be started (the command line
/// adds the flag).
pub fn check_python(python: &Path) -> Result<()> {
    crate::bounded_child::findable(python)
        .map_err(|e| Error::Usage(format!("cannot run {} ({e}); {INSTALL}", python.display())))
}

/// The answer format this tool reads.
const HARNESS_VERSION: u32 = 1;
/// What the harness keeps of a cell's output, in characters.
const HARNESS_MAX_CHARS: usize = 65_536;
/// What a record keeps of a cell's output, in characters.
pub const RECORD_OUTPUT_CHARS: usize = 4_000;
/// Time allowed for Python to start and the kernel to come up.
const START_ALLOWANCE: Duration = Duration::from_secs(120);
/// Time allowed per code cell beyond its timeout (nbclient's own checks).
const CELL_SLACK: Duration = Duration::from_secs(15);

/// One run to make.
#[derive(Debug, Clone)]
pub struct HarnessCall<'a> {
    pub python: &'a Path,
    /// The stored notebook (read, never written).
    pub notebook: &'a Path,
    pub kernel: &'a str,
    pub cell_timeout_seconds: u64,
    pub code_cells: usize,
    /// The project root, replaced by `<project>` in outputs.
    pub project_root: &'a Path,
}

impl HarnessCall<'_> {
    /// The wall-clock bound of one run: starting, then every code cell's
    /// timeout with some slack.
    pub fn deadline(&self) -> Duration {
        let per_cell = Duration::from_secs(self.cell_timeout_seconds) + CELL_SLACK;
        START_ALLOWANCE + per_cell * self.code_cells.max(1) as u32
    }
}

/// A cell as the harness reports it.
#[derive(Debug, Deserialize)]
struct HarnessCell {
    index: usize,
    outcome: CellOutcome,
    ename: Option<String>,
    evalue: Option<String>,
    seconds: f64,
    output: String,
    /// The line of the cell its traceback names (harnesses before it
    /// was reported send none).
    #[serde(default)]
    failed_line: Option<super::run::FailedLine>,
}

/// The harness's whole answer.
#[derive(Debug, Deserialize)]
struct HarnessAnswer {
    harness: u32,
    python: String,
    python_prefixes: Vec<PathBuf>,
    nbclient: String,
    nbformat: String,
    ipykernel: String,
    jupyter_client: Option<String>,
    torch: Option<String>,
    kernel: String,
    kernel_language: Option<String>,
    kernel_language_version: Option<String>,
    user: Option<String>,
    host: Option<String>,
    kernel_start_seconds: Option<f64>,
    client_seconds: f64,
    cells: Vec<HarnessCell>,
}

/// One fresh kernel's run, and the versions it used.
#[derive(Debug, Clone)]
pub struct OneRun {
    pub run: KernelRun,
    pub versions: Versions,
    /// What replaced the run's machine facts in its outputs, for the
    /// notebook's own text (a cell's first line) to get the same.
    pub scrubber: Scrubber,
}

/// Runs the notebook once. `on_cell` is told the index of each code cell as
/// it ends; `stop` is asked whether to give up (Ctrl-C). A Python that
/// cannot be run, or lacks nbclient or ipykernel, is a usage error (the
/// caller chose it).
pub fn run_once(
    call: &HarnessCall<'_>,
    on_cell: Arc<dyn Fn(usize) + Send + Sync>,
    stop: &dyn Fn() -> bool,
) -> Result<OneRun> {
    static CLEAR_DEAD_RUNS: std::sync::Once = std::sync::Once::new();
    CLEAR_DEAD_RUNS.call_once(|| {
        contain::clear_dead_runs(&std::env::temp_dir());
    });
    let folder = RunFolder::create()?;
    let dir = folder.path();
    let workdir = dir.join("work");
    for d in [
        &workdir,
        &dir.join("ipython"),
        &dir.join("runtime"),
        &dir.join("tmp"),
    ] {
        std::fs::create_dir(d).map_err(|e| Error::io(d, e))?;
    }
    let script = dir.join("nbclient_harness.py");
    std::fs::File::create(&script)
        .and_then(|mut f| f.write_all(HARNESS.as_bytes()))
        .map_err(|e| Error::io(&script, e))?;
    // The harness runs in the working folder: a path from elsewhere must
    // not depend on where this tool was started.
    let notebook = std::path::absolute(call.notebook).map_err(|e| Error::io(call.notebook, e))?;
    let pid_file = dir.join("kernel.pid");
    let mark = folder.mark();
    let argument = serde_json::json!({
        "notebook": notebook,
        "workdir": workdir,
        "cell_timeout": call.cell_timeout_seconds,
        "kernel": call.kernel,
        "max_chars": HARNESS_MAX_CHARS,
        "pid_file": pid_file,
        "kernel_log": dir.join("kernel.log"),
    });
    let mut cmd = Command::new(call.python);
    cmd.arg(&script)
        .arg(argument.to_string())
        .current_dir(&workdir)
        .env(RUN_MARK, mark)
        .env("IPYTHONDIR", dir.join("ipython"))
        .env("JUPYTER_RUNTIME_DIR", dir.join("runtime"))
        .env("TMPDIR", dir.join("tmp"))
        .env("JUPYTER_PLATFORM_DIRS", "1");
    // This thread lives until the harness has been reaped (the caller's
    // worker), so the harness dies with it only if this tool does.
    crate::sys::die_with_this_thread(&mut cmd);
    let limits = ChildLimits {
        deadline: call.deadline(),
        max_stdout: (call.code_cells + 1) * (HARNESS_MAX_CHARS * 4 + 4096) + (1 << 20),
        stderr_tail: 4096,
    };
    let cells_done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = Arc::clone(&cells_done);
    let on_line: Arc<dyn Fn(&str) + Send + Sync> = Arc::new(move |line: &str| {
        if let Some(i) = line
            .strip_prefix("cell ")
            .and_then(|n| n.trim().parse().ok())
        {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            on_cell(i);
        }
    });
    let finished = bounded_child::run(cmd, limits, on_line, stop);
    // Whatever happened, nothing this run started outlives it, and its
    // folder (the kernel's connection file with it) goes when this returns.
    stop_left_over_kernel(&pid_file, mark);
    let finished = finished.map_err(|e| {
        Error::Usage(format!(
            "cannot run {} ({e}); {INSTALL}",
            call.python.display()
        ))
    })?;
    let last_line = finished
        .printed
        .stderr_tail
        .lines()
        .rev()
        .find(|l| l.starts_with("harness:"))
        .or_else(|| {
            finished
                .printed
                .stderr_tail
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
        })
        .unwrap_or("")
        .trim()
        .to_string();
    // An error message quotes it, and a cell may have written a secret there.
    let last_line = super::run::redact_run_text(&last_line);
    let python = call.python.display();
    match finished.ended {
        Ended::Stopped => return Err(Error::Interrupted),
        Ended::TimedOut => {
            return Err(Error::Other(format!(
                "the notebook harness did not finish within {} s (start-up and every cell's timeout); it and its kernel were stopped",
                limits.deadline.as_secs()
            )));
        }
        Ended::Exited { status } => match status.code() {
            Some(0) => {}
            Some(3) => {
                let what = last_line
                    .strip_prefix("harness: cannot import ")
                    .unwrap_or("nbclient or ipykernel");
                return Err(Error::Usage(format!(
                    "{python} cannot import {what}; {INSTALL}"
                )));
            }
            Some(4) => {
                return Err(Error::Other(
                    last_line
                        .strip_prefix("harness: ")
                        .unwrap_or(&last_line)
                        .to_string(),
                ));
            }
            None => {
                // Killed by a signal not from this tool: by a cell, most
                // likely, or by someone on this machine.
                let done = cells_done.load(std::sync::atomic::Ordering::SeqCst);
                return Err(Error::Other(format!(
                    "{}: the notebook harness was killed ({status}) after {done} of {} code cells had finished, so the run has no answer; a cell may have killed it (the kernel's parent is the harness). Every process of the run was stopped; nothing was recorded",
                    call.notebook
                        .strip_prefix(call.project_root)
                        .unwrap_or(call.notebook)
                        .display(),
                    call.code_cells,
                )));
            }
            _ => {
                return Err(Error::Other(format!(
                    "the notebook harness failed ({status}){}",
                    if last_line.is_empty() {
                        String::new()
                    } else {
                        format!(": {last_line}")
                    }
                )));
            }
        },
    }
    if finished.printed.stdout_dropped > 0 {
        return Err(Error::Other(format!(
            "the notebook harness printed more than {} bytes; refusing to read its answer",
            limits.max_stdout
        )));
    }
    let answer: HarnessAnswer = serde_json::from_slice(&finished.printed.stdout).map_err(|e| {
        let text = String::from_utf8_lossy(&finished.printed.stdout);
        Error::Other(format!(
            "the notebook harness printed something that is not its result ({e}): '{}'",
            crate::text::format::prefix(text.trim(), 60)
        ))
    })?;
    if answer.harness != HARNESS_VERSION {
        return Err(Error::Other(format!(
            "the notebook harness speaks version {}, this tool version {HARNESS_VERSION}",
            answer.harness
        )));
    }
    Ok(to_run(
        call,
        &workdir,
        &dir.join("tmp"),
        answer,
        finished.elapsed,
    ))
}

/// The answer as a record keeps it: outputs as plain text, this machine's
/// facts replaced, bounded.
fn to_run(
    call: &HarnessCall<'_>,
    workdir: &Path,
    temp: &Path,
    a: HarnessAnswer,
    wall: Duration,
) -> OneRun {
    let mut facts = LocalFacts::of_this_machine();
    facts.workdir = Some(workdir.to_path_buf());
    facts.project = Some(call.project_root.to_path_buf());
    facts.python_prefixes = a.python_prefixes.clone();
    facts.users.extend(a.user.clone());
    facts.hosts.extend(a.host.clone());
    let scrubber = Scrubber::new(&facts);
    // The kernel's TMPDIR, the run's own, is `<tmp>` as the machine's is.
    let run_temp = Scrubber::new(&LocalFacts {
        temp: Some(temp.to_path_buf()),
        ..LocalFacts::default()
    });
    // A secret a cell printed is no more kept than the machine's facts.
    // Redacted first: a user or home folder replaced inside a URL
    // (`mysql://root:pw@db` with home `/root`) would break the URL, and its
    // password would no longer be found.
    let clean =
        |s: &str| scrubber.scrub(&run_temp.scrub(&super::run::redact_run_text(&plain_text(s))));
    let cells = a
        .cells
        .iter()
        .map(|c| {
            let (output, output_left_out) = bounded(&clean(&c.output), RECORD_OUTPUT_CHARS);
            CellRun {
                index: c.index,
                outcome: c.outcome,
                ename: c.ename.as_deref().map(|n| {
                    crate::text::format::prefix(&clean(n), super::run::MAX_ENAME_CHARS).to_string()
                }),
                evalue: c.evalue.as_deref().map(|v| bounded(&clean(v), 500).0),
                seconds: c.seconds,
                output,
                output_left_out,
                // Cleaned as the outputs are, then cut as a first line is.
                failed_line: c.failed_line.as_ref().map(|l| super::run::FailedLine {
                    line: l.line,
                    text: crate::text::format::prefix(
                        &clean(&l.text),
                        super::run::FIRST_LINE_CHARS,
                    )
                    .to_string(),
                }),
            }
        })
        .collect();
    OneRun {
        run: KernelRun {
            wall_seconds: wall.as_secs_f64(),
            kernel_start_seconds: a.kernel_start_seconds.unwrap_or(0.0),
            client_seconds: a.client_seconds,
            cells,
        },
        versions: Versions {
            python: a.python,
            kernel: match (a.kernel_language, &a.kernel_language_version) {
                (Some(lang), Some(v)) => format!("{} ({lang} {v})", a.kernel),
                (Some(lang), None) => format!("{} ({lang})", a.kernel),
                (None, _) => a.kernel,
            },
            kernel_language_version: a.kernel_language_version,
            ipykernel: a.ipykernel,
            nbclient: a.nbclient,
            nbformat: a.nbformat,
            jupyter_client: a.jupyter_client,
            torch: a.torch,
        },
        scrubber,
    }
}

/// Stops what is left of the run: the kernel whose process id the harness
/// wrote, with its whole process group, if it is still there and still
/// this run's (its environment carries `mark`), as a harness killed at its
/// deadline cannot shut its kernel down itself; then every process that
/// carries the mark, wherever it went (a cell's `setsid` child, a kernel
/// whose harness a cell killed).
fn stop_left_over_kernel(pid_file: &Path, mark: &str) {
    if let Some(pid) = std::fs::read_to_string(pid_file)
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        && contain::carries_mark(pid, mark)
    {
        let _ = crate::sys::stop_process_group(pid, crate::sys::Stop::Kill);
    }
    contain::sweep(mark);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_harness_reads_the_settings_it_is_given() {
        for key in [
            "notebook",
            "workdir",
            "cell_timeout",
            "kernel",
            "max_chars",
            "pid_file",
            "kernel_log",
        ] {
            assert!(
                HARNESS.contains(&format!("config[\"{key}\"]")),
                "{key} unread"
            );
        }
    }

    #[test]
    fn the_deadline_grows_with_the_cells_and_their_timeout() {
        let call = HarnessCall {
            python: Path::new("python3"),
            notebook: Path::new("n.ipynb"),
            kernel: "python3",
            cell_timeout_seconds: 10,
            code_cells: 7,
            project_root: Path::new("/p"),
        };
        assert_eq!(call.deadline(), Duration::from_secs(120 + 7 * 25));
    }
}
