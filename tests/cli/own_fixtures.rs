//! The suite owns its data: every test builds its project from
//! tests/fixtures/, so a user's own chapters and records in the working tree
//! cannot break `cargo test`. Shown by doing what README tells a user to do,
//! in a copy of the repository's data, then running this test binary again
//! with the copy as "the repository" (`helpers::REPO_OVERRIDE`).

use std::path::Path;
use std::process::Command;

use crate::books::{readme_add_a_chapter_commands, write_readme_example_files};
use crate::helpers::{
    CHAPTER, FIXTURE_RUN, REPO_OVERRIDE, copy_tree, exclusive, fixture_record_file, repo, stderr,
    stdout,
};
use crate::records::FULL_REPORT;

/// What the copy holds: everything a test may read from the repository,
/// and the user's data beside it.
const COPIED: [&str; 6] = [
    "book-snapshots",
    "records",
    "templates",
    "tests/fixtures",
    "README.md",
    "docs",
];

/// Tests the nested run leaves out by name, and why.
const NOT_RERUN: [&str; 2] = [
    // This module: it would run itself.
    "own_fixtures::",
    // The architecture rules read src/, which is code, not project data;
    // the outer run has checked them.
    "architecture::",
];

/// The tests that take the timing lock ([`exclusive`]): they start worker
/// processes, kernels or a loaded machine, and they are most of the
/// suite's time. The nested run leaves them out too. They build their
/// projects from the fixtures through the same helpers as the tests it
/// reruns (which `tests_read_the_repository_only_for_fixtures_readme_and_templates`
/// holds every test to), so rerunning them beside a user's data would
/// only run the same processes again. Found in the source, so that a new
/// slow test is left out without a list to keep.
fn tests_taking_the_lock() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let mut names = Vec::new();
    for file in rust_files(&dir) {
        let rel = file.strip_prefix(&dir).unwrap().with_extension("");
        let mut module: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        let module = module.join("::");
        let text = std::fs::read_to_string(&file).unwrap();
        for (name, body) in test_bodies(&text) {
            if body.contains("exclusive()") || body.contains("lock()") {
                names.push((module.clone(), name));
            }
        }
    }
    names.sort();
    names
}

/// Each `#[test]` function of `text` with its text up to the next test.
fn test_bodies(text: &str) -> Vec<(String, &str)> {
    let starts: Vec<usize> = text.match_indices("#[test]").map(|(at, _)| at).collect();
    let mut tests = Vec::new();
    for (i, at) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let body = &text[*at..end];
        let Some(fn_at) = body.find("fn ") else {
            continue;
        };
        let name: String = body[fn_at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        tests.push((name, body));
    }
    tests
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

/// The binary, run by a user in the project folder `dir` (no root given:
/// it finds the project from where it runs).
fn as_a_user(dir: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_research_companion"))
        .current_dir(dir)
        .env_remove("RESEARCH_COMPANION_ROOT")
        .env_remove("RUST_LOG")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        stdout(&out),
        stderr(&out)
    );
}

