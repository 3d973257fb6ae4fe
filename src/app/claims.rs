//! Checking a chapter's claims.yaml against its current snapshot, before
//! any run: the sentences that state numbers and that no claim quotes, the
//! quotes the text no longer has, the metrics that do not evaluate on the
//! chapter's own tables (`claims check`); and through the chapter's
//! notebook, the notebook claims' problems and the stated numbers held
//! against what its latest run printed (`notebook::claims_check`).

use super::Project;
use crate::chapter::Chapter;
use crate::error::Result;
use crate::published::claims::{self, TableSet};
use crate::published::{read_prose, read_tables};

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
    /// The notebook claims' problems, and stated against printed.
    pub notebook: super::notebook::claims_check::NotebookCheck,
}

impl ClaimsCheck {
    /// Whether anything was found.
    pub fn anything(&self) -> bool {
        !(self.uncovered.is_empty()
            && self.quote_missing.is_empty()
            && self.metric_fails.is_empty()
            && self.notebook.open_differs().next().is_none())
    }
}

/// Checks a chapter's claims against its current snapshot: the numeric
/// sentences no claim quotes, the quotes the text lacks, the metrics that
/// do not evaluate.
pub fn check(project: &Project, chapter: &Chapter) -> Result<ClaimsCheck> {
    let snapshot = &chapter.state.current_snapshot;
    let prose = read_prose(project.layout(), chapter, snapshot)?;
    let parsed = read_tables(project.layout(), chapter, snapshot)?;
    let path = project.layout().claims_file(&chapter.key);
    let quotes = if path.exists() {
        crate::text::owned::check_owned(&path, &project.layout().snapshots_root())?;
        claims::quotes(&path)?
    } else {
        Vec::new()
    };
    let set = TableSet::from_published(&parsed.tables);
    let mut metric_fails = Vec::new();
    let file = if path.exists() {
        let text = crate::yaml_io::read_text(&path)?;
        let file: claims::ClaimsFile = crate::yaml_io::from_str_finite(&text, &path)?;
        for c in &file.claims {
            if let Err(e) = claims::evaluate_published(&c.metric, &set) {
                metric_fails.push((c.id.clone(), e));
            }
        }
        Some((text, file))
    } else {
        None
    };
    let notebook = super::notebook::claims_check::check(
        project,
        chapter,
        &prose,
        file.as_ref().map(|(t, f)| (path.as_path(), t.as_str(), f)),
    )?;
    // A notebook claim may quote the notebook's markdown.
    let in_notebook = |id: &str| {
        file.as_ref()
            .is_some_and(|(_, f)| f.notebook_claims.iter().any(|c| c.id == id))
    };
    let quote_missing = quotes
        .iter()
        .filter_map(|(id, q)| {
            let (found, closest) = crate::published::diff::find_quote(q, &prose);
            let found = found
                || (in_notebook(id) && crate::published::diff::find_quote(q, &notebook.markdown).0);
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
        notebook,
    })
}

/// The chapter's claims as (id, quoted sentence), without checking their
/// metrics; none when it has no claims.yaml (a regular file).
pub fn quotes(project: &Project, chapter: &Chapter) -> Result<Vec<(String, String)>> {
    let path = project.layout().claims_file(&chapter.key);
    if path.is_file() {
        claims::quotes(&path)
    } else {
        Ok(Vec::new())
    }
}

/// The chapter's claims over what its notebook prints (claims.yaml's
/// `notebook_claims`, checked as `claims check` checks the file); none
/// when the chapter has no claims.yaml.
pub fn notebook_claims(
    project: &Project,
    chapter: &Chapter,
) -> Result<Vec<crate::published::notebook_reads::NotebookClaim>> {
    let parsed = read_tables(project.layout(), chapter, &chapter.state.current_snapshot)?;
    Ok(
        crate::published::read_claims(project.layout(), chapter, &parsed)?
            .map(|f| f.notebook_claims)
            .unwrap_or_default(),
    )
}

/// The chapter's notebook claims as evidence: the verdicts of the latest
/// run (not retracted, of whatever kind) that decided them, with what makes
/// that run not of the chapter as it is now, or that they were not run
/// yet, following claims.yaml as it is now (claims deleted since the run
/// are not shown, claims added or changed since are UNRUN); None when
/// claims.yaml has no notebook claims. `records` newest first. The one view `status`, the prompt, the
/// report draft, `publish` and the site show.
pub fn notebook_claims_evidence(
    project: &Project,
    chapter: &Chapter,
    records: &[crate::records::Record],
) -> Result<Option<crate::records::notebook_claims::NotebookClaimsEvidence>> {
    let declared = declared_notebook_claims(project, chapter)?;
    let stored = crate::notebook::store::load(project.layout(), &chapter.key)?;
    Ok(crate::records::notebook_claims::notebook_claims_evidence(
        chapter,
        stored.as_ref(),
        records,
        declared,
    ))
}

/// Only what a view of the evidence needs of claims.yaml's notebook claims.
#[derive(serde::Deserialize)]
struct Declared {
    #[serde(default)]
    notebook_claims: Vec<serde_yaml::Value>,
}

/// The notebook claims claims.yaml has now (id, location, and the claim
/// when it reads as one), read without checking the file's metrics
/// against the chapter's tables (`claims check` does that): a view of the
/// evidence shows what the records hold even while a pipeline claim does
/// not evaluate. None when the chapter has no claims.yaml (a regular file).
pub(crate) fn declared_notebook_claims(
    project: &Project,
    chapter: &Chapter,
) -> Result<Vec<crate::records::notebook_claims::DeclaredNotebookClaim>> {
    let path = project.layout().claims_file(&chapter.key);
    if !path.is_file() {
        return Ok(Vec::new());
    }
    crate::text::owned::check_owned(&path, &project.layout().snapshots_root())?;
    let file: Declared = crate::yaml_io::read_finite(&path)?;
    let text = |v: &serde_yaml::Value, key: &str| {
        v.get(key)
            .and_then(serde_yaml::Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    Ok(file
        .notebook_claims
        .into_iter()
        .map(|v| crate::records::notebook_claims::DeclaredNotebookClaim {
            id: text(&v, "id"),
            location: text(&v, "location"),
            claim: serde_yaml::from_value(v).ok(),
        })
        .collect())
}
