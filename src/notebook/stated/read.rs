//! How `stated` reads a sentence or a printed line: its numbers (with
//! their units, bounds and clauses) and its words, and when two of them
//! match.

/// Words that say nothing of what a number is.
pub(super) const COMMON: [&str; 40] = [
    "the", "and", "for", "are", "was", "were", "has", "have", "had", "its", "with", "from", "that",
    "this", "these", "than", "into", "each", "per", "about", "after", "before", "must", "should",
    "will", "would", "can", "could", "not", "yield", "yields", "gives", "give", "get", "gets",
    "only", "all", "our", "you", "out",
];

/// Words too generic to say two numbers are the same quantity.
pub(super) const GENERIC: [&str; 10] = [
    "value", "result", "number", "output", "print", "printed", "cell", "total", "now", "here",
];

/// Words after which a number is a reference, not a figure.
pub(super) const REFERENCES: [&str; 12] = [
    "chapter", "section", "figure", "fig", "table", "listing", "page", "version", "python",
    "equation", "eq", "part",
];

/// What kind of thing a number's unit says it is.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Unit {
    /// A duration, in seconds per unit (`ms` is 0.001).
    Time(f64),
    /// `7.4 times`, `5x`.
    Ratio,
    /// `39%`.
    Percent,
    /// A count of something: `7 batches` (the word's stem).
    Noun(String),
}

/// The unit a word or suffix names, if any.
pub(super) fn unit_of(word: &str) -> Option<Unit> {
    let w = word.to_lowercase();
    let time = match w.as_str() {
        "ns" => Some(1e-9),
        "us" | "µs" => Some(1e-6),
        "ms" => Some(1e-3),
        "s" | "sec" | "secs" | "second" | "seconds" => Some(1.0),
        "min" | "mins" | "minute" | "minutes" => Some(60.0),
        "h" | "hr" | "hrs" | "hour" | "hours" => Some(3600.0),
        _ => None,
    };
    if let Some(t) = time {
        return Some(Unit::Time(t));
    }
    match w.as_str() {
        "x" | "×" | "times" | "fold" => Some(Unit::Ratio),
        "%" | "percent" => Some(Unit::Percent),
        _ if w.len() >= 3
            && w.chars().all(|c| c.is_ascii_alphabetic())
            && !COMMON.contains(&w.as_str())
            && !NOT_UNITS.contains(&w.as_str()) =>
        {
            Some(Unit::Noun(stem(&w)))
        }
        _ => None,
    }
}

/// Words after a number that are not what it counts.
pub(super) const NOT_UNITS: [&str; 22] = [
    "vs", "over", "then", "when", "while", "which", "where", "but", "because", "since", "on",
    "off", "true", "false", "here", "there", "now", "too", "also", "instead", "again", "yet",
];

/// Whether two units can be the same quantity; `strict` (for a DIFFERS)
/// also refuses a unit on one side only.
pub(super) fn units_agree(a: &Option<Unit>, b: &Option<Unit>, strict: bool) -> bool {
    match (a, b) {
        (None, None) => true,
        // `6 full ones` is `6 batches`; but a DIFFERS needs the same noun.
        (Some(Unit::Noun(x)), Some(Unit::Noun(y))) => !strict || same_word(x, y),
        (Some(Unit::Time(_)), Some(Unit::Time(_))) => true,
        // `92.5%` is a fraction `0.925` printed bare, and the reverse.
        (Some(Unit::Percent), None) | (None, Some(Unit::Percent)) => true,
        (Some(x), Some(y)) => x == y,
        _ => !strict,
    }
}

/// A number in a text.
#[derive(Debug, Clone)]
pub(super) struct Num {
    pub(super) value: f64,
    pub(super) text: String,
    pub(super) decimals: i32,
    pub(super) start: usize,
    /// Written right after a word with only spaces between (`epoch 3`).
    pub(super) after_word: bool,
    /// Written after `>`, `>=`, `≥` (Some(true): a lower bound) or `<`,
    /// `<=`, `≤` (Some(false): an upper bound).
    pub(super) bound: Option<bool>,
    /// Said to be approximate (`about 2.5 s`, `~40x`): it then holds
    /// within [`APPROXIMATE`] of its value, or its precision if wider.
    pub(super) approximate: bool,
    pub(super) unit: Option<Unit>,
    /// Which clause of the text it is in (`,` `;` `|` dashes and brackets
    /// end one).
    pub(super) clause: usize,
    /// Its clause says `per` or `each`: an amount per item (`4 bytes per
    /// element`), not a total.
    pub(super) rate: bool,
}

