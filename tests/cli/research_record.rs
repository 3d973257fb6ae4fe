//! The research record feeds the next research pass: what a recorded report
//! found (its sources, findings, leads, and the run itself) comes back in the
//! next prompt and report draft, and a prompt reads as sentences whatever
//! chapter.yaml leaves out.

use predicates::prelude::*;

use crate::helpers::{Project, fixture_report, run_stem_and_time, stderr, stdout};

fn render(p: &Project, args: &[&str]) -> String {
    let out = p
        .cmd()
        .env("RESEARCH_COMPANION_NOW", "2026-12-02T12:00:00Z")
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// The prompt's section `n`, from its heading to the next one.
fn section(text: &str, n: usize) -> &str {
    let start = text
        .find(&format!("== {n}. "))
        .unwrap_or_else(|| panic!("no section {n}"));
    let end = text[start..]
        .find(&format!("== {}. ", n + 1))
        .map_or(text.len(), |i| start + i);
    &text[start..end]
}

/// The report's section with the heading `heading`, up to the next one.
fn report_section<'t>(text: &'t str, heading: &str) -> &'t str {
    let start = text.find(heading).unwrap();
    let end = text[start + 3..]
        .find("\n## ")
        .map_or(text.len(), |i| start + 3 + i);
    &text[start..end]
}

/// The date a run id was recorded on, `YYYY-MM-DD`.
fn date_of(run_id: &str) -> String {
    run_stem_and_time(run_id).1[..10].to_string()
}

