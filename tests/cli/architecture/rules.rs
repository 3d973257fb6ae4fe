//! Each architecture rule as a function of a read source tree that returns
//! what breaks it (with the file, line and path that does), so the real
//! `src/` and a planted tree are judged by the same code.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::source_tree::{Reference, SourceTree, TypeDefinition, cycle_path, cycles};

/// The command-line layer: the only top-level modules that may know about
/// clap or name a flag.
pub const CLI_LAYER: [&str; 4] = ["main", "cli", "commands", "output"];

/// Top-level modules below the use-cases: they must not import `app` or the
/// command-line layer.
pub const CAPABILITIES: [&str; 18] = [
    "atomic",
    "bench",
    "bounded_child",
    "chapter",
    "env",
    "error",
    "fetch",
    "ids",
    "layout",
    "notebook",
    "provenance",
    "published",
    "records",
    "render",
    "sys",
    "text",
    "yaml_io",
    "lib",
];

/// What sits above the capabilities: the use-cases and the command line.
const ABOVE_CAPABILITIES: [&str; 5] = ["app", "commands", "cli", "output", "main"];

/// What sits above the use-cases.
const ABOVE_USE_CASES: [&str; 4] = ["commands", "cli", "output", "main"];

/// `src/bench/config.rs`: a file as a maintainer finds it, under the
/// folder the tree was read from.
fn shown(tree: &SourceTree, file: &str) -> String {
    let base = tree
        .root()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{base}/{file}")
}

/// ` (src/records/status.rs:12 `crate::app::run`)`.
fn at(tree: &SourceTree, r: Option<&Reference>) -> String {
    r.map_or(String::new(), |r| {
        format!(" ({}:{} `{}`)", shown(tree, &r.file), r.line, r.written)
    })
}

/// The file-level import circles, described for a maintainer: each
/// circle's files and one way round it with the import behind each step.
pub fn file_circles(tree: &SourceTree) -> Option<String> {
    let graph = tree.file_graph();
    let found = cycles(&graph);
    if found.is_empty() {
        return None;
    }
    let mut report = format!("{} file-level import circle(s):\n", found.len());
    for (n, members) in found.iter().enumerate() {
        let files: Vec<String> = members.iter().map(|f| shown(tree, f)).collect();
        let _ = writeln!(
            report,
            "circle {}: {} files: {}",
            n + 1,
            members.len(),
            files.join(", ")
        );
        let _ = writeln!(report, "  one way round it:");
        for step in cycle_path(&graph, members).windows(2) {
            let _ = writeln!(
                report,
                "    {} imports {}{}",
                shown(tree, &step[0]),
                shown(tree, &step[1]),
                at(tree, tree.evidence(&step[0], &step[1]))
            );
        }
    }
    Some(report)
}

/// The first reference by which a file of top-level module `from` imports
/// top-level module `to`.
fn top_level_evidence<'t>(tree: &'t SourceTree, from: &str, to: &str) -> Option<&'t Reference> {
    tree.references().iter().find(|r| {
        tree.top_level_of(&r.file) == from
            && (r.targets.iter().any(|t| tree.top_level_of(t) == to)
                || r.named
                    .as_ref()
                    .and_then(|n| n.first())
                    .is_some_and(|n| n == to))
    })
}

/// Imports that point up a layer: a capability importing the use-cases or
/// the command line, the use-cases importing the command line, `ids`
/// importing anything, `layout` importing anything but `ids`.
pub fn layer_violations(tree: &SourceTree) -> Vec<String> {
    let graph = tree.top_level_graph();
    let mut found = Vec::new();
    let uses = |m: &str| graph.get(m).cloned().unwrap_or_default();
    for module in CAPABILITIES {
        for upper in ABOVE_CAPABILITIES {
            if uses(module).contains(upper) {
                found.push(format!(
                    "{module} imports {upper}, a layer above it{}",
                    at(tree, top_level_evidence(tree, module, upper))
                ));
            }
        }
    }
    for upper in ABOVE_USE_CASES {
        if uses("app").contains(upper) {
            found.push(format!(
                "app imports {upper}, the command-line layer{}",
                at(tree, top_level_evidence(tree, "app", upper))
            ));
        }
    }
    for m in uses("ids") {
        found.push(format!(
            "ids is a leaf, yet imports {m}{}",
            at(tree, top_level_evidence(tree, "ids", &m))
        ));
    }
    for m in uses("layout").into_iter().filter(|m| m != "ids") {
        found.push(format!(
            "layout imports only ids, yet imports {m}{}",
            at(tree, top_level_evidence(tree, "layout", &m))
        ));
    }
    found
}