/// A word of a text: its stem, its clause and its place among the
/// numbers and words.
#[derive(Debug, Clone)]
pub(super) struct Word {
    pub(super) stem: String,
    pub(super) clause: usize,
    pub(super) pos: usize,
}

/// A text read into numbers and words, in order.
#[derive(Debug, Clone, Default)]
pub(super) struct Read {
    pub(super) nums: Vec<Num>,
    pub(super) words: Vec<Word>,
    /// Position of each number among the tokens.
    pub(super) num_pos: Vec<usize>,
}

pub(super) fn number_re() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+")
            .expect("the figure pattern compiles")
    })
}

pub(super) fn word_re() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(r"[A-Za-z]+").expect("the word pattern compiles"))
}

pub(super) fn stem(w: &str) -> String {
    let w = w.to_lowercase();
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        w[..w.len() - 1].to_string()
    } else {
        w
    }
}

pub(super) fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.len() >= 4 && long.starts_with(short))
}

/// The unit written right after a number: a suffix (`0.4s`, `5x`, `39%`)
/// or the next word (`28.1 ms`, `7 batches`).
pub(super) fn unit_after(rest: &str) -> Option<Unit> {
    let glued: String = rest
        .chars()
        .take_while(|c| c.is_alphabetic() || matches!(c, '%' | '×' | 'µ'))
        .collect();
    if !glued.is_empty() {
        return unit_of(&glued);
    }
    let next = rest.strip_prefix(' ')?.trim_start();
    let word: String = next
        .chars()
        .take_while(|c| c.is_alphabetic() || *c == '%' || *c == 'µ')
        .collect();
    // A word that labels the next value (`mean=-3.6 var=37.4`, `a: 1 b: 2`)
    // is not this one's unit.
    if next[word.len()..].starts_with(['=', ':', '_']) {
        return None;
    }
    unit_of(&word)
}

