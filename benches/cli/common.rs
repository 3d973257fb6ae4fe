//! What the benchmark sections share: the binary under test, an optional
//! baseline binary to run side by side, timing with a repeat count, and
//! the median and spread of what was timed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_research_companion")
}

/// The variable naming a build of an earlier version (for the before and
/// after of a change: `cargo build --release` at that commit).
pub const BASELINE_ENV: &str = "RESEARCH_COMPANION_BENCH_BASELINE";

/// The baseline binary, when the variable names one.
pub fn baseline() -> Option<PathBuf> {
    std::env::var_os(BASELINE_ENV)
        .map(PathBuf::from)
        .filter(|p| p.exists())
}

/// The binaries to compare: this build, then the baseline if any.
pub fn builds() -> Vec<(&'static str, PathBuf)> {
    let mut v = vec![("after", PathBuf::from(exe()))];
    if let Some(b) = baseline() {
        v.push(("before", b));
    }
    v
}

/// Runs `cmd` once to its end, or kills it after `cap`; its wall time, or
/// None when it was stopped. A failing run (exit status other than 0 or
/// 1) panics: a benchmark of an error is no benchmark.
pub fn time_once(mut cmd: Command, cap: Duration) -> Option<Duration> {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("runs");
    loop {
        if let Some(status) = child.try_wait().expect("waits") {
            assert!(
                status.success() || status.code() == Some(1),
                "{cmd:?}: {status}"
            );
            return Some(start.elapsed());
        }
        if start.elapsed() > cap {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Median, smallest and largest of `xs` (not empty).
pub fn spread(xs: &[f64]) -> (f64, f64, f64) {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    (median, v[0], v[n - 1])
}

/// "median (min-max)" of seconds, in milliseconds.
pub fn ms(xs: &[f64]) -> String {
    let (m, lo, hi) = spread(xs);
    format!("{:.1} ms ({:.1}-{:.1})", m * 1e3, lo * 1e3, hi * 1e3)
}

/// Peak resident memory of `exe args` in KiB, measured by GNU time. (A
/// child of this process would count this process's pages too: the peak
/// survives fork and exec.) None when /usr/bin/time is not installed.
pub fn peak_rss_kib(exe: &Path, args: &[&std::ffi::OsStr]) -> Option<u64> {
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg(exe)
        .args(args)
        .stdout(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}

pub fn mib(kib: Option<u64>) -> String {
    kib.map_or("unknown (no /usr/bin/time)".into(), |k| {
        format!("{:.1} MiB", k as f64 / 1024.0)
    })
}

/// The machine's load average over the last minute, to print beside
/// figures taken on a shared machine.
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".into())
}

/// A small deterministic generator (xorshift), so every run benchmarks
/// the same text.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// The fixtures' chapter 06 snapshot (the bench never reads the working
/// tree's book-snapshots/, which a user may have changed).
pub fn chapter_06_prose() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/book-snapshots/pytorch-from-first-principles/06/snapshots/0001-a7d34947a6b4.txt",
    ))
    .unwrap()
}
