//! A cache of the two costs of reading a chapter's records: parsing each
//! record file, and hashing each evidence file to check that it still has
//! the SHA-256 its record holds. With 10,000 records these take seconds;
//! read from the cache, a fraction of one.
//!
//! The cache lives in `.research-companion-cache/` at the project's root,
//! one JSON file per chapter and kind (`records-<book>-<chapter>.json`,
//! `evidence-<book>-<chapter>.json`); the folder holds a `.gitignore` of
//! `*`, so git never offers it for a commit. It is never the source of
//! truth: each entry is keyed on its file's name, size, modification and
//! change times and inode, so a record or evidence file added, edited or
//! replaced is read again; a cache written by another build of the tool,
//! or that does not parse, is ignored whole and written again; one that
//! cannot be written (a read-only project) only makes the next read slow.
//! A record that does not parse is never cached, so it is reported as
//! broken every time; nor is a failed evidence check.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::ids::ChapterKey;
use crate::layout::Layout;

/// Schema of every cache file; a change to what an entry holds changes it.
const CACHE_SCHEMA: &str = "research_companion.records-cache.v1";

/// A larger file is not a cache this tool wrote.
const MAX_CACHE_BYTES: u64 = 1 << 30;

/// What the cache folder's `.gitignore` says.
const GITIGNORE: &str =
    "# research_companion's cache of record reads, rebuilt from records/: never commit it\n*\n";

/// The build that writes and trusts a cache: another version, another
/// commit or another build of this one (the binary's size and time) may
/// read records differently.
fn writer() -> String {
    let binary = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| format!("{}-{}.{}", m.len(), m.mtime(), m.mtime_nsec()))
        .unwrap_or_else(|_| "unknown".into());
    format!(
        "{} {} {binary}",
        env!("CARGO_PKG_VERSION"),
        env!("RC_GIT_COMMIT")
    )
}

/// What identifies one version of a file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    size: u64,
    /// Seconds and nanoseconds.
    mtime: [i64; 2],
    ctime: [i64; 2],
    inode: u64,
}

impl Stamp {
    /// The stamp of a regular file's metadata (read without following a
    /// link); None for anything else.
    pub fn of_meta(meta: &std::fs::Metadata) -> Option<Stamp> {
        meta.file_type().is_file().then(|| Stamp {
            size: meta.len(),
            mtime: [meta.mtime(), meta.mtime_nsec()],
            ctime: [meta.ctime(), meta.ctime_nsec()],
            inode: meta.ino(),
        })
    }
}

/// The stamp of each regular file in `dir`, by name: one pass over the
/// folder, each file looked up from it rather than by its whole path.
pub fn stamps_in(dir: &Path) -> HashMap<String, Stamp> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let stamp = Stamp::of_meta(&e.metadata().ok()?)?;
            Some((e.file_name().to_string_lossy().into_owned(), stamp))
        })
        .collect()
}

#[derive(Clone, Serialize, Deserialize)]
struct CacheEntry<T> {
    stamp: Stamp,
    value: T,
}

#[derive(Serialize, Deserialize)]
struct CacheFile<T> {
    schema: String,
    writer: String,
    entries: HashMap<String, CacheEntry<T>>,
}

/// One cache file of one chapter, as read at the start of a command, with
/// what the command found since.
pub struct Cache<T> {
    path: PathBuf,
    read: HashMap<String, CacheEntry<T>>,
    kept: HashMap<String, CacheEntry<T>>,
    added: bool,
}

impl<T: Serialize + DeserializeOwned + Clone> Cache<T> {
    /// The chapter's cache of `kind` (`records` or `evidence`); empty when
    /// there is none or it cannot be trusted.
    pub fn open(layout: &Layout, key: &ChapterKey, kind: &str) -> Self {
        let path = layout.cache_dir().join(format!(
            "{kind}-{}-{}.json",
            key.book.as_str(),
            key.chapter.as_str()
        ));
        let read = read_entries(&path).unwrap_or_default();
        Cache {
            path,
            read,
            kept: HashMap::new(),
            added: false,
        }
    }

    /// The value cached for `name` when its file still has `stamp`.
    pub fn get(&mut self, name: &str, stamp: Stamp) -> Option<T> {
        let entry = self.read.get(name).filter(|e| e.stamp == stamp)?;
        self.kept.insert(name.to_string(), entry.clone());
        Some(entry.value.clone())
    }

    /// The value cached for `name` when its file still has `stamp`, taken
    /// out of the cache: a reader that takes must give every value back
    /// through [`Cache::save_all`] (no copy is made of what it takes).
    pub fn take(&mut self, name: &str, stamp: Stamp) -> Option<T> {
        if self.read.get(name)?.stamp != stamp {
            return None;
        }
        self.read.remove(name).map(|e| e.value)
    }

