//! `chapters` and `chapter` (`show`, `new`, `migrate`).

use crate::app::Project;
use crate::app::chapters::{self, ChapterLine};
use crate::chapter::{Chapter, ChapterManifest, Scope};
use crate::cli::{ChapterCommand, ChaptersArgs};
use crate::error::{Outcome, Result};
use crate::output::{self, Out, Render};
use crate::text::escape::visible;

impl Render for ChapterLine {
    fn text(&self) -> Result<String> {
        Ok(format!(
            "{}  {}  current={} ({}, {}; {})\n",
            self.chapter,
            visible(&self.title),
            visible(&self.current_snapshot),
            self.scope,
            output::integrity_word(self.integrity),
            output::currency_phrase(self.currency),
        ))
    }
}

/// `chapters`
pub fn list(out: &mut Out, project: &Project, args: ChaptersArgs) -> Result<Outcome> {
    let (lines, broken) = chapters::list(project)?;
    if lines.is_empty() && broken.is_empty() {
        output::warn(format!(
            "no chapters under {}",
            project.layout().snapshots_root().display()
        ));
    }
    out.emit(&lines, args.format.into())?;
    // A broken chapter is a failed check of the registry: listed, exit 1,
    // and the others still shown.
    Ok(Outcome::unless(
        broken
            .iter()
            .map(|e| format!("broken chapter: {e}"))
            .collect(),
    ))
}

/// A chapter as `chapter show` prints it: chapter.yaml's fields, then the
/// snapshots the tool keeps (JSON and YAML keep one flat shape).
#[derive(serde::Serialize)]
struct ManifestView<'a> {
    #[serde(skip)]
    chapter: &'a Chapter,
    #[serde(flatten)]
    manifest: &'a ChapterManifest,
    current_snapshot: &'a str,
    snapshots: &'a [crate::chapter::SnapshotEntry],
    fetch: &'a crate::chapter::manifest::FetchState,
}

impl Render for ManifestView<'_> {
    fn text(&self) -> Result<String> {
        Ok(show_text(self.chapter))
    }
}

/// `chapter show`, `chapter migrate`
pub fn show(out: &mut Out, project: &Project, cmd: ChapterCommand) -> Result<Outcome> {
    let (id, format) = match cmd {
        ChapterCommand::Show { id, format } => (id, format),
        ChapterCommand::New(args) => return new(out, project, *args),
        ChapterCommand::Migrate { id } => {
            let ch = project.chapter(&id)?;
            let line = if chapters::migrate(project, &ch)? {
                format!(
                    "migrated {}: the snapshot list moved to {}; chapter.yaml kept everything else",
                    ch.key,
                    ch.state_path.display()
                )
            } else {
                format!(
                    "{} is already in the current shape; nothing written",
                    ch.key
                )
            };
            out.line(line)?;
            return Ok(Outcome::Ok);
        }
    };
    let ch = project.chapter(&id)?;
    let view = ManifestView {
        chapter: &ch,
        manifest: &ch.manifest,
        current_snapshot: &ch.state.current_snapshot,
        snapshots: &ch.state.snapshots,
        fetch: &ch.state.fetch,
    };
    out.emit(&view, format.into())?;
    Ok(Outcome::Ok)
}

