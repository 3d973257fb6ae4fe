//! Secrets and trust boundaries: `fetch` keeps to the origin it was asked
//! for, validators it cannot send again are not kept, and no URL the tool
//! writes or prints carries a password, a token or a signature, wherever
//! it came from (the command line, chapter.yaml, a git remote, a record
//! from another machine, a report).

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::helpers::{CHAPTER, Project, files_under, stderr, stdout};

/// Status, headers and body.
type Answer = (u16, Vec<(String, String)>, Vec<u8>);
type Route = Arc<dyn Fn(&str) -> Answer + Send + Sync>;

/// An HTTP/1.1 server on 127.0.0.1 whose routes may name another server's
/// port; it keeps every request's head, and refuses one with a header line
/// over 8 KiB with 431, as real servers do.
struct Server {
    port: u16,
    heads: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(route: Route) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let log = heads.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (log, route) = (log.clone(), route.clone());
                std::thread::spawn(move || serve(stream, &*route, &log));
            }
        });
        Server { port, heads }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn requests(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

fn serve(
    mut stream: TcpStream,
    route: &(dyn Fn(&str) -> Answer + Send + Sync),
    log: &Mutex<Vec<String>>,
) {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut head = String::new();
    let mut too_long = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        too_long |= line.len() > 8192;
        head.push_str(&line);
    }
    log.lock().unwrap().push(head.clone());
    let path = head.split(' ').nth(1).unwrap_or("/").to_string();
    let (status, headers, body) = if too_long {
        (431, vec![], b"header too large".to_vec())
    } else {
        route(&path)
    };
    crate::helpers::answer_http(&mut stream, &mut reader, status, headers, &body);
}

fn text(body: &str, extra: &[(&str, String)]) -> Answer {
    let mut headers = vec![("Content-Type".to_string(), "text/plain".to_string())];
    headers.extend(extra.iter().map(|(k, v)| (k.to_string(), v.clone())));
    (200, headers, body.as_bytes().to_vec())
}

fn redirect(to: String) -> Answer {
    (302, vec![("Location".into(), to)], Vec::new())
}

const ADMIN: &str = "The admin page of another service: do not store me.\n";
const CHAPTER_TEXT: &str = "The complete chapter, as the book's site serves it.\n";

/// An admin service on one port, and the book's site on another, whose
/// `/redir-admin` sends the client over to the admin page (with a token in
/// its query), `/to-localhost` to the same port under another host name,
/// and `/moved` to another path of its own origin.
fn two_origins() -> (Server, Server) {
    let admin = Server::start(Arc::new(|path: &str| match path {
        p if p.starts_with("/admin") => text(ADMIN, &[]),
        _ => (404, vec![], b"no".to_vec()),
    }));
    let admin_port = admin.port;
    let site_port = Arc::new(Mutex::new(0u16));
    let port = site_port.clone();
    let site = Server::start(Arc::new(move |path: &str| match path {
        "/redir-admin" => redirect(format!(
            "http://127.0.0.1:{admin_port}/admin?token=hunter2&page=1"
        )),
        "/to-localhost" => redirect(format!("http://localhost:{}/chapter", port.lock().unwrap())),
        "/moved" => redirect("/chapter".into()),
        "/chapter" => text(CHAPTER_TEXT, &[]),
        _ => (404, vec![], b"no".to_vec()),
    }));
    *site_port.lock().unwrap() = site.port;
    (site, admin)
}

#[test]
fn a_redirect_to_another_port_or_host_is_refused_and_nothing_is_stored() {
    let (site, admin) = two_origins();
    let p = Project::seeded();
    let before = p.state();
    let out = p
        .expect(["fetch", "06", "--url", &site.url("/redir-admin")])
        .code(2)
        .run();
    let err = out.stderr();
    assert!(err.contains("another host or port"), "{err}");
    assert!(
        err.contains(&site.url("/redir-admin")),
        "names where it started: {err}"
    );
    assert!(
        err.contains(&format!("http://127.0.0.1:{}/admin?page=1", admin.port)),
        "names where it went, without the token: {err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
    assert!(err.contains("--follow-redirects-anywhere"), "{err}");
    assert!(
        admin.requests().is_empty(),
        "the other origin was never asked"
    );
    assert_eq!(p.state(), before, "nothing stored");
    // Another host name for the same port is another origin too.
    p.expect(["fetch", "06", "--url", &site.url("/to-localhost")])
        .code(2)
        .stderr_has("http://localhost:")
        .run();
    assert_eq!(p.state(), before);
}

#[test]
fn a_redirect_within_the_origin_is_followed_and_the_output_says_where_it_went() {
    let (site, _admin) = two_origins();
    let p = Project::seeded();
    let out = p
        .cmd()
        .args(["fetch", "06", "--url", &site.url("/moved")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "redirected: {} -> {}",
            site.url("/moved"),
            site.url("/chapter")
        )),
        "{text}"
    );
}

