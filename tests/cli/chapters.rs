//! Fingerprints, the chapter registry, snapshots and `verify`.

use predicates::prelude::*;

use crate::helpers::{CHAPTER, Project, stderr, stdout};

const EXCERPT_FP: &str = "a7d34947a6b4b8b69bba5cd2ba4979dc790f2a69061f4e5d727e1d983ee28230";

#[test]
fn fingerprint_prints_sha256sum_style_lines_tagged_with_the_normalization() {
    let p = Project::seeded();
    let a = p.write("a.txt", "It moved.\r\nThe work column rose.\n");
    let b = p.write("b.txt", "It   moved. The work\tcolumn rose.");
    let out = p
        .cmd()
        .args(["fingerprint", "a.txt", "b.txt"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    let (ha, na) = lines[0].split_once("  ").unwrap();
    let (hb, nb) = lines[1].split_once("  ").unwrap();
    assert_eq!((na, nb), ("a.txt", "b.txt"));
    assert!(
        ha.starts_with("prose-v1:") && ha.len() == "prose-v1:".len() + 64,
        "{ha}"
    );
    assert_eq!(
        ha, hb,
        "CRLF, tabs and runs of spaces must not change the fingerprint"
    );
    let _ = (a, b);
}

#[test]
fn fingerprint_raw_matches_plain_sha256_and_stdin_works() {
    let p = Project::seeded();
    p.write("x.txt", "abc");
    p.cmd()
        .args(["fingerprint", "--raw", "x.txt"])
        .assert()
        .success()
        .stdout("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  x.txt\n");
    p.cmd()
        .args(["fingerprint", "--show-normalized"])
        .write_stdin("  a&rsquo;b\n\n c\u{00A0} ")
        .assert()
        .success()
        .stdout("a\u{2019}b c\n");
}

#[test]
fn stored_excerpt_has_the_recorded_fingerprint() {
    let p = Project::seeded();
    let file = format!("book-snapshots/{CHAPTER}/snapshots/0001-a7d34947a6b4.txt");
    p.cmd()
        .args(["fingerprint", &file])
        .assert()
        .success()
        .stdout(format!("prose-v1:{EXCERPT_FP}  {file}\n"));
}

#[test]
fn invalid_utf8_names_the_file_and_byte_offset() {
    let p = Project::seeded();
    p.write("bad.txt", b"valid text \xC3\x28 then more");
    p.cmd()
        .args(["fingerprint", "bad.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "bad.txt: invalid UTF-8 at byte offset 11",
        ));
}

#[test]
fn chapters_are_found_by_stable_id_path_or_bare_id() {
    let p = Project::seeded();
    for id in ["06", CHAPTER, "pytorch-from-first-principles-06-chapter"] {
        p.cmd()
            .args(["chapter", "show", id])
            .assert()
            .success()
            .stdout(predicate::str::contains(
                "DataLoader: Where Is the Training Loop Actually Waiting?",
            ))
            .stdout(predicate::str::contains(
                "52eb51ad53f225be2409146b91ece3157b87d4fed531c3a144f58cd875efdc55",
            ));
    }
    p.cmd()
        .arg("chapters")
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("{CHAPTER}  DataLoader")))
        .stdout(predicate::str::contains("excerpt, intact"));
}

#[test]
fn unknown_chapter_suggests_the_closest_id() {
    let p = Project::seeded();
    p.cmd()
        .args(["chapter", "show", "pytorch-from-first-principles-06-chaptr"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "did you mean 'pytorch-from-first-principles-06-chapter'",
        ));
}

#[test]
fn ids_that_could_escape_the_tree_are_rejected() {
    let p = Project::seeded();
    for bad in [
        "../06",
        "pytorch-from-first-principles/..",
        "a\\b",
        "x\u{1}y",
    ] {
        p.cmd()
            .args(["chapter", "show", bad])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("invalid id"));
    }
}

#[test]
fn verify_passes_on_the_shipped_chapter_and_explains_the_excerpt() {
    let p = Project::seeded();
    p.cmd()
        .arg("verify")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("intact"))
        .stdout(predicate::str::contains(
            "cannot match the published fingerprint",
        ));
    // --strict fails: an excerpt is not the published revision.
    p.cmd().args(["verify", "--strict"]).assert().code(1);
}

