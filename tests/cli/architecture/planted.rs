//! The rules can fail: each one run on a small source tree written to a
//! temporary folder to break it (a file-level circle closed by a re-export,
//! a use-tree and an inline path; an upward import after a test module; a
//! command file importing another; clap and a flag outside the command
//! line; a type name defined twice), and on a clean tree where every rule
//! finds nothing.

use std::collections::BTreeSet;

use super::rules::{
    clap_outside_the_command_line, command_files_importing_another, duplicate_type_names,
    file_circles, flags_outside_the_command_line, layer_violations,
};
use super::source_tree::SourceTree;

/// A source tree of the given files under `<temp>/src`, read.
fn plant(files: &[(&str, &str)]) -> (tempfile::TempDir, SourceTree) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    for (name, text) in files {
        let path = src.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let tree = SourceTree::read(&src);
    (dir, tree)
}

fn set(files: &[&str]) -> BTreeSet<String> {
    files.iter().map(|f| f.to_string()).collect()
}

/// Three files in a circle, each step written a different way: a child
/// importing its parent's re-export, a nested use-tree binding a module that
/// code then goes through, and an inline path.
const CIRCLE: [(&str, &str); 6] = [
    ("lib.rs", "pub mod engine;\npub mod sys;\n"),
    ("sys.rs", "pub fn now() -> u64 {\n    0\n}\n"),
    (
        "engine/mod.rs",
        "//! Re-exports only.\npub mod config;\npub mod layout;\npub mod pool;\n\npub use config::Config;\n",
    ),
    (
        "engine/pool.rs",
        "use super::Config;\n\npub fn start(c: &Config) -> u64 {\n    c.workers + crate::sys::now()\n}\n\npub fn start_one() -> u64 {\n    start(&Config { workers: 1 })\n}\n",
    ),
    (
        "engine/config.rs",
        "use super::{layout::{self}};\n\npub struct Config {\n    pub workers: u64,\n}\n\nimpl Config {\n    pub fn width(&self) -> usize {\n        layout::ident(\"x\").len()\n    }\n}\n",
    ),
    (
        "engine/layout.rs",
        "pub fn ident(s: &str) -> String {\n    format!(\"{s}{}\", self::count())\n}\n\nfn count() -> u64 {\n    super::pool::start_one()\n}\n",
    ),
];

#[test]
fn a_planted_file_circle_is_found_and_told_file_by_file() {
    let (_dir, tree) = plant(&CIRCLE);
    let graph = tree.file_graph();
    // The child's `super::Config` is an import of the file Config is
    // written in, not of the parent that re-exports it.
    assert_eq!(
        graph["engine/pool.rs"],
        set(&["engine/config.rs", "sys.rs"])
    );
    assert_eq!(graph["engine/config.rs"], set(&["engine/layout.rs"]));
    assert_eq!(graph["engine/layout.rs"], set(&["engine/pool.rs"]));
    assert_eq!(graph["engine/mod.rs"], set(&["engine/config.rs"]));
    let report = file_circles(&tree).expect("the planted circle is found");
    assert_eq!(
        report,
        "1 file-level import circle(s):\n\
         circle 1: 3 files: src/engine/config.rs, src/engine/layout.rs, src/engine/pool.rs\n  \
         one way round it:\n    \
         src/engine/config.rs imports src/engine/layout.rs (src/engine/config.rs:9 `layout::ident`)\n    \
         src/engine/layout.rs imports src/engine/pool.rs (src/engine/layout.rs:6 `super::pool::start_one`)\n    \
         src/engine/pool.rs imports src/engine/config.rs (src/engine/pool.rs:1 `super::Config`)\n"
    );
}

#[test]
fn the_same_tree_without_its_closing_step_has_no_circle() {
    let mut files = CIRCLE;
    files[5].1 = "pub fn ident(s: &str) -> String {\n    s.to_string()\n}\n";
    let (_dir, tree) = plant(&files);
    assert_eq!(file_circles(&tree), None);
}

