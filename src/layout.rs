//! The on-disk layout, owned in one place: every path the tool reads or
//! writes under its project root, and every file name it gives a snapshot, a
//! record or a record's evidence, is built here from ids that were validated
//! first. Paths a user names on the command line (`--out FILE`) are theirs.
//!
//! Imports only `ids`, so every layer above can use it.

use std::path::{Path, PathBuf};

use crate::ids::{ChapterKey, RunId};

/// Name of the folder that holds chapter manifests and snapshots.
pub const SNAPSHOTS_DIR: &str = "book-snapshots";
/// Name of the folder that holds research and experiment records.
pub const RECORDS_DIR: &str = "records";
/// The project's folder for what the tool builds (never evidence).
pub const BUILD_DIR: &str = "build";
/// Name of the folder at the root where reads of `records/` are cached
/// (`records::cache`): never committed, rebuilt from the records at will.
pub const CACHE_DIR: &str = ".research-companion-cache";
/// Environment variable that names the root, like `--root`.
pub const ROOT_ENV: &str = "RESEARCH_COMPANION_ROOT";

/// The person-written file of a chapter's folder.
pub const CHAPTER_MANIFEST: &str = "chapter.yaml";
/// The tool's file of a chapter's folder: the stored snapshots.
pub const CHAPTER_STATE: &str = "snapshots.yaml";

/// Suffix of record files.
pub const RECORD_SUFFIX: &str = ".record.yaml";
/// Suffix of a retraction's file (a run withdrawn, beside the records).
pub const RETRACTION_SUFFIX: &str = ".retraction.yaml";
/// Suffix of the report stored beside a research record.
pub const REPORT_SUFFIX: &str = ".report.md";
/// Suffix of the run file stored beside an experiment record.
pub const RUN_SUFFIX: &str = ".run.yaml";
/// Suffix of the notebook run stored beside a notebook record.
pub const NOTEBOOK_RUN_SUFFIX: &str = ".notebook.yaml";

/// The evidence a record keeps beside itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// A research report (Markdown).
    Report,
    /// A benchmark run file (YAML).
    Run,
    /// A notebook run (YAML).
    NotebookRun,
}

/// Paths under one project root.
#[derive(Debug, Clone)]
pub struct Layout {
    root: PathBuf,
}

