//! `reproduce` decides a chapter's notebook claims beside its pipeline
//! claims: the notebook runs in fresh kernels only with an explicit
//! `--python` (without it the claims are UNRUN, with the reason), its run is
//! kept in the same record as the pipeline's (or in a notebook record of its
//! own when the chapter publishes no tables), and `reproduce --all` says
//! which kinds of evidence each chapter has.

use std::path::{Path, PathBuf};

use super::{BOOK, tiny_book};
use super::{KernelBook, kernel_book};
use crate::helpers::{Project, exclusive, stderr, stdout};
use crate::notebook::kernel::kernel_python;

/// The record files of chapter `key` (`book/ch`), parsed, oldest first.
fn records(p: &Project, key: &str) -> Vec<serde_yaml::Value> {
    let dir = p.path(&format!("records/{key}"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.retain(|f| f.to_string_lossy().ends_with(".record.yaml"));
    files.sort();
    files
        .iter()
        .map(|f| serde_yaml::from_str(&std::fs::read_to_string(f).unwrap()).unwrap())
        .collect()
}

/// `reproduce ARGS` in `p`.
fn reproduce(p: &Project, args: &[&str], python: Option<&Path>) -> std::process::Output {
    let mut cmd = p.cmd();
    cmd.arg("reproduce").args(args);
    if let Some(py) = python {
        cmd.arg("--python").arg(py);
    }
    cmd.output().unwrap()
}

/// The quick pipeline settings a test can afford.
const CHEAP: [&str; 6] = ["--batches", "2", "--rounds", "1", "--budget", "0"];

#[test]
fn without_python_the_notebook_claims_are_unrun_with_the_reason_and_nothing_is_stored() {
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    let out = reproduce(&p, &["tiny-book/01"], None);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    assert!(
        text.starts_with("tiny-book/01  notebook claims (1): 1 UNRUN  (not recorded)\n  the notebook was not run: give --python P, a Python with nbclient, ipykernel and what the notebook imports\n  params-110 (notebook cell count)\n"),
        "{text}"
    );
    assert!(records(&p, "tiny-book/01").is_empty(), "nothing stored");
    let json = reproduce(&p, &["tiny-book/01", "--format", "json"], None);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let claim = &v["notebooks"][0]["claims"][0];
    assert_eq!(v["notebooks"][0]["ran"], false, "{v}");
    assert_eq!(claim["verdict"], "UNRUN", "{v}");
    assert!(
        claim["reason"]
            .as_str()
            .unwrap()
            .starts_with("the notebook was not run: give --python P"),
        "{v}"
    );
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn reproduce_decides_a_chapters_notebook_claims_into_one_notebook_record() {
    let Some(python) =
        kernel_python("reproduce_decides_a_chapters_notebook_claims_into_one_notebook_record")
    else {
        return;
    };
    let _turn = exclusive();
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    let out = reproduce(&p, &["tiny-book/01", "--kernels", "2"], Some(&python));
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    let stored = records(&p, "tiny-book/01");
    assert_eq!(stored.len(), 1, "one record");
    let record = &stored[0];
    let run_id = record["run_id"].as_str().unwrap();
    assert_eq!(record["kind"].as_str(), Some("notebook"));
    let claim = &record["notebook"]["claims"][0];
    assert_eq!(claim["verdict"].as_str(), Some("REPRODUCED"), "{record:?}");
    assert_eq!(claim["measured"].as_f64(), Some(110.0));
    assert!(
        text.starts_with(&format!(
            "tiny-book/01  notebook claims (1): 1 REPRODUCED, in 2 fresh kernel(s)  (recorded {run_id})\n  params-110: REPRODUCED: nb.params = 110 in each of 2 kernels (notebook cell count printed `params: 110`); the text states 110, a run must give exactly 110\n"
        )),
        "{text}"
    );
    // The readers take the record as they take `notebook run`'s.
    for args in [
        vec!["history", "tiny-book/01"],
        vec!["status"],
        vec!["verify"],
    ] {
        let o = p.cmd().args(&args).output().unwrap();
        assert!(
            o.status.code() == Some(0) || o.status.code() == Some(1),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("error"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_cell_that_fails_in_some_kernels_makes_its_claims_inconclusive_with_the_reason() {
    let Some(KernelBook {
        python,
        p,
        turn: _turn,
    }) = kernel_book(
        "a_cell_that_fails_in_some_kernels_makes_its_claims_inconclusive_with_the_reason",
    )
    else {
        return;
    };
    let out = reproduce(
        &p,
        &["tiny-book/03", "--kernels", "4", "--no-record"],
        Some(&python),
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    assert!(
        text.contains("  flaky-kernel: INCONCLUSIVE: ")
            && text.contains("cell 'flaky' raised AssertionError in kernel 1"),
        "{text}"
    );
    assert!(
        text.contains("  mean-near-1.05: ") && text.contains("nb.mean varies across 4 kernels"),
        "{text}"
    );
    assert!(records(&p, "tiny-book/03").is_empty(), "--no-record");
    // --strict fails on an INCONCLUSIVE notebook claim as on a pipeline one.
    let strict = reproduce(
        &p,
        &["tiny-book/03", "--kernels", "4", "--no-record", "--strict"],
        Some(&python),
    );
    assert_eq!(strict.status.code(), Some(1), "{}", stderr(&strict));
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn reproduce_all_names_each_chapters_kinds_of_evidence() {
    let Some(KernelBook {
        python,
        p,
        turn: _turn,
    }) = kernel_book("reproduce_all_names_each_chapters_kinds_of_evidence")
    else {
        return;
    };
    let mut args = vec!["--all", "--kernels", "2", "--no-record"];
    args.extend(CHEAP);
    let out = reproduce(&p, &args, Some(&python));
    let text = stdout(&out);
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    let evidence = text
        .split("Each chapter's evidence\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    for line in [
        "  pytorch-from-first-principles/06: pipeline tables (2), notebook claims (4)\n",
        &format!("  {BOOK}/01: notebook claims (1)\n"),
        &format!("  {BOOK}/02: nothing to reproduce (no tables, no notebook claims)\n"),
        &format!("  {BOOK}/03: notebook claims (2)\n"),
    ] {
        assert!(evidence.contains(line), "{line}\n{text}");
    }
    assert!(
        text.contains("tiny-book/01  notebook claims (1): 1 REPRODUCED, in 2 fresh kernel(s)"),
        "{text}"
    );
}

/// A Python with nbclient, ipykernel and torch, for chapter 06's notebook.
fn torch_python() -> Option<PathBuf> {
    [
        "RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON",
        "RESEARCH_COMPANION_TEST_PYTHON",
    ]
    .iter()
    .filter_map(std::env::var_os)
    .map(PathBuf::from)
    .chain([PathBuf::from("python3")])
    .find(|p| {
        std::process::Command::new(p)
            .args(["-c", "import nbclient, ipykernel, torch"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

#[test]
#[cfg_attr(
    rc_no_kernel_torch,
    ignore = "needs a notebook Python with nbclient, ipykernel and torch: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn chapter_06_keeps_its_pipeline_verdicts_and_notebook_claims_in_one_record() {
    let Some(python) = torch_python() else {
        eprintln!(
            "SKIPPED chapter_06_keeps_its_pipeline_verdicts_and_notebook_claims_in_one_record: no Python here imports nbclient, ipykernel and torch"
        );
        return;
    };
    let _turn = exclusive();
    let p = Project::seeded();
    let mut args = vec!["pytorch-from-first-principles/06", "--kernels", "2"];
    args.extend(CHEAP);
    let out = reproduce(&p, &args, Some(&python));
    let text = stdout(&out);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{text}\n{}",
        stderr(&out)
    );
    let stored = records(&p, "pytorch-from-first-principles/06");
    assert_eq!(stored.len(), 1, "one run, one record");
    let record = &stored[0];
    assert_eq!(record["kind"].as_str(), Some("experiment"));
    assert_eq!(
        record["experiment"]["verdicts"]
            .as_sequence()
            .unwrap()
            .len(),
        6,
        "the pipeline's verdicts"
    );
    let claims = record["notebook"]["claims"].as_sequence().unwrap();
    let verdicts: Vec<(&str, &str)> = claims
        .iter()
        .map(|c| (c["claim"].as_str().unwrap(), c["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("nb-keep-last-7-batches", "REPRODUCED"),
            ("nb-keep-last-last-batch-4", "REPRODUCED"),
            ("nb-drop-last-6-batches", "REPRODUCED"),
            ("nb-slow-producer-3x", "REPRODUCED"),
        ],
        "{text}"
    );
    // Both evidence files under the record's stem, each with the sha256
    // the record holds for it.
    let stem = record["experiment"]["file"]
        .as_str()
        .unwrap()
        .strip_suffix(".run.yaml")
        .unwrap();
    assert_eq!(
        record["notebook"]["file"].as_str(),
        Some(format!("{stem}.notebook.yaml").as_str())
    );
    let run_id = record["run_id"].as_str().unwrap();
    assert!(
        text.contains(&format!(
            "  notebook claims (4): 4 REPRODUCED, in 2 fresh kernel(s)  (kept in record {run_id})\n    nb-keep-last-7-batches: REPRODUCED: nb.keep = 7 in each of 2 kernels (notebook cell c06-e1code printed `keep_last: 7 batches, last=(4, 4)`)"
        )),
        "{text}"
    );
    for args in [
        vec!["verify"],
        vec!["history", "pytorch-from-first-principles/06"],
        vec!["status"],
    ] {
        let o = p.cmd().args(&args).output().unwrap();
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(
            !stderr(&o).contains("no longer matches"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}
