//! Every chapter of every book, made as a new author would: a second book
//! with two chapters through `chapter new`, reproduce over all of them, an
//! ambiguous id, a broken chapter among good ones, a prose edit through
//! `snapshot diff`, and README's "Add a chapter" example run as written.

use predicates::prelude::*;

use crate::helpers::{Project, repo, stderr, stdout};

/// A chapter with one small published table and a sentence about it.
const WITH_TABLE: &str = "Chapter 7 measures a loader. Four sleeping workers made it four times faster.\n\
=== producer=sleep 1.0 ms/sample batch=4 consumer=1 ms/batch ===\n\
workers ex/s wait_mean wait_p50 wait_p95 wait_max work wait_frac\n\
0 800 4.0 4.0 4.1 4.2 1.0 0.80\n\
4 3200 0.2 0.1 0.5 0.9 1.0 0.17\n\
That is the whole table.\n";

/// A chapter with prose only.
const PROSE_ONLY: &str =
    "Chapter 6 of the notes has no tables. It argues that queues hide latency.\n";

const CLAIMS_07: &str = "schema: research_companion.claims.v1
chapter: systems-notes/07
claims:
- id: sleep-four-times
  quote: Four sleeping workers made it four times faster.
  location: the first paragraph
  metric: sleep.w4.ex_s / sleep.w0.ex_s
  stated: {value: 4.0, tolerance: 0.05}
  reproduce: {at_least: 1.5}
";

