//! Work that used to grow with the square of the input (issue 26, items 2
//! and 3), timed at the sizes the issue names, for this build and, when
//! `RESEARCH_COMPANION_BENCH_BASELINE` names one, an earlier build:
//! - the table scan: `chapter new` of one line of 12,500, 50,000 and
//!   100,000 table-like fragments (`=== producer=xxx… `);
//! - the snapshot diff: `snapshot diff` of two revisions of 40,000 and
//!   160,000 words with nothing in common, and of 1 MB of chapter 06's
//!   prose with one word in forty changed.
//!
//! A build is run five times at a size, or once when its first run takes
//! over five seconds; a run past a minute is stopped and printed as
//! such (the old diff took minutes at 160,000 words).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::common::{builds, chapter_06_prose, copy_tree, load, ms, time_once};

const CAP: Duration = Duration::from_secs(60);

/// A fresh project holding the fixtures' chapters.
fn project(dir: &Path) -> tempfile::TempDir {
    let root = tempfile::tempdir_in(dir).unwrap();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/book-snapshots"),
        &root.path().join("book-snapshots"),
    );
    root
}

/// Times `timed` (given a fresh project that `setup` prepared) with every
/// build; prints one line per build.
fn each_build(
    dir: &Path,
    what: &str,
    setup: &dyn Fn(&Path, &Path),
    timed: &dyn Fn(&Path) -> Vec<String>,
) {
    for (label, exe) in builds() {
        let mut secs = Vec::new();
        let mut stopped = false;
        for round in 0..5 {
            let root = project(dir);
            setup(&exe, root.path());
            let mut c = Command::new(&exe);
            c.args(timed(root.path()))
                .env("RESEARCH_COMPANION_ROOT", root.path());
            match time_once(c, CAP) {
                Some(t) => secs.push(t.as_secs_f64()),
                None => {
                    stopped = true;
                    break;
                }
            }
            if round == 0 && secs[0] > 5.0 {
                break;
            }
        }
        let shown = if stopped {
            format!("stopped after {} s", CAP.as_secs())
        } else {
            ms(&secs)
        };
        println!("  {what}, {label}: {shown} ({} runs)", secs.len().max(1));
    }
}

fn run_ok(exe: &Path, root: &Path, args: &[&str]) {
    let out = Command::new(exe)
        .args(args)
        .env("RESEARCH_COMPANION_ROOT", root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn table_scan(dir: &Path) {
    println!("table scan, `chapter new` (load average {}):", load());
    let fragment = format!("=== producer={} ", "x".repeat(100));
    for n in [12_500, 50_000, 100_000] {
        let file = dir.join(format!("frags-{n}.txt"));
        std::fs::write(&file, fragment.repeat(n)).unwrap();
        let args = move |_: &Path| -> Vec<String> {
            [
                "chapter",
                "new",
                "systems-notes/07",
                file.to_str().unwrap(),
                "--title",
                "T",
                "--book-title",
                "B",
            ]
            .map(String::from)
            .to_vec()
        };
        each_build(dir, &format!("{n} fragments"), &|_, _| {}, &args);
    }
}

fn snapshot_diff(dir: &Path) {
    println!("snapshot diff (load average {}):", load());
    let words =
        |prefix: &str, n: usize| -> String { (0..n).map(|i| format!("{prefix}{i} ")).collect() };
    let prose = {
        let piece = chapter_06_prose();
        let mut text = String::new();
        while text.len() < 1 << 20 {
            text.push_str(&piece);
        }
        text
    };
    let edited: String = prose
        .split(' ')
        .enumerate()
        .map(|(i, w)| if i % 40 == 7 { "EDITED" } else { w })
        .collect::<Vec<_>>()
        .join(" ");
    let cases = [
        (
            "40,000 words, all different",
            words("a", 40_000),
            words("b", 40_000),
        ),
        (
            "160,000 words, all different",
            words("a", 160_000),
            words("b", 160_000),
        ),
        ("1 MB of chapter 06, 1 word in 40 changed", prose, edited),
    ];
    for (k, (what, a, b)) in cases.into_iter().enumerate() {
        let (fa, fb) = (
            dir.join(format!("diff-{k}-a.txt")),
            dir.join(format!("diff-{k}-b.txt")),
        );
        std::fs::write(&fa, a).unwrap();
        std::fs::write(&fb, b).unwrap();
        let setup = |exe: &Path, root: &Path| {
            for f in [&fa, &fb] {
                run_ok(exe, root, &["snapshot", "add", "06", f.to_str().unwrap()]);
            }
        };
        let args = |_: &Path| ["snapshot", "diff", "06"].map(String::from).to_vec();
        each_build(dir, what, &setup, &args);
    }
}

pub fn run(dir: &Path) {
    table_scan(dir);
    snapshot_diff(dir);
}