#[test]
fn verify_reports_an_altered_snapshot_with_both_fingerprints() {
    let p = Project::seeded();
    let file = p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt");
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("7.4 times", "7.5 times");
    std::fs::write(&file, text).unwrap();
    let out = p.expect(["verify", "06"]).code(1).run();
    let s = out.stdout();
    assert!(s.contains("ALTERED"), "{s}");
    assert!(s.contains(EXCERPT_FP), "{s}");
    // JSON says the same thing.
    let out = p
        .cmd()
        .args(["verify", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["snapshots"][0]["integrity"], "ALTERED");
    // A reader that goes away (`verify | head -1`) stops the output, not the
    // verdict: still exit 1, and no error line.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_research_companion"))
        .args(["verify", "06"])
        .env("RESEARCH_COMPANION_ROOT", p.root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

#[test]
fn verify_reports_a_missing_snapshot() {
    let p = Project::seeded();
    std::fs::remove_file(p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt")).unwrap();
    p.cmd()
        .arg("verify")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("MISSING"));
}

#[test]
fn malformed_chapter_yaml_names_file_line_column_and_field() {
    let p = Project::seeded();
    let manifest = p.chapter_dir().join("chapter.yaml");
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("  number: 6", "  number: six");
    std::fs::write(&manifest, text).unwrap();
    let out = p.expect(["verify", "06"]).code(2).run();
    let e = out.stderr();
    assert!(e.contains("chapter.yaml"), "{e}");
    assert!(e.contains("line 7, column"), "{e}");
    assert!(e.contains("chapter.number"), "{e}");
    assert_eq!(e.lines().count(), 1, "one line: {e}");
}

#[test]
fn snapshot_add_stores_a_new_current_revision_without_touching_the_old() {
    let p = Project::seeded();
    let old = std::fs::read(p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt")).unwrap();
    p.write("full.txt", "The complete chapter, pasted by its author.\n");
    p.cmd()
        .args([
            "snapshot",
            "add",
            "06",
            "full.txt",
            "--complete",
            "--source",
            "https://example.invalid/ch6.txt",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("it is now current"));
    assert_eq!(
        std::fs::read(p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt")).unwrap(),
        old
    );
    let m = p.manifest();
    let snaps = m["snapshots"].as_array().unwrap();
    assert_eq!(snaps.len(), 2);
    assert_eq!(m["current_snapshot"], snaps[1]["file"]);
    assert_eq!(snaps[1]["scope"], "complete");
    assert_eq!(snaps[1]["source"], "https://example.invalid/ch6.txt");
    // The stored copy is byte for byte the author's file.
    let stored = p.chapter_dir().join(snaps[1]["file"].as_str().unwrap());
    assert_eq!(
        std::fs::read(stored).unwrap(),
        b"The complete chapter, pasted by its author.\n"
    );
    // A complete snapshot that is not the published revision differs,
    // which fails `verify`.
    p.cmd()
        .arg("verify")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("DIFFERS"));
    // The same prose again, re-wrapped: nothing is written.
    p.write("again.txt", "The complete chapter,\npasted by its author.");
    let before = p.state();
    p.cmd()
        .args(["snapshot", "add", "06", "again.txt", "--complete"])
        .assert()
        .success()
        .stdout(predicate::str::contains("unchanged"));
    assert_eq!(p.state(), before);
}

#[test]
fn snapshot_add_never_overwrites_an_existing_file() {
    let p = Project::seeded();
    // Plant a file where the next snapshot would go.
    p.write("new.txt", "Different prose.");
    let out = p.cmd().args(["fingerprint", "new.txt"]).output().unwrap();
    let hex = stdout(&out)[9..21].to_string();
    let squatter = p.chapter_dir().join(format!("snapshots/0002-{hex}.txt"));
    std::fs::write(&squatter, "someone else's file").unwrap();
    let before = p.state();
    p.cmd()
        .args(["snapshot", "add", "06", "new.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "already exists; refusing to overwrite",
        ));
    assert_eq!(p.state(), before);
}

#[test]
fn snapshot_add_bad_input_changes_nothing() {
    let p = Project::seeded();
    p.write("bad.txt", b"caf\xE9");
    let before = p.state();
    p.cmd()
        .args(["snapshot", "add", "06", "bad.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "bad.txt: invalid UTF-8 at byte offset 3",
        ));
    p.cmd()
        .args(["snapshot", "add", "06", "missing.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.txt"));
    p.cmd()
        .args(["snapshot", "add", "07", "bad.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown chapter '07'"));
    assert_eq!(p.state(), before);
}

#[test]
fn completions_are_generated_for_common_shells() {
    let p = Project::seeded();
    for shell in ["bash", "zsh", "fish"] {
        p.cmd()
            .args(["completions", shell])
            .assert()
            .success()
            .stdout(predicate::str::contains("verify"));
    }
}

#[test]
fn outside_a_project_commands_say_where_they_looked() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["verify"],
        vec!["status"],
        vec!["history"],
        vec!["prompt", "06"],
    ] {
        assert_cmd::Command::cargo_bin("research_companion")
            .unwrap()
            .current_dir(dir.path())
            .env_remove("RESEARCH_COMPANION_ROOT")
            .args(&args)
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains("no chapters under")
                    .and(predicate::str::contains("--root DIR")),
            );
    }
}

#[test]
fn the_tool_never_rewrites_chapter_yaml() {
    let p = Project::seeded();
    let manifest = p.chapter_dir().join("chapter.yaml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    text.insert_str(0, "# Written by hand; keep this comment.\n");
    text = text.replace(
        "research_questions: []",
        "research_questions: []  # none yet\n# folded text stays folded",
    );
    std::fs::write(&manifest, &text).unwrap();
    p.write("new.txt", "A revised chapter, stored by hand.\n");
    p.cmd()
        .args(["snapshot", "add", "06", "new.txt", "--complete"])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), text);
    let state = std::fs::read_to_string(p.chapter_dir().join("snapshots.yaml")).unwrap();
    assert!(
        state.contains("current_snapshot: snapshots/0002-"),
        "{state}"
    );
    // The source is the path as typed, relative to the project root.
    assert!(state.contains("source: new.txt"), "{state}");
}

#[test]
fn an_old_chapter_yaml_is_read_and_migrated_on_request() {
    let p = Project::seeded();
    let manifest = p.chapter_dir().join("chapter.yaml");
    let mut old =
        std::fs::read_to_string(crate::helpers::fixtures().join("legacy-chapter/chapter.yaml"))
            .unwrap();
    old.insert_str(0, "# My notes.\n");
    std::fs::write(&manifest, &old).unwrap();
    std::fs::remove_file(p.chapter_dir().join("snapshots.yaml")).unwrap();
    // Read as it is.
    p.cmd().arg("verify").assert().success();
    p.cmd()
        .args(["chapter", "show", "06"])
        .assert()
        .success()
        .stdout(predicate::str::contains("snapshots/0001-a7d34947a6b4.txt"));
    // Not written to: the message says how to migrate.
    p.write("new.txt", "Another revision.\n");
    let before = p.state();
    p.cmd()
        .args(["snapshot", "add", "06", "new.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "research_companion chapter migrate pytorch-from-first-principles/06",
        ));
    assert_eq!(p.state(), before);
    p.cmd()
        .args(["chapter", "migrate", "06"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "migrated pytorch-from-first-principles/06",
        ));
    let migrated = std::fs::read_to_string(&manifest).unwrap();
    assert!(
        migrated.starts_with("# My notes.\nschema: research_companion.chapter.v2\n"),
        "{migrated}"
    );
    assert!(!migrated.contains("current_snapshot"), "{migrated}");
    p.cmd().arg("verify").assert().success();
    p.cmd()
        .args(["snapshot", "add", "06", "new.txt"])
        .assert()
        .success();
    p.cmd()
        .args(["chapter", "migrate", "06"])
        .assert()
        .success()
        .stdout(predicate::str::contains("already in the current shape"));
}

#[test]
fn a_snapshot_from_outside_the_project_records_only_its_name() {
    let p = Project::seeded();
    let elsewhere = tempfile::tempdir().unwrap();
    let file = elsewhere.path().join("chapter-07-draft.txt");
    std::fs::write(&file, "Prose from somewhere else on this machine.\n").unwrap();
    p.cmd()
        .args(["snapshot", "add", "06"])
        .arg(&file)
        .assert()
        .success();
    let state = std::fs::read_to_string(p.chapter_dir().join("snapshots.yaml")).unwrap();
    assert!(state.contains("source: chapter-07-draft.txt"), "{state}");
    assert!(
        !state.contains(&elsewhere.path().display().to_string()),
        "{state}"
    );
}

#[test]
fn a_title_is_one_line() {
    let p = Project::seeded();
    p.write("ch.txt", "The text of a new chapter.\n");
    let before = p.state();
    for (flag, title) in [("--title", "Line one\nLine two"), ("--book-title", "B\rC")] {
        let mut args = crate::helpers::NEW_NOTES_CHAPTER.to_vec();
        let at = args.iter().position(|a| *a == flag).unwrap();
        args[at + 1] = title;
        p.expect(&args)
            .code(2)
            .stderr_has("a title is one line of text")
            .run();
    }
    assert_eq!(p.state(), before);
    // A title chapter.yaml spreads over lines (a folded scalar, an edit by
    // hand) is one line in the prompt's identity block.
    let manifest = p.chapter_dir().join("chapter.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let title = "'DataLoader: Where Is the Training Loop Actually Waiting?'";
    assert!(text.contains(title));
    std::fs::write(
        &manifest,
        text.replacen(
            title,
            "\"DataLoader: Where Is\\nthe Training Loop Actually Waiting?\\n\"",
            1,
        ),
    )
    .unwrap();
    let out = p.cmd().args(["prompt", "06"]).output().unwrap();
    assert!(
        stdout(&out).contains(
            "Chapter:         DataLoader: Where Is the Training Loop Actually Waiting?\n"
        ),
        "{}",
        stdout(&out)
    );
}
