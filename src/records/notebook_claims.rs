//! The chapter's notebook claims as evidence: the verdicts of the latest
//! recorded run that decided them (whatever its kind: `notebook run`
//! records a notebook run, `reproduce` an experiment that also ran the
//! notebook), with what makes that run not of the chapter as it is now
//! said in words beside them, or why there are none. It follows claims.yaml
//! as it is now: a claim the run did not decide as claims.yaml writes it
//! now is UNRUN, never read with an old verdict. `status`, `history`,
//! the prompt, the report draft, `publish` and the site show this one view
//! (through `app::claims::notebook_claims_evidence`), so none of them reads
//! a stale or missing run as a verdict of its own.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Record, RunKind};
use crate::chapter::Chapter;
use crate::ids::RunId;
use crate::notebook::StoredNotebooks;
use crate::notebook::claims::NotebookClaimResult;
use crate::published::verdict::ClaimVerdict;

/// The run whose notebook claims are the chapter's evidence.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookClaimsRun {
    pub run_id: RunId,
    /// `notebook` (a `notebook run`) or `experiment` (a `reproduce` that
    /// also ran the notebook).
    pub kind: RunKind,
    pub recorded_at: DateTime<Utc>,
    /// The stored notebook it ran, relative to the chapter folder.
    pub notebook_file: String,
    /// Fresh kernels it ran the notebook in.
    pub kernels: usize,
    pub claims: Vec<NotebookClaimResult>,
}

/// The chapter's notebook claims, as its records decided them.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookClaimsEvidence {
    /// The chapter, `book/chapter`.
    pub chapter: String,
    /// The verdicts counted, as `status` says them: `2 notebook (1
    /// reproduced, 1 inconclusive)`, with what makes the run stale, or
    /// `1 notebook (not run yet)`.
    pub summary: String,
    /// The notebook claims claims.yaml has now, by id.
    pub declared: Vec<String>,
    /// Where each of them appears (claims.yaml's `location`), by id.
    #[serde(skip)]
    pub locations: std::collections::BTreeMap<String, String>,
    /// The latest run that decided them (not retracted); none when they
    /// were not run yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<NotebookClaimsRun>,
    /// The run ran another notebook than the chapter's current one.
    pub notebook_changed: bool,
    /// The run examined another revision of the chapter.
    pub chapter_changed: bool,
    /// The chapter publishes a notebook and the run's is not that one (a
    /// local copy, another download): its verdicts are about that copy.
    pub not_the_published: bool,
    /// Why the run is not of the chapter as it is now, in words (empty
    /// when it is, or when there is no run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<String>,
    /// Claims claims.yaml has now that the run did not decide.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_decided: Vec<String>,
    /// Claims whose metric, criterion, stated value or cells claims.yaml
    /// changed since the run: UNRUN until a run decides them again.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
}

/// The chapter's notebook claims evidence from its records (newest
/// first), its stored notebooks and the notebook claims claims.yaml has
/// now (`declared`), one per declared claim in claims.yaml's order: a
/// claim deleted from claims.yaml since the run is not shown, one added or
/// changed since is UNRUN, so the counts add up with claims.yaml. None
/// when claims.yaml has no notebook claims.
pub fn notebook_claims_evidence(
    chapter: &Chapter,
    stored: Option<&StoredNotebooks>,
    records: &[Record],
    declared: Vec<DeclaredNotebookClaim>,
) -> Option<NotebookClaimsEvidence> {
    // The view follows claims.yaml as it is now: without notebook claims
    // there, a run's verdicts are of claims the chapter no longer makes.
    if declared.is_empty() {
        return None;
    }
    let latest = records.iter().find(|r| {
        r.retraction.is_none() && r.notebook.as_ref().is_some_and(|n| !n.claims.is_empty())
    });
    let mut evidence = NotebookClaimsEvidence {
        chapter: chapter.key_str(),
        summary: String::new(),
        locations: declared
            .iter()
            .map(|d| (d.id.clone(), d.location.clone()))
            .collect(),
        declared: declared.iter().map(|d| d.id.clone()).collect(),
        run: None,
        notebook_changed: false,
        chapter_changed: false,
        not_the_published: false,
        stale: Vec::new(),
        not_decided: Vec::new(),
        changed: Vec::new(),
    };
    let Some((record, info)) = latest.and_then(|r| r.notebook.as_ref().map(|n| (r, n))) else {
        evidence.summary = evidence.counts_words();
        return Some(evidence);
    };
    let label = |file: &str| super::notebook_status::notebook_label(chapter, stored, file);
    match stored.map(StoredNotebooks::current) {
        Some(current) if current.fingerprint != info.fingerprint => {
            evidence.notebook_changed = true;
            evidence.stale.push(format!(
                "the run is of an earlier notebook: it ran {}, the chapter's current notebook is {} (nb-v1 {} to {})",
                label(&info.notebook_file),
                label(&current.file),
                info.fingerprint.short(),
                current.fingerprint.short()
            ));
        }
        _ => {}
    }
    // Only a notebook chapter.yaml names by URL is published (issue 52): a
    // chapter whose notebook was added from a file has no other to run.
    let published = crate::notebook::store::published_notebook(&chapter.manifest)
        .filter(|p| p.url.contains("://"));
    if let (Some(p), Some(s)) = (published, stored)
        && !crate::notebook::provenance::provenance(s, Some(p.url.as_str()), &info.notebook_file)
            .is_published()
    {
        evidence.not_the_published = true;
        evidence.stale.push(format!(
            "the run is of {}, not of the notebook the chapter publishes: its verdicts are about that copy",
            label(&info.notebook_file)
        ));
    }
    if record.revision.fingerprint != chapter.state.current().fingerprint {
        evidence.chapter_changed = true;
        evidence.stale.push(format!(
            "the run examined an earlier revision of the chapter: {}",
            super::notebook_status::revision_change(chapter, &record.revision)
        ));
    }
    // Each claim claims.yaml has now, in its order: the run's verdict when
    // the run decided the claim as it is written now; UNRUN when the run
    // did not decide it or claims.yaml changed it since. Claims deleted
    // from claims.yaml since the run are not shown.
    let mut claims = Vec::new();
    for d in &declared {
        let decided = info.claims.iter().find(|c| c.claim == d.id);
        match (decided, &d.claim) {
            (Some(c), Some(now)) if !same_claim(c, now) => {
                evidence.changed.push(d.id.clone());
                claims.push(crate::notebook::claims::unrun(
                    now,
                    "claims.yaml changed it since the run: re-run to decide it",
                ));
            }
            (Some(c), _) => claims.push(redacted(c.clone())),
            (None, now) => {
                evidence.not_decided.push(d.id.clone());
                if let Some(now) = now {
                    claims.push(crate::notebook::claims::unrun(
                        now,
                        "not decided by that run: added to claims.yaml since",
                    ));
                }
            }
        }
    }
    evidence.run = Some(NotebookClaimsRun {
        run_id: record.run_id.clone(),
        kind: record.kind,
        recorded_at: record.recorded_at,
        notebook_file: label(&info.notebook_file),
        kernels: info.repeat,
        claims,
    });
    evidence.summary = evidence.counts_words();
    Some(evidence)
}

