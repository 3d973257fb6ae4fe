//! All YAML reading and writing goes through here, so that `serde_yaml`
//! (deprecated upstream, chosen by the user) could be swapped in one place.
//!
//! Nothing a data file says may exhaust the machine: a file is read only up
//! to [`MAX_YAML_BYTES`], and before serde sees it, an event parser
//! (`yaml-rust2`) checks its nesting depth and what its aliases expand to.
//! Error messages quote values only in short excerpts.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;
use yaml_rust2::parser::{Event, Parser};

use crate::error::{Error, Result};

/// The largest YAML file the tool reads.
pub const MAX_YAML_BYTES: u64 = 16 << 20;
/// The deepest nesting of mappings and sequences.
pub const MAX_YAML_DEPTH: usize = 64;
/// The most nodes a file may hold once its aliases are expanded.
pub const MAX_YAML_NODES: u64 = 1_000_000;
/// The most scalar bytes a file may hold once its aliases are expanded.
pub const MAX_YAML_EXPANDED_BYTES: u64 = 4 * MAX_YAML_BYTES;

/// The longest excerpt of a value an error message quotes.
const EXCERPT_CHARS: usize = 60;

/// Parses `text` (read from `path`) as `T`. The error names the file, the
/// field path, and the line and column.
pub fn from_str<T: DeserializeOwned>(text: &str, path: &Path) -> Result<T> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    check_shape(text, path)?;
    let de = serde_yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|err| {
        let field = err.path().to_string();
        let inner = err.into_inner();
        let location = inner
            .location()
            .map(|l| format!("line {}, column {}: ", l.line(), l.column()))
            .unwrap_or_default();
        // serde_yaml appends " at line L column C" itself; keep one copy.
        let mut message = inner.to_string();
        if let Some(i) = message.find(" at line ") {
            message.truncate(i);
        }
        // serde_yaml may also start with the field path; keep one copy.
        if let Some(rest) = message.strip_prefix(&format!("{field}: ")) {
            message = rest.to_string();
        }
        let field = if field == "." {
            String::new()
        } else {
            format!("field '{field}': ")
        };
        Error::Yaml {
            path: path.to_path_buf(),
            message: format!("{location}{field}{}", shorten(&message)),
        }
    })
}

/// [`from_str`] for files whose numbers must all be finite (run files,
/// claims): `.inf` or `.nan` anywhere is an error naming the field.
pub fn from_str_finite<T: DeserializeOwned>(text: &str, path: &Path) -> Result<T> {
    let value: T = from_str(text, path)?;
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let tree: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| Error::Yaml {
        path: path.to_path_buf(),
        message: shorten(&e.to_string()),
    })?;
    if let Some((field, x)) = first_non_finite(&tree, String::new()) {
        return Err(Error::invalid(
            path,
            format!("field '{field}': {x} is not a finite number"),
        ));
    }
    Ok(value)
}

/// The first number in `v` that is infinite or not a number, with its path.
fn first_non_finite(v: &serde_yaml::Value, at: String) -> Option<(String, f64)> {
    use serde_yaml::Value;
    match v {
        Value::Number(n) => n.as_f64().filter(|x| !x.is_finite()).map(|x| (at, x)),
        Value::Sequence(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| first_non_finite(item, format!("{at}[{i}]"))),
        Value::Mapping(map) => map.iter().find_map(|(k, item)| {
            let key = k.as_str().map_or_else(|| format!("{k:?}"), str::to_string);
            let at = if at.is_empty() {
                key
            } else {
                format!("{at}.{key}")
            };
            first_non_finite(item, at)
        }),
        Value::Tagged(t) => first_non_finite(&t.value, at),
        _ => None,
    }
}

/// Reads a YAML file of at most [`MAX_YAML_BYTES`] that must be UTF-8.
pub fn read_text(path: &Path) -> Result<String> {
    let file = crate::text::read::open_regular(path).map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_YAML_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_YAML_BYTES {
        return Err(Error::TooLarge {
            what: format!("{}: the file", path.display()),
            limit: MAX_YAML_BYTES,
        });
    }
    String::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to() as u64,
    })
}

/// Reads and parses a YAML file.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<T> {
    from_str(&read_text(path)?, path)
}

/// Reads and parses a YAML file whose numbers must all be finite.
pub fn read_finite<T: DeserializeOwned>(path: &Path) -> Result<T> {
    from_str_finite(&read_text(path)?, path)
}

/// Serializes `value` as YAML text.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_yaml::to_string(value).map_err(|e| Error::Other(format!("cannot write YAML: {e}")))
}

