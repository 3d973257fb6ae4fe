//! Stated against printed: the numbers a chapter's sentences state (its
//! prose, and its notebook's markdown cells) held against what the code
//! cells of a notebook run printed, each read as AGREES, DIFFERS or
//! NOT_PRINTED, with a ready notebook claim for each AGREES and DIFFERS.
//!
//! The matching rule (docs/formats.md says it for authors, with examples;
//! `read` reads the texts, `table` a printed table's columns): numbers not
//! glued to a name, not years, not ordinals, not references, not section
//! numbers, with their sign; each with its unit (a duration, a
//! ratio, a percentage, the word it counts), its bound (`> 10`, `above
//! 10`), whether it is approximate (`about 2.5 s`), and its own words (the
//! words of its clause nearer to it than to another number of the clause).
//! First each number's AGREES: the same number at the sentence's precision
//! (or within its bound), no other kind of unit, and a word in common, the
//! closest tie winning; a printed index (`epoch 2`) agrees only through its
//! own word. Then, for the rest, DIFFERS: a printed number with the same
//! kind of unit, not an index, not taken by another number's agreement,
//! whose own words share a non-generic word with the stated number's own
//! words, or with the words of its clause no other number keeps, and
//! whose label's head noun the stated number's clause names (all of the
//! head for a stated index). A markdown cell's sentence differs only from
//! its section (the code cells up to the next markdown cell), and its
//! agreements prefer it on a tie. No DIFFERS for a value printed as stated
//! or written in the code where the sentence may speak of it. A value that
//! varies across the run's kernels agrees only where every kernel bears it
//! out. NOT_PRINTED: the rest.
//!
//! What it cannot see: numbers only in an `assert` or in code or its
//! comments, numbers shown only in images or HTML outputs, values the run
//! did not print (a cell that failed), numbers spelled out (`seven`), and
//! numbers printed in another form (`1.2k`). A DIFFERS is a lead for
//! research, not a verdict.

use serde::Serialize;

use crate::published::notebook_reads::NotebookClaim;

/// A sentence that may state numbers, and where it is.
#[derive(Debug, Clone)]
pub struct Sentence {
    pub text: String,
    /// `prose`, or `notebook cell m-diverge`.
    pub source: String,
    /// What a claim's `location` would say.
    pub location: String,
    /// For a notebook markdown cell, its section: the ids of the code
    /// cells after it, up to the next markdown cell. A DIFFERS is only
    /// held against what they printed, and an AGREES prefers them.
    pub section: Option<Vec<String>>,
}

/// What one code cell printed in the run: in the first kernel it ran in,
/// and in each other kernel it ran in.
#[derive(Debug, Clone)]
pub struct PrintedCell {
    pub cell: String,
    pub output: String,
    /// What it printed in the other kernels (it failed in none of them).
    pub others: Vec<String>,
    /// Its code: a value written there is one the author set.
    pub code: String,
}

/// A printed number that varies across the kernels of a run: the lowest
/// and the highest value, over the kernels whose line read the same with
/// its numbers left out, and in how many of them the stated number holds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Varies {
    pub low: f64,
    pub high: f64,
    pub kernels: usize,
    pub holding: usize,
}

impl Varies {
    /// `0.41 to 0.47 across 3 kernels`.
    pub fn in_words(&self) -> String {
        format!(
            "{} to {} across {} kernels",
            self.low, self.high, self.kernels
        )
    }
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
    /// The printed number took other values in other kernels of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub varies: Option<Varies>,
    /// A claim that reads exactly that number from that cell, checked
    /// against the cell's output before it is offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready_claim: Option<NotebookClaim>,
    /// The cell's own code writes the printed value: a setting the cell
    /// echoes (`num_workers=0`), offered no ready claim.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub setting: bool,
    /// The existing claim that quotes this sentence, when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claimed_by: Option<String>,
}

use read::{Num, Read, holds, in_stated_unit, read, shared, units_agree, word_re};
use ready::ready_claim;

