//! Notebooks run in real Jupyter kernels. They need a Python with nbclient
//! and ipykernel: RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON names it
//! (`.ci/run` makes one in a virtual environment), else `python3` if it has
//! them. Without one these tests are counted as ignored (the build script
//! sets `rc_no_kernel`, docs/testing.md), unless
//! RESEARCH_COMPANION_REQUIRE_NOTEBOOK_KERNEL is set (CI sets it), when a
//! missing kernel fails them. Chapter 06's real notebook runs when that
//! Python (or RESEARCH_COMPANION_TEST_PYTHON) can import torch too. Few
//! kernels start (each takes a second or two), and they take turns with
//! the other tests that load the machine.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{code, notebook, run, run_passing};
use crate::helpers::{CHAPTER, Project, exclusive, stderr, stdout};

/// The Python the kernel tests use.
pub const NOTEBOOK_PYTHON_ENV: &str = "RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON";

/// Set (CI sets it): a missing notebook Python fails the kernel tests.
pub const REQUIRE_KERNEL_ENV: &str = "RESEARCH_COMPANION_REQUIRE_NOTEBOOK_KERNEL";

fn imports(python: &Path, modules: &str) -> bool {
    std::process::Command::new(python)
        .args(["-c", &format!("import {modules}")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The Python with nbclient and ipykernel, or None after saying SKIPPED
/// (or a panic, where CI requires the kernel).
pub(crate) fn kernel_python(test: &str) -> Option<PathBuf> {
    let candidate = std::env::var_os(NOTEBOOK_PYTHON_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"));
    if imports(&candidate, "nbclient, ipykernel") {
        return Some(candidate);
    }
    let why = format!(
        "{} cannot import nbclient and ipykernel (set {NOTEBOOK_PYTHON_ENV} to a Python that can: \
         python3 -m venv DIR && DIR/bin/pip install nbclient ipykernel)",
        candidate.display()
    );
    if std::env::var_os(REQUIRE_KERNEL_ENV).is_some() {
        panic!("{test}: {REQUIRE_KERNEL_ENV} is set, but {why}");
    }
    eprintln!("SKIPPED {test}: {why}");
    None
}

/// Stores `nb` as chapter 06's current notebook.
fn add(p: &Project, name: &str, nb: &str) {
    super::without_notebook_claims(p);
    p.write(name, nb);
    let out = p
        .cmd()
        .args(["notebook", "add", "06", name])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "notebook add {name}: {}",
        stderr(&out)
    );
    assert!(
        stdout(&out).starts_with("stored notebooks/0002-"),
        "{}",
        stdout(&out)
    );
}

/// The run file of chapter 06's only notebook record.
fn run_file(p: &Project) -> Value {
    let dir = p.path(&format!("records/{CHAPTER}"));
    let file = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|f| f.to_string_lossy().ends_with(".notebook.yaml"))
        .expect("a notebook run file");
    serde_yaml::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

const PASSING: [(&str, &str); 3] = [
    ("setup", "import os, sys\nx = 21"),
    (
        "where",
        "print('cwd', os.getcwd())\nprint('home', os.path.expanduser('~'))\nprint('prefix', sys.prefix)",
    ),
    ("check", "assert x * 2 == 42\nprint('the answer holds')"),
];

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_passing_notebook_is_recorded_and_shows_wherever_the_evidence_does() {
    let Some(python) =
        kernel_python("a_passing_notebook_is_recorded_and_shows_wherever_the_evidence_does")
    else {
        return;
    };
    let _g = exclusive();
    let p = Project::with_fixture_records();
    add(
        &p,
        "pass.ipynb",
        &notebook(PASSING.iter().map(|(i, s)| code(i, s)).collect()),
    );
    let out = run_passing(&p, &python, &["06", "--cell-timeout", "60"]);
    let text = stdout(&out);
    assert!(
        text.contains("PASS: 3 of 3 code cells passed (1 with assertions), 1 fresh kernel"),
        "{text}"
    );
    assert!(
        text.contains("recorded pytorch-from-first-principles:06:"),
        "{text}"
    );
    assert!(stderr(&out).contains("a notebook is code, and runs with your permissions"));
    // What the cells printed travels without this machine's folders.
    let run = run_file(&p);
    let where_ = &run["runs"][0]["cells"][1];
    assert_eq!(where_["outcome"], "ok");
    let printed = where_["output"].as_str().unwrap();
    assert!(printed.contains("cwd <workdir>\n"), "{printed}");
    assert!(printed.contains("prefix <python>\n"), "{printed}");
    let home = std::env::var("HOME").unwrap();
    assert!(!printed.contains(&home), "{printed}");
    assert!(!printed.contains(p.root().to_str().unwrap()), "{printed}");
    assert_eq!(run["verdict"], "PASS");
    assert_eq!(run["totals"]["assertion_cells"], 1);
    assert!(run["versions"]["nbclient"].is_string());
    // The run is evidence wherever the chapter's evidence shows.
    let status = stdout(&p.cmd().arg("status").output().unwrap());
    assert!(status.contains("notebook PASS notebooks/0002-"), "{status}");
    let history = stdout(&p.cmd().args(["history", "06"]).output().unwrap());
    assert!(
        history.contains("notebook    ") && history.contains("PASS: 3 of 3 code cells"),
        "{history}"
    );
    let prompt = stdout(&p.cmd().args(["prompt", "06"]).output().unwrap());
    assert!(
        prompt.contains(
            "--- check: PASS, with assertions ---\n>>> assert x * 2 == 42\nthe answer holds"
        ),
        "{prompt}"
    );
    let report = stdout(
        &p.cmd()
            .args(["report", "06"])
            .env("RESEARCH_COMPANION_NOW", "2026-12-01T00:00:00Z")
            .output()
            .unwrap(),
    );
    assert!(
        report.contains("run in a fresh kernel: PASS in pytorch-from-first-principles:06:"),
        "{report}"
    );
    let published = stdout(&p.cmd().args(["publish", "06"]).output().unwrap());
    assert!(published.contains("section: notebook"), "{published}");
    let md = stdout(&p.cmd().args(["notebook", "report"]).output().unwrap());
    let row = md
        .lines()
        .find(|l| l.starts_with("| pytorch-from-first-principles/06 |"))
        .unwrap();
    assert!(
        row.contains("| PASS |") && row.contains("| 3 | 1 | 0 | 0 |"),
        "{row}"
    );
    let json: Value = serde_json::from_slice(
        &p.cmd()
            .args(["notebook", "report", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(json["rows"][0]["status"], "PASS");
    p.cmd().args(["site", "--out", "site"]).assert().success();
    let page = std::fs::read_to_string(p.path(&format!("site/{CHAPTER}.html"))).unwrap();
    assert!(
        page.contains("<section id=\"notebook\">") && page.contains("the answer holds"),
        "{page}"
    );
    // The run is in the page's history, with its run file linked.
    assert!(page.contains(".notebook.yaml\">run file</a>"), "{page}");
    // A notebook saved after running keeps its fingerprint: nothing stored.
    let mut saved: Value =
        serde_json::from_str(&std::fs::read_to_string(p.path("pass.ipynb")).unwrap()).unwrap();
    saved["cells"][3]["outputs"] =
        json!([{"output_type": "stream", "name": "stdout", "text": "the answer holds\n"}]);
    saved["cells"][3]["execution_count"] = json!(3);
    p.write("saved.ipynb", saved.to_string());
    let out = p
        .cmd()
        .args(["notebook", "add", "06", "saved.ipynb"])
        .output()
        .unwrap();
    assert!(
        stdout(&out)
            .starts_with("unchanged: the notebook has the current one's fingerprint nb-v1:"),
        "{}",
        stdout(&out)
    );
    // And once the notebook changes, the run is STALE.
    add_third(&p);
    let status = stdout(&p.cmd().arg("status").output().unwrap());
    assert!(
        status.contains("notebook STALE notebooks/0003-")
            && status.contains("(the notebook changed since the run"),
        "{status}"
    );
}

fn add_third(p: &Project) {
    p.write("changed.ipynb", notebook(vec![code("only", "print(1)")]));
    let out = p
        .cmd()
        .args(["notebook", "add", "06", "changed.ipynb"])
        .output()
        .unwrap();
    assert!(
        stdout(&out).starts_with("stored notebooks/0003-"),
        "{}",
        stdout(&out)
    );
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn failures_stop_the_notebook_and_two_kernels_run_at_once() {
    let Some(python) = kernel_python("failures_stop_the_notebook_and_two_kernels_run_at_once")
    else {
        return;
    };
    let _g = exclusive();
    let p = Project::seeded();
    // Chapter 06: an assertion fails in the third code cell.
    add(
        &p,
        "assert.ipynb",
        &notebook(vec![
            code("a", "x = 1"),
            code("b", "print('x is', x)"),
            code("c", "assert x == 2, 'x is not two'"),
            code("d", "print('never')"),
        ]),
    );
    // A chapter of another book, registered with its notebook: it raises.
    p.write("07.txt", "A chapter with no tables.");
    p.write("raise.ipynb", notebook(vec![code("boom", "{}['missing']")]));
    let out = p
        .cmd()
        .args([
            "chapter",
            "new",
            "systems-notes/07",
            "07.txt",
            "--title",
            "Queues",
            "--book-title",
            "Systems Notes",
        ])
        .args(["--notebook", "raise.ipynb"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("  notebook: notebooks/0001-"),
        "{}",
        stdout(&out)
    );
    let manifest =
        std::fs::read_to_string(p.path("book-snapshots/systems-notes/07/chapter.yaml")).unwrap();
    assert!(
        manifest.contains("kind: notebook\n  url: raise.ipynb"),
        "{manifest}"
    );
    let out = run(&p, &python, &["--all", "--jobs", "2", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let runs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let by = |chapter: &str| {
        runs.as_array()
            .unwrap()
            .iter()
            .find(|r| r["chapter"] == chapter)
            .unwrap()["run"]
            .clone()
    };
    let first = by(CHAPTER);
    assert_eq!(first["verdict"], "FAIL");
    let cells = &first["runs"][0]["cells"];
    assert_eq!(cells[2]["outcome"], "error");
    assert_eq!(cells[2]["ename"], "AssertionError");
    assert_eq!(cells[2]["evalue"], "x is not two");
    assert_eq!(cells[3]["outcome"], "not_reached");
    assert_eq!(first["totals"]["not_reached"], 1);
    // A traceback is kept as plain text, without terminal colours.
    let traceback = cells[2]["output"].as_str().unwrap();
    assert!(
        traceback.contains("AssertionError: x is not two") && !traceback.contains('\u{1b}'),
        "{traceback}"
    );
    let second = by("systems-notes/07");
    assert_eq!(second["verdict"], "FAIL");
    assert_eq!(second["runs"][0]["cells"][0]["ename"], "KeyError");
    let status = stdout(&p.cmd().arg("status").output().unwrap());
    assert!(status.contains("notebook FAIL notebooks/0002-"), "{status}");
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn an_endless_cell_is_stopped_by_the_cell_timeout() {
    let Some(python) = kernel_python("an_endless_cell_is_stopped_by_the_cell_timeout") else {
        return;
    };
    let _g = exclusive();
    let p = Project::seeded();
    add(
        &p,
        "loop.ipynb",
        &notebook(vec![
            code("spin", "while True:\n    pass"),
            code("after", "print(1)"),
        ]),
    );
    let started = std::time::Instant::now();
    // With the root given as a relative path, as `--root .` gives it.
    let out = p
        .expect([] as [&str; 0])
        .env("RESEARCH_COMPANION_ROOT", ".")
        .args(["notebook", "run", "06", "--cell-timeout", "2", "--python"])
        .arg(&python)
        .code(1)
        .run();
    let text = out.stdout();
    assert!(text.contains("spin FAIL (timed out)"), "{text}");
    assert!(text.contains("NOT_REACHED"), "{text}");
    let run = run_file(&p);
    assert_eq!(run["runs"][0]["cells"][0]["outcome"], "timeout");
    // Bounded by the cell timeout, not by the harness's own deadline.
    assert!(started.elapsed() < std::time::Duration::from_secs(100));
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_cell_that_fails_on_odd_runs_is_flaky_with_its_pass_rate() {
    let Some(python) = kernel_python("a_cell_that_fails_on_odd_runs_is_flaky_with_its_pass_rate")
    else {
        return;
    };
    let _g = exclusive();
    let p = Project::seeded();
    let counter = tempfile::tempdir().unwrap();
    let cell = "import os, uuid\nd = os.environ['RC_TEST_FLAKY_DIR']\nopen(os.path.join(d, uuid.uuid4().hex), 'w').close()\nruns = len(os.listdir(d))\nassert runs % 2 == 0, f'run {runs} is odd'";
    add(
        &p,
        "flaky.ipynb",
        &notebook(vec![
            code("counter", cell),
            code("after", "print('reached')"),
        ]),
    );
    let out = p
        .expect([] as [&str; 0])
        .env("RC_TEST_FLAKY_DIR", counter.path())
        .args(["notebook", "run", "06", "--repeat", "2", "--python"])
        .arg(&python)
        .code(1)
        .run();
    let text = out.stdout();
    assert!(
        text.contains("FLAKY: 2 of 2 code cells passed")
            || text.contains("FLAKY: 1 of 2 code cells passed"),
        "{text}"
    );
    assert!(text.contains("counter FLAKY, passed 1 of 2 runs"), "{text}");
    let report = stdout(&p.cmd().args(["notebook", "report"]).output().unwrap());
    assert!(report.contains("| FLAKY |"), "{report}");
    let status = stdout(&p.cmd().arg("status").output().unwrap());
    assert!(status.contains("notebook FLAKY"), "{status}");
}

/// A Python that has nbclient, ipykernel and torch, for chapter 06's
/// notebook.
fn torch_python() -> Option<PathBuf> {
    [NOTEBOOK_PYTHON_ENV, "RESEARCH_COMPANION_TEST_PYTHON"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .chain([PathBuf::from("python3")])
        .find(|p| imports(p, "nbclient, ipykernel, torch"))
}

#[test]
#[cfg_attr(
    rc_no_kernel_torch,
    ignore = "needs a notebook Python that imports torch too: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn chapter_06s_own_notebook_runs_and_passes_where_torch_is_installed() {
    let Some(python) = torch_python() else {
        eprintln!(
            "SKIPPED chapter_06s_own_notebook_runs_and_passes_where_torch_is_installed: no Python here \
             imports nbclient, ipykernel and torch (set {NOTEBOOK_PYTHON_ENV} or RESEARCH_COMPANION_TEST_PYTHON to one that does)"
        );
        return;
    };
    let _g = exclusive();
    let p = Project::seeded();
    let out = run_passing(&p, &python, &["06"]);
    let text = stdout(&out);
    assert!(
        text.contains("PASS: 7 of 7 code cells passed (3 with assertions), 1 fresh kernel"),
        "{text}"
    );
    let run = run_file(&p);
    assert!(run["versions"]["torch"].is_string());
    let e1 = run["runs"][0]["cells"][1]["output"].as_str().unwrap();
    assert!(
        e1.starts_with("keep_last: 7 batches, last=(4, 4)\ndrop_last: 6 batches, last=(16, 4)\n"),
        "{e1}"
    );
}
