//! Stated against printed: the numbers a chapter's sentences state (its
//! prose, and its notebook's markdown cells) held against what the code
//! cells of a notebook run printed, each read as AGREES, DIFFERS or
//! NOT_PRINTED, with a ready notebook claim for each AGREES and DIFFERS.
//!
//! The matching rule (docs/formats.md says it for authors, with examples):
//! numbers not glued to a name, not years, not references; each with its
//! unit (a duration, a ratio, a percentage, the word it counts) and its
//! own words (the words of its clause nearer to it than to another number
//! of the clause). AGREES: the same number at the sentence's precision (or
//! within its `>`/`<` bound), no other kind of unit, and a word in common,
//! the closest tie winning. DIFFERS: no agreement, and a printed number with
//! the same kind of unit whose own words share a non-generic word with the
//! stated number's; an index (`epoch 3`) never differs. NOT_PRINTED: the
//! rest.
//!
//! What it cannot see: numbers only in an `assert` or in code or its
//! comments, numbers shown only in images or HTML outputs, values the run
//! did not print (a cell that failed), numbers spelled out (`seven`), and
//! numbers printed in another form (`1.2k`). A DIFFERS is a lead for
//! research, not a verdict.

use std::collections::BTreeMap;

use serde::Serialize;

use super::claims::{NUMBER, take};
use crate::published::criteria::{Criterion, Stated};
use crate::published::notebook_reads::{NotebookClaim, NotebookRead};

/// A sentence that may state numbers, and where it is.
#[derive(Debug, Clone)]
pub struct Sentence {
    pub text: String,
    /// `prose`, or `notebook cell m-diverge`.
    pub source: String,
    /// What a claim's `location` would say.
    pub location: String,
}

/// What one code cell printed in the run (in the first kernel it ran in).
#[derive(Debug, Clone)]
pub struct Printed {
    pub cell: String,
    pub output: String,
}

/// How a stated number reads against what was printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::Display)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
pub enum StatedReading {
    Agrees,
    Differs,
    NotPrinted,
}

/// One stated number held against the printed output.
#[derive(Debug, Clone, Serialize)]
pub struct StatedFinding {
    pub sentence: String,
    pub source: String,
    /// The number as the sentence writes it.
    pub stated: String,
    pub reading: StatedReading,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<String>,
    /// The printed line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// The number on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub printed: Option<f64>,
    /// The words the sentence and the line share.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shared_words: Vec<String>,
    /// A claim that reads exactly that number from that cell, checked
    /// against the cell's output before it is offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready_claim: Option<NotebookClaim>,
    /// The existing claim that quotes this sentence, when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claimed_by: Option<String>,
}

use read::{
    Num, Read, holds, in_stated_unit, read, same_at_precision, shared, units_agree, word_re,
};

mod read;
#[cfg(test)]
mod tests;

/// Whether a sentence states a number this reads.
pub fn states_a_number(sentence: &str) -> bool {
    !read(sentence).nums.is_empty()
}

/// A candidate line: the cell, the line, and its reading.
struct Line<'a> {
    cell: &'a str,
    output: &'a str,
    text: &'a str,
    read: Read,
    /// Its words, and each number's own words, read once.
    words: Vec<String>,
    own: Vec<Vec<String>>,
}

/// Holds each number of each sentence against the printed output.
/// `ids` are the claim ids in use (a ready claim takes another).
pub fn hold(sentences: &[Sentence], printed: &[Printed], ids: &[String]) -> Vec<StatedFinding> {
    let lines: Vec<Line> = printed
        .iter()
        .flat_map(|p| {
            p.output.lines().filter_map(move |l| {
                let read = read(l);
                if read.nums.is_empty() {
                    return None;
                }
                let words = read.all_words().into_iter().map(str::to_string).collect();
                let own = (0..read.nums.len())
                    .map(|j| read.own_words(j).into_iter().map(str::to_string).collect())
                    .collect();
                Some(Line {
                    cell: &p.cell,
                    output: &p.output,
                    text: l,
                    read,
                    words,
                    own,
                })
            })
        })
        .collect();
    let mut taken: Vec<String> = ids.to_vec();
    let mut out = Vec::new();
    for s in sentences {
        let r = read(&s.text);
        for (i, n) in r.nums.iter().enumerate() {
            let mut f = StatedFinding {
                sentence: s.text.clone(),
                source: s.source.clone(),
                stated: n.text.clone(),
                reading: StatedReading::NotPrinted,
                cell: None,
                line: None,
                printed: None,
                shared_words: Vec::new(),
                ready_claim: None,
                claimed_by: None,
            };
            if let Some((line, j, words, reading)) = best(&r, i, &lines) {
                f.reading = reading;
                f.cell = Some(line.cell.to_string());
                f.line = Some(line.text.trim().to_string());
                f.printed = Some(line.read.nums[j].value);
                f.shared_words = words;
                f.ready_claim = ready_claim(s, n, line, j, &taken);
                if let Some(c) = &f.ready_claim {
                    taken.push(c.id.clone());
                }
            }
            out.push(f);
        }
    }
    out
}

