//! Records a user can rely on, tried as a new user would: a run made with
//! other settings never passes for the chapter's evidence, a file that is
//! not a review is not recorded as one, a run can be withdrawn with a
//! retraction every reader honours, a snapshot deleted by hand can be
//! restored, and errors say what is actually wrong.

use crate::helpers::{CHAPTER, FIXTURE_RUN, Project, fixture_record_file, stderr, stdout};

/// The fixture run with one setting changed by `edit` (as YAML), written to
/// `name`.
fn run_with(p: &Project, name: &str, edit: impl Fn(&mut serde_yaml::Value)) -> String {
    let text = String::from_utf8(fixture_record_file(FIXTURE_RUN)).unwrap();
    let mut doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    edit(&mut doc);
    p.write(name, serde_yaml::to_string(&doc).unwrap());
    name.to_string()
}

// Item 17.
#[test]
fn a_run_with_other_settings_is_refused_naming_the_first_that_differs() {
    let p = Project::seeded();
    let before = p.state();
    for (name, edit, named) in [
        (
            "cost.yaml",
            (|d: &mut serde_yaml::Value| d["settings"]["cost_ms"] = 1.0.into())
                as fn(&mut serde_yaml::Value),
            "cost_ms: the run used 1 ms/sample, the chapter's sleep table 2 ms/sample",
        ),
        (
            "batch.yaml",
            |d| d["settings"]["batch_size"] = 16.into(),
            "batch_size: the run used batches of 16, the chapter's sleep table 32",
        ),
        (
            "consumer.yaml",
            |d| d["settings"]["consumer_ms"] = 4.0.into(),
            "consumer_ms: the run used 4 ms/batch, the chapter's sleep table 8 ms/batch",
        ),
        (
            "workers.yaml",
            |d| {
                let results = d["results"].as_sequence_mut().unwrap();
                results.retain(|r| r["workers"] != 8 && r["workers"] != 2);
            },
            "workers: the run did not measure 2, 8 of the chapter's sleep table's 0, 1, 2, 4, 8",
        ),
        (
            "cpus.yaml",
            |d| d["cpus_used"] = serde_yaml::from_str("[0, 1]").unwrap(),
            "cpus: the chapter's claims need 1 CPU(s), the run used 2",
        ),
    ] {
        let file = run_with(&p, name, edit);
        let out = p.expect(["record", "06", "--run", &file]).code(2).run();
        let err = out.stderr();
        assert!(
            err.contains(&format!(
                "{file} cannot be compared with the tables of {CHAPTER}: {named}"
            )),
            "{name}: {err}"
        );
        assert!(err.contains("--not-comparable"), "{err}");
        std::fs::remove_file(p.path(name)).unwrap();
    }
    assert_eq!(p.state(), before, "nothing recorded");
    // bench --record says so before it runs anything.
    let out = p
        .expect([
            "bench",
            "--record",
            "--cost-ms",
            "1",
            "--batches",
            "1000000",
        ])
        .code(2)
        .stderr_has("cost_ms: the run used 1 ms/sample")
        .run();
    assert!(out.stdout().is_empty(), "nothing ran: {}", out.stdout());
}

#[test]
fn a_run_recorded_as_not_comparable_never_hides_the_comparable_one() {
    let p = Project::seeded();
    let good = p.record_fixture_run();
    let evidence = |p: &Project| {
        let out = p.cmd().args(["status", "06"]).output().unwrap();
        stdout(&out).lines().nth(1).unwrap_or_default().to_string()
    };
    let before = evidence(&p);
    assert!(
        before.contains(&format!("latest experiment {good}")),
        "{before}"
    );
    let file = run_with(&p, "other.yaml", |d| {
        d["settings"]["cost_ms"] = 1.0.into();
        d["settings"]["batch_size"] = 16.into();
    });
    let other = p.record(&["--run", &file, "--not-comparable"]);
    assert_ne!(good, other);
    assert_eq!(
        evidence(&p),
        before,
        "the comparable run is still the evidence"
    );
    let out = p.cmd().args(["history", "06"]).output().unwrap();
    let text = stdout(&out);
    let line = text.lines().find(|l| l.contains(&other)).unwrap();
    assert!(
        line.contains("NOT COMPARABLE with the chapter's tables"),
        "{line}"
    );
    assert!(line.contains("cost_ms: the run used 1 ms/sample"), "{line}");
    // The other readers take the comparable run too.
    let out = p
        .cmd()
        .args(["diff", "--latest", "--format", "json"])
        .output()
        .unwrap();
    let diffed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        diffed["claims"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["verdict"] == "REPRODUCED"),
        "{diffed}"
    );
    let out = p
        .cmd()
        .args(["report", "06"])
        .env("RESEARCH_COMPANION_NOW", "2026-12-01T00:00:00Z")
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains(&good) && !stdout(&out).contains(&other),
        "{}",
        stdout(&out)
    );
    // The site data lists experiments beside research only: with a review
    // recorded, its evidence is the comparable run's.
    p.write("review.md", crate::helpers::fixture_report("review-06.md"));
    p.record(&["--report", "review.md"]);
    let out = p.cmd().args(["publish", "06"]).output().unwrap();
    assert!(
        stdout(&out).contains(&good) && !stdout(&out).contains(&other),
        "{}",
        stdout(&out)
    );
}

