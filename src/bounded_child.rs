//! Running a child process within bounds, for the notebook harness (the
//! PyTorch harness runs through its own, `bench::harness_runner`): a process
//! group of its own, so a terminal's Ctrl-C reaches this tool rather than
//! killing the child under it, and so the whole group can be stopped; a
//! wall-clock deadline; standard output read up to a cap (the rest drained
//! and counted, so the child never blocks on a full pipe); standard error
//! passed line by line to a callback and its last lines kept for an error
//! message. Whatever way the run ends (exit, deadline, a stop asked for, an
//! error or a panic here), the group is signalled and the child reaped
//! before [`run`] returns.

use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::sys::{self, Stop};

/// How long a child asked to stop (SIGTERM) gets before it is killed.
pub const STOP_GRACE: Duration = Duration::from_secs(3);
/// How often the child is checked on.
const POLL: Duration = Duration::from_millis(20);
/// How long the readers get to finish once the child has exited (a
/// grandchild that holds the pipes open cannot hold this tool).
const READER_GRACE: Duration = Duration::from_secs(2);

/// The bounds of one run.
#[derive(Debug, Clone, Copy)]
pub struct ChildLimits {
    /// Wall-clock time from spawn to exit.
    pub deadline: Duration,
    /// Bytes of standard output kept.
    pub max_stdout: usize,
    /// Bytes of standard error kept, from its end.
    pub stderr_tail: usize,
}

/// What a child printed.
#[derive(Debug, Default, Clone)]
pub struct Printed {
    /// Standard output, up to the cap.
    pub stdout: Vec<u8>,
    /// Bytes of standard output past the cap (read and dropped).
    pub stdout_dropped: u64,
    /// The end of standard error, lossily decoded.
    pub stderr_tail: String,
}

/// How a bounded run ended.
#[derive(Debug)]
pub enum Ended {
    /// The child exited (or was killed by a signal it did not get from us).
    Exited { status: ExitStatus },
    /// The deadline passed; the group was stopped.
    TimedOut,
    /// `stop` said so (Ctrl-C); the group was stopped.
    Stopped,
}

/// A finished bounded run.
#[derive(Debug)]
pub struct ChildFinished {
    pub ended: Ended,
    pub printed: Printed,
    /// From spawn to exit.
    pub elapsed: Duration,
}

/// The child, its group stopped and the child reaped when dropped, so no
/// path out of [`run`] leaves it running.
struct Guard {
    child: Child,
    pgid: u32,
    reaped: Option<ExitStatus>,
}

impl Guard {
    /// SIGTERM to the group, up to [`STOP_GRACE`] for the leader to exit,
    /// then SIGKILL to whatever of the group is left.
    fn stop(&mut self) {
        if self.reaped.is_none() {
            let _ = sys::stop_process_group(self.pgid, Stop::Terminate);
            let until = Instant::now() + STOP_GRACE;
            while Instant::now() < until {
                if let Ok(Some(status)) = self.child.try_wait() {
                    self.reaped = Some(status);
                    break;
                }
                std::thread::sleep(POLL);
            }
        }
        self.kill();
    }

    /// SIGKILL to the group, and the leader reaped.
    fn kill(&mut self) {
        let _ = sys::stop_process_group(self.pgid, Stop::Kill);
        if self.reaped.is_none() {
            let _ = self.child.kill();
            self.reaped = self.child.wait().ok();
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Standard output as read so far.
#[derive(Default)]
struct OutBuffer {
    kept: Vec<u8>,
    dropped: u64,
}

/// Runs `cmd` (its standard input closed) within `limits`. `on_line` gets
/// each line of standard error as it comes (from another thread); `stop` is
/// asked between checks whether to give up (Ctrl-C). The group is stopped
/// once the leader exits too, so nothing the child started in its group
/// outlives the run.
pub fn run(
    mut cmd: Command,
    limits: ChildLimits,
    on_line: Arc<dyn Fn(&str) + Send + Sync>,
    stop: &dyn Fn() -> bool,
) -> io::Result<ChildFinished> {
    cmd.process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd.spawn()?;
    let pgid = child.id();
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let mut guard = Guard {
        child,
        pgid,
        reaped: None,
    };
    let out = Arc::new(Mutex::new(OutBuffer::default()));
    let tail = Arc::new(Mutex::new(Vec::new()));
    let readers = [
        read_capped(stdout, limits.max_stdout, Arc::clone(&out)),
        read_lines(stderr, limits.stderr_tail, Arc::clone(&tail), on_line),
    ];
    let ended = loop {
        if let Some(status) = guard.child.try_wait()? {
            guard.reaped = Some(status);
            break Ended::Exited { status };
        }
        if started.elapsed() >= limits.deadline {
            guard.stop();
            break Ended::TimedOut;
        }
        if stop() {
            guard.stop();
            break Ended::Stopped;
        }
        std::thread::sleep(POLL);
    };
    let elapsed = started.elapsed();
    guard.kill();
    let until = Instant::now() + READER_GRACE;
    for reader in readers {
        while !reader.is_finished() && Instant::now() < until {
            std::thread::sleep(POLL);
        }
        if reader.is_finished() {
            let _ = reader.join();
        }
    }
    let (stdout, stdout_dropped) = {
        let b = out.lock().unwrap_or_else(|e| e.into_inner());
        (b.kept.clone(), b.dropped)
    };
    let stderr_tail =
        String::from_utf8_lossy(&tail.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
    Ok(ChildFinished {
        ended,
        printed: Printed {
            stdout,
            stdout_dropped,
            stderr_tail,
        },
        elapsed,
    })
}

/// Reads `from` to its end, keeping the first `cap` bytes.
fn read_capped(
    mut from: impl Read + Send + 'static,
    cap: usize,
    into: Arc<Mutex<OutBuffer>>,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 64 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let mut b = into.lock().unwrap_or_else(|e| e.into_inner());
            let room = cap.saturating_sub(b.kept.len()).min(n);
            b.kept.extend_from_slice(&buf[..room]);
            b.dropped += (n - room) as u64;
        }
    })
}

/// Reads `from` to its end, line by line: each line to `on_line` (a line
/// longer than `keep` is passed cut), the last `keep` bytes kept.
fn read_lines(
    mut from: impl Read + Send + 'static,
    keep: usize,
    tail: Arc<Mutex<Vec<u8>>>,
    on_line: Arc<dyn Fn(&str) + Send + Sync>,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        let mut line: Vec<u8> = Vec::new();
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            {
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                t.extend_from_slice(&buf[..n]);
                let excess = t.len().saturating_sub(keep);
                t.drain(..excess);
            }
            for &byte in &buf[..n] {
                if byte == b'\n' {
                    on_line(&String::from_utf8_lossy(&line));
                    line.clear();
                } else if line.len() < keep.max(1) {
                    line.push(byte);
                }
            }
        }
        if !line.is_empty() {
            on_line(&String::from_utf8_lossy(&line));
        }
    })
}

