//! Whole-process benchmarks of the performance targets (run with
//! `cargo bench --bench cli`; build is release). They print numbers; they
//! assert nothing, because shared machines are noisy.
//!
//! Sections (name some after `--` to run only those, e.g. `cargo bench
//! --bench cli -- fingerprint scale`; `RESEARCH_COMPANION_BENCH_BASELINE`
//! names an earlier build to time beside this one):
//! - `fingerprint`: four kinds of 64 MiB text against `openssl dgst
//!   -sha256`, interleaved, with peak memory (GNU time; [`fingerprint`]);
//! - `scale`: the table scan and the snapshot diff at the sizes issue 26
//!   names ([`scale`]);
//! - `hostile`:
//!   `fingerprint` on hostile inputs: nested references at 1 and 2 MB (the
//!   time must double, not quadruple), and 70 and 140 MiB of `é` (the peak
//!   memory must stay flat);
//!   and `--version` start-up time;
//! - `history`: `history` and `status` over 10,000 generated records;
//! - `shape`: the shape of the chapter's experiment at small costs on one CPU: the
//!   speed-ups, the wait/work split and the verdicts (timing, so printed
//!   here rather than asserted in a test);
//! - `cpu-bound`: chapter 06's spinning pipeline over a steady-state window
//!   of 100 measured steps on one CPU, at 0, 1, 2, 4 and 8 workers, against
//!   what one CPU allows (32 x 2 ms + 8 ms of CPU a step: 444 ex/s); on the
//!   real DataLoader too when `RESEARCH_COMPANION_BENCH_PYTHON` names a
//!   Python with torch (not part of a default run: it takes minutes).

#[path = "cli/common.rs"]
mod common;
#[path = "cli/fingerprint.rs"]
mod fingerprint;
#[path = "cli/scale.rs"]
mod scale;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{copy_tree, exe, mib};

/// Runs a command `n` times; returns the median wall time.
fn time(n: usize, mut make: impl FnMut() -> Command) -> Duration {
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let start = Instant::now();
            let status = make()
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("runs");
            assert!(status.success() || status.code() == Some(1));
            start.elapsed()
        })
        .collect();
    times.sort();
    times[n / 2]
}

/// Hostile inputs, then `--version` start-up time.
fn hostile_bench(dir: &Path) {
    hostile_inputs(dir);
    let version = time(31, || {
        let mut c = Command::new(exe());
        c.arg("--version");
        c
    });
    println!("--version: {:.2} ms", version.as_secs_f64() * 1e3);
}

/// Inputs built to defeat a normalizer: time must grow with the size, and
/// memory must not.
fn hostile_inputs(dir: &Path) {
    fn fingerprint(file: &Path) -> impl FnMut() -> Command + '_ {
        move || {
            let mut c = Command::new(exe());
            c.arg("fingerprint").arg(file);
            c
        }
    }
    for mb in [1usize, 2] {
        let file = dir.join(format!("nested-{mb}.txt"));
        std::fs::write(&file, format!("&{}", "amp;".repeat(mb * 250_000))).unwrap();
        let t = time(5, fingerprint(&file));
        println!(
            "fingerprint, `&` then `amp;` x {}: {:.3} s",
            mb * 250_000,
            t.as_secs_f64()
        );
    }
    for mib_size in [70usize, 140] {
        let file = dir.join(format!("eacute-{mib_size}.txt"));
        std::fs::write(&file, "\u{e9}".repeat(mib_size << 19)).unwrap();
        let t = time(3, fingerprint(&file));
        let rss = common::peak_rss_kib(exe().as_ref(), &["fingerprint".as_ref(), file.as_os_str()]);
        println!(
            "fingerprint, {mib_size} MiB of e-acute: {:.3} s, peak RSS {}",
            t.as_secs_f64(),
            mib(rss)
        );
        std::fs::remove_file(&file).unwrap();
    }
}

fn history_bench(root: &Path) {
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/book-snapshots"),
        &root.join("book-snapshots"),
    );
    let report = root.join("report.md");
    std::fs::write(&report, "## 1. Context and provenance\n## 2. Claim audit\n").unwrap();
    let ok = Command::new(exe())
        .args(["record", "06", "--report"])
        .arg(&report)
        .env("RESEARCH_COMPANION_ROOT", root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(ok.success());
    let dir = root.join("records/pytorch-from-first-principles/06");
    let first: PathBuf = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".record.yaml"))
        .unwrap();
    let template = std::fs::read_to_string(&first).unwrap();
    let name = first.file_name().unwrap().to_string_lossy().into_owned();
    let stem = name.trim_end_matches(".record.yaml");
    let (stamp, hex) = stem.split_once('-').unwrap();
    for i in 1..10_000u32 {
        let new_hex = format!("{i:012x}");
        let text = template.replace(&format!("{stamp}:{hex}"), &format!("{stamp}:{new_hex}"));
        std::fs::write(dir.join(format!("{stamp}-{new_hex}.record.yaml")), text).unwrap();
    }
    for cmd in ["history", "status"] {
        let t = time(5, || {
            let mut c = Command::new(exe());
            c.arg(cmd).env("RESEARCH_COMPANION_ROOT", root);
            c
        });
        println!("{cmd} over 10,000 records: {:.3} s", t.as_secs_f64());
    }
}

