//! Stated against printed: the numbers a chapter's sentences state (its
//! prose, and its notebook's markdown cells) held against what the code
//! cells of a notebook run printed, each read as AGREES, DIFFERS or
//! NOT_PRINTED, with a ready notebook claim for each AGREES and DIFFERS.
//!
//! The matching rule (docs/claims.md says it for authors):
//!
//! - A sentence's numbers are the figures in it that are not glued to a
//!   name (`c06`, `float32`, `w8`), not a year, and not a reference
//!   (`chapter 6`, `figure 2`, `version 3`). Its words are its letters
//!   (`keep_last` is `keep` and `last`) of three letters or more, common
//!   words left out; a word belongs to the number nearest to it (to both
//!   on a tie). Printed lines are read the same way.
//! - Words match when they are equal once a plural `s` is dropped, or when
//!   the shorter (four letters or more) starts the longer (`params`,
//!   `parameters`).
//! - AGREES: a printed line has the same number at the sentence's
//!   precision (`0.03` is 0.025 to 0.035; `110` is 109.5 to 110.5), and a
//!   word of the number's own matches a word of the line, or a word of the
//!   sentence matches one of the printed number's own.
//! - DIFFERS: no line agrees, and a printed number's own words share one
//!   (not a generic word such as `value`) with the stated number's own
//!   words. A printed integer written right after a word without a `:` or
//!   `=` (`epoch 3`, `model 1`) is an index, not a value, and never
//!   differs; nor does a printed number that another number of the same
//!   sentence states.
//! - NOT_PRINTED: neither.
//!
//! What it cannot see: numbers only in an `assert` or in code or its
//! comments, numbers shown only in images or HTML outputs, values the run
//! did not print (a cell that failed), and ratios or percentages that print
//! as another number (`39%` against `0.39`). A DIFFERS is a lead for
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

/// Words that say nothing of what a number is.
const COMMON: [&str; 40] = [
    "the", "and", "for", "are", "was", "were", "has", "have", "had", "its", "with", "from", "that",
    "this", "these", "than", "into", "each", "per", "about", "after", "before", "must", "should",
    "will", "would", "can", "could", "not", "yield", "yields", "gives", "give", "get", "gets",
    "only", "all", "our", "you", "out",
];

/// Words too generic to say two numbers are the same quantity.
const GENERIC: [&str; 10] = [
    "value", "result", "number", "output", "print", "printed", "cell", "total", "now", "here",
];

/// Words after which a number is a reference, not a figure.
const REFERENCES: [&str; 12] = [
    "chapter", "section", "figure", "fig", "table", "listing", "page", "version", "python",
    "equation", "eq", "part",
];

/// A number in a text.
#[derive(Debug, Clone)]
struct Num {
    value: f64,
    text: String,
    decimals: i32,
    start: usize,
    end: usize,
    /// Written right after a word with only spaces between (`epoch 3`).
    after_word: bool,
}

/// A text read into numbers and words, in order.
#[derive(Debug, Clone, Default)]
struct Read {
    nums: Vec<Num>,
    /// (position in the token order, stem)
    words: Vec<(usize, String)>,
    /// Position of each number in the token order.
    num_pos: Vec<usize>,
}

fn number_re() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+")
            .expect("the figure pattern compiles")
    })
}

fn word_re() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(r"[A-Za-z]+").expect("the word pattern compiles"))
}

fn stem(w: &str) -> String {
    let w = w.to_lowercase();
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        w[..w.len() - 1].to_string()
    } else {
        w
    }
}

fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.len() >= 4 && long.starts_with(short))
}