/// A notebook claim claims.yaml has now: its id and location, and the
/// claim itself when it reads as one (None while it does not: `claims
/// check` says why).
#[derive(Debug, Clone)]
pub struct DeclaredNotebookClaim {
    pub id: String,
    pub location: String,
    pub claim: Option<crate::published::notebook_reads::NotebookClaim>,
}

/// Whether the run decided the claim as claims.yaml writes it now: the
/// same metric, criterion, stated value and cells read.
fn same_claim(
    c: &NotebookClaimResult,
    now: &crate::published::notebook_reads::NotebookClaim,
) -> bool {
    let mut cells: Vec<&str> = now.reads.values().map(|r| r.cell.as_str()).collect();
    cells.sort_unstable();
    cells.dedup();
    let mut ran: Vec<&str> = c.cells.iter().map(String::as_str).collect();
    ran.sort_unstable();
    ran.dedup();
    c.metric == now.metric
        && same_criterion(&c.criterion, &now.reproduce)
        && c.stated == now.stated.value
        && cells == ran
}

/// Whether a run's criterion in words is `now`'s: as the tool writes it
/// today, or as it wrote an equal-bounds range before (`between 5 and 5`,
/// today `exactly 5`), so a record from before is not read as changed.
fn same_criterion(ran: &str, now: &crate::published::criteria::Criterion) -> bool {
    use crate::published::criteria::Criterion;
    ran == now.to_string()
        || matches!(now, Criterion::Between([lo, hi]) if lo == hi && ran == format!("between {lo} and {hi}"))
}

/// A claim's texts that came from the run (the printed lines, the
/// reason) put through the run redaction again, as every reader of a run
/// does.
fn redacted(mut c: NotebookClaimResult) -> NotebookClaimResult {
    let redact = crate::notebook::run::redact_run_text;
    c.printed = c.printed.iter().map(|l| redact(l)).collect();
    c.reason = c.reason.as_deref().map(redact);
    c
}