/// The command a file under `commands/` belongs to: `diff` for
/// `commands/diff.rs` (and for anything under `commands/diff/`); none for
/// `commands/mod.rs`.
fn command_of(file: &str) -> Option<&str> {
    let rest = file.strip_prefix("commands/")?;
    let name = rest.split('/').next()?;
    let name = name.strip_suffix(".rs").unwrap_or(name);
    (name != "mod").then_some(name)
}

/// Command files that import another command file.
pub fn command_files_importing_another(tree: &SourceTree) -> Vec<String> {
    let commands: Vec<&str> = tree.files().filter_map(command_of).collect();
    let mut found = Vec::new();
    for r in tree.references() {
        let Some(me) = command_of(&r.file) else {
            continue;
        };
        let mut others: Vec<&str> = r
            .targets
            .iter()
            .filter_map(|t| command_of(t))
            .filter(|c| *c != me)
            .collect();
        if let Some([first, second, ..]) = r.named.as_deref() {
            if first == "commands" && second != me && commands.contains(&second.as_str()) {
                others.push(second);
            }
        }
        others.sort();
        others.dedup();
        for other in others {
            found.push(format!(
                "{} imports the command file {other}{}",
                shown(tree, &r.file),
                at(tree, Some(r))
            ));
        }
    }
    found
}

/// Files outside the command-line layer whose code mentions clap.
pub fn clap_outside_the_command_line(tree: &SourceTree) -> Vec<String> {
    let mut found = Vec::new();
    for file in tree.files() {
        if CLI_LAYER.contains(&tree.top_level_of(file).as_str()) {
            continue;
        }
        if let Some((line, ident)) = tree
            .code_idents(file)
            .iter()
            .find(|(_, i)| i.contains("clap"))
        {
            found.push(format!(
                "{}:{line} mentions clap outside the command line (`{ident}`)",
                shown(tree, file)
            ));
        }
    }
    found
}

/// Whether a message names a command-line flag: `--word` at its start or
/// after a space, `(` or a backquote.
pub fn names_a_flag(s: &str) -> bool {
    s.match_indices("--").any(|(i, _)| {
        s[i + 2..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase())
            && s[..i]
                .chars()
                .last()
                .is_none_or(|c| c == ' ' || c == '(' || c == '`')
    })
}

/// String literals outside the command-line layer that name a flag.
pub fn flags_outside_the_command_line(tree: &SourceTree) -> Vec<String> {
    let mut found = Vec::new();
    for file in tree.files() {
        if CLI_LAYER.contains(&tree.top_level_of(file).as_str()) {
            continue;
        }
        for s in tree.strings(file) {
            if names_a_flag(&s) {
                found.push(format!(
                    "{} names a flag in a message: {s:?}",
                    shown(tree, file)
                ));
            }
        }
    }
    found
}

/// Type names (struct, enum, union, type alias, trait) the product defines
/// more than once, names in `allowed` aside: one line per name, with every
/// file and line that defines it. A name a reader meets in two places with
/// two meanings (`Cell` a notebook's cell here, a printed number there)
/// sends them to the wrong one; a name that says what it is does not.
pub fn duplicate_type_names(tree: &SourceTree, allowed: &[(&str, &str)]) -> Vec<String> {
    let mut by_name: BTreeMap<&str, Vec<&TypeDefinition>> = BTreeMap::new();
    for d in tree.type_definitions() {
        by_name.entry(d.name.as_str()).or_default().push(d);
    }
    by_name
        .into_iter()
        .filter(|(name, defs)| defs.len() > 1 && !allowed.iter().any(|(a, _)| a == name))
        .map(|(name, defs)| {
            let places: Vec<String> = defs
                .iter()
                .map(|d| format!("{}:{}", shown(tree, &d.file), d.line))
                .collect();
            format!(
                "`{name}` is defined {} times: {}",
                defs.len(),
                places.join(", ")
            )
        })
        .collect()
}
