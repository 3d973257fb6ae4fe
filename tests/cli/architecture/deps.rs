//! Every dependency Cargo.toml declares is used: named as a path (`serde::`,
//! `use regex`) in `src/`, `tests/` or `benches/`. A crate declared and never
//! used costs every build its compile time and every reader a question.

use std::path::{Path, PathBuf};

/// The crate names declared under `[dependencies]`, `[dev-dependencies]` and
/// `[build-dependencies]` of a manifest (one `name = ...` per line, as
/// Cargo.toml writes them).
pub fn declared(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_deps = matches!(
                t,
                "[dependencies]" | "[dev-dependencies]" | "[build-dependencies]"
            );
            continue;
        }
        if !in_deps || t.starts_with('#') || line.starts_with(char::is_whitespace) {
            continue;
        }
        if let Some((name, _)) = t.split_once('=') {
            out.push(name.trim().to_string());
        }
    }
    out
}

/// Of `names`, those no text of `sources` names as a path: `name::`, `use
/// name` or `extern crate name` (with `-` read as `_`).
pub fn unused(names: &[String], sources: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|name| {
            let id = name.replace('-', "_");
            let pattern =
                regex::Regex::new(&format!(r"\b{id}::|\buse {id}\b|\bextern crate {id}\b"))
                    .expect("a crate name makes a pattern");
            !sources.iter().any(|s| pattern.is_match(s))
        })
        .cloned()
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_declared_dependency_is_used() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        rust_files(&root.join(dir), &mut files);
    }
    let sources: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    let names = declared(&manifest);
    assert!(names.iter().any(|n| n == "serde"), "{names:?}");
    assert_eq!(
        unused(&names, &sources),
        Vec::<String>::new(),
        "declared in Cargo.toml and never used"
    );
}

#[test]
fn a_planted_unused_dependency_is_found() {
    let manifest = "[package]\nname = \"x\"\n\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\n# a comment\nhtml-escape = \"0.2\"\nregex = \"1\"\n\n[dev-dependencies]\nassert_cmd = \"2\"\n\n[profile.release]\ndebug = false\n";
    let names = declared(manifest);
    assert_eq!(names, vec!["serde", "html-escape", "regex", "assert_cmd"]);
    let sources = vec![
        "use serde::Serialize;\nfn f() { regex::Regex::new(\"a\"); }".to_string(),
        "use assert_cmd::Command;".to_string(),
    ];
    assert_eq!(unused(&names, &sources), vec!["html-escape"]);
}