/// A capability that imports the use-cases only after its test module,
/// whose braces hide in a comment, a block comment, strings, a raw string
/// and char literals.
const UPWARD_AFTER_TESTS: &str = r####"//! Status.
pub fn before() {}

#[cfg(test)]
mod tests {
    // A closing brace in a comment: }
    /* and in a block comment: } */
    use crate::app;
    const S: &str = "}";
    const E: &str = "\"}";
    const C: char = '}';
    const R: &str = r#"}"}"#;

    #[test]
    fn t() {
        app::run();
        let _ = (S, E, C, R, '{', '"');
    }
}

pub fn after() {
    crate::app::run()
}
"####;

#[test]
fn a_planted_upward_import_after_a_test_module_is_found() {
    let (_dir, tree) = plant(&[
        ("lib.rs", "pub mod app;\npub mod records;\n"),
        ("app.rs", "pub fn run() {}\n"),
        ("records/mod.rs", "pub mod status;\n"),
        ("records/status.rs", UPWARD_AFTER_TESTS),
    ]);
    assert_eq!(
        layer_violations(&tree),
        vec!["records imports app, a layer above it (src/records/status.rs:22 `crate::app::run`)"]
    );
}

#[test]
fn a_test_modules_own_imports_are_not_the_products() {
    let without_after = UPWARD_AFTER_TESTS.split("pub fn after").next().unwrap();
    let (_dir, tree) = plant(&[
        (
            "lib.rs",
            "pub mod app;\npub mod records;\n#[cfg(test)]\nmod testing;\n",
        ),
        ("app.rs", "pub fn run() {}\n"),
        ("testing.rs", "pub use crate::app::run;\n"),
        ("records/mod.rs", "pub mod status;\n"),
        ("records/status.rs", without_after),
    ]);
    assert!(tree.unread().is_empty(), "{:?}", tree.unread());
    assert!(!tree.file_graph().contains_key("testing.rs"));
    assert_eq!(layer_violations(&tree), Vec::<String>::new());
}

#[test]
fn planted_command_line_leaks_are_found() {
    let (_dir, tree) = plant(&[
        ("lib.rs", "pub mod commands;\npub mod records;\n"),
        ("commands/mod.rs", "pub mod diff;\npub mod status;\n"),
        ("commands/diff.rs", "pub fn helper() {}\n"),
        (
            "commands/status.rs",
            "pub fn run() {\n    super::diff::helper()\n}\n",
        ),
        (
            "records/mod.rs",
            "pub fn hint() -> &'static str {\n    let _ = clap_like();\n    \"use --force to overwrite\"\n}\nfn clap_like() {}\n",
        ),
    ]);
    assert_eq!(
        command_files_importing_another(&tree),
        vec![
            "src/commands/status.rs imports the command file diff (src/commands/status.rs:2 `super::diff::helper`)"
        ]
    );
    assert_eq!(
        clap_outside_the_command_line(&tree),
        vec!["src/records/mod.rs:2 mentions clap outside the command line (`clap_like`)"]
    );
    assert_eq!(
        flags_outside_the_command_line(&tree),
        vec!["src/records/mod.rs names a flag in a message: \"use --force to overwrite\""]
    );
}