mod read;
mod ready;
mod table;
#[cfg(test)]
mod tests;
pub mod yaml;

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
    /// Each number's label head: the words of the label before it (`std`
    /// in `std after 10 layers: 0.037`, `input mean` in `input mean: 5.0`).
    heads: Vec<Vec<String>>,
    /// Each number's value in every kernel whose line reads the same with
    /// its numbers left out (this line's own value first).
    values: Vec<Vec<f64>>,
    /// A table's row keyed by a number: that number.
    row_key: Option<f64>,
}

/// Reads line `at` of what `p` printed (`row` when it is a table's row);
/// None when it has no number.
fn line<'a>(
    p: &'a PrintedCell,
    at: usize,
    l: &'a str,
    row: Option<&table::TableRow>,
) -> Option<Line<'a>> {
    let mut read = read(l);
    if read.nums.is_empty() {
        return None;
    }
    let words = read.all_words().into_iter().map(str::to_string).collect();
    let mut heads: Vec<Vec<String>> = read.nums.iter().map(|n| head(&l[..n.start])).collect();
    // An index's own word is the one it follows (`step` in `step 100:
    // loss 0.41`), not what its value is called. In `key=value` pairs the
    // key is the value's own word (`n=1000 mean=-3.610`: `mean` is as near
    // to 1000).
    let mut own: Vec<Vec<String>> = (0..read.nums.len())
        .map(|j| match read.word_before(j) {
            Some(w) if read.nums[j].after_word => vec![w.to_string()],
            _ => {
                let mut own: Vec<String> =
                    read.own_words(j).into_iter().map(str::to_string).collect();
                if l[..read.nums[j].start].trim_end().ends_with('=') {
                    add_words(&mut own, &heads[j]);
                }
                own
            }
        })
        .collect();
    // In a table's row a number is named by its column's header and its
    // row's label, and is no index (`syllable 163,459`).
    if let Some(row) = row {
        for (j, n) in read.nums.iter_mut().enumerate() {
            if let Some(column) = row.column(n.start) {
                n.after_word = false;
                heads[j] = column.header.clone();
                own[j] = column.header.clone();
                add_words(&mut own[j], &row.label);
            }
        }
    }
    let values = kernel_values(p, at, l, &read);
    Some(Line {
        cell: &p.cell,
        output: &p.output,
        text: l,
        read,
        words,
        own,
        heads,
        values,
        row_key: row.and_then(|r| r.key),
    })
}

fn add_words(to: &mut Vec<String>, words: &[String]) {
    for w in words {
        if !to.contains(w) {
            to.push(w.clone());
        }
    }
}

/// Whether the line is a table's row keyed by a number the sentence states
/// (other than its number `i`): `at a utilisation of 0.8` speaks of the
/// row `0.8`.
fn row_named(line: &Line, r: &Read, i: usize) -> usize {
    usize::from(line.row_key.is_some_and(|key| {
        r.nums
            .iter()
            .enumerate()
            .any(|(k, m)| k != i && read::same_at_precision(m, key))
    }))
}

/// What each cell's code sets: the values it writes as literals (`h =
/// 1e-4`, `DataLoader(ds, batch_size=16)`), read once per check.
/// Strings and comments are left out: `print('params: 112')` sets nothing.
struct CodeSettings<'a>(Vec<(&'a str, Vec<f64>)>);

impl<'a> CodeSettings<'a> {
    fn of(printed: &'a [PrintedCell]) -> Self {
        CodeSettings(
            printed
                .iter()
                .map(|p| {
                    let values = p
                        .code
                        .lines()
                        .flat_map(|l| read(&code_only(l)).nums)
                        .map(|n| n.value)
                        .collect();
                    (p.cell.as_str(), values)
                })
                .collect(),
        )
    }

    /// Whether a cell `within` takes sets the value `v`.
    fn set(&self, v: f64, within: impl Fn(&str) -> bool) -> bool {
        self.0
            .iter()
            .filter(|(cell, _)| within(cell))
            .any(|(_, values)| {
                values
                    .iter()
                    .any(|c| (c - v).abs() <= 1e-12 * v.abs().max(1.0))
            })
    }
}

/// A line of Python without its string literals and its comment (each
/// string kept as a space, so the numbers around it stay apart).
fn code_only(line: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in line.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                    out.push(' ');
                }
            }
            None if c == '#' => break,
            None if c == '\'' || c == '"' => quote = Some(c),
            None => out.push(c),
        }
    }
    out
}

