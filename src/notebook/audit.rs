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

use super::format::{Notebook, NotebookCell, validate};
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
        // One line: a cell id or a detail quoting one may hold a line feed.
        let line = format!("{}: {}: {}", self.cell, self.kind, self.detail);
        f.write_str(&crate::text::escape::visible(&line))
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
            .map_or_else(|| format!("cell #{i}"), NotebookCell::label),
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
        for url in crate::text::redact::urls_with_secrets(&cell.source) {
            add(
                FindingKind::Secret,
                format!("{} in the source", url_finding(url)),
            );
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
            for url in crate::text::redact::urls_with_secrets(&text) {
                add(
                    FindingKind::Secret,
                    format!("{} in a saved output", url_finding(url)),
                );
            }
        }
    }
    found
}

/// A URL that carries a secret, described by what is left without it
/// (`URL with credentials or a secret parameter: postgres://db:5432/app`).
fn url_finding(url: &str) -> String {
    format!(
        "URL with credentials or a secret parameter: {}",
        crate::text::format::prefix(&crate::text::redact::redact_url(url), 80)
    )
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

/// The absolute path a word of text is or ends with: the word itself
/// (`/home/x`, `~/x`, `C:\\Users\\x`, `c:/Users/x`), a `file://` URL's
/// path (`file:///home/x`), or the value of a setting (`HOME=/home/x`).
fn path_in(word: &str) -> Option<&str> {
    let absolute = |s: &str| {
        s.starts_with(['/', '~'])
            || (s.starts_with(|c: char| c.is_ascii_alphabetic())
                && (s.get(1..3) == Some(":\\") || s.get(1..3) == Some(":/")))
    };
    let word = match word.get(..7) {
        Some(scheme) if scheme.eq_ignore_ascii_case("file://") => &word[7..],
        _ => word,
    };
    if absolute(word) {
        return Some(word);
    }
    let value = &word[word.find('=')? + 1..];
    let value = match value.get(..7) {
        Some(scheme) if scheme.eq_ignore_ascii_case("file://") => &value[7..],
        _ => value,
    };
    absolute(value).then_some(value)
}

/// The absolute local paths in `text`, each once, cut to 80 characters.
fn local_paths(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for token in text.split(|c: char| c.is_whitespace() || "\"'`()[]{}<>,;".contains(c)) {
        let Some(token) = path_in(token) else {
            continue;
        };
        // A traceback's `path:line:` (and a search path's `a:b`) ends at
        // the path.
        let token = match token.get(2..).and_then(|rest| rest.find(':')) {
            Some(colon) => &token[..colon + 2],
            None => token,
        };
        let token = token.trim_end_matches(['.']);
        if !PATH_MARKS.iter().any(|m| token.contains(m)) {
            continue;
        }
        let shown = crate::text::format::prefix(token, 80).to_string();
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
    /// Whether the characters after the prefix must hold a random-looking
    /// part ([`random_part`]): a key, not a word that happens to start
    /// with the prefix (`sk-learn-compatible`).
    random: bool,
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
        random: true,
    },
    TokenShape {
        prefix: "gho_",
        min: 36,
        exact: false,
        charset: alnum,
        what: "GitHub token",
        random: true,
    },
    TokenShape {
        prefix: "ghu_",
        min: 36,
        exact: false,
        charset: alnum,
        what: "GitHub token",
        random: true,
    },
    TokenShape {
        prefix: "ghs_",
        min: 36,
        exact: false,
        charset: alnum,
        what: "GitHub token",
        random: true,
    },
    TokenShape {
        prefix: "ghr_",
        min: 36,
        exact: false,
        charset: alnum,
        what: "GitHub token",
        random: true,
    },
    TokenShape {
        prefix: "github_pat_",
        min: 22,
        exact: false,
        charset: alnum_dash,
        what: "GitHub token",
        random: true,
    },
    TokenShape {
        prefix: "glpat-",
        min: 20,
        exact: false,
        charset: alnum_dash,
        what: "GitLab token",
        random: true,
    },
    TokenShape {
        prefix: "sk-",
        min: 20,
        exact: false,
        charset: alnum_dash,
        what: "API key (sk-)",
        random: true,
    },
    TokenShape {
        prefix: "hf_",
        min: 30,
        exact: false,
        charset: alnum,
        what: "Hugging Face token",
        random: true,
    },
    TokenShape {
        prefix: "xoxb-",
        min: 10,
        exact: false,
        charset: alnum_dash,
        what: "Slack token",
        random: true,
    },
    TokenShape {
        prefix: "xoxp-",
        min: 10,
        exact: false,
        charset: alnum_dash,
        what: "Slack token",
        random: true,
    },
    TokenShape {
        prefix: "xoxa-",
        min: 10,
        exact: false,
        charset: alnum_dash,
        what: "Slack token",
        random: true,
    },
    TokenShape {
        prefix: "AKIA",
        min: 16,
        exact: true,
        charset: upper_digit,
        what: "AWS access key id",
        random: false,
    },
    TokenShape {
        prefix: "ASIA",
        min: 16,
        exact: true,
        charset: upper_digit,
        what: "AWS access key id",
        random: false,
    },
    TokenShape {
        prefix: "AIza",
        min: 35,
        exact: false,
        charset: alnum_dash,
        what: "Google API key",
        random: false,
    },
    TokenShape {
        prefix: "eyJ",
        min: 30,
        exact: false,
        charset: jwt_char,
        what: "JSON web token",
        random: false,
    },
];

fn jwt_char(c: char) -> bool {
    alnum_dash(c) || c == '.'
}

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
            crate::text::format::prefix(&token, 4),
            token.chars().count()
        );
        if seen.insert(line.clone()) {
            found.push(line);
        }
    }
    found
}

