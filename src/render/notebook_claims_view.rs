//! What the templates are given about the chapter's notebook claims: each
//! claim's verdict in words with the printed line it rests on and its
//! source (the notebook cell), the run they come from, and what makes that
//! run not of the chapter as it is now, or that they were not run yet.
//! The prompt's section 4, the report draft's claim audit and the site's
//! claims table show this one view.

use serde::Serialize;

use crate::notebook::claims::NotebookClaimResult;
use crate::published::verdict::ClaimVerdict;
use crate::records::notebook_claims::NotebookClaimsEvidence;

/// The chapter's notebook claims.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookClaimsView {
    /// The chapter, `book/chapter`.
    pub chapter: String,
    /// The run the verdicts come from, in words; none when not run yet.
    pub run: Option<String>,
    pub run_id: Option<String>,
    /// `2 notebook (1 reproduced, 1 inconclusive)`.
    pub counts: String,
    /// Why the run is not of the chapter as it is now, the claims it did
    /// not decide, or that they were not run yet.
    pub caveats: Vec<String>,
    /// The run is of the notebook and chapter as they are now.
    pub current: bool,
    /// What makes the run not of the chapter as it is now, in a few words.
    pub stale: Option<String>,
    /// No run decided them yet.
    pub not_run: bool,
    /// A run would decide something: none did yet, the run is not of the
    /// chapter as it is now, or claims.yaml has claims it did not decide
    /// as they are written now.
    pub needs_run: bool,
    pub claims: Vec<NotebookClaimRow>,
}

/// One notebook claim as a run decided it.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookClaimRow {
    pub id: String,
    pub quote: String,
    /// Where the claim appears (claims.yaml's `location`).
    pub location: String,
    /// `notebook cell count`.
    pub source: String,
    /// REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, UNRUN.
    pub verdict: String,
    /// A word for the stylesheet: ok, bad, warn, none.
    pub tone: &'static str,
    /// The verdict in words, with the printed line.
    pub in_words: String,
    pub stated: String,
    pub measured: Option<String>,
    pub ratio: Option<String>,
    pub criterion: String,
    /// The printed lines the value was taken from.
    pub printed: Vec<String>,
    pub reason: Option<String>,
    /// What the author might do, for the report's claim audit.
    pub response: String,
}

/// The view of a chapter's notebook claims evidence.
pub fn notebook_claims_view(e: &NotebookClaimsEvidence) -> NotebookClaimsView {
    let current = e.is_current();
    let stale = e.stale_short();
    NotebookClaimsView {
        chapter: e.chapter.clone(),
        run: e.run_words(),
        run_id: e.run.as_ref().map(|r| r.run_id.to_string()),
        counts: e.counts_words(),
        caveats: e.caveats(),
        current,
        stale: stale.clone(),
        not_run: e.run.is_none(),
        needs_run: e.needs_run(),
        claims: e
            .run
            .iter()
            .flat_map(|r| &r.claims)
            .map(|c| {
                let mut r = row(c, stale.as_deref());
                r.location = e.locations.get(&c.claim).cloned().unwrap_or_default();
                r
            })
            .collect(),
    }
}

use crate::published::in_words::figures_apart;

fn number(x: f64) -> String {
    crate::published::in_words::figures(x)
}

/// `1.050 (1.048 to 1.052)`: a value that varied, with the decimals that
/// tell its low and high apart ([`figures_apart`]).
fn spread(m: f64, low: f64, high: f64) -> String {
    let [m, low, high] = figures_apart([m, low, high]);
    format!("{m} ({low} to {high})")
}

fn row(c: &NotebookClaimResult, stale: Option<&str>) -> NotebookClaimRow {
    let measured = c.measured.map(|m| match c.spread {
        Some(s) => spread(m, s.low, s.high),
        None => number(m),
    });
    let response = match c.verdict {
        ClaimVerdict::Reproduced if c.magnitude_differs.is_some() => format!(
            "qualify the size: the notebook prints x{} the stated value",
            number(c.magnitude_differs.unwrap_or(1.0))
        ),
        ClaimVerdict::Reproduced => "keep".to_string(),
        ClaimVerdict::NotReproduced => format!(
            "correct the text or the notebook: the text states {}, the notebook printed {}",
            number(c.stated),
            measured.as_deref().unwrap_or("-")
        ),
        ClaimVerdict::Inconclusive => format!(
            "nothing to change yet: the notebook could not decide ({})",
            c.reason.as_deref().unwrap_or("no reason kept")
        ),
        ClaimVerdict::NotComparable | ClaimVerdict::Unrun => format!(
            "run the chapter's notebook claims{}",
            c.reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        ),
    };
    let response = match stale {
        Some(s) => {
            format!("run the notebook claims again first (the run is {s}); then: {response}")
        }
        None => response,
    };
    NotebookClaimRow {
        id: c.claim.clone(),
        quote: c.quote.clone(),
        location: String::new(),
        source: c.source(),
        verdict: c.verdict.to_string(),
        tone: match c.verdict.tone() {
            crate::published::verdict::Tone::Good => "ok",
            crate::published::verdict::Tone::Bad => "bad",
            _ if c.verdict == ClaimVerdict::Unrun => "none",
            _ => "warn",
        },
        in_words: c.in_words(),
        stated: number(c.stated),
        measured,
        ratio: c.ratio.map(|r| format!("x{}", number(r))),
        criterion: c.criterion.clone(),
        printed: c.printed.clone(),
        reason: c.reason.clone(),
        response,
    }
}

#[cfg(test)]
mod tests {
    use super::spread;

    #[test]
    fn a_range_is_written_with_the_decimals_that_tell_its_ends_apart() {
        assert_eq!(spread(1.05, 1.0483, 1.052), "1.050 (1.048 to 1.052)");
        assert_eq!(spread(2.0, 1.0, 3.0), "2 (1 to 3)");
        assert_eq!(spread(110.0, 109.0, 111.0), "110 (109 to 111)");
    }
}