/// Whether `program` can be started: a path with a `/` must be an
/// executable file, a bare name must be one on `PATH`. Checked before a
/// command says what it is about to run, so a missing Python is one line
/// of error rather than a progress line and then the error.
pub fn findable(program: &std::path::Path) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind};
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.components().count() > 1 || program.is_absolute() {
        return match std::fs::metadata(program) {
            Err(e) => Err(e),
            Ok(_) if executable(program) => Ok(()),
            Ok(_) => Err(Error::new(
                ErrorKind::PermissionDenied,
                "not an executable file",
            )),
        };
    }
    let on_path = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| executable(&dir.join(program))));
    if on_path {
        Ok(())
    } else {
        Err(Error::new(ErrorKind::NotFound, "not found on PATH"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        c
    }

    fn limits(deadline_ms: u64) -> ChildLimits {
        ChildLimits {
            deadline: Duration::from_millis(deadline_ms),
            max_stdout: 10,
            stderr_tail: 8,
        }
    }

    fn quiet() -> Arc<dyn Fn(&str) + Send + Sync> {
        Arc::new(|_: &str| {})
    }

    #[test]
    fn output_is_capped_and_the_rest_counted() {
        let f = run(
            sh("printf 0123456789abcdef"),
            limits(10_000),
            quiet(),
            &|| false,
        )
        .unwrap();
        assert!(matches!(f.ended, Ended::Exited { status } if status.success()));
        assert_eq!(f.printed.stdout, b"0123456789");
        assert_eq!(f.printed.stdout_dropped, 6);
    }

    #[test]
    fn standard_error_comes_line_by_line_and_its_end_is_kept() {
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        let seen = Arc::clone(&lines);
        let f = run(
            sh("echo one >&2; echo two >&2; printf three >&2; exit 3"),
            limits(10_000),
            Arc::new(move |l: &str| seen.lock().unwrap().push(l.to_string())),
            &|| false,
        )
        .unwrap();
        assert!(matches!(f.ended, Ended::Exited { status } if status.code() == Some(3)));
        assert_eq!(*lines.lock().unwrap(), ["one", "two", "three"]);
        assert_eq!(f.printed.stderr_tail, "wo\nthree");
    }

    #[test]
    fn a_child_past_its_deadline_is_stopped_with_what_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("grandchild.pid");
        // A grandchild in the same group, that would outlive its parent.
        let script = format!(
            "sleep 30 & echo $! > {}; echo started; wait",
            marker.display()
        );
        let f = run(sh(&script), limits(500), quiet(), &|| false).unwrap();
        assert!(matches!(f.ended, Ended::TimedOut), "{:?}", f.ended);
        assert!(f.elapsed < Duration::from_secs(10));
        let pid = std::fs::read_to_string(&marker).unwrap();
        let alive = std::path::Path::new(&format!("/proc/{}", pid.trim())).exists()
            && !std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
                .unwrap_or_default()
                .contains(") Z ");
        assert!(!alive, "the grandchild {pid} outlived the run");
    }

    #[test]
    fn a_stop_asked_for_ends_the_run() {
        let f = run(sh("sleep 30"), limits(60_000), quiet(), &|| true).unwrap();
        assert!(matches!(f.ended, Ended::Stopped));
        assert!(f.elapsed < Duration::from_secs(10));
    }

    #[test]
    fn a_grandchild_holding_the_pipes_cannot_hold_the_run() {
        // setsid puts the grandchild out of the group, as a Jupyter kernel is.
        let script = "setsid sleep 5 & echo done";
        let t = Instant::now();
        let f = run(sh(script), limits(60_000), quiet(), &|| false).unwrap();
        assert!(matches!(f.ended, Ended::Exited { .. }));
        assert_eq!(f.printed.stdout, b"done\n");
        assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
    }
}
