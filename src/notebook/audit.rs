//! The audit of a saved notebook, without running it: what a published
//! notebook must not carry (absolute local paths, the user's and the host's
//! names, secret-like strings), saved error outputs, missing or duplicate
//! cell ids, and breaks of the nbformat v4 schema. One finding per thing,
//! with the cell it is in. The secret patterns and how their false
//! positives are kept out are listed in docs/formats.md.
//!
//! Every step is linear in the notebook's size: cell ids and findings
//! already said are looked up in hash sets, never by scanning what came
//! before (a notebook of 200,000 cells is audited in about a second).

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use super::format::{Cell, Notebook, validate};
use super::scrub::{GENERIC_USERS, LocalFacts};

/// What kind of thing a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, strum::Display)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum FindingKind {
    /// An absolute path of a machine in a saved output.
    LocalPath,
    /// This machine's user name in a saved output.
    UserName,
    /// This machine's host name in a saved output.
    HostName,
    /// A string shaped like a credential, in a source or an output.
    Secret,
    /// A saved error output.
    ErrorOutput,
    /// A missing, duplicate or malformed cell id.
    CellId,
    /// A break of the nbformat v4 schema.
    Nbformat,
}

/// One finding: the cell (its id, else `cell #N`; `notebook` for the
/// notebook itself), what kind, and what was found.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Finding {
    pub cell: String,
    pub kind: FindingKind,
    pub detail: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {}", self.cell, self.kind, self.detail)
    }
}

/// Every finding in `nb`, cell by cell in order, the notebook's own first.
/// `facts` gives the user and host names to look for.
pub fn audit(nb: &Notebook, facts: &LocalFacts) -> Vec<Finding> {
    let mut found: Vec<Finding> = Vec::new();
    let label_of = |i: Option<usize>| match i {
        Some(i) => nb
            .cells
            .get(i)
            .map_or_else(|| format!("cell #{i}"), Cell::label),
        None => "notebook".to_string(),
    };
    for p in validate(nb) {
        found.push(Finding {
            cell: label_of(p.cell),
            kind: FindingKind::Nbformat,
            detail: p.problem,
        });
    }
    found.extend(cell_ids(nb));
    // What was found already, so that a finding is said once.
    let mut said: HashSet<Finding> = found.iter().cloned().collect();
    for cell in &nb.cells {
        let mut add = |kind, detail: String| {
            let f = Finding {
                cell: cell.label(),
                kind,
                detail,
            };
            if said.insert(f.clone()) {
                found.push(f);
            }
        };
        for s in secrets(&cell.source) {
            add(FindingKind::Secret, format!("{s} in the source"));
        }
        for out in &cell.outputs {
            if out.get("output_type").and_then(Value::as_str) == Some("error") {
                let text = |k| out.get(k).and_then(Value::as_str).unwrap_or("");
                add(
                    FindingKind::ErrorOutput,
                    format!("saved error output {}: {}", text("ename"), text("evalue")),
                );
            }
            let text = output_text(out);
            for p in local_paths(&text) {
                add(FindingKind::LocalPath, format!("{p} in a saved output"));
            }
            for (names, kind, what) in [
                (&facts.users, FindingKind::UserName, "user name"),
                (&facts.hosts, FindingKind::HostName, "host name"),
            ] {
                let telling = |n: &&String| {
                    n.len() >= 3
                        && *n != "localhost"
                        && !GENERIC_USERS.contains(&n.to_lowercase().as_str())
                };
                for name in names.iter().filter(telling) {
                    if contains_word(&text, name) {
                        add(
                            kind,
                            format!("this machine's {what} '{name}' in a saved output"),
                        );
                    }
                }
            }
            for s in secrets(&text) {
                add(FindingKind::Secret, format!("{s} in a saved output"));
            }
        }
    }
    found
}

/// Every string a saved output holds: stream text, each kind of data that
/// is text, an error's name, value and traceback.
fn output_text(out: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut add = |v: &Value| match v {
        Value::String(s) => parts.push(s.clone()),
        Value::Array(a) => parts.push(a.iter().filter_map(Value::as_str).collect()),
        _ => {}
    };
    for key in ["text", "ename", "evalue", "traceback"] {
        if let Some(v) = out.get(key) {
            add(v);
        }
    }
    if let Some(data) = out.get("data").and_then(Value::as_object) {
        data.values().for_each(&mut add);
    }
    parts.join("\n")
}

