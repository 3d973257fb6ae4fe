//! What changed in a chapter's prose between two snapshots: a word-level
//! diff of their normalized text (bounded work: `chapter::prose_diff`), how
//! many words changed, and which claims quote a sentence the change
//! touched.

use super::Project;
use crate::chapter::normalize::normalize;
use crate::chapter::prose_diff::{self, WordChange};
use crate::chapter::{Chapter, SnapshotEntry};
use crate::error::{Error, Result};

/// The difference between two snapshots of a chapter.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ProseChange {
    pub from: String,
    pub to: String,
    pub words_removed: usize,
    pub words_added: usize,
    /// Whether the diff traced every word; false when the revisions differ
    /// in more than the diff's budget allows, so the counts are upper
    /// bounds (see `chapter::prose_diff`).
    pub exact: bool,
    /// The changed passages with a few words of context: `[-old-]{+new+}`;
    /// at most [`MAX_PASSAGES`], each run of changed words shortened past
    /// [`MAX_RUN_WORDS`].
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
                crate::text::format::list(&self.claims_touched)
            )
        };
        let bound = if self.exact { "" } else { "at most " };
        format!("{bound}{} words changed; {claims}", self.words_changed())
    }
}

/// Words of context shown around a change.
const CONTEXT_WORDS: usize = 6;

/// The most passages listed; one more line counts the rest.
pub const MAX_PASSAGES: usize = 200;

/// The most words a run of removed or added words shows: its first and
/// last halves, with the number left out between them.
pub const MAX_RUN_WORDS: usize = 24;

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
        let text = crate::text::owned::read_owned(&path, &folder)?;
        normalize(&text).map_err(|e| crate::chapter::normalize_error(&path, e))
    };
    let (old, new) = (read(from)?, read(to)?);
    let diff = prose_diff::diff_words(&old, &new);
    let claims_path = project.layout().claims_file(&chapter.key);
    let quotes = if claims_path.exists() {
        crate::published::claims::quotes(&claims_path)?
    } else {
        Vec::new()
    };
    let claims_touched = quotes
        .into_iter()
        .filter(|(_, quote)| {
            let pieces: Vec<String> = quote
                .split(['…'])
                .flat_map(|part| part.split("..."))
                // A part prose-v1 refuses cannot be in either normalized text.
                .filter_map(|part| normalize(part).ok())
                .filter(|f| f.len() >= 3)
                .collect();
            pieces.iter().any(|f| old.contains(f) && !new.contains(f))
                // An edit between the visible pieces (in the words a quote
                // elides) changes the sentence it quotes too.
                || quoted_words(&old, &pieces).is_some_and(|span| diff.touches(span))
        })
        .map(|(id, _)| id)
        .collect();
    Ok(ProseChange {
        from: from.file.clone(),
        to: to.file.clone(),
        words_removed: diff.count(WordChange::Removed),
        words_added: diff.count(WordChange::Added),
        exact: diff.exact,
        passages: passages(&diff.words),
        claims_touched,
    })
}

/// The most places a quote's first piece is tried at.
const MAX_QUOTE_STARTS: usize = 64;

/// The words of `text` (indices, as `prose_diff` counts them) from the
/// first of a quote's `pieces` to the end of the last, found in order, at
/// the place where they lie closest together; None when one is missing.
fn quoted_words(text: &str, pieces: &[String]) -> Option<std::ops::Range<usize>> {
    let (first, rest) = pieces.split_first()?;
    let span_from = |start: usize| -> Option<(usize, usize)> {
        let mut end = start + first.len();
        for p in rest {
            end = end + text[end..].find(p.as_str())? + p.len();
        }
        Some((start, end))
    };
    let (start, end) = text
        .match_indices(first.as_str())
        .take(MAX_QUOTE_STARTS)
        .filter_map(|(at, _)| span_from(at))
        .min_by_key(|(a, b)| b - a)?;
    // A word is counted as quoted when the quote covers any of it.
    let before = |at: usize| text[..at].split_whitespace().count();
    let mid_word = start > 0 && !text[..start].ends_with(char::is_whitespace);
    Some(before(start) - usize::from(mid_word)..before(end))
}

