//! The site data's sources, with ids that stay the same from run to run
//! (`records::source_id`); the sources the ledger says were reviewed and not
//! used, as negative findings; what changed since the research run before
//! (`delta`); and the links a reader follows to a run's record.

use std::collections::{HashMap, HashSet};

use super::schema::{Delta, Identifiers, NegativeFinding, Paper, Source};
use crate::ids::RunId;
use crate::records::report_items::{AuditRow, ReportItems};
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

/// `source ledger of research run <id>` for each of the newest
/// [`PROVENANCE_RUNS`] of `runs` (newest first), then `and the source
/// ledgers of 2,995 earlier research runs (research_companion history
/// <book>/<chapter> lists them)` for the rest: a long history does not
/// make the site data grow with it.
fn provenance(runs: &[&RunId]) -> Vec<String> {
    let mut out: Vec<String> = runs
        .iter()
        .take(PROVENANCE_RUNS)
        .map(|run| format!("source ledger of research run {run}"))
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

/// What changed between two research reports. Claims are the audit rows,
/// by id: added, removed, or changed when the chapter changed them (their
/// quoted sentence differs between the two audits, or the prose change
/// between the two revisions touched it: `claims_touched`). A claim kept
/// whose verdict cell differs, or that changed, is re-validated; one kept
/// as it was is reused.
pub fn delta(now: &ReportItems, before: &ReportItems, claims_touched: &[String]) -> Delta {
    let old_ids: HashSet<String> = before.sources.iter().map(source_id).collect();
    // Each claim's first audit row, by its key.
    let by_key = |rows: &'_ [AuditRow]| -> HashMap<String, usize> {
        let mut map = HashMap::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            map.entry(r.key()).or_insert(i);
        }
        map
    };
    let old_rows = by_key(&before.audit);
    let now_rows = by_key(&now.audit);
    let touched: HashSet<String> = claims_touched.iter().map(|c| c.to_lowercase()).collect();
    let mut d = Delta {
        papers_new: now
            .sources
            .iter()
            .filter(|r| !old_ids.contains(&source_id(r)))
            .count(),
        ..Delta::default()
    };
    for row in &now.audit {
        let key = row.key();
        let Some(old) = old_rows.get(&key).map(|&i| &before.audit[i]) else {
            d.claims_added += 1;
            continue;
        };
        let quote_changed = matches!((row.quote(), old.quote()), (Some(a), Some(b)) if a != b);
        let changed = quote_changed || touched.contains(&key);
        if changed {
            d.claims_changed += 1;
        }
        if changed || old.verdict != row.verdict {
            d.relations_revalidated += 1;
        } else {
            d.relations_reused += 1;
        }
    }
    d.claims_removed = before
        .audit
        .iter()
        .filter(|r| !now_rows.contains_key(&r.key()))
        .count();
    d.relations_removed = d.claims_removed;
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::report_items::read;

    const BEFORE: &str = "## 2. Claim audit\n| claim | latest verdict | response |\n|---|---|---|\n\
| a: \"A is so.\" | REPRODUCED | keep |\n| b: \"B is so.\" | REPRODUCED | keep |\n| c | REPRODUCED | keep |\n\
## 3. Source ledger\n| source | url |\n|---|---|\n| Docs | https://x.org/docs |\n";

    #[test]
    fn a_changed_verdict_is_revalidated_and_a_changed_claim_is_a_claim_changed() {
        let before = read(BEFORE);
        let same = delta(&read(BEFORE), &before, &[]);
        assert_eq!(
            (same.claims_changed, same.relations_reused, same.papers_new),
            (0, 3, 0)
        );
        // Only the verdict of `a` changed: re-validated, no claim changed.
        let verdict = read(&BEFORE.replace(
            "| a: \"A is so.\" | REPRODUCED |",
            "| a: \"A is so.\" | NOT_REPRODUCED |",
        ));
        let d = delta(&verdict, &before, &[]);
        assert_eq!(
            (
                d.claims_changed,
                d.relations_revalidated,
                d.relations_reused
            ),
            (0, 1, 2)
        );
        // The quote of `b` changed in claims.yaml, and the prose touched `c`.
        let quote = read(&BEFORE.replace("\"B is so.\"", "\"B is now so.\""));
        let d = delta(&quote, &before, &["C".to_string()]);
        assert_eq!((d.claims_changed, d.relations_revalidated), (2, 2));
        // One claim gone, one new source.
        let fewer = read(&BEFORE.replace("| c | REPRODUCED | keep |\n", "").replace(
            "| Docs | https://x.org/docs |",
            "| Docs | https://x.org/docs |\n| Paper | https://arxiv.org/abs/2101.12127 |",
        ));
        let d = delta(&fewer, &before, &[]);
        assert_eq!(
            (d.claims_removed, d.relations_removed, d.papers_new),
            (1, 1, 1)
        );
    }
}
