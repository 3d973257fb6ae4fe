//! The one way this tool writes files: to a temporary file in the target's
//! directory, flushed to disk, then renamed into place, with the directory
//! flushed too. A crash leaves either the old state or the new, never a torn
//! file. Temporary files start with `.tmp-` so readers can skip them.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// Prefix of temporary files; readers ignore files that start with it.
pub const TEMP_PREFIX: &str = ".tmp-";

/// Writes a new file; fails with [`Error::WouldOverwrite`] if `path` exists,
/// even when another process creates it at the same moment.
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = stage(path, bytes)?;
    match tmp.persist_noclobber(path) {
        Ok(_) => sync_dir(path),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(Error::WouldOverwrite {
                path: path.to_path_buf(),
            })
        }
        Err(e) => Err(Error::io(path, e.error)),
    }
}

/// Replaces `path` (or creates it) atomically, keeping the mode of the file
/// it replaces. Used only for manifests the tool owns, such as chapter.yaml,
/// never for snapshots or records.
pub fn replace(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = stage(path, bytes)?;
    if let Ok(meta) = std::fs::metadata(path) {
        tmp.as_file()
            .set_permissions(meta.permissions())
            .map_err(|e| Error::io(tmp.path(), e))?;
    }
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    sync_dir(path)
}

/// Test aid, in debug builds only: writing a file with this name fails as
/// on a full disk, so tests can check that a failed command leaves the tree
/// as it found it.
pub const FAIL_WRITE_ENV: &str = "RESEARCH_COMPANION_FAIL_WRITE";

/// The injected failure (see [`FAIL_WRITE_ENV`]) for writers that do not go
/// through this module, such as the static site's staging folder.
pub fn injected(path: &Path) -> Result<()> {
    injected_failure(path).map_err(|e| Error::io(path, e))
}

fn injected_failure(path: &Path) -> std::io::Result<()> {
    if cfg!(debug_assertions)
        && let Some(name) = std::env::var_os(FAIL_WRITE_ENV)
        && path.file_name() == Some(name.as_os_str())
    {
        return Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            "no space left on device (injected)",
        ));
    }
    Ok(())
}

fn stage(path: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile> {
    use std::os::unix::fs::PermissionsExt;
    let dir = parent(path);
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    // Created 0666 less the umask, like any file a program writes (tempfile
    // alone would make it 0600).
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    injected_failure(path).map_err(|e| Error::io(path, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(tmp.path(), e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::io(tmp.path(), e))?;
    Ok(tmp)
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn sync_dir(path: &Path) -> Result<()> {
    let dir = parent(path);
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}

/// Removes temporary files older than `max_age` left in `dir` by writers that
/// were killed mid-write. Errors are ignored: cleaning up is best effort.
pub fn sweep_stale_temp_files(dir: &Path, max_age: std::time::Duration) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with(TEMP_PREFIX) {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > max_age);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_new_refuses_to_overwrite_and_keeps_the_original() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        write_new(&path, b"first").unwrap();
        let err = write_new(&path, b"second").unwrap_err();
        assert!(matches!(err, Error::WouldOverwrite { .. }), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn new_files_follow_the_umask_and_replaced_ones_keep_their_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let path = dir.path().join("new.txt");
        write_new(&path, b"x").unwrap();
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let umask = status
            .lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .map(|v| u32::from_str_radix(v.trim(), 8).unwrap())
            .unwrap();
        assert_eq!(mode(&path), 0o666 & !umask, "umask {umask:o}");
        let kept = dir.path().join("kept.yaml");
        std::fs::write(&kept, b"one").unwrap();
        std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640)).unwrap();
        replace(&kept, b"two").unwrap();
        assert_eq!(mode(&kept), 0o640);
    }

    #[test]
    fn replace_swaps_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.yaml");
        replace(&path, b"one").unwrap();
        replace(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
    }
}
