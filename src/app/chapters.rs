//! The chapters themselves: listing them with the state of their current
//! snapshot, verifying stored snapshots, and storing a new one.

use std::path::Path;

use serde::Serialize;

use super::Project;
use crate::chapter::{
    self, AddOutcome, Chapter, ChapterCheck, Integrity, NewSnapshot, Scope, SnapshotCurrency,
};
use crate::error::{Error, Result};
use crate::layout::Layout;

/// One chapter in a listing.
#[derive(Debug, Clone, Serialize)]
pub struct ChapterLine {
    pub chapter: String,
    pub stable_id: String,
    pub title: String,
    pub current_snapshot: String,
    pub scope: Scope,
    pub integrity: Integrity,
    pub currency: SnapshotCurrency,
}

/// Every registered chapter that loads, and the errors of those that do
/// not (folders whose names cannot be ids among them). A project root that
/// does not exist is an error.
pub fn list(project: &Project) -> Result<(Vec<ChapterLine>, Vec<Error>)> {
    project.registry().check_root()?;
    let mut lines = Vec::new();
    let mut broken: Vec<Error> = project
        .registry()
        .misnamed()
        .iter()
        .map(|e| Error::Other(e.to_string()))
        .collect();
    for key in project.registry().keys() {
        let ch = match project.registry().load(key) {
            Ok(ch) => ch,
            Err(e) => {
                broken.push(e);
                continue;
            }
        };
        let check = chapter::verify(project.layout(), &ch);
        let current = check.current().expect("the current snapshot is listed");
        lines.push(ChapterLine {
            chapter: ch.key_str(),
            stable_id: ch.manifest.stable_id(),
            title: ch.manifest.chapter.title.clone(),
            current_snapshot: current.file.clone(),
            scope: current.scope,
            integrity: current.integrity,
            currency: check.currency,
        });
    }
    Ok((lines, broken))
}

/// Verifies the chapters named (every chapter that loads when none is,
/// with a line for each that does not).
pub fn verify(project: &Project, ids: &[String]) -> Result<(Vec<ChapterCheck>, Vec<String>)> {
    let (chapters, broken) = if ids.is_empty() {
        project.all_chapters()?
    } else {
        let named = ids
            .iter()
            .map(|id| project.chapter(id))
            .collect::<Result<Vec<_>>>()?;
        (named, Vec::new())
    };
    let mut checks = Vec::new();
    for ch in &chapters {
        let mut check = chapter::verify(project.layout(), ch);
        check.stale_research = super::status::stale_research(project, ch)?
            .into_iter()
            .map(|r| r.run_id.to_string())
            .collect();
        checks.push(check);
    }
    Ok((checks, broken))
}

