//! The one error type, the outcome a command reports when it ran, and the
//! exit codes both map to (decided in `main.rs` and nowhere else).
//!
//! Each error variant but two carries the path, field or value it is about,
//! so the message a user sees names what to fix in one line; `Usage` and
//! `Other` carry a whole sentence, which has to name it itself. Typed variants
//! ([`Error::Settings`], [`Error::NoChapters`], ...) let the command line add
//! the flag that fixes them; the core never names a flag.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::Duration;

use crate::ids::IdError;

/// Exit status: everything checked out.
pub const EXIT_OK: u8 = 0;
/// Exit status: the command ran, and what it checked failed (altered snapshot,
/// claim not reproduced, unreadable record).
pub const EXIT_CHECK_FAILED: u8 = 1;
/// Exit status: bad input or an operational error; nothing was changed.
pub const EXIT_ERROR: u8 = 2;
/// Exit status after Ctrl-C, as shells report SIGINT.
pub const EXIT_INTERRUPTED: u8 = 130;

/// What a command that ran to its end concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Everything checked out.
    Ok,
    /// The command ran and a check failed (its output says which); the
    /// problems listed here are reported on standard error.
    CheckFailed(Vec<String>),
    /// The command went on past errors (one broken chapter among good ones)
    /// and reports them on standard error.
    Errors(Vec<String>),
}

impl Outcome {
    /// Ok, or a failed check with no further problems to report.
    pub fn check(passed: bool) -> Self {
        if passed {
            Outcome::Ok
        } else {
            Outcome::CheckFailed(Vec::new())
        }
    }

    /// Ok when there are no problems, else a failed check reporting them.
    pub fn unless(problems: Vec<String>) -> Self {
        if problems.is_empty() {
            Outcome::Ok
        } else {
            Outcome::CheckFailed(problems)
        }
    }

    /// The exit status.
    pub fn code(&self) -> u8 {
        match self {
            Outcome::Ok => EXIT_OK,
            Outcome::CheckFailed(_) => EXIT_CHECK_FAILED,
            Outcome::Errors(_) => EXIT_ERROR,
        }
    }

    /// The problems to report.
    pub fn problems(&self) -> &[String] {
        match self {
            Outcome::Ok => &[],
            Outcome::CheckFailed(p) | Outcome::Errors(p) => p,
        }
    }
}

/// A knob of the benchmark's settings, for errors that name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::Display)]
#[strum(serialize_all = "snake_case")]
pub enum Knob {
    Producers,
    CostMs,
    BatchSize,
    ConsumerMs,
    ReceiveMs,
    SendMs,
    SwitchIntervalMs,
    PythonCostScale,
    ForkCostScale,
    SetupCostScale,
    Workers,
    Batches,
    WarmupBatches,
    Repeat,
    Rounds,
    Budget,
    PrefetchFactor,
    Cpus,
    SampleFloats,
    TimerSlackNs,
}

/// A knob whose value cannot run. `problem` reads on from the knob's name:
/// "must be at least 1, got 0".
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{knob} {problem}")]
pub struct SettingsError {
    pub knob: Knob,
    pub problem: String,
}

impl SettingsError {
    /// The error for `knob`; `problem` reads on from its name.
    pub fn new(knob: Knob, problem: impl fmt::Display) -> Self {
        SettingsError {
            knob,
            problem: problem.to_string(),
        }
    }
}

/// How a benchmark worker stopped working. The words read on from "worker
/// N": "worker 2 (pid 812) was killed by signal 9".
#[derive(Debug, thiserror::Error)]
pub enum WorkerEnd {
    /// A thread worker's task channel closed under the loop.
    #[error("stopped (its thread ended)")]
    ThreadEnded,
    /// A thread worker's thread ended while batches were due.
    #[error("stopped (its thread panicked)")]
    ThreadPanicked,
    /// Every thread worker's result channel closed.
    #[error("stopped (every thread ended)")]
    EveryThreadEnded,
    /// The worker process could not be spawned.
    #[error("could not start ({}): {source}", exe.display())]
    NotStarted { exe: PathBuf, source: io::Error },
    /// The worker process was killed by a signal.
    #[error("(pid {pid}) was killed by signal {signal}")]
    Killed { pid: u32, signal: i32 },
    /// The worker process exited.
    #[error("(pid {pid}) exited with {status}")]
    Exited { pid: u32, status: ExitStatus },
    /// The worker process closed its pipe and had not exited yet.
    #[error("(pid {pid}) closed its pipe")]
    ClosedPipe { pid: u32 },
}

