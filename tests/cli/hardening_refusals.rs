//! Outputs kept out of the tool's own stores (issue 51, class 10), and
//! small refusals (class 12): an empty kernel name, a blank time limit, a
//! dropped validator said, a too-big YAML file said as such, a missing
//! notebook file named, and `verify` failing on a differing snapshot.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use crate::helpers::{CHAPTER, Project, stderr, stdout};

/// A one-line error with exit status 2 that contains `part`.
fn refused(out: &std::process::Output, part: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", stdout(out));
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(part), "wanted {part:?} in: {err}");
}

#[test]
fn site_and_publish_never_write_into_the_tools_own_folders() {
    let p = Project::with_fixture_records();
    // A link to records/ from outside the project.
    let elsewhere = tempfile::tempdir().unwrap();
    let link = elsewhere.path().join("to-records");
    std::os::unix::fs::symlink(p.path("records"), &link).unwrap();
    let through_link = link.join("new/site").display().to_string();
    std::fs::create_dir_all(p.path("templates")).unwrap();
    let before = p.state();
    let cases: [(&[&str], &str); 9] = [
        (
            &["site", "--out", "records/site"],
            "is inside the project's records/ folder",
        ),
        (
            &["site", "--out", "records"],
            "is the project's records/ folder",
        ),
        (
            &["site", "--out", &format!("book-snapshots/{CHAPTER}/site")],
            "is inside the project's book-snapshots/ folder",
        ),
        (
            &["site", "--out", "."],
            "holds the project's book-snapshots/ folder",
        ),
        (
            &["site", "--out", &through_link],
            "is inside the project's records/ folder",
        ),
        (
            &["site", "--out", "nowhere/../templates/x"],
            "is inside the project's templates/ folder",
        ),
        (
            &["publish", "--site", "records/book"],
            "is inside the project's records/ folder",
        ),
        (
            &["publish", "--site", ".git/x"],
            "is inside the project's .git/ folder",
        ),
        (
            &["publish", "06", "--out", "book-snapshots/06.yaml"],
            "is inside the project's book-snapshots/ folder",
        ),
    ];
    for (args, part) in cases {
        let out = p.cmd().args(args).output().unwrap();
        refused(&out, part);
        assert!(
            stderr(&out).contains(args[args.len() - 1]),
            "names the target"
        );
    }
    assert_eq!(p.state(), before, "nothing was written");
    // Beside the stores is fine.
    let out = p.cmd().args(["site", "--out", "site"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn an_empty_or_odd_kernel_name_is_refused_before_anything_runs() {
    let p = Project::seeded();
    let before = p.state();
    for (kernel, part) in [
        ("", "a kernel name cannot be empty"),
        ("a b", "holds ' '"),
        ("../x", "holds '/'"),
        (&"k".repeat(65), "more than the 64"),
    ] {
        let out = p
            .cmd()
            .args(["notebook", "run", "06", "--kernel", kernel])
            .output()
            .unwrap();
        refused(&out, part);
        assert!(stderr(&out).contains("--kernel"), "{}", stderr(&out));
    }
    assert_eq!(p.state(), before);
}

#[test]
fn a_blank_harness_time_limit_is_refused_not_taken_for_unset() {
    let p = Project::seeded();
    // A Python that fails at once: were the blank taken for unset, the
    // run would start and fail on it instead.
    let python = p.write("python", "#!/bin/sh\nexit 3\n");
    std::fs::set_permissions(&python, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    for blank in ["", "   "] {
        let out = p
            .cmd()
            .args(["bench", "--engine", "pytorch", "--python"])
            .arg(&python)
            .env("RESEARCH_COMPANION_HARNESS_TIMEOUT", blank)
            .output()
            .unwrap();
        refused(&out, "RESEARCH_COMPANION_HARNESS_TIMEOUT is set but blank");
    }
}

/// A server on 127.0.0.1 that serves `body` as a notebook once, with an
/// ETag of `etag_bytes` bytes.
fn serve_once(body: String, etag_bytes: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://127.0.0.1:{}/06.ipynb",
        listener.local_addr().unwrap().port()
    );
    std::thread::spawn(move || {
        if let Some(stream) = listener.incoming().flatten().next() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                line.clear();
            }
            let mut stream = stream;
            let answer = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/x-ipynb+json\r\nETag: \"{}\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                "e".repeat(etag_bytes),
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    url
}

#[test]
fn notebook_add_says_when_it_drops_an_over_long_etag() {
    let p = Project::seeded();
    let body = crate::notebook::notebook(vec![crate::notebook::code("a", "print(1)")]);
    let url = serve_once(body, 2000);
    let out = p
        .cmd()
        .args(["notebook", "add", "06", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "warning: the server's ETag (2002 bytes, more than the 1024-byte limit) was not stored"
        ),
        "{err}"
    );
    let state = std::fs::read_to_string(p.chapter_dir().join("notebooks.yaml")).unwrap();
    assert!(!state.contains("eeeeeeee"), "the ETag was not kept");
}

#[test]
fn a_big_yaml_file_without_aliases_is_refused_by_its_size() {
    let p = Project::seeded();
    // More than a million nodes and no alias: a list of small numbers.
    let mut text = String::from("schema: research_companion.bench-run.v1\nresults:\n");
    for _ in 0..1_000_001 {
        text.push_str("- 1\n");
    }
    let size = text.len();
    p.write("big.run.yaml", text);
    let out = p.cmd().args(["diff", "big.run.yaml"]).output().unwrap();
    refused(
        &out,
        &format!("the file ({size} bytes) holds more than 1000000 YAML nodes"),
    );
    assert!(!stderr(&out).contains("aliases"), "{}", stderr(&out));
    assert!(stderr(&out).contains("big.run.yaml"));
}

#[test]
fn notebook_check_names_a_missing_file() {
    let p = Project::seeded();
    for missing in ["/missing.ipynb", "missing.ipynb", "./nb/x"] {
        let out = p
            .cmd()
            .args(["notebook", "check", missing])
            .output()
            .unwrap();
        refused(&out, &format!("{missing}: No such file"));
        assert!(!stderr(&out).contains("invalid id"), "{}", stderr(&out));
    }
}

#[test]
fn verify_fails_when_the_current_snapshot_differs_from_the_published_one() {
    let p = Project::seeded();
    p.write(
        "full.txt",
        "A complete chapter that is not the published one.\n",
    );
    let out = p
        .cmd()
        .args(["snapshot", "add", "06", "full.txt", "--complete"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    p.expect(["verify"]).code(1).stdout_has("FAILED: a current snapshot DIFFERS from its published fingerprint: pytorch-from-first-principles/06: differs from the published fingerprint").run();
    let help = p.cmd().args(["verify", "--help"]).output().unwrap();
    assert!(stdout(&help).contains("DIFFERS"), "{}", stdout(&help));
}

#[test]
fn notebook_check_names_a_folder_that_can_only_be_a_path() {
    let p = Project::seeded();
    let elsewhere = tempfile::tempdir().unwrap();
    for folder in ["nb", "x.ipynb", "06"] {
        std::fs::create_dir(p.path(folder)).unwrap();
    }
    let absolute = elsewhere.path().display().to_string();
    for folder in [absolute.as_str(), "nb/", "./nb", "x.ipynb", "x.ipynb/"] {
        let out = p
            .cmd()
            .args(["notebook", "check", folder])
            .output()
            .unwrap();
        refused(
            &out,
            &format!("{folder}: a folder, not a regular file; refusing to read it"),
        );
    }
    // A plain chapter id is still one, even with a folder of that name
    // beside it.
    let nb = serde_json::json!({
        "cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": null,
                   "source": "print(1)", "outputs": []}],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5
    });
    p.write("one.ipynb", serde_json::to_string(&nb).unwrap());
    let added = p
        .cmd()
        .args(["notebook", "add", "06", "one.ipynb"])
        .output()
        .unwrap();
    assert!(added.status.success(), "{}", stderr(&added));
    let out = p.cmd().args(["notebook", "check", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("1 cells, no findings"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn site_and_publish_refuse_a_dangling_link_into_a_store() {
    let p = Project::with_fixture_records();
    let elsewhere = tempfile::tempdir().unwrap();
    // Links whose targets do not exist yet: writing through them would
    // create a folder inside records/ or book-snapshots/.
    let into_records = elsewhere.path().join("dangling-records");
    std::os::unix::fs::symlink(p.path(&format!("records/{CHAPTER}/newdir")), &into_records)
        .unwrap();
    let into_snapshots = elsewhere.path().join("dangling-snapshots");
    std::os::unix::fs::symlink(
        p.path(&format!("book-snapshots/{CHAPTER}/new/site")),
        &into_snapshots,
    )
    .unwrap();
    // A relative one, through a second dangling link.
    std::os::unix::fs::symlink(p.path("records/x"), elsewhere.path().join("first")).unwrap();
    let chained = elsewhere.path().join("chained");
    std::os::unix::fs::symlink("first/site", &chained).unwrap();
    let before = p.state();
    for link in [&into_records, &into_snapshots, &chained] {
        let store = if link == &into_snapshots {
            "book-snapshots"
        } else {
            "records"
        };
        let link = link.display().to_string();
        for args in [["site", "--out", &link], ["publish", "--site", &link]] {
            let out = p.cmd().args(args).output().unwrap();
            refused(&out, &format!("is inside the project's {store}/ folder"));
            assert!(stderr(&out).contains(&link), "names the target");
        }
    }
    assert_eq!(p.state(), before, "nothing was written");
    assert!(!p.path(&format!("records/{CHAPTER}/newdir")).exists());
    assert!(!p.path("records/x").exists());
}
