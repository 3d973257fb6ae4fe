//! The on-disk layout, owned in one place: every path the tool reads or writes
//! under its root is built here, from ids that were validated first.

use std::path::{Path, PathBuf};

use crate::chapter::ChapterKey;

/// Name of the folder that holds chapter manifests and snapshots.
pub const SNAPSHOTS_DIR: &str = "book-snapshots";
/// Name of the folder that holds research and experiment records.
pub const RECORDS_DIR: &str = "records";
/// Environment variable that names the root, like `--root`.
pub const ROOT_ENV: &str = "RESEARCH_COMPANION_ROOT";

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

    /// `book-snapshots/`.
    pub fn snapshots_root(&self) -> PathBuf {
        self.root.join(SNAPSHOTS_DIR)
    }

    /// `book-snapshots/<book>/<chapter>/`.
    pub fn chapter_dir(&self, key: &ChapterKey) -> PathBuf {
        self.snapshots_root()
            .join(key.book.as_str())
            .join(key.chapter.as_str())
    }

    /// `book-snapshots/<book>/<chapter>/chapter.yaml`.
    pub fn chapter_manifest(&self, key: &ChapterKey) -> PathBuf {
        self.chapter_dir(key).join("chapter.yaml")
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

    /// `records/<book>/<chapter>/`.
    pub fn records_dir(&self, key: &ChapterKey) -> PathBuf {
        self.root
            .join(RECORDS_DIR)
            .join(key.book.as_str())
            .join(key.chapter.as_str())
    }

    /// `records/`.
    pub fn records_root(&self) -> PathBuf {
        self.root.join(RECORDS_DIR)
    }
}
