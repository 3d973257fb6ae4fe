//! Recording runs, history, status, git provenance, site export.

use std::time::Duration;

use predicates::prelude::*;

use crate::helpers::{CHAPTER, Project, recorded_id, stderr, stdout};

/// A report with all seven sections, two claim-audit rows, one source and
/// markers of both kinds.
pub const FULL_REPORT: &str = "# Review of chapter 06\n\n\
## 1. Context and provenance\nRead the excerpt on 2026-11-30.\n\n\
## 2. Claim audit\n\n| claim | where | evidence | concern | priority | response |\n|---|---|---|---|---|---|\n\
| 7.4x speedup | table 1 | re-run | none | low | keep |\n| 454 vs 449 | table 2 | UNVERIFIED | none | low | keep |\n\n\
## 3. Source ledger\n\n| source | metadata | url |\n|---|---|---|\n| PyTorch DataLoader docs | 2.x | https://pytorch.org/docs |\n\n\
## 4. Findings\nSupporting.\n\n## 5. Upgrade proposal\nNo change.\n\n\
## 6. Experiment opportunities\nRun on 8 cores: UNRUN.\n\n## 7. Review checklist\n- [x] accept: the chapter stands\n";

fn snapshots_state(p: &Project) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    p.state()
        .into_iter()
        .filter(|(path, _)| path.starts_with(p.path("book-snapshots")))
        .collect()
}

