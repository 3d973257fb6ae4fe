//! `notebook run` decides the chapter's notebook claims from the kernels'
//! printed output and keeps them in the run file and the record.

use super::{BOOK, run_notebooks, tiny_book};
use crate::helpers::{Project, exclusive};
use crate::notebook::kernel::kernel_python;

/// The latest notebook run file of chapter `ch`, parsed.
pub fn latest_run_file(p: &Project, ch: &str) -> serde_yaml::Value {
    let dir = p.path(&format!("records/{BOOK}/{ch}"));
    let mut runs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|f| f.to_string_lossy().ends_with(".notebook.yaml"))
        .collect();
    runs.sort();
    let text = std::fs::read_to_string(runs.last().expect("a notebook run file")).unwrap();
    serde_yaml::from_str(&text).unwrap()
}

fn verdict_of<'a>(run: &'a serde_yaml::Value, claim: &str) -> &'a serde_yaml::Value {
    run["claims"]
        .as_sequence()
        .expect("the run file keeps the claims")
        .iter()
        .find(|c| c["claim"].as_str() == Some(claim))
        .unwrap_or_else(|| panic!("claim {claim} in {run:?}"))
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_notebook_run_decides_each_claim_from_what_the_kernels_printed() {
    let Some(python) =
        kernel_python("a_notebook_run_decides_each_claim_from_what_the_kernels_printed")
    else {
        return;
    };
    let _turn = exclusive();
    let p = Project::seeded();
    let counter = p.path("kernel-counter");
    tiny_book(&p, &counter);
    run_notebooks(
        &p,
        &python,
        &["tiny-book/01", "tiny-book/03", "--repeat", "4"],
    );
    let one = latest_run_file(&p, "01");
    let params = verdict_of(&one, "params-110");
    assert_eq!(params["verdict"].as_str(), Some("REPRODUCED"), "{params:?}");
    assert_eq!(params["measured"].as_f64(), Some(110.0));
    assert_eq!(params["printed"][0].as_str(), Some("params: 110"));
    let three = latest_run_file(&p, "03");
    let mean = verdict_of(&three, "mean-near-1.05");
    assert!(
        mean["spread"]["low"].as_f64().unwrap() < mean["spread"]["high"].as_f64().unwrap(),
        "a value seeded per kernel varies: {mean:?}"
    );
    let flaky = verdict_of(&three, "flaky-kernel");
    assert_eq!(flaky["verdict"].as_str(), Some("INCONCLUSIVE"), "{flaky:?}");
    let reason = flaky["reason"].as_str().unwrap();
    assert!(
        reason.contains("in 1 of 4 kernels")
            && reason.contains("cell 'flaky' raised AssertionError in kernel 1"),
        "{reason}"
    );
}
