//! A failing notebook cell is named by the line that raised, as its
//! traceback says, not only by its first line: `notebook run`, `status`,
//! `history`, the prompt, the report draft, `publish` and the site all say
//! `line 4 `assert o1 == o3``. Needs the notebook Python (SKIPPED without).

use crate::helpers::{CHAPTER, Project, exclusive, stderr, stdout};
use crate::notebook::kernel::kernel_python;
use crate::notebook::{code, notebook, run};

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_failing_cell_is_named_by_the_line_its_traceback_names() {
    let Some(python) = kernel_python("a_failing_cell_is_named_by_the_line_its_traceback_names")
    else {
        return;
    };
    let _g = exclusive();
    let p = Project::with_fixture_records();
    crate::notebook::without_notebook_claims(&p);
    p.write(
        "06-fail.ipynb",
        notebook(vec![
            code("outputs", "o1 = 1\no2 = 1\no3 = 2"),
            code(
                "compare",
                "assert o1 == o2\n\n# the third output too\nassert o1 == o3\nprint('never')",
            ),
        ]),
    );
    let out = p
        .cmd()
        .args(["notebook", "add", "06", "06-fail.ipynb"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&p, &python, &["06", "--cell-timeout", "60"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let named = "compare FAIL (line 4 `assert o1 == o3`: AssertionError)";
    let text = stdout(&out);
    assert!(text.contains(named), "{text}");
    // The cell keeps its first line, to find it by; the failure says where.
    let row = text.lines().find(|l| l.contains("  compare  ")).unwrap();
    assert!(
        row.contains("assert o1 == o2  line 4 `assert o1 == o3`: AssertionError"),
        "{row}"
    );
    // The run file keeps the line and its text.
    let dir = p.path(&format!("records/{CHAPTER}"));
    let file = crate::helpers::files_under(&dir)
        .into_iter()
        .find(|f| f.to_string_lossy().ends_with(".notebook.yaml"))
        .unwrap();
    let yaml = std::fs::read_to_string(file).unwrap();
    assert!(
        yaml.contains("failed_line:\n      line: 4\n      text: assert o1 == o3\n"),
        "{yaml}"
    );
    let shows = |args: &[&str]| stdout(&p.cmd().args(args).output().unwrap());
    for args in [
        &["status"][..],
        &["history", "06"],
        &["prompt", "06"],
        &["report", "06"],
        &["publish", "06"],
    ] {
        let shown = shows(args);
        assert!(
            shown.contains("line 4 `assert o1 == o3`"),
            "{args:?}: {shown}"
        );
    }
    p.cmd().args(["site", "--out", "site"]).assert().success();
    let page = std::fs::read_to_string(p.path(&format!("site/{CHAPTER}.html"))).unwrap();
    assert!(page.contains("line 4 `assert o1 == o3`"), "{page}");
}
