//! What the book's research page and the research prompt tell a reader,
//! checked where issue 52 found them wrong: the delta after a second
//! research run counts evidence relations and adds up with the page's
//! count; an unresolved card and a gap say which claim they are about, and
//! a question the report asks twice is one gap; a ledger's one "checked
//! metadata" cell gives the source's authors, year and venue; "et al." is
//! no author; a rationale does not open with a raw claim id; and the prompt
//! does not call a notebook unverified beside its recorded run.

use serde_yaml::Value;

use crate::helpers::{Project, exclusive, fixture_report, stderr, stdout};

fn publish(p: &Project) -> Value {
    let out = p.cmd().args(["publish", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_yaml::from_slice(&out.stdout).unwrap()
}

fn count(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

fn list(v: &Value) -> &Vec<Value> {
    v.as_sequence().unwrap()
}

/// The delta's relation counts: reused, re-evaluated, removed.
fn relations(v: &Value) -> (u64, u64, u64) {
    let d = &v["delta"];
    (
        count(&d["relations_reused"]),
        count(&d["relations_revalidated"]),
        count(&d["relations_removed"]),
    )
}

#[test]
fn the_delta_counts_evidence_relations_and_adds_up_with_the_page() {
    let p = Project::seeded();
    p.record_fixture_run();
    let review = fixture_report("review-06.md");
    p.write("review.md", &review);
    p.record(&["--report", "review.md"]);
    let first = publish(&p);
    let total = count(&first["summary"]["evidence_relations"]);
    assert!(total >= 8, "{:?}", first["summary"]);

    // The same research again: every relation remained valid.
    p.record(&["--report", "review.md"]);
    let v = publish(&p);
    assert_eq!(count(&v["summary"]["evidence_relations"]), total);
    assert_eq!(
        relations(&v),
        (total, 0, 0),
        "a pass that changed nothing keeps every relation: {:?}",
        v["delta"]
    );
    assert_eq!(count(&v["delta"]["papers_new"]), 0);

    // A third pass replaces the documentation by the DataLoader's source:
    // the one relation that cited it is gone, one citing the code is new,
    // and every other relation stays.
    let docs = "https://pytorch.org/docs/stable/data.html";
    let code = "https://github.com/pytorch/pytorch/blob/v2.5.0/torch/utils/data/dataloader.py";
    let old_row = review
        .lines()
        .find(|l| l.starts_with("| [torch.utils.data]"))
        .unwrap();
    let replaced = review
        .replace(
            old_row,
            &format!("| [dataloader.py]({code}) | PyTorch contributors | 2024 | {code} | full text | spin-454-vs-449 | the code, not a measurement | 2026-12-02 / 2026-12-02 |"),
        )
        .replace(
            &format!("[torch.utils.data]({docs}) documentation says"),
            &format!("[dataloader.py]({code}) source shows"),
        );
    assert_ne!(replaced, review);
    p.write("review3.md", replaced);
    p.record(&["--report", "review3.md"]);
    let v = publish(&p);
    let now = count(&v["summary"]["evidence_relations"]);
    assert_eq!(now, total);
    let (reused, revalidated, removed) = relations(&v);
    assert_eq!(
        reused + revalidated,
        now,
        "the relations reused and re-evaluated are the page's: {:?}",
        v["delta"]
    );
    assert_eq!((reused, revalidated, removed), (total - 1, 1, 1));
    assert_eq!(count(&v["delta"]["papers_new"]), 1);
}

/// review-06.md asking one open question twice, in its context and in its
/// findings, as a bare UNVERIFIED mark.
fn asked_twice() -> String {
    let question = "UNVERIFIED: whether pin_memory on one CPU moves any of these numbers.";
    let review = fixture_report("review-06.md");
    let finding =
        "- pin_memory on one CPU: whether it moves any of these numbers; nothing I read says.";
    assert!(review.contains(finding));
    review
        .replace(
            "- Limits: no PyTorch of my own to run;",
            &format!("- {question}\n- Limits: no PyTorch of my own to run;"),
        )
        .replace(finding, &format!("- {question}"))
}

#[test]
fn an_unresolved_card_and_a_gap_say_what_they_are_about_and_a_question_is_one_gap() {
    let p = Project::seeded();
    p.record_fixture_run();
    p.write("review.md", asked_twice());
    p.record(&["--report", "review.md"]);
    let v = publish(&p);
    let unresolved = list(&v["sections"]["existing_evidence"]["unresolved"]);
    let claims: Vec<&str> = unresolved
        .iter()
        .map(|i| i["claim"].as_str().unwrap())
        .collect();
    assert!(
        claims.contains(&"whether pin_memory on one CPU moves any of these numbers."),
        "{claims:?}"
    );
    assert!(
        claims.iter().all(|c| !c.contains("UNVERIFIED")),
        "a marker is no claim: {claims:?}"
    );
    // The question asked twice is one gap; the claim-audit cell's is the other.
    let gaps = list(&v["missing_evidence"]);
    let shown: Vec<(&str, &str)> = gaps
        .iter()
        .map(|g| (g["claim"].as_str().unwrap(), g["gap"].as_str().unwrap()))
        .collect();
    assert_eq!(gaps.len(), 2, "{shown:?}");
    assert_eq!(count(&v["summary"]["open_gaps"]), 2);
    assert_eq!(count(&v["status_card"]["open_gaps"]), 2);
    assert_eq!(v["sections"]["missing_evidence"], v["missing_evidence"]);
    for (claim, _) in &shown {
        assert!(
            !claim.starts_with("1. ") && !claim.starts_with("4. "),
            "labelled by a report section: {shown:?}"
        );
    }
    assert!(
        shown.contains(&(
            "In the second table, wait_mean ... fell from 62.8 ms to 28.1 ms.",
            "the fall on the real DataLoader is UNVERIFIED: only the model measured it"
        )),
        "{shown:?}"
    );
}

/// review-06.md with its ledger as the prompt asks for it: one "checked
/// metadata" cell of authors, year and venue.
fn metadata_ledger() -> String {
    let review = fixture_report("review-06.md");
    let start = review.find("| source | authors |").unwrap();
    let end = review.find("## 4. Findings").unwrap();
    let ledger = "| what it is | checked metadata | URL | how much you read | claim it bears on | limits | checked / accessed |\n\
| --- | --- | --- | --- | --- | --- | --- |\n\
| [torch.utils.data](https://pytorch.org/docs/stable/data.html) | PyTorch contributors, 2025, PyTorch 2.5 documentation | https://pytorch.org/docs/stable/data.html | full text | spin-454-vs-449 | describes worker processes, not what they cost on one CPU | 2026-12-01 / 2026-12-01 |\n\
| tf.data: A Machine Learning Data Processing Framework | Derek G. Murray, Jiří Šimša, Ana Klimovic, Ihor Indyk et al. (2021). Proc. VLDB Endowment 14(12) | https://arxiv.org/abs/2101.12127 | abstract only | none: its input pipelines are TensorFlow's | about tf.data's own runtime, which this chapter does not use | 2026-12-01 / 2026-12-01 |\n\n";
    format!("{}{ledger}{}", &review[..start], &review[end..])
}

#[test]
fn a_checked_metadata_cell_gives_authors_year_and_venue_and_et_al_is_no_author() {
    let p = Project::seeded();
    p.record_fixture_run();
    p.write("review.md", metadata_ledger());
    p.record(&["--report", "review.md"]);
    let v = publish(&p);
    let sources = list(&v["sources"]);
    assert_eq!(sources.len(), 2);
    let docs = &sources[0];
    assert_eq!(docs["authors"][0], "PyTorch contributors");
    assert_eq!(docs["year"], 2025);
    assert_eq!(docs["venue"], "PyTorch 2.5 documentation");
    assert_eq!(docs["status"], "full text");
    let paper = &sources[1];
    let authors: Vec<&str> = list(&paper["authors"])
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        authors,
        [
            "Derek G. Murray",
            "Jiří Šimša",
            "Ana Klimovic",
            "Ihor Indyk"
        ],
        "\"et al.\" is no author"
    );
    assert_eq!(paper["year"], 2021, "the year published, not accessed");
    assert_eq!(paper["venue"], "Proc. VLDB Endowment 14(12)");
    // The evidence card citing the documentation carries its authors too.
    let supporting = list(&v["sections"]["existing_evidence"]["supporting"]);
    let cited = supporting
        .iter()
        .find(|i| i["source"]["id"] == docs["id"])
        .expect("a card citing the docs");
    assert_eq!(cited["source"]["year"], 2025);
    // The next research pass is told the list is partial.
    let prompt = stdout(&p.cmd().args(["prompt", "06"]).output().unwrap());
    assert!(
        prompt.contains("Derek G. Murray, Jiří Šimša, Ana Klimovic, Ihor Indyk, et al."),
        "{prompt}"
    );
}

#[test]
fn a_rationale_does_not_open_with_a_raw_claim_id() {
    let p = Project::seeded();
    p.record_fixture_run();
    p.write("review.md", fixture_report("review-06.md"));
    p.record(&["--report", "review.md"]);
    let v = publish(&p);
    let groups = &v["sections"]["existing_evidence"];
    let mut seen = 0;
    for g in ["supporting", "qualifying", "contradictory", "unresolved"] {
        for item in list(&groups[g]) {
            let id = item["evidence"]["section"].as_str().unwrap();
            let texts = [
                item["interpretation"]["rationale"].as_str().unwrap(),
                item["evidence"]["summary"].as_str().unwrap(),
            ];
            for text in texts {
                assert!(
                    !text.starts_with(&format!("{id}:")),
                    "{g}: {text:?} opens with its claim id"
                );
            }
            seen += 1;
        }
    }
    assert!(seen >= 8);
    let first = &groups["supporting"][0];
    assert_eq!(first["evidence"]["section"], "sleep-speedup-7.4x");
    assert!(
        first["interpretation"]["rationale"]
            .as_str()
            .unwrap()
            .starts_with("The recorded run scales 7.79x"),
        "{:?}",
        first["interpretation"]
    );
}

/// What chapter.yaml says of the notebook before any run of it.
const UNVERIFIED_NOTE: &str = "is unverified unless a recorded run says so.";

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn the_prompt_does_not_call_a_notebook_with_a_recorded_run_unverified() {
    let Some(python) = crate::notebook::kernel::kernel_python(
        "the_prompt_does_not_call_a_notebook_with_a_recorded_run_unverified",
    ) else {
        return;
    };
    let _g = exclusive();
    let p = Project::seeded();
    let prompt = |p: &Project| stdout(&p.cmd().args(["prompt", "06"]).output().unwrap());
    // No run yet: the note stands.
    assert!(prompt(&p).contains(UNVERIFIED_NOTE));
    let nb = crate::notebook::notebook(vec![crate::notebook::code(
        "check",
        "x = 21\nassert x * 2 == 42\nprint('the answer holds')",
    )]);
    crate::notebook::without_notebook_claims(&p);
    p.write("pass.ipynb", nb);
    let out = p
        .cmd()
        .args(["notebook", "add", "06", "pass.ipynb"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    crate::notebook::run_passing(&p, &python, &["06", "--cell-timeout", "60"]);
    let text = prompt(&p);
    assert!(
        text.contains("What the chapter's notebook did in its latest recorded run"),
        "{text}"
    );
    assert!(
        !text.contains(UNVERIFIED_NOTE),
        "the recorded run says what it did: {text}"
    );
    assert!(text.contains(
        "The notebook exists in the published inventory. What it did in its latest recorded run is given below."
    ));
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_notebook_run_recorded_between_two_research_runs_is_new_in_the_delta() {
    let Some(python) = crate::notebook::kernel::kernel_python(
        "a_notebook_run_recorded_between_two_research_runs_is_new_in_the_delta",
    ) else {
        return;
    };
    let _g = exclusive();
    let p = Project::seeded();
    p.record_fixture_run();
    p.write("review.md", fixture_report("review-06.md"));
    p.record(&["--report", "review.md"]);
    let before = count(&publish(&p)["summary"]["evidence_relations"]);
    let nb = crate::notebook::notebook(vec![crate::notebook::code("check", "assert 21 * 2 == 42")]);
    crate::notebook::without_notebook_claims(&p);
    p.write("pass.ipynb", nb);
    let out = p
        .cmd()
        .args(["notebook", "add", "06", "pass.ipynb"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    crate::notebook::run_passing(&p, &python, &["06", "--cell-timeout", "60"]);
    p.record(&["--report", "review.md"]);
    let v = publish(&p);
    let now = count(&v["summary"]["evidence_relations"]);
    assert_eq!(now, before + 1, "the notebook run is one more relation");
    assert_eq!(
        relations(&v),
        (before, 1, 0),
        "the earlier run had no notebook run to show: {:?}",
        v["delta"]
    );
}
