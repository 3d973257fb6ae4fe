//! The word-by-word difference between two revisions' normalized prose, in
//! bounded work: `snapshot diff`, `status`, `prompt` and the site all show
//! it.
//!
//! A minimal diff (Myers, through `similar`) takes time proportional to the
//! length times the number of differences: two 1 MB revisions with nothing
//! in common took minutes. Here the words the two sides share at both ends
//! are matched first; words that occur once in each side then anchor the
//! rest (the longest run of them in the same order, as patience diff does;
//! words that occur up to four times as often in each side too, the k-th
//! occurrence with the k-th), and the stretches between anchors are split
//! again the same way. Only a
//! stretch left without such anchors goes to Myers, and only while its size
//! fits what is left of a fixed budget ([`MYERS_BUDGET`]). A stretch with no
//! word in common is one replacement, which is what a minimal diff would
//! say too; a stretch past the budget is also taken as replaced whole, and
//! the diff is then marked as not exact: its counts are upper bounds. The
//! work depends on the two texts alone, never on the clock, so the same two
//! revisions always give the same diff.

use std::collections::HashMap;
use std::ops::Range;

use similar::{Algorithm, DiffOp};

/// What happened to a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum WordChange {
    Same,
    Removed,
    Added,
}

/// The difference between two texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordDiff<'a> {
    /// Every word of either side once, in reading order, with what
    /// happened to it (the removed words of a replacement before the added
    /// ones).
    pub words: Vec<(WordChange, &'a str)>,
    /// Whether every stretch was traced word by word. False when one went
    /// past [`MYERS_BUDGET`] and was taken as replaced whole, so its words
    /// all count as removed and added, more than a trace would find.
    pub exact: bool,
}

impl WordDiff<'_> {
    /// How many words are marked `change`.
    pub fn count(&self, change: WordChange) -> usize {
        self.words.iter().filter(|(c, _)| *c == change).count()
    }
}

impl WordDiff<'_> {
    /// Whether the change touched the old side's words `old` (indices into
    /// the old text's words): one of them removed, or a word added between
    /// two of them.
    pub fn touches(&self, old: Range<usize>) -> bool {
        // Old words passed so far: the index of the next old word.
        let mut at = 0;
        for (change, _) in &self.words {
            match change {
                WordChange::Same => at += 1,
                WordChange::Removed if old.contains(&at) => return true,
                WordChange::Removed => at += 1,
                WordChange::Added if at > old.start && at < old.end => return true,
                WordChange::Added => {}
            }
            if at >= old.end {
                return false;
            }
        }
        false
    }
}

/// The most Myers work one diff may spend, counted as the square of the
/// words of each stretch it is given (which bounds the work Myers does on
/// it): at most a few tenths of a second.
pub const MYERS_BUDGET: u64 = 20_000_000;

/// How often a word may occur in each side and still anchor a stretch
/// (prose has words that occur once; a text repeated has none).
const MAX_ANCHOR_REPEATS: u8 = 4;

/// How many times a stretch is split by its own anchors, at most,
/// before it goes to Myers; each round costs one pass over the words.
const MAX_SPLITS: usize = 12;

/// The word-by-word difference between `old` and `new` (split at white
/// space, which normalized text holds as single spaces).
pub fn diff_words<'a>(old: &'a str, new: &'a str) -> WordDiff<'a> {
    let mut differ = Differ {
        old: old.split_whitespace().collect(),
        new: new.split_whitespace().collect(),
        words: Vec::new(),
        budget: MYERS_BUDGET,
        exact: true,
    };
    let (o, n) = (0..differ.old.len(), 0..differ.new.len());
    differ.stretch(o, n, 0);
    WordDiff {
        words: differ.words,
        exact: differ.exact,
    }
}

struct Differ<'a> {
    old: Vec<&'a str>,
    new: Vec<&'a str>,
    words: Vec<(WordChange, &'a str)>,
    /// Myers work left.
    budget: u64,
    exact: bool,
}

impl<'a> Differ<'a> {
    /// Matches the words both ends share, then the middle.
    fn stretch(&mut self, mut o: Range<usize>, mut n: Range<usize>, splits: usize) {
        while !o.is_empty() && !n.is_empty() && self.old[o.start] == self.new[n.start] {
            self.words.push((WordChange::Same, self.old[o.start]));
            o.start += 1;
            n.start += 1;
        }
        let mut tail = 0;
        while tail < o.len().min(n.len())
            && self.old[o.end - 1 - tail] == self.new[n.end - 1 - tail]
        {
            tail += 1;
        }
        let suffix = o.end - tail..o.end;
        self.middle(o.start..o.end - tail, n.start..n.end - tail, splits);
        for i in suffix {
            self.words.push((WordChange::Same, self.old[i]));
        }
    }