/// The printed line and number a stated number agrees with, or else the
/// one it differs from.
fn best<'a, 'b>(
    r: &Read,
    i: usize,
    lines: &'b [Line<'a>],
) -> Option<(&'b Line<'a>, usize, Vec<String>, StatedReading)> {
    let n = &r.nums[i];
    let own = r.own_words(i);
    let clause = r.clause_words(i);
    let all = r.all_words();
    let mut agrees: Option<(&Line, usize, Vec<String>, usize)> = None;
    let mut differs: Option<(&Line, usize, Vec<String>)> = None;
    for line in lines {
        let line_words: Vec<&str> = line.words.iter().map(String::as_str).collect();
        for (j, p) in line.read.nums.iter().enumerate() {
            let p_own: Vec<&str> = line.own[j].iter().map(String::as_str).collect();
            if holds(n, in_stated_unit(n, p)) {
                if !units_agree(&n.unit, &p.unit, false) {
                    continue;
                }
                // How closely the words tie them: the two numbers' own
                // words, then either's with the other's line or clause,
                // then the whole sentence's.
                let tiers = [
                    shared(&own, &p_own),
                    shared(&own, &line_words),
                    shared(&clause, &p_own),
                    shared(&all, &p_own),
                ];
                if let Some((k, words)) = tiers.into_iter().enumerate().find(|(_, w)| !w.is_empty())
                {
                    let strength = if k == 0 {
                        3
                    } else if k < 3 {
                        2
                    } else {
                        1
                    };
                    if agrees.as_ref().is_none_or(|a| strength > a.3) {
                        agrees = Some((line, j, words, strength));
                    }
                }
                continue;
            }
            if p.after_word
                || !units_agree(&n.unit, &p.unit, true)
                || r.nums
                    .iter()
                    .any(|m| same_at_precision(m, in_stated_unit(m, p)))
            {
                continue;
            }
            let words = shared(&own, &p_own);
            if !words.is_empty() && differs.as_ref().is_none_or(|d| words.len() > d.2.len()) {
                differs = Some((line, j, words));
            }
        }
    }
    if let Some((line, j, words, _)) = agrees {
        return Some((line, j, words, StatedReading::Agrees));
    }
    differs.map(|(l, j, w)| (l, j, w, StatedReading::Differs))
}

/// A claim that reads number `j` of `line` from its cell, checked with
/// [`take`] on the cell's whole output; None when no read takes exactly it.
fn ready_claim(
    s: &Sentence,
    n: &Num,
    line: &Line,
    j: usize,
    ids: &[String],
) -> Option<NotebookClaim> {
    let trimmed = line.text.trim_start();
    let shift = line.text.len() - trimmed.len();
    let p = &line.read.nums[j];
    let label_end = regex::Regex::new(NUMBER)
        .ok()?
        .find(trimmed)
        .map_or(trimmed.len(), |m| m.start());
    let label = trimmed[..label_end].trim_end();
    let name = identifier(&trimmed[..p.start - shift]);
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
    let base = format!("{}-{}", name.replace('_', "-"), n.text.replace(',', ""));
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
        quote: s.text.clone(),
        location: s.location.clone(),
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

/// A value's name from the words before it on its line: `final_loss`.
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
    let name = tail.join("_");
    if name.is_empty() {
        "value".to_string()
    } else {
        name
    }
}
