//! The architecture's rules, checked from the source so they stay true:
//! no import circle between the crate's top-level modules, the layers point
//! down, no command file imports another, and clap and flag names stay in the
//! command-line layer.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The command-line layer: the only files that may know about clap or name
/// a flag.
const CLI_LAYER: [&str; 4] = ["main", "cli", "commands", "output"];

/// Top-level modules below the use-cases: they must not import `app` or the
/// command-line layer.
const CAPABILITIES: [&str; 16] = [
    "atomic",
    "bench",
    "chapter",
    "env",
    "error",
    "fetch",
    "ids",
    "layout",
    "provenance",
    "published",
    "records",
    "render",
    "sys",
    "text",
    "yaml_io",
    "lib",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every Rust file under src/ (build.rs aside), with its text.
fn sources() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("build.rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                out.push((p, text));
            }
        }
    }
    let mut out = Vec::new();
    walk(&src(), &mut out);
    out.sort();
    out
}

/// The module path of a file: `src/bench/mod.rs` is `bench`,
/// `src/bench/pool.rs` is `bench::pool`, `src/lib.rs` is `lib`.
fn module_of(path: &Path) -> Vec<String> {
    let rel = path.strip_prefix(src()).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The code of a file without comments, string literals and its test module
/// (everything from `#[cfg(test)]` on), so that a doc comment, a message or a
/// test helper cannot create or hide a dependency.
fn code_only(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = String::new();
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut kept = String::new();
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if !in_str && c == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' && !(prev == '\'' && chars.get(i + 1) == Some(&'\'')) {
                in_str = !in_str;
                kept.push('"');
            } else if !in_str {
                kept.push(c);
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
            i += 1;
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// The string literals of a file's code (comments left out).
fn strings(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut parts = code.split('"');
        parts.next();
        while let Some(s) = parts.next() {
            found.push(s.to_string());
            parts.next();
        }
    }
    found
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Expands a `use` tree (`a::{b, c::{d}}`) into its paths.
fn expand(tree: &str) -> Vec<Vec<String>> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree.split("::").map(str::to_string).collect()];
    };
    let prefix: Vec<String> = tree[..open]
        .trim_end_matches("::")
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .filter(|s| !s.is_empty())
        .flat_map(|item| {
            expand(item).into_iter().map(|rest| {
                let mut p = prefix.clone();
                p.extend(rest);
                p
            })
        })
        .collect()
}

/// The module paths a file refers to, made absolute (`crate::x`, `super::x`).
fn references(module: &[String], is_mod_rs: bool, code: &str) -> Vec<Vec<String>> {
    let mut paths: Vec<Vec<String>> = Vec::new();
    // `use` trees, which may span lines and hold braces.
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        let stmt_end = rest[at..].find(';').map_or(rest.len(), |e| at + e);
        if before.is_none_or(|c| !is_ident(c)) {
            paths.extend(expand(&rest[at + 4..stmt_end]));
        }
        rest = &rest[(at + 4).min(rest.len())..];
    }
    // Inline paths: `crate::a::b(...)`, `super::a::b`.
    for anchor in ["crate::", "super::"] {
        let mut rest = code;
        while let Some(at) = rest.find(anchor) {
            let before = rest[..at].chars().last();
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| !(is_ident(c) || c == ':'))
                .unwrap_or(tail.len());
            if before.is_none_or(|c| !is_ident(c) && c != ':') {
                paths.push(
                    tail[..end]
                        .split("::")
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect(),
                );
            }
            rest = &rest[at + anchor.len()..];
        }
    }
    // Make them absolute: the parent of a file's module for `super`.
    let parent: Vec<String> = if is_mod_rs || module.len() <= 1 {
        module[..module.len().saturating_sub(1)].to_vec()
    } else {
        module[..module.len() - 1].to_vec()
    };
    paths
        .into_iter()
        .filter_map(|p| match p.first().map(String::as_str) {
            Some("crate") => Some(p[1..].to_vec()),
            Some("super") => {
                let mut base = parent.clone();
                let mut rest = &p[1..];
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop();
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                Some(base)
            }
            _ => None,
        })
        // Globs and `self` name no new module.
        .map(|p| {
            p.into_iter()
                .take_while(|s| s != "*" && s != "self")
                .collect::<Vec<_>>()
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// Top-level module -> the top-level modules it refers to.
fn top_level_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in sources() {
        let module = module_of(&path);
        if module[0] == "testing" {
            continue;
        }
        let is_mod_rs = path.ends_with("mod.rs");
        let from = module[0].clone();
        let entry = graph.entry(from.clone()).or_default();
        for r in references(&module, is_mod_rs, &code_only(&text)) {
            if r[0] != from && r[0] != "self" {
                entry.insert(r[0].clone());
            }
        }
    }
    graph
}

/// Every cycle's members (strongly connected components of two or more).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(n) = todo.pop() {
            for m in graph.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    todo.push(m.clone());
                }
            }
        }
        seen
    };
    let mut found: Vec<Vec<String>> = Vec::new();
    for node in graph.keys() {
        let component: Vec<String> = reach(node)
            .into_iter()
            .filter(|m| reach(m).contains(node))
            .collect();
        if component.len() > 1 && !found.contains(&component) {
            found.push(component);
        }
    }
    found
}

