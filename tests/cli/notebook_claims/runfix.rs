//! What the new user of issue 53 ran into (defects 4, 8, 9 of the trial):
//! an error in claims.yaml's notebook claims stops `reproduce` and
//! `notebook run` before any kernel starts, with the claims.yaml line
//! `claims check` gives, even on a chapter without tables; what only a run
//! shows is said claim by claim; and `notebook run` prints each claim's
//! verdict.

use std::path::{Path, PathBuf};

use super::{BOOK, CLAIMS_01, claims_path, tiny_book, write_claims};
use super::{KernelBook, kernel_book};
use crate::helpers::{Project, stderr, stdout};

/// A Python no test here reaches: each refuses before a kernel starts.
const NO_PYTHON: &str = "/nonexistent/python-never-started";

/// Chapter 01's claims with `from` replaced by `to`.
fn claims_01_with(from: &str, to: &str) -> String {
    assert!(CLAIMS_01.contains(from), "{from}");
    CLAIMS_01.replace(from, to)
}

/// Every file under records/ and runs/ (nothing stored, when empty).
fn stored(p: &Project) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = e.path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&p.path("records"), &mut out);
    walk(&p.path("runs"), &mut out);
    out
}

/// `ARGS` in `p`.
fn run(p: &Project, args: &[&str]) -> std::process::Output {
    p.cmd().args(args).output().unwrap()
}

/// Refused with exit 2 and one error line holding `wanted`, nothing stored.
fn refused(p: &Project, args: &[&str], wanted: &[&str]) -> String {
    let before = stored(p);
    let out = run(p, args);
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?}: {}\n{err}",
        stdout(&out)
    );
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{args:?}: one line: {err}");
    for w in wanted {
        assert!(lines[0].contains(w), "{args:?}: wants {w:?}: {err}");
    }
    assert!(!err.contains("no published tables"), "{err}");
    assert_eq!(stored(p), before, "{args:?}: nothing stored");
    lines[0].to_string()
}

#[test]
fn reproduce_on_a_chapter_without_tables_gives_the_claims_yaml_error_of_a_bad_pattern() {
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    let file = claims_path(&p, "01").display().to_string();
    write_claims(
        &p,
        "01",
        &claims_01_with(
            "params: {cell: count, label: 'params:'}",
            "params: {cell: count, pattern: '(params: [0-9]+'}",
        ),
    );
    let key = format!("{BOOK}/01");
    let line = refused(
        &p,
        &["reproduce", &key, "--python", NO_PYTHON],
        &[
            &file,
            "line ",
            "claim 'params-110'",
            "field 'reads.params.pattern'",
        ],
    );
    // The same line `claims check` gives.
    let check = run(&p, &["claims", "check", &key]);
    let said = format!("{}{}", stdout(&check), stderr(&check));
    let message = line.trim_start_matches("error: ");
    assert!(said.contains(message), "{message}\n{said}");
}

#[test]
fn reproduce_on_a_chapter_without_tables_gives_the_claims_yaml_error_of_an_undeclared_metric() {
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    let file = claims_path(&p, "01").display().to_string();
    write_claims(
        &p,
        "01",
        &claims_01_with("metric: nb.params", "metric: nb.y"),
    );
    refused(
        &p,
        &["reproduce", &format!("{BOOK}/01"), "--python", NO_PYTHON],
        &[&file, "claim 'params-110'", "field 'metric'"],
    );
}

#[test]
fn a_read_of_a_cell_the_notebook_lacks_or_of_a_markdown_cell_refuses_before_any_kernel() {
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    let file = claims_path(&p, "01").display().to_string();
    let key = format!("{BOOK}/01");
    for (cell, why) in [
        ("nope", "has no code cell with"),
        ("m-count", "a markdown cell"),
    ] {
        write_claims(
            &p,
            "01",
            &claims_01_with("{cell: count,", &format!("{{cell: {cell},")),
        );
        let wanted = [
            file.as_str(),
            "line ",
            "claim 'params-110'",
            "field 'reads.params.cell'",
            why,
        ];
        refused(
            &p,
            &["notebook", "run", &key, "--python", NO_PYTHON],
            &wanted,
        );
        refused(
            &p,
            &["notebook", "run", "--all", "--python", NO_PYTHON],
            &wanted,
        );
        refused(&p, &["reproduce", &key, "--python", NO_PYTHON], &wanted);
        refused(&p, &["reproduce", &key], &wanted);
    }
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn notebook_run_prints_each_claims_verdict_and_points_to_claims_check_for_a_misread() {
    let Some(KernelBook {
        python,
        p,
        turn: _turn,
    }) = kernel_book(
        "notebook_run_prints_each_claims_verdict_and_points_to_claims_check_for_a_misread",
    )
    else {
        return;
    };
    let key = format!("{BOOK}/01");
    let py = python.to_str().unwrap();
    let out = run(&p, &["notebook", "run", &key, "--python", py]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    assert!(
        text.contains("  notebook claims (1):\n    params-110: REPRODUCED"),
        "{text}"
    );
    assert!(!text.contains("claims check"), "{text}");
    // A pattern that matches three times: only the run shows it.
    write_claims(
        &p,
        "01",
        &claims_01_with(
            "params: {cell: count, label: 'params:'}",
            "params: {cell: count, pattern: '([0-9])'}",
        ),
    );
    let pointer = format!(
        "claims.yaml: the run could not read what 1 claim(s) ask (params-110); fix the reads, see `research_companion claims check {key}`"
    );
    let out = run(&p, &["notebook", "run", &key, "--python", py]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    assert!(
        text.contains("    params-110: INCONCLUSIVE") && text.contains("reads.params.pattern"),
        "{text}"
    );
    assert!(text.contains(&format!("  {pointer}\n")), "{text}");
    let out = run(&p, &["reproduce", &key, "--python", py]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    assert!(text.contains("  params-110: INCONCLUSIVE"), "{text}");
    assert!(text.contains(&format!("  {pointer}\n")), "{text}");
}