impl Layout {
    /// A layout rooted at `root` as given.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Layout { root: root.into() }
    }

    /// The root named explicitly, or else the nearest folder at or above the
    /// current directory that holds `book-snapshots/`, or else the current
    /// directory.
    pub fn discover(explicit: Option<PathBuf>) -> Self {
        if let Some(root) = explicit {
            return Layout::new(root);
        }
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let found = cwd.ancestors().find(|dir| dir.join(SNAPSHOTS_DIR).is_dir());
        Layout::new(found.map(Path::to_path_buf).unwrap_or(cwd))
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How a record names a file it was made from, so the record reads the
    /// same on every machine and publishes no local folder: the path
    /// relative to the project root when the file is inside it, otherwise
    /// only the file's name.
    pub fn portable_source(&self, file: &Path) -> String {
        let absolute = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        let file = absolute(file);
        match file.strip_prefix(absolute(&self.root)) {
            Ok(inside) => inside.to_string_lossy().replace('\\', "/"),
            Err(_) => file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }

    /// `build/`: where the tool's builds go by default (the site), and
    /// where the README writes drafts; it ignores itself in git.
    pub fn build_dir(&self) -> PathBuf {
        self.root.join(BUILD_DIR)
    }

    /// `book-snapshots/`.
    pub fn snapshots_root(&self) -> PathBuf {
        self.root.join(SNAPSHOTS_DIR)
    }

    /// `book-snapshots/<book>/`.
    pub fn book_dir(&self, book: &crate::ids::Id) -> PathBuf {
        self.snapshots_root().join(book.as_str())
    }

    /// `book-snapshots/<book>/<chapter>/`.
    pub fn chapter_dir(&self, key: &ChapterKey) -> PathBuf {
        self.book_dir(&key.book).join(key.chapter.as_str())
    }

    /// `book-snapshots/<book>/<chapter>/chapter.yaml`.
    pub fn chapter_manifest(&self, key: &ChapterKey) -> PathBuf {
        self.chapter_dir(key).join(CHAPTER_MANIFEST)
    }

    /// `book-snapshots/<book>/<chapter>/snapshots.yaml`: what the tool
    /// maintains for the chapter.
    pub fn chapter_state(&self, key: &ChapterKey) -> PathBuf {
        self.chapter_dir(key).join(CHAPTER_STATE)
    }

    /// `book-snapshots/<book>/<chapter>/claims.yaml`.
    pub fn claims_file(&self, key: &ChapterKey) -> PathBuf {
        self.chapter_dir(key).join("claims.yaml")
    }

    /// A stored snapshot, by the file name its manifest gives (relative to the
    /// chapter folder, e.g. `snapshots/0001-52eb51ad53f2.txt`).
    pub fn snapshot_file(&self, key: &ChapterKey, file: &str) -> PathBuf {
        self.chapter_dir(key).join(file)
    }

    /// The manifest name of the `seq`th snapshot (1-based) whose prose has
    /// the fingerprint `hex`: `snapshots/NNNN-<first 12 hex>.txt`.
    pub fn new_snapshot_name(seq: usize, hex: &str) -> String {
        let short: String = hex.chars().take(12).collect();
        format!("snapshots/{seq:04}-{short}.txt")
    }

    /// `book-snapshots/<book>/<chapter>/notebooks.yaml`: the chapter's
    /// stored notebooks, which the tool maintains.
    pub fn notebook_state(&self, key: &ChapterKey) -> PathBuf {
        self.chapter_dir(key).join("notebooks.yaml")
    }

    /// A stored notebook, by the file name notebooks.yaml gives (relative to
    /// the chapter folder, e.g. `notebooks/0001-0123456789ab.ipynb`).
    pub fn notebook_file(&self, key: &ChapterKey, file: &str) -> PathBuf {
        self.chapter_dir(key).join(file)
    }

    /// The name of the `seq`th stored notebook (1-based) whose nb-v1
    /// fingerprint is `hex`: `notebooks/NNNN-<first 12 hex>.ipynb`.
    pub fn new_notebook_name(seq: usize, hex: &str) -> String {
        let short: String = hex.chars().take(12).collect();
        format!("notebooks/{seq:04}-{short}.ipynb")
    }

    /// `records/`.
    pub fn records_root(&self) -> PathBuf {
        self.root.join(RECORDS_DIR)
    }

    /// `.research-companion-cache/`, the cache of record reads.
    pub fn cache_dir(&self) -> PathBuf {
        self.root.join(CACHE_DIR)
    }

    /// `records/<book>/<chapter>/`.
    pub fn records_dir(&self, key: &ChapterKey) -> PathBuf {
        self.records_root()
            .join(key.book.as_str())
            .join(key.chapter.as_str())
    }

    /// The record file of a run: `records/<book>/<chapter>/<stem>.record.yaml`.
    pub fn record_file(&self, id: &RunId) -> PathBuf {
        self.records_dir(&id.chapter)
            .join(Self::record_name(&id.stem()))
    }

    /// The file of a retraction: `records/<book>/<chapter>/<stem>.retraction.yaml`.
    pub fn retraction_file(&self, id: &RunId) -> PathBuf {
        self.records_dir(&id.chapter)
            .join(format!("{}{RETRACTION_SUFFIX}", id.stem()))
    }

    /// The file name of a record, from its stem.
    pub fn record_name(stem: &str) -> String {
        format!("{stem}{RECORD_SUFFIX}")
    }

    /// The file name a record's evidence gets, from the record's stem.
    pub fn evidence_name(stem: &str, kind: Evidence) -> String {
        let suffix = match kind {
            Evidence::Report => REPORT_SUFFIX,
            Evidence::Run => RUN_SUFFIX,
            Evidence::NotebookRun => NOTEBOOK_RUN_SUFFIX,
        };
        format!("{stem}{suffix}")
    }

    /// A record's evidence file, by the name the record gives it.
    pub fn evidence_file(&self, key: &ChapterKey, name: &str) -> PathBuf {
        self.records_dir(key).join(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_hangs_off_the_root_and_the_ids() {
        let l = Layout::new("/p");
        let key = ChapterKey::parse("book/06").unwrap().unwrap();
        assert_eq!(
            l.chapter_manifest(&key),
            Path::new("/p/book-snapshots/book/06/chapter.yaml")
        );
        assert_eq!(
            l.snapshot_file(&key, &Layout::new_snapshot_name(2, &"ab".repeat(32))),
            Path::new("/p/book-snapshots/book/06/snapshots/0002-abababababab.txt")
        );
        let id = RunId::parse("book:06:20261130T102523:b7cc08571789").unwrap();
        assert_eq!(
            l.record_file(&id),
            Path::new("/p/records/book/06/20261130T102523-b7cc08571789.record.yaml")
        );
        assert_eq!(
            Layout::evidence_name(&id.stem(), Evidence::Run),
            "20261130T102523-b7cc08571789.run.yaml"
        );
    }
}
