//! `fetch` against a server the test starts on 127.0.0.1.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use predicates::prelude::*;

use crate::helpers::{CHAPTER, Project, stderr, stdout};

/// What a route answers: status, headers, body.
type Answer = (u16, Vec<(&'static str, String)>, Vec<u8>);

/// A one-thread HTTP/1.1 server on 127.0.0.1 that answers by path. It
/// records every request's headers so tests can check what was sent.
struct Server {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(route: fn(&str, &str) -> Answer) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = log.clone();
                std::thread::spawn(move || serve(stream, route, &log));
            }
        });
        Server { port, requests }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

fn serve(mut stream: TcpStream, route: fn(&str, &str) -> Answer, log: &Mutex<Vec<String>>) {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    log.lock().unwrap().push(head.clone());
    let path = head.split(' ').nth(1).unwrap_or("/").to_string();
    if path == "/drip" {
        // Headers at once, then one byte a second: only a deadline on the
        // whole request stops the reader.
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n",
        );
        for _ in 0..100 {
            if stream
                .write_all(b"x")
                .and_then(|()| stream.flush())
                .is_err()
            {
                return;
            }
            std::thread::sleep(Duration::from_secs(1));
        }
        return;
    }
    let (status, headers, body) = route(&path, &head);
    if path == "/slow" {
        std::thread::sleep(Duration::from_secs(3));
    }
    crate::helpers::answer_http(&mut stream, &mut reader, status, headers, &body);
}

const NEW_TEXT: &str = "The complete chapter 06, revised.\nIt has more than the excerpt.\n";

fn text(body: &str) -> Answer {
    (
        200,
        vec![
            ("Content-Type", "text/plain; charset=utf-8".into()),
            ("ETag", "\"v2\"".into()),
        ],
        body.as_bytes().to_vec(),
    )
}

fn route(path: &str, head: &str) -> Answer {
    let excerpt = std::fs::read_to_string(crate::helpers::fixtures().join(format!(
        "book-snapshots/{CHAPTER}/snapshots/0001-a7d34947a6b4.txt"
    )))
    .unwrap();
    match path {
        "/new" | "/slow" => text(NEW_TEXT),
        // The same prose, re-wrapped: the fingerprint does not change.
        "/same" => text(&excerpt.replace('\n', "\r\n  ")),
        "/cond" if head.to_ascii_lowercase().contains("if-none-match: \"v2\"") => {
            (304, vec![], vec![])
        }
        "/cond" => {
            let (status, mut headers, body) = text(NEW_TEXT);
            headers.push(("Last-Modified", "Mon, 30 Nov 2026 09:00:00 GMT".into()));
            (status, headers, body)
        }
        "/404" => (404, vec![], b"missing".to_vec()),
        "/500" => (500, vec![], b"boom".to_vec()),
        "/r1" => (302, vec![("Location", "/r2".into())], vec![]),
        "/r2" => (301, vec![("Location", "/r3".into())], vec![]),
        "/r3" => (307, vec![("Location", "/new".into())], vec![]),
        "/loop" => (302, vec![("Location", "/loop".into())], vec![]),
        "/big" => text(&"x".repeat(4096)),
        "/latin1" => (
            200,
            vec![("Content-Type", "text/plain".into())],
            b"caf\xe9 au lait".to_vec(),
        ),
        "/html" => (
            200,
            vec![("Content-Type", "text/html".into())],
            b"<!doctype html><p>hi</p>".to_vec(),
        ),
        "/sneaky-html" => (
            200,
            vec![("Content-Type", "text/plain".into())],
            b"<!DOCTYPE html>\n<html></html>".to_vec(),
        ),
        "/short-html" => text("<html>x</html>"),
        "/html-mb" => text(&format!("<html>{}", "\u{e9}".repeat(20))),
        "/bom-html" => text("\u{feff}<!DOCTYPE html>\n<p>hi</p>"),
        "/comment-html" => text("<!-- c --><html><p>hi</p></html>"),
        "/head" => text("  <head><title>t</title></head>"),
        "/empty" => text(""),
        "/blank" => text(" \n\t \r\n"),
        "/json" => (
            200,
            vec![("Content-Type", "application/json".into())],
            b"{}".to_vec(),
        ),
        _ => (404, vec![], vec![]),
    }
}

