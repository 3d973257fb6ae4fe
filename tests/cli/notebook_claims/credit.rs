//! Which numbers a claim settles: only the number it reads (or states). A
//! claim quoting a sentence for one of its numbers leaves the others as
//! they were, a DIFFERS among them still a lead with its ready claim.

use super::check::{claims_check, finding, notebook_run, ready_claim};
use super::{BOOK, KernelBook, code, kernel_book, markdown, notebook, write_claims};
use crate::helpers::{Project, stderr, stdout};

const CLAIMS_05: &str = "schema: research_companion.claims.v1
chapter: tiny-book/05
claims: []
";

/// Chapter 05: one sentence, two numbers; the count is printed as stated,
/// the sum otherwise. Another cell's code happens to hold the stated sum.
fn chapter_05(p: &Project) {
    p.new_chapter(
        &format!("{BOOK}/05"),
        "The list is built once. Its sum is 99.\n",
        "Sums",
        None,
    );
    let nb = notebook(vec![
        markdown(
            "m-list",
            "## The list\n\nThe list has 12 items and their sum is 99.",
        ),
        code(
            "count",
            "items = list(range(1, 13))\nprint(f\"items: {len(items)}\")\nprint(f\"sum: {sum(items) - 0}\")",
        ),
        markdown("m-other", "## Elsewhere\n\nAn unrelated constant."),
        code("other", "limit = 99\nprint('set')"),
        markdown("m-setup", "## Setup\n\nThe run uses a batch of 32."),
        code("setup", "batch = 32\nprint(f'batch: {batch}')"),
    ]);
    p.write("05.ipynb", nb);
    let out = p
        .cmd()
        .args(["notebook", "add", &format!("{BOOK}/05"), "05.ipynb"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    write_claims(p, "05", CLAIMS_05);
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_claim_settles_only_the_number_it_reads() {
    let Some(KernelBook {
        python,
        p,
        turn: _turn,
    }) = kernel_book("a_claim_settles_only_the_number_it_reads")
    else {
        return;
    };
    chapter_05(&p);
    notebook_run(&p, &python, "05");
    let text = stdout(&claims_check(&p, "05"));
    // `limit = 99` is in another cell's code, not in the code of the cell
    // the sentence differs from: the sum is still a lead, in the notebook's
    // markdown and in the prose.
    let differs = finding(&text, "DIFFERS", "states 99");
    assert!(differs.contains("printed 78: `sum: 78`"), "{differs}");
    let prose = finding(&text, "DIFFERS", "(prose)");
    assert!(prose.contains("states 99"), "{prose}");
    let agrees = finding(&text, "AGREES", "states 12");
    assert!(agrees.contains("`items: 12`"), "{agrees}");

    // A value the cell's own code sets is echoed, not a result: it agrees,
    // and gets no ready claim.
    let setting = finding(&text, "AGREES", "states 32");
    let after = &text[text.find(setting).unwrap() + setting.len()..];
    assert!(
        after.starts_with(
            "\n    no ready claim: the cell's code sets this value; it echoes a setting, not a result"
        ),
        "{text}"
    );

    // Paste only the count's ready claim: it settles 12, not 99.
    let claim = ready_claim(&text, &agrees[..agrees.find("states 12").unwrap()]);
    write_claims(&p, "05", &format!("{CLAIMS_05}notebook_claims:\n{claim}"));
    let out = claims_check(&p, "05");
    let text = stdout(&out);
    let agrees = finding(&text, "AGREES", "states 12");
    assert!(agrees.contains("quotes it)"), "{agrees}");
    let differs = finding(&text, "DIFFERS", "states 99");
    assert!(!differs.contains("quotes it"), "{differs}");
    assert_eq!(out.status.code(), Some(1), "still a lead: {text}");
    let prompt = p
        .cmd()
        .args(["prompt", &format!("{BOOK}/05")])
        .output()
        .unwrap();
    let prompt = stdout(&prompt);
    assert!(
        prompt.contains(
            "\"The list has 12 items and their sum is 99.\" (notebook cell m-list) states 99"
        ),
        "{prompt}"
    );
}