/// Reads a text's numbers and words.
pub(super) fn read(text: &str) -> Read {
    let bytes = text.as_bytes();
    let glued = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut spans: Vec<(usize, usize)> = Vec::new();
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
        // An ordinal (`95th percentile`, `2nd`) names a place, not a value.
        let rest = &text[end..];
        if ["st", "nd", "rd", "th"].iter().any(|o| {
            rest.get(..2).is_some_and(|r| r.eq_ignore_ascii_case(o))
                && !rest[2..].starts_with(|c: char| c.is_alphabetic())
        }) {
            continue;
        }
        // A minus sign (`-` or `−`) right before the digits, not a hyphen
        // after a word or a number (`3-4`, `x-2`).
        let sign = if start > 0 && bytes[start - 1] == b'-' {
            Some(1)
        } else if text[..start].ends_with('−') {
            Some('−'.len_utf8())
        } else {
            None
        };
        let negative = sign.is_some_and(|len| start == len || !glued(bytes[start - len - 1]));
        // A negative number starts at its sign.
        let start = match sign {
            Some(len) if negative => start - len,
            _ => start,
        };
        let plain = m.as_str().replace(',', "");
        let Ok(mut value) = plain.parse::<f64>() else {
            continue;
        };
        if negative {
            value = -value;
        }
        spans.push((start, end));
        // The place of the last digit written: `2.2e-16` is written to
        // 1e-17, `1.5e3` to 100.
        let (mantissa, exponent) = match plain.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
            None => (plain.as_str(), 0),
        };
        let decimals = mantissa.split_once('.').map_or(0, |(_, d)| {
            d.chars().take_while(char::is_ascii_digit).count() as i32
        }) - exponent;
        let before = text[..start].trim_end_matches([' ', '\t']);
        let word_before = before
            .rsplit(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("")
            .to_lowercase();
        let after_word = before.len() < start
            && before.ends_with(|c: char| c.is_ascii_alphabetic())
            && !plain.contains('.')
            && !COMMON.contains(&word_before.as_str())
            && !APPROXIMATE_WORDS.contains(&word_before.as_str());
        if after_word && REFERENCES.contains(&word_before.as_str()) {
            continue;
        }
        if m.as_str().len() == 4 && (1900.0..=2100.0).contains(&value) {
            continue;
        }
        nums.push(Num {
            value,
            text: if negative {
                format!("-{}", m.as_str())
            } else {
                m.as_str().to_string()
            },
            decimals,
            start,
            after_word,
            approximate: before.ends_with(['~', '≈'])
                || APPROXIMATE_WORDS.contains(&word_before.as_str()),
            bound: bound_before(before, &word_before),
            unit: unit_after(&text[end..]),
            clause: 0,
            rate: false,
        });
    }
    // Clause breaks, outside the numbers (`3,112` is one number) and the
    // brackets of a label (`final loss (raw inputs): 0.0`).
    let labelled = label_brackets(text);
    let breaks: Vec<usize> = text
        .char_indices()
        .filter(|(i, c)| {
            matches!(c, ',' | ';' | '|' | '—' | '–' | '(' | ')' | '[' | ']')
                && !spans.iter().any(|(s, e)| i >= s && i < e)
                && !labelled.contains(i)
        })
        .map(|(i, _)| i)
        .collect();
    let clause = |at: usize| breaks.iter().take_while(|b| **b < at).count();
    for n in &mut nums {
        n.clause = clause(n.start);
        let from = breaks
            .iter()
            .rev()
            .find(|b| **b < n.start)
            .map_or(0, |b| b + 1);
        let to = breaks
            .iter()
            .find(|b| **b > n.start)
            .copied()
            .unwrap_or(text.len());
        n.rate = text.get(from..to).is_some_and(|c| {
            word_re().find_iter(c).any(|w| {
                w.as_str().eq_ignore_ascii_case("per") || w.as_str().eq_ignore_ascii_case("each")
            })
        });
    }
    // Tokens in order: the numbers and the content words between them.
    let mut tokens: Vec<(usize, Option<String>)> = nums.iter().map(|n| (n.start, None)).collect();
    for w in word_re().find_iter(text) {
        if spans.iter().any(|(s, e)| w.start() >= *s && w.start() < *e) {
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
        num_pos: vec![0; nums.len()],
        nums,
        words: Vec::new(),
    };
    for (pos, (start, word)) in tokens.into_iter().enumerate() {
        match word {
            Some(stem) => out.words.push(Word {
                stem,
                clause: clause(start),
                pos,
            }),
            None => {
                if let Some(i) = out.nums.iter().position(|n| n.start == start) {
                    out.num_pos[i] = pos;
                }
            }
        }
    }
    out
}

/// Where the brackets of a label are: a `(`…`)` with no bracket inside,
/// followed by a `:` (`name (qualifier): value`).
fn label_brackets(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for (open, _) in text.match_indices('(') {
        let rest = &text[open + 1..];
        let Some(close) = rest.find([')', '(']) else {
            continue;
        };
        let close = open + 1 + close;
        if text[close..].starts_with(')') && text[close + 1..].trim_start().starts_with(':') {
            out.extend([open, close]);
        }
    }
    out
}

impl Read {
    /// The words that belong to number `i`: those of its clause nearer to
    /// it than to any other number of the clause.
    pub(super) fn own_words(&self, i: usize) -> Vec<&str> {
        let (at, clause) = (self.num_pos[i], self.nums[i].clause);
        self.words
            .iter()
            .filter(|w| w.clause == clause)
            .filter(|w| {
                let d = w.pos.abs_diff(at);
                self.nums
                    .iter()
                    .zip(&self.num_pos)
                    .filter(|(n, _)| n.clause == clause)
                    .all(|(_, q)| w.pos.abs_diff(*q) >= d)
            })
            .map(|w| w.stem.as_str())
            .collect()
    }

