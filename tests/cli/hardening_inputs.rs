//! Inputs that are not regular files: a FIFO given to `notebook add`,
//! `record --report`, `compare` (and every other command that reads a file
//! the user names) is refused at once with one line saying what it is, and
//! so is a device (`/dev/zero`), a socket or a folder; nothing stored
//! changes. Each command runs under a generous guard that kills it, so a
//! hang fails the test instead of stopping the suite. The FIFOs and sockets
//! live in a folder of their own, outside the project.

use std::path::Path;
use std::time::Duration;

use crate::helpers::{FIXTURE_RUN, Project, fixture_record_file, stderr, stdout};

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C string and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// Runs the binary with `args`, killed if it is still running after a
/// minute (a hang, which the old code had on a FIFO).
fn run_guarded(p: &Project, args: &[&str]) -> std::process::Output {
    let out = p
        .cmd()
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some(),
        "{args:?} did not return (killed by the guard): {}",
        stderr(&out)
    );
    out
}

/// Exit 2 and exactly one line on stderr, holding `needle`.
fn refused(out: &std::process::Output, args: &[&str], needle: &str) {
    let e = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {e}");
    assert_eq!(e.lines().count(), 1, "{args:?}: one line: {e}");
    assert!(e.contains(needle), "{args:?}: wanted {needle:?} in: {e}");
}

/// Every command that reads a file the user names, with `f` in its place.
fn readers(f: &str, run: &str) -> Vec<Vec<String>> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["notebook", "add", "06", f]),
        v(&["notebook", "check", f]),
        v(&["record", "06", "--report", f]),
        v(&["record", "06", "--run", f]),
        v(&["compare", f, run]),
        v(&["compare", run, f]),
        v(&["diff", f]),
        v(&["fingerprint", f]),
        v(&["fingerprint", "--raw", f]),
        v(&["snapshot", "add", "06", f]),
        v(&[
            "chapter",
            "new",
            "systems-notes/07",
            f,
            "--title",
            "T",
            "--book-title",
            "B",
        ]),
    ]
}

/// Every reader given `file` (which is `what`: "a FIFO (named pipe)",
/// "a socket", ...) refuses it in one line naming it, without a hang.
fn every_reader_refuses(p: &Project, file: &str, run: &str, what: &str) {
    for args in readers(file, run) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_guarded(p, &args);
        refused(
            &out,
            &args,
            &format!("{file}: {what}, not a regular file; refusing to read it"),
        );
    }
}

#[test]
fn a_fifo_a_device_or_a_folder_given_as_input_is_refused_at_once() {
    let p = Project::with_fixture_records();
    let run = p.write("r.run.yaml", fixture_record_file(FIXTURE_RUN));
    let run = run.to_str().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let fifo = elsewhere.path().join("input.fifo");
    mkfifo(&fifo);
    // A link to a FIFO is what it leads to.
    let link = elsewhere.path().join("link.md");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let folder = elsewhere.path().join("folder.md");
    std::fs::create_dir(&folder).unwrap();
    let before = p.state();
    for (file, what) in [
        (fifo.to_str().unwrap(), "a FIFO (named pipe)"),
        (link.to_str().unwrap(), "a FIFO (named pipe)"),
        ("/dev/zero", "a device"),
        (folder.to_str().unwrap(), "a folder"),
    ] {
        every_reader_refuses(&p, file, run, what);
    }
    assert_eq!(p.state(), before, "nothing stored changed");
}

#[test]
fn a_socket_given_as_input_is_named_as_one() {
    let p = Project::with_fixture_records();
    let run = p.write("r.run.yaml", fixture_record_file(FIXTURE_RUN));
    let run = run.to_str().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let socket = elsewhere.path().join("input.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let link = elsewhere.path().join("to-socket.md");
    std::os::unix::fs::symlink(&socket, &link).unwrap();
    let before = p.state();
    for file in [socket.to_str().unwrap(), link.to_str().unwrap()] {
        every_reader_refuses(&p, file, run, "a socket");
    }
    assert_eq!(p.state(), before, "nothing stored changed");
}

#[test]
fn fingerprint_still_streams_standard_input() {
    let p = Project::seeded();
    let out = p
        .cmd()
        .args(["fingerprint", "--raw", "-"])
        .write_stdin("abc")
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out)
            .starts_with("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        "{}",
        stdout(&out)
    );
}
