//! The architecture's rules, checked from the source so they stay true: no
//! import circle between files (nor between the crate's top-level modules),
//! the layers point down, no command file imports another, clap and flag
//! names stay in the command-line layer, and no type name is defined twice;
//! and every dependency is used (`deps`).
//!
//! `source_tree` reads a crate as the compiler does; `rules` states each rule
//! over what it read; the tests here hold `src/` to them, and `planted` shows
//! each rule failing on a small tree written to make it fail.

mod deps;
mod fn_length;
mod planted;
pub mod rules;
pub mod source_tree;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rules::{
    clap_outside_the_command_line, command_files_importing_another, duplicate_type_names,
    file_circles, flags_outside_the_command_line, layer_violations,
};
use source_tree::{Graph, SourceTree, UseLeaf, cycle_path, cycles, use_leaves};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The crate's own source, read once for every rule.
fn real() -> &'static SourceTree {
    static TREE: OnceLock<SourceTree> = OnceLock::new();
    TREE.get_or_init(|| SourceTree::read(&src()))
}

#[test]
fn the_reader_sees_every_file_and_the_imports_in_it() {
    let tree = real();
    assert!(
        tree.unread().is_empty(),
        "files under src/ that no `mod` declaration reaches: {:?}",
        tree.unread()
    );
    let graph = tree.file_graph();
    assert!(graph.len() >= 60, "{} files read", graph.len());
    assert!(
        graph["app/record.rs"]
            .iter()
            .any(|f| f.starts_with("records/")),
        "the reader sees app's imports: {:?}",
        graph["app/record.rs"]
    );
    // main.rs reaches the library by its name.
    assert!(
        graph["main.rs"].contains("commands/mod.rs"),
        "{:?}",
        graph["main.rs"]
    );
    // The test-only helper module is read but is no part of the product.
    assert!(!graph.contains_key("testing.rs"));
}

#[test]
fn no_import_circle_between_files() {
    let tree = real();
    if std::env::var_os("SHOW_MODULE_GRAPH").is_some() {
        show(&tree.file_graph());
    }
    if let Some(report) = file_circles(tree) {
        panic!("{report}");
    }
}

#[test]
fn no_import_circle_between_top_level_modules() {
    let graph = real().top_level_graph();
    assert!(graph.contains_key("bench") && graph.contains_key("app"));
    assert!(
        graph["app"].contains("records"),
        "the scan sees app's imports: {:?}",
        graph["app"]
    );
    let found = cycles(&graph);
    if std::env::var_os("SHOW_MODULE_GRAPH").is_some() {
        show(&graph);
    }
    assert!(found.is_empty(), "import circles: {found:?}\n{graph:#?}");
}

fn show(graph: &Graph) {
    for (m, uses) in graph {
        eprintln!(
            "{m} -> {}",
            uses.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
}

#[test]
fn the_cycle_finder_finds_a_planted_cycle() {
    let mut g = Graph::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default().insert("a".into());
    g.entry("c".into()).or_default().insert("b".into());
    g.entry("d".into()).or_default().insert("a".into());
    assert_eq!(cycles(&g), vec![vec!["a", "b", "c"]]);
    assert_eq!(cycle_path(&g, &cycles(&g)[0]), vec!["a", "b", "c", "a"]);
    let tree: syn::ItemUse =
        syn::parse_str("use crate::{a::{b, c}, d, e::{self, f as g}, h::*};").unwrap();
    let leaves: Vec<UseLeaf> = use_leaves(&tree.tree).into_iter().map(|(l, _)| l).collect();
    let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        leaves,
        vec![
            UseLeaf::Name("b".into(), path(&["crate", "a", "b"])),
            UseLeaf::Name("c".into(), path(&["crate", "a", "c"])),
            UseLeaf::Name("d".into(), path(&["crate", "d"])),
            UseLeaf::Name("e".into(), path(&["crate", "e"])),
            UseLeaf::Name("g".into(), path(&["crate", "e", "f"])),
            UseLeaf::Glob(path(&["crate", "h"])),
        ]
    );
}

#[test]
fn layers_point_down() {
    let graph = real().top_level_graph();
    for module in ["ids", "layout", "app", "records"] {
        assert!(graph.contains_key(module), "{module} was not read");
    }
    let found = layer_violations(real());
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn no_command_file_imports_another() {
    let commands: Vec<String> = std::fs::read_dir(src().join("commands"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n != "mod.rs")
        .collect();
    assert!(commands.len() >= 10, "{commands:?}");
    let found = command_files_importing_another(real());
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn clap_and_flag_names_stay_in_the_command_line_layer() {
    let mut found = clap_outside_the_command_line(real());
    found.extend(flags_outside_the_command_line(real()));
    assert!(found.is_empty(), "{}", found.join("\n"));
    // The check reads the command line's own files too (and finds clap there).
    assert!(
        real()
            .code_idents("cli.rs")
            .iter()
            .any(|(_, i)| i == "clap")
    );
}

/// Type names `src/` may define more than once, each with the reason it
/// is clearer so. None today: `Error` is defined once (`error.rs`); the
/// `type Error = ...` of a `TryFrom` impl is the trait's associated type,
/// no type of its own. A module's own `Error` would be the kind of name
/// to list here, as Rust's own crates do (`std::io::Error`, `std::fmt::Error`).
const SAME_NAME_ALLOWED: [(&str, &str); 0] = [];

#[test]
fn no_type_name_is_defined_twice() {
    let defined = real().type_definitions();
    assert!(defined.len() >= 100, "{} types read", defined.len());
    // Test modules are left out: the reader does not see test-only types.
    assert!(!defined.iter().any(|d| d.file == "testing.rs"));
    let found = duplicate_type_names(real(), &SAME_NAME_ALLOWED);
    assert!(
        found.is_empty(),
        "type names defined more than once outside tests; give each a name that says what \
         it is (or list it in SAME_NAME_ALLOWED with the reason):\n{}",
        found.join("\n")
    );
    for (name, reason) in SAME_NAME_ALLOWED {
        let count = defined.iter().filter(|d| d.name == name).count();
        assert!(
            count > 1,
            "`{name}` is allowed twice ({reason}) but defined {count} time(s)"
        );
    }
}
