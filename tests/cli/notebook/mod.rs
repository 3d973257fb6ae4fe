//! The chapter's notebook: `notebook add` (a file, a URL on a server the
//! test starts on 127.0.0.1, `chapter new --notebook`), `notebook check`,
//! and what cannot be run; `kernel` runs notebooks in real Jupyter kernels
//! and follows the run into status, history, the prompt, the report,
//! publish and the site. The notebooks are small pure-Python ones each
//! test writes itself.

mod containment;
pub(crate) mod kernel;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;

use serde_json::{Value, json};

use crate::helpers::{Project, stderr, stdout};

/// A code cell.
pub(super) fn code(id: &str, source: &str) -> Value {
    json!({"cell_type": "code", "id": id, "metadata": {}, "execution_count": null, "source": source, "outputs": []})
}

/// A notebook of `cells` (a markdown title first), as nbformat 4.5 saves it.
pub(super) fn notebook(cells: Vec<Value>) -> String {
    let mut all = vec![
        json!({"cell_type": "markdown", "id": "title", "metadata": {}, "source": "# A test notebook"}),
    ];
    all.extend(cells);
    serde_json::to_string_pretty(&json!({
        "cells": all,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5
    }))
    .unwrap()
}

/// `notebook run <args> --python <python>`.
pub(super) fn run(p: &Project, python: &Path, args: &[&str]) -> std::process::Output {
    p.cmd()
        .args(["notebook", "run"])
        .args(args)
        .arg("--python")
        .arg(python)
        .output()
        .unwrap()
}

