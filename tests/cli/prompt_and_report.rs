//! The research prompt (`prompt`) and the review report (`report`),
//! rendered from the templates with a fixed clock and fixed records.

use predicates::prelude::*;

use crate::helpers::{CHAPTER, Project, stderr, stdout};

const NOW: &str = "2026-11-30T12:00:00Z";

fn with_records() -> Project {
    Project::with_fixture_records()
}

fn render(p: &Project, args: &[&str]) -> String {
    let out = p
        .cmd()
        .env("RESEARCH_COMPANION_NOW", NOW)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn the_first_pass_prompt_has_the_research_pages_structure() {
    let p = Project::seeded();
    let text = render(&p, &["prompt", "06"]);
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("== ")).collect();
    assert_eq!(
        headings,
        [
            "== 1. Identity ==",
            "== 2. Chapter text ==",
            "== 3. Existing references and bibliography ==",
            "== 4. Existing evidence ==",
            "== 5. Research objective and questions ==",
            "== 6. Associated material ==",
            "== 7. Research history ==",
            "== 8. How to investigate ==",
            "== 9. Required output ==",
        ]
    );
    assert!(text.contains("Chapter prose fingerprint (sha256, prose-v1): a7d34947a6b4b8b69bba5cd2ba4979dc790f2a69061f4e5d727e1d983ee28230"));
    assert!(text.contains(
        "No research has been recorded for this chapter yet, so this is the first pass."
    ));
    for heading in research_companion::records::report::REQUIRED_SECTIONS {
        assert!(text.contains(&format!("\n{heading} — ")), "{heading}");
    }
    insta::assert_snapshot!("prompt_first_pass", text);
}

#[test]
fn the_prompt_lists_history_and_evidence_from_the_records() {
    let p = with_records();
    let text = render(&p, &["prompt", "pytorch-from-first-principles-06-chapter"]);
    assert!(text.contains("- pytorch-from-first-principles:06:20261101T120000:aaaaaaaaaaaa, 2026-11-01, examined revision prose-v1:a7d34947a6b4 (the current revision)"));
    assert!(text.contains("The chapter has not changed since the latest research run"));
    assert!(text.contains(
        "Recorded experiment pytorch-from-first-principles:06:20261102T120000:bbbbbbbbbbbb"
    ));
    assert!(text.contains("- sleep-speedup-7.4x: REPRODUCED"));
    insta::assert_snapshot!("prompt_with_records", text);
    // Once the chapter changes, the prompt says so.
    p.write("full.txt", "The revised chapter.");
    p.cmd()
        .args(["snapshot", "add", "06", "full.txt", "--complete"])
        .assert()
        .success();
    let text = render(&p, &["prompt", "06"]);
    assert!(text.contains("(an older revision)"));
    assert!(text.contains("The chapter has changed since the latest research run examined it"));
    assert!(text.contains("The revised chapter."));
}

#[test]
fn the_chapter_text_is_cut_at_a_word_with_a_marker() {
    let p = Project::seeded();
    let text = render(&p, &["prompt", "06", "--excerpt-chars", "40"]);
    assert!(text.contains("\n\nHere are two controlled training pipelines.\n\n[... excerpt ends here (43 of 6000 characters"), "{text}");
}

#[test]
fn the_report_is_prefilled_from_claims_and_records() {
    let p = with_records();
    let text = render(&p, &["report", "06"]);
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        headings,
        research_companion::records::report::REQUIRED_SECTIONS
    );
    assert!(text.contains("- Date of this review: 2026-11-30"));
    assert!(text.contains("kernel 6.1.0-fixture, Fixture CPU @ 2.10GHz"));
    assert!(text.contains("No sources are recorded for this chapter yet"));
    insta::assert_snapshot!("report_with_records", text);
}

#[test]
fn a_failing_claim_becomes_a_proposal_and_a_checklist_item() {
    let p = with_records();
    // Edit the fixture run so the spin pipeline scales: the chapter's claim fails.
    let run_path = p.path(&format!(
        "records/{CHAPTER}/20261102T120000-bbbbbbbbbbbb.run.yaml"
    ));
    let mut run: research_companion::bench::BenchRun =
        serde_yaml::from_str(&std::fs::read_to_string(&run_path).unwrap()).unwrap();
    for r in run
        .results
        .iter_mut()
        .filter(|r| r.producer == research_companion::bench::ProducerKind::Spin && r.workers == 8)
    {
        r.summary.ex_per_s = 1200.0;
    }
    // Recorded as a run of its own: the stored file is evidence under its
    // record's sha256 and is never edited in place.
    let edited = p.write("spin-scales.run.yaml", serde_yaml::to_string(&run).unwrap());
    p.record(&["--run", edited.to_str().unwrap()]);
    let text = render(&p, &["report", "06"]);
    assert!(text.contains("| NOT_REPRODUCED |"), "{text}");
    assert!(text.contains("### spin-454-vs-449"), "{text}");
    assert!(
        text.contains("**Contradictory**\n- spin-454-vs-449: NOT_REPRODUCED"),
        "{text}"
    );
    assert!(
        text.contains("- [ ] spin-454-vs-449: accept, revise, defer or reject"),
        "{text}"
    );
    assert!(
        text.contains("qualify or correct: measured 2.704, expected between 0.95 and 1.05"),
        "{text}"
    );
}

