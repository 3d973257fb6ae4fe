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
        .expect([] as [&str; 0])
        .arg("compare")
        .arg(fixture_run_path())
        .arg(&b)
        .success()
        .run();
    let text = out
        .stdout()
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
        .expect([
            "compare",
            "pytorch-from-first-principles:06:20261102T120000:bbbbbbbbbbbb",
        ])
        .arg(&b)
        .args(["--format", "json"])
        .success()
        .run();
    let v: serde_json::Value = serde_json::from_str(&out.stdout()).unwrap();
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

/// The fixture run in six rounds: every round's ex/s at `scale` times the
/// fixture's, 1% apart from round to round, and its wait_frac moved by
/// `frac` (the spin rows moved by `frac` plus a spread of 0.3 over the
/// rounds).
fn in_six_rounds(p: &Project, name: &str, scale: f64, frac: f64) -> std::path::PathBuf {
    use research_companion::bench::{ProducerKind, stats};
    let mut run = fixture_run();
    for c in &mut run.results {
        let first = c.repeats[0].clone();
        let spread = if c.producer == ProducerKind::Spin {
            0.3
        } else {
            0.0
        };
        c.repeats = (1..=6)
            .map(|round| {
                let mut r = first.clone();
                let step = (round as f64 - 1.0) / 5.0;
                r.round = Some(round);
                r.row.ex_per_s *= scale * (1.0 + 0.05 * step);
                r.row.wait_frac = (r.row.wait_frac + frac + spread * (step - 0.5)).clamp(0.0, 1.0);
                r.row.outside = Some(0.01);
                r
            })
            .collect();
        c.summary = stats::summarize(&c.repeats);
    }
    run.settings.rounds = 6;
    p.write(name, run.to_yaml().unwrap())
}

#[test]
fn compare_reads_each_rows_interval_over_rounds_against_the_bands() {
    let p = Project::seeded();
    let a = in_six_rounds(&p, "a.run.yaml", 1.0, 0.0);
    let b = in_six_rounds(&p, "b.run.yaml", 1.3, 0.02);
    let compare = |extra: &[&str]| {
        let out = p
            .expect([] as [&str; 0])
            .arg("compare")
            .arg(&a)
            .arg(&b)
            .args(extra)
            .success()
            .run();
        out.stdout()
    };
    let json: serde_json::Value =
        serde_json::from_str(&compare(&["--ratio-band", "1.1", "--format", "json"])).unwrap();
    assert_eq!(json["bands"]["ratio"], 1.1);
    assert_eq!(json["bands"]["wait_frac"], 0.1, "the default band");
    let row = |producer: &str, workers: u64| {
        json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["producer"] == producer && r["workers"] == workers)
            .unwrap()["over_rounds"]
            .clone()
    };
    // 30% faster in every round, beyond the 5% spread: apart.
    let ex = &row("sleep", 2)["ex_per_s_ratio"];
    assert_eq!(ex["reading"], "apart", "{ex}");
    assert_eq!(ex["interval"]["rounds_a"], 6);
    let low = ex["interval"]["low"].as_f64().unwrap();
    assert!((1.2..1.3).contains(&low), "{ex}");
    // 0.02 more waiting: within 0.1 where the rounds agree, and too noisy
    // to tell where they spread by 0.3.
    assert_eq!(row("sleep", 2)["wait_frac_difference"]["reading"], "within");
    assert_eq!(
        row("spin", 2)["wait_frac_difference"]["reading"],
        "cannot_tell"
    );
    let text = compare(&["--ratio-band", "1.1"]);
    assert!(
        text.contains("95% over rounds (6 and 6): ex/s B/A 1."),
        "{text}"
    );
    assert!(
        text.contains(": apart (outside x0.91 to x1.1); wait_frac B-A "),
        "{text}"
    );
    assert!(
        text.contains(": cannot tell (across an edge of \u{b1}0.1)"),
        "{text}"
    );
    assert!(
        text.contains("ex/s B/A against x0.91 to x1.1: within in 0, apart in 10, cannot tell in 0; wait_frac B-A against \u{b1}0.1: within in 5, apart in 0, cannot tell in 5"),
        "{text}"
    );
    // The fixture itself has one round: no interval, and the text says what
    // one needs.
    let out = p
        .cmd()
        .arg("compare")
        .arg(fixture_run_path())
        .arg(&b)
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(!text.contains("95% over rounds:"), "{text}");
    assert!(
        text.contains("no 95% intervals over rounds: a configuration needs 4 undisturbed rounds in each run for one (or 3 and 5, 2 and 8, 1 and 39)"),
        "{text}"
    );
    // A band out of range is refused, named, in one line.
    for (args, says) in [
        (
            ["--ratio-band", "0.9"],
            "'--ratio-band <X>': must be a ratio above 1",
        ),
        (
            ["--wait-frac-band", "nan"],
            "'--wait-frac-band <D>': must be a difference",
        ),
        (
            ["--wait-frac-band", "-0.1"],
            "'--wait-frac-band <D>': must be a difference",
        ),
    ] {
        let out = p
            .expect([] as [&str; 0])
            .arg("compare")
            .arg(&a)
            .arg(&b)
            .args(args)
            .code(2)
            .run();
        let e = out.stderr();
        assert!(e.contains(says), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
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
            .expect(["compare", &arg])
            .arg(fixture_run_path())
            .code(2)
            .run();
        let e = out.stderr();
        assert!(e.contains(says), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}