// Item 18.
#[test]
fn a_file_with_none_of_the_sections_is_not_recorded_as_a_review() {
    let p = Project::seeded();
    p.write(
        "notes.txt",
        "Some thoughts about the chapter.\nIt reads well.\n",
    );
    let before = p.state();
    for extra in [vec![], vec!["--draft"]] {
        let out = p
            .expect(["record", "06", "--report", "notes.txt"])
            .args(&extra)
            .code(2)
            .run();
        let err = out.stderr();
        assert!(
            err.contains("notes.txt: none of the seven required sections is there"),
            "{err}"
        );
        assert!(
            err.contains("## 1. Context and provenance") && err.contains("## 7. Review checklist"),
            "{err}"
        );
    }
    assert_eq!(p.state(), before);
}

#[test]
fn snapshots_added_at_the_same_time_are_all_kept() {
    let p = Project::seeded();
    let exe = assert_cmd::cargo::cargo_bin("research_companion");
    let texts: Vec<String> = (0..12)
        .map(|i| {
            let name = format!("rev-{i}.txt");
            p.write(
                &name,
                format!("Revision {i} of chapter 06, written at the same time.\n"),
            );
            name
        })
        .collect();
    // Six pairs, each pair started together.
    for pair in texts.chunks(2) {
        let children: Vec<_> = pair
            .iter()
            .map(|name| {
                std::process::Command::new(&exe)
                    .current_dir(p.root())
                    .env("RESEARCH_COMPANION_ROOT", p.root())
                    .args(["snapshot", "add", "06", name])
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut c in children {
            assert!(c.wait().unwrap().success());
        }
    }
    let list = std::fs::read_to_string(
        p.path("book-snapshots/pytorch-from-first-principles/06/snapshots.yaml"),
    )
    .unwrap();
    let dir = p.path("book-snapshots/pytorch-from-first-principles/06/snapshots");
    let files = std::fs::read_dir(&dir).unwrap().count();
    for name in &texts {
        let n: usize = name[4..name.len() - 4].parse().unwrap();
        let fp = research_companion::chapter::normalize::fingerprint_str(&format!(
            "Revision {n} of chapter 06, written at the same time.\n"
        ))
        .unwrap();
        assert!(list.contains(&fp[..12]), "{name} is not listed:\n{list}");
    }
    let listed = list
        .lines()
        .filter(|l| l.trim_start().starts_with("- file:"))
        .count();
    assert_eq!(listed, files, "every file listed once:\n{list}");
    p.expect(["verify", "06"]).success().run();
}

#[test]
fn a_claim_audit_row_naming_no_claim_of_the_chapter_is_warned_about() {
    let p = Project::seeded();
    let report = crate::helpers::fixture_report("review-06.md");
    // The fixture's rows all name claims of chapter 06: no warning.
    p.write("review.md", &report);
    let out = p
        .expect(["record", "06", "--report", "review.md"])
        .success()
        .run();
    assert!(!out.stderr().contains("not a claim"), "{}", out.stderr());
    // One row misspells an id: recorded, with a warning naming it.
    let typo = report.replacen("| spin-454-vs-449:", "| spin-454-vs-499:", 1);
    assert_ne!(typo, report);
    p.write("typo.md", &typo);
    let out = p
        .expect(["record", "06", "--report", "typo.md"])
        .success()
        .run();
    let err = out.stderr();
    assert!(
        err.contains("typo.md: the claim audit names `spin-454-vs-499`, which is not a claim of pytorch-from-first-principles/06"),
        "{err}"
    );
    assert_eq!(err.matches("not a claim").count(), 1, "{err}");
}

#[test]
fn a_retracted_run_is_shown_retracted_and_read_by_no_one() {
    let p = Project::with_fixture_records();
    let research = format!(
        "{}:06:20261101T120000:aaaaaaaaaaaa",
        "pytorch-from-first-principles"
    );
    // A review missing most sections leaves the chapter FAILED_LATEST...
    p.write("partial.md", "## 1. Context and provenance\n\nStarted.\n");
    let failed = p.record(&["--report", "partial.md"]);
    let state = |p: &Project| stdout(&p.cmd().args(["status", "06"]).output().unwrap());
    assert!(state(&p).contains("FAILED_LATEST"), "{}", state(&p));
    // ... until the author retracts it.
    let before: Vec<_> = crate::helpers::files_under(&p.path("records"));
    let out = p
        .cmd()
        .args([
            "record",
            "retract",
            &failed,
            "--reason",
            "recorded the wrong file",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(&format!("retracted {failed}")),
        "{}",
        stdout(&out)
    );
    let after = crate::helpers::files_under(&p.path("records"));
    assert_eq!(after.len(), before.len() + 1, "one file added");
    assert!(
        before.iter().all(|f| after.contains(f)),
        "nothing removed or renamed"
    );
    let added = after.iter().find(|f| !before.contains(f)).unwrap();
    assert!(
        added.to_string_lossy().ends_with(".retraction.yaml"),
        "{added:?}"
    );
    let text = std::fs::read_to_string(added).unwrap();
    assert!(
        text.starts_with("schema: research_companion.retraction.v1\n"),
        "{text}"
    );
    assert!(text.contains(&format!("retracts: {failed}\n")), "{text}");
    assert!(text.contains("reason: recorded the wrong file\n"), "{text}");

    let s = state(&p);
    assert!(
        s.contains("  CURRENT  Current"),
        "the research before it decides again: {s}"
    );
    assert!(s.contains("1 research run,"), "{s}");
    let history = stdout(&p.cmd().args(["history", "06"]).output().unwrap());
    let at = history.find(&failed).unwrap();
    assert!(
        history[at..].contains("RETRACTED on ")
            && history[at..].contains(": recorded the wrong file"),
        "{history}"
    );
    let prompt = stdout(&p.cmd().args(["prompt", "06"]).output().unwrap());
    let line = prompt.lines().find(|l| l.contains(&failed)).unwrap();
    assert!(
        line.contains("RETRACTED on") && line.contains("recorded the wrong file"),
        "{line}"
    );
    let publish = stdout(&p.cmd().args(["publish", "06"]).output().unwrap());
    assert!(!publish.contains(&failed), "{publish}");
    assert!(publish.contains(&research), "{publish}");
    let site = p.cmd().args(["site", "--out", "site"]).output().unwrap();
    assert!(site.status.success(), "{}", stderr(&site));
    let page = std::fs::read_to_string(p.path(&format!("site/{CHAPTER}.html"))).unwrap();
    assert!(page.contains("RETRACTED on"), "the page's history says so");
    let index = std::fs::read_to_string(p.path("site/index.html")).unwrap();
    assert!(index.contains("Current"), "{index}");

    // An experiment retracted: the readers no longer take it as evidence.
    let experiment = format!(
        "{}:06:20261102T120000:bbbbbbbbbbbb",
        "pytorch-from-first-principles"
    );
    p.cmd()
        .args([
            "record",
            "retract",
            &experiment,
            "--reason",
            "measured on a loaded machine",
        ])
        .assert()
        .success();
    assert!(
        state(&p).contains("no experiment recorded"),
        "{}",
        state(&p)
    );
    for args in [
        vec!["report", "06", "--run", &experiment],
        vec!["diff", "--run", &experiment],
    ] {
        p.expect(&args)
            .code(2)
            .stderr_has("was retracted (RETRACTED on")
            .run();
    }
    // Twice is refused; so is an empty reason or a run that is not there.
    for (run, reason, says) in [
        (experiment.as_str(), "again", "is retracted already"),
        (research.as_str(), " ", "a retraction needs a reason"),
        (
            "pytorch-from-first-principles:06:20261201T120000:0123456789ab",
            "x",
            "is not recorded",
        ),
    ] {
        let out = p
            .expect(["record", "retract", run, "--reason", reason])
            .code(2)
            .run();
        assert!(out.stderr().contains(says), "{}", out.stderr());
    }
}

// Item 19.
#[test]
fn adding_the_text_of_a_snapshot_deleted_by_hand_restores_it() {
    let p = Project::seeded();
    let file = p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt");
    let text = std::fs::read(&file).unwrap();
    p.write("ch06.txt", &text);
    std::fs::remove_file(&file).unwrap();
    let out = p.expect([] as [&str; 0]).arg("verify").code(1).run();
    assert!(out.stdout().contains("MISSING"));
    let out = p
        .cmd()
        .args(["snapshot", "add", "06", "ch06.txt"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("restored snapshots/0001-a7d34947a6b4.txt: its file was missing"),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read(&file).unwrap(), text, "byte for byte");
    let out = p.cmd().arg("verify").output().unwrap();
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).contains("intact     snapshots/0001-a7d34947a6b4.txt"));
    // Again: the file is there now, so nothing is written.
    let out = p
        .cmd()
        .args(["snapshot", "add", "06", "ch06.txt"])
        .output()
        .unwrap();
    assert!(stdout(&out).starts_with("unchanged"), "{}", stdout(&out));
}

// Item 20.
#[test]
fn a_root_that_does_not_exist_says_so() {
    let p = Project::seeded();
    let missing = p.path("no/such/folder");
    for args in [
        vec!["status"],
        vec!["chapters"],
        vec!["verify"],
        vec!["history"],
    ] {
        let out = p
            .expect([] as [&str; 0])
            .arg("--root")
            .arg(&missing)
            .args(&args)
            .code(2)
            .run();
        let err = out.stderr();
        assert!(
            err.contains(&format!(
                "the project root {} does not exist",
                missing.display()
            )),
            "{args:?}: {err}"
        );
    }
    // A root that exists without book-snapshots/ is another matter.
    let empty = tempfile::tempdir().unwrap();
    p.expect([] as [&str; 0])
        .arg("--root")
        .arg(empty.path())
        .arg("status")
        .code(2)
        .stderr_has("no chapters under")
        .run();
}

#[test]
fn verify_strict_says_why_each_current_snapshot_does_not_match() {
    let p = Project::seeded();
    p.new_chapter("notes/01", "A complete chapter.\n", "One", Some("Notes"));
    let out = p.expect(["verify", "--strict"]).code(1).run();
    let last = out.stdout().lines().last().unwrap().to_string();
    assert!(
        !last.contains("differs from the published fingerprint"),
        "none differs: {last}"
    );
    assert!(
        last.contains(&format!(
            "{CHAPTER}: an excerpt, which cannot match the published fingerprint"
        )),
        "{last}"
    );
    assert!(
        last.contains("notes/01: no published fingerprint to match"),
        "{last}"
    );
}

#[test]
fn a_book_id_in_the_wrong_case_is_refused_with_the_existing_book_named() {
    let p = Project::seeded();
    p.new_chapter(
        "systems-notes/07",
        "A chapter.\n",
        "Seven",
        Some("Systems Notes"),
    );
    p.write("ch09.txt", "Another chapter.\n");
    let out = p
        .expect([
            "chapter",
            "new",
            "Systems-Notes/09",
            "ch09.txt",
            "--title",
            "Nine",
        ])
        .code(2)
        .run();
    let err = out.stderr();
    assert!(err.contains("ids are lowercase"), "{err}");
    assert!(
        err.contains("book systems-notes exists: did you mean systems-notes/09?"),
        "{err}"
    );
    // Punctuation in place of the hyphen: a new book, with the hint.
    p.expect([
        "chapter",
        "new",
        "systems_notes/09",
        "ch09.txt",
        "--title",
        "Nine",
    ])
    .code(2)
    .stderr_has("did you mean the existing book systems-notes?")
    .run();
    // Naming a chapter in the wrong case points at the right one.
    p.expect(["history", "Systems-Notes/07"])
        .code(2)
        .stderr_has("did you mean 'systems-notes/07'?")
        .run();
}