/// A line with its numbers left out: two kernels printed the same line
/// when these agree.
fn skeleton(line: &str) -> String {
    read::number_re().replace_all(line, "#").into_owned()
}

/// Each number's values across the kernels: number `j` of line `at` of
/// `p`'s output, and of the same line in each other kernel's output when
/// it reads the same with its numbers left out.
fn kernel_values(p: &PrintedCell, at: usize, line: &str, first: &Read) -> Vec<Vec<f64>> {
    let shape = skeleton(line);
    let mut values: Vec<Vec<f64>> = first.nums.iter().map(|n| vec![n.value]).collect();
    for other in &p.others {
        let Some(l) = other.lines().nth(at) else {
            continue;
        };
        let r = read(l);
        if skeleton(l) != shape || r.nums.len() != first.nums.len() {
            continue;
        }
        for (v, n) in values.iter_mut().zip(&r.nums) {
            v.push(n.value);
        }
    }
    values
}

/// How many of `values` (number `p` as each kernel printed it) stated
/// number `n` holds for.
fn holding(n: &Num, p: &Num, values: &[f64]) -> usize {
    values
        .iter()
        .filter(|v| {
            let mut q = p.clone();
            q.value = **v;
            holds(n, in_stated_unit(n, &q))
        })
        .count()
}

/// Holds each number of each sentence against the printed output.
/// `ids` are the claim ids in use (a ready claim takes another).
pub fn hold(sentences: &[Sentence], printed: &[PrintedCell], ids: &[String]) -> Vec<StatedFinding> {
    let settings = CodeSettings::of(printed);
    let lines: Vec<Line> = printed
        .iter()
        .flat_map(|p| {
            let rows = table::rows(&p.output);
            p.output
                .lines()
                .enumerate()
                .filter_map(move |(at, l)| line(p, at, l, rows[at].as_ref()))
        })
        .collect();
    let mut taken: Vec<String> = ids.to_vec();
    let mut out = Vec::new();
    for s in sentences {
        let r = read(&s.text);
        // First what each number agrees with, then, for the rest, what
        // they differ from: a printed number another number of the sentence
        // agrees with is taken, and the words that tied it are spent.
        let agreed: Vec<Option<Found>> = (0..r.nums.len())
            .map(|i| agrees(&r, i, &lines, s.section.as_deref()))
            .collect();
        let spent: Vec<&str> = agreed
            .iter()
            .flatten()
            .flat_map(|f| f.words.iter().map(String::as_str))
            .collect();
        let held: Vec<(usize, usize)> = agreed.iter().flatten().map(|f| (f.line, f.num)).collect();
        let did_agree: Vec<bool> = agreed.iter().map(Option::is_some).collect();
        let mut founds: Vec<Option<Found>> = (0..r.nums.len())
            .map(|i| {
                agreed[i].clone().or_else(|| {
                    differs(
                        &r,
                        i,
                        &lines,
                        &settings,
                        s.section.as_deref(),
                        &held,
                        &spent,
                        &did_agree,
                    )
                })
            })
            .collect();
        keep_best_ties(&mut founds);
        for (i, n) in r.nums.iter().enumerate() {
            let found = founds[i].take();
            let mut f = StatedFinding {
                sentence: s.text.clone(),
                source: s.source.clone(),
                stated: n.text.clone(),
                reading: StatedReading::NotPrinted,
                cell: None,
                line: None,
                printed: None,
                shared_words: Vec::new(),
                varies: None,
                setting: false,
                ready_claim: None,
                claimed_by: None,
            };
            if let Some(found) = found {
                let line = &lines[found.line];
                f.reading = found.reading;
                let values = &line.values[found.num];
                if values.iter().any(|v| *v != values[0]) {
                    let p = &line.read.nums[found.num];
                    let varies = Varies {
                        low: values.iter().copied().fold(f64::INFINITY, f64::min),
                        high: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                        kernels: values.len(),
                        holding: holding(n, p, values),
                    };
                    // A sentence states one value; a run whose kernels
                    // printed it otherwise does not bear it out.
                    if varies.holding < varies.kernels {
                        f.reading = StatedReading::Differs;
                    }
                    f.varies = Some(varies);
                }
                f.cell = Some(line.cell.to_string());
                f.line = Some(line.text.trim().to_string());
                f.printed = Some(line.read.nums[found.num].value);
                let at = ready::At {
                    cell: line.cell,
                    output: line.output,
                    text: line.text,
                    p: &line.read.nums[found.num],
                };
                // A value the cell's own code sets (`num_workers=0`) is a
                // setting it echoes, not a result a claim should check.
                let setting = settings.set(line.read.nums[found.num].value, |c| c == line.cell);
                f.setting = setting;
                f.ready_claim = (!setting)
                    .then(|| ready_claim(&s.text, &s.location, n, at, &found.words, &taken))
                    .flatten();
                f.shared_words = found.words;
                if let Some(c) = &f.ready_claim {
                    taken.push(c.id.clone());
                }
            }
            out.push(f);
        }
    }
    out
}

