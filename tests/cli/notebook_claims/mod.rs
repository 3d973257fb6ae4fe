//! Claims over what a chapter's notebook prints (issue 53), on a book of
//! three small chapters the tests write, each with a pure-Python notebook:
//!
//! - `tiny-book/01` ("Linear layers"): its prose and markdown say a 10-to-10
//!   layer has 110 parameters, and the notebook prints `params: 110` (and
//!   has a code cell, `quiet`, that prints nothing).
//! - `tiny-book/02` ("Scaling"): its markdown says the unscaled run
//!   diverges with a final loss of 12.5; the notebook prints
//!   `final loss: 0.015`.
//! - `tiny-book/03` ("Noise"): one cell prints a mean that varies from
//!   kernel to kernel (seeded per kernel), another fails in the first
//!   kernel of a run and passes in the others (a counter file outside the
//!   run's folder tells the kernels apart).
//!
//! The claims each chapter's claims.yaml gets are in [`CLAIMS_01`],
//! [`CLAIMS_02`] and [`CLAIMS_03`]; tests write other ones where they need.

mod check;
mod credit;
mod decide;
mod r#match;
mod reproduce;
mod runfix;
mod show;
mod varies;
mod words;

use std::path::{Path, PathBuf};
use std::sync::MutexGuard;

use serde_json::{Value, json};

use crate::helpers::{Project, exclusive, stderr};
use crate::notebook::kernel::kernel_python;
use crate::notebook::{code, notebook};

/// The book's id.
pub const BOOK: &str = "tiny-book";

/// A markdown cell.
pub fn markdown(id: &str, source: &str) -> Value {
    json!({"cell_type": "markdown", "id": id, "metadata": {}, "source": source})
}

/// Chapter 01's prose.
pub const PROSE_01: &str = "A linear layer that maps 10 inputs to 10 outputs has 110 parameters: 100 weights and 10 biases.\n\nThe layer is the unit every later chapter stacks.\n";

/// Chapter 02's prose.
pub const PROSE_02: &str = "Scaling the inputs keeps training stable. The unscaled run diverges.\n";

/// Chapter 03's prose.
pub const PROSE_03: &str = "Noise averages out: the mean of many draws sits near 1.05.\n";

/// Chapter 01's notebook: text and outputs agree.
pub fn notebook_01() -> String {
    notebook(vec![
        markdown(
            "m-count",
            "## Counting parameters\n\nA layer from 10 inputs to 10 outputs has 110 parameters.",
        ),
        code(
            "count",
            "n_in, n_out = 10, 10\nparams = n_in * n_out + n_out\nprint(f\"params: {params}\")",
        ),
        code("quiet", "weights = n_in * n_out"),
        code(
            "check",
            "assert params == 110\nprint('parameter count pinned down')",
        ),
    ])
}

/// Chapter 02's notebook: its markdown states a final loss its output
/// contradicts.
pub fn notebook_02() -> String {
    notebook(vec![
        markdown(
            "m-diverge",
            "## Without scaling\n\nThe unscaled run diverges: the final loss is 12.5.",
        ),
        code(
            "train",
            "loss = 1.0\nfor step in range(50):\n    loss *= 0.92\nprint(f\"final loss: {loss:.3f}\")",
        ),
    ])
}

/// Chapter 03's notebook: a value seeded per kernel, and a cell that fails
/// in the first kernel only (`counter` is a file outside the run's folder).
pub fn notebook_03(counter: &Path) -> String {
    notebook(vec![
        markdown(
            "m-mean",
            "## Averaging\n\nThe mean of the draws is about 1.05.",
        ),
        code(
            "draw",
            "import os, random\nrandom.seed(os.getpid())\nmean = sum(1.0 + random.random() * 0.1 for _ in range(200)) / 200\nprint(f\"mean: {mean:.4f}\")",
        ),
        code(
            "flaky",
            &format!(
                "import pathlib\nc = pathlib.Path({:?})\nn = int(c.read_text()) if c.exists() else 0\nc.write_text(str(n + 1))\nassert n % 4 != 0, 'the first kernel of each run fails'\nprint(f\"kernel: {{n}}\")",
                counter.to_str().unwrap()
            ),
        ),
    ])
}

