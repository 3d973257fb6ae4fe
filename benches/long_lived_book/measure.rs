//! The measurements, each against issue 52's bound: wall times as the
//! median and range of several repetitions, sizes as bytes on disk, peak
//! memory from GNU time.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::common::{exe, load, spread};
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

/// The largest file under `path`, with its size.
fn largest_file(path: &Path) -> Option<(std::path::PathBuf, u64)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_dir() {
        return Some((path.to_path_buf(), meta.len()));
    }
    std::fs::read_dir(path)
        .ok()?
        .flatten()
        .filter_map(|e| largest_file(&e.path()))
        .max_by_key(|(_, n)| *n)
}

fn command(root: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(exe());
    c.args(args)
        .env("RESEARCH_COMPANION_ROOT", root)
        .stdin(Stdio::null());
    c
}

/// Runs `args` `reps` times; the wall times in seconds, and the standard
/// output of the last run. A run that fails (exit other than 0 or 1) is
/// printed and stops the benchmark: a benchmark of an error is no
/// benchmark.
fn timed(root: &Path, args: &[&str], reps: usize, before: impl Fn()) -> (Vec<f64>, Vec<u8>) {
    let mut times = Vec::new();
    let mut stdout = Vec::new();
    for _ in 0..reps {
        before();
        let start = Instant::now();
        let out = command(root, args).output().expect("runs");
        times.push(start.elapsed().as_secs_f64());
        assert!(
            out.status.success() || out.status.code() == Some(1),
            "{args:?}: {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        stdout = out.stdout;
    }
    (times, stdout)
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

/// Peak resident memory of one run of `args`, by GNU time (`%M`, KiB);
/// None when /usr/bin/time is not installed.
fn peak_mib(root: &Path, args: &[&str]) -> Option<f64> {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(exe())
        .args(args)
        .env("RESEARCH_COMPANION_ROOT", root)
        .stdout(Stdio::null())
        .output()
        .ok()?;
    let kib: f64 = String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()?;
    Some(kib / 1024.0)
}

/// Every measurement on the project at `root`; scratch output under `tmp`.
pub fn run(root: &Path, tmp: &Path, reps: usize) {
    println!("load average before: {}", load());
    // One untimed run of each reader first, so every timed run finds the
    // same page cache (and whatever cache the tool keeps) warm.
    let _ = timed(root, &["status"], 1, || {});

    println!("issue 52 bounds, {reps} repetitions each (median, min-max):");
    let (history, _) = timed(root, &["history", "06"], reps, || {});
    against(
        "history 06 wall time",
        seconds(&history),
        spread(&history).0,
        0.5,
        "0.5 s",
    );
    let (status, _) = timed(root, &["status"], reps, || {});
    against(
        "status wall time",
        seconds(&status),
        spread(&status).0,
        0.5,
        "0.5 s",
    );

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
        format!("{:.1} KB ({})", published as f64 / KB, seconds(&publish)),
        published as f64,
        200.0 * KB,
        "200 KB",
    );

    let site_dir = tmp.join("site");
    let site_dir_s = site_dir.to_string_lossy().into_owned();
    let site_args = ["site", "--out", site_dir_s.as_str()];
    let (site, _) = timed(root, &site_args, reps, || {
        let _ = std::fs::remove_dir_all(&site_dir);
    });
    against(
        "site wall time",
        seconds(&site),
        spread(&site).0,
        5.0,
        "5 s",
    );
    let _ = std::fs::remove_dir_all(&site_dir);
    match peak_mib(root, &site_args) {
        Some(m) => against(
            "site peak RSS",
            format!("{m:.1} MiB"),
            m * MIB,
            100.0 * MIB,
            "100 MiB",
        ),
        None => println!("  site peak RSS: unknown (no /usr/bin/time)"),
    }
    let written = tree_bytes(&site_dir);
    against(
        "site bytes written",
        format!("{:.1} MB", written as f64 / MB),
        written as f64,
        20.0 * MB,
        "20 MB",
    );
    if let Some((page, bytes)) = largest_file(&site_dir.join("pytorch-from-first-principles"))
        .or_else(|| largest_file(&site_dir))
    {
        against(
            "site: largest page",
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
