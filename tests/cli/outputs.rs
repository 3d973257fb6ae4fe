//! Snapshot tests of what commands print, from fixed inputs: the fixture
//! experiment's run file through every bench export and `diff`, its
//! environment through `env`'s table, and the fixture records through
//! `publish`. A change to any of these layouts shows up as a reviewed diff.

use research_companion::bench::{BenchRun, export};

use crate::helpers::{CHAPTER, Project, repo, stderr, stdout};

/// The fixture experiment's run file: ten configurations, measured.
fn fixture_run_path() -> std::path::PathBuf {
    repo().join(format!(
        "tests/fixtures/records/{CHAPTER}/20261102T120000-bbbbbbbbbbbb.run.yaml"
    ))
}

fn fixture_run() -> BenchRun {
    BenchRun::load(&fixture_run_path()).unwrap()
}

#[test]
fn bench_text_in_the_chapters_layout() {
    let run = fixture_run();
    insta::assert_snapshot!(export::text(&run, false) + &export::footer(&run));
}

#[test]
fn bench_text_wide() {
    insta::assert_snapshot!(export::text(&fixture_run(), true));
}

#[test]
fn bench_markdown() {
    insta::assert_snapshot!(export::markdown(&fixture_run(), false));
}

#[test]
fn bench_csv() {
    insta::assert_snapshot!(export::csv(&fixture_run()).unwrap());
}

#[test]
fn env_table() {
    insta::assert_snapshot!(research_companion::env::render_table(
        &fixture_run().environment
    ));
}

/// The verdicts first (the same renderer reproduce uses for each chapter),
/// then the measured tables, then the cells (asked for), then the audit.
#[test]
fn diff_text_of_the_fixture_run() {
    let p = Project::seeded();
    let out = p
        .cmd()
        .arg("diff")
        .arg(fixture_run_path())
        .arg("--cells")
        .output()
        .unwrap();
    assert!(out.status.code() != Some(2), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn publish_with_the_fixture_records() {
    let p = Project::with_fixture_records();
    let out = p.cmd().args(["publish", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));
}
