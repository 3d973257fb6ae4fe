//! The matcher on the issue's own cases, through the binary: the number a
//! sentence states about the printed words differs from what was printed,
//! its ready claim states that number and pastes as printed, and a
//! claims.yaml error is one line.

use super::check::{claims_check, notebook_run, ready_claim};
use super::{BOOK, code, markdown, notebook, tiny_book, write_claims};
use super::{KernelBook, kernel_book};
use crate::helpers::{Project, exclusive, stderr, stdout};
use crate::notebook::kernel::kernel_python;

const CLAIMS_04: &str = "schema: research_companion.claims.v1
chapter: tiny-book/04
claims: []
";

/// Chapter 04: the issue's sentences against outputs that contradict them.
fn chapter_04(p: &Project) {
    p.new_chapter(
        &format!("{BOOK}/04"),
        "# Chapter 4: Counting\nThe environment:\n- Python 3.12.3, 1 CPU\n\nThe final loss is 12.5 here.\n",
        "Counting",
        None,
    );
    let nb = notebook(vec![
        markdown(
            "m-count",
            "# Counting\nA layer from 10 to 12 has 132 parameters.\n\nThe final loss is 12.5 here.",
        ),
        code("count", "print('params: 112')\nprint('final loss: 0.015')"),
    ]);
    p.write("04.ipynb", nb);
    let out = p
        .cmd()
        .args(["notebook", "add", &format!("{BOOK}/04"), "04.ipynb"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    write_claims(p, "04", CLAIMS_04);
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn the_issue_cases_differ_and_their_ready_claims_paste_as_printed() {
    let Some(python) =
        kernel_python("the_issue_cases_differ_and_their_ready_claims_paste_as_printed")
    else {
        return;
    };
    let _turn = exclusive();
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    chapter_04(&p);
    notebook_run(&p, &python, "04");
    let out = claims_check(&p, "04");
    let text = stdout(&out);
    assert!(
        text.contains("DIFFERS \"A layer from 10 to 12 has 132 parameters.\" (notebook cell m-count): states 132, cell 'count' printed 112: `params: 112`"),
        "{text}"
    );
    assert!(
        text.contains("DIFFERS \"The final loss is 12.5 here.\" (notebook cell m-count): states 12.5, cell 'count' printed 0.015"),
        "{text}"
    );
    // A heading is its own unit, not glued to the sentence after it, and
    // no sentence spans a list.
    assert!(!text.contains("Counting A layer"), "{text}");
    assert!(!text.contains("Counting The environment"), "{text}");
    assert!(!text.contains("CPU The final"), "{text}");
    assert!(
        text.contains("DIFFERS \"The final loss is 12.5 here.\" (prose)"),
        "{text}"
    );
    let first = ready_claim(&text, "132 parameters");
    assert!(first.starts_with("- id: "), "{first}");
    assert!(
        first.contains("  stated: {value: 132, tolerance: 0}\n"),
        "{first}"
    );
    let second = ready_claim(&text, "12.5 here");
    assert!(
        second.contains("  stated: {value: 12.5, tolerance: 0.05}\n"),
        "{second}"
    );
    // Both pasted as printed under notebook_claims: load and are quoted.
    write_claims(
        &p,
        "04",
        &format!("{CLAIMS_04}notebook_claims:\n{first}{second}"),
    );
    let out = claims_check(&p, "04");
    let text = stdout(&out);
    assert!(text.contains("quotes it)"), "{text}\n{}", stderr(&out));
    assert!(!text.contains("ready claim (paste"), "{text}");
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
}

#[test]
fn a_claims_yaml_error_is_the_one_line_without_the_report() {
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    write_claims(
        &p,
        "02",
        &format!(
            "{}notebook_claims:\n- id: bad\n  quote: The unscaled run diverges.\n  location: prose\n  reads:\n    y: {{cell: train, pattern: 'loss: ([0-9.]+'}}\n  metric: nb.y\n  stated: {{value: 1, tolerance: 0}}\n  reproduce: {{at_least: 0}}\n",
            super::CLAIMS_02
        ),
    );
    let out = claims_check(&p, "02");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "only the error line");
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("claim 'bad'"), "{err}");
}

const CLAIMS_05: &str = "schema: research_companion.claims.v1
chapter: tiny-book/05
claims: []
notebook_claims:
- id: keep-7
  quote: '`drop_last=False` must yield 7 batches (last has 4)'
  location: notebook
  reads:
    keep: {cell: e1, label: 'keep_last:'}
  metric: nb.keep
  stated: {value: 7, tolerance: 0}
  reproduce: {between: [7, 7]}
- id: keep-last-4
  quote: '`drop_last=False` must yield 7 batches (last has 4)'
  location: notebook
  reads:
    last: {cell: e1, label: 'keep_last:', nth: 2}
  metric: nb.last
  stated: {value: 4, tolerance: 0}
  reproduce: {between: [4, 4]}
";

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_sentence_several_claims_quote_credits_the_claim_that_reads_the_number() {
    let Some(python) =
        kernel_python("a_sentence_several_claims_quote_credits_the_claim_that_reads_the_number")
    else {
        return;
    };
    let _turn = exclusive();
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    p.new_chapter(&format!("{BOOK}/05"), "Batches.\n", "Batches", None);
    let nb = notebook(vec![
        markdown(
            "m-e1",
            "100 samples: `drop_last=False` must yield 7 batches (last has 4).",
        ),
        code(
            "e1",
            "print('keep_last: 7 batches, last=(4, 4)')\nprint('drop_last: 6 batches, last=(16, 4)')",
        ),
    ]);
    p.write("05.ipynb", nb);
    let out = p
        .cmd()
        .args(["notebook", "add", &format!("{BOOK}/05"), "05.ipynb"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    write_claims(&p, "05", CLAIMS_05);
    notebook_run(&p, &python, "05");
    let text = stdout(&claims_check(&p, "05"));
    let four = text
        .lines()
        .find(|l| l.starts_with("  AGREES") && l.contains("states 4;"))
        .unwrap_or_else(|| panic!("4 agrees in {text}"));
    assert!(
        four.contains(
            "printed `keep_last: 7 batches, last=(4, 4)` (claim 'keep-last-4' quotes it)"
        ),
        "{four}"
    );
    let seven = text
        .lines()
        .find(|l| l.starts_with("  AGREES") && l.contains("states 7;"))
        .unwrap_or_else(|| panic!("7 agrees in {text}"));
    assert!(seven.contains("(claim 'keep-7' quotes it)"), "{seven}");
}

const CLAIMS_06: &str = "schema: research_companion.claims.v1
chapter: tiny-book/06
claims: []
";

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_sentence_whose_section_failed_or_whose_label_head_is_missing_is_not_printed() {
    let Some(KernelBook {
        python,
        p,
        turn: _turn,
    }) = kernel_book(
        "a_sentence_whose_section_failed_or_whose_label_head_is_missing_is_not_printed",
    )
    else {
        return;
    };
    p.new_chapter(
        &format!("{BOOK}/06"),
        "# Checkpoints\n\nThe old checkpoint resumes at step 120.\n",
        "Checkpoints",
        None,
    );
    let nb = notebook(vec![
        markdown(
            "m-ckpt",
            "The new checkpoint resumes at its restored step, 300.",
        ),
        code("c-ckpt", "print('restored step: 300')"),
        markdown(
            "m-old",
            "The old checkpoint resumes at the restored step 120.",
        ),
        code("c-old", "raise KeyError('step')"),
    ]);
    p.write("06.ipynb", nb);
    let out = p
        .cmd()
        .args(["notebook", "add", &format!("{BOOK}/06"), "06.ipynb"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    write_claims(&p, "06", CLAIMS_06);
    notebook_run(&p, &python, "06");
    let text = stdout(&claims_check(&p, "06"));
    assert!(!text.contains("  DIFFERS "), "{text}");
    assert!(
        text.contains(
            "NOT PRINTED \"The old checkpoint resumes at the restored step 120.\" (notebook cell m-old): 120"
        ),
        "{text}"
    );
    assert!(
        text.contains("NOT PRINTED \"The old checkpoint resumes at step 120.\" (prose): 120"),
        "{text}"
    );
}
