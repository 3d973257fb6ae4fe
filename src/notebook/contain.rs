//! Keeping a notebook run inside its bounds on this machine: no process it
//! started and no file it wrote outlives it.
//!
//! - Every run gets a folder of its own, `research-companion-notebook-
//!   <pid>-<random>` in the temporary folder (`$TMPDIR`, else `/tmp`), where
//!   `<pid>` is this tool's process id. It holds the harness, the kernel's
//!   working folder, and the `TMPDIR` and Jupyter runtime folder the
//!   harness and its kernel are given (so the kernel's connection file is
//!   written there), an `owner.lock` this tool holds locked (flock) for the
//!   run, and the run's mark in `mark`. It is removed when the run ends.
//! - The harness and every process started under it carry the run's mark,
//!   the variable [`RUN_MARK`] set to a random value, in their environment.
//!   When the run ends, however it ends, every process of this user whose
//!   environment holds it is killed ([`sweep`]), whatever session or group
//!   it moved to (`setsid`).
//! - A run whose tool was killed outright (SIGKILL) leaves its folder, and
//!   maybe processes a cell started, behind. Before its first run, each
//!   `notebook run` looks for such folders ([`clear_dead_runs`]): a folder
//!   whose lock nobody holds (the process that held it is gone) has its
//!   mark swept and is removed.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};

/// The variable that marks the harness and everything started under it as
/// one run's.
pub const RUN_MARK: &str = "RESEARCH_COMPANION_NOTEBOOK_RUN";

/// How a run folder's name begins, in the temporary folder.
pub const FOLDER_PREFIX: &str = "research-companion-notebook-";

/// The file in a run folder that its owner holds locked.
const LOCK_FILE: &str = "owner.lock";

/// The file in a run folder that holds the run's mark.
const MARK_FILE: &str = "mark";

/// Rounds of a sweep at most: processes that start others while they are
/// being killed are found again on the next round.
const SWEEP_ROUNDS: usize = 50;

/// Between the rounds of a sweep.
const SWEEP_PAUSE: Duration = Duration::from_millis(20);

/// A run's folder and mark; the folder is removed when this is dropped.
#[derive(Debug)]
pub struct RunFolder {
    // Dropped first: the folder goes while its lock is still held.
    dir: tempfile::TempDir,
    _lock: File,
    mark: String,
}

impl RunFolder {
    /// A new folder in the temporary folder, locked, with a fresh mark.
    pub fn create() -> Result<RunFolder> {
        let cannot = |e: std::io::Error| {
            Error::Other(format!(
                "cannot make a temporary folder for the notebook in {}: {e}",
                std::env::temp_dir().display()
            ))
        };
        let dir = tempfile::Builder::new()
            .prefix(&format!("{FOLDER_PREFIX}{}-", std::process::id()))
            .tempdir()
            .map_err(cannot)?;
        let lock_path = dir.path().join(LOCK_FILE);
        let lock = File::create(&lock_path).map_err(|e| Error::io(&lock_path, e))?;
        // Where the file system cannot lock, the run goes on: its folder is
        // then never taken for a dead run's (another tool's try fails too).
        let _ = crate::sys::lock_exclusive(&lock);
        let mark = new_mark()?;
        let mark_path = dir.path().join(MARK_FILE);
        File::create(&mark_path)
            .and_then(|mut f| f.write_all(mark.as_bytes()))
            .map_err(|e| Error::io(&mark_path, e))?;
        Ok(RunFolder {
            dir,
            _lock: lock,
            mark,
        })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The run's value of [`RUN_MARK`].
    pub fn mark(&self) -> &str {
        &self.mark
    }
}

/// A random value for [`RUN_MARK`]: 16 hexadecimal digits.
fn new_mark() -> Result<String> {
    let mut buf = [0u8; 8];
    getrandom::fill(&mut buf)
        .map_err(|e| Error::Other(format!("cannot get random bytes for a notebook run: {e}")))?;
    Ok(crate::text::format::hex(&buf))
}

/// Whether `mark` is one [`new_mark`] makes.
fn is_mark(mark: &str) -> bool {
    mark.len() == 16 && mark.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether the environment of process `pid` holds `entry` (`NAME=value`).
/// False for a process that is gone, a zombie, or another user's.
fn environment_holds(pid: u32, entry: &[u8]) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == entry))
}

/// Whether process `pid` carries this run's mark.
pub fn carries_mark(pid: u32, mark: &str) -> bool {
    environment_holds(pid, format!("{RUN_MARK}={mark}").as_bytes())
}

/// The processes (other than this one) whose environment holds this
/// run's mark.
pub fn marked_processes(mark: &str) -> Vec<u32> {
    let entry = format!("{RUN_MARK}={mark}");
    let me = std::process::id();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me && environment_holds(pid, entry.as_bytes()))
        .collect()
}