/// `chapter new`
fn new(out: &mut Out, project: &Project, args: crate::cli::NewChapterArgs) -> Result<Outcome> {
    let new = chapters::NewChapter {
        key: new_key(project, &args.key)?,
        title: args.title,
        number: args.number,
        book_title: args.book_title,
        stable_id: args.stable_id,
        url: args.url,
        research_pack_url: args.research_pack_url,
        snapshot_url: args.snapshot_url,
        published_fingerprint: args.published_fingerprint,
        objective: args.objective,
        scope: if args.complete {
            Scope::Complete
        } else {
            Scope::Excerpt
        },
        material: Vec::new(),
    };
    let key = new.key.clone();
    let secret = [&new.url, &new.research_pack_url, &new.snapshot_url]
        .into_iter()
        .flatten()
        .any(|u| crate::text::redact::carries_secret(u));
    let (created, notebook) = match &args.notebook {
        None => (chapters::create(project, new, &args.file)?, None),
        Some(nb) => {
            let download = crate::app::notebook::Download {
                connect_timeout: std::time::Duration::from_secs(10),
                timeout: std::time::Duration::from_secs(60),
            };
            let (c, added) = crate::app::notebook::new_chapter::new_chapter(
                project, new, &args.file, nb, download,
            )?;
            (c, Some(added))
        }
    };
    print_created(out, &key, &created, notebook.as_ref(), secret)
}

/// What `chapter new` made, a line each.
fn print_created(
    out: &mut Out,
    key: &crate::ids::ChapterKey,
    created: &chapters::Created,
    notebook: Option<&crate::notebook::store::NotebookAdded>,
    secret: bool,
) -> Result<Outcome> {
    out.line(format!(
        "created {key}{}: {}",
        if created.new_book {
            " (a new book)"
        } else {
            ""
        },
        created.manifest.display()
    ))?;
    if secret {
        out.line(
            "  note: credentials and secret parameters were left out of the URLs written to chapter.yaml; give them to fetch with --url when it needs them",
        )?;
    }
    if let Some(b) = &created.similar_book {
        out.line(format!(
            "  note: book {b} exists already; if this chapter belongs to it, remove {} and run chapter new {b}/{}",
            created.manifest.parent().map_or(String::new(), |d| d.display().to_string()),
            key.chapter
        ))?;
    }
    print_tables(out, created)?;
    if let Some(crate::notebook::store::NotebookAdded::Stored(e)) = notebook {
        out.line(format!(
            "  notebook: {} ({}, {} cells, {} code), named in chapter.yaml",
            e.file, e.fingerprint, e.cells, e.code_cells
        ))?;
    }
    Ok(Outcome::Ok)
}

/// The key `chapter new` is given, as `book-id/chapter-id`; a book id in
/// the wrong case or punctuation beside an existing book names that book.
fn new_key(project: &Project, text: &str) -> Result<crate::ids::ChapterKey> {
    crate::ids::ChapterKey::parse(text)
        .ok_or_else(|| {
            crate::error::Error::Usage(format!(
                "'{text}' names no chapter: write book-id/chapter-id, e.g. my-book/07"
            ))
        })?
        .map_err(|e| {
            let book = text.split('/').next().unwrap_or_default();
            match project.registry().similar_book(book) {
                Some(b) => crate::error::Error::Usage(format!(
                    "{e}; book {b} exists: did you mean {b}/{}?",
                    text.split_once('/').map_or("", |(_, c)| c)
                )),
                None => e.into(),
            }
        })
}

/// A new chapter's snapshot, and the tables its text publishes (or the
/// fragments that did not parse).
fn print_tables(out: &mut Out, created: &chapters::Created) -> Result<()> {
    out.line(format!(
        "  snapshot: {} ({}, {})",
        created.snapshot.file, created.snapshot.fingerprint, created.snapshot.scope
    ))?;
    if created.tables.is_empty() {
        out.line(
            "  published tables: none, so claims.yaml starts with no pipeline claims; numbers its notebook prints can be claims under notebook_claims: (`claims check` offers ready ones)",
        )?;
    } else {
        out.line(format!(
            "  published tables: {}; claims.yaml lists them for you to write claims against",
            created.tables.len()
        ))?;
        for (header, at) in &created.tables {
            out.line(format!("    {at}: {header}"))?;
        }
    }
    for m in &created.malformed {
        out.line(format!(
            "  table-like fragment at {} did not parse: {}",
            m.location,
            visible(&m.problem)
        ))?;
    }
    Ok(())
}

