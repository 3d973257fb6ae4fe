//! What changed between the previous complete research run and the latest
//! (`delta`), counted in the units the site shows beside it: evidence
//! relations, so that the relations reused and re-evaluated add up to the
//! page's evidence relations, and those removed are the earlier page's that
//! are gone.
//!
//! A relation is its group, its relation kind, its claim and its source
//! (a ledger source or an experiment by its id; the research report
//! itself, when a finding cites nothing, as one source whichever run wrote
//! it). One the earlier pass had too is reused, unless its claim changed
//! or its evidence tier did (an abstract since read in full): then, like a
//! relation new in this pass, it is re-evaluated. Claims are the audit
//! rows, by id: added, removed, or changed when the chapter changed them.

use std::collections::{HashMap, HashSet};

use super::schema::{Delta, EvidenceGroups, EvidenceItem};
use crate::records::report_items::{AuditRow, ReportItems};
use crate::records::source_id::source_id;

/// One research pass: its report read, and its evidence relations.
pub struct Pass<'a> {
    pub items: &'a ReportItems,
    pub groups: &'a EvidenceGroups,
}

/// Every relation of `g`, with its group's name.
fn relations(g: &EvidenceGroups) -> impl Iterator<Item = (&'static str, &EvidenceItem)> {
    [
        ("supporting", &g.supporting),
        ("qualifying", &g.qualifying),
        ("competing", &g.competing),
        ("contradictory", &g.contradictory),
        ("background", &g.background),
        ("unresolved", &g.unresolved),
    ]
    .into_iter()
    .flat_map(|(name, items)| items.iter().map(move |i| (name, i)))
}

/// What makes a relation the same one in two passes.
fn key(group: &str, i: &EvidenceItem) -> String {
    let source = if i.evidence.tier == "RESEARCH_REPORT" {
        "the research report"
    } else {
        i.source.id.as_str()
    };
    format!("{group}\n{}\n{}\n{source}", i.relation, i.claim)
}

/// The claims kept from one audit to the next that changed: their quoted
/// sentence differs between the two, or the prose change between the two
/// runs' revisions touched them (`claims_touched`); lower case ids. With
/// the counts of claims added and removed.
fn claims(
    now: &[AuditRow],
    before: &[AuditRow],
    touched: &[String],
) -> (HashSet<String>, usize, usize) {
    // Each claim's first audit row, by its key.
    let by_key = |rows: &'_ [AuditRow]| -> HashMap<String, usize> {
        let mut map = HashMap::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            map.entry(r.key()).or_insert(i);
        }
        map
    };
    let (old_rows, now_rows) = (by_key(before), by_key(now));
    let touched: HashSet<String> = touched.iter().map(|c| c.to_lowercase()).collect();
    let mut changed = HashSet::new();
    let mut added = 0;
    for row in now {
        let key = row.key();
        let Some(old) = old_rows.get(&key).map(|&i| &before[i]) else {
            added += 1;
            continue;
        };
        let quote_changed = matches!((row.quote(), old.quote()), (Some(a), Some(b)) if a != b);
        if quote_changed || touched.contains(&key) {
            changed.insert(key);
        }
    }
    let removed = before
        .iter()
        .filter(|r| !now_rows.contains_key(&r.key()))
        .count();
    (changed, added, removed)
}

/// What changed from `before` to `now`.
pub fn delta(now: Pass<'_>, before: Pass<'_>, claims_touched: &[String]) -> Delta {
    let (changed, claims_added, claims_removed) =
        claims(&now.items.audit, &before.items.audit, claims_touched);
    let old_ids: HashSet<String> = before.items.sources.iter().map(source_id).collect();
    // The earlier relations by key, each with the tiers it had (a key may
    // be there more than once).
    let mut earlier: HashMap<String, Vec<&str>> = HashMap::new();
    for (group, i) in relations(before.groups) {
        earlier
            .entry(key(group, i))
            .or_default()
            .push(&i.evidence.tier);
    }
    let mut d = Delta {
        papers_new: now
            .items
            .sources
            .iter()
            .filter(|r| !old_ids.contains(&source_id(r)))
            .count(),
        claims_added,
        claims_changed: changed.len(),
        claims_removed,
        ..Delta::default()
    };
    for (group, i) in relations(now.groups) {
        let Some(tier) = earlier.get_mut(&key(group, i)).and_then(Vec::pop) else {
            d.relations_revalidated += 1;
            continue;
        };
        let claim_changed = changed.contains(&i.evidence.section.to_lowercase());
        if claim_changed || tier != i.evidence.tier {
            d.relations_revalidated += 1;
        } else {
            d.relations_reused += 1;
        }
    }
    d.relations_removed = earlier.values().map(Vec::len).sum();
    d
}
