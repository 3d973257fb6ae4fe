//! How the site classes a claim's verdict: the words and the colour the
//! chapter's page gives it, and the index's count of each class, so the two
//! always agree.

use serde::Serialize;

/// A chapter's claims counted by the class their verdicts have on its page
/// ([`verdict_class`]), so the index and the page agree; only
/// the classes some claim has.
#[derive(Debug, Default, Serialize)]
pub struct ClaimCounts {
    pub claims: usize,
    pub counts: Vec<ClaimCount>,
}

#[derive(Debug, Serialize)]
pub struct ClaimCount {
    pub count: usize,
    pub label: &'static str,
    /// The stylesheet's word: ok, warn, bad, none.
    pub tone: &'static str,
}

impl ClaimCounts {
    /// Counts each claim's class (label and tone), in the order a class is
    /// first met, successes first.
    pub fn of(classes: impl Iterator<Item = (&'static str, &'static str)>) -> Self {
        let mut out = ClaimCounts::default();
        for (label, tone) in classes {
            out.claims += 1;
            match out.counts.iter_mut().find(|c| c.label == label) {
                Some(c) => c.count += 1,
                None => out.counts.push(ClaimCount {
                    count: 1,
                    label,
                    tone,
                }),
            }
        }
        let rank = |tone: &str| match tone {
            "ok" => 0,
            "warn" => 1,
            "bad" => 2,
            _ => 3,
        };
        out.counts.sort_by_key(|c| rank(c.tone));
        out
    }
}

/// The class of a claim's verdict as the page colours it and the index
/// counts it: a few words and a word for the stylesheet (ok, warn, bad,
/// none). A success with a flag is a warning, named by its first flag.
pub fn verdict_class(c: &crate::published::diff::ClaimResult) -> (&'static str, &'static str) {
    use crate::published::verdict::ClaimVerdict as V;
    match c.verdict {
        _ if !c.quote_found => ("quote missing", "bad"),
        V::NotReproduced => ("not reproduced", "bad"),
        V::Reproduced if c.magnitude_differs.is_some() => ("magnitude differs", "warn"),
        V::Reproduced if c.magnitude_uncertain.is_some() => ("magnitude uncertain", "warn"),
        V::Reproduced if c.model_limit.is_some() => ("reproduced, model limit", "warn"),
        V::Reproduced if c.start_in_window.is_some() => ("reproduced, start-up in window", "warn"),
        V::Reproduced if !c.prose_consistent => {
            ("reproduced, the prose differs from its table", "warn")
        }
        V::Reproduced => ("reproduced", "ok"),
        // Undecided, never against the chapter: the reason shows beside it.
        V::Inconclusive => (
            "inconclusive (undecided: not evidence against the chapter)",
            "warn",
        ),
        V::NotComparable => ("not comparable", "warn"),
        V::Unrun => ("unrun", "none"),
    }
}