#[test]
fn no_import_circle_between_top_level_modules() {
    let graph = top_level_graph();
    assert!(graph.contains_key("bench") && graph.contains_key("app"));
    assert!(
        graph["app"].contains("records"),
        "the scan sees app's imports: {:?}",
        graph["app"]
    );
    let found = cycles(&graph);
    if std::env::var_os("SHOW_MODULE_GRAPH").is_some() {
        for (m, uses) in &graph {
            eprintln!(
                "{m} -> {}",
                uses.iter().cloned().collect::<Vec<_>>().join(", ")
            );
        }
    }
    assert!(found.is_empty(), "import circles: {found:?}\n{graph:#?}");
}

#[test]
fn the_cycle_finder_finds_a_planted_cycle() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default().insert("a".into());
    g.entry("d".into()).or_default().insert("a".into());
    assert_eq!(cycles(&g), vec![vec!["a", "b", "c"]]);
    assert_eq!(
        expand("crate::{a::{b, c}, d}"),
        vec![
            vec!["crate", "a", "b"],
            vec!["crate", "a", "c"],
            vec!["crate", "d"]
        ]
    );
}

#[test]
fn layers_point_down() {
    let graph = top_level_graph();
    for module in CAPABILITIES {
        let Some(uses) = graph.get(module) else {
            continue;
        };
        for upper in ["app", "commands", "cli", "output", "main"] {
            assert!(
                !uses.contains(upper),
                "{module} imports {upper}, a layer above it"
            );
        }
    }
    for upper in ["commands", "cli", "output", "main"] {
        assert!(
            !graph["app"].contains(upper),
            "app imports {upper}, the command-line layer"
        );
    }
    assert!(
        graph["ids"].is_empty(),
        "ids is a leaf, yet imports {:?}",
        graph["ids"]
    );
    assert!(
        graph["layout"].iter().all(|m| m == "ids"),
        "layout imports only ids, yet imports {:?}",
        graph["layout"]
    );
}

#[test]
fn no_command_file_imports_another() {
    let commands: Vec<String> = std::fs::read_dir(src().join("commands"))
        .unwrap()
        .flatten()
        .map(|e| {
            e.file_name()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .filter(|n| n != "mod")
        .collect();
    assert!(commands.len() >= 10, "{commands:?}");
    for (path, text) in sources() {
        let module = module_of(&path);
        if module.len() != 2 || module[0] != "commands" {
            continue;
        }
        for r in references(&module, false, &code_only(&text)) {
            if r.len() >= 2 && r[0] == "commands" && commands.contains(&r[1]) && r[1] != module[1] {
                panic!("{} imports the command file {}", path.display(), r[1]);
            }
        }
    }
}

#[test]
fn clap_and_flag_names_stay_in_the_command_line_layer() {
    for (path, text) in sources() {
        let module = module_of(&path);
        if CLI_LAYER.contains(&module[0].as_str()) {
            continue;
        }
        let code = code_only(&text);
        assert!(
            !code.contains("clap"),
            "{} mentions clap outside the command line",
            path.display()
        );
        for s in strings(&text) {
            let flag = s.match_indices("--").any(|(i, _)| {
                s[i + 2..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_lowercase())
                    && s[..i]
                        .chars()
                        .last()
                        .is_none_or(|c| c == ' ' || c == '(' || c == '`')
            });
            assert!(!flag, "{} names a flag in a message: {s:?}", path.display());
        }
    }
}