/// Two numbers of a sentence differing from the same printed number: the
/// better tie keeps it (`from 10 to 12 has 132 parameters` against
/// `layer parameters: 112`: 132, whose own word the label is), the other
/// is not printed.
fn keep_best_ties(founds: &mut [Option<Found>]) {
    for i in 0..founds.len() {
        for k in 0..founds.len() {
            let beaten = match (&founds[i], &founds[k]) {
                (Some(a), Some(b)) if i != k && (a.line, a.num) == (b.line, b.num) => {
                    a.reading == StatedReading::Differs
                        && b.reading == StatedReading::Differs
                        && (b.score > a.score || (b.score == a.score && k > i))
                }
                _ => false,
            };
            if beaten {
                founds[i] = None;
            }
        }
    }
}

/// A printed number a stated one is held against: its line (an index
/// into the lines), its place on the line, the words that tie them.
#[derive(Debug, Clone)]
struct Found {
    line: usize,
    num: usize,
    words: Vec<String>,
    reading: StatedReading,
    /// How well they tie (higher is better): two stated numbers held
    /// against the same printed one, the better tie keeps it.
    score: Score,
}

/// How well a stated and a printed number tie: the tier of the words
/// that tie them, whether the line is the one the sentence names (its
/// table row, or a line another of its numbers agrees with), the words
/// they share, the words the sentence shares with the whole line.
type Score = (usize, usize, usize, usize);

/// An agreement's rank: its score, with a line of the sentence's own
/// section winning among equal ties.
type AgreeKey = (usize, bool, usize, usize, usize);

