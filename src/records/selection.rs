//! A bounded selection of a chapter's history, for what is pasted or
//! published rather than browsed (the research prompt's section 7): the
//! newest runs of each kind, then further runs of the current revision up
//! to a cap, and counts for every run left out. `history` lists them all;
//! the records stay under `records/<book>/<chapter>/`.

use super::status::{RunCurrency, currency};
use super::{Record, RunKind};
use crate::chapter::Chapter;

/// How many runs a selection keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelectionLimits {
    /// The newest research runs kept, whatever their revision.
    pub research: usize,
    /// The newest experiments kept.
    pub experiments: usize,
    /// The newest notebook runs kept.
    pub notebook: usize,
    /// At most this many runs in all: past the newest of each kind, runs
    /// of the current revision are kept until the selection holds this many.
    pub cap: usize,
}

/// The research prompt's section 7.
pub const PROMPT_HISTORY: SelectionLimits = SelectionLimits {
    research: 5,
    experiments: 5,
    notebook: 3,
    cap: 20,
};

/// The runs a selection leaves out, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct LeftOut {
    pub total: usize,
    pub research: usize,
    pub experiments: usize,
    pub notebook: usize,
    /// Of them, runs of the current revision (past the cap).
    pub of_current_revision: usize,
}

impl LeftOut {
    /// `9,713 more runs: 5,810 experiments, 2,900 research runs, 1,003
    /// notebook runs (12 of them of the current revision)`; None when
    /// nothing was left out.
    pub fn words(&self) -> Option<String> {
        if self.total == 0 {
            return None;
        }
        let mut kinds = Vec::new();
        for (n, one, many) in [
            (self.experiments, "experiment", "experiments"),
            (self.research, "research run", "research runs"),
            (self.notebook, "notebook run", "notebook runs"),
        ] {
            if n > 0 {
                kinds.push(format!(
                    "{} {}",
                    grouped(n),
                    if n == 1 { one } else { many }
                ));
            }
        }
        let mut s = format!(
            "{} more {}: {}",
            grouped(self.total),
            if self.total == 1 { "run" } else { "runs" },
            kinds.join(", ")
        );
        if self.of_current_revision == self.total {
            s.push_str(" (all of the current revision)");
        } else if self.of_current_revision > 0 {
            s.push_str(&format!(
                " ({} of them of the current revision)",
                grouped(self.of_current_revision)
            ));
        }
        Some(s)
    }
}

/// `9713` as `9,713`.
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The runs of `records` (newest first) a selection keeps, newest first,
/// and what it leaves out: each kind's newest runs, then the newest runs
/// of the current revision not among them while fewer than `limits.cap`
/// are kept (the newest of each kind are kept even past the cap).
pub fn select<'a>(
    chapter: &Chapter,
    records: &'a [Record],
    limits: SelectionLimits,
) -> (Vec<&'a Record>, LeftOut) {
    let (mut research, mut experiments, mut notebook) =
        (limits.research, limits.experiments, limits.notebook);
    let mut keep = vec![false; records.len()];
    for (i, r) in records.iter().enumerate() {
        let quota = match r.kind {
            RunKind::Research => &mut research,
            RunKind::Experiment => &mut experiments,
            RunKind::Notebook => &mut notebook,
        };
        if *quota > 0 {
            *quota -= 1;
            keep[i] = true;
        }
    }
    let mut kept = keep.iter().filter(|k| **k).count();
    for (i, r) in records.iter().enumerate() {
        if kept >= limits.cap {
            break;
        }
        if !keep[i] && currency(chapter, r) == RunCurrency::Current {
            keep[i] = true;
            kept += 1;
        }
    }
    let mut left = LeftOut::default();
    for r in records
        .iter()
        .zip(&keep)
        .filter(|(_, k)| !**k)
        .map(|(r, _)| r)
    {
        left.total += 1;
        left.of_current_revision += usize::from(currency(chapter, r) == RunCurrency::Current);
        match r.kind {
            RunKind::Research => left.research += 1,
            RunKind::Experiment => left.experiments += 1,
            RunKind::Notebook => left.notebook += 1,
        }
    }
    let kept = records
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(r, _)| r)
        .collect();
    (kept, left)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_with_thousands_grouped_and_kinds_named() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(9713), "9,713");
        assert_eq!(grouped(1_234_567), "1,234,567");
        let left = LeftOut {
            total: 9713,
            research: 2900,
            experiments: 5810,
            notebook: 1003,
            of_current_revision: 1,
        };
        assert_eq!(
            left.words().unwrap(),
            "9,713 more runs: 5,810 experiments, 2,900 research runs, 1,003 notebook runs (1 of them of the current revision)"
        );
        assert_eq!(LeftOut::default().words(), None);
    }
}