/// The changed passages, each with a few words of context around it.
fn passages(words: &[(WordChange, &str)]) -> Vec<String> {
    let n = words.len();
    let mut show = vec![false; n];
    for (i, (change, _)) in words.iter().enumerate() {
        if *change != WordChange::Same {
            let (lo, hi) = (
                i.saturating_sub(CONTEXT_WORDS),
                (i + CONTEXT_WORDS + 1).min(n),
            );
            show[lo..hi].iter_mut().for_each(|s| *s = true);
        }
    }
    let mut out = Vec::new();
    let mut more = 0;
    let mut i = 0;
    while i < n {
        if !show[i] {
            i += 1;
            continue;
        }
        let end = (i..n).find(|&k| !show[k]).unwrap_or(n);
        if out.len() < MAX_PASSAGES {
            out.push(passage(&words[i..end]));
        } else {
            more += 1;
        }
        i = end;
    }
    if more > 0 {
        out.push(format!("and {more} more changed passages"));
    }
    out
}

/// One passage: consecutive words of one kind are marked once
/// (`[-7.4 times-]{+9.9 times+}`), a long run shortened in its middle.
fn passage(words: &[(WordChange, &str)]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let change = words[i].0;
        let end = (i..words.len())
            .find(|&k| words[k].0 != change)
            .unwrap_or(words.len());
        let run = &words[i..end];
        let text = if change == WordChange::Same || run.len() <= MAX_RUN_WORDS {
            run.iter().map(|(_, w)| *w).collect::<Vec<_>>().join(" ")
        } else {
            let half = MAX_RUN_WORDS / 2;
            let join = |ws: &[(WordChange, &str)]| {
                ws.iter().map(|(_, w)| *w).collect::<Vec<_>>().join(" ")
            };
            format!(
                "{} … ({} more words) … {}",
                join(&run[..half]),
                run.len() - 2 * half,
                join(&run[run.len() - half..])
            )
        };
        parts.push(match change {
            WordChange::Same => text,
            WordChange::Removed => format!("[-{text}-]"),
            WordChange::Added => format!("{{+{text}+}}"),
        });
        i = end;
    }
    // A removed run and the added run after it touch: `[-a-]{+b+}`.
    let mut s = String::new();
    for (k, part) in parts.iter().enumerate() {
        if k > 0 && !(part.starts_with("{+") && parts[k - 1].ends_with("-]")) {
            s.push(' ');
        }
        s.push_str(part);
    }
    s
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
        .find(|r| r.kind == crate::records::RunKind::Research && r.retraction.is_none())?;
    let from = chapter.state.snapshot(&research.revision.snapshot)?.clone();
    let to = chapter.state.current().clone();
    if from.fingerprint == to.fingerprint {
        return None;
    }
    between(project, chapter, &from, &to).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(change: WordChange, text: &str) -> Vec<(WordChange, &str)> {
        text.split(' ').map(|w| (change, w)).collect()
    }

    #[test]
    fn a_quote_covers_the_words_between_its_pieces_where_they_lie_closest() {
        let text = "In the table, x rose. In the table, wait_mean sat blocked and fell to 2 ms.";
        let pieces = ["In the table,".to_string(), "fell to 2 ms.".to_string()];
        // Words 5..16: the second "In the table," up to "ms.".
        assert_eq!(quoted_words(text, &pieces), Some(5..16));
        assert_eq!(quoted_words(text, &["absent".to_string()]), None);
        // A piece starting inside a word covers that word.
        assert_eq!(quoted_words(text, &["able, x".to_string()]), Some(2..4));
    }

    #[test]
    fn a_passage_marks_runs_and_shortens_long_ones() {
        let mut w = words(WordChange::Same, "made it");
        w.extend(words(WordChange::Removed, "four times"));
        w.extend(words(WordChange::Added, "much"));
        w.extend(words(WordChange::Same, "faster."));
        assert_eq!(passages(&w), vec!["made it [-four times-]{+much+} faster."]);
        let long: String = (0..100)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let p = passages(&words(WordChange::Added, &long));
        assert_eq!(p.len(), 1);
        assert!(p[0].starts_with("{+w0 w1 "), "{}", p[0]);
        assert!(p[0].contains("w11 … (76 more words) … w88"), "{}", p[0]);
        assert!(p[0].ends_with(" w99+}"), "{}", p[0]);
    }

    #[test]
    fn passages_past_the_limit_are_counted() {
        // A change every 20 words: each its own passage.
        let mut w = Vec::new();
        for i in 0..(MAX_PASSAGES + 30) {
            w.extend(words(
                WordChange::Same,
                "a b c d e f g h i j k l m n o p q r s",
            ));
            w.push((WordChange::Added, if i % 2 == 0 { "x" } else { "y" }));
        }
        let p = passages(&w);
        assert_eq!(p.len(), MAX_PASSAGES + 1);
        assert_eq!(p.last().unwrap(), "and 30 more changed passages");
    }
}