    /// The words of number `i`'s clause.
    pub(super) fn clause_words(&self, i: usize) -> Vec<&str> {
        let clause = self.nums[i].clause;
        self.words
            .iter()
            .filter(|w| w.clause == clause)
            .map(|w| w.stem.as_str())
            .collect()
    }

    /// The word right before number `i`, if a word comes right before it.
    pub(super) fn word_before(&self, i: usize) -> Option<&str> {
        let at = self.num_pos[i];
        self.words
            .iter()
            .find(|w| w.pos + 1 == at)
            .map(|w| w.stem.as_str())
    }

    pub(super) fn all_words(&self) -> Vec<&str> {
        self.words.iter().map(|w| w.stem.as_str()).collect()
    }
}

pub(super) fn shared(a: &[&str], b: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = a
        .iter()
        .filter(|w| !GENERIC.contains(w))
        .filter(|w| b.iter().any(|x| same_word(w, x)))
        .map(|w| w.to_string())
        .collect();
    out.dedup();
    out
}

/// `printed` in the unit of `stated` (a duration converted: `0.0281 s`
/// is `28.1 ms`; a fraction printed bare is a percentage stated: `0.925`
/// is `92.5%`).
pub(super) fn in_stated_unit(stated: &Num, printed: &Num) -> f64 {
    match (&stated.unit, &printed.unit) {
        (Some(Unit::Time(a)), Some(Unit::Time(b))) => printed.value * b / a,
        (Some(Unit::Percent), None) if printed.value.abs() <= 1.0 => printed.value * 100.0,
        (None, Some(Unit::Percent)) if stated.value.abs() <= 1.0 => printed.value / 100.0,
        _ => printed.value,
    }
}

/// Whether `printed` is what `stated` says: within its bound, or the same
/// at the precision it is written with.
pub(super) fn holds(stated: &Num, printed: f64) -> bool {
    match stated.bound {
        Some(true) => printed >= stated.value,
        Some(false) => printed <= stated.value,
        None => same_at_precision(stated, printed),
    }
}

/// Whether `printed` is `stated` at the precision it is written with.
pub(super) fn same_at_precision(stated: &Num, printed: f64) -> bool {
    (printed - stated.value).abs() <= stated.half_width() * (1.0 + 1e-9)
}

/// How far from a value said to be approximate a number may be: a tenth
/// of it.
pub(super) const APPROXIMATE: f64 = 0.1;

/// Words that say the number after them is approximate.
const APPROXIMATE_WORDS: [&str; 8] = [
    "about",
    "near",
    "around",
    "roughly",
    "approximately",
    "nearly",
    "almost",
    "circa",
];

impl Num {
    /// Half the width of what the number says: half a unit of its last
    /// digit, or a tenth of it when it is said to be approximate.
    pub(super) fn half_width(&self) -> f64 {
        let digit = 0.5 * 10f64.powi(-self.decimals);
        if self.approximate {
            digit.max(APPROXIMATE * self.value.abs())
        } else {
            digit
        }
    }
}

/// Whether the text before a number makes it a bound: `> 10`, `>= 3`,
/// `above 10`, `more than 5`, `at least 2` (Some(true), a lower bound);
/// `< 1`, `below 0.1`, `at most 4` (Some(false)).
fn bound_before(before: &str, word_before: &str) -> Option<bool> {
    let lower = before.to_lowercase();
    if lower.ends_with(['>', '≥']) || lower.ends_with(">=") {
        return Some(true);
    }
    if lower.ends_with(['<', '≤']) || lower.ends_with("<=") {
        return Some(false);
    }
    if ["more than", "greater than", "at least"]
        .iter()
        .any(|p| lower.ends_with(p))
        || ["above", "exceeds", "exceeding", "exceed"].contains(&word_before)
    {
        return Some(true);
    }
    if ["less than", "fewer than", "at most"]
        .iter()
        .any(|p| lower.ends_with(p))
        || ["below", "under"].contains(&word_before)
    {
        return Some(false);
    }
    None
}