/// Why a benchmark's worker pool stopped working.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// A worker exited, was killed, or broke its pipe.
    #[error("worker {worker} {end}")]
    WorkerDied { worker: usize, end: WorkerEnd },
    /// The shared result pipe carried a message no worker could have sent,
    /// and no worker was found dead.
    #[error("talking to workers: the workers' result pipe carried a broken message")]
    BrokenMessage,
    /// Plain I/O trouble talking to workers.
    #[error("talking to workers: {0}")]
    Io(#[source] io::Error),
}

impl PoolError {
    /// The signal that killed the worker, when one did.
    pub fn signal(&self) -> Option<i32> {
        match self {
            PoolError::WorkerDied {
                end: WorkerEnd::Killed { signal, .. },
                ..
            } => Some(*signal),
            _ => None,
        }
    }
}

/// The worker a batch was due from, as a stall names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchOwner {
    pub worker: usize,
    /// Its process id, when it is a process.
    pub pid: Option<u32>,
}

impl fmt::Display for BatchOwner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pid {
            Some(pid) => write!(f, "worker {} (pid {pid})", self.worker),
            None => write!(f, "worker {}", self.worker),
        }
    }
}

/// Why the benchmark's engine could not finish a configuration.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Pool(#[from] PoolError),
    /// No batch arrived within `limit`; `owner` owed `batch` (None when
    /// delivery is out of order, so no one batch was due).
    #[error(
        "{} delivered nothing for {:.1} s while batch {batch} was due (watchdog); it is hung or stopped",
        owner.map_or_else(|| "no worker".to_string(), |o| o.to_string()),
        limit.as_secs_f64()
    )]
    Stalled {
        limit: Duration,
        batch: u64,
        owner: Option<BatchOwner>,
    },
}

/// A thread setting a benchmark run reads or sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::Display)]
pub enum ThreadSetting {
    #[strum(to_string = "read the CPU affinity mask")]
    ReadAffinity,
    #[strum(to_string = "set CPU affinity")]
    SetAffinity,
    #[strum(to_string = "set timer slack")]
    SetTimerSlack,
}