    /// A stretch whose ends differ: split at its anchors, or Myers within
    /// the budget, or replaced whole.
    fn middle(&mut self, o: Range<usize>, n: Range<usize>, splits: usize) {
        if o.is_empty() || n.is_empty() {
            return self.replace(o, n);
        }
        let (anchors, shared) = self.anchors(o.clone(), n.clone());
        if !shared {
            // Nothing in common: replacing it whole is minimal.
            return self.replace(o, n);
        }
        if !anchors.is_empty() && splits < MAX_SPLITS {
            let (mut at_o, mut at_n) = (o.start, n.start);
            for (i, j) in anchors {
                self.stretch(at_o..i, at_n..j, splits + 1);
                self.words.push((WordChange::Same, self.old[i]));
                (at_o, at_n) = (i + 1, j + 1);
            }
            return self.stretch(at_o..o.end, at_n..n.end, splits + 1);
        }
        let cost = ((o.len() + n.len()) as u64).pow(2);
        if cost > self.budget {
            self.exact = false;
            return self.replace(o, n);
        }
        self.budget -= cost;
        self.myers(o, n);
    }

    /// The anchors of a stretch, as (old index, new index): words that
    /// occur as often in one side as in the other, and at most
    /// [`MAX_ANCHOR_REPEATS`] times, their k-th occurrences paired; of
    /// those, the longest run in the same order on both sides. Also whether
    /// the two sides share any word at all.
    fn anchors(&self, o: Range<usize>, n: Range<usize>) -> (Vec<(usize, usize)>, bool) {
        const CAP: u8 = MAX_ANCHOR_REPEATS + 1;
        // How often each word occurs in old and in new, counted up to CAP.
        let mut counts: HashMap<&str, (u8, u8)> = HashMap::with_capacity(o.len());
        for &w in &self.old[o.clone()] {
            let c = counts.entry(w).or_default();
            c.0 = (c.0 + 1).min(CAP);
        }
        let mut shared = false;
        for &w in &self.new[n.clone()] {
            if let Some(c) = counts.get_mut(w) {
                shared = true;
                c.1 = (c.1 + 1).min(CAP);
            }
        }
        let anchor = |w: &str| counts.get(w).is_some_and(|c| c.0 == c.1 && c.0 < CAP);
        // Where the k-th occurrence of each anchor word is in new.
        let mut in_new: HashMap<(&str, u8), usize> = HashMap::new();
        let mut seen: HashMap<&str, u8> = HashMap::new();
        for j in n {
            let w = self.new[j];
            if anchor(w) {
                let k = seen.entry(w).or_default();
                in_new.insert((w, *k), j);
                *k += 1;
            }
        }
        seen.clear();
        let mut pairs = Vec::with_capacity(in_new.len());
        for i in o {
            let w = self.old[i];
            if anchor(w) {
                let k = seen.entry(w).or_default();
                pairs.push((i, in_new[&(w, *k)]));
                *k += 1;
            }
        }
        (longest_increasing(&pairs), shared)
    }

    /// Myers on a stretch small enough for the budget.
    fn myers(&mut self, o: Range<usize>, n: Range<usize>) {
        let ops = similar::capture_diff_slices(
            Algorithm::Myers,
            &self.old[o.clone()],
            &self.new[n.clone()],
        );
        for op in ops {
            let (_, old_range, new_range) = op.as_tag_tuple();
            let (old_range, new_range) = (
                o.start + old_range.start..o.start + old_range.end,
                n.start + new_range.start..n.start + new_range.end,
            );
            match op {
                DiffOp::Equal { .. } => {
                    for i in old_range {
                        self.words.push((WordChange::Same, self.old[i]));
                    }
                }
                _ => self.replace(old_range, new_range),
            }
        }
    }

    /// Every word of `o` removed, then every word of `n` added.
    fn replace(&mut self, o: Range<usize>, n: Range<usize>) {
        for i in o {
            self.words.push((WordChange::Removed, self.old[i]));
        }
        for j in n {
            self.words.push((WordChange::Added, self.new[j]));
        }
    }
}

