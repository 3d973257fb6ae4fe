//! The notebook audit on a large notebook (issue 51, class 6): `notebook
//! check`, `notebook add` and `notebook report` read 100,000 cells in one
//! pass each. The guard below only stops a hang; no time is asserted.

use std::time::Duration;

use serde_json::json;

use crate::helpers::{Project, stderr, stdout};

/// Far beyond what a linear audit needs, even in a debug build on a busy
/// machine; the quadratic audit took minutes.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// A notebook of `n` markdown cells with ids `m-0`, `m-1`, ...; the last
/// cell repeats the first one's id and the one before it has none.
fn big_notebook(n: usize) -> String {
    let mut cells: Vec<serde_json::Value> = (0..n)
        .map(|i| json!({"cell_type": "markdown", "id": format!("m-{i}"), "metadata": {}, "source": format!("Cell {i}.")}))
        .collect();
    cells[n - 1]["id"] = json!("m-0");
    cells[n - 2].as_object_mut().unwrap().remove("id");
    json!({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}).to_string()
}

#[test]
fn a_notebook_of_100k_cells_is_checked_added_and_reported_without_hanging() {
    let n = 100_000;
    let p = Project::seeded();
    p.write("big.ipynb", big_notebook(n));

    let out = p
        .cmd()
        .args(["notebook", "check", "big.ipynb"])
        .timeout(HANG_GUARD)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let last = n - 1;
    for line in [
        "m-0: cell-id: duplicate cell id 'm-0' (also cell #0)".to_string(),
        format!(
            "cell #{}: cell-id: no cell id (nbformat 4.5 gives every cell a stable id)",
            n - 2
        ),
    ] {
        assert!(text.contains(&line), "{line}\n{text}");
    }
    assert!(!text.contains(&format!("cell #{last}:")), "{text}");
    assert!(text.ends_with("2 finding(s)\n"), "{text}");

    let out = p
        .cmd()
        .args(["notebook", "add", "06", "big.ipynb"])
        .timeout(HANG_GUARD)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("finds 2 problem(s) a published notebook must not carry"),
        "{}",
        stdout(&out)
    );

    let out = p
        .cmd()
        .args(["notebook", "report", "--format", "json"])
        .timeout(HANG_GUARD)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = rows["rows"]
        .as_array()
        .and_then(|r| {
            r.iter()
                .find(|r| r["chapter"].as_str().is_some_and(|c| c.ends_with("06")))
        })
        .unwrap_or_else(|| panic!("{rows}"));
    assert_eq!(row["audit_findings"], 2, "{row}");
}