#[test]
fn a_rendered_report_is_accepted_by_record_with_every_section() {
    let p = with_records();
    p.cmd()
        .env("RESEARCH_COMPANION_NOW", NOW)
        .args(["report", "06", "--out", "review.md"])
        .assert()
        .success();
    let text = std::fs::read_to_string(p.path("review.md")).unwrap();
    assert!(text.contains(
        "![ex/s against workers, and each configuration's wait and work](review.plot.svg)"
    ));
    assert!(
        std::fs::read_to_string(p.path("review.plot.svg"))
            .unwrap()
            .starts_with("<svg")
    );
    // The unedited draft is not research: refused, and kept with --draft
    // without changing the chapter's state.
    let status = |p: &Project| {
        stdout(
            &p.cmd()
                .args(["status", "06", "--format", "json"])
                .output()
                .unwrap(),
        )
    };
    let before = status(&p);
    p.cmd()
        .args(["record", "06", "--report", "review.md", "--strict"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "review.md: still a draft: 1 [[author: ...]] place(s) to fill, 1 unticked review-checklist box(es)",
        ));
    p.cmd()
        .args([
            "record",
            "06",
            "--report",
            "review.md",
            "--strict",
            "--draft",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "7 of 7 sections, 6 claims audited",
        ));
    let after = status(&p);
    let state = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap()[0]["state"].clone();
    assert_eq!(state(&after), state(&before), "a draft changes nothing");
    p.cmd()
        .args(["history", "06"])
        .assert()
        .stdout(predicate::str::contains(
            "report: DRAFT (not counted as research)",
        ));
    // Finished by the author, it is research.
    let finished = std::fs::read_to_string(p.path("review.md"))
        .unwrap()
        .replace(
            "[[author: write the proposed text]]",
            "The pipeline is 7.4x faster on this machine too.",
        )
        .replace("[[author: why]]", "measured again")
        .replace("- [ ]", "- [x]");
    p.write("finished.md", finished);
    p.cmd()
        .args(["record", "06", "--report", "finished.md", "--strict"])
        .assert()
        .success();
    // And never over an existing file.
    p.cmd()
        .args(["report", "06", "--out", "review.md"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "review.md: already exists; refusing to overwrite it",
        ));
}

#[test]
fn templates_can_be_overridden_file_by_file_and_typos_fail_loudly() {
    let p = Project::seeded();
    p.write(
        "tpl/report.md.j2",
        "Custom report for {{ chapter.title }}\n{% include 'part.md' %}",
    );
    p.write("tpl/part.md", "included part\n");
    let text = render(&p, &["report", "06", "--templates", "tpl"]);
    assert_eq!(
        text,
        "Custom report for DataLoader: Where Is the Training Loop Actually Waiting?\nincluded part\n"
    );
    // The prompt is not overridden, so the embedded one is used.
    assert!(
        render(&p, &["prompt", "06", "--templates", "tpl"]).contains("== 9. Required output ==")
    );
    // A typo is an error with the template's name and line.
    p.write(
        "bad/research-prompt.md.j2",
        "line 1\nline 2 {{ chapter.titel }}\n",
    );
    let out = p
        .expect(["prompt", "06", "--templates", "bad"])
        .code(2)
        .run();
    let e = out.stderr();
    assert!(
        e.contains("template research-prompt.md.j2, line 2: undefined value"),
        "{e}"
    );
    // Includes may not leave the templates folder.
    p.write("secret.txt", "do not read");
    p.write("esc/report.md.j2", "{% include '../secret.txt' %}");
    p.cmd()
        .args(["report", "06", "--templates", "esc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("leaves the templates directory"));
}

#[test]
fn prompt_and_report_print_json_with_their_context() {
    let p = with_records();
    for cmd in ["prompt", "report"] {
        let out = p
            .cmd()
            .env("RESEARCH_COMPANION_NOW", NOW)
            .args([cmd, "06", "--format", "json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["text"].as_str().unwrap().len() > 500, "{cmd}");
        assert_eq!(v["context"]["chapter"]["id"], "06", "{cmd}");
    }
}