/// The longest subsequence of `pairs` (sorted by their first member) whose
/// second members increase, by patience sorting: O(k log k).
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tops[k]: index into pairs of the smallest tail of a run of length
    // k + 1; back[i]: the pair before pairs[i] in its run.
    let mut tops: Vec<usize> = Vec::new();
    let mut back: Vec<Option<usize>> = vec![None; pairs.len()];
    for (i, &(_, j)) in pairs.iter().enumerate() {
        let k = tops.partition_point(|&t| pairs[t].1 < j);
        back[i] = k.checked_sub(1).map(|k| tops[k]);
        if k == tops.len() {
            tops.push(i);
        } else {
            tops[k] = i;
        }
    }
    let mut run = Vec::with_capacity(tops.len());
    let mut at = tops.last().copied();
    while let Some(i) = at {
        run.push(pairs[i]);
        at = back[i];
    }
    run.reverse();
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_touches_the_words_it_removes_or_falls_between() {
        let d = diff_words("a b c d e", "a b x d e");
        assert!(d.touches(1..4), "c replaced inside b..d");
        assert!(!d.touches(3..5));
        let d = diff_words("a b c d", "a b new c d");
        assert!(d.touches(1..3), "inserted between b and c");
        assert!(!d.touches(2..4), "inserted before c, not inside c..d");
    }
    use proptest::prelude::*;

    fn sides(d: &WordDiff<'_>) -> (String, String) {
        let pick = |keep: WordChange| {
            d.words
                .iter()
                .filter(|(c, _)| *c == WordChange::Same || *c == keep)
                .map(|(_, w)| *w)
                .collect::<Vec<_>>()
                .join(" ")
        };
        (pick(WordChange::Removed), pick(WordChange::Added))
    }

    #[test]
    fn a_changed_word_is_one_removed_and_one_added() {
        let d = diff_words("made it four times faster.", "made it much faster.");
        assert_eq!(d.count(WordChange::Removed), 2);
        assert_eq!(d.count(WordChange::Added), 1);
        assert!(d.exact);
        assert_eq!(d.words[2], (WordChange::Removed, "four"));
    }

    #[test]
    fn revisions_with_nothing_in_common_are_one_replacement_at_once() {
        // 160,000 words each, all different: the minimal diff, without any
        // Myers work (it took minutes).
        let old: String = (0..160_000).map(|i| format!("a{i} ")).collect();
        let new: String = (0..160_000).map(|i| format!("b{i} ")).collect();
        let d = diff_words(&old, &new);
        assert!(d.exact);
        assert_eq!(d.count(WordChange::Removed), 160_000);
        assert_eq!(d.count(WordChange::Added), 160_000);
        assert_eq!(d.count(WordChange::Same), 0);
    }

    #[test]
    fn scattered_edits_of_a_long_text_are_traced_exactly() {
        // Every tenth word changed in 160,000 (Myers alone: over a minute):
        // the unique words anchor the stretches between the edits.
        let old: Vec<String> = (0..160_000).map(|i| format!("w{}", i % 50_000)).collect();
        let mut new = old.clone();
        for i in (0..new.len()).step_by(10) {
            new[i] = format!("edit{i}");
        }
        let (old, new) = (old.join(" "), new.join(" "));
        let d = diff_words(&old, &new);
        assert_eq!(d.count(WordChange::Added), 16_000);
        assert_eq!(d.count(WordChange::Removed), 16_000);
        assert_eq!(sides(&d), (old, new));
    }

    #[test]
    fn past_the_budget_a_stretch_is_replaced_whole_and_the_diff_says_so() {
        // Two long stretches of the same few words in different orders:
        // no word is unique, so only Myers could trace them.
        let old: String = (0..20_000).map(|i| ["x ", "y ", "z "][i % 3]).collect();
        let new: String = (0..20_000)
            .map(|i| ["z ", "x ", "x ", "y "][i % 4])
            .collect();
        let d = diff_words(&old, &new);
        assert!(!d.exact);
        assert_eq!(sides(&d), (old.trim().to_string(), new.trim().to_string()));
    }

    #[test]
    fn the_longest_increasing_run_is_found() {
        let pairs = [(0, 3), (1, 1), (2, 4), (3, 2), (4, 5), (5, 0)];
        assert_eq!(longest_increasing(&pairs), vec![(1, 1), (3, 2), (4, 5)]);
        assert!(longest_increasing(&[]).is_empty());
    }

    fn text() -> impl Strategy<Value = String> {
        let words = vec!["a", "b", "c", "d", "the", "7.4"];
        proptest::collection::vec(proptest::sample::select(words), 0..60).prop_map(|w| w.join(" "))
    }

    /// A text whose words are all different: some of 0..40, shuffled.
    fn distinct() -> impl Strategy<Value = String> {
        proptest::sample::subsequence((0..40).collect::<Vec<u32>>(), 0..40)
            .prop_shuffle()
            .prop_map(|w| {
                w.iter()
                    .map(|i| format!("w{i}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
    }

    /// The number of words a minimal diff removes and adds.
    fn minimal(old: &str, new: &str) -> usize {
        let (o, n): (Vec<&str>, Vec<&str>) = (
            old.split_whitespace().collect(),
            new.split_whitespace().collect(),
        );
        similar::capture_diff_slices(Algorithm::Myers, &o, &n)
            .iter()
            .filter(|op| !matches!(op, DiffOp::Equal { .. }))
            .map(|op| {
                let (_, a, b) = op.as_tag_tuple();
                a.len() + b.len()
            })
            .sum()
    }

    proptest! {
        #[test]
        fn both_sides_read_back_and_no_word_is_lost(old in text(), new in text()) {
            let d = diff_words(&old, &new);
            prop_assert_eq!(sides(&d), (old.clone(), new.clone()));
            prop_assert!(d.exact);
            let changed = d.count(WordChange::Removed) + d.count(WordChange::Added);
            prop_assert!(changed >= minimal(&old, &new));
        }

        #[test]
        fn with_every_word_distinct_the_diff_is_minimal(old in distinct(), new in distinct()) {
            // The anchors are then the longest common run itself.
            let d = diff_words(&old, &new);
            prop_assert_eq!(sides(&d), (old.clone(), new.clone()));
            let changed = d.count(WordChange::Removed) + d.count(WordChange::Added);
            prop_assert_eq!(changed, minimal(&old, &new));
        }
    }
}
