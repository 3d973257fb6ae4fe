//! `claims check` reads what every kernel of the run printed: a number that
//! varies from kernel to kernel is said to vary, and a sentence stating
//! one value of it agrees only when every kernel bears it out.

use super::check::{claims_check, finding};
use super::{BOOK, KernelBook, kernel_book, markdown, run_notebooks};
use crate::helpers::{stderr, stdout};
use crate::notebook::{code, notebook};

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_value_that_varies_across_kernels_is_said_to_vary_and_agrees_only_in_every_kernel() {
    let Some(KernelBook {
        python,
        p,
        turn: _turn,
    }) = kernel_book(
        "a_value_that_varies_across_kernels_is_said_to_vary_and_agrees_only_in_every_kernel",
    )
    else {
        return;
    };
    // Chapter 03's mean is seeded per kernel: its "about 1.05" holds in
    // every kernel, and the line says the value varied.
    run_notebooks(&p, &python, &[&format!("{BOOK}/03"), "--repeat", "3"]);
    let out = claims_check(&p, "03");
    let text = stdout(&out);
    let agrees = finding(&text, "AGREES", "notebook cell m-mean");
    assert!(
        agrees.contains("cell 'draw' printed `mean: 1.0"),
        "{agrees}"
    );
    assert!(agrees.contains("(varies: 1.0"), "{agrees}");
    assert!(agrees.contains(" across 3 kernels)"), "{agrees}");

    // A count that is 7 in the first and third kernel and 8 in the second:
    // the sentence's 7 is not what every run prints.
    let counter = p.path("batch-counter");
    let nb = notebook(vec![
        markdown("m-batches", "## Batches\n\nThe loader yields 7 batches."),
        code(
            "count",
            &format!(
                "import pathlib\nc = pathlib.Path({:?})\nn = int(c.read_text()) if c.exists() else 0\nc.write_text(str(n + 1))\nprint(f\"batches: {{7 + n % 2}}\")",
                counter.to_str().unwrap()
            ),
        ),
    ]);
    p.write("02-varies.ipynb", nb);
    let added = p
        .cmd()
        .args(["notebook", "add", &format!("{BOOK}/02"), "02-varies.ipynb"])
        .output()
        .unwrap();
    assert!(added.status.success(), "{}", stderr(&added));
    run_notebooks(&p, &python, &[&format!("{BOOK}/02"), "--repeat", "3"]);
    let out = claims_check(&p, "02");
    let text = stdout(&out);
    let differs = finding(&text, "DIFFERS", "notebook cell m-batches");
    assert!(
        differs.contains("states 7, cell 'count' printed 7 to 8 across 3 kernels: `batches: 7`"),
        "{differs}"
    );
    assert_eq!(out.status.code(), Some(1), "a lead to look at: {text}");
}