/// Where a snapshot came from, as a record that travels: the file's path
/// relative to the project root when it is inside it, else its name only
/// (never a machine's absolute path).
fn portable_source(project: &Project, file: &Path) -> String {
    let root = project.layout().root().canonicalize().ok();
    let real = file.canonicalize().ok();
    if let (Some(root), Some(real)) = (root, real)
        && let Ok(rel) = real.strip_prefix(&root)
    {
        return rel.display().to_string();
    }
    file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Stores the text of `file` as a new snapshot of `chapter` and makes it
/// current (unless its prose is already current). `source` says where the
/// text came from (default: the file's path).
pub fn add_snapshot(
    project: &Project,
    chapter: &Chapter,
    file: &Path,
    source: Option<String>,
    scope: Scope,
) -> Result<AddOutcome> {
    let text = crate::text::read::read_utf8(file)?;
    if text.trim().is_empty() {
        return Err(Error::invalid(file, "the chapter text is empty"));
    }
    let new = NewSnapshot {
        text: &text,
        source: source
            .map(|s| crate::text::redact::redact_url(&s))
            .unwrap_or_else(|| portable_source(project, file)),
        scope,
        captured_at: chrono::Utc::now(),
        fetch: None,
    };
    chapter::add_snapshot(project.layout(), chapter, new)
}

/// Moves a first-shape chapter.yaml's snapshot list into snapshots.yaml, once,
/// at the author's request: snapshots.yaml is written first, then chapter.yaml
/// loses only the tool's keys (every other line and comment stays). Returns
/// false when the chapter was already in the current shape.
pub fn migrate(project: &Project, chapter: &Chapter) -> Result<bool> {
    if !chapter.legacy {
        return Ok(false);
    }
    let original = crate::yaml_io::read_text(&chapter.manifest_path)?;
    let migrated = crate::chapter::manifest::strip_tool_keys(&original);
    // The new text must read back as the same person-written manifest.
    let check: crate::chapter::ChapterManifest =
        crate::yaml_io::from_str(&migrated, &chapter.manifest_path)?;
    check
        .check()
        .map_err(|m| Error::invalid(&chapter.manifest_path, m))?;
    let _ = project;
    let state = crate::chapter::state_text(&chapter.state)?;
    crate::atomic::write_new(&chapter.state_path, state.as_bytes())?;
    if let Err(e) = crate::atomic::replace(&chapter.manifest_path, migrated.as_bytes()) {
        let _ = std::fs::remove_file(&chapter.state_path);
        return Err(e);
    }
    Ok(true)
}

/// What a new chapter is given.
#[derive(Debug, Clone)]
pub struct NewChapter {
    pub key: crate::ids::ChapterKey,
    pub title: String,
    pub number: Option<u32>,
    pub book_title: Option<String>,
    pub stable_id: Option<String>,
    pub url: Option<String>,
    pub research_pack_url: Option<String>,
    pub snapshot_url: Option<String>,
    pub published_fingerprint: Option<String>,
    pub objective: Option<String>,
    pub scope: Scope,
    /// chapter.yaml's associated material (a notebook given to `chapter new`).
    pub material: Vec<crate::chapter::manifest::Material>,
}

/// A chapter just created.
#[derive(Debug)]
pub struct Created {
    pub manifest: std::path::PathBuf,
    pub snapshot: crate::chapter::SnapshotEntry,
    /// The published tables the text holds, by header and place.
    pub tables: Vec<(String, crate::published::tables::Location)>,
    /// Table-like fragments that did not parse.
    pub malformed: Vec<crate::published::tables::Malformed>,
    /// Whether the chapter started a new book.
    pub new_book: bool,
    /// A new book whose id differs from an existing one's only in case or
    /// punctuation: that book, so the author can tell a typo.
    pub similar_book: Option<String>,
}

/// Registers a chapter from its text: chapter.yaml (written once, for the
/// author to edit), snapshots.yaml with the text as the first snapshot, and
/// a claims.yaml skeleton listing the published tables the text holds.
/// Refuses a chapter that exists; a book's first chapter needs the book's
/// title. chapter.yaml is written last, so the chapter exists only once it
/// is complete, and a failure removes what was written.
pub fn create(project: &Project, new: NewChapter, file: &Path) -> Result<Created> {
    use crate::chapter::manifest::{
        BookInfo, CHAPTER_SCHEMA, ChapterInfo, ChapterManifest, FetchState, PublishedFingerprint,
        SNAPSHOTS_SCHEMA, SnapshotState, is_sha256_hex,
    };
    use crate::chapter::{Fingerprint, SnapshotEntry, normalize};
    let layout = project.layout();
    let key = &new.key;
    let manifest_path = layout.chapter_manifest(key);
    if manifest_path.exists() || layout.chapter_dir(key).exists() {
        return Err(Error::WouldOverwrite {
            path: layout.chapter_dir(key),
        });
    }
    // The book: its title from a chapter it already has, or given.
    let siblings: Vec<_> = project
        .registry()
        .keys()
        .iter()
        .filter(|k| k.book == key.book)
        .filter_map(|k| project.registry().load(k).ok())
        .collect();
    let book_title = match (siblings.first(), &new.book_title) {
        (Some(s), Some(given)) if *given != s.manifest.book.title => {
            return Err(Error::Usage(format!(
                "book {} is titled '{}' in its other chapters, not '{given}'",
                key.book, s.manifest.book.title
            )));
        }
        (Some(s), _) => s.manifest.book.title.clone(),
        (None, Some(given)) => given.clone(),
        (None, None) => {
            return Err(Error::Usage(format!(
                "{} is the first chapter of book {}: give the book's title too{}",
                key,
                key.book,
                project
                    .registry()
                    .similar_book(key.book.as_str())
                    .map(|b| format!(" (or did you mean the existing book {b}?)"))
                    .unwrap_or_default()
            )));
        }
    };
    let number = match new.number {
        Some(n) => n,
        None => key.chapter.as_str().parse::<u32>().map_err(|_| {
            Error::Usage(format!(
                "chapter id '{}' is not a number: give the chapter's number",
                key.chapter
            ))
        })?,
    };
    if let Some(hex) = &new.published_fingerprint
        && !is_sha256_hex(hex)
    {
        return Err(Error::Usage(format!(
            "published fingerprint '{hex}' is not 64 lowercase hex digits"
        )));
    }
    let text = crate::text::read::read_utf8(file)?;
    if text.trim().is_empty() {
        return Err(Error::invalid(file, "the chapter text is empty"));
    }
    let fingerprint = Fingerprint::prose_v1(
        normalize::fingerprint_str(&text).map_err(|e| crate::chapter::normalize_error(file, e))?,
    );
    crate::chapter::refuse_empty(&fingerprint, &file.display().to_string())?;
    let snapshot_name = Layout::new_snapshot_name(1, &fingerprint.value);
    let snapshot = SnapshotEntry {
        file: snapshot_name.clone(),
        fingerprint,
        captured_at: chrono::Utc::now(),
        source: portable_source(project, file),
        scope: new.scope,
        bytes: text.len() as u64,
    };
    let state = SnapshotState {
        schema: SNAPSHOTS_SCHEMA.into(),
        current_snapshot: snapshot_name.clone(),
        snapshots: vec![snapshot.clone()],
        fetch: FetchState::default(),
    };
    let manifest = ChapterManifest {
        schema: CHAPTER_SCHEMA.into(),
        book: BookInfo {
            id: key.book.clone(),
            title: book_title,
        },
        chapter: ChapterInfo {
            id: key.chapter.clone(),
            number,
            title: new.title.clone(),
            stable_id: new.stable_id.clone(),
            url: new.url.clone(),
            research_pack_url: new.research_pack_url.clone(),
            snapshot_url: new.snapshot_url.clone(),
            snapshot_redirects: None,
        },
        published_fingerprint: new.published_fingerprint.map(|value| PublishedFingerprint {
            algorithm: "sha256".into(),
            value,
            normalization: None,
            note: None,
        }),
        associated_material: new.material.clone(),
        research_objective: new.objective.clone(),
        research_questions: Vec::new(),
        references: Vec::new(),
    };
    let parsed = crate::published::tables::parse(&text);
    let claims = claims_skeleton(key, &parsed);
    let manifest_text = format!(
        "# {key}: written by `research_companion chapter new`; yours to edit.\n\
         # The tool only reads this file. Optional fields (url, research_pack_url,\n\
         # snapshot_url, stable_id, published_fingerprint, research_objective) may be\n\
         # left out or null. The stored snapshots are listed in snapshots.yaml.\n{}",
        crate::yaml_io::to_string(&manifest)?
    );
    let new_book = siblings.is_empty();
    let book_dir = layout.book_dir(&key.book);
    let book_existed = book_dir.exists();
    let written = (|| -> Result<()> {
        crate::atomic::write_new(&layout.snapshot_file(key, &snapshot_name), text.as_bytes())?;
        crate::atomic::write_new(
            &layout.chapter_state(key),
            crate::chapter::state_text(&state)?.as_bytes(),
        )?;
        crate::atomic::write_new(&layout.claims_file(key), claims.as_bytes())?;
        crate::atomic::write_new(&manifest_path, manifest_text.as_bytes())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(layout.chapter_dir(key));
        if !book_existed {
            let _ = std::fs::remove_dir(&book_dir);
        }
        return Err(e);
    }
    Ok(Created {
        manifest: manifest_path,
        snapshot,
        tables: parsed
            .tables
            .iter()
            .map(|t| (t.header.to_string(), t.location))
            .collect(),
        malformed: parsed.malformed,
        new_book,
        similar_book: new_book
            .then(|| project.registry().similar_book(key.book.as_str()))
            .flatten()
            .map(|b| b.to_string()),
    })
}

/// A claims.yaml to start from: no claims yet, and in comments the tables
/// the text publishes (or that it has none) and an example claim.
fn claims_skeleton(
    key: &crate::ids::ChapterKey,
    parsed: &crate::published::tables::Parsed,
) -> String {
    use crate::published::claims::CLAIMS_SCHEMA;
    let mut s = format!(
        "# The checkable claims of {key}: sentences of the chapter that state numbers,\n\
         # each with a metric over the chapter's published tables.\n"
    );
    if parsed.tables.is_empty() {
        s.push_str(
            "# The snapshot holds no published tables, so no claim can read a pipeline run;\n\
             # numbers the chapter's notebook prints can be claims under notebook_claims:\n\
             # (docs/formats.md; `claims check` offers ready ones once a notebook run is\n\
             # recorded).\n",
        );
    } else {
        s.push_str("# The snapshot publishes these tables:\n");
        for t in &parsed.tables {
            s.push_str(&format!(
                "#   {} ({}): workers {}; columns {}\n",
                t.header,
                t.location,
                crate::text::format::list(t.workers()),
                crate::text::format::list(t.columns.iter().map(|c| c.ident()))
            ));
        }
        let producer = parsed.tables[0].header.producer.ident();
        let workers = parsed.tables[0].workers();
        let (lo, hi) = (
            workers.first().copied().unwrap_or(0),
            workers.last().copied().unwrap_or(0),
        );
        s.push_str(&format!(
            "# A claim, for example:\n\
             # - id: {producer}-speedup\n\
             #   quote: The sentence, copied from the chapter.\n\
             #   location: where it appears\n\
             #   metric: {producer}.w{hi}.ex_s / {producer}.w{lo}.ex_s\n\
             #   stated: {{value: 2.0, tolerance: 0.05}}\n\
             #   reproduce: {{at_least: 1.5}}\n\
             #   preconditions: {{cpus: 1}}\n"
        ));
    }
    for m in &parsed.malformed {
        s.push_str(&format!(
            "# A table-like fragment at {} did not parse: {}\n",
            m.location, m.problem
        ));
    }
    s.push_str(&format!(
        "schema: {CLAIMS_SCHEMA}\nchapter: {key}\nclaims: []\n"
    ));
    s
}
