//! Running the PyTorch harness as a child process that can neither hang
//! the run nor outlive or outgrow it.
//!
//! - It gets a process group of its own, which its DataLoader workers
//!   share: a terminal's Ctrl-C reaches the tool, not the harness, and the
//!   tool ends the whole group, workers included. PR_SET_PDEATHSIG ends the
//!   harness if the tool is killed outright.
//! - Its standard output is read up to the most its answer can be for the
//!   run; its standard error, to the end, keeping only the last 64 KiB.
//! - It has a time limit; past it, or on Ctrl-C or SIGTERM (the command
//!   line wires both to [`super::interrupt`]), or when it prints too much,
//!   the group gets SIGTERM, then SIGKILL a second later.
//! - Once it has exited, whatever is left of its group (a worker, a child
//!   that kept the pipes open) is ended the same way after two seconds, so
//!   an answer printed by a harness whose child lingers is still read.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::sys;

/// The environment variable that sets the harness's time limit in seconds,
/// in place of the one computed from the run's size.
pub const HARNESS_TIMEOUT_ENV: &str = "RESEARCH_COMPANION_HARNESS_TIMEOUT";

/// How much of the harness's standard error is kept: the end, where Python
/// says what went wrong.
const STDERR_TAIL: usize = 64 << 10;

/// How long the harness's group and pipes may outlast it.
const AFTER_EXIT: Duration = Duration::from_secs(2);

/// Between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(1);

/// How often the run looks at the harness, the clock and Ctrl-C.
const POLL: Duration = Duration::from_millis(20);

/// What the harness may take.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub time: Duration,
    /// The most its standard output may hold.
    pub stdout_bytes: usize,
}

/// A harness that exited by itself.
#[derive(Debug)]
pub struct HarnessFinished {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    /// The end of its standard error.
    pub stderr_tail: String,
}

/// Why the harness gave no answer to read.
#[derive(Debug)]
pub enum Stopped {
    /// It could not be started.
    NotStarted(std::io::Error),
    /// Ctrl-C or SIGTERM reached the tool.
    Interrupted,
    /// It ran past its time limit.
    TimedOut,
    /// It printed more than its answer can be.
    TooMuchOutput,
}

/// What a reader thread has read so far.
#[derive(Default)]
struct Captured {
    bytes: Mutex<Vec<u8>>,
    /// More than the limit came (standard output only).
    over: AtomicBool,
    /// The pipe reached its end (or reading stopped).
    done: AtomicBool,
}

impl Captured {
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.bytes.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Reads `pipe` into `into` on a thread of its own: up to `limit` bytes
/// (then it stops and marks `over`), or, with `tail`, to the end keeping
/// only the last `limit` bytes.
fn reader(mut pipe: impl Read + Send + 'static, limit: usize, tail: bool) -> Arc<Captured> {
    let into = Arc::new(Captured::default());
    let shared = into.clone();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 << 10];
        loop {
            let n = match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let mut bytes = shared.bytes.lock().unwrap_or_else(|e| e.into_inner());
            if !tail && bytes.len() + n > limit {
                shared.over.store(true, Ordering::SeqCst);
                break;
            }
            bytes.extend_from_slice(&buf[..n]);
            if tail && bytes.len() > 2 * limit {
                let cut = bytes.len() - limit;
                bytes.drain(..cut);
            }
        }
        shared.done.store(true, Ordering::SeqCst);
    });
    into
}