/// Chapter 01's claims: the parameter count.
pub const CLAIMS_01: &str = "schema: research_companion.claims.v1
chapter: tiny-book/01
claims: []
notebook_claims:
- id: params-110
  quote: A layer from 10 inputs to 10 outputs has 110 parameters.
  location: notebook, Counting parameters
  reads:
    params: {cell: count, label: 'params:'}
  metric: nb.params
  stated: {value: 110, tolerance: 0}
  reproduce: {between: [110, 110]}
";

/// Chapter 02's claims: none yet (the test pastes the one `claims check`
/// gives).
pub const CLAIMS_02: &str = "schema: research_companion.claims.v1
chapter: tiny-book/02
claims: []
";

/// Chapter 03's claims: the varying mean, and a value the failing cell
/// prints.
pub const CLAIMS_03: &str = "schema: research_companion.claims.v1
chapter: tiny-book/03
claims: []
notebook_claims:
- id: mean-near-1.05
  quote: the mean of many draws sits near 1.05.
  location: opening
  reads:
    mean: {cell: draw, pattern: 'mean: ([0-9.]+)'}
  metric: nb.mean
  stated: {value: 1.05, tolerance: 0.01}
  reproduce: {between: [1.03, 1.07]}
- id: flaky-kernel
  quote: The mean of the draws is about 1.05.
  location: notebook, Averaging
  reads:
    k: {cell: flaky, label: 'kernel:'}
  metric: nb.k
  stated: {value: 1, tolerance: 0}
  reproduce: {at_least: 0}
";

/// Writes the three chapters, stores each notebook with `notebook add`, and
/// writes each claims.yaml. `counter` is chapter 03's counter file.
pub fn tiny_book(p: &Project, counter: &Path) {
    p.new_chapter(
        &format!("{BOOK}/01"),
        PROSE_01,
        "Linear layers",
        Some("Tiny Book"),
    );
    p.new_chapter(&format!("{BOOK}/02"), PROSE_02, "Scaling", None);
    p.new_chapter(&format!("{BOOK}/03"), PROSE_03, "Noise", None);
    for (ch, nb, claims) in [
        ("01", notebook_01(), CLAIMS_01),
        ("02", notebook_02(), CLAIMS_02),
        ("03", notebook_03(counter), CLAIMS_03),
    ] {
        add_notebook(p, ch, &format!("{ch}.ipynb"), nb);
        write_claims(p, ch, claims);
    }
}

/// A kernel test's start: the Python whose kernels run the notebooks, the
/// test's turn at the kernels (bind it, as `turn: _turn`, to hold it), and a project holding
/// the tiny book.
pub struct KernelBook {
    pub python: PathBuf,
    pub p: Project,
    pub turn: MutexGuard<'static, ()>,
}

/// The tiny book for test `test`, or None (said as SKIPPED) when no Python
/// here runs a kernel.
pub fn kernel_book(test: &str) -> Option<KernelBook> {
    let python = kernel_python(test)?;
    let turn = exclusive();
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    Some(KernelBook { python, p, turn })
}

/// Writes notebook `nb` as `file` and stores it as chapter `ch`'s current
/// notebook with `notebook add`.
pub fn add_notebook(p: &Project, ch: &str, file: &str, nb: String) {
    p.write(file, nb);
    let out = p
        .cmd()
        .args(["notebook", "add", &format!("{BOOK}/{ch}"), file])
        .output()
        .unwrap();
    assert!(out.status.success(), "notebook add {ch}: {}", stderr(&out));
}

/// Writes chapter `ch`'s claims.yaml.
pub fn write_claims(p: &Project, ch: &str, yaml: &str) {
    std::fs::write(claims_path(p, ch), yaml).unwrap();
}

/// Chapter `ch`'s claims.yaml.
pub fn claims_path(p: &Project, ch: &str) -> std::path::PathBuf {
    p.path(&format!("book-snapshots/{BOOK}/{ch}/claims.yaml"))
}

/// `notebook run ARGS --python P`, which must end as a run does (0, or 1
/// when a cell or a claim failed), never with a refusal.
pub fn run_notebooks(p: &Project, python: &Path, args: &[&str]) -> std::process::Output {
    let out = p
        .cmd()
        .args(["notebook", "run"])
        .args(args)
        .arg("--python")
        .arg(python)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "notebook run {args:?}: {}\n{}",
        crate::helpers::stdout(&out),
        stderr(&out)
    );
    out
}
