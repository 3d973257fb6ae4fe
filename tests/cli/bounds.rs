//! No input panics a command or makes it work without bound: text the
//! normalizer refuses, files far larger than anything the tool reads whole,
//! and devices that never end. Each is refused in one line naming the file
//! (or URL) and the limit, exit 2, with nothing stored changed.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use crate::helpers::{Project, stderr, stdout};
use crate::hostile::{one_line_error, run};

/// 4 MiB of combining marks with no base but one `a` (4,194,325 bytes,
/// under fetch's 5 MiB default cap): more than prose-v1 holds whole.
fn combining_marks() -> String {
    format!("a{}", "\u{0301}".repeat(2_097_162))
}

/// Serves `body` as text/plain to every request on 127.0.0.1; returns the
/// URL.
fn serve(body: Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/chapter.txt", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                line.clear();
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    url
}

/// No panic: the exit status is not 101 and stderr says no "panicked";
/// with `fails`, the command also says it could not (exit 1 or 2).
fn no_panic(out: &std::process::Output, what: &str, fails: bool) {
    let e = stderr(out);
    assert!(!e.contains("panicked"), "{what}: {e}");
    assert_ne!(out.status.code(), Some(101), "{what}: {e}");
    if fails {
        assert!(
            matches!(out.status.code(), Some(1 | 2)),
            "{what}: {:?} {e}",
            out.status
        );
    }
}

#[test]
fn text_prose_v1_refuses_is_an_error_in_every_command_that_stores_text() {
    let p = Project::seeded();
    let file = p.write("marks.txt", combining_marks());
    let before = p.state();
    let needle = "cannot be settled piece by piece";
    let out = run(&p, &["snapshot", "add", "06", "marks.txt"]);
    one_line_error(&out, 2, needle);
    assert!(stderr(&out).contains("marks.txt"), "{}", stderr(&out));
    let out = run(
        &p,
        &[
            "chapter",
            "new",
            "systems-notes/07",
            "marks.txt",
            "--title",
            "T",
            "--book-title",
            "B",
        ],
    );
    one_line_error(&out, 2, needle);
    let url = serve(std::fs::read(&file).unwrap());
    let out = run(&p, &["fetch", "06", "--url", &url]);
    one_line_error(&out, 2, needle);
    assert!(
        stderr(&out).contains("chapter.txt"),
        "names the URL: {}",
        stderr(&out)
    );
    assert_eq!(p.state(), before, "nothing stored changed");
}

