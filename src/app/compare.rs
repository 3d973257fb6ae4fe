//! Comparing a measured run with what a chapter revision published: its
//! tables cell by cell and its claims one by one.

use super::Project;
use crate::bench::BenchRun;
use crate::chapter::Chapter;
use crate::error::Result;
use crate::published::claims::TableSet;
use crate::published::diff::{self, ClaimResult, Comparison};
use crate::published::tables::Table;
use crate::published::{read_claims, read_prose, read_tables};
use crate::records::StoredVerdict;

/// A comparison and the published tables it was made against.
#[derive(Debug, Clone)]
pub struct Compared {
    pub comparison: Comparison,
    pub tables: Vec<Table>,
}

/// Compares `run` with the tables and claims of one snapshot of a chapter.
pub fn compare_run(
    project: &Project,
    chapter: &Chapter,
    snapshot: &str,
    run: &BenchRun,
) -> Result<Compared> {
    let parsed = read_tables(project.layout(), chapter, snapshot)?;
    let claims = read_claims(project.layout(), chapter, &parsed)?;
    let prose = read_prose(project.layout(), chapter, snapshot)?;
    Ok(Compared {
        comparison: diff::compare(
            &parsed.tables,
            &parsed.malformed,
            claims.as_ref(),
            &prose,
            run,
        ),
        tables: parsed.tables,
    })
}

/// Compares a recorded experiment with the revision it examined.
pub fn compare_recorded(
    project: &Project,
    chapter: &Chapter,
    experiment: &super::runs::RecordedRun,
) -> Result<Compared> {
    compare_run(
        project,
        chapter,
        &experiment.record.revision.snapshot,
        &experiment.run,
    )
}

/// The claims of one snapshot checked against its own tables only, every
/// verdict UNRUN with `reason`; and the tables.
pub fn unrun_claims(
    project: &Project,
    chapter: &Chapter,
    snapshot: &str,
    reason: &str,
) -> Result<(Vec<ClaimResult>, Vec<Table>)> {
    let parsed = read_tables(project.layout(), chapter, snapshot)?;
    let claims = read_claims(project.layout(), chapter, &parsed)?;
    let prose = read_prose(project.layout(), chapter, snapshot)?;
    let set = TableSet::from_published(&parsed.tables);
    let results = claims
        .map(|f| {
            f.claims
                .iter()
                .map(|c| diff::unrun(c, &set, &prose, Some(reason.to_string())))
                .collect()
        })
        .unwrap_or_default();
    Ok((results, parsed.tables))
}

/// Claim verdicts as an experiment record keeps them.
pub fn stored_verdicts(c: &Comparison) -> Vec<StoredVerdict> {
    c.claims.iter().map(StoredVerdict::of).collect()
}

/// What `claims check` finds for a chapter's current snapshot.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ClaimsCheck {
    pub chapter: String,
    pub claims: usize,
    /// Sentences that state numbers and that no claim quotes.
    pub uncovered: Vec<String>,
    /// Claims whose quoted sentence is not in the snapshot: (id, closest).
    pub quote_missing: Vec<(String, Option<String>)>,
    /// Claims whose metric does not evaluate on the snapshot's tables.
    pub metric_fails: Vec<(String, String)>,
}

impl ClaimsCheck {
    /// Whether anything was found.
    pub fn anything(&self) -> bool {
        !(self.uncovered.is_empty()
            && self.quote_missing.is_empty()
            && self.metric_fails.is_empty())
    }
}

/// Checks a chapter's claims against its current snapshot: the numeric
/// sentences no claim quotes, the quotes the text lacks, the metrics that
/// do not evaluate.
pub fn check_claims(project: &Project, chapter: &Chapter) -> Result<ClaimsCheck> {
    use crate::published::claims;
    let snapshot = &chapter.state.current_snapshot;
    let prose = read_prose(project.layout(), chapter, snapshot)?;
    let parsed = read_tables(project.layout(), chapter, snapshot)?;
    let path = project.layout().claims_file(&chapter.key);
    let quotes = if path.exists() {
        crate::text::check_owned(&path, &project.layout().snapshots_root())?;
        claims::quotes(&path)?
    } else {
        Vec::new()
    };
    let set = TableSet::from_published(&parsed.tables);
    let mut metric_fails = Vec::new();
    if path.exists() {
        let file: claims::ClaimsFile = crate::yaml_io::read_finite(&path)?;
        for c in &file.claims {
            if let Err(e) = claims::evaluate(&c.metric, &set) {
                metric_fails.push((c.id.clone(), e));
            }
        }
    }
    let quote_missing = quotes
        .iter()
        .filter_map(|(id, q)| {
            let (found, closest) = diff::find_quote(q, &prose);
            (!found).then(|| (id.clone(), closest))
        })
        .collect();
    let texts: Vec<String> = quotes.iter().map(|(_, q)| q.clone()).collect();
    Ok(ClaimsCheck {
        chapter: chapter.key.to_string(),
        claims: quotes.len(),
        uncovered: crate::published::coverage::uncovered(&prose, &texts),
        quote_missing,
        metric_fails,
    })
}
