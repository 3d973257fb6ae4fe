//! Input a hostile or clumsy user could give: data files that would exhaust
//! the machine, numbers that are not numbers, files that are not files, and
//! failures half way. Each answer is one clear line, exit 2 (or 1 where a
//! check failed), nothing hangs, and nothing stored changes.

use std::path::Path;
use std::time::{Duration, Instant};

use predicates::prelude::*;

use crate::helpers::{CHAPTER, Project, stderr, stdout};

/// Runs the binary with a hang guard (not a timing assertion: a hung run is
/// killed after a minute and the test then fails on its exit status).
pub(crate) fn run(p: &Project, args: &[&str]) -> std::process::Output {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_research_companion"))
        .args(args)
        .env("RESEARCH_COMPANION_ROOT", p.root())
        .current_dir(p.root())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = done.clone();
    std::thread::spawn(move || {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if flag.load(std::sync::atomic::Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // SAFETY: kill(2) on the child this test started.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    });
    let out = child.wait_with_output().unwrap();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    out
}

pub(crate) fn one_line_error(out: &std::process::Output, code: i32, needle: &str) {
    let e = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{e}");
    assert!(e.contains(needle), "wanted {needle:?} in: {e}");
    let errors: Vec<&str> = e.lines().filter(|l| l.contains("error")).collect();
    assert!(errors.len() <= 2, "{e}");
    assert!(errors.iter().all(|l| l.len() < 600), "a short line: {e}");
}

fn manifest(p: &Project) -> std::path::PathBuf {
    p.chapter_dir().join("chapter.yaml")
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C string and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[test]
fn an_alias_bomb_in_chapter_yaml_is_refused_naming_the_file() {
    let p = Project::seeded();
    let mut text = std::fs::read_to_string(manifest(&p)).unwrap();
    text.push_str(&format!("x-bomb: &b \"{}\"\n", "x".repeat(1 << 20)));
    text.push_str("x-list: [");
    text.push_str(&"*b, ".repeat(100_000));
    text.push_str("*b]\n");
    std::fs::write(manifest(&p), text).unwrap();
    let out = run(&p, &["chapter", "show", "06"]);
    one_line_error(&out, 2, "chapter.yaml: line");
    assert!(
        stderr(&out).contains("aliases expand beyond"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn deep_nesting_in_claims_is_refused_at_once() {
    let p = Project::seeded();
    let claims = p.chapter_dir().join("claims.yaml");
    let mut text = std::fs::read_to_string(&claims).unwrap();
    text.push_str(&format!(
        "x: {}{}\n",
        "[".repeat(200_000),
        "]".repeat(200_000)
    ));
    std::fs::write(&claims, text).unwrap();
    one_line_error(&run(&p, &["report", "06"]), 2, "claims.yaml: ");
}

#[test]
fn a_yaml_file_over_the_size_limit_is_refused() {
    let p = Project::seeded();
    let big = format!("# {}\n", "x".repeat(17 << 20));
    std::fs::write(p.path("run.yaml"), big).unwrap();
    one_line_error(
        &run(&p, &["diff", "run.yaml"]),
        2,
        "run.yaml: the file is larger than the 16777216-byte limit",
    );
}

#[test]
fn a_bom_before_yaml_is_read_like_any_file() {
    let p = Project::seeded();
    let text = std::fs::read(manifest(&p)).unwrap();
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend(text);
    std::fs::write(manifest(&p), with_bom).unwrap();
    p.cmd().args(["chapter", "show", "06"]).assert().success();
}

#[test]
fn yaml_errors_quote_a_short_excerpt_not_the_value() {
    let p = Project::seeded();
    let text = std::fs::read_to_string(manifest(&p)).unwrap();
    let long = "z".repeat(5_000_000);
    let text = text.replacen("  number: 6", &format!("  number: \"{long}\""), 1);
    std::fs::write(manifest(&p), text).unwrap();
    let out = run(&p, &["chapter", "show", "06"]);
    one_line_error(&out, 2, "field 'chapter.number'");
    assert!(stderr(&out).len() < 1000, "{} bytes", stderr(&out).len());
}

#[test]
fn a_template_that_loops_forever_is_stopped() {
    let p = Project::seeded();
    let dir = p.path("tpl");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("report.md.j2"),
        "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}\n",
    )
    .unwrap();
    let out = run(&p, &["report", "06", "--templates", "tpl"]);
    one_line_error(&out, 2, "template report.md.j2");
    let e = stderr(&out);
    assert!(e.contains("fuel") || e.contains("byte limit"), "{e}");
}

#[test]
fn templates_must_be_a_folder() {
    let p = Project::seeded();
    p.write("tpl.j2", "x\n");
    one_line_error(
        &run(&p, &["prompt", "06", "--templates", "tpl.j2"]),
        2,
        "tpl.j2: not a folder of templates",
    );
}

/// The fixture run file with one value replaced.
fn run_file_with(p: &Project, from: &str, to: &str) {
    let text = std::fs::read_to_string(crate::helpers::fixtures().join(format!(
        "records/{CHAPTER}/20261102T120000-bbbbbbbbbbbb.run.yaml"
    )))
    .unwrap();
    assert!(text.contains(from), "{from}");
    p.write("run.yaml", text.replacen(from, to, 1));
}

#[test]
fn infinite_or_nan_numbers_in_a_run_file_are_named_not_plotted() {
    let p = Project::seeded();
    run_file_with(&p, "ex_per_s: 437.5388754868534", "ex_per_s: .inf");
    let out = run(&p, &["diff", "run.yaml", "--plot", "p.svg"]);
    one_line_error(
        &out,
        2,
        "run.yaml: field 'results[0].summary.ex_per_s': inf is not a finite number",
    );
    assert!(!p.path("p.svg").exists());
    run_file_with(&p, "wait_mean_ms: 65.0998215111111", "wait_mean_ms: .nan");
    one_line_error(
        &run(&p, &["diff", "run.yaml"]),
        2,
        "NaN is not a finite number",
    );
}

#[test]
fn a_claims_criterion_that_is_not_a_number_is_refused() {
    let p = Project::seeded();
    let claims = p.chapter_dir().join("claims.yaml");
    let text = std::fs::read_to_string(&claims).unwrap().replacen(
        "{at_least: 5.0}",
        "{at_least: .nan}",
        1,
    );
    std::fs::write(&claims, text).unwrap();
    one_line_error(
        &run(&p, &["report", "06"]),
        2,
        "claims.yaml: field 'claims[0].reproduce.at_least': NaN is not a finite number",
    );
}

#[test]
fn claims_of_another_chapter_are_refused() {
    let p = Project::seeded();
    let claims = p.chapter_dir().join("claims.yaml");
    let text = std::fs::read_to_string(&claims).unwrap().replacen(
        "chapter: pytorch-from-first-principles/06",
        "chapter: other-book/07",
        1,
    );
    std::fs::write(&claims, text).unwrap();
    one_line_error(
        &run(&p, &["report", "06"]),
        2,
        "field 'chapter': says 'other-book/07', but the file belongs to pytorch-from-first-principles/06",
    );
}

#[test]
fn snapshots_that_are_not_regular_files_inside_the_project_are_refused() {
    let snapshot = "snapshots/0001-a7d34947a6b4.txt";
    // A link to /dev/zero, and a FIFO: verify and chapters answer at once.
    for make in [
        (|path: &Path| std::os::unix::fs::symlink("/dev/zero", path).unwrap()) as fn(&Path),
        mkfifo,
    ] {
        let p = Project::seeded();
        let path = p.chapter_dir().join(snapshot);
        std::fs::remove_file(&path).unwrap();
        make(&path);
        let out = run(&p, &["verify"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stdout(&out).contains("UNREADABLE"), "{}", stdout(&out));
        assert!(
            stdout(&out).contains("not a regular file"),
            "{}",
            stdout(&out)
        );
        let out = run(&p, &["chapters"]);
        assert!(stdout(&out).contains("UNREADABLE"), "{}", stdout(&out));
        one_line_error(&run(&p, &["prompt", "06"]), 2, "not a regular file");
    }
    // A link to a file outside the project is never quoted as chapter text.
    let p = Project::seeded();
    let path = p.chapter_dir().join(snapshot);
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", &path).unwrap();
    let out = run(&p, &["prompt", "06"]);
    one_line_error(&out, 2, "leads outside");
    assert!(!stdout(&out).contains("root:"), "{}", stdout(&out));
}

#[test]
fn prompt_quotes_only_a_snapshot_whose_fingerprint_holds() {
    let p = Project::seeded();
    let path = p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("7.4 times", "9.9 times");
    std::fs::write(&path, text).unwrap();
    let out = run(&p, &["prompt", "06"]);
    one_line_error(&out, 2, "does not match its fingerprint in chapter.yaml");
    assert!(!stdout(&out).contains("9.9 times"));
}

#[test]
fn a_fifo_among_records_or_templates_does_not_hang() {
    let p = Project::seeded();
    let dir = p.path(&format!("records/{CHAPTER}"));
    std::fs::create_dir_all(&dir).unwrap();
    mkfifo(&dir.join("20261101T120000-aaaaaaaaaaaa.record.yaml"));
    for args in [&["history"][..], &["status"], &["prompt", "06"]] {
        let out = run(&p, args);
        assert_ne!(out.status.code(), None, "{args:?} was killed: it hung");
        assert!(
            stderr(&out).contains("not a regular file"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let tpl = p.path("tpl");
    std::fs::create_dir_all(&tpl).unwrap();
    mkfifo(&tpl.join("report.md.j2"));
    one_line_error(
        &run(&p, &["report", "06", "--templates", "tpl"]),
        2,
        "is not a regular file",
    );
}

#[test]
fn a_failed_report_leaves_no_plot_behind() {
    let p = Project::with_fixture_records();
    let dir = p.path("tpl");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("report.md.j2"), "{{ chapter.titel }}\n").unwrap();
    let out = run(&p, &["report", "06", "--out", "r.md", "--templates", "tpl"]);
    one_line_error(&out, 2, "template report.md.j2, line 1: undefined value");
    assert!(!p.path("r.plot.svg").exists());
    assert!(!p.path("r.md").exists());
    // The retry works.
    p.cmd()
        .args(["report", "06", "--out", "r.md"])
        .assert()
        .success();
    assert!(p.path("r.plot.svg").exists());
}

#[test]
fn snapshot_add_on_a_full_disk_leaves_the_tree_as_it_was() {
    let p = Project::seeded();
    p.write("new.txt", "A new revision of the chapter.\n");
    let before = p.state();
    p.cmd()
        .args(["snapshot", "add", "06", "new.txt"])
        .env("RESEARCH_COMPANION_FAIL_WRITE", "snapshots.yaml")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no space left on device"));
    assert_eq!(p.state(), before, "the new snapshot file was taken away");
    p.cmd()
        .args(["snapshot", "add", "06", "new.txt"])
        .assert()
        .success()
        .stdout(predicate::str::contains("stored snapshots/0002-"));
}

#[test]
fn record_commit_outside_git_stores_nothing() {
    let p = Project::seeded();
    p.write("r.md", "# a report\n");
    let before = p.state();
    p.cmd()
        .args(["record", "06", "--report", "r.md", "--commit"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("cannot commit:")
                .and(predicate::str::contains("is not inside a git repository")),
        );
    assert_eq!(p.state(), before);
}

#[test]
fn written_files_respect_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let p = Project::seeded();
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let state = p.chapter_dir().join("snapshots.yaml");
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o640)).unwrap();
    let manifest_before = std::fs::read(manifest(&p)).unwrap();
    p.write("new.txt", "Another revision.\n");
    p.cmd()
        .args(["snapshot", "add", "06", "new.txt"])
        .assert()
        .success();
    assert_eq!(mode(&state), 0o640, "snapshots.yaml keeps its mode");
    assert_eq!(
        std::fs::read(manifest(&p)).unwrap(),
        manifest_before,
        "chapter.yaml untouched"
    );
    let snap = std::fs::read_dir(p.chapter_dir().join("snapshots"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|f| f.to_string_lossy().contains("0002-"))
        .unwrap();
    assert_ne!(mode(&snap), 0o600, "a new file follows the umask");
}
