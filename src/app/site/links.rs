//! Where the site's pages link a record's files and the stored notebook:
//! where they live in the project (a relative path from the page, so the
//! site opened from disk beside the project finds them), under a base URL
//! the user gives (`--base-url`, for a site served elsewhere), or to copies
//! inside the site (`--copy-records`).

use std::path::{Path, PathBuf};

use crate::app::Project;
use crate::error::Result;

/// How the pages reach files of the project.
#[derive(Debug, Clone)]
pub enum FileLinks {
    /// Relative links from the site's folder to the project root (`..`,
    /// `../research`, ...), as a URL path with `/` at its end or empty.
    Project { to_root: String },
    /// `<base>/<path from the project root>`.
    Url(String),
    /// The files are copied into the site, each at its path from the
    /// project root.
    Copied,
}

impl FileLinks {
    /// The links for a site written to `out`.
    pub fn new(project: &Project, out: &Path, base_url: Option<&str>, copy: bool) -> Result<Self> {
        if copy {
            return Ok(FileLinks::Copied);
        }
        if let Some(base) = base_url {
            return Ok(FileLinks::Url(format!("{}/", base.trim_end_matches('/'))));
        }
        let site = crate::app::output_folder::resolve(out)?;
        let root = crate::app::output_folder::resolve(project.layout().root())?;
        Ok(FileLinks::Project {
            to_root: relative(&site, &root),
        })
    }

    /// Whether the files are copied into the site.
    pub fn copies(&self) -> bool {
        matches!(self, FileLinks::Copied)
    }

    /// The link to `file` (a path under the project root) from a page
    /// `depth` folders below the site's root; None for a file outside the
    /// root.
    pub fn to(&self, project: &Project, file: &Path, depth: usize) -> Option<String> {
        let rel = from_root(project, file)?;
        let up = "../".repeat(depth);
        Some(match self {
            FileLinks::Project { to_root } => format!("{up}{to_root}{rel}"),
            FileLinks::Url(base) => format!("{base}{rel}"),
            FileLinks::Copied => format!("{up}{rel}"),
        })
    }
}

/// Every file of `records` (each record and its evidence), copied into the
/// site at its path from the project root. The copies are published, so no
/// URL in them keeps a secret, and a notebook run's files (stored, maybe,
/// before a redaction rule was added) go through the run redaction again.
pub fn copy_records(
    project: &Project,
    records: &[crate::records::Record],
    files: &mut Vec<super::folder::SiteFile>,
) -> Result<()> {
    let layout = project.layout();
    for r in records {
        for path in crate::records::store::record_files(layout, r) {
            // Checked first: a FIFO would hang the read.
            crate::text::owned::check_owned(&path, &layout.records_root())?;
            let bytes = crate::text::read::read_at_most(&path, crate::text::read::MAX_FILE_BYTES)
                .map_err(|e| crate::error::Error::io(&path, e))?;
            let bytes = match String::from_utf8(bytes) {
                Ok(text) if r.notebook.is_some() => {
                    crate::notebook::run::redact_run_text(&text).into_bytes()
                }
                Ok(text) => crate::text::redact::redact_urls_in(&text)
                    .into_owned()
                    .into_bytes(),
                Err(e) => e.into_bytes(),
            };
            if let Some(rel) = from_root(project, &path) {
                files.push((rel, bytes));
            }
        }
    }
    Ok(())
}

/// `file`'s path from the project root, as a URL path (each part
/// percent-encoded).
pub fn from_root(project: &Project, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(project.layout().root()).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| encode(&c.as_os_str().to_string_lossy()))
        .collect();
    Some(parts.join("/"))
}

/// The path from folder `from` to folder `to` (both absolute, resolved),
/// as a URL path ending in `/`, or empty when they are the same.
fn relative(from: &Path, to: &Path) -> String {
    let a: Vec<_> = from.components().collect();
    let b: Vec<_> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..a.len() {
        out.push("..");
    }
    for part in &b[common..] {
        out.push(part.as_os_str());
    }
    out.components()
        .map(|c| format!("{}/", encode(&c.as_os_str().to_string_lossy())))
        .collect()
}

/// A path segment with everything but unreserved characters
/// percent-encoded.
fn encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_between_folders() {
        assert_eq!(relative(Path::new("/p/site"), Path::new("/p")), "../");
        assert_eq!(
            relative(Path::new("/tmp/out"), Path::new("/work/my book")),
            "../../work/my%20book/"
        );
        assert_eq!(relative(Path::new("/p"), Path::new("/p")), "");
    }
}
