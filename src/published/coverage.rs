//! Which sentences of a chapter state numbers that no claim checks: ratios
//! ("7.4 times", "5x"), figures with units ("28.1 ms", "449 examples per
//! second", "39%"), and before/after pairs ("from 62.8 to 28.1"). Flattened
//! tables are left out: they are the data, not the prose.

use super::diff::{find_quote, sentences};

/// Units that make a number a measured figure.
const UNITS: [&str; 16] = [
    "ms", "s", "µs", "us", "ns", "%", "ex/s", "examples", "samples", "kb", "mb", "gb", "kib",
    "mib", "gib", "seconds",
];

/// Spelled numbers that go with "times".
const SPELLED: [&str; 9] = [
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
];

fn is_number(token: &str) -> bool {
    let t = token.trim_matches(|c: char| matches!(c, ',' | '.' | ';' | ':' | '(' | ')' | '"'));
    !t.is_empty()
        && t.chars().any(|c| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-'))
}

/// Whether a sentence states a number a reader could check.
pub fn states_numbers(sentence: &str) -> bool {
    let words: Vec<String> = sentence
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, ',' | '.' | ';' | ':' | '(' | ')' | '"'))
                .to_lowercase()
        })
        .collect();
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).map(String::as_str).unwrap_or("");
        let numeric = is_number(w);
        // "7.4 times", "five times", "5x", "8×"
        if (numeric || SPELLED.contains(&w.as_str())) && next == "times" {
            return true;
        }
        if w.len() > 1
            && (w.ends_with('x') || w.ends_with('×'))
            && is_number(w.trim_end_matches(['x', '×']))
        {
            return true;
        }
        // "28.1 ms", "39%"
        if numeric && UNITS.contains(&next) {
            return true;
        }
        if w.ends_with('%') && is_number(w.trim_end_matches('%')) {
            return true;
        }
        // "from 62.8 ... to 28.1": a before/after pair of measurements
        // (fractions, or figures with units; "from 0 to 8 workers" is a
        // setting, not a result).
        let measured = |k: usize| {
            words
                .get(k)
                .is_some_and(|x| is_number(x) && x.contains('.'))
                || (words.get(k).is_some_and(|x| is_number(x))
                    && words
                        .get(k + 1)
                        .is_some_and(|u| UNITS.contains(&u.as_str())))
        };
        if w == "from" && measured(i + 1) && words[i + 1..].iter().take(6).any(|x| x == "to") {
            return true;
        }
    }
    false
}

/// The prose sentences of a normalized text, with flattened tables cut out:
/// a stretch of three or more numbers in a row ends what came before it.
pub fn prose_sentences(normalized: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in sentences(normalized) {
        let tokens: Vec<&str> = raw.split_whitespace().collect();
        // Start after the last table-like run (3+ numbers, or a header).
        let mut start = 0;
        let mut run = 0;
        for (i, t) in tokens.iter().enumerate() {
            if is_number(t) || t.starts_with("===") || t.contains('=') {
                run += 1;
                if run >= 3 || t.starts_with("===") {
                    start = i + 1;
                }
            } else {
                run = 0;
            }
        }
        let s = tokens[start.min(tokens.len())..].join(" ");
        if s.split_whitespace().count() >= 3 {
            out.push(s);
        }
    }
    out
}

/// Sentences of `normalized` that state numbers and that none of `quotes`
/// covers.
pub fn uncovered(normalized: &str, quotes: &[String]) -> Vec<String> {
    prose_sentences(normalized)
        .into_iter()
        .filter(|s| states_numbers(s))
        .filter(|s| {
            !quotes
                .iter()
                .any(|q| find_quote(q, s).0 || s.contains(q.as_str()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_a_reader_could_check_are_found() {
        for s in [
            "The first pipeline got 7.4 times faster.",
            "It made the step five times slower.",
            "A 5x speed-up.",
            "The wait fell from 62.8 to 28.1 ms.",
            "Each sample takes 2 ms.",
            "It spends 39% of each step waiting.",
        ] {
            assert!(states_numbers(s), "{s}");
        }
        for s in [
            "It moved.",
            "Chapter 6 is about loaders.",
            "Use 8 workers on one machine.",
            "Raise num_workers from 0 to 8 and measure again.",
        ] {
            assert!(!states_numbers(s), "{s}");
        }
    }

    #[test]
    fn a_planted_sentence_is_uncovered_and_tables_are_not_prose() {
        let text = "=== producer=sleep 2.0 ms/sample batch=32 consumer=8 ms/batch === workers ex/s 0 414 8 3049 The first pipeline got 7.4 times faster. The third ran 3 times slower at 12 ms per batch.";
        let quotes = vec!["The first pipeline got 7.4 times faster.".to_string()];
        assert_eq!(
            uncovered(text, &quotes),
            vec!["The third ran 3 times slower at 12 ms per batch.".to_string()]
        );
    }
}