fn fetch(p: &Project, url: &str, extra: &[&str]) -> std::process::Output {
    p.cmd()
        .args(["fetch", "06", "--url", url])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn new_text_is_stored_as_the_current_complete_snapshot_and_research_goes_stale() {
    let server = Server::start(route);
    let p = Project::seeded();
    p.write("report.md", crate::records::FULL_REPORT);
    p.record(&["--report", "report.md"]);
    // The author's chapter.yaml, comments and all, is never rewritten.
    let manifest = p.chapter_dir().join("chapter.yaml");
    let mut mine = std::fs::read_to_string(&manifest).unwrap();
    mine.insert_str(0, "# kept by hand\n");
    std::fs::write(&manifest, &mine).unwrap();
    let out = fetch(&p, &server.url("/new"), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), mine);
    let s = stdout(&out);
    assert!(s.contains("it is now current"), "{s}");
    assert!(s.contains("research runs now STALE (1):"), "{s}");
    assert!(s.contains("published fingerprint: differs"), "{s}");
    let m = p.manifest();
    let snaps = m["snapshots"].as_array().unwrap();
    assert_eq!(snaps.len(), 2);
    assert_eq!(snaps[1]["scope"], "complete");
    assert_eq!(snaps[1]["source"], server.url("/new"));
    assert_eq!(m["fetch"]["etag"], "\"v2\"");
    assert_eq!(
        std::fs::read_to_string(p.chapter_dir().join(snaps[1]["file"].as_str().unwrap())).unwrap(),
        NEW_TEXT
    );
    p.cmd()
        .arg("status")
        .assert()
        .stdout(predicate::str::contains("STALE"));
    // It names itself to the server.
    let sent = server
        .requests
        .lock()
        .unwrap()
        .join("\n")
        .to_ascii_lowercase();
    assert!(
        sent.contains(&format!(
            "user-agent: research_companion/{}",
            env!("CARGO_PKG_VERSION")
        )),
        "{sent}"
    );
}

#[test]
fn a_chapter_with_no_published_fingerprint_is_not_said_to_differ_from_one() {
    let server = Server::start(route);
    let p = Project::seeded();
    p.write(
        "ch.txt",
        "The first text of a chapter with nothing published.\n",
    );
    p.cmd()
        .args(crate::helpers::NEW_NOTES_CHAPTER)
        .assert()
        .success();
    let out = p
        .cmd()
        .args(["fetch", "notes/01", "--url", &server.url("/new")])
        .output()
        .unwrap();
    let s = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        s.contains(
            "published fingerprint: none published (chapter.yaml gives no published_fingerprint)"
        ),
        "{s}"
    );
}

#[test]
fn unchanged_text_and_not_modified_write_nothing() {
    let server = Server::start(route);
    let p = Project::seeded();
    let before = p.state();
    let out = fetch(&p, &server.url("/same"), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("unchanged: the fetched text has the current snapshot's fingerprint")
    );
    assert_eq!(p.state(), before);
    // A first conditional fetch stores the text and its ETag; the second
    // sends If-None-Match and gets 304.
    assert!(fetch(&p, &server.url("/cond"), &[]).status.success());
    let before = p.state();
    let out = fetch(&p, &server.url("/cond"), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sent = server
        .requests
        .lock()
        .unwrap()
        .last()
        .unwrap()
        .to_ascii_lowercase();
    assert!(sent.contains("if-none-match: \"v2\""), "{sent}");
    assert!(
        sent.contains("if-modified-since: mon, 30 nov 2026 09:00:00 gmt"),
        "{sent}"
    );
    assert!(
        stdout(&out).contains("304 Not Modified; nothing written"),
        "{}",
        stdout(&out)
    );
    assert_eq!(p.state(), before);
}

#[test]
fn a_short_redirect_chain_is_followed() {
    let server = Server::start(route);
    let p = Project::seeded();
    let out = fetch(&p, &server.url("/r1"), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("from {}", server.url("/new"))),
        "{}",
        stdout(&out)
    );
}

