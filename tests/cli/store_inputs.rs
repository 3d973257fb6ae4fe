//! Records and inputs the store must not accept: numbers that are not
//! numbers or are out of range, files that are not files, empty texts,
//! ids that only look like other ids, and text that would drive the
//! terminal. Each is refused in one line naming the file, field or
//! character, or listed as broken; nothing hangs.

use std::path::Path;

use crate::helpers::{CHAPTER, FIXTURE_RUN, Project, fixture_record_file, stderr, stdout};
// The binary with a hang guard, as the hostile-input tests run it.
use crate::hostile::run;

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C string and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

fn record_path(p: &Project, name: &str) -> std::path::PathBuf {
    p.path(&format!("records/{CHAPTER}/{name}"))
}

// Item 9: records go through the same finite-number check as run files.
#[test]
fn a_record_holding_nan_or_infinity_is_refused_by_every_reader_naming_the_field() {
    let p = Project::with_fixture_records();
    let path = record_path(&p, "20261102T120000-bbbbbbbbbbbb.record.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replacen(
        "    verdict: REPRODUCED\n",
        "    verdict: REPRODUCED\n    measured: .nan\n    ratio: -.inf\n",
        1,
    );
    std::fs::write(&path, text).unwrap();
    let named = "20261102T120000-bbbbbbbbbbbb.record.yaml: field 'experiment.verdicts[0].measured': NaN is not a finite number";
    for (args, code) in [
        (vec!["history", "06"], 1),
        (vec!["status", "06"], 1),
        (vec!["publish", "06"], 2),
        (vec!["site", "--out", "site"], 1),
        (vec!["publish", "--site", "book"], 1),
        // The draft is made from the records that can be read, and says so.
        (vec!["report", "06"], 0),
        (vec!["prompt", "06"], 0),
    ] {
        let out = run(&p, &args);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(named), "{args:?}: {}", stderr(&out));
    }
    // What the record said is not shown as evidence anywhere.
    let out = run(&p, &["status", "06"]);
    assert!(
        stdout(&out).contains("no experiment recorded"),
        "{}",
        stdout(&out)
    );
}

