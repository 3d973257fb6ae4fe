//! The site data's sources, with ids that stay the same from run to run
//! (`records::source_id`); the sources the ledger says were reviewed and not
//! used, as negative findings; and the links a reader follows to a run's
//! record. (What changed since the research run before is `delta`.)

use std::collections::HashSet;

use super::schema::{Identifiers, NegativeFinding, Paper, Source};
use crate::ids::RunId;
use crate::records::report_items::ReportItems;
use crate::records::source_id::source_id;

/// Where a reader opens a run's record.
#[derive(Debug, Clone, Default)]
pub enum RecordLinks {
    /// No page is known: items link nowhere.
    #[default]
    None,
    /// The tool's evidence site (`site --out`) served at `base`: the run on
    /// its chapter's page (`page`, `<book>/<chapter>.html`).
    Site { base: String, page: String },
    /// The chapter's research page, which shows its research record.
    Page(String),
}

impl RecordLinks {
    /// The page of `run`'s record.
    pub fn record(&self, run: &RunId) -> Option<String> {
        match self {
            RecordLinks::None => None,
            RecordLinks::Site { base, page } => Some(format!(
                "{}/{page}#run-{}",
                base.trim_end_matches('/'),
                run.stem()
            )),
            RecordLinks::Page(url) => Some(url.clone()),
        }
    }
}

/// How the site data's prose names a run: its record's stem,
/// `20261206T202756-0e73b6ba5edb` (the record's file name under
/// `records/`, and its anchor `#run-<stem>` on the site's chapter page).
/// The book's theme prints the prose as it is, and a whole run id
/// (`<book>:<chapter>:<stamp>:<hex>`, some 58 characters without a place
/// to break) makes its page wider than a phone's screen; the id fields
/// (`research.run_id`, `source.id`, `provenance`, ...) keep the whole id.
/// A text that is not a run id is kept as it is.
pub fn run_label(id: &str) -> String {
    RunId::parse(id).map_or_else(|_| id.to_string(), |r| r.stem())
}

/// The sources of the latest report's ledger (the first of `reports`,
/// newest first), one per id, each with the runs whose ledgers hold it.
/// Linear in the ledgers' rows: each row's id is made once, and ids are
/// looked up in sets.
pub fn sources(reports: &[(&RunId, ReportItems)]) -> Vec<Source> {
    let Some((_, latest)) = reports.first() else {
        return Vec::new();
    };
    let ledgers: Vec<HashSet<String>> = reports
        .iter()
        .map(|(_, items)| items.sources.iter().map(source_id).collect())
        .collect();
    let mut out: Vec<Source> = Vec::new();
    let mut listed: HashSet<String> = HashSet::new();
    for row in &latest.sources {
        let id = source_id(row);
        if !listed.insert(id.clone()) {
            continue;
        }
        let holding: Vec<&RunId> = reports
            .iter()
            .zip(&ledgers)
            .filter(|(_, ids)| ids.contains(&id))
            .map(|((run, _), _)| *run)
            .collect();
        let provenance = provenance(&holding);
        out.push(Source {
            id,
            title: row.title.clone(),
            authors: row.authors.clone(),
            year: row.year,
            venue: row.venue.clone(),
            status: row.status.clone(),
            url: row.url.clone(),
            identifiers: Identifiers {
                arxiv: row.arxiv.clone(),
                doi: row.doi.clone(),
            },
            provenance,
        });
    }
    out
}

/// The research runs a source's `provenance` names, newest first; the
/// ledgers of earlier ones that hold it are counted in one more line.
pub const PROVENANCE_RUNS: usize = 5;

/// `source ledger of research run <stem>` ([`run_label`]) for each of the newest
/// [`PROVENANCE_RUNS`] of `runs` (newest first), then `and the source
/// ledgers of 2,995 earlier research runs (research_companion history
/// <book>/<chapter> lists them)` for the rest: a long history does not
/// make the site data grow with it.
fn provenance(runs: &[&RunId]) -> Vec<String> {
    let mut out: Vec<String> = runs
        .iter()
        .take(PROVENANCE_RUNS)
        .map(|run| format!("source ledger of research run {}", run.stem()))
        .collect();
    if let Some(run) = runs.get(PROVENANCE_RUNS) {
        let more = runs.len() - PROVENANCE_RUNS;
        out.push(format!(
            "and the source {} of {} earlier research {} (research_companion history {} lists them)",
            if more == 1 { "ledger" } else { "ledgers" },
            crate::records::selection::grouped(more),
            if more == 1 { "run" } else { "runs" },
            run.chapter
        ));
    }
    out
}

/// The sources the ledger says were reviewed and not used as evidence.
pub fn negative_findings(items: &ReportItems, sources: &[Source]) -> Vec<NegativeFinding> {
    let known: HashSet<&str> = sources.iter().map(|s| s.id.as_str()).collect();
    let mut said: HashSet<String> = HashSet::new();
    let mut out: Vec<NegativeFinding> = Vec::new();
    for row in items.sources.iter().filter(|r| r.not_used()) {
        let id = source_id(row);
        if !known.contains(id.as_str()) || !said.insert(id.clone()) {
            continue;
        }
        out.push(NegativeFinding {
            paper: Paper {
                id,
                title: row.title.clone(),
            },
            finding: row.why_not_used(),
        });
    }
    out
}
