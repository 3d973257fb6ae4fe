//! The chapter's notebook run as site data: one `EMPIRICAL_EVIDENCE` item
//! for the latest recorded run (supporting when it passed, contradictory
//! when it failed, qualifying when flaky, of another notebook than the
//! current one, or of a notebook that is not the one the chapter publishes), saying which notebook it ran (the published one or a
//! local copy), and an experiment opportunity when no run is recorded or
//! the latest is of another notebook or revision. Like every item, it is
//! listed once the chapter has been researched.

use super::schema::{
    EvidenceGroups, EvidenceItem, Interpretation, ItemEvidence, ItemSource, Opportunity,
};
use super::sources::RecordLinks;
use crate::notebook::NotebookVerdict;
use crate::records::notebook_status::NotebookStatus;

/// What the claim of the item is: the notebook does what it says.
const CLAIM: &str =
    "The chapter's notebook runs in a fresh kernel, and the assertions in its code cells hold.";

/// Adds the notebook's item to `groups`, and an opportunity to run it
/// (again) to `opportunities` when no run is recorded or the latest one
/// is of another notebook or revision. A failed run is contradictory
/// evidence only: it is not also a source "reviewed but not used" (the
/// negative findings are the report's sources).
///
/// One rule with the experiments: a run of an earlier revision of the
/// chapter stays in the group its verdict gives, marked as of an earlier
/// revision, with a re-run offered. A run of another notebook than the
/// current one is qualifying: it is evidence about that notebook only. So
/// is a run of a notebook that is not the one the chapter publishes (a
/// local copy, another download) when the chapter names one: its pass or
/// failure says nothing of how the chapter's own notebook runs.
pub fn add_notebook(
    st: &NotebookStatus,
    links: &RecordLinks,
    groups: &mut EvidenceGroups,
    opportunities: &mut Vec<Opportunity>,
) {
    let chapter = st.chapter.as_str();
    let Some(latest) = &st.latest else {
        opportunities.push(Opportunity {
            description: format!("Run the chapter's notebook in a fresh kernel and record it (research_companion notebook run {chapter})"),
            reason: format!(
                "Whether the chapter's notebook runs, and what it prints, is unverified: {}.",
                st.reasons.join("; ")
            ),
        });
        return;
    };
    let run_id = latest.run_id.to_string();
    let run = latest.run_id.stem();
    let ran = latest.provenance.label(&latest.notebook_file);
    let mut summary = format!(
        "{}; notebook {ran}, run {run} on env {} ({} CPUs)",
        latest.summary, latest.env_id, latest.logical_cpus
    );
    for r in &st.reasons {
        summary.push_str(&format!("; {r}"));
    }
    if st.notebook_changed || st.chapter_changed {
        opportunities.push(Opportunity {
            description: format!(
                "Re-run the chapter's current notebook on the current revision (research_companion notebook run {chapter})"
            ),
            reason: format!(
                "The latest notebook run, {run}, is not of the notebook and chapter as they are now: {}.",
                st.reasons.join("; ")
            ),
        });
    }
    let which = latest.provenance.described();
    let not_the_chapters = st.published_at.is_some() && !latest.provenance.is_published();
    let mut rationale = match latest.verdict {
        _ if st.notebook_changed => format!(
            "The run is of {ran}, not of the current notebook, so it shows what that notebook did, not what the current one does."
        ),
        NotebookVerdict::Pass if not_the_chapters => format!(
            "Every code cell of {which} ran without error in a fresh kernel: this is how that copy runs, which says nothing of how the chapter's own notebook runs."
        ),
        NotebookVerdict::Pass => format!(
            "Every code cell of {which} ran without error in a fresh kernel, its assertions included."
        ),
        NotebookVerdict::Fail | NotebookVerdict::NotReached if latest.provenance.is_published() => {
            "A code cell of the published notebook failed in a fresh kernel: the notebook does not run as published.".to_string()
        }
        NotebookVerdict::Fail | NotebookVerdict::NotReached => format!(
            "A code cell of {which} failed in a fresh kernel: this is how that copy runs, which says nothing of how the chapter's own notebook runs."
        ),
        NotebookVerdict::Flaky => format!(
            "A code cell of {which} passed in some fresh kernels and failed in others: what it shows depends on the run."
        ),
    };
    if st.chapter_changed {
        rationale.push_str(" The run examined an earlier revision of the chapter, so it may not be about the text as it is now; a re-run is offered.");
    }
    let item = EvidenceItem {
        relation: "EMPIRICAL_EVIDENCE",
        claim: CLAIM.into(),
        source: ItemSource {
            id: run_id.clone(),
            title: format!("research_companion notebook run {run}"),
            authors: Vec::new(),
            year: Some(i64::from(chrono::Datelike::year(&latest.recorded_at))),
            url: links.record(&latest.run_id),
        },
        evidence: ItemEvidence {
            tier: "EXPERIMENT".into(),
            tier_label: "Run by research_companion".into(),
            section: "notebook".into(),
            summary,
        },
        interpretation: Interpretation { rationale },
    };
    match latest.verdict {
        _ if st.notebook_changed || not_the_chapters => groups.qualifying.push(item),
        NotebookVerdict::Pass => groups.supporting.push(item),
        NotebookVerdict::Fail | NotebookVerdict::NotReached => groups.contradictory.push(item),
        NotebookVerdict::Flaky => groups.qualifying.push(item),
    }
}
