//! A notebook run leaves nothing running and nothing written behind: the
//! harness and its kernels die with the tool, even when it is killed
//! outright (SIGKILL), and the next run clears what a cell of it left;
//! a process a cell moved to a session of its own
//! (`setsid`) is killed when the run ends; a cell that kills the harness
//! fails the run and leaves no kernel and no connection file. Processes
//! are found as the tool finds them, by the run's mark in their
//! environment (`/proc/<pid>/environ`). Real kernels, so these need the
//! notebook Python (see `kernel`).

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::kernel::kernel_python;
use super::{code, notebook, run};
use crate::helpers::{Project, exclusive, stderr, stdout};

/// The variable that marks a run's processes.
const RUN_MARK: &str = "RESEARCH_COMPANION_NOTEBOOK_RUN";

/// How long a kernel may take to come up on a loaded machine, and how long
/// killed processes may take to go: guards against a hang, not timings.
const GUARD: Duration = Duration::from_secs(120);

/// A Python string literal for `s`.
fn py(s: &Path) -> String {
    Value::String(s.to_string_lossy().into_owned()).to_string()
}

/// The environment of process `pid`, one `NAME=value` per entry; empty
/// for a process that is gone or a zombie.
fn environment(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/environ"))
        .unwrap_or_default()
        .split(|&b| b == 0)
        .map(|e| String::from_utf8_lossy(e).into_owned())
        .collect()
}

/// The run mark process `pid` carries, if any.
fn mark_of(pid: u32) -> Option<String> {
    let prefix = format!("{RUN_MARK}=");
    environment(pid)
        .into_iter()
        .find_map(|e| e.strip_prefix(&prefix).map(str::to_string))
}

/// Every process's id.
fn all_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect()
}

/// The processes (not zombies) that carry `mark`.
fn marked(mark: &str) -> Vec<u32> {
    all_pids()
        .into_iter()
        .filter(|&pid| mark_of(pid).as_deref() == Some(mark))
        .collect()
}

/// The parent of process `pid`.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name, in parentheses, may hold spaces: the fields follow its end.
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The marks of the harnesses `tool` started (its children that carry one).
fn marks_of_children(tool: u32) -> Vec<String> {
    let mut marks: Vec<String> = all_pids()
        .into_iter()
        .filter(|&pid| parent_of(pid) == Some(tool))
        .filter_map(mark_of)
        .collect();
    marks.sort();
    marks.dedup();
    marks
}

/// Waits until `done` holds, or panics with `what` once [`GUARD`] passed.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < GUARD, "{what} within {GUARD:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Kills every process carrying one of its marks when dropped, so that a
/// failing test leaves nothing running either.
struct Leftovers(Vec<String>);

impl Drop for Leftovers {
    fn drop(&mut self) {
        for mark in &self.0 {
            for pid in marked(mark) {
                let _ = std::process::Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .status();
            }
        }
    }
}

/// Stores `nb` as chapter 06's current notebook.
fn store(p: &Project, name: &str, nb: &str) {
    super::without_notebook_claims(p);
    p.write(name, nb);
    let out = p
        .cmd()
        .args(["notebook", "add", "06", name])
        .output()
        .unwrap();
    assert!(out.status.success(), "notebook add: {}", stderr(&out));
}