/// `chapter show` as text: the manifest's fields, what research should
/// decide, the material and references, and the stored snapshots.
fn show_text(ch: &Chapter) -> String {
    let mut s = identity_text(ch);
    s.push_str(&research_text(&ch.manifest));
    s.push_str(&snapshots_text(ch));
    s
}

/// Who the chapter is: book, title, ids, URLs and published fingerprint.
fn identity_text(ch: &Chapter) -> String {
    let m = &ch.manifest;
    let c = &m.chapter;
    let mut s = String::new();
    let mut kv = |k: &str, v: &str| s.push_str(&format!("{k:<24}{}\n", visible(v)));
    kv("Book:", &format!("{} ({})", m.book.title, m.book.id));
    kv("Chapter:", &c.title);
    kv("Chapter number:", &format!("{:02}", c.number));
    kv("Chapter id:", &ch.key_str());
    kv("Stable id:", &m.stable_id());
    let url = |u: &Option<String>| {
        u.as_deref()
            .map_or("none given".to_string(), crate::text::redact::redact_url)
    };
    kv("Chapter URL:", &url(&c.url));
    kv("Research pack:", &url(&c.research_pack_url));
    kv("Snapshot URL:", &url(&c.snapshot_url));
    if let Some(r) = c.snapshot_redirects {
        kv("Snapshot redirects:", &r.to_string());
    }
    match &m.published_fingerprint {
        Some(p) => {
            kv(
                "Published fingerprint:",
                &format!("{} {}", p.algorithm, p.value),
            );
            kv(
                "  normalization:",
                p.normalization.as_deref().unwrap_or("not published"),
            );
            if let Some(note) = &p.note {
                kv("  note:", note);
            }
        }
        None => kv(
            "Published fingerprint:",
            "none given: currency cannot be checked",
        ),
    }
    s
}

/// What research on the chapter should decide, and what it has to go on.
fn research_text(m: &ChapterManifest) -> String {
    let mut s = String::new();
    s.push_str("\nResearch objective:\n");
    s.push_str(&format!(
        "  {}\n",
        visible(m.research_objective.as_deref().unwrap_or("none stated"))
    ));
    for q in &m.research_questions {
        s.push_str(&format!("  - {}\n", visible(q)));
    }
    s.push_str("\nAssociated material:\n");
    if m.associated_material.is_empty() {
        s.push_str("  none listed\n");
    }
    for a in &m.associated_material {
        s.push_str(&format!(
            "  - {}: {}\n    {}\n",
            visible(&a.kind),
            visible(&crate::text::redact::redact_url(&a.url)),
            visible(&a.note)
        ));
        if let Some(c) = &a.caveat {
            s.push_str(&format!("    {}\n", visible(c)));
        }
    }
    s.push_str("\nReferences:\n");
    if m.references.is_empty() {
        s.push_str("  none recorded\n");
    }
    for r in &m.references {
        let year = r.year.map(|y| format!(" ({y})")).unwrap_or_default();
        s.push_str(&format!(
            "  - {}{year} {}\n",
            visible(&r.title),
            visible(
                &r.url
                    .as_deref()
                    .map(crate::text::redact::redact_url)
                    .unwrap_or_default()
            )
        ));
    }
    s
}

/// The stored snapshots, oldest first, the current one marked.
fn snapshots_text(ch: &Chapter) -> String {
    let mut s = String::new();
    s.push_str("\nSnapshots (oldest first):\n");
    for snap in &ch.state.snapshots {
        let marker = if snap.file == ch.state.current_snapshot {
            "*"
        } else {
            " "
        };
        s.push_str(&format!(
            "{marker} {}  {}  {}  {} bytes  captured {}\n    source: {}\n",
            visible(&snap.file),
            snap.fingerprint,
            snap.scope,
            snap.bytes,
            snap.captured_at.format("%Y-%m-%dT%H:%M:%SZ"),
            visible(&crate::text::redact::redact_url(&snap.source))
        ));
    }
    s.push_str("  (* = current)\n");
    s
}
