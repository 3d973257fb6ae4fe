//! The notebook claims' view in words (issue 53, trial defects 11 to 13):
//! a run of a notebook added from a file is of the chapter as it is now
//! when it ran the current notebook and revision; the view follows
//! claims.yaml as it is now (claims deleted since the run are not shown,
//! claims added or changed since are UNRUN, and it says so); `history`
//! gives each notebook claim's verdict with its cell under the run.

use super::{BOOK, CLAIMS_01, PROSE_01, notebook_01, write_claims};
use crate::helpers::{Project, exclusive, stderr, stdout};
use crate::notebook::kernel::kernel_python;

/// What a command printed; it must exit with a status.
fn text_of(p: &Project, args: &[&str]) -> String {
    let out = p.cmd().args(args).output().unwrap();
    assert!(out.status.code().is_some(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// Chapter 01 of the tiny book registered with its notebook from a file
/// (`chapter new --notebook 01.ipynb`: chapter.yaml names the file, not a
/// URL), with `claims`, and one notebook run of it.
fn chapter_from_file_run(p: &Project, python: &std::path::Path, claims: &str) {
    p.write("01.txt", PROSE_01);
    p.write("01.ipynb", notebook_01());
    let out = p
        .cmd()
        .args([
            "chapter",
            "new",
            &format!("{BOOK}/01"),
            "01.txt",
            "--title",
            "Linear layers",
            "--book-title",
            "Tiny Book",
            "--notebook",
            "01.ipynb",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    write_claims(p, "01", claims);
    let out = p
        .cmd()
        .args(["notebook", "run", "tiny-book/01", "--python"])
        .arg(python)
        .output()
        .unwrap();
    assert!(out.status.code().is_some(), "{}", stderr(&out));
}

/// Chapter 01's claims with a second notebook claim on the same cell.
fn two_claims() -> String {
    format!(
        "{CLAIMS_01}- id: params-over-100
  quote: A layer from 10 inputs to 10 outputs has 110 parameters.
  location: notebook, Counting parameters
  reads:
    params: {{cell: count, label: 'params:'}}
  metric: nb.params
  stated: {{value: 110, tolerance: 0}}
  reproduce: {{at_least: 100}}
"
    )
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_current_run_of_a_notebook_added_from_a_file_is_of_the_chapter_as_it_is_now() {
    let Some(python) = kernel_python(
        "a_current_run_of_a_notebook_added_from_a_file_is_of_the_chapter_as_it_is_now",
    ) else {
        return;
    };
    let _turn = exclusive();
    let p = Project::seeded();
    chapter_from_file_run(&p, &python, CLAIMS_01);

    let status = text_of(&p, &["status", "tiny-book/01"]);
    assert!(
        status.contains("    claims: 1 notebook (1 reproduced); notebook claims from notebook run"),
        "{status}"
    );
    assert!(!status.contains("copy, not the published"), "{status}");
    assert!(!status.contains("to decide them"), "{status}");
    // Never "claims unchecked" beside notebook claims that were checked.
    assert!(!status.contains("claims unchecked\n"), "{status}");
    assert!(
        status.contains(
            "    no experiment recorded: pipeline claims (over the chapter's tables) unchecked"
        ),
        "{status}"
    );
    let prompt = text_of(&p, &["prompt", "tiny-book/01"]);
    assert!(!prompt.contains("not yet about the chapter"), "{prompt}");
    assert!(
        !prompt.contains("Read these verdicts with care"),
        "{prompt}"
    );
    let report = text_of(&p, &["report", "tiny-book/01"]);
    assert!(report.contains("| keep |"), "{report}");
    assert!(
        !report.contains("run the notebook claims again"),
        "{report}"
    );
    let out = p.cmd().arg("site").output().unwrap();
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    let page = std::fs::read_to_string(p.path("build/site/tiny-book/01.html")).unwrap();
    assert!(!page.contains("not of the chapter as it is now"), "{page}");
    assert!(!page.contains("To decide them"), "{page}");
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn the_view_follows_claims_yaml_as_it_is_now() {
    let Some(python) = kernel_python("the_view_follows_claims_yaml_as_it_is_now") else {
        return;
    };
    let _turn = exclusive();
    let p = Project::seeded();
    chapter_from_file_run(&p, &python, &two_claims());
    let status = text_of(&p, &["status", "tiny-book/01"]);
    assert!(
        status.contains("    claims: 2 notebook (2 reproduced)"),
        "{status}"
    );

    // A claim deleted since the run is not shown.
    write_claims(&p, "01", CLAIMS_01);
    let status = text_of(&p, &["status", "tiny-book/01"]);
    assert!(
        status.contains("    claims: 1 notebook (1 reproduced)"),
        "{status}"
    );
    for args in [&["prompt", "tiny-book/01"][..], &["report", "tiny-book/01"]] {
        let text = text_of(&p, args);
        assert!(!text.contains("params-over-100"), "{args:?}: {text}");
    }

    // A claim added since is UNRUN, not decided by that run.
    let added = two_claims().replace("params-over-100", "params-at-least-100");
    write_claims(&p, "01", &added);
    let status = text_of(&p, &["status", "tiny-book/01"]);
    assert!(
        status.contains("    claims: 2 notebook (1 reproduced, 1 unrun)"),
        "{status}"
    );
    assert!(
        status.contains(
            "claims.yaml has notebook claims the run did not decide: params-at-least-100"
        ),
        "{status}"
    );
    assert!(status.contains("to decide them: notebook run"), "{status}");
    let prompt = text_of(&p, &["prompt", "tiny-book/01"]);
    assert!(
        prompt.contains("params-at-least-100 (") && prompt.contains("UNRUN"),
        "{prompt}"
    );

    // A claim whose criterion changed since the run is not read as decided.
    let changed = added.replace("{between: [110, 110]}", "{between: [100, 120]}");
    write_claims(&p, "01", &changed);
    let status = text_of(&p, &["status", "tiny-book/01"]);
    assert!(
        status.contains("    claims: 2 notebook (2 unrun; claims.yaml changed since the run)"),
        "{status}"
    );
    assert!(
        status.contains("claims.yaml changed since the run: re-run to decide params-110"),
        "{status}"
    );
    let report = text_of(&p, &["report", "tiny-book/01"]);
    assert!(
        report.contains("claims.yaml changed since the run: re-run to decide params-110"),
        "{report}"
    );
    assert!(!report.contains("| keep |"), "{report}");
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn history_gives_each_notebook_claims_verdict_with_its_cell() {
    let Some(python) = kernel_python("history_gives_each_notebook_claims_verdict_with_its_cell")
    else {
        return;
    };
    let _turn = exclusive();
    let p = Project::seeded();
    chapter_from_file_run(&p, &python, &two_claims());
    let history = text_of(&p, &["history", "tiny-book/01"]);
    assert!(
        history.contains("notebook claims: 2 reproduced"),
        "{history}"
    );
    assert!(
        history.contains(
            "\n      params-110: REPRODUCED: nb.params = 110 in 1 kernel (notebook cell count printed `params: 110`)"
        ),
        "{history}"
    );
    assert!(
        history.contains("\n      params-over-100: REPRODUCED: "),
        "{history}"
    );
    let json: serde_json::Value = serde_json::from_str(&text_of(
        &p,
        &["history", "tiny-book/01", "--format", "json"],
    ))
    .unwrap();
    let runs = json[0]["runs"].as_array().expect("runs");
    assert_eq!(
        runs[0]["notebook_claim_verdicts"].as_array().map(Vec::len),
        Some(2),
        "{json}"
    );

    // History keeps what the run decided, and says which claims are no
    // longer the ones claims.yaml makes: one changed, one deleted.
    super::write_claims(
        &p,
        "01",
        &CLAIMS_01.replace("between: [110, 110]", "between: [100, 120]"),
    );
    let history = text_of(&p, &["history", "tiny-book/01"]);
    assert!(
        history.contains("params-110: REPRODUCED: nb.params = 110 in 1 kernel")
            && history.contains(
                "a run must give exactly 110 (claims.yaml changed this claim since: it is UNRUN now)"
            ),
        "{history}"
    );
    assert!(
        history.contains("a run must give >= 100 (deleted from claims.yaml since)"),
        "{history}"
    );
}
