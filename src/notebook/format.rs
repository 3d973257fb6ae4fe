//! Reading a Jupyter notebook: bounded in size, parsed as JSON, its cells
//! taken out as plain values, and checked against the essentials of the
//! nbformat v4 schema in Rust, so that `notebook check` needs no Python.
//!
//! Two levels. *Readable* is what fingerprinting and running need: a JSON
//! object with `nbformat: 4` and a `cells` list whose cells each have a
//! `cell_type` and a `source` (a string or a list of strings); anything
//! less is refused with one line. *Valid* is what [`validate`] checks on
//! top, and reports as findings: the keys the v4 schema requires and
//! allows, the types of their values, and the shape of every output.

use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// The largest notebook read, in bytes (outputs with images make notebooks
/// large; a chapter's is a few kilobytes to a few megabytes).
pub const MAX_NOTEBOOK_BYTES: u64 = 16 * 1024 * 1024;

/// A notebook as read.
#[derive(Debug, Clone)]
pub struct Notebook {
    /// The whole document.
    pub document: Value,
    /// Its cells, in order.
    pub cells: Vec<NotebookCell>,
    pub nbformat_minor: Option<u64>,
    /// Size of the file in bytes.
    pub bytes: u64,
}

/// One cell, taken out of the document.
#[derive(Debug, Clone, PartialEq)]
pub struct NotebookCell {
    /// Position among all cells, from 0.
    pub index: usize,
    /// `code`, `markdown` or `raw` (anything else is a validation finding).
    pub cell_type: String,
    /// The cell's `id`, when it has one that is a string.
    pub id: Option<String>,
    /// The source, a list of strings joined as nbformat joins them.
    pub source: String,
    /// Saved outputs (code cells; empty otherwise).
    pub outputs: Vec<Value>,
    /// `metadata.tags`.
    pub tags: Vec<String>,
}

impl NotebookCell {
    /// Whether this is a code cell.
    pub fn is_code(&self) -> bool {
        self.cell_type == "code"
    }

    /// How findings and listings name the cell: its id, else its position.
    pub fn label(&self) -> String {
        match &self.id {
            Some(id) => crate::text::escape::visible(id).into_owned(),
            None => format!("cell #{}", self.index),
        }
    }

    /// Whether the source asserts something: a line that starts with an
    /// `assert` statement.
    pub fn has_assertions(&self) -> bool {
        self.source.lines().any(|l| {
            let l = l.trim_start();
            l.strip_prefix("assert")
                .is_some_and(|rest| rest.starts_with([' ', '(', '\t']))
        })
    }

    /// The first line with something on it, trimmed.
    pub fn first_line(&self) -> &str {
        self.source
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
    }
}

/// Reads a notebook file: at most [`MAX_NOTEBOOK_BYTES`] (a larger one is
/// refused with its size), JSON, readable as a notebook.
pub fn read_file(path: &Path) -> Result<(Vec<u8>, Notebook)> {
    let bytes = read_bytes(path)?;
    let notebook = parse(&bytes, path)?;
    Ok((bytes, notebook))
}

/// A notebook file's bytes, at most [`MAX_NOTEBOOK_BYTES`] of them.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let file = crate::text::read::open_regular(path).map_err(|e| Error::io(path, e))?;
    let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if size > MAX_NOTEBOOK_BYTES {
        return Err(too_large(path, size));
    }
    let mut bytes = Vec::new();
    file.take(MAX_NOTEBOOK_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_NOTEBOOK_BYTES {
        return Err(too_large(path, bytes.len() as u64));
    }
    Ok(bytes)
}

fn too_large(path: &Path, size: u64) -> Error {
    Error::TooLarge {
        what: format!("{}: the notebook ({size} bytes)", path.display()),
        limit: MAX_NOTEBOOK_BYTES,
    }
}