fn record_files(p: &Project) -> Vec<String> {
    let dir = p.path(&format!("records/{CHAPTER}"));
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn recording_a_report_keeps_the_revision_and_a_copy_and_never_edits_the_chapter() {
    let p = Project::seeded();
    p.write("report.md", FULL_REPORT);
    let before = snapshots_state(&p);
    let out = p
        .cmd()
        .args([
            "record",
            "06",
            "--report",
            "report.md",
            "--note",
            "first pass",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(
            "7 of 7 sections, 2 claims audited, 1 source-ledger rows, 1 UNVERIFIED, 1 UNRUN"
        ),
        "{text}"
    );
    assert_eq!(
        snapshots_state(&p),
        before,
        "record never writes under book-snapshots/"
    );
    let files = record_files(&p);
    assert_eq!(files.len(), 2, "{files:?}");
    let record = files.iter().find(|f| f.ends_with(".record.yaml")).unwrap();
    let copy = files.iter().find(|f| f.ends_with(".report.md")).unwrap();
    assert_eq!(
        std::fs::read_to_string(p.path(&format!("records/{CHAPTER}/{copy}"))).unwrap(),
        FULL_REPORT
    );
    let yaml: serde_yaml::Value = serde_yaml::from_str(
        &std::fs::read_to_string(p.path(&format!("records/{CHAPTER}/{record}"))).unwrap(),
    )
    .unwrap();
    assert_eq!(yaml["schema"], "research_companion.record.v1");
    let id = yaml["run_id"].as_str().unwrap();
    let re = regex_lite(id);
    assert!(re, "run id shape: {id}");
    assert_eq!(
        yaml["revision"]["fingerprint"]["value"],
        "a7d34947a6b4b8b69bba5cd2ba4979dc790f2a69061f4e5d727e1d983ee28230"
    );
    assert_eq!(yaml["report"]["complete"], true);
    assert_eq!(yaml["note"], "first pass");
    assert_eq!(yaml["git"]["available"], false);
    let env_id = yaml["environment"]["env_id"].as_str().unwrap();
    assert!(
        env_id.starts_with("env-v2:") && env_id.len() == 71,
        "{env_id}"
    );
    p.cmd()
        .args(["history", "06"])
        .assert()
        .success()
        .stdout(predicate::str::contains(id))
        .stdout(predicate::str::contains("CURRENT"))
        .stdout(predicate::str::contains("report: all 7 sections"));
    p.cmd()
        .arg("status")
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "{CHAPTER}  CURRENT  Current"
        )));
    // The next run follows the first by default.
    let out = p
        .cmd()
        .args(["record", "06", "--report", "report.md"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let h = p
        .cmd()
        .args(["history", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&h.stdout).unwrap();
    assert_eq!(v[0]["runs"].as_array().unwrap().len(), 2);
    let newest = v[0]["runs"][0]["run_id"].as_str().unwrap().to_string();
    let newest_file = newest.rsplitn(3, ':').take(2).collect::<Vec<_>>();
    let path = p.path(&format!(
        "records/{CHAPTER}/{}-{}.record.yaml",
        newest_file[1], newest_file[0]
    ));
    let rec: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(rec["previous_run_id"].as_str(), Some(id));
}

/// `<book>:<chapter>:<YYYYMMDDTHHMMSS>:<12 hex>`.
fn regex_lite(id: &str) -> bool {
    let parts: Vec<&str> = id.split(':').collect();
    parts.len() == 4
        && parts[0] == "pytorch-from-first-principles"
        && parts[1] == "06"
        && parts[2].len() == 15
        && parts[2].as_bytes()[8] == b'T'
        && parts[3].len() == 12
        && parts[3]
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

#[test]
fn research_goes_stale_when_the_chapter_changes() {
    let p = Project::seeded();
    p.write("report.md", FULL_REPORT);
    p.record(&["--report", "report.md"]);
    p.write("full.txt", "The complete chapter, as revised.");
    p.cmd()
        .args(["snapshot", "add", "06", "full.txt", "--complete"])
        .assert()
        .success();
    p.cmd()
        .args(["history", "06"])
        .assert()
        .success()
        .stdout(predicate::str::contains("STALE"));
    p.cmd().arg("status").assert().success().stdout(
        predicate::str::contains(
            "STALE  Update available (Changed: the chapter changed since research run ",
        )
        .and(predicate::str::contains(
            "replaced snapshots/0001-a7d34947a6b4.txt (prose-v1 a7d34947a6b4 to ",
        )),
    );
    // Research that examined the old revision on purpose is recorded as such.
    p.cmd()
        .args([
            "record",
            "06",
            "--report",
            "report.md",
            "--revision",
            "a7d349",
        ])
        .assert()
        .success();
    p.cmd()
        .arg("status")
        .assert()
        .stdout(predicate::str::contains("STALE"));
    p.record(&["--report", "report.md"]);
    p.cmd()
        .arg("status")
        .assert()
        .stdout(predicate::str::contains("CURRENT"));
    // A revision named by its snapshot file works too.
    p.cmd()
        .args([
            "record",
            "06",
            "--report",
            "report.md",
            "--revision",
            "snapshots/0001-a7d34947a6b4.txt",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("snapshots/0001-a7d34947a6b4.txt"));
}

#[test]
fn bad_record_input_is_refused_and_writes_nothing() {
    let p = Project::seeded();
    p.write("report.md", FULL_REPORT);
    p.write("empty.md", "  \n");
    p.write("latin1.md", b"caf\xe9 report");
    p.write(
        "partial.md",
        FULL_REPORT.replace("## 5. Upgrade proposal", "## Upgrade"),
    );
    let before = p.state();
    for (args, msg) in [
        (vec!["--report", "missing.md"], "missing.md"),
        (
            vec!["--report", "empty.md"],
            "empty.md: the report is empty",
        ),
        (
            vec!["--report", "latin1.md"],
            "latin1.md: invalid UTF-8 at byte offset 3",
        ),
        (
            vec!["--report", "partial.md", "--strict"],
            "partial.md: missing required sections: ## 5. Upgrade proposal",
        ),
        (
            vec!["--report", "report.md", "--revision", "ffff"],
            "revision 'ffff': no stored snapshot",
        ),
        (
            vec!["--report", "report.md", "--previous", "nope"],
            "invalid run id 'nope'",
        ),
    ] {
        let out = p.expect(["record", "06"]).args(&args).code(2).run();
        let e = out.stderr();
        assert!(e.contains(msg), "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "one line: {e}");
    }
    assert_eq!(p.state(), before);
    // Without --strict a partial report is recorded, with a warning.
    p.cmd()
        .args(["record", "06", "--report", "partial.md"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "missing required sections: ## 5. Upgrade proposal",
        ));
    p.cmd()
        .arg("status")
        .assert()
        .stdout(predicate::str::contains(
            "FAILED_LATEST  Refresh incomplete",
        ));
}

#[test]
fn twenty_concurrent_records_are_all_kept() {
    let _g = crate::helpers::exclusive();
    let p = Project::seeded();
    p.write("report.md", FULL_REPORT);
    let children: Vec<_> = (0..20)
        .map(|_| {
            std::process::Command::new(env!("CARGO_BIN_EXE_research_companion"))
                .args(["record", "06", "--report", "report.md"])
                .current_dir(p.root())
                .env("RESEARCH_COMPANION_ROOT", p.root())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let out = p
        .cmd()
        .args(["history", "06", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut ids: Vec<String> = v[0]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 20);
    assert_eq!(
        record_files(&p).len(),
        40,
        "every record has its report copy"
    );
}

#[test]
fn a_killed_writer_leaves_no_partial_record() {
    let _g = crate::helpers::exclusive();
    let p = Project::seeded();
    // A big report (under the 2 MiB a record takes) makes the write window
    // wide enough to be hit.
    let big = format!(
        "{FULL_REPORT}\n{}",
        "padding line for the report body\n".repeat(60_000)
    );
    p.write("report.md", &big);
    let mut killed_mid_run = 0;
    for i in 0..12u64 {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_research_companion"))
            .args(["record", "06", "--report", "report.md"])
            .current_dir(p.root())
            .env("RESEARCH_COMPANION_ROOT", p.root())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(5 + i * 7));
        if c.try_wait().unwrap().is_none() {
            killed_mid_run += 1;
        }
        let _ = c.kill();
        let status = c.wait().unwrap();
        assert!(
            status.code().is_none_or(|code| code == 0),
            "a record that finished must succeed"
        );
        let out = p
            .cmd()
            .args(["history", "06", "--format", "json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "after kill {i}: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for run in v[0]["runs"].as_array().unwrap() {
            assert_eq!(run["report_complete"], true);
        }
    }
    assert!(killed_mid_run > 0, "no writer was caught mid-run");
    // A record left to finish is complete.
    p.record(&["--report", "report.md"]);
    // A leftover temporary file is invisible and is swept once it is old.
    let dir = p.path(&format!("records/{CHAPTER}"));
    std::fs::create_dir_all(&dir).unwrap();
    let tmp = dir.join(".tmp-leftover.record.yaml");
    std::fs::write(&tmp, "schema: research_companion.rec").unwrap();
    p.cmd().args(["history", "06"]).assert().success();
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&tmp)
        .unwrap()
        .set_modified(old)
        .unwrap();
    p.cmd().args(["history", "06"]).assert().success();
    assert!(!tmp.exists(), "old temporary files are cleaned up");
}

#[test]
fn a_broken_record_is_reported_and_the_others_still_list() {
    let p = Project::seeded();
    p.write("report.md", FULL_REPORT);
    p.record(&["--report", "report.md"]);
    p.record(&["--report", "report.md"]);
    let names = record_files(&p);
    let broken = names.iter().find(|n| n.ends_with(".record.yaml")).unwrap();
    let path = p.path(&format!("records/{CHAPTER}/{broken}"));
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("kind: research", "kind: [research");
    std::fs::write(&path, text).unwrap();
    for cmd in ["history", "status"] {
        let out = p.expect([] as [&str; 0]).arg(cmd).code(1).run();
        let e = out.stderr();
        assert!(
            e.contains(broken.as_str()) && e.contains("line"),
            "{cmd}: {e}"
        );
    }
    let out = p
        .cmd()
        .args(["history", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v[0]["runs"].as_array().unwrap().len(),
        1,
        "the intact record still lists"
    );
}

fn git(p: &Project, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(p.root())
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn git_provenance_is_recorded_and_commit_adds_exactly_the_new_files() {
    let p = Project::seeded();
    p.write("report.md", FULL_REPORT);
    git(&p, &["init", "-q", "-b", "main"]);
    git(&p, &["config", "user.email", "author@example.com"]);
    git(&p, &["config", "user.name", "Author"]);
    git(
        &p,
        &[
            "remote",
            "add",
            "origin",
            "https://alice:ghp_token123@example.com/books/research.git",
        ],
    );
    git(&p, &["add", "."]);
    git(&p, &["commit", "-qm", "seed"]);
    let head = git(&p, &["rev-parse", "HEAD"]).trim().to_string();
    p.write("unrelated.txt", "staged but not part of the record");
    git(&p, &["add", "unrelated.txt"]);
    let out = p
        .cmd()
        .args(["record", "06", "--report", "report.md", "--commit"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let id = recorded_id(&out);
    let log = git(&p, &["log", "-1", "--format=%s"]);
    assert!(log.contains(&id), "{log}");
    let changed = git(&p, &["show", "--name-only", "--format=", "HEAD"]);
    let changed: Vec<&str> = changed.lines().collect();
    assert_eq!(changed.len(), 2, "{changed:?}");
    assert!(
        changed
            .iter()
            .all(|f| f.starts_with(&format!("records/{CHAPTER}/")))
    );
    // The unrelated staged file stays staged, not committed.
    assert!(git(&p, &["status", "--porcelain"]).contains("A  unrelated.txt"));
    let rec_file = changed
        .iter()
        .find(|f| f.ends_with(".record.yaml"))
        .unwrap();
    let rec: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(p.path(rec_file)).unwrap()).unwrap();
    assert_eq!(rec["git"]["available"], true);
    assert_eq!(rec["git"]["commit"].as_str(), Some(head.as_str()));
    assert_eq!(rec["git"]["branch"], "main");
    assert_eq!(rec["git"]["dirty"], true);
    assert_eq!(
        rec["git"]["repository"],
        "https://example.com/books/research.git"
    );
    assert!(
        !std::fs::read_to_string(p.path(rec_file))
            .unwrap()
            .contains("ghp_token123")
    );
}

#[test]
fn publish_writes_every_key_the_site_reads() {
    let p = Project::seeded();
    // Before any research: NEVER_RESEARCHED with empty counts.
    let out = p.cmd().args(["publish", "06"]).output().unwrap();
    assert!(out.status.success());
    let v: serde_yaml::Value = serde_yaml::from_slice(&out.stdout).unwrap();
    assert_eq!(v["research"]["state"], "NEVER_RESEARCHED");
    assert!(v["research"]["last_researched"].is_null());
    p.write("report.md", FULL_REPORT);
    p.record(&["--report", "report.md"]);
    p.cmd()
        .args(["publish", "06", "--out", "site.yaml"])
        .assert()
        .success();
    let v: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(p.path("site.yaml")).unwrap()).unwrap();
    // Every key, its type and every count: site_data.rs, for each state.
    assert_eq!(v["schema"], "programmer.research.chapter.v1");
    assert_eq!(v["chapter"]["id"], "06");
    assert_eq!(v["chapter"]["slug"], "06-chapter");
    assert_eq!(
        v["chapter"]["public_path"],
        "/books/pytorch-from-first-principles/06-chapter/"
    );
    assert_eq!(v["research"]["state"], "CURRENT");
    assert!(
        v["research"]["last_researched"]
            .as_str()
            .unwrap()
            .ends_with("+00:00")
    );
    assert_eq!(v["summary"]["sources"], 1, "one source-ledger row");
    assert_eq!(v["summary"]["open_gaps"], 1, "one UNVERIFIED marker");
    assert_eq!(
        v["summary"]["supporting"], 0,
        "no experiment recorded, so no evidence relation"
    );
    assert_eq!(v["actions"]["research_available"], true);
    // Its own earlier output is replaced (site_data.rs checks the rest).
    p.cmd()
        .args(["publish", "06", "--out", "site.yaml"])
        .assert()
        .success();
}

#[test]
fn experiment_runs_are_recorded_from_bench_and_from_run_files() {
    let _g = crate::helpers::exclusive();
    let p = Project::seeded();
    let quick = [
        "--cost-ms",
        "0.1",
        "--batch-size",
        "4",
        "--consumer-ms",
        "0.1",
        "--workers",
        "0,2",
        "--batches",
        "5",
    ];
    p.cmd()
        .arg("bench")
        .args(quick)
        .args(["--out", "run.yaml"])
        .assert()
        .success();
    // Quick runs use other settings than the chapter's tables: recorded
    // only when asked to, and marked.
    p.cmd()
        .args(["record", "06", "--run", "run.yaml", "--not-comparable"])
        .assert()
        .success()
        .stdout(predicate::str::contains("result:   sleep 0->2 workers"));
    p.cmd()
        .arg("bench")
        .args(quick)
        .args(["--record", "--not-comparable"])
        .assert()
        .success()
        .stdout(predicate::str::contains("(experiment)"));
    let out = p.cmd().args(["history", "06"]).output().unwrap();
    let text = stdout(&out);
    assert_eq!(text.matches("  experiment  ").count(), 2, "{text}");
    assert!(text.contains("spin 0->2 workers"), "{text}");
    assert_eq!(text.matches("NOT COMPARABLE").count(), 2, "{text}");
    // Experiments are evidence, not research: the chapter is still unresearched.
    p.cmd()
        .arg("status")
        .assert()
        .stdout(predicate::str::contains(
            "NEVER_RESEARCHED  Not yet researched",
        ));
    // A file that is not a run is refused.
    p.write("notrun.yaml", "schema: something.else\n");
    p.cmd()
        .args(["record", "06", "--run", "notrun.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("notrun.yaml"));
}

#[test]
fn status_shows_the_claims_and_the_latest_experiment_in_text_and_json() {
    let p = Project::with_fixture_records();
    let out = p.cmd().args(["status", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        // The fixture record was made before windows: its verdicts say so
        // before they count.
        text.contains("    an earlier measurement (measured before windows: whole-run window), its verdicts then: 6 claims: 6 reproduced, 0 magnitude differs, 0 not reproduced, 0 inconclusive, 0 not comparable, 0 unrun, 0 quote missing; latest experiment pytorch-from-first-principles:06:20261102T120000:bbbbbbbbbbbb on 2026-11-02, revision a7d34947a6b4 (current)"),
        "{text}"
    );
    let out = p
        .cmd()
        .args(["status", "06", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["claims"]["claims"], 6);
    assert_eq!(v[0]["claims"]["reproduced"], 6);
    assert_eq!(v[0]["latest_experiment"]["of_current_revision"], true);
    assert_eq!(
        v[0]["latest_experiment"]["earlier_measurement"],
        "measured before windows: whole-run window"
    );
    assert_eq!(v[0]["label"], "Current");
}

/// The fixture experiment as if recorded on another machine with 2 CPUs,
/// a day later, where the spin claim did not hold.
fn add_other_machine(p: &Project) {
    let dir = p.path(&format!("records/{CHAPTER}"));
    let fixture =
        std::fs::read_to_string(dir.join("20261102T120000-bbbbbbbbbbbb.record.yaml")).unwrap();
    let other = fixture
        .replace(
            "20261102T120000:bbbbbbbbbbbb",
            "20261103T120000:cccccccccccc",
        )
        .replace(
            "20261102T120000-bbbbbbbbbbbb",
            "20261103T120000-cccccccccccc",
        )
        .replace("2026-11-02T12:00:00", "2026-11-03T12:00:00")
        .replace(&"fe".repeat(32), &"9f2c".repeat(16))
        .replacen("logical_cpus: 1", "logical_cpus: 2", 1)
        .replacen(
            "  - claim: spin-454-vs-449\n    verdict: REPRODUCED",
            "  - claim: spin-454-vs-449\n    verdict: NOT_REPRODUCED",
            1,
        );
    assert!(other.contains("NOT_REPRODUCED"), "{other}");
    std::fs::write(dir.join("20261103T120000-cccccccccccc.record.yaml"), other).unwrap();
    std::fs::copy(
        dir.join("20261102T120000-bbbbbbbbbbbb.run.yaml"),
        dir.join("20261103T120000-cccccccccccc.run.yaml"),
    )
    .unwrap();
}

#[test]
fn evidence_from_two_environments_is_given_per_environment() {
    let p = Project::with_fixture_records();
    add_other_machine(&p);
    for stem in [
        "20261102T120000-bbbbbbbbbbbb",
        "20261103T120000-cccccccccccc",
    ] {
        crate::helpers::as_todays_measurement(
            &p.path(&format!("records/{CHAPTER}/{stem}.record.yaml")),
        );
    }
    let out = p.expect(["diff", "--all-envs"]).code(1).run();
    let text = out.stdout();
    assert!(text.contains("evidence from 2 environment(s)"), "{text}");
    assert!(
        text.contains(
            "spin-454-vs-449: reproduced on 1 of 2 environments; not on env 9f2c9f2c9f2c"
        ),
        "{text}"
    );
    assert!(
        text.contains("sleep-speedup-7.4x: reproduced on 2 of 2 environments"),
        "{text}"
    );
    let out = p.cmd().args(["status", "06"]).output().unwrap();
    let text = stdout(&out);
    assert!(
        text.contains(
            "evidence from 2 environments (9f2c9f2c9f2c (2 CPUs), fefefefefefe (2 CPUs)):"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "spin-454-vs-449: reproduced on 1 of 2 environments; not on env 9f2c9f2c9f2c"
        ),
        "{text}"
    );
    let out = p.cmd().args(["report", "06"]).output().unwrap();
    let report = stdout(&out);
    assert!(
        report.contains("- Across the environments that recorded experiments"),
        "{report}"
    );
    assert!(
        report.contains("  - spin-454-vs-449: reproduced on 1 of 2 environments"),
        "{report}"
    );
}

#[test]
fn status_says_when_the_latest_experiment_ran_short_or_with_scaled_python_costs() {
    let p = Project::seeded();
    // The chapter's experiment, on a 3-batch window and at half the
    // measured Python costs: still evidence, but not on the defaults.
    p.expect([
        "bench",
        "--batches",
        "3",
        "--python-cost-scale",
        "0.25",
        "--record",
    ])
    .success()
    .run();
    let text = stdout(&p.cmd().arg("status").output().unwrap());
    assert!(
        text.contains(
            "the latest experiment ran with 3 measured steps a configuration, fewer than reproduce's 20: wider intervals; the engine's Python costs at x0.25, not the default (x0.5)"
        ),
        "{text}"
    );
    let json = stdout(
        &p.cmd()
            .args(["status", "--format", "json"])
            .output()
            .unwrap(),
    );
    assert!(json.contains("\"departs\""), "{json}");
}
