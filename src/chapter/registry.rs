//! The chapter registry: the chapters under `book-snapshots/`, found by
//! their folders (without opening anything), named by stable id, key or bare
//! chapter id, and loaded with their chapter.yaml and snapshots.yaml checked.

use super::Chapter;
use super::manifest::{self, ChapterManifest, SnapshotState};
use crate::error::{Error, Result};
use crate::ids::{ChapterKey, Id};
use crate::layout::Layout;
use crate::yaml_io;

/// The chapters registered under one root.
pub struct Registry {
    layout: Layout,
    keys: Vec<ChapterKey>,
    /// Chapter folders whose book or chapter folder name is not an id: they
    /// cannot be named, so each is reported as broken rather than dropped.
    misnamed: Vec<Error>,
}

impl Registry {
    /// Lists `book-snapshots/<book>/<chapter>/` folders without parsing: a
    /// folder holding a `chapter.yaml` or a `snapshots.yaml` of any file type
    /// (a FIFO, a folder or a dangling link included) is a chapter, so one
    /// whose file cannot be read is listed as broken and never vanishes.
    /// Nothing is opened: the types are read with `lstat`.
    pub fn open(layout: &Layout) -> Result<Self> {
        let root = layout.snapshots_root();
        let mut keys = Vec::new();
        let mut misnamed = Vec::new();
        if root.is_dir() {
            for book in read_dir_sorted(&root)? {
                let book_dir = root.join(&book);
                if !book_dir.is_dir() {
                    continue;
                }
                for chapter in read_dir_sorted(&book_dir)? {
                    let dir = book_dir.join(&chapter);
                    let present = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
                    if !dir.is_dir()
                        || !(present(crate::layout::CHAPTER_MANIFEST)
                            || present(crate::layout::CHAPTER_STATE))
                    {
                        continue;
                    }
                    match Id::parse(&book).and_then(|b| Ok((b, Id::parse(&chapter)?))) {
                        Ok((book, chapter)) => keys.push(ChapterKey { book, chapter }),
                        Err(e) => misnamed.push(Error::invalid(
                            &dir,
                            format!("the folder's name cannot be a chapter's: {e}"),
                        )),
                    }
                }
            }
        }
        Ok(Registry {
            layout: layout.clone(),
            keys,
            misnamed,
        })
    }

    /// Chapter folders whose names are not ids, one error each.
    pub fn misnamed(&self) -> &[Error] {
        &self.misnamed
    }

    /// Every registered chapter, sorted by book then chapter.
    pub fn keys(&self) -> &[ChapterKey] {
        &self.keys
    }

    /// Every registered chapter, or an error saying where none were found
    /// (for commands that have nothing to do without one).
    pub fn require_keys(&self) -> Result<&[ChapterKey]> {
        if self.keys.is_empty() {
            Err(self.empty())
        } else {
            Ok(&self.keys)
        }
    }

    fn empty(&self) -> Error {
        self.check_root()
            .err()
            .unwrap_or_else(|| Error::NoChapters {
                dir: self.layout.snapshots_root(),
            })
    }