/// `text` with every private key block as `<private key>`, and every
/// secret-like string [`secrets`] finds as `<secret>` wherever it occurs
/// (a password found once in an assignment is taken out where it stands
/// alone too): what a record keeps of a cell's output. One pass over the
/// text for all the strings, the longest first where two start at the
/// same place, so a text holding thousands of them takes no longer than
/// reading it.
pub fn redact_secrets(text: &str) -> String {
    let out = without_private_keys(text);
    let mut tokens: Vec<String> = secret_tokens(&out)
        .into_iter()
        .map(|(_, t)| t)
        .filter(|t| t != PRIVATE_KEY_MARK)
        .collect();
    tokens.sort_unstable();
    tokens.dedup();
    if tokens.is_empty() {
        return out;
    }
    match aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .build(&tokens)
    {
        Ok(all) => all.replace_all(&out, &vec!["<secret>"; tokens.len()]),
        // Only past the automaton's size limits: one string at a time.
        Err(_) => tokens
            .iter()
            .rev()
            .fold(out, |text, t| text.replace(t.as_str(), "<secret>")),
    }
}

/// How a private key block starts.
const PRIVATE_KEY_MARK: &str = "-----BEGIN";

/// `text` with each private key block, from its BEGIN line through its
/// END line (or to the end of the text when that is missing), as
/// `<private key>`.
fn without_private_keys(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(PRIVATE_KEY_MARK) {
        let Some(key) = rest[start..].find("PRIVATE KEY-----") else {
            break;
        };
        let from = start + key;
        let end = rest[from..]
            .find("-----END")
            .and_then(|e| {
                rest[from + e..]
                    .find("KEY-----")
                    .map(|k| from + e + k + "KEY-----".len())
            })
            .unwrap_or(rest.len());
        out.push_str(&rest[..start]);
        out.push_str("<private key>");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Each secret-like string in `text`: what it looks like, and the string.
fn secret_tokens(text: &str) -> Vec<(&'static str, String)> {
    let mut found: Vec<(&'static str, String)> = Vec::new();
    for shape in &SHAPES {
        // A match inside the body of the one before is part of it: each
        // character is read once per shape.
        let mut covered = 0;
        for (at, _) in text.match_indices(shape.prefix) {
            if at < covered || !starts_word(text[..at].chars().next_back()) {
                continue;
            }
            let body: String = text[at + shape.prefix.len()..]
                .chars()
                .take_while(|&c| (shape.charset)(c))
                .collect();
            covered = at + shape.prefix.len() + body.len();
            let n = body.chars().count();
            let fits = if shape.exact {
                n == shape.min
            } else {
                n >= shape.min
            };
            let jwt_ok = shape.prefix != "eyJ" || body.matches('.').count() == 2;
            if fits && jwt_ok && (!shape.random || random_part(&body)) {
                found.push((shape.what, format!("{}{body}", shape.prefix)));
            }
        }
    }
    if text.contains(PRIVATE_KEY_MARK) && text.contains("PRIVATE KEY-----") {
        found.push(("private key block", PRIVATE_KEY_MARK.to_string()));
    }
    let shaped: std::collections::HashSet<String> = found.iter().map(|(_, t)| t.clone()).collect();
    for value in assigned_secrets(text) {
        // A value of a known shape was reported as that.
        if !shaped.contains(&value) {
            found.push(("credential assigned to a secret's name:", value));
        }
    }
    for value in header_secrets(text) {
        if !shaped.contains(value) && !found.iter().any(|(_, t)| t == value) {
            found.push(("credential in an HTTP header:", value.to_string()));
        }
    }
    found
}

/// Cookie attributes, whose values are no secrets.
const COOKIE_ATTRIBUTES: [&str; 8] = [
    "path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "priority",
];

/// The credentials HTTP headers carry in `text`, as a request or response
/// printed or a `headers` dict shows them: after `Authorization:` (or
/// `Proxy-Authorization:`, any case, the name quoted or not, `:` or `=`),
/// the value after its scheme word (`Bearer`, `Basic`, `token`), letters,
/// digits and `-._~+/=`; after `Cookie:` or `Set-Cookie:`, the value of
/// each `name=value` pair up to the end of the line or a quote, cookie
/// attributes (`Path`, `Expires`) aside. Kept when
/// [`looks_like_credential`] (so at least [`MIN_SECRET_CHARS`]
/// characters). Each header is read once: the search goes on after it.
fn header_secrets(text: &str) -> Vec<&str> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut covered = 0;
    let matches = lower
        .match_indices("authorization")
        .map(|(at, m)| (at, at + m.len(), true))
        .chain(
            lower
                .match_indices("cookie")
                .map(|(at, m)| (at, at + m.len(), false)),
        );
    let mut matches: Vec<_> = matches.collect();
    matches.sort_unstable();
    for (at, name_end, authorization) in matches {
        let before = text[..at].chars().next_back();
        if at < covered || before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &text[name_end..];
        let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
        let rest = rest.trim_start_matches([' ', '\t']);
        let Some(rest) = rest
            .strip_prefix(':')
            .or_else(|| rest.strip_prefix('=').filter(|r| !r.starts_with('=')))
        else {
            continue;
        };
        let rest = rest.trim_start_matches([' ', '\t']);
        let quote = rest.starts_with(['"', '\'']);
        let rest = if quote { &rest[1..] } else { rest };
        let line_end = rest
            .char_indices()
            .find(|&(j, c)| j >= MAX_SECRET_VALUE_BYTES || matches!(c, '\n' | '"' | '\''))
            .map_or(rest.len(), |(j, _)| j);
        let value = &rest[..line_end];
        covered = value.as_ptr() as usize - text.as_ptr() as usize + value.len();
        if authorization {
            let token68 = |c: char| c.is_ascii_alphanumeric() || "-._~+/=".contains(c);
            // The scheme word, when a value follows it.
            let value = match value.split_once(' ') {
                Some((scheme, v)) if scheme.bytes().all(|b| b.is_ascii_alphabetic()) => {
                    v.trim_start_matches(' ')
                }
                _ => value,
            };
            let end = value.find(|c: char| !token68(c)).unwrap_or(value.len());
            let credential = &value[..end];
            if looks_like_credential(credential, true) {
                found.push(credential);
            }
        } else {
            for pair in value.split(';') {
                let Some((name, v)) = pair.split_once('=') else {
                    continue;
                };
                let name = name.trim().to_ascii_lowercase();
                let v = v.trim();
                if !COOKIE_ATTRIBUTES.contains(&name.as_str()) && looks_like_credential(v, true) {
                    found.push(v);
                }
            }
        }
    }
    found
}

/// The shortest random-looking part a token of a known shape holds:
/// [`random_part`].
const RANDOM_PART_CHARS: usize = 16;

/// Whether `body` (a token after its prefix) holds a run of at least
/// [`RANDOM_PART_CHARS`] letters and digits mixing two of lower case,
/// upper case and digits, as generated keys do; words joined by `-` or
/// `_` (`learn-compatible-estimator`) do not.
fn random_part(body: &str) -> bool {
    body.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|part| {
            let kinds = [
                part.bytes().any(|b| b.is_ascii_lowercase()),
                part.bytes().any(|b| b.is_ascii_uppercase()),
                part.bytes().any(|b| b.is_ascii_digit()),
            ];
            part.len() >= RANDOM_PART_CHARS && kinds.iter().filter(|k| **k).count() >= 2
        })
}

/// The shortest value of a secret-named assignment taken for a credential.
pub const MIN_SECRET_CHARS: usize = 8;

/// The most of a secret-named assignment's value read (a value without
/// its closing quote ends here), so no line of assignments without ends
/// is read again for each of them; a longer credential keeps its rest.
pub const MAX_SECRET_VALUE_BYTES: usize = 4096;

/// The words of a name, lower case: split at `_`, `-`, `.` and any other
/// character that is not a letter or digit, at a change from lower to
/// upper case (`hfToken`), before the last capital of a run of them
/// followed by a small letter (`APIKey`), and between letters and digits.
fn name_words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        if !word.is_empty() {
            let prev = chars[i - 1];
            let next = chars.get(i + 1).copied();
            let boundary = (prev.is_ascii_lowercase() && c.is_ascii_uppercase())
                || (prev.is_ascii_uppercase()
                    && c.is_ascii_uppercase()
                    && next.is_some_and(|n| n.is_ascii_lowercase()))
                || (prev.is_ascii_digit() != c.is_ascii_digit());
            if boundary {
                words.push(std::mem::take(&mut word));
            }
        }
        word.push(c.to_ascii_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Words that make a name a secret's when they are its last word
/// ([`SECRET_SUFFIXES`] aside).
const SECRET_WORDS: [&str; 11] = [
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "pass",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "authtoken",
];

/// Words before `key` that make it a secret's (`API_KEY`, `signing_key`;
/// a dictionary's `key` or a `sort_key` is none).
const KEY_QUALIFIERS: [&str; 6] = [
    "api",
    "access",
    "private",
    "secret",
    "signing",
    "encryption",
];

/// Last words that say how a secret is written, not what the name is
/// about: `secret_key_base`, `API_TOKEN_B64`, `token_2`.
const SECRET_SUFFIXES: [&str; 7] = ["value", "base", "b64", "base64", "hex", "raw", "encoded"];

/// Whether an identifier names a secret: its last word ([`name_words`]),
/// after any [`SECRET_SUFFIXES`] words and words of digits, is a
/// [`SECRET_WORDS`] word, a word ending in `password` or `passwd`
/// (`PGPASSWORD`), `pwd` after another word (`MYSQL_PWD`; `PWD` alone is
/// the working folder), or `key` after a [`KEY_QUALIFIERS`] word. A secret
/// word before the last names something about a secret (`TOKEN_PATH`,
/// `token_budget`, `api_key_header`, `password_strength`). Words, not
/// substrings: `tokenizer` names no token, `monkey` no key.
fn names_a_secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if !["token", "secret", "pass", "pwd", "key"]
        .iter()
        .any(|w| lower.contains(w))
    {
        return false;
    }
    let mut words = name_words(name);
    // Suffixes and digits off the end (`b64` is two words, `b` and `64`).
    while let Some(last) = words.last() {
        let digits = last.bytes().all(|b| b.is_ascii_digit());
        let n = words.len();
        if digits && n >= 2 && SECRET_SUFFIXES.contains(&format!("{}{last}", words[n - 2]).as_str())
        {
            words.truncate(n - 2);
        } else if digits || SECRET_SUFFIXES.contains(&last.as_str()) {
            words.pop();
        } else {
            break;
        }
    }
    let Some((last, before)) = words.split_last() else {
        return false;
    };
    let previous = before.last().map(String::as_str);
    SECRET_WORDS.contains(&last.as_str())
        || last.ends_with("password")
        || last.ends_with("passwd")
        || (last == "pwd" && previous.is_some())
        || (last == "key" && previous.is_some_and(|p| KEY_QUALIFIERS.contains(&p)))
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// Values assigned to a name that [`names_a_secret`], with `=` or `:`,
/// the name bare or quoted (`HF_TOKEN = ...`, `'MY_DB_PASSWORD': ...`,
/// `--api-key=...`). A quoted value is everything up to its closing quote
/// on the line, whatever characters it holds (a string prefix such as
/// `b"` allowed); a bare one runs to white space, `,`, `;` or `}`. Kept
/// when [`looks_like_credential`].
fn assigned_secrets(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut i = 0;
    while i < bytes.len() {
        if !is_name_byte(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_name_byte(bytes[i]) {
            i += 1;
        }
        if !names_a_secret(&text[start..i]) {
            continue;
        }
        if let Some(value) = assigned_value(&text[i..]) {
            // What follows the value is read next: the names inside a value
            // are part of it, and no stretch of text is read once per name.
            i = value.as_ptr() as usize - text.as_ptr() as usize + value.len();
            if seen.insert(value) {
                found.push(value.to_string());
            }
        }
    }
    found
}

/// The credential assigned in `rest` (what follows a secret's name), if
/// any: see [`assigned_secrets`].
fn assigned_value(rest: &str) -> Option<&str> {
    let blank = |c: char| c == ' ' || c == '\t';
    let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
    let rest = rest.trim_start_matches(blank);
    let rest = match rest.strip_prefix('=') {
        Some(r) if !r.starts_with(['=', '>']) => r,
        Some(_) => return None,
        None => rest.strip_prefix(':').filter(|r| !r.starts_with(':'))?,
    };
    let rest = rest.trim_start_matches(blank);
    let prefix_len = rest.bytes().take_while(|b| b"bBrRfFuU".contains(b)).count();
    match rest[prefix_len..].chars().next() {
        Some(quote @ ('"' | '\'')) if prefix_len <= 2 => {
            let body = &rest[prefix_len + 1..];
            let mut end = body.len();
            let mut escaped = false;
            for (j, c) in body.char_indices() {
                if j >= MAX_SECRET_VALUE_BYTES {
                    end = j;
                    break;
                }
                match c {
                    '\n' => {
                        end = j;
                        break;
                    }
                    '\\' if !escaped => {
                        escaped = true;
                        continue;
                    }
                    c if c == quote && !escaped => {
                        end = j;
                        break;
                    }
                    _ => {}
                }
                escaped = false;
            }
            let value = &body[..end];
            let template = rest[..prefix_len].contains(['f', 'F']) && value.contains('{');
            (!template && looks_like_credential(value, true)).then_some(value)
        }
        _ => {
            let end = rest
                .char_indices()
                .find(|&(j, c)| {
                    j >= MAX_SECRET_VALUE_BYTES || c.is_whitespace() || matches!(c, ',' | ';' | '}')
                })
                .map_or(rest.len(), |(j, _)| j);
            let value = &rest[..end];
            // A call's closing bracket is not the value's, nor the quote
            // of a string the assignment sits in (`['--api-key=...']`).
            let value = if value.contains(['(', '[']) {
                value
            } else {
                value.trim_end_matches([')', ']', '\'', '"', '`'])
            };
            looks_like_credential(value, false).then_some(value)
        }
    }
}

/// Words a value stands in for a credential with, not one (found
/// anywhere in it, in any case).
const PLACEHOLDERS: [&str; 8] = [
    "xxx",
    "your",
    "example",
    "changeme",
    "redacted",
    "placeholder",
    "dummy",
    "<secret>",
];

/// Whole values (in any case) a program prints for a value it has not got.
const NO_VALUE: [&str; 7] = [
    "undefined",
    "required",
    "optional",
    "missing",
    "not set",
    "notset",
    "<hidden>",
];

/// Whether a value assigned to a secret's name is a credential: at least
/// [`MIN_SECRET_CHARS`] characters with a letter among them, not one word
/// as prose writes it (letters only, small after the first, or all
/// capitals), not a placeholder ([`PLACEHOLDERS`], [`NO_VALUE`], `<...>`, `${...}`), and, when it is not
/// quoted, not code: a call or a lookup (`os.environ["HF_TOKEN"]`,
/// `getpass()`), or a name made of words (`args.hf_token`,
/// `DEFAULT_TOKEN`: `.` or `_` between letters, no digit).
fn looks_like_credential(v: &str, quoted: bool) -> bool {
    let lower = v.to_ascii_lowercase();
    let placeholder = PLACEHOLDERS.iter().any(|p| lower.contains(p))
        || NO_VALUE.contains(&lower.as_str())
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with("${") && v.ends_with('}'))
        || (v.starts_with("{{") && v.ends_with("}}"));
    let is_ident = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let head_len = v
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(v.len());
    let call = head_len > 0
        && is_ident(v[..head_len].split('.').next().unwrap_or(""))
        && v[head_len..].starts_with(['(', '[']);
    let words_name = v.split('.').all(is_ident)
        && v.contains(['.', '_'])
        && !v.bytes().any(|b| b.is_ascii_digit());
    let code = !quoted && (call || words_name || v.starts_with(['$', '{', '(', '[']));
    // One word as prose writes it (`embedding`, `Wonderful`, `TRUE`): what
    // a tokenizer's `token` or a `token_str` prints, not a credential.
    let tail = v.get(1..).unwrap_or("");
    let word = v.chars().all(|c| c.is_ascii_alphabetic())
        && (tail.bytes().all(|b| b.is_ascii_lowercase())
            || v.bytes().all(|b| b.is_ascii_uppercase()));
    v.chars().count() >= MIN_SECRET_CHARS
        && v.chars().any(char::is_alphabetic)
        && !placeholder
        && !code
        && !word
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
            "api_key = os.environ['OPENAI_API_KEY']",
            "API_KEY = 'your-api-key-here-123'",
            "secret = 12",
            "desk-0123456789abcdef0123456789abcdef",
        ] {
            assert_eq!(secrets(text), Vec::<String>::new(), "{text}");
        }
    }

    #[test]
    fn names_that_only_hold_a_secret_word_are_no_secrets_name() {
        for text in [
            "tokenizer = \"meta-llama/Llama-2-7b-hf\"",
            "\"tokenizer_class\": \"GPT2TokenizerFast\"",
            "TOKENIZER_PATH: models/llama-2-7b/tokenizer.model",
            "max_tokens = 4096",
            "monkey = 'banana-split-sundae'",
            "sort_key: lambda_row_by_length",
            "TOKEN_PATH=/srv/run/creds/hf",
            "password_file: secrets/db-password.txt",
            "token_type: 'BearerScheme'",
            "detokenize: 'reverse of tokenize'",
            "keyboard = 'qwertyuiop'",
            "{'score': 0.1, 'token': 2204, 'token_str': 'wonderful', 'sequence': 'a b'}",
            "token: embedding\ntoken: Transformers",
            "{token: frequency for token in vocab}",
            // A secret word before the name's last word names something
            // about a secret.
            "api_key_header = \"X-API-Key\"",
            "signing_key_algorithm = 'HS256-v2'",
            "token_budget: 1_000_000_tokens",
            "password_strength: moderately_strong_v2",
            "secret_santa_pairs: alice->bob",
            "secret_sharing_scheme: shamir_3_of_5",
            // `PWD` alone is the working folder.
            "PWD=/srv/build/project-2",
            // Headers without a credential.
            "Authorization: Bearer <token>",
            "Authorization: required",
            "Set-Cookie: theme=dark; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
            "cookie: chocolate chip",
        ] {
            assert_eq!(secrets(text), Vec::<String>::new(), "{text}");
        }
        assert_eq!(
            name_words("APIKey_hfToken2x.secret-Path"),
            ["api", "key", "hf", "token", "2", "x", "secret", "path"]
        );
    }

    #[test]
    fn a_name_is_a_secrets_when_its_last_word_is_a_secret_word() {
        for name in [
            "MY_DB_PASSWORD",
            "HF_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "api_key",
            "secret_key_base",
            "PGPASSWORD",
            "MYSQL_PWD",
            "DB_PASS",
            "apiKeyB64",
            "token_value",
            "client_secret",
        ] {
            assert!(names_a_secret(name), "{name}");
        }
        for name in [
            "api_key_header",
            "signing_key_algorithm",
            "token_budget",
            "password_strength",
            "secret_santa_pairs",
            "secret_sharing_scheme",
            "PWD",
            "OLDPWD",
            "bypass",
            "sort_key",
            "token_value_path",
        ] {
            assert!(!names_a_secret(name), "{name}");
        }
    }

    #[test]
    fn a_word_after_a_known_prefix_is_no_key() {
        for text in [
            "pip install sk-learn-compatible-estimators-and-wrappers",
            "see hf_transfer_enabled_for_this_run_only_today",
            "xoxb-not-a-real-slack-token-at-all",
            "glpat-documentation-page-link",
            "ghp_abcdefghijklmnopqrstuvwxyzabcdefghij",
        ] {
            assert_eq!(secrets(text), Vec::<String>::new(), "{text}");
        }
        // A generated key mixes cases or digits in a long run.
        assert_eq!(
            secrets("sk-learn-Zq81mBv0TrPk22LsXe"),
            ["API key (sk-) sk-l... (27 characters)"]
        );
    }

    #[test]
    fn a_secret_names_value_is_kept_out_whatever_it_holds() {
        for (text, value) in [
            // dict(os.environ): quoted, cut at the closing quote, not at `&`.
            (
                "environ({'MY_DB_PASSWORD': 'Tr0ub4dor&3xyz!Q', 'PATH': '/usr/bin'})",
                "Tr0ub4dor&3xyz!Q",
            ),
            // `env` output: bare, to white space.
            (
                "MY_DB_PASSWORD=Tr0ub4dor&3xyz!Q
PATH=/bin",
                "Tr0ub4dor&3xyz!Q",
            ),
            // A short value of a known prefix is still a secret name's value.
            ("HF_TOKEN = 'hf_Qx81mB'", "hf_Qx81mB"),
            // Letters only, spaces and quotes inside.
            (
                "\"db_password\": \"correct horse \\\"battery\\\" staple\"",
                "correct horse \\\"battery\\\" staple",
            ),
            ("argv: ['train.py', '--api-key=abcdEFGHij']", "abcdEFGHij"),
            (
                "AWS_SECRET_ACCESS_KEY: wJalrXUtnFEMIbPxRfiCY",
                "wJalrXUtnFEMIbPxRfiCY",
            ),
            ("self.signingKey = b'k3y-m4t3r1al'", "k3y-m4t3r1al"),
            (
                "export GITHUB_TOKEN=0123456789abcdef0123",
                "0123456789abcdef0123",
            ),
            ("call(secret=Zq81mBv0TrPk)", "Zq81mBv0TrPk"),
            // A word ending in `password`, and `pwd` and `pass` as last words.
            ("{'PGPASSWORD': 'Tr0ub4dor&3xyz!Q'}", "Tr0ub4dor&3xyz!Q"),
            ("MYSQL_PWD='Zz9&Yy8 Xx7'", "Zz9&Yy8 Xx7"),
            ("\"DB_PASS\": \"Zq8!&x y'z\"", "Zq8!&x y'z"),
            // A secret word followed by how the secret is written.
            ("secret_key_base = 'a8f3e9c1b7d2'", "a8f3e9c1b7d2"),
            ("HF_TOKEN_2=Qx81mBv0TrPk", "Qx81mBv0TrPk"),
            // HTTP headers.
            (
                "> Authorization: Bearer AbC123def456GHI789\n",
                "AbC123def456GHI789",
            ),
            (
                "headers={'Authorization': 'Basic dXNlcjpTM2NyM3Q='}",
                "dXNlcjpTM2NyM3Q=",
            ),
            ("Cookie: sessionid=abc123def456ghi", "abc123def456ghi"),
            (
                "{'Set-Cookie': 'sid=Zq81mBv0TrPk; Path=/; HttpOnly'}",
                "Zq81mBv0TrPk",
            ),
        ] {
            let found = secret_tokens(text);
            assert!(found.iter().any(|(_, t)| t == value), "{text}: {found:?}");
            let clean = redact_secrets(text);
            assert!(!clean.contains(value), "{clean}");
            assert!(clean.contains("<secret>"), "{clean}");
            assert!(secrets(&clean).is_empty(), "{clean}: {:?}", secrets(&clean));
        }
    }

    #[test]
    fn code_templates_and_short_values_are_no_credentials() {
        for text in [
            "HF_TOKEN = os.environ[\"HF_TOKEN\"]",
            "password = getpass.getpass()",
            "api_key=args.openai_api_key,",
            "token = DEFAULT_HF_TOKEN",
            "token = f\"{prefix}-{suffix}-value\"",
            "API_TOKEN: ${API_TOKEN_FROM_ENV}",
            "password: '<your password>'",
            "secret_key = 'abc'",
            "password = '12345678901'",
            "token: <secret>",
            "token: required",
            "if token == 'abcdefghijkl':",
        ] {
            assert_eq!(secrets(text), Vec::<String>::new(), "{text}");
        }
    }

    #[test]
    fn home_folders_show_in_settings_urls_and_windows_paths() {
        for (text, path) in [
            ("HOME=/home/x", "/home/x"),
            ("see file:///home/x/data.csv", "/home/x/data.csv"),
            ("c:/Users/x/AppData", "c:/Users/x/AppData"),
            ("C:\\Users\\x\\nb", "C:\\Users\\x\\nb"),
            ("PATH=/home/x/bin:/usr/bin", "/home/x/bin"),
            ("File /home/x/a.py:3: in f", "/home/x/a.py"),
        ] {
            assert_eq!(local_paths(text), [path.to_string()], "{text}");
        }
        assert_eq!(
            local_paths("https://example.org/home/x"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_url_with_credentials_is_a_finding_that_does_not_repeat_them() {
        let nb = notebook(serde_json::json!([code(
            "db",
            "engine = connect('https://h/api?key=Zq81mB&page=2')",
            serde_json::json!([{"output_type": "stream", "name": "stdout",
                "text": "DATABASE_URL=postgres://admin:S3cretPw@db:5432/app\n"}])
        )]));
        let lines: Vec<String> = audit(&nb, &facts()).iter().map(|f| f.to_string()).collect();
        assert_eq!(
            lines,
            [
                "db: secret: URL with credentials or a secret parameter: https://h/api?page=2 in the source",
                "db: secret: URL with credentials or a secret parameter: postgres://db:5432/app in a saved output",
            ]
        );
    }

    #[test]
    fn many_secrets_are_all_taken_out_in_one_pass_and_each_private_key_too() {
        let text: String = (0..20_000)
            .map(|i| format!("PASSWORD=Pw{i:05}x&y! then Pw{i:05}x&y! alone\n"))
            .collect();
        let clean = redact_secrets(&text);
        assert!(!clean.contains("Pw0"), "{}", &clean[..200]);
        assert_eq!(clean.matches("<secret>").count(), 40_000);
        let keys = "a\n-----BEGIN PRIVATE KEY-----\nMIIa\n-----END PRIVATE KEY-----\nb\n\
                    -----BEGIN EC PRIVATE KEY-----\nMIIb\n-----END EC PRIVATE KEY-----\nc";
        assert_eq!(
            redact_secrets(keys),
            "a\n<private key>\nb\n<private key>\nc"
        );
        // Lines of assignments with no end are read once, not once each.
        let endless = "token=".repeat(50_000);
        let found = secret_tokens(&endless);
        assert!(!found.is_empty());
        assert!(found.iter().all(|(_, v)| v.len() <= MAX_SECRET_VALUE_BYTES));
        let jwts = "eyJ.".repeat(50_000);
        assert!(secret_tokens(&jwts).is_empty());
    }
}
