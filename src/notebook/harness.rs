//! Running a notebook once in a fresh Jupyter kernel, through the nbclient
//! harness this crate embeds (`nbclient_harness.py`), as the PyTorch engine
//! runs its harness: written to a temporary folder, run with the Python
//! given, within bounds (`bounded_child`: its own process group, a deadline
//! from the cell timeout and the number of cells, its output capped). The
//! kernel works in an empty folder made for the run; everything temporary
//! is removed on every path, and a kernel left over by a harness that was
//! killed is stopped too. What the kernel printed comes back as text with
//! this machine's facts replaced (`scrub`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;

use super::run::{CellOutcome, CellRun, KernelRun, Versions};
use super::scrub::{LocalFacts, Scrubber, bounded, plain_text};
use crate::bounded_child::{self, Ended, Limits};
use crate::error::{Error, Result};

/// The harness, as shipped.
pub const HARNESS: &str = include_str!("nbclient_harness.py");

/// How to get nbclient and ipykernel, for the error that says they are
/// missing.
pub const INSTALL: &str = "install them with `python3 -m venv DIR && DIR/bin/pip install nbclient ipykernel` and use DIR/bin/python";

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
/// The variable that marks the harness and the kernel it starts as this
/// run's, so that a kernel left over is known before it is stopped.
const RUN_MARK: &str = "RESEARCH_COMPANION_NOTEBOOK_RUN";

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
    let temp = tempfile::Builder::new()
        .prefix("research-companion-notebook-")
        .tempdir()
        .map_err(|e| {
            Error::Other(format!(
                "cannot make a temporary folder for the notebook: {e}"
            ))
        })?;
    let dir = temp.path();
    let workdir = dir.join("work");
    for d in [&workdir, &dir.join("ipython"), &dir.join("runtime")] {
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
    let mark = run_mark()?;
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
        .env(RUN_MARK, &mark)
        .env("IPYTHONDIR", dir.join("ipython"))
        .env("JUPYTER_RUNTIME_DIR", dir.join("runtime"))
        .env("JUPYTER_PLATFORM_DIRS", "1");
    let limits = Limits {
        deadline: call.deadline(),
        max_stdout: (call.code_cells + 1) * (HARNESS_MAX_CHARS * 4 + 4096) + (1 << 20),
        stderr_tail: 4096,
    };
    let on_line: Arc<dyn Fn(&str) + Send + Sync> = Arc::new(move |line: &str| {
        if let Some(i) = line
            .strip_prefix("cell ")
            .and_then(|n| n.trim().parse().ok())
        {
            on_cell(i);
        }
    });
    let finished = bounded_child::run(cmd, limits, on_line, stop);
    // Whatever happened, no kernel of this run outlives it.
    stop_left_over_kernel(&pid_file, &mark);
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
            crate::text::prefix(text.trim(), 60)
        ))
    })?;
    if answer.harness != HARNESS_VERSION {
        return Err(Error::Other(format!(
            "the notebook harness speaks version {}, this tool version {HARNESS_VERSION}",
            answer.harness
        )));
    }
    Ok(to_run(call, &workdir, answer, finished.elapsed))
}

/// The answer as a record keeps it: outputs as plain text, this machine's
/// facts replaced, bounded.
fn to_run(call: &HarnessCall<'_>, workdir: &Path, a: HarnessAnswer, wall: Duration) -> OneRun {
    let mut facts = LocalFacts::of_this_machine();
    facts.workdir = Some(workdir.to_path_buf());
    facts.project = Some(call.project_root.to_path_buf());
    facts.python_prefixes = a.python_prefixes.clone();
    facts.users.extend(a.user.clone());
    facts.hosts.extend(a.host.clone());
    let scrubber = Scrubber::new(&facts);
    // A secret a cell printed is no more kept than the machine's facts.
    let clean = |s: &str| super::run::redact_run_text(&scrubber.scrub(&plain_text(s)));
    let cells = a
        .cells
        .iter()
        .map(|c| {
            let (output, output_left_out) = bounded(&clean(&c.output), RECORD_OUTPUT_CHARS);
            CellRun {
                index: c.index,
                outcome: c.outcome,
                ename: c.ename.as_deref().map(|n| {
                    crate::text::prefix(&clean(n), super::run::MAX_ENAME_CHARS).to_string()
                }),
                evalue: c.evalue.as_deref().map(|v| bounded(&clean(v), 500).0),
                seconds: c.seconds,
                output,
                output_left_out,
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
    }
}

/// A random value for [`RUN_MARK`].
fn run_mark() -> Result<String> {
    let mut buf = [0u8; 8];
    getrandom::fill(&mut buf)
        .map_err(|e| Error::Other(format!("cannot get random bytes for a notebook run: {e}")))?;
    Ok(crate::text::hex(&buf))
}

/// Stops the kernel whose process id the harness wrote, if it is still
/// there and still this run's (its environment carries `mark`), with its
/// whole process group: a harness killed at its deadline cannot shut its
/// kernel down itself.
fn stop_left_over_kernel(pid_file: &Path, mark: &str) {
    let Some(pid) = std::fs::read_to_string(pid_file)
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
    else {
        return;
    };
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    let wanted = format!("{RUN_MARK}={mark}");
    if environ.split(|&b| b == 0).any(|v| v == wanted.as_bytes()) {
        let _ = crate::sys::stop_process_group(pid, crate::sys::Stop::Kill);
    }
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