/// What `temp` holds, by name.
fn names_in(temp: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(temp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `notebook run 06` started, not waited for, with `temp` as its TMPDIR.
fn start(p: &Project, python: &Path, temp: &Path, args: &[&str]) -> Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_research_companion"))
        .current_dir(p.root())
        .env("RESEARCH_COMPANION_ROOT", p.root())
        .args(["notebook", "run", "06", "--no-record", "--python"])
        .arg(python)
        .args(args)
        .env("TMPDIR", temp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_tool_killed_outright_takes_its_harnesses_and_kernels_with_it() {
    let Some(python) =
        kernel_python("a_tool_killed_outright_takes_its_harnesses_and_kernels_with_it")
    else {
        return;
    };
    let _g = exclusive();
    let p = Project::seeded();
    let temp = tempfile::tempdir().unwrap();
    let up = tempfile::tempdir().unwrap();
    // Each kernel starts a child in a session of its own (nothing but the
    // run's mark ties it to the run), says it is up by naming the child,
    // then sleeps past any wait of this test.
    let say_up = format!(
        "import os, subprocess\n\
         child = subprocess.Popen(['setsid', 'sleep', '600'])\n\
         open(os.path.join({}, str(child.pid)), 'w').close()",
        py(up.path())
    );
    store(
        &p,
        "sleeps.ipynb",
        &notebook(vec![
            code("up", &say_up),
            code("sleep", "import time\ntime.sleep(600)"),
        ]),
    );
    let mut tool = start(
        &p,
        &python,
        temp.path(),
        &["--repeat", "2", "--jobs", "2", "--cell-timeout", "900"],
    );
    wait_for("both kernels up", || {
        std::fs::read_dir(up.path()).unwrap().count() == 2
    });
    let children: Vec<u32> = names_in(up.path())
        .iter()
        .map(|n| n.parse().unwrap())
        .collect();
    let marks = marks_of_children(tool.id());
    let _cleanup = Leftovers(marks.clone());
    assert_eq!(marks.len(), 2, "one mark per harness: {marks:?}");
    for mark in &marks {
        // The harness, its kernel and the kernel's child.
        assert!(marked(mark).len() >= 3, "{mark}: {:?}", marked(mark));
    }
    tool.kill().unwrap();
    tool.wait().unwrap();
    wait_for("every harness and kernel of the killed run gone", || {
        marks
            .iter()
            .flat_map(|m| marked(m))
            .all(|pid| children.contains(&pid))
    });
    // The cells' children and the runs' folders stay until the next run,
    // which clears them.
    let left = names_in(temp.path());
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(
        left.iter()
            .all(|n| n.starts_with(&format!("research-companion-notebook-{}-", tool.id()))),
        "{left:?}"
    );
    store(&p, "quick.ipynb", &notebook(vec![code("one", "x = 1")]));
    let out = p
        .cmd()
        .args(["notebook", "run", "06", "--no-record", "--python"])
        .arg(&python)
        .env("TMPDIR", temp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(names_in(temp.path()), Vec::<String>::new());
    for mark in &marks {
        assert_eq!(marked(mark), Vec::<u32>::new(), "{mark} left behind");
    }
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_process_a_cell_moves_to_a_session_of_its_own_ends_with_the_run() {
    let Some(python) =
        kernel_python("a_process_a_cell_moves_to_a_session_of_its_own_ends_with_the_run")
    else {
        return;
    };
    let _g = exclusive();
    let p = Project::seeded();
    let pid_file = p.path("escaped.pid");
    // `setsid` leaves the kernel's session and process group (as the
    // cell's child is no group leader, it does so without a fork: its id
    // is the sleep's).
    let escape = format!(
        "import subprocess, time\n\
         child = subprocess.Popen(['setsid', 'sleep', '600'])\n\
         while not open(f'/proc/{{child.pid}}/cmdline', 'rb').read().startswith(b'sleep'):\n    time.sleep(0.05)\n\
         open({}, 'w').write(str(child.pid))",
        py(&pid_file)
    );
    store(
        &p,
        "escapes.ipynb",
        &notebook(vec![
            code("escape", &escape),
            // The kernel dies with the harness that started it.
            code(
                "dies_with_the_harness",
                "import ctypes, signal\n\
                 sig = ctypes.c_int()\n\
                 assert ctypes.CDLL(None).prctl(2, ctypes.byref(sig)) == 0  # PR_GET_PDEATHSIG\n\
                 assert sig.value == signal.SIGKILL, sig.value",
            ),
        ]),
    );
    let out = run(&p, &python, &["06", "--no-record"]);
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)))
        .trim()
        .parse()
        .unwrap();
    let mark = mark_of(pid);
    let _cleanup = Leftovers(mark.clone().into_iter().collect());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("PASS: 2 of 2 code cells passed (1 with assertions)"),
        "{}",
        stdout(&out)
    );
    wait_for("the cell's setsid child gone with the run", || {
        mark_of(pid).is_none()
    });
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_cell_that_kills_the_harness_fails_the_run_and_leaves_no_kernel_or_file() {
    let Some(python) =
        kernel_python("a_cell_that_kills_the_harness_fails_the_run_and_leaves_no_kernel_or_file")
    else {
        return;
    };
    let _g = exclusive();
    let p = Project::seeded();
    let temp = tempfile::tempdir().unwrap();
    let kernel_file = p.path("kernel.pid");
    // The kernel's parent is the harness.
    let kill = format!(
        "import os, signal\n\
         with open({}, 'w') as f:\n    f.write(str(os.getpid()))\n\
         os.kill(os.getppid(), signal.SIGKILL)",
        py(&kernel_file)
    );
    store(
        &p,
        "kills.ipynb",
        &notebook(vec![code("kill", &kill), code("after", "print('after')")]),
    );
    let out = p
        .cmd()
        .args(["notebook", "run", "06", "--python"])
        .arg(&python)
        .env("TMPDIR", temp.path())
        .output()
        .unwrap();
    let kernel: u32 = std::fs::read_to_string(&kernel_file)
        .unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)))
        .trim()
        .parse()
        .unwrap();
    let mark = mark_of(kernel);
    let _cleanup = Leftovers(mark.clone().into_iter().collect());
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    // No kernel, and none of its files (the connection file) in TMPDIR.
    assert_eq!(names_in(temp.path()), Vec::<String>::new());
    assert!(mark.is_none(), "the kernel {kernel} outlived its harness");
    assert!(!p.path("records").exists(), "nothing recorded");
    let e = stderr(&out);
    assert!(
        e.contains("the notebook harness was killed (signal: 9 (SIGKILL)) after 0 of 2 code cells had finished"),
        "{e}"
    );
    assert!(e.contains("a cell may have killed it"), "{e}");
}
