//! The measurements, each against issue 52's bound: wall times as the
//! median and range of several repetitions, sizes as bytes on disk, peak
//! memory from GNU time.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::common::{baseline, exe, load, spread};
use super::generate::Book;

const KB: f64 = 1000.0;
const MB: f64 = 1000.0 * 1000.0;
const MIB: f64 = 1024.0 * 1024.0;

/// What the generator made.
pub fn describe(book: &Book) {
    println!(
        "long-lived book at {}: {} records of chapter 06 ({} experiments, {} research runs, {} notebook runs; {} retracted) over {} revisions, {:.0} MB",
        book.root.display(),
        book.records,
        book.experiments,
        book.research,
        book.notebooks,
        book.retracted,
        book.revisions,
        book.bytes as f64 / MB
    );
}

/// Total bytes of the files under `path` (a file's own size when it is one).
fn tree_bytes(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| tree_bytes(&e.path()))
        .sum()
}

/// The largest HTML file under `path`, with its size.
fn largest_html(path: &Path) -> Option<(std::path::PathBuf, u64)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_dir() {
        let html = path.extension().is_some_and(|e| e == "html");
        return html.then(|| (path.to_path_buf(), meta.len()));
    }
    std::fs::read_dir(path)
        .ok()?
        .flatten()
        .filter_map(|e| largest_html(&e.path()))
        .max_by_key(|(_, n)| *n)
}

/// One run of a command: its wall time, the CPU time it used (user and
/// system, all its threads), and its peak resident memory, both by GNU
/// time (None without /usr/bin/time).
struct Run {
    wall: f64,
    cpu: Option<f64>,
    peak_mib: Option<f64>,
}

/// Runs `args` `reps` times (each after `before`), under GNU time when it
/// is installed; each run, and the standard output of the last. A run that
/// fails (exit other than 0 or 1) stops the benchmark: a benchmark of an
/// error is no benchmark.
fn timed(root: &Path, args: &[&str], reps: usize, before: impl Fn()) -> (Vec<Run>, Vec<u8>) {
    timed_with(Path::new(exe()), root, args, reps, before)
}

