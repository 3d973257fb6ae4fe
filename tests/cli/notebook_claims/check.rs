//! `claims check` through the notebook: the notebook claims' problems (one
//! line each naming file, claim and field, exit 2, nothing stored), and
//! the numbers the chapter states held against what its latest notebook
//! run printed (AGREES, DIFFERS with a ready claim, NOT PRINTED).

use super::decide::latest_run_file;
use super::{BOOK, CLAIMS_02, claims_path, notebook_01, tiny_book, write_claims};
use super::{KernelBook, kernel_book};
use crate::helpers::{Project, exclusive, stderr, stdout};
use crate::notebook::kernel::kernel_python;

pub fn claims_check(p: &Project, ch: &str) -> std::process::Output {
    p.cmd()
        .args(["claims", "check", &format!("{BOOK}/{ch}")])
        .output()
        .unwrap()
}

pub fn notebook_run(p: &Project, python: &std::path::Path, ch: &str) {
    super::run_notebooks(p, python, &[&format!("{BOOK}/{ch}")]);
}

/// The first line of `claims check`'s text reading `reading` (`AGREES`,
/// `DIFFERS`) that contains `containing`; the test fails showing the text
/// when there is none.
pub fn finding<'a>(text: &'a str, reading: &str, containing: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(&format!("  {reading}")) && l.contains(containing))
        .unwrap_or_else(|| panic!("a {reading} with {containing:?} in {text}"))
}