    /// Caches `value`, read from `name` when its file had `stamp`.
    pub fn put(&mut self, name: &str, stamp: Stamp, value: T) {
        self.kept
            .insert(name.to_string(), CacheEntry { stamp, value });
        self.added = true;
    }

    /// Writes the cache back when this command found something it did not
    /// hold; with `prune`, entries this command did not read are dropped
    /// (the files are gone). Any failure is ignored: the cache is only
    /// ever a shortcut.
    pub fn save(mut self, prune: bool) {
        let pruned = prune && self.kept.len() != self.read.len();
        if !self.added && !pruned {
            return;
        }
        if !prune {
            for (name, entry) in self.read.drain() {
                self.kept.entry(name).or_insert(entry);
            }
        }
        let file = CacheFile {
            schema: CACHE_SCHEMA.to_string(),
            writer: writer(),
            entries: self.kept,
        };
        if let Ok(bytes) = serde_json::to_vec(&file) {
            write(&self.path, &bytes);
        }
    }
}

impl<T> Cache<T> {
    /// Writes the cache as exactly `entries` (name, stamp, value) when
    /// they differ from what it held: some value was not taken from it
    /// (`fresh`), or it held entries nobody took (the files are gone).
    pub fn save_all<U: Serialize>(self, fresh: bool, entries: Vec<(String, Stamp, &U)>) {
        if !fresh && self.read.is_empty() {
            return;
        }
        let file = CacheFile {
            schema: CACHE_SCHEMA.to_string(),
            writer: writer(),
            entries: entries
                .into_iter()
                .map(|(name, stamp, value)| (name, CacheEntry { stamp, value }))
                .collect(),
        };
        if let Ok(bytes) = serde_json::to_vec(&file) {
            write(&self.path, &bytes);
        }
    }
}

/// A cache file's entries, when it is one this build wrote.
fn read_entries<T: DeserializeOwned>(path: &Path) -> Option<HashMap<String, CacheEntry<T>>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_file() || meta.len() > MAX_CACHE_BYTES {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    let file: CacheFile<T> = serde_json::from_slice(&bytes).ok()?;
    (file.schema == CACHE_SCHEMA && file.writer == writer()).then_some(file.entries)
}

/// Writes a cache file, its folder and the folder's `.gitignore` first;
/// quietly gives up when any of it cannot be written.
fn write(path: &Path, bytes: &[u8]) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let ignore = dir.join(".gitignore");
    if std::fs::symlink_metadata(&ignore).is_err()
        && crate::atomic::write_new(&ignore, GITIGNORE.as_bytes()).is_err()
    {
        return;
    }
    let _ = crate::atomic::replace(path, bytes);
}

/// Whether `value` reads back from the cache exactly as it is: only such
/// values are cached, so a reader never sees a cached record differ from
/// the file.
pub fn round_trips<T: Serialize + DeserializeOwned + PartialEq>(value: &T) -> bool {
    serde_json::to_vec(value)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<T>(&bytes).ok())
        .is_some_and(|back| back == *value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Record;

    /// Every kind of record this tool writes (the fixtures' research and
    /// experiment runs, the benchmark's seeds with a notebook run) reads
    /// back from the cache as it was parsed: none is left out of it.
    #[test]
    fn every_kind_of_record_round_trips_through_the_cache() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut kinds = std::collections::BTreeSet::new();
        for dir in [
            "tests/fixtures/records/pytorch-from-first-principles/06",
            "tests/fixtures/written-records",
            "benches/long_lived_book/seed",
        ] {
            for e in std::fs::read_dir(repo.join(dir)).unwrap().flatten() {
                let path = e.path();
                if !path.to_string_lossy().ends_with(".record.yaml") {
                    continue;
                }
                let record: Record = crate::yaml_io::read_finite(&path).unwrap();
                assert!(round_trips(&record), "{}", path.display());
                kinds.insert(record.kind.to_string());
            }
        }
        assert_eq!(kinds.len(), 3, "{kinds:?}");
    }

    /// A stamp names a file's size, times and inode: another file, or the
    /// same file written again, has another.
    #[test]
    fn a_file_written_again_has_another_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::write(&a, "one").unwrap();
        let meta = |p: &Path| Stamp::of_meta(&std::fs::symlink_metadata(p).unwrap());
        let first = meta(&a).unwrap();
        std::fs::write(&a, "two, longer").unwrap();
        let stamps = stamps_in(dir.path());
        assert_ne!(stamps["a"], first);
        assert_eq!(Some(stamps["a"]), meta(&a));
        assert!(Stamp::of_meta(&std::fs::symlink_metadata(dir.path()).unwrap()).is_none());
    }
}
