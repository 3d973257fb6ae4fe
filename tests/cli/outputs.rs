//! Snapshot tests of what commands print, from fixed inputs: the fixture
//! experiment's run file through every bench export and `diff`, its
//! environment through `env`'s table, and the fixture records through
//! `publish`. A change to any of these layouts shows up as a reviewed diff.

use research_companion::bench::{BenchRun, export};

use crate::helpers::{CHAPTER, Project, fixtures, stderr, stdout};

/// The fixture experiment's run file: ten configurations, measured.
fn fixture_run_path() -> std::path::PathBuf {
    fixtures().join(format!(
        "records/{CHAPTER}/20261102T120000-bbbbbbbbbbbb.run.yaml"
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

/// The fixture run beside a changed copy: another hand-off, one configuration
/// missing, and the spinning 8-worker row's step split the other way.
fn changed_copy(p: &Project) -> std::path::PathBuf {
    let mut run = fixture_run();
    run.settings.transport = research_companion::bench::Transport::Queue;
    run.results
        .retain(|r| !(r.producer.to_string() == "sleep" && r.workers == 4));
    let row = &mut run
        .results
        .iter_mut()
        .find(|r| r.producer.to_string() == "spin" && r.workers == 8)
        .unwrap()
        .summary;
    row.wait_mean_ms = 28.0;
    row.work_ms = 44.0;
    row.wait_frac = 28.0 / 72.0;
    p.write("changed.run.yaml", run.to_yaml().unwrap())
}

#[test]
fn compare_text_of_the_fixture_run_and_a_changed_copy() {
    let p = Project::seeded();
    let b = changed_copy(&p);
    let out = p
        .cmd()
        .arg("compare")
        .arg(fixture_run_path())
        .arg(&b)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out)
        .replace(&fixture_run_path().display().to_string(), "A.run.yaml")
        .replace(&b.display().to_string(), "B.run.yaml");
    insta::assert_snapshot!(text);
}

#[test]
fn compare_json_names_what_differs_and_what_is_unpaired() {
    let p = Project::with_fixture_records();
    let b = changed_copy(&p);
    // A recorded run id works where a file does.
    let out = p
        .cmd()
        .args([
            "compare",
            "pytorch-from-first-principles:06:20261102T120000:bbbbbbbbbbbb",
        ])
        .arg(&b)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["run_differences"][0], "transport: pipe vs queue", "{v}");
    assert_eq!(v["unpaired"][0], "sleep workers=4 (A only)");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 9);
    let spin8 = rows
        .iter()
        .find(|r| r["producer"] == "spin" && r["workers"] == 8)
        .unwrap();
    let differences = spin8["differences"].as_array().unwrap();
    assert!(
        differences
            .iter()
            .any(|d| d.as_str().unwrap().starts_with("wait_frac")),
        "{spin8}"
    );
    // Rows that did not change say nothing.
    let spin0 = rows
        .iter()
        .find(|r| r["producer"] == "spin" && r["workers"] == 0)
        .unwrap();
    assert_eq!(spin0["differences"].as_array().unwrap().len(), 0);
    assert_eq!(spin0["ex_per_s"]["ratio"], 1.0);
}

#[test]
fn compare_refuses_what_is_not_a_run() {
    let p = Project::seeded();
    let junk = p.write("junk.yaml", "just: words\n");
    for (arg, says) in [
        (junk.display().to_string(), "junk.yaml"),
        (
            "no-such-file.yaml".to_string(),
            "'no-such-file.yaml' is neither a run file nor a recorded run id",
        ),
    ] {
        let out = p
            .cmd()
            .args(["compare", &arg])
            .arg(fixture_run_path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{arg}");
        let e = stderr(&out);
        assert!(e.contains(says), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}
