//! The chapter's notebook claims as site data: one `EMPIRICAL_EVIDENCE`
//! item per claim its latest run decided, its source the run and the
//! notebook cell that printed the value (supporting when REPRODUCED at the
//! size stated, qualifying when the size differs or the run is of another
//! notebook than the current one or of a copy when the chapter publishes
//! one, contradictory when NOT_REPRODUCED,
//! unresolved when the notebook could not decide), and an experiment
//! opportunity when they were not run yet or the run is not of the
//! chapter as it is now. Like every item, listed once the chapter has been
//! researched.

use super::schema::{
    EvidenceGroups, EvidenceItem, Interpretation, ItemEvidence, ItemSource, Opportunity,
};
use super::sources::RecordLinks;
use crate::notebook::claims::NotebookClaimResult;
use crate::published::verdict::ClaimVerdict;
use crate::records::notebook_claims::NotebookClaimsEvidence;

/// Adds an item per decided notebook claim to `groups`, and an
/// opportunity to run them (again) to `opportunities`. One rule with the
/// notebook run and the experiments: a run of an earlier revision stays in
/// the group its verdict gives, marked, with a re-run offered; a run of
/// another notebook is qualifying, evidence about that notebook only.
pub fn add_notebook_claims(
    nc: &NotebookClaimsEvidence,
    links: &RecordLinks,
    groups: &mut EvidenceGroups,
    opportunities: &mut Vec<Opportunity>,
) {
    let chapter = nc.chapter.as_str();
    let Some(run) = &nc.run else {
        offer(
            opportunities,
            chapter,
            format!(
                "Decide the chapter's notebook claims: run its notebook in fresh kernels and record it (research_companion notebook run {chapter}, or reproduce {chapter})"
            ),
            format!(
                "Whether the numbers the chapter states are the ones its notebook prints is unchecked: {}.",
                nc.caveats().join("; ")
            ),
        );
        return;
    };
    if nc.needs_run() {
        offer(
            opportunities,
            chapter,
            format!(
                "Decide the chapter's notebook claims again, on its current notebook and revision (research_companion notebook run {chapter})"
            ),
            format!(
                "The latest run that decided them, {}, does not decide them as the chapter and claims.yaml are now: {}.",
                run.run_id.stem(),
                nc.caveats().join("; ")
            ),
        );
    }
    let stem = run.run_id.stem();
    for c in &run.claims {
        if c.verdict == ClaimVerdict::Unrun {
            continue;
        }
        let mut summary = format!(
            "{}; notebook run {stem} of {}",
            c.in_words(),
            run.notebook_file
        );
        for s in &nc.stale {
            summary.push_str(&format!("; {s}"));
        }
        let mut rationale = rationale(c, nc.notebook_changed);
        if nc.not_the_published && !nc.notebook_changed {
            rationale = format!(
                "The run is of {}, not of the notebook the chapter publishes, so it shows what that copy printed ({}), which says nothing of the chapter's own notebook.",
                run.notebook_file,
                c.source()
            );
        }
        if nc.chapter_changed {
            rationale.push_str(" The run examined an earlier revision of the chapter, so it may not be about the text as it is now; a re-run is offered.");
        }
        let item = EvidenceItem {
            relation: "EMPIRICAL_EVIDENCE",
            claim: c.quote.clone(),
            source: ItemSource {
                id: run.run_id.to_string(),
                title: format!("research_companion notebook run {stem}, {}", c.source()),
                authors: Vec::new(),
                year: Some(i64::from(chrono::Datelike::year(&run.recorded_at))),
                url: links.record(&run.run_id),
            },
            evidence: ItemEvidence {
                tier: "EXPERIMENT".into(),
                tier_label: "Printed by the chapter's notebook, run by research_companion".into(),
                section: c.claim.clone(),
                summary,
            },
            interpretation: Interpretation { rationale },
        };
        match c.verdict {
            _ if nc.notebook_changed || nc.not_the_published => groups.qualifying.push(item),
            ClaimVerdict::Reproduced if c.magnitude_differs.is_some() => {
                groups.qualifying.push(item)
            }
            ClaimVerdict::Reproduced => groups.supporting.push(item),
            ClaimVerdict::NotReproduced => groups.contradictory.push(item),
            ClaimVerdict::NotComparable => groups.qualifying.push(item),
            ClaimVerdict::Inconclusive | ClaimVerdict::Unrun => groups.unresolved.push(item),
        }
    }
}

/// Offers to run the notebook for its claims: said in the reason of the
/// opportunity to run the chapter's notebook when there is one already (the
/// same run decides both), else an opportunity of its own.
fn offer(opportunities: &mut Vec<Opportunity>, chapter: &str, description: String, reason: String) {
    let run_it = format!("research_companion notebook run {chapter})");
    match opportunities
        .iter_mut()
        .find(|o| o.description.ends_with(&run_it))
    {
        Some(o) => o.reason.push_str(&format!(
            " The same run decides the chapter's notebook claims: {reason}"
        )),
        None => opportunities.push(Opportunity {
            description,
            reason,
        }),
    }
}

/// Why a notebook claim's verdict means what it does.
fn rationale(c: &NotebookClaimResult, notebook_changed: bool) -> String {
    let source = c.source();
    match c.verdict {
        _ if notebook_changed => format!(
            "The run is of an earlier notebook than the chapter's current one, so it shows what that notebook printed ({source}), not what the current one prints."
        ),
        ClaimVerdict::Reproduced if c.magnitude_differs.is_some() => format!(
            "What the chapter's notebook printed ({source}) meets the criterion, but not at the size the text states."
        ),
        ClaimVerdict::Reproduced => format!(
            "What the chapter's notebook printed ({source}) meets the criterion for the number the text states."
        ),
        ClaimVerdict::NotReproduced => format!(
            "The chapter's notebook printed a value ({source}) that does not meet the criterion for the number the text states: the text and its notebook disagree."
        ),
        ClaimVerdict::Inconclusive | ClaimVerdict::NotComparable | ClaimVerdict::Unrun => {
            format!(
                "The notebook's output could not decide the claim ({}); this is not evidence against the chapter.",
                c.reason.as_deref().unwrap_or("no reason kept")
            )
        }
    }
}