fn cell_ids(nb: &Notebook) -> Vec<Finding> {
    let mut found = Vec::new();
    // Each id's first cell, as the cells are walked in order.
    let mut first_of: HashMap<&str, usize> = HashMap::with_capacity(nb.cells.len());
    for c in &nb.cells {
        let mut say = |detail: String| {
            found.push(Finding {
                cell: c.label(),
                kind: FindingKind::CellId,
                detail,
            })
        };
        match &c.id {
            None => say("no cell id (nbformat 4.5 gives every cell a stable id)".into()),
            Some(id) if !valid_id(id) => say(format!(
                "cell id '{id}' is not 1 to 64 letters, digits, '-' or '_'"
            )),
            Some(id) => {
                let first = *first_of.entry(id.as_str()).or_insert(c.index);
                if first != c.index {
                    say(format!("duplicate cell id '{id}' (also cell #{first})"));
                }
            }
        }
    }
    found
}

fn valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `word` stands in `text` as a word of its own.
fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// Where a machine's folders show in a path: user folders (Linux, macOS,
/// Windows), the root user's home, a kernel's per-run folder, macOS's
/// per-user temporary folders, Colab's mounted Drive, and an installed
/// package's folder.
const PATH_MARKS: [&str; 8] = [
    "/home/",
    "/Users/",
    "/root/",
    "/tmp/ipykernel_",
    "/var/folders/",
    "/content/drive/",
    "\\Users\\",
    "site-packages",
];

/// The absolute local paths in `text`, each once, cut to 80 characters.
fn local_paths(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for token in text.split(|c: char| c.is_whitespace() || "\"'`()[]{}<>,;".contains(c)) {
        // A traceback's `path:line:` ends at the path.
        let token = match token.get(2..).and_then(|rest| rest.find(':')) {
            Some(colon) => &token[..colon + 2],
            None => token,
        };
        let token = token.trim_end_matches(['.']);
        let absolute = token.starts_with('/')
            || token.starts_with('~')
            || token.get(1..3).is_some_and(|s| s == ":\\");
        if !absolute || !PATH_MARKS.iter().any(|m| token.contains(m)) {
            continue;
        }
        let shown = crate::text::prefix(token, 80).to_string();
        if seen.insert(shown.clone()) {
            found.push(shown);
        }
    }
    found
}

/// A credential's shape: a prefix that starts a word, then at least `min`
/// characters of `charset` (exactly `min` when `exact`).
struct TokenShape {
    prefix: &'static str,
    min: usize,
    exact: bool,
    charset: fn(char) -> bool,
    what: &'static str,
}

fn alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}
fn alnum_dash(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}
fn upper_digit(c: char) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit()
}

const SHAPES: [TokenShape; 16] = [
    TokenShape {
        prefix: "ghp_",
        min: 36,
        exact: false,
        charset: alnum,
        what: "GitHub token",
    },
    TokenShape {
        prefix: "gho_",
        min: 36,
        exact: false,
        charset: alnum,
        what: "GitHub token",
    },
    TokenShape {
        prefix: "ghu_",
        min: 36,
        exact: false,
        charset: alnum,
        what: "GitHub token",
    },
    TokenShape {
        prefix: "ghs_",
        min: 36,
        exact: false,
        charset: alnum,
        what: "GitHub token",
    },
    TokenShape {
        prefix: "ghr_",
        min: 36,
        exact: false,
        charset: alnum,
        what: "GitHub token",
    },
    TokenShape {
        prefix: "github_pat_",
        min: 22,
        exact: false,
        charset: alnum_dash,
        what: "GitHub token",
    },
    TokenShape {
        prefix: "glpat-",
        min: 20,
        exact: false,
        charset: alnum_dash,
        what: "GitLab token",
    },
    TokenShape {
        prefix: "sk-",
        min: 20,
        exact: false,
        charset: alnum_dash,
        what: "API key (sk-)",
    },
    TokenShape {
        prefix: "hf_",
        min: 30,
        exact: false,
        charset: alnum,
        what: "Hugging Face token",
    },
    TokenShape {
        prefix: "xoxb-",
        min: 10,
        exact: false,
        charset: alnum_dash,
        what: "Slack token",
    },
    TokenShape {
        prefix: "xoxp-",
        min: 10,
        exact: false,
        charset: alnum_dash,
        what: "Slack token",
    },
    TokenShape {
        prefix: "xoxa-",
        min: 10,
        exact: false,
        charset: alnum_dash,
        what: "Slack token",
    },
    TokenShape {
        prefix: "AKIA",
        min: 16,
        exact: true,
        charset: upper_digit,
        what: "AWS access key id",
    },
    TokenShape {
        prefix: "ASIA",
        min: 16,
        exact: true,
        charset: upper_digit,
        what: "AWS access key id",
    },
    TokenShape {
        prefix: "AIza",
        min: 35,
        exact: false,
        charset: alnum_dash,
        what: "Google API key",
    },
    TokenShape {
        prefix: "eyJ",
        min: 30,
        exact: false,
        charset: jwt_char,
        what: "JSON web token",
    },
];