/// The last lines of a long output.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[test]
fn a_users_chapters_and_records_leave_the_suite_green() {
    if std::env::var_os(REPO_OVERRIDE).is_some() {
        return; // already the nested run
    }
    let copy = tempfile::tempdir().unwrap();
    let root = copy.path();
    for part in COPIED {
        let from = repo().join(part);
        if from.is_dir() {
            copy_tree(&from, &root.join(part));
        } else if from.is_file() {
            std::fs::copy(&from, root.join(part)).unwrap();
        }
    }
    // README's "Add a chapter", as written: a second book with two chapters.
    // A working tree where the user already ran it holds that book, so the
    // copy is the case to test as it is (and the example would be refused).
    if !root.join("book-snapshots/systems-notes").exists() {
        write_readme_example_files(root);
        for words in readme_add_a_chapter_commands() {
            let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
            as_a_user(root, &args);
        }
    }
    let has = |chapter: &str| {
        root.join(format!("book-snapshots/{chapter}/chapter.yaml"))
            .is_file()
    };
    assert!(
        std::fs::read_dir(root.join("book-snapshots/systems-notes")).is_ok_and(|d| d.count() >= 2),
        "the copy holds a second book's chapters"
    );
    // ... and keeps what came back: research on the new chapter, and an
    // experiment on chapter 06 beside the records the repository ships.
    std::fs::write(root.join("review.md"), FULL_REPORT).unwrap();
    if has("systems-notes/07") {
        as_a_user(
            root,
            &["record", "systems-notes/07", "--report", "review.md"],
        );
        assert!(root.join("records/systems-notes/07").is_dir());
    }
    if has(CHAPTER) {
        std::fs::write(root.join("06.run.yaml"), fixture_record_file(FIXTURE_RUN)).unwrap();
        as_a_user(root, &["record", CHAPTER, "--run", "06.run.yaml"]);
    }

    // Every name left out still names a test, so a rename cannot quietly
    // put a slow test back in (or leave a fast one out).
    let list = Command::new(std::env::current_exe().unwrap())
        .args(["--list", "--format", "terse"])
        .output()
        .unwrap();
    let listed = stdout(&list);
    let listed: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .collect();
    for name in NOT_RERUN {
        assert!(
            listed.iter().any(|l| l.starts_with(name)),
            "{name} names no test"
        );
    }
    // A test in a `mod` of its file has that module in its path too, and a
    // module named by a keyword is listed raw (`r#match`).
    let heavy: Vec<&str> = tests_taking_the_lock()
        .iter()
        .map(|(module, name)| {
            let (first, last) = (format!("{module}::"), format!("::{name}"));
            listed
                .iter()
                .copied()
                .find(|l| {
                    let l = l.replace("r#", "");
                    l.starts_with(&first) && l.ends_with(&last)
                })
                .unwrap_or_else(|| panic!("{module}::{name} names no test"))
        })
        .collect();
    assert!(
        heavy.iter().any(|t| t.starts_with("busy_machine::")),
        "the tests taking the timing lock are found: {heavy:?}"
    );

    // The suite, reading the copy as its repository. The timing lock keeps
    // this binary's own timing tests from running beside the nested one.
    let _g = exclusive();
    let mut nested = Command::new(std::env::current_exe().unwrap());
    nested.args(["--test-threads", "2"]);
    for name in NOT_RERUN {
        nested.args(["--skip", name]);
    }
    for name in &heavy {
        nested.args(["--skip", name]);
    }
    let out = nested
        .env(REPO_OVERRIDE, root)
        // A failing snapshot must not leave .snap.new files in the repository.
        .env("INSTA_UPDATE", "no")
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "the suite fails beside a user's own chapters and records:\n{}\n{}",
        tail(&text, 60),
        tail(&stderr(&out), 20)
    );
    let passed: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("test result: ok. "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(passed >= 80, "the nested run ran {passed} tests:\n{text}");
}

/// Where a test may read the repository: README.md, templates/ and docs/
/// through `repo()`, its own data through `fixtures()`; never the working tree's
/// book-snapshots/ or records/, and never around the helpers.
#[test]
fn tests_read_the_repository_only_for_fixtures_readme_and_templates() {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let mut files = Vec::new();
    walk(&dir, &mut files);
    let mut checked = 0;
    for file in files {
        let name = file
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        // The helpers define `repo()`; this file copies the user's data on
        // purpose; the architecture test reads src/, which is code.
        if name == "helpers.rs" || name == "own_fixtures.rs" || name.starts_with("architecture") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains(concat!("CARGO_", "MANIFEST_DIR")),
            "{name} finds the repository by itself; use helpers::fixtures() or repo()"
        );
        for (at, _) in text.match_indices("repo()") {
            let call: String = text[at + "repo()".len()..]
                .chars()
                .take_while(|c| *c != ')')
                .filter(|c| !c.is_whitespace())
                .collect();
            assert!(
                call.starts_with(".join(\"README.md\"")
                    || call.starts_with(".join(\"templates")
                    || call.starts_with(".join(\"docs/"),
                "{name} reads repo(){call}) from the repository; a test's data lives in tests/fixtures/"
            );
        }
        checked += 1;
    }
    assert!(checked >= 10, "{checked} test files checked");
}
