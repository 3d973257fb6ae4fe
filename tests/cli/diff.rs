//! `diff` verdicts from crafted run files, claims-file errors, and
//! `reproduce` end to end.

use predicates::prelude::*;
use research_companion::bench::{
    BenchRun, ConfigResult, PipelineVerdict, ProducerKind, Row, Settings, WorkerKind,
};

use crate::helpers::{CHAPTER, Project, recorded_id, stderr, stdout};

/// The chapter's published rows: (workers, ex/s, wait_mean, work, wait_frac).
const SLEEP: [(usize, f64, f64, f64, f64); 5] = [
    (0, 414.0, 69.8, 7.5, 0.90),
    (1, 452.0, 62.6, 8.1, 0.89),
    (2, 890.0, 27.3, 8.6, 0.76),
    (4, 1769.0, 8.4, 9.7, 0.46),
    (8, 3049.0, 0.9, 9.6, 0.09),
];
const SPIN: [(usize, f64, f64, f64, f64); 5] = [
    (0, 454.0, 62.8, 7.8, 0.89),
    (1, 451.0, 56.9, 14.0, 0.80),
    (2, 456.0, 49.5, 20.7, 0.71),
    (4, 458.0, 38.0, 31.9, 0.54),
    (8, 449.0, 28.1, 43.2, 0.39),
];

fn row(
    producer: ProducerKind,
    (workers, ex, wm, work, frac): (usize, f64, f64, f64, f64),
) -> ConfigResult {
    let summary = Row {
        producer,
        workers,
        ex_per_s: ex,
        wait_mean_ms: wm,
        wait_p50_ms: wm,
        wait_p95_ms: wm,
        wait_max_ms: wm,
        work_ms: work,
        wait_frac: frac,
        startup_ms: 0.0,
        start_cpu_ms: None,
        warmup_batches: None,
        tail_batches: None,
        bound_ex_per_s: ex,
        efficiency: 1.0,
        consumer_run_delay_ms: 0.0,
        consumer_cpu_ms: work,
        workers_cpu_ms: 0.0,
        involuntary_switches: 0,
        verdict: PipelineVerdict::ProducerBound,
        batches: 90,
        window_ms: 1000.0,
        data_digest: "0".into(),
        max_outstanding: 0,
        ex_per_s_spread: None,
        outside: None,
        disturbed: false,
    };
    ConfigResult {
        producer,
        workers,
        summary,
        repeats: Vec::new(),
    }
}

/// A run that measured exactly what the chapter published, on 1 CPU.
fn chapter_like_run() -> BenchRun {
    let mut results: Vec<ConfigResult> =
        SLEEP.iter().map(|r| row(ProducerKind::Sleep, *r)).collect();
    results.extend(SPIN.iter().map(|r| row(ProducerKind::Spin, *r)));
    BenchRun {
        schema: "research_companion.bench-run.v1".into(),
        created_at: chrono::Utc::now(),
        tool_version: "test".into(),
        settings: Settings::chapter_defaults(),
        cpus_used: vec![0],
        environment: research_companion::env::collect(),
        measurement_overhead_ns_per_step: 100.0,
        outside_load_cost_ns: None,
        results,
        reference: None,
        engine_model: None,
        calibrated_to_pytorch: None,
    }
}

fn write_run(p: &Project, name: &str, run: &BenchRun) {
    p.write(name, serde_yaml::to_string(run).unwrap());
}