fn jwt_char(c: char) -> bool {
    alnum_dash(c) || c == '.'
}

/// Names of assignments whose value is a credential (`HF_TOKEN = "..."`,
/// `password: ...`), matched case-insensitively inside an identifier.
const SECRET_NAMES: [&str; 7] = [
    "api_key",
    "apikey",
    "secret",
    "token",
    "password",
    "passwd",
    "access_key",
];

/// Whether `c` may start a token, after `before` (a token starts a word:
/// `task-0f3a...` holds `sk-` but is no key).
fn starts_word(before: Option<char>) -> bool {
    !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The secret-like strings in `text`, each described without repeating it
/// (`GitHub token ghp_... (40 characters)`).
pub fn secrets(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (what, token) in secret_tokens(text) {
        let line = format!(
            "{what} {}... ({} characters)",
            crate::text::prefix(&token, 4),
            token.chars().count()
        );
        if seen.insert(line.clone()) {
            found.push(line);
        }
    }
    found
}

/// `text` with every secret-like string [`secrets`] finds replaced by
/// `<secret>`, and a private key block by `<private key>`: what a record
/// keeps of a cell's output.
pub fn redact_secrets(text: &str) -> String {
    let mut out = text.to_string();
    // From the BEGIN line through the END line, or to the end of the text
    // when the END line is not there.
    if let Some(start) = out.find("-----BEGIN")
        && out[start..].contains("PRIVATE KEY-----")
    {
        let end = out[start..]
            .find("-----END")
            .and_then(|e| out[start + e..].find("KEY-----").map(|k| start + e + k + 8))
            .unwrap_or(out.len());
        out.replace_range(start..end, "<private key>");
    }
    for (_, token) in secret_tokens(&out) {
        if token != "-----BEGIN" {
            out = out.replace(&token, "<secret>");
        }
    }
    out
}

/// Each secret-like string in `text`: what it looks like, and the string.
fn secret_tokens(text: &str) -> Vec<(&'static str, String)> {
    let mut found: Vec<(&'static str, String)> = Vec::new();
    for shape in &SHAPES {
        for (at, _) in text.match_indices(shape.prefix) {
            if !starts_word(text[..at].chars().next_back()) {
                continue;
            }
            let body: String = text[at + shape.prefix.len()..]
                .chars()
                .take_while(|&c| (shape.charset)(c))
                .collect();
            let n = body.chars().count();
            let fits = if shape.exact {
                n == shape.min
            } else {
                n >= shape.min
            };
            let jwt_ok = shape.prefix != "eyJ" || body.matches('.').count() == 2;
            if fits && jwt_ok {
                found.push((shape.what, format!("{}{body}", shape.prefix)));
            }
        }
    }
    if text.contains("-----BEGIN") && text.contains("PRIVATE KEY-----") {
        found.push(("private key block", "-----BEGIN".to_string()));
    }
    for value in assigned_secrets(text) {
        // A value of a known shape was reported as that.
        let shaped = SHAPES.iter().any(|s| value.starts_with(s.prefix));
        if !shaped {
            found.push(("credential assigned to a secret's name:", value));
        }
    }
    found
}

/// Values assigned to a name that holds [`SECRET_NAMES`]: the value is at
/// least 12 characters of letters, digits and `-_./+=`, with letters and
/// digits both, and it is not an id or a digest (all hex, or `word-<hex>`
/// as in `task-<hex>`), not a placeholder and not a call (`os.environ`).
fn assigned_secrets(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let lower = text.to_ascii_lowercase();
    for name in SECRET_NAMES {
        for (at, _) in lower.match_indices(name) {
            let after_name = &text[at + name.len()..];
            // The rest of the identifier, then `=` or `:`, maybe quoted.
            let rest =
                after_name.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
            let rest = rest.trim_start_matches(['"', '\'']).trim_start();
            let Some(rest) = rest.strip_prefix(['=', ':']) else {
                continue;
            };
            let rest = without_string_prefix(rest.trim_start());
            let value: String = rest
                .chars()
                .take_while(|&c| c.is_ascii_alphanumeric() || "-_./+=".contains(c))
                .collect();
            if looks_like_credential(&value) {
                found.push(value);
            }
        }
    }
    found
}

/// A string literal's start without its quote and any prefix (`b"`, `r'`,
/// `f"`); anything else as it is.
fn without_string_prefix(s: &str) -> &str {
    match s.find(['"', '\'']) {
        Some(q) if q <= 2 && s[..q].bytes().all(|b| b"bBrRfFuU".contains(&b)) => &s[q + 1..],
        _ => s,
    }
}

fn looks_like_credential(v: &str) -> bool {
    let is_hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    let id_like = v
        .split_once('-')
        .is_some_and(|(word, rest)| word.bytes().all(|b| b.is_ascii_alphabetic()) && is_hex(rest));
    let placeholder = [
        "xxx",
        "your",
        "example",
        "changeme",
        "redacted",
        "placeholder",
        "dummy",
    ]
    .iter()
    .any(|p| v.to_ascii_lowercase().contains(p));
    v.len() >= 12
        && v.bytes().any(|b| b.is_ascii_alphabetic())
        && v.bytes().any(|b| b.is_ascii_digit())
        && !is_hex(v)
        && !id_like
        && !placeholder
        && !v.starts_with("os.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> LocalFacts {
        LocalFacts {
            users: vec!["alice".into(), "root".into()],
            hosts: vec!["lab-7".into(), "vm".into()],
            ..LocalFacts::default()
        }
    }

    fn notebook(cells: serde_json::Value) -> Notebook {
        let doc =
            serde_json::json!({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells});
        super::super::format::parse(doc.to_string().as_bytes(), std::path::Path::new("a.ipynb"))
            .unwrap()
    }

    fn code(id: &str, source: &str, outputs: serde_json::Value) -> serde_json::Value {
        serde_json::json!({"cell_type": "code", "id": id, "metadata": {}, "execution_count": null, "source": source, "outputs": outputs})
    }

    #[test]
    fn a_clean_notebook_has_no_findings() {
        let nb = notebook(serde_json::json!([code(
            "a",
            "print(1)",
            serde_json::json!([
            {"output_type": "stream", "name": "stdout", "text": "1\n"}])
        )]));
        assert_eq!(audit(&nb, &facts()), Vec::new());
    }

    #[test]
    fn paths_names_tokens_errors_and_ids_are_each_one_line_with_their_cell() {
        let token = format!("ghp_{}", "aB3".repeat(12));
        let nb = notebook(serde_json::json!([
            code("leaky", "x = 1", serde_json::json!([
                {"output_type": "stream", "name": "stderr", "text": "/home/alice/venv/lib/python3.11/site-packages/torch/x.py:3: UserWarning\n"},
                {"output_type": "stream", "name": "stdout", "text": format!("run by alice on lab-7 with {token}\n")},
                {"output_type": "error", "ename": "AssertionError", "evalue": "boom", "traceback": ["File /tmp/ipykernel_4242/123.py:1"]}
            ])),
            code("leaky", "y = 2", serde_json::json!([])),
            {"cell_type": "markdown", "metadata": {}, "source": "no id"}
        ]));
        let lines: Vec<String> = audit(&nb, &facts()).iter().map(|f| f.to_string()).collect();
        assert_eq!(
            lines,
            [
                "leaky: cell-id: duplicate cell id 'leaky' (also cell #0)".to_string(),
                "cell #2: cell-id: no cell id (nbformat 4.5 gives every cell a stable id)".into(),
                "leaky: local-path: /home/alice/venv/lib/python3.11/site-packages/torch/x.py in a saved output".into(),
                "leaky: user-name: this machine's user name 'alice' in a saved output".into(),
                "leaky: host-name: this machine's host name 'lab-7' in a saved output".into(),
                "leaky: secret: GitHub token ghp_... (40 characters) in a saved output".into(),
                "leaky: error-output: saved error output AssertionError: boom".into(),
                "leaky: local-path: /tmp/ipykernel_4242/123.py in a saved output".into(),
            ]
        );
    }

    #[test]
    fn secret_shapes_are_found_where_a_word_starts() {
        for (text, what) in [
            (
                "key = 'sk-proj-abcdefghijklmnop12345678'",
                "API key (sk-) sk-p... (32 characters)",
            ),
            (
                "AKIAIOSFODNN7EXAMPLE",
                "AWS access key id AKIA... (20 characters)",
            ),
            (
                "hf_abcdefghijklmnopqrstuvwxyzABCDEF",
                "Hugging Face token hf_a... (35 characters)",
            ),
            (
                "HF_TOKEN = \"Zq81mBv0TrPk22LsXe\"",
                "credential assigned to a secret's name: Zq81... (18 characters)",
            ),
            (
                "password: hunter2hunter2X",
                "credential assigned to a secret's name: hunt... (15 characters)",
            ),
            (
                "-----BEGIN RSA PRIVATE KEY-----",
                "private key block ----... (10 characters)",
            ),
        ] {
            assert_eq!(secrets(text), [what.to_string()], "{text}");
        }
    }

    #[test]
    fn a_record_keeps_no_secret_a_cell_printed() {
        let token = format!("ghp_{}", "aB3dE5fG7h".repeat(4).get(..36).unwrap());
        let text = format!(
            "token is {token}\napi_key = 'Zx9Qw8Er7Ty6Ui5O'\ntask-0f3a9b8c7d6e5f40 stays\n"
        );
        let clean = redact_secrets(&text);
        assert!(!clean.contains(&token), "{clean}");
        assert!(!clean.contains("Zx9Qw8Er7Ty6Ui5O"), "{clean}");
        assert!(clean.contains("token is <secret>"), "{clean}");
        assert!(clean.contains("task-0f3a9b8c7d6e5f40 stays"), "{clean}");
        assert!(secrets(&clean).is_empty(), "{:?}", secrets(&clean));
        let key = "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----\nb";
        assert_eq!(redact_secrets(key), "a\n<private key>\nb");
        let cut = "a\n-----BEGIN PRIVATE KEY-----\nMIIabc";
        assert_eq!(redact_secrets(cut), "a\n<private key>");
    }

    #[test]
    fn a_notebook_of_100k_cells_is_audited_in_one_pass() {
        // A guard against a hang, not a timing test: the quadratic audit
        // took minutes on this notebook.
        let n = 100_000;
        let cells: Vec<serde_json::Value> = (0..n)
            .map(|i| {
                let id = if i == n - 1 {
                    "c-7".to_string()
                } else {
                    format!("c-{i}")
                };
                code(&id, &format!("x{i} = {i}"), serde_json::json!([]))
            })
            .collect();
        let nb = notebook(serde_json::Value::Array(cells));
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(audit(&nb, &facts())).unwrap());
        let found = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the audit of 100,000 cells did not end within 60 s");
        let lines: Vec<String> = found.iter().map(|f| f.to_string()).collect();
        assert_eq!(
            lines,
            ["c-7: cell-id: duplicate cell id 'c-7' (also cell #7)"]
        );
    }

    #[test]
    fn ids_digests_and_placeholders_are_not_secrets() {
        for text in [
            // `task-<hex>` holds `sk-`, and an assignment of an id is no credential.
            "job task-3f9a0c1d2e4b5a6978695a4b3c2d1e0f done",
            "token = task-3f9a0c1d2e4b5a69",
            "token: 3f9a0c1d2e4b5a6978695a4b3c2d1e0f (sha256 prefix)",
            "api_key = os.environ['OPENAI_API_KEY']",
            "API_KEY = 'your-api-key-here-123'",
            "secret = 12",
            "desk-0123456789abcdef0123456789abcdef",
        ] {
            assert_eq!(secrets(text), Vec::<String>::new(), "{text}");
        }
    }
}