/// Reads a text's numbers and words.
fn read(text: &str) -> Read {
    let bytes = text.as_bytes();
    let glued = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut nums = Vec::new();
    for m in number_re().find_iter(text) {
        let (start, end) = (m.start(), m.end());
        if start > 0 && (glued(bytes[start - 1]) || bytes[start - 1] == b'.') {
            continue;
        }
        if end < bytes.len()
            && (bytes[end] == b'_'
                || (bytes[end] == b'.' && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)))
        {
            continue;
        }
        let negative =
            start > 0 && bytes[start - 1] == b'-' && (start < 2 || !glued(bytes[start - 2]));
        let plain = m.as_str().replace(',', "");
        let Ok(mut value) = plain.parse::<f64>() else {
            continue;
        };
        if negative {
            value = -value;
        }
        let decimals = plain.split_once('.').map_or(0, |(_, d)| {
            d.chars().take_while(char::is_ascii_digit).count() as i32
        });
        let before = text[..start].trim_end_matches([' ', '\t']);
        let word_before = before
            .rsplit(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("")
            .to_lowercase();
        let after_word = before.len() < start
            && before.ends_with(|c: char| c.is_ascii_alphabetic())
            && !plain.contains('.');
        if after_word && REFERENCES.contains(&word_before.as_str()) {
            continue;
        }
        if m.as_str().len() == 4 && (1900.0..=2100.0).contains(&value) {
            continue;
        }
        nums.push(Num {
            value,
            text: m.as_str().to_string(),
            decimals,
            start,
            end,
            after_word,
        });
    }
    // Tokens in order: the numbers and the content words between them.
    let mut tokens: Vec<(usize, Option<String>)> = nums.iter().map(|n| (n.start, None)).collect();
    for w in word_re().find_iter(text) {
        if nums
            .iter()
            .any(|n| w.start() >= n.start && w.start() < n.end)
        {
            continue;
        }
        let lower = w.as_str().to_lowercase();
        if lower.len() < 3 || COMMON.contains(&lower.as_str()) {
            continue;
        }
        tokens.push((w.start(), Some(stem(&lower))));
    }
    tokens.sort_by_key(|t| t.0);
    let mut out = Read {
        nums,
        ..Read::default()
    };
    for (pos, (start, word)) in tokens.into_iter().enumerate() {
        match word {
            Some(w) => out.words.push((pos, w)),
            None => {
                if let Some(i) = out.nums.iter().position(|n| n.start == start) {
                    out.num_pos.resize(out.nums.len(), 0);
                    out.num_pos[i] = pos;
                }
            }
        }
    }
    out.num_pos.resize(out.nums.len(), 0);
    out
}

impl Read {
    /// The words that belong to number `i`: those nearest to it.
    fn own_words(&self, i: usize) -> Vec<&str> {
        let at = self.num_pos[i];
        self.words
            .iter()
            .filter(|(p, _)| {
                let d = p.abs_diff(at);
                self.num_pos.iter().all(|q| p.abs_diff(*q) >= d)
            })
            .map(|(_, w)| w.as_str())
            .collect()
    }

    fn all_words(&self) -> Vec<&str> {
        self.words.iter().map(|(_, w)| w.as_str()).collect()
    }
}

fn shared(a: &[&str], b: &[&str], generic_too: bool) -> Vec<String> {
    let mut out: Vec<String> = a
        .iter()
        .filter(|w| generic_too || !GENERIC.contains(w))
        .filter(|w| b.iter().any(|x| same_word(w, x)))
        .map(|w| w.to_string())
        .collect();
    out.dedup();
    out
}

/// Whether `printed` is `stated` at the precision it is written with.
fn same_at_precision(stated: &Num, printed: f64) -> bool {
    let half = 0.5 * 10f64.powi(-stated.decimals);
    (printed - stated.value).abs() <= half * (1.0 + 1e-9)
}

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
}