/// The chapter's two findings at small costs (0.5 ms/sample, batch 8,
/// consumer 1 ms, 0 and 4 workers, one CPU): a sleeping producer scales, a
/// spinning one does not, and its time moves into the step.
fn shape_bench(root: &Path) {
    let out = Command::new(exe())
        .current_dir(root)
        .args([
            "bench",
            "--producer",
            "sleep,spin",
            "--cost-ms",
            "0.5",
            "--batch-size",
            "8",
            "--consumer-ms",
            "1",
            "--workers",
            "0,4",
            "--batches",
            "200",
            "--cpus",
            "1",
            "--repeat",
            "3",
            "--format",
            "json",
        ])
        .stderr(Stdio::null())
        .output()
        .expect("bench runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON run");
    let row = |producer: &str, workers: u64| {
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["producer"] == producer && r["workers"] == workers)
            .map(|r| r["summary"].clone())
            .unwrap()
    };
    let f = |r: &serde_json::Value, k: &str| r[k].as_f64().unwrap();
    for producer in ["sleep", "spin"] {
        let (w0, w4) = (row(producer, 0), row(producer, 4));
        println!(
            "{producer}: ex/s {:.0} -> {:.0} ({:.2}x, ideal {:.2}x); wait {:.2} -> {:.2} ms; work {:.2} -> {:.2} ms; verdict at 4 workers: {}",
            f(&w0, "ex_per_s"),
            f(&w4, "ex_per_s"),
            f(&w4, "ex_per_s") / f(&w0, "ex_per_s"),
            f(&w4, "bound_ex_per_s") / f(&w0, "bound_ex_per_s"),
            f(&w0, "wait_mean_ms"),
            f(&w4, "wait_mean_ms"),
            f(&w0, "work_ms"),
            f(&w4, "work_ms"),
            w4["verdict"].as_str().unwrap_or("?"),
        );
    }
}

/// The spinning pipeline's steady-state ex/s on one CPU against the CPU
/// bound, on each engine it can run: the window must hold neither the
/// pipeline's fill nor its drain, so no row may pass what the CPU can do.
fn cpu_bound_bench(root: &Path) {
    let bound = 1000.0 * 32.0 / (32.0 * 2.0 + 8.0);
    let mut engines = vec![("embedded", None)];
    if let Ok(python) = std::env::var("RESEARCH_COMPANION_BENCH_PYTHON") {
        engines.push(("pytorch", Some(python)));
    }
    for (engine, python) in engines {
        let mut cmd = Command::new(exe());
        cmd.current_dir(root).args([
            "bench",
            "--producer",
            "spin",
            "--workers",
            "0,1,2,4,8",
            "--batches",
            "100",
            "--cpus",
            "1",
            "--engine",
            engine,
            "--format",
            "json",
        ]);
        if let Some(python) = python {
            cmd.args(["--python", &python]);
        }
        let out = cmd.stderr(Stdio::null()).output().expect("bench runs");
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&out.stdout) else {
            println!("cpu-bound {engine}: no run ({})", out.status);
            continue;
        };
        for r in v["results"].as_array().into_iter().flatten() {
            let ex = r["summary"]["ex_per_s"].as_f64().unwrap_or(f64::NAN);
            println!(
                "cpu-bound {engine}: spin {} workers: {ex:.0} ex/s over {} steps, x{:.3} of the {bound:.0} one CPU allows{}",
                r["workers"],
                r["summary"]["batches"],
                ex / bound,
                if ex > bound * 1.02 { "  ABOVE" } else { "" }
            );
        }
    }
}

fn main() {
    // `cargo bench` passes --bench; `cargo test` builds benches but runs none.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |s: &str| named.is_empty() || named.iter().any(|n| n == s);
    let dir = tempfile::tempdir().unwrap();
    if wanted("fingerprint") {
        fingerprint::run(dir.path());
    }
    if wanted("scale") {
        scale::run(dir.path());
    }
    if wanted("hostile") {
        hostile_bench(dir.path());
    }
    if wanted("history") {
        history_bench(&dir.path().join("project"));
    }
    if wanted("shape") {
        shape_bench(dir.path());
    }
    // Minutes on one CPU: only when named.
    if named.iter().any(|n| n == "cpu-bound") {
        cpu_bound_bench(dir.path());
    }
}