/// Kills (SIGKILL) every process that carries `mark`, round after round
/// until none is left (or [`SWEEP_ROUNDS`] passed); returns how many were
/// killed. A killed process no longer counts once it is a zombie.
pub fn sweep(mark: &str) -> usize {
    if !is_mark(mark) {
        return 0;
    }
    let mut killed = std::collections::BTreeSet::new();
    for round in 0..SWEEP_ROUNDS {
        let found = marked_processes(mark);
        if found.is_empty() {
            break;
        }
        if round > 0 {
            std::thread::sleep(SWEEP_PAUSE);
        }
        for pid in found {
            if crate::sys::kill_process(pid).is_ok() {
                killed.insert(pid);
            }
        }
    }
    killed.len()
}

/// Whether process `pid` exists.
fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// The run folders in `temp` whose run is over (no process has the id in
/// their name, and no one holds their lock): each has every process
/// carrying its mark killed, then is removed. Folders of other users, of
/// runs still going, and not made by this version of the tool (no process
/// id in the name) are left alone. Returns the folders removed.
pub fn clear_dead_runs(temp: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(temp) else {
        return removed;
    };
    let uid = crate::sys::own_uid();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(owner) = name
            .to_str()
            .and_then(|n| n.strip_prefix(FOLDER_PREFIX))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let path = entry.path();
        let ours = std::fs::symlink_metadata(&path)
            .is_ok_and(|m| m.is_dir() && std::os::unix::fs::MetadataExt::uid(&m) == uid);
        if !ours {
            continue;
        }
        // Its owner is alive (making it, or running): not dead. A process
        // id used again only delays the clearing.
        if alive(owner) {
            continue;
        }
        // Held while the folder goes, so that no other tool clears it too.
        let lock = match File::open(path.join(LOCK_FILE)) {
            Ok(lock) => match crate::sys::try_lock_exclusive(&lock) {
                Ok(true) => Some(lock),
                _ => continue,
            },
            Err(_) => None,
        };
        if let Ok(mark) = std::fs::read_to_string(path.join(MARK_FILE)) {
            sweep(mark.trim());
        }
        if std::fs::remove_dir_all(&path).is_ok() {
            removed.push(path);
        }
        drop(lock);
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_is_sixteen_hex_digits() {
        let m = new_mark().unwrap();
        assert!(is_mark(&m), "{m}");
        assert!(!is_mark(""));
        assert!(!is_mark("0123456789abcdeg"));
        assert_eq!(sweep("not a mark"), 0);
    }

    #[test]
    fn a_sweep_kills_every_process_with_the_mark_whatever_its_session() {
        let folder = RunFolder::create().unwrap();
        let mut child = std::process::Command::new("sh")
            .args(["-c", "setsid sleep 60 & sleep 60"])
            .env(RUN_MARK, folder.mark())
            .spawn()
            .unwrap();
        let mut found = Vec::new();
        for _ in 0..500 {
            found = marked_processes(folder.mark());
            if found.len() >= 2 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(found.len() >= 2, "{found:?}");
        assert!(sweep(folder.mark()) >= 2);
        let _ = child.wait();
        for _ in 0..500 {
            if marked_processes(folder.mark()).is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(marked_processes(folder.mark()), Vec::<u32>::new());
    }

    #[test]
    fn a_folder_is_cleared_only_once_its_owner_is_gone() {
        let temp = tempfile::tempdir().unwrap();
        // A process id no process has any more.
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        let gone_pid = gone.id();
        gone.wait().unwrap();
        let make = |name: &str| {
            let p = temp.path().join(name);
            std::fs::create_dir(&p).unwrap();
            std::fs::write(p.join(LOCK_FILE), "").unwrap();
            std::fs::write(p.join(MARK_FILE), "00000000000000ff").unwrap();
            p
        };
        let held = make(&format!("{FOLDER_PREFIX}{gone_pid}-held"));
        let lock = File::open(held.join(LOCK_FILE)).unwrap();
        assert!(crate::sys::try_lock_exclusive(&lock).unwrap());
        let dead = make(&format!("{FOLDER_PREFIX}{gone_pid}-dead"));
        let other = make("research-companion-notebook-nopid");
        // Its owner is alive: being made (no lock file yet), or running.
        let live = make(&format!("{FOLDER_PREFIX}{}-live", std::process::id()));
        let making = temp
            .path()
            .join(format!("{FOLDER_PREFIX}{}-new", std::process::id()));
        std::fs::create_dir(&making).unwrap();
        assert_eq!(clear_dead_runs(temp.path()), vec![dead.clone()]);
        assert!(held.exists() && other.exists() && making.exists() && live.exists());
        assert!(!dead.exists());
        drop(lock);
        assert_eq!(clear_dead_runs(temp.path()), vec![held.clone()]);
    }

    #[test]
    fn a_run_folder_goes_when_dropped() {
        let folder = RunFolder::create().unwrap();
        let path = folder.path().to_path_buf();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        assert!(
            name.starts_with(&format!("{FOLDER_PREFIX}{}-", std::process::id())),
            "{name}"
        );
        assert_eq!(
            std::fs::read_to_string(path.join(MARK_FILE)).unwrap(),
            folder.mark()
        );
        // Its owner holds the lock: no one else may clear it.
        let lock = File::open(path.join(LOCK_FILE)).unwrap();
        assert!(!crate::sys::try_lock_exclusive(&lock).unwrap());
        drop(folder);
        assert!(!path.exists());
    }
}