/// Holds each number of each sentence against the printed output.
/// `ids` are the claim ids in use (a ready claim takes another).
pub fn hold(sentences: &[Sentence], printed: &[Printed], ids: &[String]) -> Vec<StatedFinding> {
    let lines: Vec<Line> = printed
        .iter()
        .flat_map(|p| {
            p.output.lines().map(move |l| Line {
                cell: &p.cell,
                output: &p.output,
                text: l,
                read: read(l),
            })
        })
        .filter(|l| !l.read.nums.is_empty())
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
    let all = r.all_words();
    let mut differs: Option<(&Line, usize, Vec<String>)> = None;
    for line in lines {
        let line_words = line.read.all_words();
        for (j, p) in line.read.nums.iter().enumerate() {
            let p_own = line.read.own_words(j);
            if same_at_precision(n, p.value) {
                let mut words = shared(&own, &line_words, false);
                if words.is_empty() {
                    words = shared(&all, &p_own, false);
                }
                if !words.is_empty() {
                    return Some((line, j, words, StatedReading::Agrees));
                }
                continue;
            }
            if p.after_word || r.nums.iter().any(|m| same_at_precision(m, p.value)) {
                continue;
            }
            let words = shared(&own, &p_own, false);
            if !words.is_empty() && differs.as_ref().is_none_or(|d| words.len() > d.2.len()) {
                differs = Some((line, j, words));
            }
        }
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
    let half = if n.decimals == 0 {
        0.0
    } else {
        0.5 * 10f64.powi(-n.decimals)
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
        reproduce: Criterion::Between([round(n.value - half), round(n.value + half)]),
        magnitude: None,
    };
    claim.check().is_ok().then_some(claim)
}

/// A value's name from the words before it on its line: `final_loss`.
fn identifier(before: &str) -> String {
    let words: Vec<String> = word_re()
        .find_iter(before)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sentence(text: &str) -> Sentence {
        Sentence {
            text: text.into(),
            source: "prose".into(),
            location: "prose".into(),
        }
    }

    fn printed(cell: &str, output: &str) -> Printed {
        Printed {
            cell: cell.into(),
            output: output.into(),
        }
    }

    fn readings(text: &str, out: &[Printed]) -> Vec<(String, StatedReading)> {
        hold(&[sentence(text)], out, &[])
            .into_iter()
            .map(|f| (f.stated, f.reading))
            .collect()
    }

    #[test]
    fn a_loss_that_differs_is_found_with_a_claim_that_reads_it() {
        let out = [printed("train", "step 10\nfinal loss: 0.031\n")];
        let found = hold(
            &[sentence(
                "The unscaled run diverges: the final loss is 12.5.",
            )],
            &out,
            &[],
        );
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(f.reading, StatedReading::Differs);
        assert_eq!(f.printed, Some(0.031));
        assert_eq!(f.shared_words, vec!["final", "loss"]);
        let claim = f.ready_claim.as_ref().unwrap();
        assert_eq!(claim.id, "final-loss-12.5");
        assert_eq!(claim.metric, "nb.final_loss");
        assert_eq!(
            claim.reads["final_loss"].label.as_deref(),
            Some("final loss:")
        );
        assert_eq!(claim.reproduce, Criterion::Between([12.45, 12.55]));
    }

    #[test]
    fn counts_unrelated_to_the_output_are_not_printed() {
        let out = [printed("count", "params: 110\n")];
        assert_eq!(
            readings(
                "A layer from 10 inputs to 10 outputs has 110 parameters.",
                &out
            ),
            vec![
                ("10".into(), StatedReading::NotPrinted),
                ("10".into(), StatedReading::NotPrinted),
                ("110".into(), StatedReading::Agrees),
            ]
        );
        let out = [printed("m", "model 1: loss 0.20\nmodel 2: loss 0.25\n")];
        assert_eq!(
            readings("We train 3 models in chapter 4.", &out),
            vec![("3".into(), StatedReading::NotPrinted)]
        );
    }

    #[test]
    fn agreement_is_at_the_stated_precision() {
        let out = [printed("draw", "mean: 1.0497\n")];
        assert_eq!(
            readings("The mean sits near 1.05.", &out),
            vec![("1.05".into(), StatedReading::Agrees)]
        );
        assert_eq!(
            readings("The mean sits near 1.0.", &out),
            vec![("1.0".into(), StatedReading::Agrees)]
        );
        assert_eq!(
            readings("The mean sits near 1.2.", &out),
            vec![("1.2".into(), StatedReading::Differs)]
        );
    }

    #[test]
    fn batch_geometry_agrees_number_by_number() {
        let out = [printed(
            "c06-e1code",
            "keep_last: 7 batches, last=(4, 4)\ndrop_last: 6 batches, last=(16, 4)\n",
        )];
        let found = hold(
            &[sentence(
                "`drop_last=False` must yield 7 batches (last has 4); `True` must yield 6 full ones.",
            )],
            &out,
            &[],
        );
        let r: Vec<_> = found
            .iter()
            .map(|f| (f.stated.as_str(), f.reading))
            .collect();
        assert_eq!(
            r,
            vec![
                ("7", StatedReading::Agrees),
                ("4", StatedReading::Agrees),
                ("6", StatedReading::Agrees)
            ]
        );
        let seven = found[0].ready_claim.as_ref().unwrap();
        assert_eq!(
            seven.reads["keep_last"].label.as_deref(),
            Some("keep_last:")
        );
    }

    #[test]
    fn names_years_and_references_are_not_stated_numbers() {
        assert!(!states_a_number(
            "See chapter 6 and the float32 weights of c06."
        ));
        assert!(!states_a_number("Published in 2019."));
        assert!(states_a_number("It ran 3 times."));
    }
}
