//! The notebook half of `reproduce`: a chapter whose claims.yaml has
//! `notebook_claims` has its current stored notebook run in fresh kernels
//! (`app::notebook::run`, which decides the claims into the run file), and
//! each claim gets its verdict beside the pipeline's. A notebook the caller
//! did not run, or one the chapter does not have, leaves each claim UNRUN
//! with the reason in words: never an error, never a verdict. Which kinds of
//! evidence each chapter has (`reproduce --all` says it per chapter) is
//! [`ChapterEvidence`].

use super::Project;
use super::notebook::run::{ChapterRun, Planned};
use super::record::Stored;
use crate::chapter::Chapter;
use crate::error::Result;
use crate::notebook::NotebookRunFile;
use crate::notebook::claims::{NotebookClaimResult, unrun};
use crate::published::notebook_reads::NotebookClaim;
use crate::published::verdict::ClaimVerdict;

/// A chapter's notebook claims, and its notebook ready to run.
#[derive(Debug, Clone)]
pub struct NotebookPlan {
    pub chapter: Chapter,
    pub claims: Vec<NotebookClaim>,
    /// The chapter's current stored notebook, read; or why there is none to
    /// run, in words.
    pub planned: std::result::Result<Planned, String>,
}

/// The chapter's notebook claims and its stored notebook; None when its
/// claims.yaml has no notebook claims. A claims.yaml that does not read is
/// the error.
pub fn plan_chapter(project: &Project, chapter: &Chapter) -> Result<Option<NotebookPlan>> {
    let claims = super::claims::notebook_claims(project, chapter)?;
    if claims.is_empty() {
        return Ok(None);
    }
    let planned = if crate::notebook::store::load(project.layout(), &chapter.key)?.is_none() {
        Err(format!(
            "no notebook is stored for {}; store one with `research_companion notebook add {} FILE|URL`",
            chapter.key, chapter.key
        ))
    } else {
        let mut one = super::notebook::run::plan(project, &[chapter.key_str()])?;
        Ok(one.remove(0))
    };
    Ok(Some(NotebookPlan {
        chapter: chapter.clone(),
        claims,
        planned,
    }))
}

/// What running (or not running) a chapter's notebook gave.
#[derive(Debug)]
pub enum NotebookRan {
    /// The run, its claims decided; recorded when it was asked to be
    /// recorded on its own.
    Ran(Box<ChapterRun>),
    /// Not run, and why in words.
    NotRun(String),
}

/// A chapter's notebook claims, reproduced.
#[derive(Debug, Clone)]
pub struct NotebookOutcome {
    /// Each claim's verdict (UNRUN with the reason when the notebook did not
    /// run).
    pub claims: Vec<NotebookClaimResult>,
    /// The run of the notebook, when it ran.
    pub run: Option<NotebookRunFile>,
    /// A notebook record of its own (a chapter with notebook claims and no
    /// pipeline run); a chapter with both keeps the notebook run in its
    /// experiment record.
    pub stored: Option<Stored>,
}

impl NotebookOutcome {
    /// Every claim UNRUN, for `reason`.
    pub fn not_run(plan: &NotebookPlan, reason: &str) -> Self {
        NotebookOutcome {
            claims: plan.claims.iter().map(|c| unrun(c, reason)).collect(),
            run: None,
            stored: None,
        }
    }

    /// The claims a run decided.
    pub fn of(ran: NotebookRan, plan: &NotebookPlan) -> Self {
        match ran {
            NotebookRan::Ran(c) => {
                let c = *c;
                NotebookOutcome {
                    claims: c.run.claims.clone(),
                    run: Some(c.run),
                    stored: c.stored,
                }
            }
            NotebookRan::NotRun(reason) => Self::not_run(plan, &reason),
        }
    }

    /// How many claims have `verdict`.
    pub fn count(&self, verdict: ClaimVerdict) -> usize {
        self.claims.iter().filter(|c| c.verdict == verdict).count()
    }
}

/// Which kinds of evidence a chapter has for `reproduce`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ChapterEvidence {
    pub chapter: String,
    /// Published tables in its current snapshot (the pipeline experiment).
    pub tables: usize,
    /// Claims over what its notebook prints.
    pub notebook_claims: usize,
}

impl ChapterEvidence {
    /// `book/06: pipeline tables (2), notebook claims (4)`, or `book/07:
    /// nothing to reproduce (no tables, no notebook claims)`.
    pub fn in_words(&self) -> String {
        let mut kinds = Vec::new();
        if self.tables > 0 {
            kinds.push(format!("pipeline tables ({})", self.tables));
        }
        if self.notebook_claims > 0 {
            kinds.push(format!("notebook claims ({})", self.notebook_claims));
        }
        if kinds.is_empty() {
            return format!(
                "{}: nothing to reproduce (no tables, no notebook claims)",
                self.chapter
            );
        }
        format!("{}: {}", self.chapter, kinds.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chapters_evidence_is_named_by_kind() {
        let e = |tables, notebook_claims| ChapterEvidence {
            chapter: "b/06".into(),
            tables,
            notebook_claims,
        };
        assert_eq!(
            e(2, 4).in_words(),
            "b/06: pipeline tables (2), notebook claims (4)"
        );
        assert_eq!(e(0, 1).in_words(), "b/06: notebook claims (1)");
        assert_eq!(
            e(0, 0).in_words(),
            "b/06: nothing to reproduce (no tables, no notebook claims)"
        );
    }
}