/// Parses a notebook's bytes; `path` names it in errors.
pub fn parse(bytes: &[u8], path: &Path) -> Result<Notebook> {
    let not_a_notebook =
        |why: String| Error::invalid(path, format!("not a Jupyter notebook: {why}"));
    let text = std::str::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
        path: path.to_path_buf(),
        offset: e.valid_up_to() as u64,
    })?;
    let document: Value = serde_json::from_str(text).map_err(|e| {
        not_a_notebook(format!(
            "invalid JSON at line {}, column {}: {e}",
            e.line(),
            e.column()
        ))
    })?;
    let top = document
        .as_object()
        .ok_or_else(|| not_a_notebook("the JSON is not an object".into()))?;
    match top.get("nbformat").and_then(Value::as_u64) {
        Some(4) => {}
        Some(n) => {
            return Err(not_a_notebook(format!(
                "nbformat {n}; only version 4 is read (saving it from a current Jupyter upgrades it)"
            )));
        }
        None => return Err(not_a_notebook("it has no integer 'nbformat'".into())),
    }
    let raw_cells = top
        .get("cells")
        .and_then(Value::as_array)
        .ok_or_else(|| not_a_notebook("it has no 'cells' list".into()))?;
    let mut cells = Vec::with_capacity(raw_cells.len());
    for (index, c) in raw_cells.iter().enumerate() {
        cells.push(cell(index, c).map_err(|why| not_a_notebook(format!("cell #{index} {why}")))?);
    }
    Ok(Notebook {
        nbformat_minor: top.get("nbformat_minor").and_then(Value::as_u64),
        cells,
        bytes: bytes.len() as u64,
        document,
    })
}

/// A multiline string as nbformat stores it: a string, or a list of
/// strings joined with nothing between them.
fn multiline(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => parts
            .iter()
            .map(|p| p.as_str())
            .collect::<Option<Vec<&str>>>()
            .map(|p| p.concat()),
        _ => None,
    }
}