/// Runs `cmd` (the harness) within `bounds`.
pub fn run(mut cmd: Command, bounds: Bounds) -> Result<HarnessFinished, Stopped> {
    cmd.process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    sys::die_with_this_thread(&mut cmd);
    let mut child = cmd.spawn().map_err(Stopped::NotStarted)?;
    let group = child.id();
    let out = reader(
        child.stdout.take().expect("piped"),
        bounds.stdout_bytes,
        false,
    );
    let err = reader(child.stderr.take().expect("piped"), STDERR_TAIL, true);
    let start = Instant::now();
    let status = loop {
        let why = if super::interrupt::interrupted() {
            Some(Stopped::Interrupted)
        } else if out.over.load(Ordering::SeqCst) {
            Some(Stopped::TooMuchOutput)
        } else if start.elapsed() > bounds.time {
            Some(Stopped::TimedOut)
        } else {
            None
        };
        if let Some(why) = why {
            end_group(&mut child, group);
            return Err(why);
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => std::thread::sleep(POLL),
            Err(_) => {
                end_group(&mut child, group);
                return Err(Stopped::Interrupted);
            }
        }
    };
    // Its pipes end when the last process holding them does; a child of it
    // may hold them, so the group gets a moment, then is ended.
    let both_done = || out.done.load(Ordering::SeqCst) && err.done.load(Ordering::SeqCst);
    wait_until(AFTER_EXIT, &both_done);
    end_group(&mut child, group);
    wait_until(GRACE, &both_done);
    if out.over.load(Ordering::SeqCst) {
        return Err(Stopped::TooMuchOutput);
    }
    Ok(HarnessFinished {
        status,
        stdout: out.take(),
        stderr_tail: String::from_utf8_lossy(&err.take()).into_owned(),
    })
}

/// Polls `done` until it holds or `limit` passes.
fn wait_until(limit: Duration, done: &impl Fn() -> bool) {
    let start = Instant::now();
    while !done() && start.elapsed() < limit {
        std::thread::sleep(POLL);
    }
}

/// Ends every process of the harness's group: SIGTERM, then SIGKILL to
/// what is left a second later; the harness itself is reaped.
fn end_group(child: &mut Child, group: u32) {
    let gone = |child: &mut Child| {
        let _ = child.try_wait();
        !sys::group_alive(group)
    };
    if gone(child) {
        return;
    }
    let _ = sys::stop_process_group(group, sys::Stop::Terminate);
    let start = Instant::now();
    while !gone(child) && start.elapsed() < GRACE {
        std::thread::sleep(POLL);
    }
    if !gone(child) {
        let _ = sys::stop_process_group(group, sys::Stop::Kill);
    }
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("/bin/sh");
        c.args(["-c", script]);
        c
    }

    const ROOMY: Bounds = Bounds {
        time: Duration::from_secs(30),
        stdout_bytes: 1 << 20,
    };

    #[test]
    fn an_answer_and_the_end_of_standard_error_come_back() {
        let done = run(sh("echo answer; echo one >&2; echo last >&2"), ROOMY).unwrap();
        assert!(done.status.success());
        assert_eq!(done.stdout, b"answer\n");
        assert_eq!(done.stderr_tail, "one\nlast\n");
    }

    #[test]
    fn a_harness_that_never_answers_is_stopped_at_its_time_limit() {
        let bounds = Bounds {
            time: Duration::from_millis(300),
            ..ROOMY
        };
        assert!(matches!(
            run(sh("sleep 60"), bounds),
            Err(Stopped::TimedOut)
        ));
    }

    #[test]
    fn a_flood_is_read_no_further_than_the_limit() {
        let bounds = Bounds {
            stdout_bytes: 1 << 16,
            ..ROOMY
        };
        assert!(matches!(
            run(sh("yes"), bounds),
            Err(Stopped::TooMuchOutput)
        ));
        // Standard error is drained to its end, keeping only the tail.
        let done = run(sh("head -c 50000000 /dev/zero >&2; echo end >&2"), ROOMY).unwrap();
        assert!(done.stderr_tail.len() <= 2 * STDERR_TAIL);
        assert!(done.stderr_tail.ends_with("end\n"));
    }

    #[test]
    fn an_answer_is_read_though_a_child_keeps_the_pipe_open() {
        let done = run(sh("echo answer; sleep 60 & exit 0"), ROOMY).unwrap();
        assert_eq!(done.stdout, b"answer\n");
    }

    #[test]
    fn a_harness_that_cannot_start_says_so() {
        let cmd = Command::new("/no/such/python");
        assert!(matches!(run(cmd, ROOMY), Err(Stopped::NotStarted(_))));
    }
}
