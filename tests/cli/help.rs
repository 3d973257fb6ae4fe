//! The command line's own documentation, bound to its definition: every
//! command's `--help` is pinned (a change to a help text shows up as a
//! snapshot diff), and docs/commands.md's option tables name exactly the
//! options clap defines, command by command. Both walk clap's tree, so a
//! new subcommand or option is covered without touching this file.

use std::collections::{BTreeMap, BTreeSet};

use assert_cmd::Command;
use clap::CommandFactory;
use research_companion::cli::Cli;

/// The width `--help` is wrapped at here, whatever the terminal: clap
/// reads COLUMNS before the terminal's size.
const HELP_COLUMNS: &str = "100";

/// Every command below the top one, as the words that name it
/// (`["notebook", "run"]`), the top one (`[]`) first. clap's own `help`
/// subcommand is left out: it prints what `--help` does.
fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, at: &[String], out: &mut Vec<Vec<String>>) {
        out.push(at.to_vec());
        for sub in cmd.get_subcommands() {
            if sub.get_name() == "help" || sub.is_hide_set() {
                continue;
            }
            let mut path = at.to_vec();
            path.push(sub.get_name().to_string());
            walk(sub, &path, out);
        }
    }
    let mut out = Vec::new();
    walk(&Cli::command(), &[], &mut out);
    out
}

/// The command a path names in the built tree (global options propagated).
fn find<'a>(root: &'a clap::Command, path: &[String]) -> &'a clap::Command {
    path.iter().fold(root, |cmd, name| {
        cmd.find_subcommand(name)
            .unwrap_or_else(|| panic!("no subcommand {name} in {path:?}"))
    })
}

