//! What `notebook run` costs beyond nbclient's own execution (run with
//! `cargo bench --bench notebook`; build is release). It prints numbers and
//! asserts nothing, since shared machines are noisy.
//!
//! Each round runs the same stored notebook twice, in turn: once as a plain
//! nbclient script would (`NotebookClient(nb, timeout=..., kernel_name=
//! "python3").execute()` in an empty folder, the whole Python process
//! timed; the kernel shut down at once, as the harness does), once through
//! `research_companion notebook run --no-record` (the whole process timed). The tool's overhead is the difference as a share
//! of the tool's wall time, per round; the median and the range over the
//! rounds are printed, with both wall times.
//!
//! The Python is RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON (else `python3`);
//! chapter 06's own notebook is used when that Python (or
//! RESEARCH_COMPANION_TEST_PYTHON) imports torch, else a small pure-Python
//! notebook this bench writes. ROUNDS sets the number of rounds (default 10).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn imports(python: &Path, modules: &str) -> bool {
    Command::new(python)
        .args(["-c", &format!("import {modules}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The Python with nbclient and ipykernel, and whether it has torch.
fn python() -> Option<(PathBuf, bool)> {
    let candidates: Vec<PathBuf> = [
        "RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON",
        "RESEARCH_COMPANION_TEST_PYTHON",
    ]
    .iter()
    .filter_map(std::env::var_os)
    .map(PathBuf::from)
    .chain([PathBuf::from("python3")])
    .filter(|p| imports(p, "nbclient, ipykernel"))
    .collect();
    let with_torch = candidates.iter().find(|p| imports(p, "torch"));
    match with_torch {
        Some(p) => Some((p.clone(), true)),
        None => candidates.first().map(|p| (p.clone(), false)),
    }
}

/// A project copied from the test fixtures; with `pure`, chapter 06's
/// notebook replaced by a pure-Python one of about a second of work.
fn project(pure: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/book-snapshots");
    copy(&from, &dir.path().join("book-snapshots"));
    if pure {
        let cells: Vec<serde_json::Value> = [
            "import time, math",
            "t = time.perf_counter()\nwhile time.perf_counter() - t < 0.5:\n    math.sqrt(2.0)",
            "time.sleep(0.5)\nprint('slept')",
            "assert sum(range(10)) == 45",
        ]
        .iter()
        .enumerate()
        .map(|(i, s)| serde_json::json!({"cell_type": "code", "id": format!("c{i}"), "metadata": {}, "execution_count": null, "outputs": [], "source": s}))
        .collect();
        let nb =
            serde_json::json!({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells});
        let file = dir.path().join("pure.ipynb");
        std::fs::write(&file, nb.to_string()).unwrap();
        let ok = Command::new(env!("CARGO_BIN_EXE_research_companion"))
            .args(["--root"])
            .arg(dir.path())
            .args(["notebook", "add", "06"])
            .arg(&file)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(ok.success());
    }
    dir
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// The current stored notebook of chapter 06 in `root`.
fn stored_notebook(root: &Path) -> PathBuf {
    let state = std::fs::read_to_string(
        root.join("book-snapshots/pytorch-from-first-principles/06/notebooks.yaml"),
    )
    .unwrap();
    let current = state
        .lines()
        .find_map(|l| l.strip_prefix("current_notebook: "))
        .unwrap()
        .trim();
    root.join("book-snapshots/pytorch-from-first-principles/06")
        .join(current)
}

/// nbclient as the harness sets it up (the same timeout, kernel, working
/// folder, and the kernel shut down at once rather than waited for).
const PLAIN_NBCLIENT: &str = "import sys, nbformat\nfrom nbclient import NotebookClient\nnb = nbformat.read(sys.argv[1], as_version=4)\nNotebookClient(nb, timeout=120, kernel_name='python3', shutdown_kernel='immediate', resources={'metadata': {'path': '.'}}).execute()\n";

fn timed(mut cmd: Command) -> Duration {
    let start = Instant::now();
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{cmd:?}");
    start.elapsed()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let Some((python, torch)) = python() else {
        println!("notebook overhead: SKIPPED, no Python here imports nbclient and ipykernel");
        return;
    };
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(10);
    let dir = project(!torch);
    let notebook = stored_notebook(dir.path());
    let which = if torch {
        "chapter 06's notebook (torch)"
    } else {
        "a pure-Python notebook (~1 s of cells)"
    };
    println!(
        "notebook overhead: {which}, {} , {rounds} rounds",
        python.display()
    );
    let (mut plain, mut tool, mut share, mut extra) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let work = tempfile::tempdir().unwrap();
        let mut c = Command::new(&python);
        c.args(["-c", PLAIN_NBCLIENT])
            .arg(&notebook)
            .current_dir(work.path());
        let p = timed(c).as_secs_f64();
        let mut c = Command::new(env!("CARGO_BIN_EXE_research_companion"));
        c.arg("--root").arg(dir.path());
        c.args(["notebook", "run", "06", "--no-record", "--python"])
            .arg(&python);
        let t = timed(c).as_secs_f64();
        plain.push(p);
        tool.push(t);
        share.push((t - p) / t);
        extra.push(t - p);
    }
    let range = |v: &[f64]| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    };
    let (plo, phi) = range(&plain);
    let (tlo, thi) = range(&tool);
    let (slo, shi) = range(&share);
    let (elo, ehi) = range(&extra);
    println!(
        "  nbclient alone:        median {:.2} s (range {plo:.2} to {phi:.2})",
        median(plain.clone())
    );
    println!(
        "  notebook run (tool):   median {:.2} s (range {tlo:.2} to {thi:.2})",
        median(tool.clone())
    );
    println!(
        "  overhead of the tool:  median {:.1}% of its wall time (range {:.1}% to {:.1}%)",
        100.0 * median(share.clone()),
        100.0 * slo,
        100.0 * shi
    );
    println!(
        "  the tool's extra time:  median {:.2} s (range {elo:.2} to {ehi:.2})",
        median(extra.clone())
    );
}