fn verdicts(p: &Project, file: &str) -> (Option<i32>, serde_json::Value) {
    let out = p
        .cmd()
        .args(["diff", file, "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.code() != Some(2), "{}", stderr(&out));
    (
        out.status.code(),
        serde_json::from_slice(&out.stdout).unwrap(),
    )
}

fn verdict_of<'a>(v: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    v["claims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no claim {id}"))
}

#[test]
fn a_run_matching_the_chapter_reproduces_every_claim_and_the_prose_agrees() {
    let p = Project::seeded();
    write_run(&p, "run.yaml", &chapter_like_run());
    let (code, v) = verdicts(&p, "run.yaml");
    assert_eq!(code, Some(0));
    let claims = v["claims"].as_array().unwrap();
    assert_eq!(claims.len(), 6, "every numeric claim of the excerpt");
    for c in claims {
        assert_eq!(c["verdict"], "REPRODUCED", "{c}");
        assert_eq!(c["prose_consistent"], true, "{c}");
    }
    assert!(
        (verdict_of(&v, "sleep-speedup-7.4x")["published"]
            .as_f64()
            .unwrap()
            - 3049.0 / 414.0)
            .abs()
            < 1e-9
    );
    // Cells are matched by producer and worker count, with their ratio.
    let cell = &v["tables"][1]["rows"][4]["cells"][5];
    assert_eq!(cell["column"], "work");
    assert_eq!(
        (cell["published"].as_f64(), cell["ratio"].as_f64()),
        (Some(43.2), Some(1.0))
    );
    assert_eq!(v["audit"].as_array().unwrap().len(), 0);
    // The table view says the same in words.
    p.cmd()
        .args(["diff", "run.yaml"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "6 claims: 6 REPRODUCED (0 of them magnitude differs), 0 NOT_REPRODUCED, 0 INCONCLUSIVE, 0 NOT_COMPARABLE, 0 UNRUN; 0 QUOTE_MISSING",
        ))
        .stdout(predicate::str::contains(
            "=== producer=spin 2.0 ms/sample batch=32 consumer=8 ms/batch ===",
        ));
}

#[test]
fn a_spin_pipeline_that_scales_is_not_reproduced_and_exits_1() {
    let p = Project::seeded();
    let mut run = chapter_like_run();
    let w8 = run
        .results
        .iter_mut()
        .find(|r| r.producer == ProducerKind::Spin && r.workers == 8)
        .unwrap();
    w8.summary.ex_per_s = 900.0;
    write_run(&p, "run.yaml", &run);
    let (code, v) = verdicts(&p, "run.yaml");
    assert_eq!(code, Some(1));
    let c = verdict_of(&v, "spin-454-vs-449");
    assert_eq!(c["verdict"], "NOT_REPRODUCED");
    assert!((c["measured"].as_f64().unwrap() - 900.0 / 454.0).abs() < 1e-9);
    assert_eq!(c["criterion"], "between 0.95 and 1.05");
    assert_eq!(
        verdict_of(&v, "sleep-speedup-7.4x")["verdict"],
        "REPRODUCED"
    );
}

#[test]
fn preconditions_that_are_not_met_make_claims_not_comparable_and_say_which() {
    let p = Project::seeded();
    let mut run = chapter_like_run();
    run.cpus_used = vec![0, 1];
    write_run(&p, "two-cpus.yaml", &run);
    let (code, v) = verdicts(&p, "two-cpus.yaml");
    assert_eq!(code, Some(0), "NOT_COMPARABLE is not a failure");
    for c in v["claims"].as_array().unwrap() {
        assert_eq!(c["verdict"], "NOT_COMPARABLE");
        assert!(
            c["reason"]
                .as_str()
                .unwrap()
                .contains("needs 1 CPU(s), the run used 2"),
            "{c}"
        );
    }
    let mut run = chapter_like_run();
    run.settings.worker_kind = WorkerKind::Thread;
    write_run(&p, "threads.yaml", &run);
    let (_, v) = verdicts(&p, "threads.yaml");
    let c = verdict_of(&v, "spin-step-five-times-slower");
    assert_eq!(c["verdict"], "NOT_COMPARABLE");
    assert!(
        c["reason"]
            .as_str()
            .unwrap()
            .contains("needs process workers")
    );
    assert_eq!(
        verdict_of(&v, "spin-work-7.8-to-43.2")["verdict"],
        "REPRODUCED"
    );
    // A run of a different experiment (other cost) is not the chapter's.
    let mut run = chapter_like_run();
    run.settings.cost_ms = 0.5;
    write_run(&p, "cheap.yaml", &run);
    let (_, v) = verdicts(&p, "cheap.yaml");
    let c = verdict_of(&v, "sleep-speedup-7.4x");
    assert_eq!(c["verdict"], "NOT_COMPARABLE");
    assert!(
        c["reason"]
            .as_str()
            .unwrap()
            .contains("the run used 0.5 ms/sample"),
        "{c}"
    );
}

#[test]
fn a_run_over_another_window_is_not_comparable_and_an_old_run_file_reads_as_a_whole_run() {
    let p = Project::seeded();
    // The chapter's own numbers, but taken over the whole run: what
    // `bench --window whole-run` measures.
    let mut run = chapter_like_run();
    run.settings.window = research_companion::bench::WindowKind::WholeRun;
    write_run(&p, "whole.yaml", &run);
    let (code, v) = verdicts(&p, "whole.yaml");
    assert_eq!(code, Some(0), "NOT_COMPARABLE is not a failure");
    for c in v["claims"].as_array().unwrap() {
        assert_eq!(c["verdict"], "NOT_COMPARABLE", "{c}");
        let why = c["reason"].as_str().unwrap();
        assert!(why.contains("measured a steady state"), "{why}");
        assert!(why.contains("this run measured the whole run"), "{why}");
    }
    for t in v["tables"].as_array().unwrap() {
        assert_eq!(
            (t["window"].as_str(), t["run_window"].as_str()),
            (Some("steady-state"), Some("whole-run"))
        );
    }
    // A run file written before windows has no `window`: the whole run.
    let text = serde_yaml::to_string(&chapter_like_run()).unwrap();
    assert!(text.contains("window: steady-state"));
    p.write("old.yaml", text.replace("  window: steady-state\n", ""));
    let (_, v) = verdicts(&p, "old.yaml");
    assert!(
        v["claims"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["verdict"] == "NOT_COMPARABLE")
    );
    // The text says why beside each verdict, and the audit says what the
    // chapter's window is.
    let out = p.cmd().args(["diff", "old.yaml"]).output().unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("NOT_COMPARABLE  sleep-speedup-7.4x"),
        "{text}"
    );
    assert!(
        text.contains("the chapter's sleep table measured a steady state (ex/s per measured step"),
        "{text}"
    );
    assert!(
        text.contains("window: sleep table: every ex/s equals 1000 x batch / (wait_mean + work)"),
        "{text}"
    );
    // Recording it as the chapter's experiment is refused, naming the window.
    p.expect(["record", "06", "--run", "old.yaml"])
        .code(2)
        .stderr_has("window: ")
        .run();
}