/// `research_companion PATH --help` as the binary prints it, at a fixed
/// width and without the environment variable whose value clap would show.
fn help_text(path: &[String]) -> String {
    let out = Command::cargo_bin("research_companion")
        .unwrap()
        .args(path)
        .arg("--help")
        .env("COLUMNS", HELP_COLUMNS)
        .env_remove("RESEARCH_COMPANION_ROOT")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{path:?} --help failed");
    assert!(out.stderr.is_empty(), "{path:?} --help wrote to stderr");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_commands_help_is_pinned() {
    let paths = command_paths();
    assert!(
        paths.iter().any(|p| p == &["notebook", "run"]),
        "the walk reaches nested subcommands: {paths:?}"
    );
    // Every command's snapshot is checked (and a .snap.new written for
    // each that changed) before the test fails, naming them all.
    let mut changed = Vec::new();
    for path in &paths {
        let name = if path.is_empty() {
            "research_companion".to_string()
        } else {
            path.join("_")
        };
        let text = help_text(path);
        let checked = std::panic::catch_unwind(|| {
            insta::with_settings!({ prepend_module_to_snapshot => true, omit_expression => true }, {
                insta::assert_snapshot!(name.clone(), text);
            });
        });
        if checked.is_err() {
            changed.push(name);
        }
    }
    assert!(
        changed.is_empty(),
        "--help changed (or is new) for: {changed:?}; review with `cargo insta review`"
    );
}

/// The text of each `### `command`` section of docs/commands.md (any
/// level of heading whose text is one command in backquotes), down to the
/// next heading of the same or a higher level.
fn doc_sections(doc: &str) -> BTreeMap<String, String> {
    let lines: Vec<&str> = doc.lines().collect();
    let heading = |line: &str| -> Option<(usize, String)> {
        let level = line.chars().take_while(|&c| c == '#').count();
        let title = line.get(level..)?.strip_prefix(' ')?;
        (level > 0).then(|| (level, title.trim().to_string()))
    };
    let mut sections = BTreeMap::new();
    let mut in_code = false;
    let mut code_at = Vec::with_capacity(lines.len());
    for line in &lines {
        if line.starts_with("```") {
            in_code = !in_code;
        }
        code_at.push(in_code || line.starts_with("```"));
    }
    for (i, line) in lines.iter().enumerate() {
        if code_at[i] {
            continue;
        }
        let Some((level, title)) = heading(line) else {
            continue;
        };
        let Some(name) = title
            .strip_prefix('`')
            .and_then(|t| t.strip_suffix('`'))
            .filter(|t| !t.contains('`'))
        else {
            continue;
        };
        let end = (i + 1..lines.len())
            .find(|&j| !code_at[j] && heading(lines[j]).is_some_and(|(l, _)| l <= level))
            .unwrap_or(lines.len());
        let previous = sections.insert(name.to_string(), lines[i + 1..end].join("\n"));
        assert!(
            previous.is_none(),
            "docs/commands.md has two sections `{name}`"
        );
    }
    sections
}

/// The options a section's tables name: every `--flag` in backquotes in
/// the first cell of a row of a table whose first header cell is `header`
/// (`option` for a command's option tables).
fn table_options(section: &str, header: &str) -> BTreeSet<String> {
    let mut options = BTreeSet::new();
    let mut in_option_table = false;
    for line in section.lines() {
        let Some(row) = line.trim().strip_prefix('|') else {
            in_option_table = false;
            continue;
        };
        // A cell may hold `a\|b`: split on the bars that end cells.
        let first = row.split(" | ").next().unwrap_or("").trim();
        if !in_option_table {
            in_option_table = first == header;
            continue;
        }
        for (at, _) in first.match_indices("`--") {
            let flag: String = first[at + 3..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            options.insert(flag);
        }
    }
    options
}

/// A command's long options as `--help` lists them: not hidden, and not
/// those every command has (`--help`, `--version`, the global `--root`,
/// which "Shared by every command" documents).
fn clap_options(cmd: &clap::Command) -> BTreeSet<String> {
    cmd.get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_global_set())
        .filter_map(|a| a.get_long())
        .filter(|long| !matches!(*long, "help" | "version"))
        .map(str::to_string)
        .collect()
}

/// The differences between docs/commands.md's option tables and clap, one
/// line each; empty when they agree.
fn docs_against_clap(doc: &str) -> Vec<String> {
    let mut root = Cli::command();
    root.build();
    let sections = doc_sections(doc);
    let mut problems = Vec::new();
    for path in command_paths().into_iter().filter(|p| !p.is_empty()) {
        let cmd = find(&root, &path);
        // A command with subcommands of its own and no options of its own
        // (`notebook`) is documented by its subcommands' sections.
        let defined = clap_options(cmd);
        let name = path.join(" ");
        if cmd.has_subcommands() && defined.is_empty() {
            continue;
        }
        let Some(section) = sections.get(&name) else {
            problems.push(format!("`{name}` has no section in docs/commands.md"));
            continue;
        };
        let documented = table_options(section, "option");
        for flag in defined.difference(&documented) {
            problems.push(format!(
                "`{name} --{flag}` is not in the option table of its section"
            ));
        }
        for flag in documented.difference(&defined) {
            problems.push(format!(
                "`{name}`'s section documents --{flag}, which `{name}` does not have"
            ));
        }
    }
    // "Limits" bounds options of several commands in one table.
    let every: BTreeSet<String> = command_paths()
        .iter()
        .flat_map(|p| clap_options(find(&root, p)))
        .collect();
    let limits = doc
        .split("\n### Limits\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .and_then(|rest| rest.split("\n### ").next())
        .unwrap_or("");
    let bounded = table_options(limits, "what");
    if bounded.is_empty() {
        problems.push("\"Limits\" has no table of what it bounds".into());
    }
    for flag in bounded.difference(&every) {
        problems.push(format!("\"Limits\" bounds --{flag}, which no command has"));
    }
    problems
}

#[test]
fn commands_md_option_tables_name_exactly_the_options_clap_defines() {
    let doc = std::fs::read_to_string(crate::helpers::repo().join("docs/commands.md")).unwrap();
    let problems = docs_against_clap(&doc);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        doc.contains("`--root DIR`"),
        "the global --root is documented under \"Shared by every command\""
    );
}

#[test]
fn the_docs_check_sees_an_option_missing_and_one_too_many() {
    let doc = std::fs::read_to_string(crate::helpers::repo().join("docs/commands.md")).unwrap();
    let missing = doc.replace(
        "| `--cells` | also compare every published cell with the measured one |\n",
        "",
    );
    assert_ne!(
        missing, doc,
        "the row this test removes is in docs/commands.md"
    );
    let problems = docs_against_clap(&missing);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("--cells` is not in the option table")),
        "{problems:?}"
    );
    let extra = doc.replace(
        "| `--strict` | also exit 1 when a claim is INCONCLUSIVE |",
        "| `--strict` | also exit 1 when a claim is INCONCLUSIVE |\n| `--fork-cost-scale X` | not an option of reproduce |",
    );
    assert_ne!(
        extra, doc,
        "the row this test extends is in docs/commands.md"
    );
    let problems = docs_against_clap(&extra);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`reproduce`'s section documents --fork-cost-scale")),
        "{problems:?}"
    );
    let renamed = doc.replace(
        "| `--prefetch-factor` | 1 to 64 |",
        "| `--prefetch` | 1 to 64 |",
    );
    assert_ne!(
        renamed, doc,
        "the Limits row this test renames is in docs/commands.md"
    );
    let problems = docs_against_clap(&renamed);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("\"Limits\" bounds --prefetch,")),
        "{problems:?}"
    );
}