/// [`timed`] with another build of the tool.
fn timed_with(
    bin: &Path,
    root: &Path,
    args: &[&str],
    reps: usize,
    before: impl Fn(),
) -> (Vec<Run>, Vec<u8>) {
    let gnu_time = Path::new("/usr/bin/time").exists();
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut runs = Vec::new();
    let mut stdout = Vec::new();
    for _ in 0..reps {
        before();
        let mut cmd = if gnu_time {
            let mut c = Command::new("/usr/bin/time");
            c.args(["-f", "%U %S %M", "-o"]).arg(report.path()).arg(bin);
            c
        } else {
            Command::new(bin)
        };
        cmd.args(args)
            .env("RESEARCH_COMPANION_ROOT", root)
            .stdin(Stdio::null());
        let start = Instant::now();
        let out = cmd.output().expect("runs");
        let wall = start.elapsed().as_secs_f64();
        assert!(
            out.status.success() || out.status.code() == Some(1),
            "{args:?}: {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let fields: Vec<f64> = std::fs::read_to_string(report.path())
            .unwrap_or_default()
            .lines()
            .last()
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        let (cpu, peak_mib) = match fields[..] {
            [user, system, kib] if gnu_time => (Some(user + system), Some(kib / 1024.0)),
            _ => (None, None),
        };
        runs.push(Run {
            wall,
            cpu,
            peak_mib,
        });
        stdout = out.stdout;
    }
    (runs, stdout)
}

fn walls(runs: &[Run]) -> Vec<f64> {
    runs.iter().map(|r| r.wall).collect()
}

/// "median s (min-max, n runs)", then the median CPU time, which a loaded
/// machine inflates far less than the wall time.
fn seconds_cpu(runs: &[Run]) -> String {
    let cpu: Vec<f64> = runs.iter().filter_map(|r| r.cpu).collect();
    let mut text = seconds(&walls(runs));
    if !cpu.is_empty() {
        text.push_str(&format!("; CPU {:.3} s", spread(&cpu).0));
    }
    text
}

/// "median s (min-max, n runs)".
fn seconds(xs: &[f64]) -> String {
    let (m, lo, hi) = spread(xs);
    format!("{m:.3} s ({lo:.3}-{hi:.3}, {} runs)", xs.len())
}

/// One line: what, the figure, the bound, and whether it holds.
fn against(what: &str, shown: String, value: f64, bound: f64, bound_shown: &str) {
    let verdict = if value <= bound { "within" } else { "OVER" };
    println!("  {what:<34} {shown:<36} bound {bound_shown:<9} {verdict}");
}

/// Every measurement on the project at `root`; scratch output under `tmp`.
pub fn run(root: &Path, tmp: &Path, reps: usize) {
    println!("load average before: {}", load());
    // One untimed run of each reader first, so every timed run finds the
    // same page cache (and the record cache) warm.
    let _ = timed(root, &["status"], 1, || {});

    println!("issue 52 bounds, {reps} repetitions each (wall: median, min-max; CPU: median):");
    for (what, args) in [
        ("history 06", &["history", "06"][..]),
        ("status", &["status"][..]),
    ] {
        let (runs, _) = timed(root, args, reps, || {});
        against(
            &format!("{what} wall time"),
            seconds_cpu(&runs),
            spread(&walls(&runs)).0,
            0.5,
            "0.5 s",
        );
        // An earlier build beside this one (RESEARCH_COMPANION_BENCH_BASELINE).
        if let Some(before) = baseline() {
            let (runs, _) = timed_with(&before, root, args, reps, || {});
            println!("    the baseline build: {}", seconds_cpu(&runs));
        }
    }

    let (_, prompt) = timed(root, &["prompt", "06"], 1, || {});
    against(
        "prompt 06 size",
        format!("{:.1} KB", prompt.len() as f64 / KB),
        prompt.len() as f64,
        64.0 * KB,
        "64 KB",
    );

    let publish_dir = tmp.join("publish-site");
    let publish_dir_s = publish_dir.to_string_lossy().into_owned();
    let (publish, _) = timed(root, &["publish", "--site", &publish_dir_s], 1, || {});
    let chapter_file =
        publish_dir.join("content/research/chapters/pytorch-from-first-principles/06.yaml");
    let published = tree_bytes(&chapter_file);
    against(
        "publish --site: chapter 06's file",
        format!(
            "{:.1} KB (in {})",
            published as f64 / KB,
            seconds_cpu(&publish)
        ),
        published as f64,
        200.0 * KB,
        "200 KB",
    );

    let site_dir = tmp.join("site");
    let site_dir_s = site_dir.to_string_lossy().into_owned();
    let (site, _) = timed(root, &["site", "--out", site_dir_s.as_str()], reps, || {
        let _ = std::fs::remove_dir_all(&site_dir);
    });
    against(
        "site wall time",
        seconds_cpu(&site),
        spread(&walls(&site)).0,
        5.0,
        "5 s",
    );
    let peaks: Vec<f64> = site.iter().filter_map(|r| r.peak_mib).collect();
    if peaks.is_empty() {
        println!("  site peak RSS: unknown (no /usr/bin/time)");
    } else {
        let (m, lo, hi) = spread(&peaks);
        against(
            "site peak RSS",
            format!("{m:.1} MiB ({lo:.1}-{hi:.1})"),
            m * MIB,
            100.0 * MIB,
            "100 MiB",
        );
    }
    let written = tree_bytes(&site_dir);
    against(
        "site bytes written",
        format!("{:.1} MB", written as f64 / MB),
        written as f64,
        20.0 * MB,
        "20 MB",
    );
    // The chapter page: the largest HTML file the site wrote.
    if let Some((page, bytes)) = largest_html(&site_dir) {
        against(
            "site: chapter page (largest HTML)",
            format!(
                "{:.1} KB ({})",
                bytes as f64 / KB,
                page.strip_prefix(&site_dir).unwrap_or(&page).display()
            ),
            bytes as f64,
            500.0 * KB,
            "500 KB",
        );
    }
    println!("load average after: {}", load());
}