#[test]
fn a_clean_planted_tree_breaks_no_rule() {
    let (_dir, tree) = plant(&[
        (
            "lib.rs",
            "pub mod app;\npub mod cli;\npub mod commands;\npub mod ids;\npub mod layout;\npub mod records;\n",
        ),
        (
            "ids.rs",
            "pub struct RunId;\n\npub fn plain<S>(_: &u32, _: S) {}\n",
        ),
        (
            "layout.rs",
            "use crate::ids::RunId;\n\npub fn path(_: &RunId) {}\n",
        ),
        (
            "records/mod.rs",
            "//! Mentions crate::app in a comment only.\npub mod report;\npub mod store;\n\npub use store::save;\n",
        ),
        (
            "records/report.rs",
            "#[derive(serde::Serialize)]\npub struct Report {\n    #[serde(serialize_with = \"crate::ids::plain\")]\n    pub id: u32,\n}\n",
        ),
        (
            "records/store.rs",
            "pub fn save() -> &'static str {\n    crate::layout::path(&crate::ids::RunId);\n    \"crate::app::run() in text, {}\"\n}\n\n#[cfg(test)]\nmod tests {\n    use crate::app::run;\n}\n\npub fn after() {}\n",
        ),
        ("app.rs", "pub fn run() {\n    crate::records::save();\n}\n"),
        ("cli.rs", "pub struct Args; // clap lives here\n"),
        ("commands/mod.rs", "pub mod diff;\npub mod status;\n"),
        (
            "commands/diff.rs",
            "use crate::ids;\n\n/// A function and a module may share a name.\npub fn ids() -> ids::RunId {\n    crate::app::run();\n    ids::RunId\n}\n",
        ),
        (
            "commands/status.rs",
            "use super::super::app;\n\npub fn run() {\n    app::run()\n}\n",
        ),
    ]);
    let graph = tree.file_graph();
    // The tree is read: its imports are there, pointing down.
    assert_eq!(graph["app.rs"], set(&["records/store.rs"]));
    assert_eq!(graph["commands/status.rs"], set(&["app.rs"]));
    assert_eq!(graph["commands/diff.rs"], set(&["app.rs", "ids.rs"]));
    assert_eq!(graph["records/store.rs"], set(&["ids.rs", "layout.rs"]));
    // A path serde calls, though written as a string, is code.
    assert_eq!(graph["records/report.rs"], set(&["ids.rs"]));
    assert_eq!(file_circles(&tree), None);
    assert_eq!(layer_violations(&tree), Vec::<String>::new());
    assert_eq!(command_files_importing_another(&tree), Vec::<String>::new());
    assert_eq!(clap_outside_the_command_line(&tree), Vec::<String>::new());
    assert_eq!(flags_outside_the_command_line(&tree), Vec::<String>::new());
    assert_eq!(duplicate_type_names(&tree, &[]), Vec::<String>::new());
}

#[test]
fn a_planted_type_name_defined_twice_is_found_with_every_place() {
    let (_dir, tree) = plant(&[
        (
            "lib.rs",
            "pub mod audit;\npub mod tables;\npub mod run;\n\n#[cfg(test)]\nmod testing;\n",
        ),
        ("audit.rs", "pub struct Cell;\n\npub enum Error {}\n"),
        (
            "tables.rs",
            "// struct Cell in a comment\npub fn f() -> &'static str {\n    \"enum Cell\"\n}\n\npub struct Cell {\n    pub x: u8,\n}\n\npub trait Error {}\n\n#[cfg(test)]\nmod tests {\n    struct Cell;\n}\n",
        ),
        (
            "run.rs",
            "pub type Row = u8;\n\npub struct S;\n\nimpl TryFrom<u8> for S {\n    type Error = ();\n    fn try_from(_: u8) -> Result<S, ()> {\n        struct Row;\n        Ok(S)\n    }\n}\n",
        ),
        ("testing.rs", "pub struct Cell;\npub struct S;\n"),
    ]);
    // Comments, strings, test modules, test-only files and an impl's
    // associated type define nothing; a type inside a function does.
    assert_eq!(
        duplicate_type_names(&tree, &[]),
        vec![
            "`Cell` is defined 2 times: src/audit.rs:1, src/tables.rs:6",
            "`Error` is defined 2 times: src/audit.rs:3, src/tables.rs:10",
            "`Row` is defined 2 times: src/run.rs:1, src/run.rs:8",
        ]
    );
    // A name on the list with its reason is let be.
    assert_eq!(
        duplicate_type_names(&tree, &[("Error", "each module's own error")]),
        vec![
            "`Cell` is defined 2 times: src/audit.rs:1, src/tables.rs:6",
            "`Row` is defined 2 times: src/run.rs:1, src/run.rs:8",
        ]
    );
}
