//! The latest experiment's claim verdicts as the site data's evidence
//! relations: each verdict (with its flags) a relation of the claim to the
//! run, grouped as the report's findings group them, and the contradicted
//! ones as negative findings (never an INCONCLUSIVE one: it is unresolved).

use chrono::{DateTime, Utc};

use super::schema::{
    EvidenceGroups, EvidenceItem, Interpretation, ItemEvidence, ItemSource, NegativeFinding, Paper,
};
use crate::published::diff::ClaimResult;
use crate::published::verdict::ClaimVerdict;
use crate::text::number;

/// The latest experiment's claim verdicts, with where they come from.
#[derive(Debug, Clone)]
pub struct ClaimEvidence<'a> {
    pub run_id: String,
    pub recorded_at: DateTime<Utc>,
    /// `env-v2:... (N CPUs)`.
    pub environment: String,
    /// Which engine measured: the real DataLoader or the model.
    pub engine: String,
    /// Short fingerprint of the revision the run examined.
    pub revision: String,
    pub of_current_revision: bool,
    pub claims: &'a [ClaimResult],
}

/// A claim's verdict as an evidence relation.
fn evidence_item(c: &ClaimResult, e: &ClaimEvidence<'_>) -> EvidenceItem {
    let measured = c
        .measured
        .map_or_else(|| "not measured".to_string(), number);
    let mut summary = format!(
        "{}: measured {measured} against {} published ({})",
        c.flagged(),
        number(c.published),
        c.criterion
    );
    if let Some(reason) = &c.reason {
        summary.push_str(&format!("; {reason}"));
    }
    summary.push_str(&format!(
        "; run {} on {}, {}, revision {}{}",
        e.run_id,
        e.environment,
        e.engine,
        e.revision,
        if e.of_current_revision {
            ""
        } else {
            " (the chapter changed since)"
        }
    ));
    let rationale = match c.verdict {
        _ if !c.quote_found => "The quoted sentence is not in the revision the run examined, so the verdict may not be about the prose any more.".to_string(),
        ClaimVerdict::Reproduced if c.magnitude_differs.is_some() => "The direction the chapter states holds; the size it gives does not.".into(),
        ClaimVerdict::Reproduced if c.magnitude_uncertain.is_some() => "The direction the chapter states holds; the run's rounds cannot tell whether the size it gives does.".into(),
        ClaimVerdict::Reproduced if !c.prose_consistent => format!(
            "The measurement agrees with the chapter's table, but the prose says {} where the table gives {}.",
            number(c.stated),
            number(c.published)
        ),
        ClaimVerdict::Reproduced => "The measurement agrees with the chapter's claim.".into(),
        ClaimVerdict::NotReproduced => "The measurement contradicts the chapter's claim.".into(),
        ClaimVerdict::Inconclusive => format!(
            "The measurement could not decide ({}); it is not evidence against the chapter.",
            c.reason.as_deref().unwrap_or("no reason recorded")
        ),
        ClaimVerdict::NotComparable => "The run cannot be compared with what the chapter measured.".into(),
        ClaimVerdict::Unrun => "No run has measured this claim yet.".into(),
    };
    EvidenceItem {
        relation: "EMPIRICAL_EVIDENCE",
        claim: c.quote.clone(),
        source: ItemSource {
            id: e.run_id.clone(),
            title: format!("research_companion experiment {}", e.run_id),
            authors: Vec::new(),
            year: Some(i64::from(chrono::Datelike::year(&e.recorded_at))),
            url: None,
        },
        evidence: ItemEvidence {
            tier: "EXPERIMENT".into(),
            tier_label: "Measured by research_companion".into(),
            section: c.id.clone(),
            summary,
        },
        interpretation: Interpretation { rationale },
    }
}

/// Claim verdicts grouped as the report's findings group them.
pub fn evidence_groups(e: &ClaimEvidence<'_>) -> (EvidenceGroups, Vec<NegativeFinding>) {
    let mut groups = EvidenceGroups::default();
    let mut negative = Vec::new();
    for c in e.claims {
        let item = evidence_item(c, e);
        let qualified = !c.quote_found
            || c.magnitude_differs.is_some()
            || c.magnitude_uncertain.is_some()
            || !c.prose_consistent;
        match c.verdict {
            ClaimVerdict::NotReproduced => {
                negative.push(NegativeFinding {
                    paper: Paper {
                        id: e.run_id.clone(),
                        title: item.source.title.clone(),
                    },
                    finding: format!("\"{}\" ({}): {}", c.quote, c.id, item.evidence.summary),
                });
                groups.contradictory.push(item);
            }
            // Undecided is not contradicted: a busy machine or a wide
            // interval says nothing against the chapter.
            ClaimVerdict::Unrun | ClaimVerdict::Inconclusive => groups.unresolved.push(item),
            ClaimVerdict::NotComparable => groups.qualifying.push(item),
            ClaimVerdict::Reproduced if qualified => groups.qualifying.push(item),
            ClaimVerdict::Reproduced => groups.supporting.push(item),
        }
    }
    (groups, negative)
}