fn cell(index: usize, v: &Value) -> std::result::Result<NotebookCell, String> {
    let o = v.as_object().ok_or("is not an object")?;
    let cell_type = o
        .get("cell_type")
        .and_then(Value::as_str)
        .ok_or("has no 'cell_type'")?
        .to_string();
    let source = o
        .get("source")
        .and_then(multiline)
        .ok_or("has no 'source' (a string or a list of strings)")?;
    let tags = o
        .get("metadata")
        .and_then(|m| m.get("tags"))
        .and_then(Value::as_array)
        .map(|t| {
            t.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    Ok(NotebookCell {
        index,
        cell_type,
        id: o.get("id").and_then(Value::as_str).map(String::from),
        source,
        outputs: o
            .get("outputs")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        tags,
    })
}

/// One way a notebook breaks the nbformat v4 schema: the cell it is in
/// (None for the notebook itself) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaProblem {
    pub cell: Option<usize>,
    pub problem: String,
}

/// Keys the v4 schema allows at the top level.
const TOP_KEYS: [&str; 4] = ["metadata", "nbformat", "nbformat_minor", "cells"];

/// Checks the essentials of the nbformat v4 schema (4.0 to 4.5): required
/// and allowed keys, the types of their values, cell types and the shape of
/// outputs. NotebookCell ids are the audit's to judge (missing, duplicate,
/// malformed), so they are not reported here.
pub fn validate(nb: &Notebook) -> Vec<SchemaProblem> {
    let mut found = Vec::new();
    let mut top = |problem: String| {
        found.push(SchemaProblem {
            cell: None,
            problem,
        })
    };
    let o = nb.document.as_object().expect("checked when read");
    if !o.get("metadata").is_some_and(Value::is_object) {
        top("'metadata' must be an object".into());
    }
    if nb.nbformat_minor.is_none() {
        top("'nbformat_minor' must be a non-negative integer".into());
    }
    for key in o.keys().filter(|k| !TOP_KEYS.contains(&k.as_str())) {
        top(format!("unknown top-level key '{key}'"));
    }
    let cells = o["cells"].as_array().expect("checked when read");
    for (index, c) in cells.iter().enumerate() {
        let c = c.as_object().expect("checked when read");
        for problem in cell_problems(c) {
            found.push(SchemaProblem {
                cell: Some(index),
                problem,
            });
        }
    }
    found
}

fn cell_problems(c: &Map<String, Value>) -> Vec<String> {
    let mut p = Vec::new();
    let kind = c["cell_type"].as_str().unwrap_or_default();
    let allowed: &[&str] = match kind {
        "code" => &[
            "id",
            "cell_type",
            "metadata",
            "source",
            "outputs",
            "execution_count",
        ],
        "markdown" | "raw" => &["id", "cell_type", "metadata", "source", "attachments"],
        other => {
            p.push(format!(
                "unknown cell_type '{other}' (code, markdown or raw)"
            ));
            return p;
        }
    };
    if !c.get("metadata").is_some_and(Value::is_object) {
        p.push("'metadata' must be an object".into());
    }
    for key in c.keys().filter(|k| !allowed.contains(&k.as_str())) {
        p.push(format!("a {kind} cell has no key '{key}'"));
    }
    if let Some(a) = c.get("attachments")
        && !a.is_object()
    {
        p.push("'attachments' must be an object".into());
    }
    if kind == "code" {
        match c.get("execution_count") {
            Some(Value::Null) => {}
            Some(v) if v.as_u64().is_some() => {}
            Some(_) => p.push("'execution_count' must be null or a non-negative integer".into()),
            None => p.push("a code cell needs 'execution_count' (null when not run)".into()),
        }
        match c.get("outputs").and_then(Value::as_array) {
            None => p.push("a code cell needs an 'outputs' list".into()),
            Some(outputs) => {
                for (i, out) in outputs.iter().enumerate() {
                    if let Some(problem) = output_problem(out) {
                        p.push(format!("output {i}: {problem}"));
                    }
                }
            }
        }
    }
    p
}

/// What is wrong with one saved output, if anything.
fn output_problem(out: &Value) -> Option<String> {
    let Some(o) = out.as_object() else {
        return Some("is not an object".into());
    };
    let is_text = |k: &str| o.get(k).and_then(multiline).is_some();
    let is_object = |k: &str| o.get(k).is_some_and(Value::is_object);
    match o.get("output_type").and_then(Value::as_str) {
        Some("stream") => match o.get("name").and_then(Value::as_str) {
            Some("stdout" | "stderr") if is_text("text") => None,
            Some("stdout" | "stderr") => Some("a stream needs 'text'".into()),
            _ => Some("a stream's 'name' must be stdout or stderr".into()),
        },
        Some("display_data") if is_object("data") && is_object("metadata") => None,
        Some("display_data") => Some("display_data needs 'data' and 'metadata' objects".into()),
        Some("execute_result") if is_object("data") && is_object("metadata") => {
            match o.get("execution_count") {
                Some(Value::Null) => None,
                Some(v) if v.as_u64().is_some() => None,
                _ => Some("execute_result needs 'execution_count' (null or an integer)".into()),
            }
        }
        Some("execute_result") => Some("execute_result needs 'data' and 'metadata' objects".into()),
        Some("error") => {
            let strings = o
                .get("traceback")
                .and_then(Value::as_array)
                .is_some_and(|t| t.iter().all(Value::is_string));
            let named = o.get("ename").is_some_and(Value::is_string)
                && o.get("evalue").is_some_and(Value::is_string);
            (!(named && strings)).then(|| {
                "an error needs 'ename', 'evalue' and a 'traceback' list of strings".into()
            })
        }
        Some(other) => Some(format!("unknown output_type '{other}'")),
        None => Some("has no 'output_type'".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nb(json: &str) -> Result<Notebook> {
        parse(json.as_bytes(), Path::new("t.ipynb"))
    }

    const GOOD: &str = r##"{"nbformat": 4, "nbformat_minor": 5, "metadata": {},
      "cells": [
        {"cell_type": "markdown", "id": "m", "metadata": {}, "source": ["# T\n", "text"]},
        {"cell_type": "code", "id": "c", "metadata": {"tags": ["x"]}, "execution_count": 1,
         "source": "assert 1 == 1\nprint(2)",
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["2\n"]},
                     {"output_type": "execute_result", "execution_count": 1, "data": {"text/plain": "3"}, "metadata": {}},
                     {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["t"]}]}
      ]}"##;

    #[test]
    fn a_notebook_reads_into_cells_with_joined_sources() {
        let n = nb(GOOD).unwrap();
        assert_eq!(n.cells.len(), 2);
        assert_eq!(n.cells[0].source, "# T\ntext");
        assert_eq!(n.cells[1].tags, ["x"]);
        assert!(n.cells[1].is_code() && n.cells[1].has_assertions());
        assert!(!n.cells[0].has_assertions());
        assert_eq!(n.cells[1].first_line(), "assert 1 == 1");
        assert_eq!(validate(&n), Vec::new());
    }

    #[test]
    fn what_is_not_a_notebook_is_refused_in_one_line() {
        for (json, says) in [
            ("{\"cells\": [", "invalid JSON at line 1, column 11"),
            ("[1]", "the JSON is not an object"),
            ("{\"nbformat\": 3, \"cells\": []}", "nbformat 3"),
            ("{\"nbformat\": 4}", "no 'cells' list"),
            (
                "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\"}]}",
                "cell #0 has no 'source'",
            ),
        ] {
            let e = nb(json).unwrap_err().to_string();
            assert!(e.starts_with("t.ipynb: not a Jupyter notebook: "), "{e}");
            assert!(e.contains(says), "{json}: {e}");
        }
    }

    #[test]
    fn a_notebook_over_the_limit_is_refused_with_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.ipynb");
        let f = std::fs::File::create(&path).unwrap();
        f.set_len(MAX_NOTEBOOK_BYTES + 5).unwrap();
        let e = read_file(&path).unwrap_err().to_string();
        assert!(
            e.ends_with(&format!(
                "big.ipynb: the notebook ({} bytes) is larger than the {MAX_NOTEBOOK_BYTES}-byte limit",
                MAX_NOTEBOOK_BYTES + 5
            )),
            "{e}"
        );
    }

    #[test]
    fn validation_names_each_break_of_the_schema_and_its_cell() {
        let n = nb(r#"{"nbformat": 4, "extra": 1,
          "cells": [
            {"cell_type": "code", "source": "", "metadata": {}},
            {"cell_type": "markdown", "source": "", "metadata": {}, "outputs": []},
            {"cell_type": "heading", "source": "", "metadata": {}},
            {"cell_type": "code", "source": "", "metadata": {}, "execution_count": -1,
             "outputs": [{"output_type": "stream", "name": "out", "text": "x"}, {"output_type": "pager"}]}
          ]}"#)
        .unwrap();
        let found: Vec<String> = validate(&n)
            .iter()
            .map(|p| format!("{:?}: {}", p.cell, p.problem))
            .collect();
        assert_eq!(
            found,
            [
                "None: 'metadata' must be an object",
                "None: 'nbformat_minor' must be a non-negative integer",
                "None: unknown top-level key 'extra'",
                "Some(0): a code cell needs 'execution_count' (null when not run)",
                "Some(0): a code cell needs an 'outputs' list",
                "Some(1): a markdown cell has no key 'outputs'",
                "Some(2): unknown cell_type 'heading' (code, markdown or raw)",
                "Some(3): 'execution_count' must be null or a non-negative integer",
                "Some(3): output 0: a stream's 'name' must be stdout or stderr",
                "Some(3): output 1: unknown output_type 'pager'",
            ]
        );
    }

    #[test]
    fn the_chapters_notebook_is_valid() {
        let (_, n) = read_file(&crate::testing::chapter06_notebook()).unwrap();
        assert_eq!(n.cells.len(), 12);
        assert_eq!(n.cells.iter().filter(|c| c.is_code()).count(), 7);
        assert_eq!(n.cells.iter().filter(|c| c.has_assertions()).count(), 3);
        assert_eq!(validate(&n), Vec::new());
    }
}