impl NotebookClaimsEvidence {
    /// Each verdict with how many claims it has, in the order counts list
    /// them, leaving out those none has.
    pub fn counts(&self) -> Vec<(ClaimVerdict, usize)> {
        let claims = self.run.as_ref().map_or(&[][..], |r| &r.claims[..]);
        ClaimVerdict::all()
            .map(|v| (v, claims.iter().filter(|c| c.verdict == v).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// Whether the run is of the chapter and notebook as they are now.
    pub fn is_current(&self) -> bool {
        self.run.is_some() && self.stale.is_empty()
    }

    /// `2 notebook (1 reproduced, 1 inconclusive)`; with a stale run,
    /// what makes it stale after the counts; with none, that the claims
    /// were not run yet.
    pub fn counts_words(&self) -> String {
        let Some(run) = &self.run else {
            return format!("{} notebook (not run yet)", self.declared.len());
        };
        let counts = self
            .counts()
            .iter()
            .map(|(v, n)| format!("{n} {}", verdict_words(*v)))
            .collect::<Vec<_>>()
            .join(", ");
        let mut s = format!("{} notebook ({counts}", run.claims.len());
        if !self.changed.is_empty() {
            s.push_str("; claims.yaml changed since the run");
        }
        if let Some(stale) = self.stale_short() {
            s.push_str(&format!("; {stale}"));
        }
        s.push(')');
        s
    }

    /// What makes the run not of the chapter as it is now, in a few words
    /// (`of an earlier notebook; of an earlier revision`); None when it is.
    pub fn stale_short(&self) -> Option<String> {
        let mut words = Vec::new();
        if self.notebook_changed {
            words.push("of an earlier notebook");
        }
        if self.chapter_changed {
            words.push("of an earlier revision");
        }
        if self.not_the_published && !self.notebook_changed {
            words.push("of a copy, not the published notebook");
        }
        (!words.is_empty()).then(|| words.join("; "))
    }

    /// Where the verdicts come from: `notebook run <id> on 2026-12-06, 4
    /// kernels`.
    pub fn run_words(&self) -> Option<String> {
        self.run.as_ref().map(|r| {
            format!(
                "{} run {} on {}, {} kernel{}, notebook {}",
                match r.kind {
                    RunKind::Experiment => "reproduce",
                    _ => "notebook",
                },
                r.run_id,
                r.recorded_at.format("%Y-%m-%d"),
                r.kernels,
                if r.kernels == 1 { "" } else { "s" },
                r.notebook_file
            )
        })
    }

    /// Said beside the verdicts: why the run is not of the chapter as it
    /// is now, and the claims it did not decide; or that the claims were
    /// not run yet. Empty for a current run that decided every claim.
    pub fn caveats(&self) -> Vec<String> {
        if self.run.is_none() {
            return vec![format!(
                "the notebook claims were not run yet ({} in claims.yaml: {})",
                self.declared.len(),
                self.declared.join(", ")
            )];
        }
        let mut out = self.stale.clone();
        if !self.not_decided.is_empty() {
            out.push(format!(
                "claims.yaml has notebook claims the run did not decide: {}",
                self.not_decided.join(", ")
            ));
        }
        if !self.changed.is_empty() {
            out.push(format!(
                "claims.yaml changed since the run: re-run to decide {}",
                self.changed.join(", ")
            ));
        }
        out
    }

    /// Whether a run would decide something: none decided the claims yet,
    /// the run is not of the chapter as it is now, or claims.yaml has
    /// claims it did not decide as they are written now.
    pub fn needs_run(&self) -> bool {
        !self.is_current() || !self.not_decided.is_empty() || !self.changed.is_empty()
    }
}

/// A verdict as counts say it: `reproduced`, `not reproduced`.
pub fn verdict_words(v: ClaimVerdict) -> String {
    v.to_string().to_lowercase().replace('_', " ")
}

/// The count of each verdict of stored notebook claims, as a history line
/// says it: `notebook claims: 1 reproduced, 1 inconclusive`.
pub fn history_words(claims: &[NotebookClaimResult]) -> Option<String> {
    if claims.is_empty() {
        return None;
    }
    let counts = ClaimVerdict::all()
        .map(|v| (v, claims.iter().filter(|c| c.verdict == v).count()))
        .filter(|(_, n)| *n > 0)
        .map(|(v, n)| format!("{n} {}", verdict_words(v)))
        .collect::<Vec<_>>()
        .join(", ");
    Some(format!("notebook claims: {counts}"))
}

/// Each stored notebook claim's verdict in words, with the cell it read,
/// one line each, as `history` lists them under the run.
/// `declared`, claims.yaml's notebook claims now (None when it could not
/// be read): a claim deleted or changed since the run keeps the verdict the
/// run gave it, history being what happened, and says it is no longer the
/// claim claims.yaml makes.
pub fn history_claim_lines(
    claims: &[NotebookClaimResult],
    declared: Option<&[DeclaredNotebookClaim]>,
) -> Vec<String> {
    claims
        .iter()
        .map(|c| {
            let now = declared.map(|d| d.iter().find(|x| x.id == c.claim));
            let since = match now {
                Some(None) => " (deleted from claims.yaml since)",
                Some(Some(d)) if d.claim.as_ref().is_some_and(|now| !same_claim(c, now)) => {
                    " (claims.yaml changed this claim since: it is UNRUN now)"
                }
                _ => "",
            };
            format!("{}: {}{since}", c.claim, c.in_words())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::same_criterion;
    use crate::published::criteria::Criterion;

    #[test]
    fn an_equal_bounds_range_in_an_earlier_records_words_is_the_same_criterion() {
        let exactly = Criterion::Between([5.0, 5.0]);
        assert!(same_criterion("exactly 5", &exactly));
        assert!(same_criterion("between 5 and 5", &exactly));
        assert!(!same_criterion("between 5 and 6", &exactly));
        assert!(!same_criterion(">= 100", &Criterion::AtLeast(200.0)));
    }
}
