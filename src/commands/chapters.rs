//! `chapters`, `chapter show` and `snapshot add`.

use serde::Serialize;

use super::Context;
use crate::chapter::{self, AddOutcome, Chapter, Currency, NewSnapshot, Registry, Scope};
use crate::cli::{ChapterCommand, ChaptersArgs, ListFormat, SnapshotCommand};
use crate::error::{EXIT_ERROR, EXIT_OK, Result};

#[derive(Serialize)]
struct ChapterLine {
    chapter: String,
    stable_id: String,
    title: String,
    current_snapshot: String,
    scope: Scope,
    integrity: chapter::Integrity,
    currency: Currency,
}

/// `chapters`
pub fn list(ctx: &mut Context, args: ChaptersArgs) -> Result<u8> {
    let registry = Registry::open(&ctx.layout)?;
    let mut lines = Vec::new();
    let mut code = EXIT_OK;
    for key in registry.keys() {
        let ch = match registry.load(key) {
            Ok(ch) => ch,
            Err(e) => {
                eprintln!("research_companion: error: {e}");
                code = EXIT_ERROR;
                continue;
            }
        };
        let check = chapter::verify(&ctx.layout, &ch);
        let current = check.current().expect("current snapshot is listed");
        lines.push(ChapterLine {
            chapter: ch.key_str(),
            stable_id: ch.manifest.chapter.stable_id.clone(),
            title: ch.manifest.chapter.title.clone(),
            current_snapshot: current.file.clone(),
            scope: current.scope,
            integrity: current.integrity,
            currency: check.currency,
        });
    }
    match args.format {
        ListFormat::Json => ctx.out.json(&lines)?,
        ListFormat::Yaml => ctx.out.yaml(&lines)?,
        ListFormat::Text => {
            if lines.is_empty() && code == EXIT_OK {
                eprintln!(
                    "no chapters under {}",
                    ctx.layout.snapshots_root().display()
                );
            }
            for l in &lines {
                ctx.out.line(format!(
                    "{}  {}  current={} ({}, {}; {})",
                    l.chapter,
                    l.title,
                    l.current_snapshot,
                    l.scope,
                    integrity_word(l.integrity),
                    currency_phrase(l.currency),
                ))?;
            }
        }
    }
    Ok(code)
}

/// `chapter show`
pub fn chapter(ctx: &mut Context, cmd: ChapterCommand) -> Result<u8> {
    let ChapterCommand::Show { id, format } = cmd;
    let registry = Registry::open(&ctx.layout)?;
    let ch = registry.get(&id)?;
    match format {
        ListFormat::Json => ctx.out.json(&ch.manifest)?,
        ListFormat::Yaml => ctx.out.yaml(&ch.manifest)?,
        ListFormat::Text => show_text(ctx, &ch)?,
    }
    Ok(EXIT_OK)
}

fn show_text(ctx: &mut Context, ch: &Chapter) -> Result<()> {
    let m = &ch.manifest;
    let c = &m.chapter;
    let p = &m.published_fingerprint;
    let mut s = String::new();
    let mut kv = |k: &str, v: &str| s.push_str(&format!("{k:<24}{v}\n"));
    kv("Book:", &format!("{} ({})", m.book.title, m.book.id));
    kv("Chapter:", &c.title);
    kv("Chapter number:", &format!("{:02}", c.number));
    kv("Chapter id:", &ch.key_str());
    kv("Stable id:", &c.stable_id);
    kv("Chapter URL:", &c.url);
    kv("Research pack:", &c.research_pack_url);
    kv("Snapshot URL:", &c.snapshot_url);
    kv(
        "Published fingerprint:",
        &format!("{} {}", p.algorithm, p.value),
    );
    kv(
        "  normalization:",
        p.normalization.as_deref().unwrap_or("not published"),
    );
    kv("  note:", &p.note);
    s.push_str("\nResearch objective:\n");
    s.push_str(&format!("  {}\n", m.research_objective));
    for q in &m.research_questions {
        s.push_str(&format!("  - {q}\n"));
    }
    s.push_str("\nAssociated material:\n");
    if m.associated_material.is_empty() {
        s.push_str("  none listed\n");
    }
    for a in &m.associated_material {
        s.push_str(&format!("  - {}: {}\n    {}\n", a.kind, a.url, a.note));
        if let Some(c) = &a.caveat {
            s.push_str(&format!("    {c}\n"));
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
            r.title,
            r.url.as_deref().unwrap_or("")
        ));
    }
    s.push_str("\nSnapshots (oldest first):\n");
    for snap in &m.snapshots {
        let marker = if snap.file == m.current_snapshot {
            "*"
        } else {
            " "
        };
        s.push_str(&format!(
            "{marker} {}  {}  {}  {} bytes  captured {}\n    source: {}\n",
            snap.file,
            snap.fingerprint,
            snap.scope,
            snap.bytes,
            snap.captured_at.format("%Y-%m-%dT%H:%M:%SZ"),
            snap.source
        ));
    }
    s.push_str("  (* = current)\n");
    ctx.out.write(&s)
}

/// `snapshot add`
pub fn snapshot(ctx: &mut Context, cmd: SnapshotCommand) -> Result<u8> {
    let SnapshotCommand::Add {
        id,
        file,
        source,
        complete,
    } = cmd;
    let registry = Registry::open(&ctx.layout)?;
    let ch = registry.get(&id)?;
    let text = crate::text::read_utf8(&file)?;
    let new = NewSnapshot {
        text: &text,
        source: source.unwrap_or_else(|| file.display().to_string()),
        scope: if complete {
            Scope::Complete
        } else {
            Scope::Excerpt
        },
        captured_at: chrono::Utc::now(),
        fetch: None,
    };
    match chapter::add_snapshot(&ctx.layout, &ch, new)? {
        AddOutcome::Stored(e) => ctx.out.line(format!(
            "stored {} as {} ({}); it is now current",
            e.file, e.fingerprint, e.scope
        ))?,
        AddOutcome::Unchanged(e) => ctx.out.line(format!(
            "unchanged: the current snapshot {} has the same prose ({}); nothing written",
            e.file, e.fingerprint
        ))?,
        AddOutcome::Reverted(e) => ctx.out.line(format!(
            "same prose as the older snapshot {} ({}); it is current again",
            e.file, e.fingerprint
        ))?,
    }
    Ok(EXIT_OK)
}

/// One word for an integrity state.
pub fn integrity_word(i: chapter::Integrity) -> &'static str {
    match i {
        chapter::Integrity::Intact => "intact",
        chapter::Integrity::Altered => "ALTERED",
        chapter::Integrity::Missing => "MISSING",
        chapter::Integrity::Unreadable => "UNREADABLE",
    }
}

/// A short phrase for how the current snapshot compares with the published one.
pub fn currency_phrase(c: Currency) -> &'static str {
    match c {
        Currency::Matches => "matches the published fingerprint",
        Currency::ExcerptCannotMatch => "an excerpt, so it cannot match the published fingerprint",
        Currency::Differs => "DIFFERS from the published fingerprint",
    }
}