/// The seeded project plus book `systems-notes` with chapters 06 (prose)
/// and 07 (a table and a claim), made with `chapter new`.
fn two_books() -> Project {
    let p = Project::seeded();
    p.write("ch07.txt", WITH_TABLE);
    p.write("ch06.txt", PROSE_ONLY);
    p.cmd()
        .args([
            "chapter",
            "new",
            "systems-notes/07",
            "ch07.txt",
            "--title",
            "A loader",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "first chapter of book systems-notes: give the book's title",
        ));
    p.cmd()
        .args([
            "chapter",
            "new",
            "systems-notes/07",
            "ch07.txt",
            "--title",
            "A loader",
            "--book-title",
            "Systems Notes",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "created systems-notes/07 (a new book)",
        ))
        .stdout(predicate::str::contains(
            "line 2, column 1: === producer=sleep 1.0 ms/sample batch=4 consumer=1 ms/batch ===",
        ));
    p.cmd()
        .args([
            "chapter",
            "new",
            "systems-notes/06",
            "ch06.txt",
            "--title",
            "Queues",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("published tables: none"))
        // Without tables, the way to claims is the notebook's output.
        .stdout(predicate::str::contains("under notebook_claims:"));
    let skeleton =
        std::fs::read_to_string(p.path("book-snapshots/systems-notes/06/claims.yaml")).unwrap();
    assert!(
        skeleton
            .contains("numbers the chapter's notebook prints can be claims under notebook_claims:"),
        "{skeleton}"
    );
    // The skeleton lists the table; the author writes the claim.
    let claims = p.path("book-snapshots/systems-notes/07/claims.yaml");
    let skeleton = std::fs::read_to_string(&claims).unwrap();
    assert!(
        skeleton.contains("workers 0, 4; columns workers, ex_s"),
        "{skeleton}"
    );
    std::fs::write(&claims, CLAIMS_07).unwrap();
    p
}

#[test]
fn a_second_book_is_made_with_chapter_new_and_never_overwritten() {
    let p = two_books();
    let out = p.cmd().arg("chapters").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for key in [
        "pytorch-from-first-principles/06",
        "systems-notes/06",
        "systems-notes/07",
    ] {
        assert!(text.contains(key), "{text}");
    }
    assert!(
        text.contains("no published fingerprint: currency cannot be checked"),
        "{text}"
    );
    let before = p.state();
    p.cmd()
        .args([
            "chapter",
            "new",
            "systems-notes/07",
            "ch07.txt",
            "--title",
            "Again",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "already exists; refusing to overwrite it",
        ));
    assert_eq!(p.state(), before);
}

#[test]
fn an_ambiguous_id_lists_the_candidates() {
    let p = two_books();
    p.cmd()
        .args(["prompt", "06"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "06 is ambiguous: pytorch-from-first-principles/06, systems-notes/06",
        ));
    p.cmd().args(["prompt", "07"]).assert().success();
}

#[test]
fn reproduce_without_an_argument_runs_every_chapter_with_tables() {
    let _g = crate::helpers::exclusive();
    let p = two_books();
    let out = p
        .cmd()
        .args(["reproduce", "--batches", "2", "--no-record"])
        .args(["--rounds", "1", "--budget", "0"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    // Each run's line; the lines under it (indented) say how it ran and
    // which claims to read first.
    let summary: Vec<&str> = text
        .lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with("  "))
        .collect();
    assert!(
        summary[0].starts_with("pytorch-from-first-principles/06  6 claims:"),
        "{text}"
    );
    assert!(
        summary[1].starts_with("systems-notes/07  1 claims:"),
        "{text}"
    );
    assert!(
        summary[2]
            .contains("skipped: systems-notes/06: the current snapshot holds no published tables"),
        "{text}"
    );
    assert!(text.contains("\n== systems-notes/07 ==\n"), "{text}");
    assert!(text.contains("sleep-four-times"), "{text}");
}

#[test]
fn a_broken_chapter_is_listed_and_the_others_go_on() {
    let p = two_books();
    p.write(
        "book-snapshots/systems-notes/09/chapter.yaml",
        "schema: [not, a, chapter\n",
    );
    for args in [&["chapters"][..], &["status"], &["verify"]] {
        p.expect(args)
            .code(1)
            .stderr_has("systems-notes/09")
            .stdout_has("systems-notes/07")
            .run();
    }
}

#[test]
fn snapshot_diff_shows_a_known_edit_and_the_claim_it_touches() {
    let p = two_books();
    p.write(
        "ch07-revised.txt",
        WITH_TABLE.replace("made it four times faster", "made it much faster"),
    );
    p.cmd()
        .args(["snapshot", "add", "systems-notes/07", "ch07-revised.txt"])
        .assert()
        .success();
    let out = p
        .cmd()
        .args(["snapshot", "diff", "systems-notes/07"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("3 words changed; claims touched: sleep-four-times (2 removed, 1 added)"),
        "{text}"
    );
    assert!(
        text.contains("made it [-four times-]{+much+} faster."),
        "{text}"
    );
}

/// README's "Add a chapter" block: each `research_companion` line as the
/// words a shell would pass (the program name first).
pub fn readme_add_a_chapter_commands() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme
        .split("## Add a chapter")
        .nth(1)
        .expect("README has an 'Add a chapter' section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the section has a sh block");
    block
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("research_companion "))
        .map(|line| shell_words(line.split(" #").next().unwrap()))
        .collect()
}

/// Writes the text files README's "Add a chapter" block names into `dir`.
pub fn write_readme_example_files(dir: &std::path::Path) {
    std::fs::write(dir.join("ch07.txt"), WITH_TABLE).unwrap();
    std::fs::write(dir.join("ch08.txt"), PROSE_ONLY).unwrap();
    std::fs::write(
        dir.join("ch07-revised.txt"),
        WITH_TABLE.replace("Four sleeping", "Four sleeping, rested"),
    )
    .unwrap();
}

/// README's "Add a chapter" block, run line by line as written.
#[test]
fn the_readme_example_of_adding_a_chapter_runs() {
    let p = Project::seeded();
    write_readme_example_files(p.root());
    let mut ran = 0;
    for words in readme_add_a_chapter_commands() {
        let out = p.cmd().args(&words[1..]).output().unwrap();
        assert!(
            out.status.code() == Some(0),
            "{}: {}\n{}",
            words.join(" "),
            stdout(&out),
            stderr(&out)
        );
        ran += 1;
    }
    assert!(ran >= 5, "the example runs {ran} commands");
}

/// Splits a command line on spaces, keeping "quoted words" together.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[test]
fn a_lone_malformed_table_is_reported_with_its_place() {
    let p = two_books();
    p.write(
        "broken-table.txt",
        "Prose.\n=== producer=sleep 1.0 ms/sample batch=4 consumer=4ms per batch ===\nworkers ex/s\n0 1\n",
    );
    p.cmd()
        .args(["snapshot", "add", "systems-notes/07", "broken-table.txt"])
        .assert()
        .success();
    p.cmd()
        .args(["reproduce", "systems-notes/07", "--no-record"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "holds no published tables to reproduce; a table-like fragment at line 2, column 1 did not parse: expected consumer=<ms>, found \"consumer=4ms\"",
        ));
}

#[test]
fn reproduce_prints_json_for_scripts() {
    let _g = crate::helpers::exclusive();
    let p = two_books();
    let out = p
        .cmd()
        .args([
            "reproduce",
            "systems-notes/07",
            "--batches",
            "2",
            "--rounds",
            "1",
            "--budget",
            "0",
            "--no-record",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["chapters"][0]["chapter"], "systems-notes/07");
    assert_eq!(
        v["chapters"][0]["comparison"]["claims"][0]["id"],
        "sleep-four-times"
    );
    assert!(
        v["chapters"][0]["comparison"]["claims"][0]["published_formula"]
            .as_str()
            .unwrap()
            .contains("3200 / 800")
    );
}