/// Keeps the candidate in `best` when its key is higher (the first of equal
/// ones stays).
fn keep_better<K: PartialOrd>(best: &mut Option<(Found, K)>, found: Found, key: K) {
    if best.as_ref().is_none_or(|b| key > b.1) {
        *best = Some((found, key));
    }
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The printed number stated number `i` agrees with: the same number (or
/// within its bound), no other kind of unit, and the closest tie of words
/// (the two numbers' own words, then either's with the other's line or
/// clause, then the whole sentence's with the printed number's own), then
/// the most words shared. A printed index (`epoch 2`) agrees only through
/// its own word (`2 epochs`, not `2 seconds`).
fn agrees(r: &Read, i: usize, lines: &[Line], section: Option<&[String]>) -> Option<Found> {
    let n = &r.nums[i];
    let own = r.own_words(i);
    let clause = r.clause_words(i);
    let all = r.all_words();
    let mut best: Option<(Found, AgreeKey)> = None;
    for (l, line) in lines.iter().enumerate() {
        let line_words = strs(&line.words);
        let near = section.is_some_and(|cells| cells.iter().any(|c| c == line.cell));
        for (j, p) in line.read.nums.iter().enumerate() {
            if holding(n, p, &line.values[j]) == 0 || !units_agree(&n.unit, &p.unit, false) {
                continue;
            }
            let p_own = strs(&line.own[j]);
            let tiers = [
                shared(&own, &p_own),
                shared(&own, &line_words),
                shared(&clause, &p_own),
                shared(&all, &p_own),
            ];
            let Some((k, words)) = tiers.into_iter().enumerate().find(|(_, w)| !w.is_empty())
            else {
                continue;
            };
            if p.after_word && k > 0 {
                continue;
            }
            // Tied through a word elsewhere on the line, the number must be
            // the first after that word: `last has 4` is the 4 of `last=(4,
            // 4)`, not of `last=(16, 4)`.
            if k == 1 && !first_after(line, &words, j) {
                continue;
            }
            let strength = match k {
                0 => 3,
                1 | 2 => 2,
                _ => 1,
            };
            let score = (
                strength,
                row_named(line, r, i),
                words.len(),
                shared(&all, &line_words).len(),
            );
            // Equally tied, a line of the sentence's own section wins.
            let key = (score.0, near, score.1, score.2, score.3);
            let found = Found {
                line: l,
                num: j,
                words,
                reading: StatedReading::Agrees,
                score,
            };
            keep_better(&mut best, found, key);
        }
    }
    best.map(|b| b.0)
}

/// The printed number stated number `i` differs from: the same kind of
/// unit (or none on both sides), not an index, not a number another number
/// of the sentence agrees with, and own words sharing one with the stated
/// number's own words, or else with the words of its clause no other
/// number's agreement spent (`the loss after 100 steps is above 10`: `step`
/// ties 100, `loss` is left for 10). Most words shared wins.
#[allow(clippy::too_many_arguments)]
fn differs(
    r: &Read,
    i: usize,
    lines: &[Line],
    settings: &CodeSettings,
    section: Option<&[String]>,
    held: &[(usize, usize)],
    spent: &[&str],
    agreed: &[bool],
) -> Option<Found> {
    let n = &r.nums[i];
    let own = r.own_words(i);
    // Words of the clause no other number keeps: its own words, unless
    // that number agreed through other words.
    let kept: Vec<&str> = (0..r.nums.len())
        .filter(|k| *k != i)
        .flat_map(|k| {
            let agreed = agreed[k];
            r.own_words(k)
                .into_iter()
                .filter(move |w| !agreed || spent.contains(w))
        })
        .collect();
    let free: Vec<&str> = r
        .clause_words(i)
        .into_iter()
        .filter(|w| !kept.contains(w))
        .collect();
    let all = r.all_words();
    let clause = r.clause_words(i);
    // A value printed as stated where the sentence may speak of it is no
    // lead: the line it means may be one whose words it does not share
    // (`wait 0.1 s` and `delays (s): [0.1, 0.2]`, a table's row).
    let printed_as_stated = n.bound.is_none()
        && lines
            .iter()
            .filter(|line| section.is_none_or(|cells| cells.iter().any(|c| c == line.cell)))
            .any(|line| {
                line.read.nums.iter().enumerate().any(|(j, p)| {
                    !p.after_word
                        && units_agree(&n.unit, &p.unit, false)
                        && holding(n, p, &line.values[j]) > 0
                })
            });
    if printed_as_stated {
        return None;
    }
    let mut best: Option<(Found, Score)> = None;
    for (l, line) in lines.iter().enumerate() {
        // A markdown cell's sentence differs only from its own section.
        if section.is_some_and(|cells| !cells.iter().any(|c| c == line.cell)) {
            continue;
        }
        let line_words = strs(&line.words);
        for (j, p) in line.read.nums.iter().enumerate() {
            // The label's head noun (its last word) is in the number's
            // clause; all of its head for a stated index: `resumes at step
            // 120` does not differ from `restored step: 300`.
            let in_clause = |h: &String| clause.iter().any(|w| read::same_word(h, w));
            let head = &line.heads[j];
            let named_by_head = if n.after_word {
                head.iter().all(in_clause)
            } else {
                // Two durations are tied by their units (`2.5 seconds`,
                // `epoch time: 3.1s`).
                head.last().is_none_or(in_clause)
                    || matches!(
                        (&n.unit, &p.unit),
                        (Some(read::Unit::Time(_)), Some(read::Unit::Time(_)))
                    )
            };
            if !named_by_head {
                continue;
            }
            let p_own = strs(&line.own[j]);
            // `132 parameters` against `params: 112`: the label names
            // what the stated number counts.
            // Or the label's head is the stated number's own word (`the
            // mean ... is -3.16 degrees` against `mean=-3.610`).
            let named = match (&n.unit, &p.unit) {
                (Some(read::Unit::Noun(x)), None) => {
                    p_own.iter().any(|w| read::same_word(x, w))
                        || head.last().is_some_and(|h| own.contains(&h.as_str()))
                }
                _ => false,
            };
            // A count per item (`4 bytes per element`) never differs from
            // a total; a duration per item is what a time is printed as.
            let per_item = |x: &Num| x.rate && !matches!(x.unit, Some(read::Unit::Time(_)));
            if p.after_word
                || per_item(n) != per_item(p)
                || held.contains(&(l, j))
                || holding(n, p, &line.values[j]) > 0
                || !(named || units_agree(&n.unit, &p.unit, true))
                || !fraction_fits(n, p)
            {
                continue;
            }
            let (tier, words) = match shared(&own, &p_own) {
                w if !w.is_empty() => (2 + usize::from(named), w),
                _ => (1, shared(&free, &p_own)),
            };
            if words.is_empty() {
                continue;
            }
            // A line another number of the sentence agrees with, or a
            // table's row the sentence names, is the one it speaks of.
            let anchored = held.iter().any(|(h, _)| *h == l);
            let score = (
                tier,
                row_named(line, r, i) + usize::from(anchored),
                words.len(),
                shared(&all, &line_words).len(),
            );
            let found = Found {
                line: l,
                num: j,
                words,
                reading: StatedReading::Differs,
                score,
            };
            keep_better(&mut best, found, score);
        }
    }
    // Nor is a value the code sets (`std_after(0.01)`, `h = 1e-4`): the
    // sentence says what went in, and what came out is another number. The
    // code read is that of the sentence's section, or for prose that of
    // the cell it would differ from.
    let found = best.map(|b| b.0)?;
    let cell = lines[found.line].cell;
    let set_in_code = n.bound.is_none()
        && settings.set(n.value, |c| {
            section.map_or(c == cell, |cells| cells.iter().any(|s| s == c))
        });
    (!set_in_code).then_some(found)
}

/// The head of the label a printed number ends (`before` is the line up
/// to it): the words of its part of the line (after the last `,` `;` `|`
/// and an earlier label's colon) before any number or bracket, without
/// common words.
fn head(before: &str) -> Vec<String> {
    let part = before.rsplit([',', ';', '|']).next().unwrap_or(before);
    // In `key=value` pairs a label is its key (`k=7 measured_fp=`: the
    // head is `measured`).
    let part = match part.trim_end().strip_suffix('=') {
        Some(key) if !key.ends_with(['=', '!', '<', '>']) => {
            let key = key.trim_end();
            key.rsplit(char::is_whitespace).next().unwrap_or(key)
        }
        _ => part,
    };
    // A label ends at its colon; an earlier colon ends another one
    // (`epoch 0: loss 0.33`: `loss`).
    let part = part.trim_end().trim_end_matches([':', '=']);
    let part = part.rsplit(':').next().unwrap_or(part);
    let end = part
        .find(|c: char| c.is_ascii_digit() || matches!(c, '(' | '[' | '{'))
        .unwrap_or(part.len());
    word_re()
        .find_iter(&part[..end])
        .map(|w| w.as_str().to_lowercase())
        .filter(|w| w.len() >= 3 && !read::COMMON.contains(&w.as_str()))
        .map(|w| read::stem(&w))
        .collect()
}

/// Whether number `j` of `line` is the first number after one of `words`
/// on it (or no number comes after them).
fn first_after(line: &Line, words: &[String], j: usize) -> bool {
    let text = line.text.to_lowercase();
    let after: Vec<usize> = words
        .iter()
        .flat_map(|w| {
            text.match_indices(w.as_str())
                .filter_map(|(at, _)| line.read.nums.iter().position(|n| n.start >= at + w.len()))
                .collect::<Vec<_>>()
        })
        .collect();
    after.is_empty() || after.contains(&j)
}

/// A percentage against a bare number is a fraction only when the bare one
/// is one (at most 1 in size).
fn fraction_fits(n: &Num, p: &Num) -> bool {
    use read::Unit::Percent;
    match (&n.unit, &p.unit) {
        (Some(Percent), None) => p.value.abs() <= 1.0,
        (None, Some(Percent)) => n.value.abs() <= 1.0,
        _ => true,
    }
}
