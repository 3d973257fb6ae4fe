//! The site's folder on disk: the file that marks it as this tool's, and
//! writing it whole into a temporary folder that is then moved into place,
//! so a failed run leaves the old site as it was.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A file of the site: its path from the site's root, and its bytes.
pub type SiteFile = (String, Vec<u8>);

/// The file that marks a folder as a site this tool wrote.
pub const SITE_MARKER: &str = ".research-companion-site";

/// Refuses a target that is a file, or a folder with something in it that
/// this tool did not write.
pub fn check_target(out: &Path) -> Result<()> {
    match std::fs::read_dir(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if out.exists() && !out.is_dir() => Err(Error::invalid(out, "is not a folder")),
        Err(e) => Err(Error::io(out, e)),
        Ok(mut entries) => {
            if entries.next().is_none() || out.join(SITE_MARKER).is_file() {
                Ok(())
            } else {
                Err(Error::invalid(
                    out,
                    format!(
                        "is not empty and holds no {SITE_MARKER}, so this tool did not write it; refusing to replace it"
                    ),
                ))
            }
        }
    }
}

/// Writes `files` (paths from the folder's root) into a new folder beside
/// `out`, then swaps it in; the old site is removed only once the new one
/// is in place.
pub fn write_folder(out: &Path, files: Vec<SiteFile>) -> Result<()> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
    let staging = tempfile::Builder::new()
        .prefix(".tmp-site-")
        .tempdir_in(&parent)
        .map_err(|e| Error::io(&parent, e))?;
    for (rel, bytes) in files.iter().chain(std::iter::once(&(
        SITE_MARKER.to_string(),
        b"written by research_companion site; this folder is replaced on the next run\n".to_vec(),
    ))) {
        let path = staging.path().join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        crate::atomic::injected(&path)?;
        std::fs::write(&path, bytes).map_err(|e| Error::io(&path, e))?;
    }
    let staged = staging.keep();
    let old = if out.exists() {
        let aside = tempfile::Builder::new()
            .prefix(".old-site-")
            .tempdir_in(&parent)
            .map_err(|e| Error::io(&parent, e))?
            .keep();
        let aside = aside.join("site");
        std::fs::rename(out, &aside).map_err(|e| Error::io(out, e))?;
        Some(aside)
    } else {
        None
    };
    if let Err(e) = std::fs::rename(&staged, out) {
        // Put the old site back before saying what failed.
        if let Some(aside) = &old {
            let _ = std::fs::rename(aside, out);
        }
        let _ = std::fs::remove_dir_all(&staged);
        return Err(Error::io(out, e));
    }
    if let Some(aside) = old.as_ref().and_then(|a| a.parent()) {
        let _ = std::fs::remove_dir_all(aside);
    }
    Ok(())
}