/// `notebook run` that must pass (exit 0).
pub(super) fn run_passing(p: &Project, python: &Path, args: &[&str]) -> std::process::Output {
    let out = run(p, python, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    out
}

#[test]
fn what_cannot_run_is_one_line_and_exit_2() {
    let p = Project::seeded();
    // A Python without nbclient: the real harness under `python3 -S`,
    // which keeps site-packages out.
    let no_packages = p.write(
        "python-without-packages",
        "#!/bin/sh\nexec python3 -S \"$@\"\n",
    );
    std::fs::set_permissions(
        &no_packages,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let out = run(&p, &no_packages, &["06"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(e.contains("cannot import nbformat, nbclient, ipykernel; install them with `python3 -m venv DIR && DIR/bin/pip install nbclient ipykernel` and use DIR/bin/python (--python PATH)"), "{e}");
    assert!(!p.path("records").exists(), "nothing recorded");
    // No Python at all.
    let out = run(&p, Path::new("/nonexistent/python"), &["06"]);
    assert_eq!(out.status.code(), Some(2));
    // One line: the error, with no "running ..." line before it.
    assert_eq!(
        stderr(&out),
        "research_companion: error: cannot run /nonexistent/python (No such file or directory (os error 2)); install them with `python3 -m venv DIR && DIR/bin/pip install nbclient ipykernel` and use DIR/bin/python (--python PATH)\n"
    );
    let out = run(&p, Path::new("no-such-python-here"), &["06"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot run no-such-python-here (not found on PATH)"),
        "{}",
        stderr(&out)
    );
    // The same for the PyTorch engine.
    let out = p
        .cmd()
        .args([
            "bench",
            "--engine",
            "pytorch",
            "--python",
            "/nonexistent/python",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot run /nonexistent/python (No such file or directory"),
        "{}",
        stderr(&out)
    );
    // A chapter with no notebook.
    p.new_chapter("systems-notes/07", "Text.", "Queues", Some("Systems Notes"));
    let out = run(&p, Path::new("python3"), &["07"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("systems-notes/07 has no stored notebook; store one with `research_companion notebook add"), "{}", stderr(&out));
    // A stored notebook altered since it was stored.
    let stored = p.chapter_dir().join("notebooks/0001-98070b378394.ipynb");
    std::fs::write(&stored, "{ not json").unwrap();
    let out = run(&p, Path::new("python3"), &["06"]);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(
        e.contains("0001-98070b378394.ipynb: was altered since it was stored"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "one line: {e}");
}

#[test]
fn bad_notebooks_are_refused_with_what_is_wrong_and_nothing_stored() {
    let p = Project::seeded();
    let before = p.state();
    p.write("bad.ipynb", "{\"cells\": [");
    p.expect(["notebook", "add", "06", "bad.ipynb"])
        .code(2)
        .stderr_has("bad.ipynb: not a Jupyter notebook: invalid JSON at line 1, column 11")
        .run();
    p.expect(["notebook", "check", "bad.ipynb"]).code(2).run();
    // Oversized: refused with its size.
    let big = p.path("big.ipynb");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(17 << 20)
        .unwrap();
    p.expect(["notebook", "add", "06", "big.ipynb"])
        .code(2)
        .stderr_has(
            "big.ipynb: the notebook (17825792 bytes) is larger than the 16777216-byte limit",
        )
        .run();
    std::fs::remove_file(&big).unwrap();
    std::fs::remove_file(p.path("bad.ipynb")).unwrap();
    assert_eq!(p.state(), before, "nothing stored");
}

#[test]
fn check_finds_what_a_published_notebook_must_not_carry() {
    let p = Project::seeded();
    // The user name the tool knows, as it finds it.
    let user = ["USER", "LOGNAME"]
        .iter()
        .find_map(|k| std::env::var(k).ok())
        .or_else(|| {
            std::env::var("HOME")
                .ok()
                .and_then(|h| h.rsplit('/').next().map(String::from))
        })
        .unwrap_or_default();
    let token = format!("hf_{}", "Ab3dE".repeat(7));
    let mut cell = code("leak", "print(secrets)");
    cell["outputs"] = json!([
        {"output_type": "stream", "name": "stdout", "text": format!("loaded /home/alice/data.csv as {user}\nHF_TOKEN={token}\njob task-0123456789abcdef0123456789abcdef done\n")},
        {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": ["ValueError: bad"]}
    ]);
    let mut no_id = code("x", "x = 1");
    no_id.as_object_mut().unwrap().remove("id");
    p.write("leaky.ipynb", notebook(vec![cell, no_id]));
    let out = p.expect(["notebook", "check", "leaky.ipynb"]).code(1).run();
    let text = out.stdout();
    for line in [
        "leak: local-path: /home/alice/data.csv in a saved output",
        "leak: secret: Hugging Face token hf_A... (38 characters) in a saved output",
        "leak: error-output: saved error output ValueError: bad",
        "cell #2: cell-id: no cell id (nbformat 4.5 gives every cell a stable id)",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
    assert!(!text.contains("task-"), "an id is no secret: {text}");
    if user.len() >= 3 && !["root", "user", "runner"].contains(&user.as_str()) {
        assert!(
            text.contains(&format!("user-name: this machine's user name '{user}'")),
            "{text}"
        );
    }
    assert!(text.ends_with("finding(s)\n"), "{text}");
    // The chapter's own notebook is clean.
    let out = p.expect(["notebook", "check", "06"]).success().run();
    assert!(
        out.stdout()
            .ends_with("0001-98070b378394.ipynb: 12 cells, no findings\n"),
        "{}",
        out.stdout()
    );
}

/// A server on 127.0.0.1 that serves `body` as a notebook with an ETag,
/// and answers 304 to a request that sends it back; it stops after
/// `requests` requests.
fn notebook_server(
    body: String,
    requests: usize,
) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://127.0.0.1:{}/nb/06.ipynb",
        listener.local_addr().unwrap().port()
    );
    let handle = std::thread::spawn(move || {
        let mut heads = Vec::new();
        for stream in listener.incoming().flatten().take(requests) {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                head.push_str(&line);
            }
            let mut stream = stream;
            let answer = if head.to_lowercase().contains("if-none-match: \"v1\"") {
                "HTTP/1.1 304 Not Modified\r\nConnection: close\r\n\r\n".to_string()
            } else {
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/x-ipynb+json\r\nETag: \"v1\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
            };
            let _ = stream.write_all(answer.as_bytes());
            heads.push(head);
        }
        heads
    });
    (url, handle)
}

#[test]
fn a_notebook_is_downloaded_as_fetch_downloads_and_not_again_when_unchanged() {
    let p = Project::seeded();
    let (url, server) = notebook_server(notebook(vec![code("a", "print(1)")]), 2);
    let out = p
        .cmd()
        .args(["notebook", "add", "06", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("stored notebooks/0002-")
            && stdout(&out).contains(&format!("from {url}")),
        "{}",
        stdout(&out)
    );
    let before = p.state();
    let out = p
        .cmd()
        .args(["notebook", "add", "06", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "unchanged: the server answered 304 Not Modified; nothing written\n"
    );
    assert_eq!(p.state(), before);
    let heads = server.join().unwrap();
    assert!(
        heads[1].to_lowercase().contains("if-none-match: \"v1\""),
        "{heads:?}"
    );
    // A server that is not there: one line, exit 2.
    p.expect(["notebook", "add", "06", &url])
        .code(2)
        .stderr_has("could not connect to 127.0.0.1")
        .run();
}

#[test]
fn chapter_new_takes_a_notebook_and_writes_nothing_when_it_is_not_one() {
    let p = Project::seeded();
    p.write("07.txt", "A chapter with no tables.");
    p.write("bad.ipynb", "[]");
    let before = p.state();
    let new = |nb: &str| {
        p.cmd()
            .args([
                "chapter",
                "new",
                "systems-notes/07",
                "07.txt",
                "--title",
                "Queues",
            ])
            .args(["--book-title", "Systems Notes", "--notebook", nb])
            .output()
            .unwrap()
    };
    let out = new("bad.ipynb");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("bad.ipynb: not a Jupyter notebook: the JSON is not an object"),
        "{}",
        stderr(&out)
    );
    assert_eq!(p.state(), before, "no chapter folder, no book folder");
    p.write("07.ipynb", notebook(vec![code("a", "print(1)")]));
    let out = new("07.ipynb");
    assert!(out.status.success(), "{}", stderr(&out));
    let stored = p.path("book-snapshots/systems-notes/07/notebooks.yaml");
    assert!(
        std::fs::read_to_string(stored)
            .unwrap()
            .contains("source: 07.ipynb\n")
    );
    // Its notebook entry names a file, so there is nothing to download.
    p.expect(["notebook", "add", "07"]).code(2).stderr_has("systems-notes/07: chapter.yaml's notebook entry names '07.ipynb', which is not a URL to download; give the notebook's FILE").run();
    // A chapter without a notebook entry says so.
    let out = p
        .cmd()
        .args([
            "chapter",
            "new",
            "systems-notes/08",
            "07.txt",
            "--title",
            "Q",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    p.expect(["notebook", "add", "08"])
        .code(2)
        .stderr_has("chapter.yaml lists no notebook")
        .run();
}

/// Drops chapter 06's notebook claims (claims.yaml's `notebook_claims:`,
/// its last key): they read cells of the chapter's published notebook, and
/// a test that stores a notebook of its own for the chapter would have
/// `notebook run` and `reproduce` refuse them (a read of a cell the
/// notebook lacks) before any kernel starts.
pub fn without_notebook_claims(p: &Project) {
    let path = p.path("book-snapshots/pytorch-from-first-principles/06/claims.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    if let Some(at) = text.find("\nnotebook_claims:") {
        std::fs::write(&path, &text[..=at]).unwrap();
    }
}