    /// Fails when the project root is not there at all (a mistyped root
    /// should say so, not that it holds no chapters).
    pub fn check_root(&self) -> Result<()> {
        let root = self.layout.root();
        match std::fs::metadata(root) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => Err(Error::NoRoot {
                dir: root.to_path_buf(),
                problem: "is not a folder",
            }),
            Err(_) => Err(Error::NoRoot {
                dir: root.to_path_buf(),
                problem: "does not exist",
            }),
        }
    }

    /// Finds a chapter by stable id, `<book-id>/<chapter-id>`, or a bare
    /// chapter id that only one book uses.
    pub fn resolve(&self, query: &str) -> Result<ChapterKey> {
        // Ids are lowercase: `Systems-Notes/09` is a typo for a chapter
        // that may well exist, so say which.
        let lower = query.to_ascii_lowercase();
        if lower != query
            && let Ok(key) = self.resolve(&lower)
        {
            return Err(Error::UnknownChapter {
                id: query.to_string(),
                suggestion: Some(key.to_string()),
            });
        }
        if let Some(key) = ChapterKey::parse(query) {
            let key = key?;
            return match self.keys.contains(&key) {
                true => Ok(key),
                false => Err(self.unknown(query)),
            };
        }
        Id::parse(query)?;
        let bare: Vec<&ChapterKey> = self
            .keys
            .iter()
            .filter(|k| k.chapter.as_str() == query)
            .collect();
        match bare.as_slice() {
            [one] => return Ok((*one).clone()),
            [] => {}
            many => {
                return Err(Error::AmbiguousChapter {
                    id: query.to_string(),
                    candidates: many.iter().map(|k| k.to_string()).collect(),
                });
            }
        }
        // A broken chapter cannot be named by its stable id, but does not
        // stop the others from being found.
        for key in &self.keys {
            if self
                .load(key)
                .is_ok_and(|ch| ch.manifest.stable_id() == query)
            {
                return Ok(key.clone());
            }
        }
        Err(self.unknown(query))
    }

    /// Resolves and loads in one step.
    pub fn get(&self, query: &str) -> Result<Chapter> {
        let key = self.resolve(query)?;
        self.load(&key)
    }

    /// Loads and checks one chapter: its chapter.yaml and snapshots.yaml (or
    /// a chapter.yaml of the first shape, which held both).
    pub fn load(&self, key: &ChapterKey) -> Result<Chapter> {
        let path = self.layout.chapter_manifest(key);
        let state_path = self.layout.chapter_state(key);
        let folder = self.layout.snapshots_root();
        if std::fs::symlink_metadata(&path).is_err() {
            return Err(Error::invalid(
                &path,
                "missing: the chapter folder has no chapter.yaml (it says who the chapter is)",
            ));
        }
        crate::text::owned::check_owned(&path, &folder)?;
        let text = yaml_io::read_text(&path)?;
        #[derive(serde::Deserialize)]
        struct Head {
            schema: Option<String>,
        }
        let head: Head = yaml_io::from_str(&text, &path)?;
        let legacy = head.schema.as_deref() == Some(manifest::CHAPTER_SCHEMA_V1);
        let (manifest, state) = if legacy {
            if state_path.exists() {
                return Err(Error::invalid(
                    &path,
                    "lists snapshots (schema v1) although snapshots.yaml exists beside it; \
                     remove the list from chapter.yaml with `research_companion chapter migrate`",
                ));
            }
            yaml_io::from_str::<manifest::LegacyManifest>(&text, &path)?.split()
        } else {
            let manifest: ChapterManifest = yaml_io::from_str(&text, &path)?;
            manifest.check().map_err(|m| Error::invalid(&path, m))?;
            if !state_path.exists() {
                return Err(Error::invalid(
                    &state_path,
                    "missing: it lists the chapter's stored snapshots (create a chapter with `research_companion chapter new`)",
                ));
            }
            crate::text::owned::check_owned(&state_path, &folder)?;
            let state: SnapshotState = yaml_io::read(&state_path)?;
            (manifest, state)
        };
        let checked = if legacy { &path } else { &state_path };
        state.check().map_err(|m| Error::invalid(checked, m))?;
        if manifest.book.id != key.book || manifest.chapter.id != key.chapter {
            return Err(Error::invalid(
                &path,
                format!(
                    "book.id/chapter.id say '{}/{}' but the file is stored under '{key}'",
                    manifest.book.id, manifest.chapter.id
                ),
            ));
        }
        Ok(Chapter {
            key: key.clone(),
            manifest,
            state,
            manifest_path: path,
            state_path,
            legacy,
        })
    }

    /// A registered book whose id is `book` but for case and the
    /// punctuation between words (`Systems-Notes`, `systems_notes` for
    /// `systems-notes`), other than `book` itself.
    pub fn similar_book(&self, book: &str) -> Option<&Id> {
        let fold = |s: &str| -> String {
            s.chars()
                .filter(|c| !matches!(c, '-' | '_' | '.' | ' '))
                .flat_map(char::to_lowercase)
                .collect()
        };
        let wanted = fold(book);
        self.keys
            .iter()
            .map(|k| &k.book)
            .find(|b| b.as_str() != book && fold(b.as_str()) == wanted)
    }

    /// The layout this registry reads.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    fn unknown(&self, query: &str) -> Error {
        if self.keys.is_empty() {
            return self.empty();
        }
        let mut names: Vec<String> = Vec::new();
        for key in &self.keys {
            names.push(key.to_string());
            names.push(key.chapter.to_string());
            if let Ok(ch) = self.load(key) {
                names.push(ch.manifest.stable_id());
            }
        }
        let suggestion = names
            .into_iter()
            .map(|n| (strsim::normalized_levenshtein(query, &n), n))
            .filter(|(score, _)| *score >= 0.5)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, n)| n);
        Error::UnknownChapter {
            id: query.to_string(),
            suggestion,
        }
    }
}

fn read_dir_sorted(dir: &std::path::Path) -> Result<Vec<String>> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names)
}