/// The PyTorch harness did not give a result this tool can read.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// The harness script could not be written to a temporary file.
    #[error("cannot write the PyTorch harness: {0}")]
    NotWritten(#[source] io::Error),
    /// The harness exited with an error; `last_line` is the last line of its
    /// standard error.
    #[error("the PyTorch harness failed under {} ({status}){}", python.display(), colon_then(last_line))]
    Failed {
        python: std::path::PathBuf,
        status: ExitStatus,
        last_line: String,
    },
    /// It gave no answer within the time this run allows (see
    /// `bench::harness_runner`); it and its workers were stopped.
    /// `from_env`: the limit is the one RESEARCH_COMPANION_HARNESS_TIMEOUT
    /// set, not the run size's.
    #[error(
        "the PyTorch harness gave no answer within {} s, {}; it and its workers were stopped",
        limit.as_secs_f64(),
        if *from_env {
            "the limit RESEARCH_COMPANION_HARNESS_TIMEOUT sets"
        } else {
            "the limit for a run of this size (RESEARCH_COMPANION_HARNESS_TIMEOUT sets another)"
        }
    )]
    TimedOut { limit: Duration, from_env: bool },
    /// RESEARCH_COMPANION_HARNESS_TIMEOUT holds `value`, which is not a
    /// time limit this tool takes.
    #[error(
        "RESEARCH_COMPANION_HARNESS_TIMEOUT={value}: not a number of seconds from {min} to {max}"
    )]
    BadTimeout { value: String, min: f64, max: f64 },
    /// RESEARCH_COMPANION_HARNESS_TIMEOUT is set to nothing but blanks,
    /// which is not taken for unset: a blank is more likely a mistake.
    #[error(
        "RESEARCH_COMPANION_HARNESS_TIMEOUT is set but blank; unset it for the limit a run's size gives, or set a number of seconds from {min} to {max}"
    )]
    BlankTimeout { min: f64, max: f64 },
    /// It printed more than its answer can be for this run.
    #[error(
        "the PyTorch harness printed more than {limit} bytes, more than its answer for this run can be; it and its workers were stopped"
    )]
    TooMuchOutput { limit: usize },
    /// Its standard output is not its answer; `start` is how it began.
    #[error(
        "the PyTorch harness under {} printed something that is not its result ({reason}): '{start}'",
        python.display()
    )]
    NotItsAnswer {
        python: std::path::PathBuf,
        #[source]
        reason: serde_json::Error,
        start: String,
    },
    /// It speaks another answer format.
    #[error("the PyTorch harness speaks version {spoken}, this tool version {expected}")]
    Version { spoken: u32, expected: u32 },
    /// It returned another number of runs than asked for.
    #[error("the PyTorch harness returned {returned} runs, {asked} were asked for")]
    Runs { returned: usize, asked: usize },
    /// What it measured for `config` is not what a run could measure (a
    /// window of 0 ns, a configuration it was not asked for).
    #[error("the PyTorch harness's answer for {config} cannot be right: {problem}")]
    OutOfRange { config: String, problem: String },
    /// It measured another number of batches than asked for in `config`.
    #[error("the PyTorch harness measured {measured} batches for {config}, {asked} were asked for")]
    Batches {
        measured: usize,
        config: String,
        asked: u64,
    },
}

/// `": text"`, or nothing for no text.
fn colon_then(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(": {text}")
    }
}