#[test]
fn a_recorded_report_carries_into_the_next_prompt_and_report_draft() {
    let p = Project::seeded();
    p.record_fixture_run();
    p.write("review.md", fixture_report("review-06.md"));
    let research = p.record(&["--report", "review.md"]);
    let prompt = render(&p, &["prompt", "06"]);

    // 3: the ledger's sources, with where they came from and how they were read.
    let s3 = section(&prompt, 3);
    assert!(s3.contains(&format!(
        "- torch.utils.data (2025), PyTorch contributors: https://pytorch.org/docs/stable/data.html. From the source ledger of research run {research}; read: full text; bears on: spin-454-vs-449.\n"
    )), "{s3}");
    assert!(s3.contains(&format!(
        "- tf.data: A Machine Learning Data Processing Framework (2021), Derek G. Murray, Jiří Šimša, Ana Klimovic, Ihor Indyk: https://arxiv.org/abs/2101.12127. From the source ledger of research run {research}; read: abstract only; reviewed there and not used as evidence.\n"
    )), "{s3}");
    assert!(!s3.contains("no references"), "{s3}");

    // 4: the verdicts with their flags, in words; the findings; the leads.
    let s4 = section(&prompt, 4);
    assert!(s4.contains(
        "- spin-wait-mean-62.8-to-28.1: REPRODUCED, magnitude differs (x0.00289), model limit (spin, 8 workers on 1 CPU): spin at 8 workers waits 0.00129x as long as at 0 (the chapter: 0.447x); the claim needs <= 0.75; single run, measured by the embedded engine (a model of the DataLoader, its Python costs off)\n"
    ), "{s4}");
    assert!(
        s4.contains(&format!("What the latest research run, {research}, found")),
        "{s4}"
    );
    assert!(s4.contains("- Contradictory: none\n"), "{s4}");
    assert!(s4.contains("- Unresolved: pin_memory on one CPU: whether it moves any of these numbers; nothing I read says.\n"), "{s4}");
    assert!(s4.contains(
        "Unverified leads (check each before relying on it):\n- spin-wait-mean-62.8-to-28.1: \"In the second table, wait_mean ... fell from 62.8 ms to 28.1 ms.\": the fall on the real DataLoader is UNVERIFIED: only the model measured it\n"
    ), "{s4}");
    assert!(!s4.contains("none recorded"), "{s4}");
    assert!(
        s4.contains(
            "- Measure the spinning pipeline's wait at 0 and 8 workers on the real DataLoader"
        ),
        "{s4}"
    );

    // 7: the run, what it found, and whether the chapter changed since.
    let s7 = section(&prompt, 7);
    let line = format!(
        "- {research}, {}, examined revision prose-v1:a7d34947a6b4 (the current revision): all seven sections; 2 sources in its ledger; findings: 2 supporting, 1 qualifying, 0 contradictory, 1 unresolved; 1 UNVERIFIED, 1 UNRUN.\n",
        date_of(&research)
    );
    assert!(s7.contains(&line), "{s7}");
    let text =
        std::fs::read_to_string(p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt")).unwrap();
    p.write(
        "revised.txt",
        format!("{text}\nOne more sentence at the end.\n"),
    );
    p.cmd()
        .args(["snapshot", "add", "06", "revised.txt"])
        .assert()
        .success();
    let s7 = section(&render(&p, &["prompt", "06"]), 7).to_string();
    assert!(
        s7.contains("(an older revision): all seven sections;")
            && s7.contains(
                "1 UNRUN. The chapter changed since: 6 words changed; no claim touched.\n"
            ),
        "{s7}"
    );

    // The report draft: the ledger carried and marked for re-verification,
    // the previous responses beside the proposed ones.
    let draft = render(&p, &["report", "06"]);
    let ledger = report_section(&draft, "## 3. Source ledger");
    assert!(ledger.contains(&format!(
        "| torch.utils.data | PyTorch contributors | 2025 | https://pytorch.org/docs/stable/data.html | full text | spin-454-vs-449 | describes worker processes, not what they cost on one CPU | [[author: re-verify; carried from research run {research}, where it was read: full text]] |"
    )), "{ledger}");
    assert!(ledger.contains("| tf.data: A Machine Learning Data Processing Framework | Derek G. Murray; Jiří Šimša; Ana Klimovic; Ihor Indyk | 2021 | https://arxiv.org/abs/2101.12127 | abstract only | none: its input pipelines"), "{ledger}");
    let audit = report_section(&draft, "## 2. Claim audit");
    assert!(
        audit.contains(&format!(
            "The previous responses are those of research run {research}"
        )),
        "{audit}"
    );
    assert!(
        audit.contains("| previous response | proposed response |"),
        "{audit}"
    );
    assert!(
        audit.contains("| between 0.95 and 1.05 | say \"on one CPU\" beside 454 and 449 | keep |"),
        "{audit}"
    );
    // The carried sources must be checked again before the draft is research.
    p.write("draft.md", &draft);
    p.cmd()
        .args(["record", "06", "--report", "draft.md"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "still a draft: 3 [[author: ...]] place(s) to fill",
        ));
    // Checked and filled in, it is the next research run, and its sources
    // keep their ids on the site.
    let before =
        serde_yaml::from_str::<serde_yaml::Value>(&render(&p, &["publish", "06"])).unwrap();
    let mut filled = draft.clone();
    for (i, _) in draft.match_indices("[[author:") {
        let end = draft[i..].find("]]").unwrap() + i + 2;
        filled = filled.replacen(&draft[i..end], "checked again on 2026-12-02", 1);
    }
    p.write("filled.md", filled.replace("- [ ]", "- [x]"));
    let next = p.record(&["--report", "filled.md"]);
    let after = serde_yaml::from_str::<serde_yaml::Value>(&render(&p, &["publish", "06"])).unwrap();
    assert_eq!(after["research"]["run_id"], next.as_str());
    let ids = |v: &serde_yaml::Value| -> Vec<String> {
        v["sources"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&after), ids(&before));
    assert_eq!(after["delta"]["papers_new"], 0);
}

#[test]
fn a_prompt_for_a_chapter_made_with_only_a_title_reads_as_sentences() {
    let p = Project::seeded();
    p.new_chapter(
        "pytorch-from-first-principles/07",
        "Buffers fill before they drain. A queue of 8 batches holds 8 batches.\n",
        "Buffers",
        None,
    );
    let text = render(&p, &["prompt", "pytorch-from-first-principles/07"]);
    for fragment in [
        "not given in chapter.yaml",
        "none stated",
        "link in section 1",
        "downloaded from",
        "Chapter URL:",
        "Research pack:",
        "book's site",
    ] {
        assert!(!text.contains(fragment), "{fragment:?} in:\n{text}");
    }
    assert!(text.contains(
        "No download of the complete text is listed for this chapter: ask me for the rest"
    ));
    assert!(text.contains("The chapter goes on: ask me for the remainder."));
    assert!(text.contains(
        "No research objective is stated in chapter.yaml for this chapter, so take the general one:"
    ));
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("== ")).collect();
    assert_eq!(headings.len(), 9, "{headings:?}");
    insta::assert_snapshot!("prompt_with_only_a_title", text);
    let report = render(&p, &["report", "pytorch-from-first-principles/07"]);
    assert!(!report.contains("Chapter URL"), "{report}");
    assert!(report.contains(
        "- Against the published fingerprint: chapter.yaml gives none, so there is nothing to compare with"
    ));
    assert!(
        report.contains(
            "No claims are listed for this chapter in claims.yaml, so none is checked yet."
        )
    );
}