#[test]
fn claims_without_a_measurement_are_unrun() {
    let p = Project::seeded();
    let mut run = chapter_like_run();
    run.results.retain(|r| r.producer == ProducerKind::Sleep);
    run.settings.producers = vec![ProducerKind::Sleep];
    write_run(&p, "sleep-only.yaml", &run);
    let (code, v) = verdicts(&p, "sleep-only.yaml");
    assert_eq!(code, Some(0));
    assert_eq!(
        verdict_of(&v, "sleep-speedup-7.4x")["verdict"],
        "REPRODUCED"
    );
    for id in [
        "spin-454-vs-449",
        "spin-work-7.8-to-43.2",
        "spin-step-five-times-slower",
    ] {
        let c = verdict_of(&v, id);
        assert_eq!(c["verdict"], "UNRUN", "{id}");
        assert!(c["measured"].is_null());
    }
    let spin_table = &v["tables"][1];
    assert_eq!(
        spin_table["unmeasured_workers"],
        serde_json::json!([0, 1, 2, 4, 8])
    );
}

#[test]
fn bad_claims_files_name_the_file_line_and_claim() {
    let p = Project::seeded();
    write_run(&p, "run.yaml", &chapter_like_run());
    let claims = p.chapter_dir().join("claims.yaml");
    let original = std::fs::read_to_string(&claims).unwrap();
    // A metric naming a column the tables do not have is an error, not a false.
    std::fs::write(
        &claims,
        original.replace(
            "metric: spin.w8.work / spin.w0.work\n  stated: {value: 5.54",
            "metric: spin.w8.wrk / spin.w0.work\n  stated: {value: 5.54",
        ),
    )
    .unwrap();
    let out = p.expect(["diff", "run.yaml"]).code(2).run();
    let e = out.stderr();
    assert!(e.contains("claims.yaml: line 51: claim 'spin-work-7.8-to-43.2': metric 'spin.w8.wrk / spin.w0.work' names a table, row or column that does not exist"), "{e}");
    // A row that does not exist.
    std::fs::write(
        &claims,
        original.replace(
            "sleep.w8.ex_s / sleep.w0.ex_s",
            "sleep.w16.ex_s / sleep.w0.ex_s",
        ),
    )
    .unwrap();
    p.cmd()
        .args(["diff", "run.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("claim 'sleep-speedup-7.4x'"));
    // Malformed YAML: file, line and field.
    std::fs::write(
        &claims,
        original.replace("reproduce: {at_least: 5.0}", "reproduce: {at_least: five}"),
    )
    .unwrap();
    p.cmd().args(["diff", "run.yaml"]).assert().code(2).stderr(
        predicate::str::contains("claims.yaml: line 19, column 25").and(predicate::str::contains(
            "field 'claims[0].reproduce.at_least'",
        )),
    );
    // Two criteria at once.
    std::fs::write(
        &claims,
        original.replace(
            "reproduce: {at_least: 5.0}",
            "reproduce: {at_least: 5.0, at_most: 9.0}",
        ),
    )
    .unwrap();
    p.cmd()
        .args(["diff", "run.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "exactly one of at_least, at_most or between",
        ));
}

#[test]
fn diff_reads_recorded_runs_and_draws_a_plot() {
    let p = Project::seeded();
    write_run(&p, "run.yaml", &chapter_like_run());
    p.cmd()
        .args(["diff", "--latest"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no experiment run is recorded"));
    let out = p
        .cmd()
        .args(["record", "06", "--run", "run.yaml"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let id = recorded_id(&out);
    // The record keeps the verdicts.
    let h = p
        .cmd()
        .args(["history", "--format", "yaml"])
        .output()
        .unwrap();
    assert!(stdout(&h).contains(&id));
    let rec = std::fs::read_dir(p.path(&format!("records/{CHAPTER}")))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".record.yaml"))
        .unwrap();
    let text = std::fs::read_to_string(rec.path()).unwrap();
    assert_eq!(text.matches("verdict: REPRODUCED").count(), 6, "{text}");
    p.cmd()
        .args(["diff", "--run", &id, "--format", "markdown"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "| sleep-speedup-7.4x | REPRODUCED |",
        ));
    p.cmd()
        .args(["diff", "--latest", "--plot", "plot.svg"])
        .assert()
        .success();
    let svg = std::fs::read_to_string(p.path("plot.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("ex/s against workers"),
        "{}",
        &svg[..200.min(svg.len())]
    );
    p.cmd()
        .args([
            "diff",
            "--run",
            "pytorch-from-first-principles:06:20200101T000000:000000000000",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "run pytorch-from-first-principles:06:20200101T000000:000000000000 is not recorded for pytorch-from-first-principles/06",
        ));
}

#[test]
fn reproduce_runs_the_chapters_preset_compares_and_records() {
    let _g = crate::helpers::exclusive();
    let p = Project::seeded();
    let out = p
        .cmd()
        .args([
            "reproduce",
            "--batches",
            "1",
            // One round: what is asserted is the preset and the output's
            // shape, which the number of rounds does not change.
            "--rounds",
            "1",
            "--budget",
            "0",
            "--no-record",
        ])
        .output()
        .unwrap();
    let text = stdout(&out);
    let e = stderr(&out);
    assert!(e.contains("reproducing pytorch-from-first-principles/06: producers sleep, spin, 2 ms/sample, batch 32, consumer 8 ms, workers 0, 1, 2, 4, 8, 1 CPU(s)"), "{e}");
    assert!(
        text.contains("=== producer=sleep 2.0 ms/sample batch=32 consumer=8 ms/batch ===\nworkers"),
        "{text}"
    );
    assert!(text.contains("Claims (run on 1 CPU(s))"), "{text}");
    let not_reproduced = !text.contains(" 0 NOT_REPRODUCED");
    assert_eq!(
        out.status.code(),
        Some(if not_reproduced { 1 } else { 0 }),
        "{text}\n{e}"
    );
    assert!(!p.path("records").exists(), "--no-record writes nothing");
    let out = p
        .cmd()
        .args([
            "reproduce",
            "06",
            "--batches",
            "2",
            "--rounds",
            "1",
            "--budget",
            "0",
        ])
        .output()
        .unwrap();
    assert!(out.status.code() != Some(2), "{}", stderr(&out));
    p.cmd()
        .args(["history", "06"])
        .assert()
        .stdout(predicate::str::contains("experiment"));
}

#[test]
fn a_table_header_beyond_the_limits_is_refused_before_reproduce_runs() {
    let p = Project::seeded();
    let file = p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt");
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("batch=32", "batch=1000000000000");
    p.write("huge.txt", text);
    p.cmd()
        .args(["snapshot", "add", "06", "huge.txt"])
        .assert()
        .success();
    let out = p.expect(["reproduce", "--no-record"]).code(2).run();
    let e = out.stderr();
    // The header is held to the knob's bounds where the table is read.
    assert!(
        e.contains(
            "did not parse: the table's batch_size must be at most 65536, got 1000000000000"
        ),
        "{e}"
    );
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn a_claim_whose_sentence_was_edited_away_is_quote_missing() {
    let p = Project::with_fixture_records();
    let file = p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt");
    let edited = std::fs::read_to_string(&file).unwrap().replace(
        "The first pipeline got 7.4 times faster.",
        "The first pipeline got much faster.",
    );
    p.write("edited.txt", edited);
    p.cmd()
        .args(["snapshot", "add", "06", "edited.txt"])
        .assert()
        .success();
    write_run(&p, "run.yaml", &chapter_like_run());
    let out = p.expect(["diff", "run.yaml"]).code(1).run();
    let text = out.stdout();
    assert!(
        text.contains("QUOTE_MISSING: the quoted sentence is not in this revision; closest:"),
        "{text}"
    );
    assert!(
        text.contains("The first pipeline got much faster."),
        "{text}"
    );
    assert!(text.contains("; 1 QUOTE_MISSING"), "{text}");
    // The report, built on the recorded experiment of the older revision,
    // says the evidence predates the edit.
    let out = p.cmd().args(["report", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let report = stdout(&out);
    assert!(
        report.contains("measured on revision a7d34947a6b4, the chapter has changed since"),
        "{report}"
    );
}

#[test]
fn claims_check_finds_a_planted_numeric_sentence_no_claim_quotes() {
    let p = Project::seeded();
    p.cmd()
        .args(["claims", "check", "06"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "sentences that state numbers and that no claim quotes (0):",
        ));
    let file = p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt");
    let planted = std::fs::read_to_string(&file).unwrap().replace(
        "The first pipeline got 7.4 times faster.",
        "The first pipeline got 7.4 times faster. A third pipeline ran 3 times slower at 12 ms per batch.",
    );
    p.write("planted.txt", planted);
    p.cmd()
        .args(["snapshot", "add", "06", "planted.txt"])
        .assert()
        .success();
    let out = p.expect(["claims", "check", "06"]).code(1).run();
    let text = out.stdout();
    assert!(
        text.contains("sentences that state numbers and that no claim quotes (1):\n  - \"A third pipeline ran 3 times slower at 12 ms per batch.\""),
        "{text}"
    );
    // A claim whose sentence is gone, and a metric that fails, are listed too.
    let claims = p.chapter_dir().join("claims.yaml");
    let text = std::fs::read_to_string(&claims)
        .unwrap()
        .replace(
            "quote: The first pipeline got 7.4 times faster.",
            "quote: The first pipeline flew.",
        )
        .replace(
            "metric: spin.w8.ex_s / spin.w0.ex_s",
            "metric: spin.w16.ex_s / spin.w0.ex_s",
        );
    std::fs::write(&claims, text).unwrap();
    let out = p
        .expect(["claims", "check", "06", "--format", "json"])
        .code(1)
        .run();
    let v: serde_json::Value = serde_json::from_slice(&out.out.stdout).unwrap();
    assert_eq!(v["quote_missing"][0][0], "sleep-speedup-7.4x");
    assert_eq!(v["metric_fails"][0][0], "spin-454-vs-449");
}

#[test]
fn a_chapter_or_a_file_in_the_wrong_place_is_told_where_it_goes() {
    let p = Project::seeded();
    write_run(&p, "run.yaml", &chapter_like_run());
    // The chapter where the run file goes.
    let out = p.expect(["diff", "06"]).code(2).run();
    let err = out.stderr();
    assert!(err.contains("'06' is a chapter, not a run file"), "{err}");
    assert!(err.contains("--chapter 06"), "{err}");
    // A run file given to --run, which takes a run id.
    let out = p.expect(["diff", "--run", "run.yaml"]).code(2).run();
    let err = out.stderr();
    assert!(err.contains("invalid run id 'run.yaml'"), "{err}");
    assert!(err.contains("without --run"), "{err}");
    // A file that does exist is read, whatever its name looks like.
    write_run(&p, "06", &chapter_like_run());
    p.expect(["diff", "06"]).success().run();
}
