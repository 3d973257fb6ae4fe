//! Small helpers: a temporary project root seeded from the fixtures under
//! tests/fixtures/ (never from the working tree's book-snapshots/ or
//! records/, which are the user's), and a way to run the binary inside it.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub const CHAPTER: &str = "pytorch-from-first-principles/06";

static EXCLUSIVE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Tests that measure timing (benchmarks pin themselves to one CPU) and tests
/// that load the machine (many processes at once) take turns, so that one
/// does not skew the other's numbers.
pub fn exclusive() -> std::sync::MutexGuard<'static, ()> {
    EXCLUSIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A temporary project root, removed when dropped.
pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    /// A project holding the fixture book (chapter 06's excerpt, as the
    /// repository first shipped it) and nothing else.
    pub fn seeded() -> Self {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(
            &fixtures().join("book-snapshots"),
            &dir.path().join("book-snapshots"),
        );
        Project { dir }
    }

    /// A seeded project with the fixture records (one research run, one
    /// experiment with its run file).
    pub fn with_fixture_records() -> Self {
        let p = Project::seeded();
        let from = fixtures().join(format!("records/{CHAPTER}"));
        let to = p.path(&format!("records/{CHAPTER}"));
        std::fs::create_dir_all(&to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
        p
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn chapter_dir(&self) -> PathBuf {
        self.path(&format!("book-snapshots/{CHAPTER}"))
    }

    /// The binary, run with this root and a quiet environment.
    pub fn cmd(&self) -> Command {
        let mut cmd = Command::cargo_bin("research_companion").unwrap();
        cmd.current_dir(self.root())
            .env("RESEARCH_COMPANION_ROOT", self.root())
            .env_remove("RUST_LOG");
        cmd
    }

    /// Every file under the root with its bytes, to prove nothing changed.
    pub fn state(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut all = Vec::new();
        walk(self.root(), &mut all);
        all.sort();
        all
    }

    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

/// Names a copy of the repository for the tests to read instead of this
/// one: how `own_fixtures` runs the suite beside a user's own chapters.
pub const REPO_OVERRIDE: &str = "RESEARCH_COMPANION_TEST_REPO";

/// The repository the tests read their fixtures, README.md and templates
/// from: this crate's folder, unless [`REPO_OVERRIDE`] names another.
pub fn repo() -> PathBuf {
    std::env::var_os(REPO_OVERRIDE)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// The tests' own data: a project of one book and its fixture records.
pub fn fixtures() -> PathBuf {
    repo().join("tests/fixtures")
}

/// Copies the folder `from` to `to`, every file byte for byte.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn walk(dir: &Path, all: &mut Vec<(PathBuf, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        // The cache of record reads is a shortcut, not something stored.
        if e.file_name() == ".research-companion-cache" {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            walk(&e.path(), all);
        } else {
            all.push((e.path(), std::fs::read(e.path()).unwrap()));
        }
    }
}

/// Standard output of a finished command as text.
pub fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Standard error of a finished command as text.
pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The run id from `record`'s first line: `recorded <run id> (<kind>)`.
pub fn recorded_id(out: &std::process::Output) -> String {
    let text = stdout(out);
    let first = text.lines().next().unwrap_or_default();
    first
        .split(' ')
        .nth(1)
        .unwrap_or_else(|| panic!("not a record line: {first}"))
        .to_string()
}

impl Project {
    /// Runs `record 06 <args>`, which must succeed; returns the run id.
    pub fn record(&self, args: &[&str]) -> String {
        let out = self
            .cmd()
            .args(["record", "06"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "record {args:?}: {}", stderr(&out));
        recorded_id(&out)
    }

    /// chapter.yaml of chapter 06 as JSON, through `chapter show`.
    pub fn manifest(&self) -> serde_json::Value {
        let out = self
            .cmd()
            .args(["chapter", "show", "06", "--format", "json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

/// The bytes of a file of the fixture records of chapter 06.
pub fn fixture_record_file(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(format!("records/{CHAPTER}/{name}"))).unwrap()
}

/// The fixture experiment's run file.
pub const FIXTURE_RUN: &str = "20261102T120000-bbbbbbbbbbbb.run.yaml";

/// Every file under `dir`, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    walk(dir, &mut all);
    let mut paths: Vec<PathBuf> = all.into_iter().map(|(p, _)| p).collect();
    paths.sort();
    paths
}

impl Project {
    /// Records the fixture run file as an experiment of chapter 06 (copied to
    /// `r.run.yaml` first); returns the run id.
    pub fn record_fixture_run(&self) -> String {
        let run = self.write("r.run.yaml", fixture_record_file(FIXTURE_RUN));
        self.record(&["--run", run.to_str().unwrap()])
    }

    /// Registers chapter `key` (`book/chapter`) from `text` with `chapter
    /// new`; `book_title` for the first chapter of a new book.
    pub fn new_chapter(&self, key: &str, text: &str, title: &str, book_title: Option<&str>) {
        let file = format!("{}.txt", key.replace('/', "-"));
        self.write(&file, text);
        let mut cmd = self.cmd();
        cmd.args(["chapter", "new", key, &file, "--title", title]);
        if let Some(b) = book_title {
            cmd.args(["--book-title", b]);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "chapter new {key}: {}", stderr(&out));
    }
}

/// A filled research report of chapter 06 kept under tests/fixtures/reports/
/// (`review-06.md`: two sources, one an arXiv paper the ledger says was not
/// used; an UNVERIFIED mark in a claim-audit cell; findings with
/// "Contradictory: none that I trust"; an UNRUN experiment).
pub fn fixture_report(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(format!("reports/{name}"))).unwrap()
}

/// The run id's stem (`20261130T095707-88be8da63de1`) and the time it
/// names as the site data writes it (`2026-11-30T09:57:07+00:00`).
pub fn run_stem_and_time(run_id: &str) -> (String, String) {
    let parts: Vec<&str> = run_id.rsplitn(3, ':').collect();
    let (hex, stamp) = (parts[0], parts[1]);
    let iso = format!(
        "{}-{}-{}T{}:{}:{}+00:00",
        &stamp[0..4],
        &stamp[4..6],
        &stamp[6..8],
        &stamp[9..11],
        &stamp[11..13],
        &stamp[13..15]
    );
    (format!("{stamp}-{hex}"), iso)
}

/// Writes one HTTP/1.1 answer on a test server's connection and closes
/// it: the status, `Content-Length`, the headers, the body; then reads
/// what the client still sends, so it sees the whole answer.
pub fn answer_http<K: std::fmt::Display, V: std::fmt::Display>(
    stream: &mut impl std::io::Write,
    reader: &mut impl std::io::Read,
    status: u16,
    headers: impl IntoIterator<Item = (K, V)>,
    body: &[u8],
) {
    let mut out = format!(
        "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let _ = stream.write_all(out.as_bytes());
    let _ = stream.write_all(body);
    let _ = stream.flush();
    let mut rest = Vec::new();
    let _ = reader.read_to_end(&mut rest);
}

/// `chapter new` of a first chapter of a new book, `notes/01`, from
/// `ch.txt` (which the test writes).
pub const NEW_NOTES_CHAPTER: [&str; 8] = [
    "chapter",
    "new",
    "notes/01",
    "ch.txt",
    "--title",
    "T",
    "--book-title",
    "B",
];

/// Marks an experiment record as made by the measurement this tool makes
/// today: the fixture run file names no engine model, and records copied
/// from the fixtures were made before windows, so both read as earlier
/// measurements, which are never compared across environments.
pub fn as_todays_measurement(record: &Path) {
    let text = std::fs::read_to_string(record).unwrap();
    let mut doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let mut by = serde_yaml::Mapping::new();
    by.insert("engine".into(), "embedded".into());
    by.insert(
        "engine_model".into(),
        research_companion::bench::calibration::ENGINE_MODEL.into(),
    );
    by.insert("window".into(), "steady-state".into());
    doc["experiment"]["measured_by"] = serde_yaml::Value::Mapping(by);
    std::fs::write(record, serde_yaml::to_string(&doc).unwrap()).unwrap();
}

/// A stand-in for Python: an executable `fake-python` in the project root,
/// a shell script running `body`.
pub fn fake_python(p: &Project, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = p.write("fake-python", format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// One run of the binary in a project and what it must show, checked
/// together (the model is just's `Test::new().args(..).stdout(..)`):
///
/// ```ignore
/// let out = p.expect(["status", "06"]).code(0).stdout_has("06").run();
/// let text = out.stdout();
/// ```
///
/// A failed check names the arguments and prints both streams.
pub struct Expect {
    cmd: Command,
    args: Vec<String>,
    code: Option<i32>,
    stdout_has: Vec<String>,
    stderr_has: Vec<String>,
}

impl Project {
    /// The binary with `args`, to be checked by [`Expect::run`].
    pub fn expect<I, S>(&self, args: I) -> Expect
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        Expect {
            cmd: self.cmd(),
            args: Vec::new(),
            code: None,
            stdout_has: Vec::new(),
            stderr_has: Vec::new(),
        }
        .args(args)
    }
}

impl Expect {
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        for a in args {
            self.args.push(a.as_ref().to_string_lossy().into_owned());
            self.cmd.arg(a);
        }
        self
    }

    pub fn arg(self, arg: impl AsRef<std::ffi::OsStr>) -> Self {
        self.args([arg])
    }

    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Self {
        self.cmd.env(key, value);
        self
    }

    /// The exit code it must end with.
    pub fn code(mut self, code: i32) -> Self {
        self.code = Some(code);
        self
    }

    /// Exit code 0.
    pub fn success(self) -> Self {
        self.code(0)
    }

    /// Text its standard output must contain.
    pub fn stdout_has(mut self, text: impl Into<String>) -> Self {
        self.stdout_has.push(text.into());
        self
    }

    /// Text its standard error must contain.
    pub fn stderr_has(mut self, text: impl Into<String>) -> Self {
        self.stderr_has.push(text.into());
        self
    }

    /// Runs it and checks every expectation.
    pub fn run(mut self) -> Ran {
        let out = self.cmd.output().unwrap();
        let ran = Ran { out };
        let (text, err) = (ran.stdout(), ran.stderr());
        let args = self.args.join(" ");
        let both = format!("--- stdout:\n{text}\n--- stderr:\n{err}");
        if let Some(code) = self.code {
            assert_eq!(ran.code(), Some(code), "exit code of `{args}`\n{both}");
        }
        for want in &self.stdout_has {
            assert!(
                text.contains(want.as_str()),
                "`{args}`: no {want:?} in stdout\n{both}"
            );
        }
        for want in &self.stderr_has {
            assert!(
                err.contains(want.as_str()),
                "`{args}`: no {want:?} in stderr\n{both}"
            );
        }
        ran
    }
}

/// A finished run of the binary.
pub struct Ran {
    pub out: std::process::Output,
}

impl Ran {
    pub fn stdout(&self) -> String {
        stdout(&self.out)
    }

    pub fn stderr(&self) -> String {
        stderr(&self.out)
    }

    pub fn code(&self) -> Option<i32> {
        self.out.status.code()
    }
}