// Items 10 and 11: files that are not files.
#[test]
fn a_chapter_whose_chapter_yaml_is_not_a_regular_file_is_broken_not_gone() {
    let p = Project::seeded();
    let snapshots = std::fs::read(p.chapter_dir().join("snapshots.yaml")).unwrap();
    for (chapter, make, reason) in [
        ("01", "fifo", "a FIFO (named pipe), not a regular file"),
        ("02", "dir", "a folder, not a regular file"),
        ("03", "dangling", "a link to a file that does not exist"),
        (
            "04",
            "missing",
            "missing: the chapter folder has no chapter.yaml",
        ),
    ] {
        let dir = p.path(&format!("book-snapshots/other/{chapter}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("snapshots.yaml"), &snapshots).unwrap();
        let manifest = dir.join("chapter.yaml");
        match make {
            "fifo" => mkfifo(&manifest),
            "dir" => std::fs::create_dir(&manifest).unwrap(),
            "dangling" => std::os::unix::fs::symlink("gone.yaml", &manifest).unwrap(),
            _ => {}
        }
        let _ = reason;
    }
    for args in [
        vec!["chapters"],
        vec!["verify"],
        vec!["status"],
        vec!["history"],
    ] {
        let out = run(&p, &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        for (chapter, reason) in [
            ("01", "a FIFO (named pipe), not a regular file"),
            ("02", "a folder, not a regular file"),
            ("03", "a link to a file that does not exist"),
            ("04", "missing: the chapter folder has no chapter.yaml"),
        ] {
            let line = err
                .lines()
                .find(|l| l.contains(&format!("other/{chapter}")))
                .unwrap_or_else(|| panic!("{args:?} does not list other/{chapter}: {err}"));
            assert!(line.contains(reason), "{args:?}: {line}");
        }
        // The good chapter is still shown.
        assert!(
            stdout(&out).contains("pytorch-from-first-principles/06"),
            "{args:?}"
        );
    }
}

#[test]
fn publish_site_refuses_a_target_that_is_not_a_regular_file() {
    let p = Project::seeded();
    let target = p.path("book/content/research/chapters/pytorch-from-first-principles/06.yaml");
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    mkfifo(&target);
    let out = run(&p, &["publish", "--site", "book"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("06.yaml: a FIFO (named pipe), not a regular file this tool wrote; refusing to replace it"), "{err}");
    let out = run(&p, &["publish", "06", "--out", target.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("a FIFO"), "{}", stderr(&out));
    // A folder in its place is refused the same way.
    std::fs::remove_file(&target).unwrap();
    std::fs::create_dir(&target).unwrap();
    let out = run(&p, &["publish", "--site", "book"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("a folder, not a regular file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_site_never_opens_a_fifo_among_a_records_files() {
    let p = Project::with_fixture_records();
    let report = record_path(&p, "20261101T120000-aaaaaaaaaaaa.report.md");
    std::fs::remove_file(&report).unwrap();
    mkfifo(&report);
    let out = run(&p, &["site", "--out", "site"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("a FIFO (named pipe)"),
        "{}",
        stderr(&out)
    );
}

// Item 12: an empty text is not a snapshot.
#[test]
fn snapshot_add_refuses_an_empty_text_as_chapter_new_does() {
    let p = Project::seeded();
    let before = crate::helpers::files_under(&p.path("book-snapshots"));
    let state = std::fs::read(p.chapter_dir().join("snapshots.yaml")).unwrap();
    for (name, text) in [
        ("empty.txt", ""),
        ("blank.txt", " \n\t\r\n"),
        ("invisible.txt", "\u{200B}\u{FEFF}\u{2060}"),
    ] {
        p.write(name, text);
        let out = run(&p, &["snapshot", "add", "06", name]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(name) && err.contains("empty"), "{name}: {err}");
        assert_eq!(
            crate::helpers::files_under(&p.path("book-snapshots")),
            before
        );
        assert_eq!(
            std::fs::read(p.chapter_dir().join("snapshots.yaml")).unwrap(),
            state
        );
        let out = run(
            &p,
            &[
                "chapter",
                "new",
                "b/01",
                name,
                "--title",
                "T",
                "--book-title",
                "B",
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains("empty"), "{name}: {}", stderr(&out));
        assert_eq!(
            crate::helpers::files_under(&p.path("book-snapshots")),
            before
        );
    }
}

// Item 13: ids are ASCII.
#[test]
fn ids_that_only_look_like_others_are_refused_naming_the_character() {
    let p = Project::seeded();
    p.write("ch.txt", "A chapter of a book.\n");
    p.new_chapter(
        "systems-notes/01",
        "A chapter.\n",
        "One",
        Some("Systems Notes"),
    );
    for (key, named) in [
        ("systems-n\u{43e}tes/02", "U+043E"),
        ("systems\u{202e}notes/02", "U+202E"),
        ("systems\u{200b}notes/02", "U+200B"),
        ("\u{ff53}ystems-notes/02", "U+FF53"),
        ("syste\u{301}ms-notes/02", "U+0301"),
        ("syst\u{e9}ms-notes/02", "U+00E9"),
    ] {
        let out = run(
            &p,
            &[
                "chapter",
                "new",
                key,
                "ch.txt",
                "--title",
                "T",
                "--book-title",
                "Systems Notes",
            ],
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{key:?}: {err}");
        assert!(err.contains(named), "{key:?}: {err}");
        assert!(
            err.contains("ids are ASCII lowercase letters a-z, digits 0-9, '-', '_' and '.'"),
            "{err}"
        );
        assert!(
            !err.contains('\u{202e}') && !err.contains('\u{200b}'),
            "{err:?}"
        );
    }
    let out = run(&p, &["chapters"]);
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
    // A folder made by hand with such a name is a broken chapter, listed.
    let bad = p.path("book-snapshots/systems-n\u{43e}tes/03");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::copy(
        p.path("book-snapshots/systems-notes/01/chapter.yaml"),
        bad.join("chapter.yaml"),
    )
    .unwrap();
    let out = run(&p, &["chapters"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("U+043E"), "{}", stderr(&out));
}

// Item 14: text from files never forges a line or drives the terminal.
#[test]
fn titles_with_line_breaks_and_escapes_print_on_one_line_escaped() {
    let p = Project::seeded();
    p.write("ch.txt", "A chapter of a book.\n");
    let forged = "Real\npytorch-from-first-principles/99  Forged chapter\rOver\u{1b}[2J\u{202e}";
    let escaped =
        "Real\\npytorch-from-first-principles/99  Forged chapter\\rOver\\u{1b}[2J\\u{202e}";
    // The command line refuses such a title, and its error neither splits
    // nor drives the terminal.
    let out = run(
        &p,
        &[
            "chapter",
            "new",
            "b/01",
            "ch.txt",
            "--title",
            forged,
            "--book-title",
            "B",
        ],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("a title is one line of text"), "{err}");
    assert!(
        !err.contains('\r') && !err.contains('\u{1b}') && !err.contains('\u{202e}'),
        "{err:?}"
    );
    // chapter.yaml is the author's, and may hold one: made by hand.
    let out = run(
        &p,
        &[
            "chapter",
            "new",
            "b/01",
            "ch.txt",
            "--title",
            "T",
            "--book-title",
            "B",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let manifest = p.path("book-snapshots/b/01/chapter.yaml");
    let yaml = std::fs::read_to_string(&manifest).unwrap();
    let quoted = |s: &str| serde_json::to_string(s).unwrap();
    let yaml = yaml
        .replacen("title: T", &format!("title: {}", quoted(forged)), 1)
        .replacen("title: B", &format!("title: {}", quoted("B\nC")), 1);
    assert!(
        yaml.contains("Forged chapter") && yaml.contains("B\\nC"),
        "{yaml}"
    );
    std::fs::write(&manifest, yaml).unwrap();
    let out = run(&p, &["chapters"]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains(escaped), "{text}");
    assert!(!text.contains('\r') && !text.contains('\u{1b}') && !text.contains('\u{202e}'));
    for args in [
        vec!["history"],
        vec!["verify"],
        vec!["chapter", "show", "b/01"],
    ] {
        let out = run(&p, &args);
        let text = stdout(&out);
        assert!(
            text.contains(escaped) || text.contains("B\\nC"),
            "{args:?}: {text}"
        );
        assert!(
            !text.contains("\npytorch-from-first-principles/99"),
            "{args:?}: {text}"
        );
        assert!(!text.contains('\u{1b}'), "{args:?}: {text:?}");
    }
    // An error quoting a file's text is one line too.
    let out = run(
        &p,
        &[
            "chapter",
            "new",
            "b/02",
            "ch.txt",
            "--title",
            "T",
            "--book-title",
            "Other",
        ],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("titled 'B\\nC'"), "{err}");
}

// Item 15: numbers out of range are refused where they are read.
#[test]
fn a_run_file_out_of_range_is_refused_naming_the_field() {
    let p = Project::seeded();
    let fixture = String::from_utf8(fixture_record_file(FIXTURE_RUN)).unwrap();
    let doc: serde_yaml::Value = serde_yaml::from_str(&fixture).unwrap();
    type Break = fn(&mut serde_yaml::Value);
    let cases: Vec<(&str, Break, &str)> = vec![
        (
            "ex.yaml",
            |d| d["results"][0]["summary"]["ex_per_s"] = (-1e308).into(),
            "field 'results[0].summary.ex_per_s': -1e308 is not between 0 and 1000000000",
        ),
        (
            "batch.yaml",
            |d| d["settings"]["batch_size"] = 0.into(),
            "field 'settings.batch_size': must be at least 1, got 0",
        ),
        (
            "cost.yaml",
            |d| d["settings"]["cost_ms"] = (-5.0).into(),
            "field 'settings.cost_ms': must be a finite number >= 0, got -5",
        ),
        (
            "workers.yaml",
            |d| d["settings"]["workers"][0] = u64::MAX.into(),
            "field 'settings.workers': must be at most 256, got 18446744073709551615",
        ),
        (
            "frac.yaml",
            |d| d["results"][1]["repeats"][0]["row"]["wait_frac"] = 3.0.into(),
            "field 'results[1].repeats[0].row.wait_frac': 3 is not between 0 and 1",
        ),
    ];
    let before = p.state();
    for (name, break_it, named) in cases {
        let mut d = doc.clone();
        break_it(&mut d);
        p.write(name, serde_yaml::to_string(&d).unwrap());
        for args in [
            vec!["record", "06", "--run", name],
            vec!["diff", name],
            vec!["compare", name, name],
        ] {
            let out = run(&p, &args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(&format!("{name}: {named}")), "{args:?}: {err}");
        }
        std::fs::remove_file(p.path(name)).unwrap();
    }
    assert_eq!(p.state(), before, "nothing recorded");
}

#[test]
fn a_published_table_out_of_range_is_a_fragment_that_did_not_parse() {
    let p = Project::seeded();
    let header = "=== producer=sleep 2.0 ms/sample batch=32 consumer=8 ms/batch ===";
    for (rows, named) in [
        (
            "-1 414 0.9\n8 3049 0.1\n",
            "row 1, column workers: -1 is not a whole number of workers",
        ),
        (
            "0 414 0.9\n2.5 3049 0.1\n",
            "row 2, column workers: 2.5 is not a whole number of workers",
        ),
        (
            "0 414 0.9\n300 3049 0.1\n",
            "the table's workers must be at most 256, got 300",
        ),
        (
            "0 -414 0.9\n8 3049 0.1\n",
            "row 1, column ex/s: -414 is negative",
        ),
        (
            "0 414 1.9\n8 3049 0.1\n",
            "row 1, column wait_frac: 1.9 is not a fraction from 0 to 1",
        ),
    ] {
        let text = format!("Prose.\n{header}\nworkers ex/s wait_frac\n{rows}\nMore prose.\n");
        p.write("t.txt", &text);
        let out = run(
            &p,
            &[
                "chapter",
                "new",
                "b/01",
                "t.txt",
                "--title",
                "T",
                "--book-title",
                "B",
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let shown = stdout(&out);
        assert!(shown.contains("published tables: none"), "{rows}: {shown}");
        assert!(shown.contains(named), "{rows}: {shown}");
        std::fs::remove_dir_all(p.path("book-snapshots/b")).unwrap();
    }
    // The header's settings are held to the same bounds.
    let text = format!(
        "Prose.\n{}\nworkers ex/s\n0 414\n",
        header.replace("2.0 ms/sample", "70000 ms/sample")
    );
    p.write("t.txt", &text);
    let out = run(
        &p,
        &[
            "chapter",
            "new",
            "b/01",
            "t.txt",
            "--title",
            "T",
            "--book-title",
            "B",
        ],
    );
    assert!(
        stdout(&out).contains("the table's cost_ms must be at most 60000, got 70000"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_harness_answer_that_cannot_be_right_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let p = Project::seeded();
    let fixture =
        std::fs::read_to_string(crate::helpers::fixtures().join("pytorch-harness-answer.json"))
            .unwrap();
    let mut answer: serde_json::Value = serde_json::from_str(&fixture).unwrap();
    answer["results"][0]["window_ns"] = 0.into();
    p.write("answer.json", answer.to_string());
    let python = p.write(
        "fake-python",
        format!("#!/bin/sh\ncat '{}'\n", p.path("answer.json").display()),
    );
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The fake harness's answer, read as a PyTorch run of these settings.
    let bench = |extra: &[&str]| {
        let mut args = vec!["bench", "--engine", "pytorch", "--python"];
        args.push(python.to_str().unwrap());
        args.extend([
            "--batches",
            "20",
            "--workers",
            "0,2",
            "--producer",
            "sleep,spin",
        ]);
        args.extend(extra);
        run(&p, &args)
    };
    let out = bench(&["--out", "pt.yaml"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}{}", stdout(&out));
    assert!(
        err.contains("the PyTorch harness's answer for producer=sleep workers=0 cannot be right: its window of 0 ns is shorter than"),
        "{err}"
    );
    assert!(!p.path("pt.yaml").exists());
    // Workers nobody asked for.
    answer["results"][0]["window_ns"] = 1_589_694_128u64.into();
    answer["results"][1]["workers"] = 7.into();
    p.write("answer.json", answer.to_string());
    let out = bench(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("not asked for"), "{}", stderr(&out));
}