#[test]
fn following_redirects_anywhere_is_the_authors_choice_by_flag_or_chapter_yaml() {
    let (site, admin) = two_origins();
    let p = Project::seeded();
    let out = p
        .cmd()
        .args(["fetch", "06", "--follow-redirects-anywhere", "--url"])
        .arg(site.url("/redir-admin"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let shown = stdout(&out);
    assert!(
        shown.contains(&format!("-> http://127.0.0.1:{}/admin?page=1", admin.port)),
        "{shown}"
    );
    assert!(!shown.contains("hunter2"), "{shown}");
    let state = std::fs::read_to_string(p.chapter_dir().join("snapshots.yaml")).unwrap();
    assert!(state.contains("/admin?page=1"), "{state}");
    assert!(
        !state.contains("hunter2"),
        "no token in snapshots.yaml: {state}"
    );

    // The same, said once in chapter.yaml for a chapter whose site moved.
    let p = Project::seeded();
    let manifest = p.chapter_dir().join("chapter.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let mut doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    doc["chapter"]["snapshot_redirects"] = "anywhere".into();
    std::fs::write(&manifest, serde_yaml::to_string(&doc).unwrap()).unwrap();
    let show = p.cmd().args(["chapter", "show", "06"]).output().unwrap();
    assert!(
        stdout(&show).contains("Snapshot redirects:     anywhere"),
        "{}{}",
        stdout(&show),
        stderr(&show)
    );
    let out = p
        .cmd()
        .args(["fetch", "06", "--url", &site.url("/redir-admin")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn an_oversized_validator_is_not_stored_and_never_breaks_the_next_fetch() {
    let huge = format!("\"{}\"", "e".repeat(100 * 1024));
    let tag = huge.clone();
    let server = Server::start(Arc::new(move |path: &str| match path {
        "/big-etag" => text(CHAPTER_TEXT, &[("ETag", tag.clone())]),
        _ => (404, vec![], b"no".to_vec()),
    }));
    let p = Project::seeded();
    let url = server.url("/big-etag");
    let out = p
        .cmd()
        .args(["fetch", "06", "--url", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("server's ETag (102402 bytes, more than the 1024-byte limit) was not stored"),
        "{err}"
    );
    let state = std::fs::read_to_string(p.chapter_dir().join("snapshots.yaml")).unwrap();
    assert!(!state.contains("eeee"), "{state}");
    // The next fetch of the same URL sends nothing oversized and works.
    let out = p
        .cmd()
        .args(["fetch", "06", "--url", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("unchanged"), "{}", stdout(&out));
    assert!(server.requests().iter().all(|h| h.len() < 8192));

    // A validator written into snapshots.yaml by hand (or by an older
    // version) that cannot be sent again is left out of the request.
    let path = p.chapter_dir().join("snapshots.yaml");
    let state = std::fs::read_to_string(&path).unwrap();
    let edited = state.replace(
        "fetch:\n",
        &format!("fetch:\n  etag: '{}'\n", "x".repeat(5000)),
    );
    assert_ne!(edited, state, "{state}");
    std::fs::write(&path, edited).unwrap();
    let asked = server.requests().len();
    let out = p
        .cmd()
        .args(["fetch", "06", "--url", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("stored ETag (5000 bytes, more than the 1024-byte limit) was not sent"),
        "{}",
        stderr(&out)
    );
    let last = &server.requests()[asked];
    assert!(
        !last.to_ascii_lowercase().contains("if-none-match"),
        "{last}"
    );
}

/// Every file under `dir` as text (binary files skipped).
fn all_text(dir: &std::path::Path) -> String {
    files_under(dir)
        .into_iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect()
}

const SECRETS: [&str; 6] = [
    "pw888",
    "carol",
    "tok-111",
    "sig-222",
    "key-333",
    "glpat-444",
];

fn assert_no_secret(what: &str, text: &str) {
    for s in SECRETS {
        assert!(!text.contains(s), "{what} shows {s}: {text}");
    }
}

#[test]
fn chapter_new_writes_no_credentials_into_chapter_yaml() {
    let p = Project::seeded();
    p.write("ch.txt", "Some prose of a chapter.\n");
    let out = p
        .cmd()
        .args(crate::helpers::NEW_NOTES_CHAPTER)
        .args(["--url", "https://carol:pw888@example.com/notes/01/"])
        .args([
            "--research-pack-url",
            "https://example.com/r?access_token=tok-111&lang=en",
        ])
        .args([
            "--snapshot-url",
            "https://example.com/t.txt?X-Amz-Signature=sig-222&X-Amz-Credential=key-333",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("credentials and secret parameters were left out"),
        "{}",
        stdout(&out)
    );
    let yaml = std::fs::read_to_string(p.path("book-snapshots/notes/01/chapter.yaml")).unwrap();
    assert_no_secret("chapter.yaml", &yaml);
    assert!(
        yaml.contains("url: https://example.com/notes/01/"),
        "{yaml}"
    );
    assert!(
        yaml.contains("research_pack_url: https://example.com/r?lang=en"),
        "{yaml}"
    );
}

/// Chapter 06 with secrets written into chapter.yaml by hand (the file is
/// the author's), a git remote with a token, and a record from another
/// machine whose remote kept one.
fn project_with_secrets() -> Project {
    let p = Project::with_fixture_records();
    let manifest = p.chapter_dir().join("chapter.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let mut doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    doc["chapter"]["url"] = "https://carol:pw888@example.com/ch06/".into();
    doc["chapter"]["research_pack_url"] = "https://example.com/r06?token=tok-111".into();
    doc["chapter"]["snapshot_url"] = "https://example.com/06.txt?sig=sig-222".into();
    doc["references"] =
        serde_yaml::from_str("- {title: A paper, url: 'https://example.com/p?api_key=key-333'}")
            .unwrap();
    std::fs::write(&manifest, serde_yaml::to_string(&doc).unwrap()).unwrap();
    let record = p.path(&format!(
        "records/{CHAPTER}/20261102T120000-bbbbbbbbbbbb.record.yaml"
    ));
    let text = std::fs::read_to_string(&record).unwrap();
    let text = text.replacen(
        "git:\n",
        "git:\n  repository: https://gitlab.com/o/r.git?private_token=glpat-444\n",
        1,
    );
    assert!(text.contains("glpat-444"));
    std::fs::write(&record, text).unwrap();
    p
}

#[test]
fn a_url_no_parser_can_read_is_refused_without_its_secret() {
    let p = Project::seeded();
    p.write("ch.txt", "Some text of a new chapter.\n");
    let before = p.state();
    for args in [
        vec![
            "chapter",
            "new",
            "nu/31",
            "ch.txt",
            "--title",
            "X",
            "--url",
            "https://carol:pw888@exa mple.com/?token=secret",
        ],
        vec![
            "chapter",
            "new",
            "nu/32",
            "ch.txt",
            "--title",
            "X",
            "--snapshot-url",
            "https://carol:pw888@host:99999/c.txt?token=secret",
        ],
        vec![
            "fetch",
            "06",
            "--url",
            "http://carol:pw888@[::1/x?token=secret",
        ],
        vec![
            "notebook",
            "add",
            "06",
            "https://carol:pw888@[zz/nb.ipynb?token=secret",
        ],
    ] {
        let out = p.expect(&args).code(2).run();
        let err = out.stderr();
        assert!(err.contains("URL"), "{args:?}: {err}");
        assert!(
            !err.contains("pw888") && !err.contains("secret") && !out.stdout().contains("pw888"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(p.state(), before, "nothing stored");
}

#[test]
fn no_url_printed_or_published_keeps_a_secret() {
    let p = project_with_secrets();
    for args in [
        vec!["chapter", "show", "06"],
        vec!["chapter", "show", "06", "--format", "yaml"],
        vec!["chapter", "show", "06", "--format", "json"],
        vec!["prompt", "06"],
        vec!["report", "06"],
        vec!["publish", "06"],
    ] {
        let out = p
            .cmd()
            .args(&args)
            .env("RESEARCH_COMPANION_NOW", "2026-12-01T00:00:00Z")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_no_secret(&format!("{args:?}"), &stdout(&out));
        assert_no_secret(&format!("{args:?} (stderr)"), &stderr(&out));
    }
    let out = p.cmd().args(["chapter", "show", "06"]).output().unwrap();
    assert!(
        stdout(&out).contains("https://example.com/ch06/"),
        "{}",
        stdout(&out)
    );
    let out = p.cmd().args(["site", "--out", "site"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_no_secret("the site", &all_text(&p.path("site")));
    let out = p
        .cmd()
        .args(["publish", "--site", "book-site"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_no_secret("the site data", &all_text(&p.path("book-site")));
}

#[test]
fn a_git_remote_keeps_no_token_in_its_query() {
    let p = Project::seeded();
    let repo = git2::Repository::init(p.root()).unwrap();
    repo.remote(
        "origin",
        "https://gitlab.com/books/r.git?private_token=glpat-444&access_token=tok-111",
    )
    .unwrap();
    p.record_fixture_run();
    let records = all_text(&p.path("records"));
    assert!(
        records.contains("repository: https://gitlab.com/books/r.git\n"),
        "{records}"
    );
    assert_no_secret("the record", &records);
}