/// The ready claim `claims check` printed under its DIFFERS or AGREES
/// line, as the author pastes it.
pub fn ready_claim(text: &str, after: &str) -> String {
    let start = text.find(after).expect("the finding");
    text[start..]
        .lines()
        .skip_while(|l| !l.contains("ready claim"))
        .skip(1)
        .take_while(|l| {
            l.starts_with("- ")
                || (l.starts_with("  ")
                    && !l.contains("ready claim")
                    && !l.trim_start().starts_with(|c: char| c.is_uppercase()))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn without_a_notebook_run_claims_check_says_so_and_reads_no_output() {
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    let out = claims_check(&p, "02");
    let text = stdout(&out);
    assert!(
        text.contains("notebook: no notebook run is recorded"),
        "{text}"
    );
    assert!(!text.contains("stated against printed"), "{text}");
    // Chapter 01's claim quotes the notebook's markdown: it is found there.
    let out = claims_check(&p, "01");
    let text = stdout(&out);
    assert!(
        text.contains("claims whose quote is not in the snapshot (0)"),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_stated_number_the_notebook_contradicts_differs_and_its_ready_claim_is_not_reproduced() {
    let Some(KernelBook {
        python,
        p,
        turn: _turn,
    }) = kernel_book(
        "a_stated_number_the_notebook_contradicts_differs_and_its_ready_claim_is_not_reproduced",
    )
    else {
        return;
    };
    notebook_run(&p, &python, "01");
    notebook_run(&p, &python, "02");

    let out = claims_check(&p, "02");
    let text = stdout(&out);
    let differs = finding(&text, "DIFFERS", "");
    assert!(
        differs.contains("states 12.5, cell 'train' printed 0.015: `final loss: 0.015`")
            && differs.contains("words in common: final, loss"),
        "{differs}"
    );
    assert_eq!(out.status.code(), Some(1), "a lead to look at: {text}");
    let claim = ready_claim(&text, "  DIFFERS");
    assert!(claim.starts_with("- id: final-loss-12.5\n"), "{claim}");
    assert!(claim.contains("metric: nb.final_loss"), "{claim}");

    // Pasted under notebook_claims:, the claim is quoted and decided.
    write_claims(&p, "02", &format!("{CLAIMS_02}notebook_claims:\n{claim}"));
    let out = claims_check(&p, "02");
    let text = stdout(&out);
    assert!(
        text.contains("(claim 'final-loss-12.5' quotes it)"),
        "{text}"
    );
    assert!(!text.contains("ready claim"), "{text}");
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    notebook_run(&p, &python, "02");
    let run = latest_run_file(&p, "02");
    let decided = &run["claims"][0];
    assert_eq!(decided["claim"].as_str(), Some("final-loss-12.5"));
    assert_eq!(
        decided["verdict"].as_str(),
        Some("NOT_REPRODUCED"),
        "{decided:?}"
    );
    assert_eq!(decided["measured"].as_f64(), Some(0.015));

    // Chapter 01's prose agrees with what cell `count` printed.
    let out = claims_check(&p, "01");
    let text = stdout(&out);
    let agrees = finding(&text, "AGREES", "(prose)");
    assert!(
        agrees.contains("states 110; cell 'count' printed `params: 110`"),
        "{agrees}"
    );
    assert!(
        text.contains("NOT PRINTED \"A linear layer that maps 10 inputs to 10 outputs has 110 parameters: 100 weights and 10 biases.\" (prose): 10, 10, 100, 10"),
        "{text}"
    );
    let json = p
        .cmd()
        .args(["claims", "check", "tiny-book/01", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let found = v["notebook"]["stated"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["reading"] == "AGREES" && f["source"] == "prose")
        .unwrap();
    assert_eq!(found["cell"], "count");
    assert_eq!(found["ready_claim"]["reads"]["params"]["label"], "params:");
}

/// One bad notebook claim of chapter 01, reading `v` as `read` says.
fn bad_claim(read: &str) -> String {
    format!(
        "schema: research_companion.claims.v1
chapter: tiny-book/01
claims: []
notebook_claims:
- id: bad
  quote: A layer from 10 inputs to 10 outputs has 110 parameters.
  location: notebook
  reads:
    v: {read}
  metric: nb.v
  stated: {{value: 110, tolerance: 0}}
  reproduce: {{between: [110, 110]}}
"
    )
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_notebook_claim_that_cannot_be_read_is_one_line_exit_2_and_nothing_stored() {
    let Some(python) =
        kernel_python("a_notebook_claim_that_cannot_be_read_is_one_line_exit_2_and_nothing_stored")
    else {
        return;
    };
    let _turn = exclusive();
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    notebook_run(&p, &python, "01");
    for (read, field, says) in [
        (
            "{cell: count, pattern: 'params: ([0-9'}",
            "reads.v.pattern",
            "not a valid regular expression",
        ),
        (
            "{cell: nosuch, label: 'params:'}",
            "reads.v.cell",
            "has no code cell with",
        ),
        (
            "{cell: quiet, label: 'params:'}",
            "reads.v.cell",
            "which printed nothing",
        ),
        (
            "{cell: count, pattern: '(1)'}",
            "reads.v.pattern",
            "matches 2 times in what cell 'count' printed",
        ),
        (
            "{cell: count, pattern: '(params)'}",
            "reads.v.pattern",
            "captured 'params' from cell 'count', which is not a number",
        ),
    ] {
        write_claims(&p, "01", &bad_claim(read));
        let before = p.state();
        let out = claims_check(&p, "01");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{read}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{read}: {err}");
        let path = claims_path(&p, "01");
        assert!(
            lines[0].contains(&format!(
                "{}: line 5: claim 'bad': field '{field}'",
                path.display()
            )) && lines[0].contains(says),
            "{read}: {err}"
        );
        assert_eq!(p.state(), before, "{read}: nothing stored or changed");
    }

    // A new notebook makes the run stale: said in words, not read.
    write_claims(&p, "01", super::CLAIMS_01);
    p.write(
        "01b.ipynb",
        notebook_01().replace("params: ", "parameters: "),
    );
    let out = p
        .cmd()
        .args(["notebook", "add", "tiny-book/01", "01b.ipynb"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = claims_check(&p, "01");
    let text = stdout(&out);
    assert!(
        text.contains(
            "notebook: the latest notebook run is stale (the notebook changed since the run"
        ),
        "{text}"
    );
    assert!(!text.contains("AGREES"), "{text}");
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_differs_is_an_unverified_lead_in_the_prompt_and_report_and_never_in_publish() {
    let Some(KernelBook {
        python,
        p,
        turn: _turn,
    }) = kernel_book(
        "a_differs_is_an_unverified_lead_in_the_prompt_and_report_and_never_in_publish",
    )
    else {
        return;
    };
    let lead = "\"The unscaled run diverges: the final loss is 12.5.\" (notebook cell m-diverge) states 12.5; cell train printed 0.015: `final loss: 0.015`";
    let run = |args: &[&str]| {
        let out = p.cmd().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    // Before a run there is no lead.
    assert!(
        !run(&["prompt", "tiny-book/02"]).contains("Unverified leads from the chapter's notebook")
    );
    notebook_run(&p, &python, "02");

    let prompt = run(&["prompt", "tiny-book/02"]);
    let four = &prompt[prompt.find("== 4. Existing evidence ==").unwrap()
        ..prompt.find("== 5. Research objective").unwrap()];
    assert!(
        four.contains("Unverified leads from the chapter's notebook: numbers the text states that notebook run tiny-book:02:"),
        "{four}"
    );
    assert!(four.contains(lead), "{four}");
    assert_eq!(
        prompt
            .matches("final loss is 12.5.\" (notebook cell")
            .count(),
        1
    );

    let report = run(&["report", "tiny-book/02"]);
    let audit = &report
        [report.find("## 2. Claim audit").unwrap()..report.find("## 3. Source ledger").unwrap()];
    assert!(
        audit.contains("Leads from the chapter's notebook, not verdicts"),
        "{audit}"
    );
    assert!(audit.contains(lead), "{audit}");

    let published = run(&["publish", "tiny-book/02"]);
    for never in ["12.5", "final loss", "Leads from", "DIFFERS"] {
        assert!(
            !published.contains(never),
            "{never} in publish: {published}"
        );
    }
}