/// Walks the file's events once: refuses nesting deeper than
/// [`MAX_YAML_DEPTH`] and aliases that expand beyond [`MAX_YAML_NODES`]
/// nodes or [`MAX_YAML_EXPANDED_BYTES`] bytes, before anything is built.
fn check_shape(text: &str, path: &Path) -> Result<()> {
    let refuse = |line: usize, what: String| Error::Yaml {
        path: path.to_path_buf(),
        message: format!("line {line}: {what}"),
    };
    let mut parser = Parser::new_from_str(text);
    // Per anchor: the nodes and scalar bytes of what it names.
    let mut anchors: HashMap<usize, (u64, u64)> = HashMap::new();
    // Open collections: anchor, and the counts when they opened.
    let mut open: Vec<(usize, u64, u64)> = Vec::new();
    let (mut nodes, mut bytes) = (0u64, 0u64);
    let mut aliased = false;
    loop {
        let (event, mark) = parser.next_token().map_err(|e| Error::Yaml {
            path: path.to_path_buf(),
            message: shorten(&e.to_string()),
        })?;
        match event {
            Event::StreamEnd => return Ok(()),
            Event::Scalar(value, _, anchor, _) => {
                nodes += 1;
                bytes += value.len() as u64;
                if anchor > 0 {
                    anchors.insert(anchor, (1, value.len() as u64));
                }
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                nodes += 1;
                open.push((anchor, nodes, bytes));
                if open.len() > MAX_YAML_DEPTH {
                    return Err(refuse(
                        mark.line(),
                        format!("nested more than {MAX_YAML_DEPTH} levels deep"),
                    ));
                }
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((anchor, n0, b0)) = open.pop()
                    && anchor > 0
                {
                    anchors.insert(anchor, (nodes - n0 + 1, bytes - b0));
                }
            }
            Event::Alias(id) => {
                aliased = true;
                let (n, b) = anchors.get(&id).copied().unwrap_or((1, 0));
                nodes += n;
                bytes += b;
            }
            _ => {}
        }
        if nodes > MAX_YAML_NODES || bytes > MAX_YAML_EXPANDED_BYTES {
            // Without an alias, the file itself is what is too big: say
            // its size, not what aliases would expand to.
            let what = if aliased {
                format!(
                    "aliases expand beyond {MAX_YAML_NODES} nodes or {MAX_YAML_EXPANDED_BYTES} bytes"
                )
            } else if nodes > MAX_YAML_NODES {
                format!(
                    "the file ({} bytes) holds more than {MAX_YAML_NODES} YAML nodes (values, lists and mappings), more than the tool reads from one file",
                    text.len()
                )
            } else {
                format!(
                    "the file ({} bytes) holds more than {MAX_YAML_EXPANDED_BYTES} bytes of values, more than the tool reads from one file",
                    text.len()
                )
            };
            return Err(refuse(mark.line(), what));
        }
    }
}

/// A message with every quoted value cut to a short excerpt, and the whole
/// kept to one readable line.
fn shorten(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = rest[open..].chars().next().expect("found");
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        let close = rest.find(quote).unwrap_or(rest.len());
        let inner = &rest[..close];
        if inner.chars().count() > EXCERPT_CHARS {
            out.extend(inner.chars().take(EXCERPT_CHARS));
            out.push('…');
        } else {
            out.push_str(inner);
        }
        rest = &rest[close..];
        if let Some(q) = rest.chars().next() {
            out.push(q);
            rest = &rest[q.len_utf8()..];
        }
    }
    out.push_str(rest);
    let out = out.replace('\n', " ");
    if out.chars().count() > 4 * EXCERPT_CHARS + 40 {
        out.chars().take(4 * EXCERPT_CHARS).collect::<String>() + "…"
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Doc {
        name: String,
        #[serde(default)]
        items: Vec<serde_yaml::Value>,
        #[serde(default)]
        x: f64,
    }

    fn parse(text: &str) -> std::result::Result<Doc, String> {
        from_str_finite::<Doc>(text, Path::new("f.yaml")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_file_of_too_many_nodes_without_aliases_is_refused_by_its_size() {
        let mut text = String::from("name: a\nitems:\n");
        for _ in 0..=MAX_YAML_NODES {
            text.push_str("- 1\n");
        }
        let err = parse(&text).unwrap_err();
        assert!(!err.contains("aliases"), "{err}");
        assert!(
            err.contains(&format!(
                "the file ({} bytes) holds more than {MAX_YAML_NODES} YAML nodes",
                text.len()
            )),
            "{err}"
        );
    }

    #[test]
    fn an_alias_bomb_is_refused_before_it_expands() {
        let mut text = format!("name: a\nbig: &b \"{}\"\nitems:\n", "x".repeat(1 << 20));
        for _ in 0..100_000 {
            text.push_str("- *b\n");
        }
        let err = parse(&text).unwrap_err();
        assert!(err.contains("aliases expand beyond"), "{err}");
        // A few aliases are fine.
        assert!(parse("name: a\nv: &v 1\nitems: [*v, *v]\n").is_ok());
    }

    #[test]
    fn deep_nesting_is_refused_at_once() {
        let text = format!("name: a\nitems: {}{}\n", "[".repeat(100), "]".repeat(100));
        let err = parse(&text).unwrap_err();
        assert!(
            err.contains("line 2: nested more than 64 levels deep"),
            "{err}"
        );
        // Far deeper, the event parser's own limit speaks first; either way
        // it is one line, at once.
        let text = format!(
            "name: a\nitems: {}{}\n",
            "[".repeat(1_000_000),
            "]".repeat(1_000_000)
        );
        let err = parse(&text).unwrap_err();
        assert!(err.contains("f.yaml: "), "{err}");
        assert!(
            err.contains("recursion limit") || err.contains("nested more than"),
            "{err}"
        );
    }

    #[test]
    fn a_leading_bom_is_not_a_missing_field() {
        assert_eq!(parse("\u{FEFF}name: a\n").unwrap().name, "a");
    }

    #[test]
    fn non_finite_numbers_are_named_by_field() {
        let err = parse("name: a\nx: .inf\n").unwrap_err();
        assert!(
            err.contains("field 'x': inf is not a finite number"),
            "{err}"
        );
        let err = parse("name: a\nitems: [1, {y: .nan}]\n").unwrap_err();
        assert!(err.contains("field 'items[1].y': NaN"), "{err}");
    }

    #[test]
    fn errors_quote_values_in_short_excerpts() {
        let long = "y".repeat(5000);
        let err = parse(&format!("name: [\"{long}\"]\n")).unwrap_err();
        assert!(err.len() < 400, "{} bytes: {err}", err.len());
        assert!(err.contains("f.yaml"), "{err}");
    }
}