#[test]
fn every_failure_is_one_clear_line_and_writes_nothing() {
    let server = Server::start(route);
    let p = Project::seeded();
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let before = p.state();
    let cases: Vec<(String, Vec<&str>, String)> = vec![
        (
            server.url("/404"),
            vec![],
            format!("HTTP 404 Not Found from {}", server.url("/404")),
        ),
        (
            server.url("/500"),
            vec![],
            format!("HTTP 500 Internal Server Error from {}", server.url("/500")),
        ),
        (
            server.url("/loop"),
            vec![],
            "too many redirects or a redirect loop".into(),
        ),
        (
            server.url("/slow"),
            vec!["--timeout", "1"],
            "timed out".into(),
        ),
        (
            server.url("/big"),
            vec!["--max-bytes", "1000"],
            "larger than the 1000-byte limit (raise it with --max-bytes)".into(),
        ),
        (
            server.url("/latin1"),
            vec![],
            "not valid UTF-8 at byte offset 3".into(),
        ),
        (
            server.url("/html"),
            vec![],
            "sent HTML (text/html) where a plain-text snapshot was expected".into(),
        ),
        (
            server.url("/sneaky-html"),
            vec![],
            "sent an HTML page where a plain-text snapshot was expected".into(),
        ),
        (
            server.url("/json"),
            vec![],
            "sent application/json, not text".into(),
        ),
        (
            server.url("/drip"),
            vec!["--timeout", "2"],
            "timed out after 2 s (the whole request, body included)".into(),
        ),
        (server.url("/empty"), vec![], "sent an empty body".into()),
        (server.url("/blank"), vec![], "sent an empty body".into()),
        (
            server.url("/short-html"),
            vec![],
            "sent an HTML page where a plain-text snapshot was expected".into(),
        ),
        (server.url("/html-mb"), vec![], "sent an HTML page".into()),
        (server.url("/bom-html"), vec![], "sent an HTML page".into()),
        (
            server.url("/comment-html"),
            vec![],
            "sent an HTML page".into(),
        ),
        (server.url("/head"), vec![], "sent an HTML page".into()),
        (
            format!("http://127.0.0.1:{closed}/x"),
            vec![],
            "the host cannot be reached (is the machine offline?)".into(),
        ),
        (
            "ftp://127.0.0.1/x".into(),
            vec![],
            "only http and https are fetched".into(),
        ),
    ];
    for (url, extra, msg) in cases {
        let out = fetch(&p, &url, &extra);
        assert_eq!(out.status.code(), Some(2), "{url}");
        let e = stderr(&out);
        assert!(e.contains(&msg), "{url}: {e}");
        assert_eq!(e.lines().count(), 1, "one line: {e}");
    }
    assert_eq!(p.state(), before);
}

#[test]
fn fetch_numbers_out_of_range_are_refused_before_any_request() {
    let p = Project::seeded();
    let before = p.state();
    for (args, msg) in [
        (
            vec!["--timeout", "1e30"],
            "must be a number of seconds above 0 and at most 3600, got 1e30",
        ),
        (vec!["--connect-timeout", "1e20"], "got 1e20"),
        (vec!["--timeout", "0"], "got 0"),
        (vec!["--timeout", "NaN"], "got NaN"),
        (
            vec!["--max-bytes", "18446744073709551615"],
            "18446744073709551615 is not in 1..=1073741824",
        ),
        (vec!["--max-bytes", "0"], "0 is not in 1..=1073741824"),
    ] {
        let out = p
            .expect(["fetch", "06", "--url", "http://127.0.0.1:9/never"])
            .args(&args)
            .code(2)
            .run();
        let e = out.stderr();
        assert!(e.contains(msg), "{args:?}: {e}");
        assert!(!e.contains("panicked"), "{args:?}: {e}");
    }
    assert_eq!(p.state(), before);
}

#[test]
fn credentials_in_a_url_are_used_but_never_stored_or_shown() {
    let server = Server::start(route);
    let p = Project::seeded();
    let with_secret = server
        .url("/new")
        .replace("127.0.0.1", "reader:s3cret@127.0.0.1");
    let out = p
        .cmd()
        .args(["fetch", "06", "--url", &with_secret])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("s3cret"), "{}", stdout(&out));
    let manifest = std::fs::read_to_string(p.chapter_dir().join("chapter.yaml")).unwrap()
        + &std::fs::read_to_string(p.chapter_dir().join("snapshots.yaml")).unwrap();
    assert!(!manifest.contains("s3cret"), "{manifest}");
    assert!(manifest.contains(&server.url("/new")), "{manifest}");
    // The request carried them.
    let sent = server
        .requests
        .lock()
        .unwrap()
        .join("\n")
        .to_ascii_lowercase();
    assert!(sent.contains("authorization: basic"), "{sent}");
    // Nor do errors show them.
    let missing = server
        .url("/404")
        .replace("127.0.0.1", "reader:s3cret@127.0.0.1");
    let out = p.expect(["fetch", "06", "--url", &missing]).code(2).run();
    assert!(!out.stderr().contains("s3cret"), "{}", out.stderr());
    assert!(
        out.stderr().contains(&server.url("/404")),
        "{}",
        out.stderr()
    );
}