#[test]
fn a_stored_snapshot_prose_v1_refuses_panics_no_reader() {
    // A snapshot stored, then replaced by hand with text the tool would
    // have refused: every command that reads its prose says so.
    let p = Project::with_fixture_records();
    p.write(
        "revised.txt",
        "A revised chapter of one sentence, 7.4 times faster.\n",
    );
    let out = run(&p, &["snapshot", "add", "06", "revised.txt"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let current = p.chapter_dir().join("snapshots");
    let file = std::fs::read_dir(&current)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|f| f.to_string_lossy().contains("0002-"))
        .unwrap();
    std::fs::write(&file, combining_marks()).unwrap();
    for (args, fails) in [
        (&["snapshot", "diff", "06"][..], true),
        (&["prompt", "06"], true),
        (&["claims", "check", "06"], true),
        (&["verify"], true),
        (&["diff", "--latest"], false),
        (&["status"], false),
        (&["history", "06"], false),
        (&["chapters"], false),
        (&["site", "--out", "site"], false),
    ] {
        no_panic(&run(&p, args), &args.join(" "), fails);
    }
}

/// A file of `len` bytes that takes no room on disk.
fn sparse(p: &Project, name: &str, len: u64) -> std::path::PathBuf {
    let path = p.path(name);
    std::fs::File::create(&path).unwrap().set_len(len).unwrap();
    path
}

#[test]
fn chapter_text_and_reports_past_the_size_limit_are_refused_naming_the_size() {
    let p = Project::seeded();
    sparse(&p, "huge.txt", 200_000_000);
    let before = p.state();
    let named = "200000000 bytes, more than the 16777216-byte (16 MiB) limit";
    for args in [
        &["snapshot", "add", "06", "huge.txt"][..],
        &[
            "chapter",
            "new",
            "systems-notes/07",
            "huge.txt",
            "--title",
            "T",
            "--book-title",
            "B",
        ],
        &["record", "06", "--report", "huge.txt"],
    ] {
        let out = run(&p, args);
        one_line_error(&out, 2, named);
        assert!(
            stderr(&out).contains("huge.txt"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // A device that never ends is refused before anything is read (the
    // hang guard would kill a run that tried to read it).
    for args in [
        &["snapshot", "add", "06", "/dev/zero"][..],
        &[
            "chapter",
            "new",
            "systems-notes/07",
            "/dev/zero",
            "--title",
            "T",
            "--book-title",
            "B",
        ],
        &["record", "06", "--report", "/dev/zero"],
    ] {
        one_line_error(
            &run(&p, args),
            2,
            "/dev/zero: a device, not a regular file; refusing to read it",
        );
    }
    assert_eq!(p.state(), before, "nothing stored changed");
}

#[test]
fn templates_and_stored_files_past_the_size_limit_are_refused() {
    let p = Project::with_fixture_records();
    std::fs::create_dir(p.path("tpl")).unwrap();
    sparse(&p, "tpl/report.md.j2", 100 << 20);
    let out = run(&p, &["report", "06", "--templates", "tpl"]);
    one_line_error(
        &out,
        2,
        "report.md.j2: 104857600 bytes, more than the 16777216-byte",
    );
    // A stored report grown past the limit by hand: the research record
    // that names it cannot be read back whole, and nothing hangs.
    let records = p.path("records/pytorch-from-first-principles/06");
    let report = std::fs::read_dir(&records)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|f| f.to_string_lossy().ends_with(".report.md"))
        .expect("the fixture research run keeps its report");
    std::fs::File::options()
        .write(true)
        .open(&report)
        .unwrap()
        .set_len(100 << 20)
        .unwrap();
    let out = run(&p, &["publish", "06"]);
    no_panic(&out, "publish", true);
    assert!(
        stderr(&out).contains("more than the 16777216-byte"),
        "{}",
        stderr(&out)
    );
    let out = run(&p, &["site", "--out", "site"]);
    no_panic(&out, "site", true);
    assert!(
        stdout(&out).contains("16777216") || stderr(&out).contains("16777216"),
        "site names the limit: {}",
        stderr(&out)
    );
}

#[test]
fn a_fetched_body_past_the_chapter_text_limit_is_not_stored() {
    let p = Project::seeded();
    let before = p.state();
    let url = serve(vec![b'x'; (16 << 20) + 10]);
    let out = run(
        &p,
        &["fetch", "06", "--url", &url, "--max-bytes", "100000000"],
    );
    one_line_error(
        &out,
        2,
        "larger than the 16777216-byte limit for chapter text",
    );
    assert_eq!(p.state(), before, "nothing stored changed");
}

#[test]
fn a_line_of_many_table_like_fragments_is_scanned_once_and_described_briefly() {
    // 100,000 fragments on one line (11 MB): the scan is linear, and the
    // claims.yaml skeleton `chapter new` writes stays one the tool reads.
    let p = Project::seeded();
    let fragment = format!("=== producer={} ", "x".repeat(100));
    p.write("frags.txt", fragment.repeat(100_000));
    let out = run(
        &p,
        &[
            "chapter",
            "new",
            "systems-notes/07",
            "frags.txt",
            "--title",
            "T",
            "--book-title",
            "B",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("it and 99899 more after it"),
        "{}",
        stdout(&out)
    );
    let claims = p.path("book-snapshots/systems-notes/07/claims.yaml");
    assert!(std::fs::metadata(&claims).unwrap().len() < 1 << 20);
    let out = run(&p, &["claims", "check", "systems-notes/07"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&p, &["reproduce", "systems-notes/07", "--no-record"]);
    one_line_error(&out, 2, "holds no published tables to reproduce");
}

#[test]
fn two_revisions_with_nothing_in_common_are_diffed_at_once() {
    // 160,000 words each (1 MB), all different: the diff took minutes
    // (the hang guard stops a run after one), and status, prompt and the
    // site diff the same revisions since the research run.
    let p = Project::with_fixture_records();
    let text = |prefix: &str| -> String { (0..160_000).map(|i| format!("{prefix}{i} ")).collect() };
    p.write("a.txt", text("a"));
    p.write("b.txt", text("b"));
    for file in ["a.txt", "b.txt"] {
        let out = run(&p, &["snapshot", "add", "06", file]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let out = run(&p, &["snapshot", "diff", "06"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let shown = stdout(&out);
    assert!(shown.contains("320000 words changed"), "{shown}");
    assert!(
        shown.contains("(159976 more words)"),
        "a long run is shortened: {shown}"
    );
    assert!(shown.len() < 10_000, "{} bytes", shown.len());
    let out = run(&p, &["status", "06"]);
    assert!(stdout(&out).contains("words changed"), "{}", stdout(&out));
    for args in [&["prompt", "06"][..], &["site", "--out", "site"]] {
        let out = run(&p, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_template_or_metric_that_builds_a_long_string_is_stopped_at_its_memory_limit() {
    // Repetition and `join`: 1.2 GB within the fuel (main reached 2 GB and
    // then ran out of fuel); the template is stopped at 256 MiB instead.
    let p = Project::with_fixture_records();
    std::fs::create_dir(p.path("tpl")).unwrap();
    p.write(
        "tpl/report.md.j2",
        r#"{% set s = "x" * 100000000 %}{% set t = [s, s, s, s, s, s, s, s, s, s, s, s]|join %}{{ t|length }}"#,
    );
    let before = p.state();
    let out = run(
        &p,
        &["report", "06", "--templates", "tpl", "--out", "review.md"],
    );
    one_line_error(
        &out,
        2,
        "template report.md.j2: it needed more than its memory limit (268435456 bytes, 256 MiB)",
    );
    assert_eq!(p.state(), before, "nothing written");
    // In the site, the chapter page's template is the one named, not the
    // index rendered after it.
    std::fs::create_dir(p.path("tpl/site")).unwrap();
    std::fs::rename(
        p.path("tpl/report.md.j2"),
        p.path("tpl/site/chapter.html.j2"),
    )
    .unwrap();
    let out = run(&p, &["site", "--out", "site", "--templates", "tpl"]);
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("site/chapter.html.j2"),
        "{}",
        stderr(&out)
    );
    assert!(!p.path("site").exists(), "no site written");
    // A claim's metric, built while it is compiled.
    let claims = p.chapter_dir().join("claims.yaml");
    let text = std::fs::read_to_string(&claims).unwrap().replacen(
        "metric: sleep.w8.ex_s / sleep.w0.ex_s",
        r#"metric: ((["x"] * 50000000) ~ "")|length"#,
        1,
    );
    std::fs::write(&claims, text).unwrap();
    let out = run(&p, &["claims", "check", "06"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("memory limit (16777216 bytes, 16 MiB)"),
        "{}",
        stdout(&out)
    );
}

mod harness {
    //! The PyTorch harness as a child that cannot hang, flood, outlive or
    //! litter the run: stand-ins for Python that misbehave, and the real
    //! harness where torch is installed.

    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    use crate::helpers::{Project, fixtures, stderr};
    use crate::hostile::one_line_error;

    /// The settings the recorded harness answer was measured with.
    const RECORDED: [&str; 6] = [
        "--batches",
        "20",
        "--workers",
        "0,2",
        "--producer",
        "sleep,spin",
    ];

    /// A stand-in for Python that first notes its pid and the harness file
    /// it was given, then runs `body`.
    fn fake_python(p: &Project, body: &str) -> PathBuf {
        let dir = p.root().display();
        crate::helpers::fake_python(
            p,
            &format!(
                "echo $$ > '{dir}/harness.pid'\necho \"$1\" > '{dir}/harness.file'\necho \"$TMPDIR\" > '{dir}/harness.tmpdir'\n{body}"
            ),
        )
    }

    /// `bench --engine pytorch` with `python`, started in a process group of
    /// its own (as a shell starts a job), with a hang guard.
    fn start(p: &Project, python: &Path, timeout: Option<&str>) -> Child {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_research_companion"));
        cmd.args(["bench", "--engine", "pytorch", "--python"])
            .arg(python)
            .args(RECORDED)
            .current_dir(p.root())
            .env("RESEARCH_COMPANION_ROOT", p.root())
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        match timeout {
            Some(t) => cmd.env("RESEARCH_COMPANION_HARNESS_TIMEOUT", t),
            None => cmd.env_remove("RESEARCH_COMPANION_HARNESS_TIMEOUT"),
        };
        cmd.spawn().unwrap()
    }

    /// Waits for `child` with a guard of a minute (a hung run is killed and
    /// the test fails on its status).
    fn finish(child: Child) -> std::process::Output {
        let pid = child.id() as i32;
        let guard = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(60));
            // SAFETY: kill(2) on the run this test started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        });
        let out = child.wait_with_output().unwrap();
        drop(guard);
        out
    }

    /// The number in `file` once it has been written.
    fn read_pid(file: &Path) -> i32 {
        let start = Instant::now();
        loop {
            if let Some(pid) = std::fs::read_to_string(file)
                .ok()
                .and_then(|t| t.trim().parse().ok())
            {
                return pid;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{} never written",
                file.display()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether process `pid` has ended (a zombie has) within five seconds.
    fn ends(pid: i32) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
                Err(_) => return true,
                Ok(stat)
                    if stat
                        .rsplit(')')
                        .next()
                        .is_some_and(|s| s.trim_start().starts_with('Z')) =>
                {
                    return true;
                }
                Ok(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        false
    }

    /// The harness file the stand-in was given.
    fn harness_file(p: &Project) -> PathBuf {
        PathBuf::from(
            std::fs::read_to_string(p.path("harness.file"))
                .unwrap()
                .trim(),
        )
    }

    #[test]
    fn a_harness_that_never_answers_is_stopped_with_its_workers_and_its_file() {
        let _g = crate::helpers::exclusive();
        let p = Project::seeded();
        let python = fake_python(
            &p,
            &format!(
                "sleep 1000 & echo $! > '{}/worker.pid'\nexec sleep 1000",
                p.root().display()
            ),
        );
        let out = finish(start(&p, &python, Some("2")));
        one_line_error(
            &out,
            2,
            "the PyTorch harness gave no answer within 2 s, the limit RESEARCH_COMPANION_HARNESS_TIMEOUT sets;",
        );
        assert!(
            ends(read_pid(&p.path("harness.pid"))),
            "the harness is left running"
        );
        assert!(
            ends(read_pid(&p.path("worker.pid"))),
            "its worker is left running"
        );
        assert!(
            !harness_file(&p).exists(),
            "the harness file is left behind"
        );
    }

    #[test]
    fn a_time_limit_out_of_range_is_refused_naming_the_variable_and_the_range() {
        let p = Project::seeded();
        // The stand-in would answer nothing; the limit is refused before
        // it starts, so nothing waits on it.
        let python = fake_python(&p, "exec sleep 1000");
        for bad in ["1e10", "0", "1e-10", "soon", "-3"] {
            let out = finish(start(&p, &python, Some(bad)));
            one_line_error(
                &out,
                2,
                &format!(
                    "RESEARCH_COMPANION_HARNESS_TIMEOUT={bad}: not a number of seconds from 0.001 to 10000000"
                ),
            );
            assert!(
                !stderr(&out).contains("--python"),
                "the Python is not what is wrong: {}",
                stderr(&out)
            );
            assert!(
                !stderr(&out).contains("running "),
                "refused before the run says it starts: {}",
                stderr(&out)
            );
        }
        // Set but empty is unset: the harness runs (and this one fails).
        let out = finish(start(&p, &fake_python(&p, "exit 3"), Some(" ")));
        assert_eq!(out.status.code(), Some(2));
        assert!(
            !stderr(&out).contains("not a number of seconds"),
            "{}",
            stderr(&out)
        );
    }

    #[test]
    fn a_harness_that_floods_is_read_no_further_than_its_answer_can_be() {
        let _g = crate::helpers::exclusive();
        let p = Project::seeded();
        let out = finish(start(&p, &fake_python(&p, "exec yes"), None));
        one_line_error(&out, 2, "the PyTorch harness printed more than 85440 bytes");
        assert!(ends(read_pid(&p.path("harness.pid"))));
        assert!(!harness_file(&p).exists());
        // Standard error flooded for ever: only its end is kept, and the
        // time limit ends it.
        let p = Project::seeded();
        let out = finish(start(&p, &fake_python(&p, "exec yes >&2"), Some("2")));
        one_line_error(&out, 2, "gave no answer within 2 s");
    }

    #[test]
    fn an_answer_is_read_though_a_child_of_the_harness_keeps_the_pipe_open() {
        let _g = crate::helpers::exclusive();
        let p = Project::seeded();
        let answer = fixtures().join("pytorch-harness-answer.json");
        let body = format!(
            "cat '{}'\nsleep 1000 & echo $! > '{}/worker.pid'\nexit 0",
            answer.display(),
            p.root().display()
        );
        let out = finish(start(&p, &fake_python(&p, &body), None));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            ends(read_pid(&p.path("worker.pid"))),
            "the lingering child is left running"
        );
        assert!(!harness_file(&p).exists());
    }

    #[test]
    fn sigterm_or_ctrl_c_ends_the_harness_and_its_workers_and_says_interrupted() {
        let _g = crate::helpers::exclusive();
        for (signal, to_group) in [(libc::SIGTERM, false), (libc::SIGINT, true)] {
            let p = Project::seeded();
            // As multiprocessing does, a folder in the temporary folder.
            let body = format!(
                "mkdir \"$TMPDIR/pymp-test\"\nsleep 1000 & echo $! > '{}/worker.pid'\nwait",
                p.root().display()
            );
            let child = start(&p, &fake_python(&p, &body), None);
            let (tool, worker) = (child.id() as i32, read_pid(&p.path("worker.pid")));
            let harness = read_pid(&p.path("harness.pid"));
            // Ctrl-C at a terminal signals the tool's whole process group;
            // SIGTERM (kill PID) the tool alone.
            // SAFETY: kill(2) on the run this test started.
            unsafe { libc::kill(if to_group { -tool } else { tool }, signal) };
            let out = finish(child);
            assert_eq!(
                out.status.code(),
                Some(130),
                "signal {signal}: {}",
                stderr(&out)
            );
            assert!(stderr(&out).contains("interrupted"), "{}", stderr(&out));
            assert!(
                ends(harness),
                "signal {signal}: the harness is left running"
            );
            assert!(ends(worker), "signal {signal}: its worker is left running");
            assert!(
                !harness_file(&p).exists(),
                "signal {signal}: the harness file is left behind"
            );
            let tmp = std::fs::read_to_string(p.path("harness.tmpdir")).unwrap();
            assert!(
                !tmp.trim().is_empty() && !Path::new(tmp.trim()).exists(),
                "signal {signal}: the harness's temporary folder {tmp} is left behind"
            );
        }
    }

    /// The Python with torch to test with, if this machine has one.
    fn python_with_torch() -> Option<PathBuf> {
        let candidate = std::env::var_os("RESEARCH_COMPANION_TEST_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("python3"));
        let ok = Command::new(&candidate)
            .args(["-c", "import torch"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(candidate)
    }

    /// The processes whose process group is `group`.
    fn members(group: i32) -> Vec<i32> {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .ok()
                    .and_then(|s| {
                        // Fields after the command: state, ppid, pgrp.
                        s.rsplit(')')
                            .next()?
                            .split_whitespace()
                            .nth(2)?
                            .parse::<i32>()
                            .ok()
                    })
                    == Some(group)
            })
            .collect()
    }

    #[test]
    #[cfg_attr(
        rc_no_torch,
        ignore = "needs a Python that imports torch: set RESEARCH_COMPANION_TEST_PYTHON"
    )]
    fn sigterm_ends_the_real_harness_and_its_dataloader_workers() {
        let _g = crate::helpers::exclusive();
        let Some(python) = python_with_torch() else {
            eprintln!(
                "SKIPPED sigterm_ends_the_real_harness_and_its_dataloader_workers: no Python here \
                 imports torch (set RESEARCH_COMPANION_TEST_PYTHON to one that does)"
            );
            return;
        };
        let p = Project::seeded();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_research_companion"));
        cmd.args(["bench", "--engine", "pytorch", "--python"])
            .arg(&python)
            .args([
                "--workers",
                "2",
                "--batches",
                "100000",
                "--producer",
                "sleep",
            ])
            .current_dir(p.root())
            .env("RESEARCH_COMPANION_ROOT", p.root())
            .process_group(0)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let child = cmd.spawn().unwrap();
        let tool = child.id() as i32;
        // The harness leads a group of its own; wait for its two workers.
        let start = Instant::now();
        let (harness, group) = loop {
            let found = std::fs::read_dir("/proc").unwrap().flatten().find_map(|e| {
                let pid: i32 = e.file_name().to_str()?.parse().ok()?;
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                let ppid: i32 = stat
                    .rsplit(')')
                    .next()?
                    .split_whitespace()
                    .nth(1)?
                    .parse()
                    .ok()?;
                (ppid == tool).then_some(pid)
            });
            if let Some(h) = found
                && members(h).len() >= 3
            {
                break (h, members(h));
            }
            assert!(
                start.elapsed() < Duration::from_secs(50),
                "no DataLoader workers appeared"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        let file = std::fs::read_to_string(format!("/proc/{harness}/cmdline"))
            .unwrap()
            .split('\0')
            .nth(1)
            .map(PathBuf::from)
            .unwrap();
        assert!(file.exists(), "{}", file.display());
        // SAFETY: kill(2) on the run this test started.
        unsafe { libc::kill(tool, libc::SIGTERM) };
        let out = finish(child);
        assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
        assert!(stderr(&out).contains("interrupted"), "{}", stderr(&out));
        for pid in group {
            assert!(
                ends(pid),
                "process {pid} of the harness's group is left running"
            );
        }
        assert!(!file.exists(), "{} is left behind", file.display());
    }
}
