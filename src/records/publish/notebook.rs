//! The chapter's notebook run as site data: one `EMPIRICAL_EVIDENCE` item
//! for the latest recorded run (supporting when it passed, contradictory
//! and a negative finding when it failed, qualifying when flaky or stale),
//! or an experiment opportunity when no run is recorded. Like every item,
//! it is listed once the chapter has been researched.

use super::schema::{
    EvidenceGroups, EvidenceItem, Interpretation, ItemEvidence, ItemSource, NegativeFinding,
    Opportunity, Paper,
};
use super::sources::RecordLinks;
use crate::records::notebook_status::{NotebookState, NotebookStatus};

/// What the claim of the item is: the notebook does what it says.
const CLAIM: &str =
    "The chapter's notebook runs in a fresh kernel, and the assertions in its code cells hold.";

/// Adds the notebook's item to `groups` (and `negative`), or an
/// opportunity to run it to `opportunities`.
pub fn add_notebook(
    st: &NotebookStatus,
    links: &RecordLinks,
    groups: &mut EvidenceGroups,
    negative: &mut Vec<NegativeFinding>,
    opportunities: &mut Vec<Opportunity>,
) {
    let Some(latest) = &st.latest else {
        opportunities.push(Opportunity {
            description: "Run the chapter's notebook in a fresh kernel and record it (research_companion notebook run)".into(),
            reason: format!(
                "Whether the chapter's notebook runs, and what it prints, is unverified: {}.",
                st.reasons.join("; ")
            ),
        });
        return;
    };
    let run_id = latest.run_id.to_string();
    let mut summary = format!(
        "{}; notebook {}, run {} on env {} ({} CPUs)",
        latest.summary, latest.notebook_file, run_id, latest.env_id, latest.logical_cpus
    );
    for r in &st.reasons {
        summary.push_str(&format!("; {r}"));
    }
    let rationale = match st.state {
        NotebookState::Pass => {
            "Every code cell ran without error in a fresh kernel, its assertions included."
        }
        NotebookState::Fail => {
            "A code cell failed in a fresh kernel: the notebook does not run as published."
        }
        NotebookState::Flaky => {
            "A code cell passed in some fresh kernels and failed in others: what the notebook shows depends on the run."
        }
        NotebookState::Stale | NotebookState::NeverRun => {
            "The notebook or the chapter changed since the run, so the run may not be about what is published now."
        }
    };
    let item = EvidenceItem {
        relation: "EMPIRICAL_EVIDENCE",
        claim: CLAIM.into(),
        source: ItemSource {
            id: run_id.clone(),
            title: format!("research_companion notebook run {run_id}"),
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
        interpretation: Interpretation {
            rationale: rationale.into(),
        },
    };
    match st.state {
        NotebookState::Pass => groups.supporting.push(item),
        NotebookState::Fail => {
            negative.push(NegativeFinding {
                paper: Paper {
                    id: run_id,
                    title: item.source.title.clone(),
                },
                finding: format!("\"{CLAIM}\": {}", item.evidence.summary),
            });
            groups.contradictory.push(item);
        }
        NotebookState::Flaky | NotebookState::Stale | NotebookState::NeverRun => {
            groups.qualifying.push(item)
        }
    }
}
