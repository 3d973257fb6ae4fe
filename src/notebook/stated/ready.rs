//! The ready claim `claims check` offers for an AGREES or a DIFFERS: a
//! notebook claim that reads exactly the printed number from its cell.

use std::collections::BTreeMap;

use super::read::{self, Num, word_re};
use crate::notebook::claims::{NUMBER, take};
use crate::published::criteria::{Criterion, Stated};
use crate::published::notebook_reads::{NotebookClaim, NotebookRead};

/// The printed number a ready claim reads: its cell, the cell's whole
/// output, the line, and the number on it.
pub(super) struct At<'a> {
    pub(super) cell: &'a str,
    pub(super) output: &'a str,
    pub(super) text: &'a str,
    pub(super) p: &'a Num,
}

/// A claim stating `n` (of the sentence `quote`, at `location`) that reads
/// the number `line` points to from its cell, checked with [`take`] on the
/// cell's whole output; None when no read takes exactly it.
pub(super) fn ready_claim(
    quote: &str,
    location: &str,
    n: &Num,
    line: At,
    words: &[String],
    ids: &[String],
) -> Option<NotebookClaim> {
    let trimmed = line.text.trim_start();
    let shift = line.text.len() - trimmed.len();
    let p = line.p;
    // A printed index (`step 100`) is where a loop was, not a result.
    if p.after_word {
        return None;
    }
    let label_end = regex::Regex::new(NUMBER)
        .ok()?
        .find(trimmed)
        .map_or(trimmed.len(), |m| m.start());
    let label = trimmed[..label_end].trim_end();
    // Named after the words before it, or else the words that tied it;
    // never a generic `value`.
    let name = Some(identifier(&trimmed[..p.start - shift]))
        .filter(|n| !n.is_empty() && !read::GENERIC.contains(&n.as_str()))
        .or_else(|| Some(words.join("_")).filter(|n| !n.is_empty()))?;
    let mut candidates = Vec::new();
    if label.chars().any(|c| c.is_ascii_alphabetic()) {
        for nth in 1..=8 {
            candidates.push(NotebookRead {
                cell: line.cell.to_string(),
                pattern: None,
                label: Some(label.to_string()),
                nth: (nth > 1).then_some(nth),
            });
        }
    }
    candidates.push(NotebookRead {
        cell: line.cell.to_string(),
        pattern: Some(format!(
            "^\\s*{}({})",
            regex::escape(&trimmed[..p.start - shift]),
            r"[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?"
        )),
        label: None,
        nth: None,
    });
    let read = candidates.into_iter().find(|c| {
        c.taker().is_ok_and(|t| {
            take(c, &t, line.output)
                .is_ok_and(|got| got.value == p.value && got.line == line.text.trim())
        })
    })?;
    // `offset-minus-2.5`, not `offset--2.5`.
    let number = n.text.replace(',', "").replacen('-', "minus-", 1);
    let base = format!("{}-{number}", name.replace('_', "-"));
    let mut id = base.clone();
    let mut k = 2;
    while ids.contains(&id) {
        id = format!("{base}-{k}");
        k += 1;
    }
    let half = if n.decimals == 0 && !n.approximate {
        0.0
    } else {
        n.half_width()
    };
    let round = |x: f64| {
        let scale = 10f64.powi(n.decimals + 1);
        (x * scale).round() / scale
    };
    let claim = NotebookClaim {
        id,
        quote: quote.to_string(),
        location: location.to_string(),
        reads: BTreeMap::from([(name.clone(), read)]),
        metric: format!("nb.{name}"),
        stated: Stated {
            value: n.value,
            tolerance: round(half),
        },
        reproduce: match n.bound {
            Some(true) => Criterion::AtLeast(n.value),
            Some(false) => Criterion::AtMost(n.value),
            None => Criterion::Between([round(n.value - half), round(n.value + half)]),
        },
        magnitude: None,
    };
    claim.check().is_ok().then_some(claim)
}

/// A value's name from the words before it on its line: `final_loss`
/// (empty when no word is).
fn identifier(before: &str) -> String {
    // The words after the line's last number before it: `loss` in
    // `epoch 2 loss: 0.3`.
    let label = before
        .rfind(|c: char| c.is_ascii_digit())
        .map_or(before, |i| &before[i + 1..]);
    let words: Vec<String> = word_re()
        .find_iter(label)
        .map(|w| w.as_str().to_lowercase())
        .collect();
    let tail: Vec<&str> = words
        .iter()
        .rev()
        .take(3)
        .rev()
        .map(String::as_str)
        .collect();
    tail.join("_")
}
