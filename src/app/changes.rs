//! What changed in a chapter's prose between two snapshots: a word-level
//! diff of their normalized text (via `similar`), how many words changed,
//! and which claims quote a sentence the change touched.

use similar::{ChangeTag, TextDiff};

use super::Project;
use crate::chapter::normalize::normalize;
use crate::chapter::{Chapter, SnapshotEntry};
use crate::error::{Error, Result};

/// The difference between two snapshots of a chapter.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ProseChange {
    pub from: String,
    pub to: String,
    pub words_removed: usize,
    pub words_added: usize,
    /// The changed passages with a few words of context: `[-old-]{+new+}`.
    pub passages: Vec<String>,
    /// Claims whose quoted sentence the old text had and the new one lacks.
    pub claims_touched: Vec<String>,
}

impl ProseChange {
    /// Words removed plus words added.
    pub fn words_changed(&self) -> usize {
        self.words_removed + self.words_added
    }

    /// One sentence: "312 words changed; claims touched: a, b".
    pub fn summary(&self) -> String {
        let claims = if self.claims_touched.is_empty() {
            "no claim touched".to_string()
        } else {
            format!(
                "claims touched: {}",
                crate::text::list(&self.claims_touched)
            )
        };
        format!("{} words changed; {claims}", self.words_changed())
    }
}

/// Words of context shown around a change.
const CONTEXT_WORDS: usize = 6;

/// Compares two stored snapshots of `chapter` (entries of its snapshot list).
pub fn between(
    project: &Project,
    chapter: &Chapter,
    from: &SnapshotEntry,
    to: &SnapshotEntry,
) -> Result<ProseChange> {
    let folder = project.layout().snapshots_root();
    let read = |e: &SnapshotEntry| -> Result<String> {
        let path = project.layout().snapshot_file(&chapter.key, &e.file);
        let text = crate::text::read_owned(&path, &folder)?;
        normalize(&text).map_err(|e| crate::chapter::normalize_error(&path, e))
    };
    let (old, new) = (read(from)?, read(to)?);
    let diff = TextDiff::from_words(&old, &new);
    let changes: Vec<(ChangeTag, &str)> = diff
        .iter_all_changes()
        .map(|c| (c.tag(), c.value()))
        .collect();
    let is_word = |s: &str| !s.trim().is_empty();
    let count = |tag| {
        changes
            .iter()
            .filter(|(t, v)| *t == tag && is_word(v))
            .count()
    };
    let claims_path = project.layout().claims_file(&chapter.key);
    let quotes = if claims_path.exists() {
        crate::published::claims::quotes(&claims_path)?
    } else {
        Vec::new()
    };
    let claims_touched = quotes
        .into_iter()
        .filter(|(_, quote)| {
            quote
                .split(['…'])
                .flat_map(|part| part.split("..."))
                // A part prose-v1 refuses cannot be in either normalized text.
                .filter_map(|part| normalize(part).ok())
                .filter(|f| f.len() >= 3)
                .any(|f| old.contains(&f) && !new.contains(&f))
        })
        .map(|(id, _)| id)
        .collect();
    Ok(ProseChange {
        from: from.file.clone(),
        to: to.file.clone(),
        words_removed: count(ChangeTag::Delete),
        words_added: count(ChangeTag::Insert),
        passages: passages(&changes),
        claims_touched,
    })
}

/// The changed passages, each with a few words of context around it.
fn passages(changes: &[(ChangeTag, &str)]) -> Vec<String> {
    let n = changes.len();
    let mut show = vec![false; n];
    for (i, (tag, _)) in changes.iter().enumerate() {
        if *tag != ChangeTag::Equal {
            let lo = i.saturating_sub(2 * CONTEXT_WORDS);
            let hi = (i + 2 * CONTEXT_WORDS + 1).min(n);
            show[lo..hi].iter_mut().for_each(|s| *s = true);
        }
    }
    // Consecutive changes of one kind are marked once: `[-7.4 times-]`.
    let mark = |tag: ChangeTag, run: &str| match tag {
        _ if run.is_empty() => String::new(),
        ChangeTag::Equal => run.to_string(),
        ChangeTag::Delete => format!("[-{run}-]"),
        ChangeTag::Insert => format!("{{+{run}+}}"),
    };
    let mut out = Vec::new();
    let mut current = String::new();
    let mut run = String::new();
    let mut run_tag = ChangeTag::Equal;
    for (i, (tag, value)) in changes.iter().enumerate() {
        if !show[i] || *tag != run_tag {
            current.push_str(&mark(run_tag, &std::mem::take(&mut run)));
            run_tag = *tag;
        }
        if !show[i] {
            if !current.trim().is_empty() {
                out.push(std::mem::take(&mut current).trim().to_string());
            }
            current.clear();
            continue;
        }
        run.push_str(value);
    }
    current.push_str(&mark(run_tag, &run));
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

/// The snapshots `snapshot diff` compares: those named (a fingerprint, a
/// prefix of one, or a snapshot file), else the one before the current and
/// the current.
pub fn pick(
    project: &Project,
    chapter: &Chapter,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<(SnapshotEntry, SnapshotEntry)> {
    let state = &chapter.state;
    let entry = |spec: &str| -> Result<SnapshotEntry> {
        let rev = crate::records::create::resolve_revision(project.layout(), chapter, spec)?;
        Ok(state
            .snapshot(&rev.snapshot)
            .expect("resolved from the list")
            .clone())
    };
    let to = match to {
        Some(spec) => entry(spec)?,
        None => state.current().clone(),
    };
    let from = match from {
        Some(spec) => entry(spec)?,
        None => {
            let at = state
                .snapshots
                .iter()
                .position(|s| s.file == state.current_snapshot)
                .unwrap_or(0);
            if at == 0 {
                return Err(Error::Usage(format!(
                    "{} has no snapshot before the current one to compare with",
                    chapter.key
                )));
            }
            state.snapshots[at - 1].clone()
        }
    };
    Ok((from, to))
}

/// What changed since the chapter's latest research run, when the chapter
/// changed since (None when it did not, or there was none).
pub fn since_research(
    project: &Project,
    chapter: &Chapter,
    records: &[crate::records::Record],
) -> Option<ProseChange> {
    let research = records
        .iter()
        .find(|r| r.kind == crate::records::RunKind::Research)?;
    let from = chapter.state.snapshot(&research.revision.snapshot)?.clone();
    let to = chapter.state.current().clone();
    if from.fingerprint == to.fingerprint {
        return None;
    }
    between(project, chapter, &from, &to).ok()
}
