//! Files the tool reads from its own folders (`book-snapshots/`,
//! `records/`, a templates folder) checked before they are read: a regular
//! file that lies inside the folder once links are followed, so a link out
//! (to /etc/passwd, say) is never quoted as chapter text (`check_owned`,
//! `check_owned_in`, `read_owned`).

use std::path::Path;

use super::read::{file_kind, read_utf8};
use crate::error::{Error, Result};

/// Checks a file the tool is about to read from one of its own folders
/// (`book-snapshots/`, `records/`, a templates folder): it must be a regular
/// file (not a FIFO or a device, which would hang or never end) and lie
/// inside `folder` once links are followed (a link out is refused, so a
/// snapshot linked to /etc/passwd is never quoted as chapter text).
pub fn check_owned(path: &Path, folder: &Path) -> Result<()> {
    let folder = folder.canonicalize().map_err(|e| Error::io(folder, e))?;
    check_owned_in(path, &folder)
}

/// [`check_owned`] with the folder already canonical (for checking many
/// files of one folder).
pub fn check_owned_in(path: &Path, folder: &Path) -> Result<()> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                && std::fs::symlink_metadata(path).is_ok() =>
        {
            return Err(Error::invalid(
                path,
                "a link to a file that does not exist; refusing to read it",
            ));
        }
        Err(e) => return Err(Error::io(path, e)),
    };
    if !meta.is_file() {
        return Err(Error::invalid(
            path,
            format!(
                "{}, not a regular file; refusing to read it",
                file_kind(&meta.file_type())
            ),
        ));
    }
    // A plain file (not a link) under a canonical folder needs no lookup.
    let is_link = std::fs::symlink_metadata(path)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(true);
    let real = if !is_link
        && path.starts_with(folder)
        && !path
            .components()
            .any(|c| c == std::path::Component::ParentDir)
    {
        path.to_path_buf()
    } else {
        path.canonicalize().map_err(|e| Error::io(path, e))?
    };
    if !real.starts_with(folder) {
        return Err(Error::invalid(
            path,
            format!(
                "leads outside {} (to {}); refusing to read it",
                folder.display(),
                real.display()
            ),
        ));
    }
    Ok(())
}

/// [`read_utf8`] for a file in one of the tool's own folders
/// ([`check_owned`] first).
pub fn read_owned(path: &Path, folder: &Path) -> Result<String> {
    check_owned(path, folder)?;
    read_utf8(path)
}