/// Errors a user can act on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: invalid UTF-8 at byte offset {offset}")]
    InvalidUtf8 { path: PathBuf, offset: u64 },
    #[error("{path}: {message}")]
    Yaml { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("unknown chapter '{id}'{}", suggestion.as_ref().map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default())]
    UnknownChapter {
        id: String,
        suggestion: Option<String>,
    },
    #[error("{id} is ambiguous: {}", candidates.join(", "))]
    AmbiguousChapter { id: String, candidates: Vec<String> },
    /// No chapter is registered under the project root.
    #[error("no chapters under {}: run inside a project that has book-snapshots/", dir.display())]
    NoChapters { dir: PathBuf },
    /// The project root is not a folder that exists.
    #[error("the project root {} {problem}", dir.display())]
    NoRoot { dir: PathBuf, problem: &'static str },
    /// A command that works on one chapter was not told which of several.
    #[error("several chapters are registered ({})", candidates.join(", "))]
    SeveralChapters { candidates: Vec<String> },
    #[error(transparent)]
    Id(#[from] IdError),
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// A research report that is still a draft.
    #[error("{}: still a draft: {reasons}", path.display())]
    Draft { path: PathBuf, reasons: String },
    /// A fetch was redirected to another origin (scheme, host or port) and
    /// was not allowed to follow it.
    #[error(
        "{from} redirects to {to}, another host or port; only redirects within the origin asked for are followed"
    )]
    CrossOriginRedirect { from: String, to: String },
    /// A run that cannot be compared with a chapter's tables, offered as
    /// the chapter's experiment; `reason` names the first setting that
    /// differs.
    #[error("{what} cannot be compared with the tables of {chapter}: {reason}")]
    NotComparable {
        what: String,
        chapter: String,
        reason: String,
    },
    /// Something larger than the limit set for it.
    #[error("{what} is larger than the {limit}-byte limit")]
    TooLarge { what: String, limit: u64 },
    #[error("{path}: already exists; refusing to overwrite it")]
    WouldOverwrite { path: PathBuf },
    /// A configuration of the benchmark failed; `config` names it
    /// (`producer=sleep workers=4`).
    #[error("{config} failed: {source}")]
    Engine {
        config: String,
        #[source]
        source: EngineError,
    },
    /// The benchmark could not read or set a setting of its thread.
    #[error("cannot {setting}: {source}")]
    ThreadSetting {
        setting: ThreadSetting,
        #[source]
        source: io::Error,
    },
    #[error(transparent)]
    Harness(#[from] HarnessError),
    #[error("{0}")]
    Usage(String),
    #[error("interrupted; workers stopped, nothing written")]
    Interrupted,
    #[error("{0}")]
    Other(String),
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// A value in a file that breaks a rule.
    pub fn invalid(path: impl AsRef<Path>, message: impl Into<String>) -> Self {
        Error::Invalid {
            path: path.as_ref().to_path_buf(),
            message: message.into(),
        }
    }

    /// Whether this is standard output closing under us (`| head`).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_harness_time_limit_says_where_it_came_from() {
        let limit = Duration::from_millis(1_500);
        let of_size = HarnessError::TimedOut {
            limit,
            from_env: false,
        };
        assert!(
            of_size.to_string().contains(
                "within 1.5 s, the limit for a run of this size (RESEARCH_COMPANION_HARNESS_TIMEOUT sets another)"
            ),
            "{of_size}"
        );
        let set = HarnessError::TimedOut {
            limit,
            from_env: true,
        };
        assert!(
            set.to_string()
                .contains("within 1.5 s, the limit RESEARCH_COMPANION_HARNESS_TIMEOUT sets;"),
            "{set}"
        );
    }

    #[test]
    fn an_engine_failure_names_the_configuration_the_worker_and_how_it_ended() {
        let killed = Error::Engine {
            config: "producer=sleep workers=4".into(),
            source: EngineError::Pool(PoolError::WorkerDied {
                worker: 2,
                end: WorkerEnd::Killed {
                    pid: 812,
                    signal: 9,
                },
            }),
        };
        assert_eq!(
            killed.to_string(),
            "producer=sleep workers=4 failed: worker 2 (pid 812) was killed by signal 9"
        );
        let stalled = Error::Engine {
            config: "producer=sleep workers=4".into(),
            source: EngineError::Stalled {
                limit: Duration::from_millis(10_300),
                batch: 6,
                owner: Some(BatchOwner {
                    worker: 1,
                    pid: Some(813),
                }),
            },
        };
        assert_eq!(
            stalled.to_string(),
            "producer=sleep workers=4 failed: worker 1 (pid 813) delivered nothing for 10.3 s \
             while batch 6 was due (watchdog); it is hung or stopped"
        );
        let out_of_order = EngineError::Stalled {
            limit: Duration::from_secs(1),
            batch: 0,
            owner: None,
        };
        assert!(
            out_of_order
                .to_string()
                .starts_with("no worker delivered nothing")
        );
        let thread = PoolError::WorkerDied {
            worker: 0,
            end: WorkerEnd::ThreadEnded,
        };
        assert_eq!(thread.to_string(), "worker 0 stopped (its thread ended)");
        assert_eq!(thread.signal(), None);
    }

    #[test]
    fn a_harness_failure_keeps_its_last_line_only_when_it_has_one() {
        use std::os::unix::process::ExitStatusExt;
        let failed = |last_line: &str| HarnessError::Failed {
            python: "/bin/false".into(),
            status: ExitStatus::from_raw(1 << 8),
            last_line: last_line.into(),
        };
        assert_eq!(
            failed("Traceback: boom").to_string(),
            "the PyTorch harness failed under /bin/false (exit status: 1): Traceback: boom"
        );
        assert_eq!(
            failed("").to_string(),
            "the PyTorch harness failed under /bin/false (exit status: 1)"
        );
    }
}
