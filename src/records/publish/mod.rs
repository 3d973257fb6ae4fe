//! The site data `publish` writes: the book site's research data for one
//! chapter, as YAML of schema `programmer.research.chapter.v1`, which the
//! book's own site renders (the HTML site this tool writes itself is
//! `app::site`). The lists come from what the records hold: the latest
//! research report's source ledger, UNVERIFIED marks and upgrade proposals,
//! and the latest experiment's claim verdicts, and the latest notebook run.
//! Every count is the length of the list it counts.
//!
//! `schema` is the file's types, `evidence` the verdicts as evidence
//! relations, `notebook` the notebook run as one; this file builds the
//! whole.

mod evidence;
mod notebook;
pub mod schema;

use super::Record;
use super::report_items::{self, ReportItems};
use super::status::{self, ChapterStatus, ResearchState};
use crate::chapter::Chapter;
use evidence::evidence_groups;
use schema::{
    Actions, Delta, EvidenceGroups, Identifiers, MissingEvidence, Opportunity, Provenance,
    RecommendedAction, SITE_SCHEMA, Sections, SiteBook, SiteChapter, SiteChapterId, SiteResearch,
    Source, StatusCard, Summary,
};

pub use evidence::ClaimEvidence;

/// What `site_data` reads besides the records.
#[derive(Debug, Clone, Default)]
pub struct Inputs<'a> {
    /// The latest complete research report (drafts do not count): its run
    /// id and text.
    pub report_run_id: Option<String>,
    pub report: Option<&'a str>,
    /// ... and of the research report before it.
    pub previous_report: Option<&'a str>,
    pub evidence: Option<ClaimEvidence<'a>>,
    /// Whether the chapter has claims to check at all.
    pub has_claims: bool,
    /// The chapter's notebook, when it has one.
    pub notebook: Option<super::notebook_status::NotebookStatus>,
}

/// The site data file for a chapter, and what in its report could not
/// become an item (one line each).
#[derive(Debug)]
pub struct SiteData {
    pub site: SiteChapter,
    pub unparsed: Vec<String>,
}

/// The path part of a URL (`https://host/a/b/` -> `/a/b/`).
fn url_path(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.find('/')
        .map_or_else(|| "/".to_string(), |i| rest[i..].to_string())
}

/// A short id for a source: `src-` and its position.
fn sources_of(items: &ReportItems, run_id: &str) -> Vec<Source> {
    items
        .sources
        .iter()
        .enumerate()
        .map(|(i, r)| Source {
            id: format!("src-{}", i + 1),
            row: r.clone(),
            identifiers: Identifiers {
                arxiv: r.url.as_deref().and_then(|u| {
                    u.split_once("arxiv.org/abs/")
                        .map(|(_, id)| id.trim_end_matches('/').to_string())
                }),
                doi: r.url.as_deref().and_then(|u| {
                    u.split_once("doi.org/")
                        .map(|(_, id)| id.trim_end_matches('/').to_string())
                }),
            },
            provenance: vec![format!("source ledger of research run {run_id}")],
        })
        .collect()
}

/// The claim id of an audit row: its first cell up to a colon.
fn claim_key(claim: &str) -> String {
    claim
        .split(':')
        .next()
        .unwrap_or(claim)
        .trim()
        .to_lowercase()
}

/// What changed between two research reports.
fn delta(now: &ReportItems, before: &ReportItems) -> Delta {
    let titles = |i: &ReportItems| -> Vec<String> {
        i.sources.iter().map(|s| s.title.to_lowercase()).collect()
    };
    let old_titles = titles(before);
    let find = |rows: &[report_items::AuditRow], key: &str| {
        rows.iter()
            .find(|r| claim_key(&r.claim) == key)
            .map(|r| r.verdict.clone())
    };
    let mut d = Delta {
        papers_new: titles(now)
            .iter()
            .filter(|t| !old_titles.contains(t))
            .count(),
        ..Delta::default()
    };
    for row in &now.audit {
        match find(&before.audit, &claim_key(&row.claim)) {
            None => d.claims_added += 1,
            Some(v) if v == row.verdict => d.relations_reused += 1,
            Some(_) => {
                d.claims_changed += 1;
                d.relations_revalidated += 1;
            }
        }
    }
    d.claims_removed = before
        .audit
        .iter()
        .filter(|r| find(&now.audit, &claim_key(&r.claim)).is_none())
        .count();
    d.relations_removed = d.claims_removed;
    d
}

/// Builds the site data from a chapter, its records (newest first) and
/// what `inputs` read for it.
pub fn site_data(chapter: &Chapter, records: &[Record], inputs: &Inputs<'_>) -> SiteData {
    let st: ChapterStatus = status::chapter_status(chapter, records);
    let researched = st.state != ResearchState::NeverResearched;
    let run_id = st.run_id.as_ref().map(|r| r.to_string());
    let items = inputs.report.map(report_items::read).unwrap_or_default();
    let unparsed = items.unparsed.clone();
    let sources = sources_of(&items, inputs.report_run_id.as_deref().unwrap_or("unknown"));
    let gaps: Vec<MissingEvidence> = items
        .gaps
        .iter()
        .map(|g| MissingEvidence {
            claim: g.claim.clone(),
            gap: g.gap.clone(),
        })
        .collect();
    let (mut existing, mut negative) = match &inputs.evidence {
        Some(e) => evidence_groups(e),
        None => (EvidenceGroups::default(), Vec::new()),
    };
    let mut opportunities = match &inputs.evidence {
        _ if !inputs.has_claims => Vec::new(),
        None => vec![Opportunity {
            description: "Run the chapter's experiment (research_companion reproduce)".into(),
            reason: "No experiment is recorded for this chapter, so its claims are unchecked."
                .into(),
        }],
        Some(e) if !e.of_current_revision => vec![Opportunity {
            description: "Re-run the chapter's experiment on the current revision (research_companion reproduce)".into(),
            reason: format!(
                "The latest experiment, {}, examined revision {}; the chapter has changed since.",
                e.run_id, e.revision
            ),
        }],
        Some(_) => Vec::new(),
    };
    if let Some(n) = &inputs.notebook {
        notebook::add_notebook(n, &mut existing, &mut negative, &mut opportunities);
    }
    let m = &chapter.manifest;
    let public_path = m
        .chapter
        .url
        .as_deref()
        .map_or_else(|| format!("/{}/{}/", m.book.id, m.chapter.id), url_path);
    let slug = public_path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let last = st
        .last_researched
        .map(|t| t.format("%Y-%m-%dT%H:%M:%S+00:00").to_string());
    let previous = st.previous_run_id.as_ref().map(|r| r.to_string());
    let sections = Sections {
        existing_evidence: existing,
        missing_evidence: gaps.clone(),
        experiment_opportunities: opportunities,
        recommended_actions: items
            .proposals
            .iter()
            .map(|p| RecommendedAction {
                recommendation: p.clone(),
            })
            .collect(),
        ..Sections::default()
    };
    let summary = Summary {
        sources: sources.len(),
        evidence_relations: sections.existing_evidence.relations(),
        supporting: sections.existing_evidence.supporting.len(),
        qualifying: sections.existing_evidence.qualifying.len(),
        contradictory: sections.existing_evidence.contradictory.len(),
        background: sections.existing_evidence.background.len(),
        limitations: sections.limitations.len(),
        open_gaps: gaps.len(),
    };
    let delta = match (inputs.report, inputs.previous_report) {
        (Some(_), Some(before)) => Some(delta(&items, &report_items::read(before))),
        _ => None,
    };
    let site = SiteChapter {
        schema: SITE_SCHEMA,
        generator: format!("{GENERATOR} {}", env!("CARGO_PKG_VERSION")),
        book: SiteBook {
            id: m.book.id.to_string(),
            title: m.book.title.clone(),
        },
        chapter: SiteChapterId {
            id: m.chapter.id.to_string(),
            title: m.chapter.title.clone(),
            slug,
            public_path,
        },
        research: SiteResearch {
            state: st.state,
            run_id: run_id.clone(),
            previous_run_id: previous.clone(),
            last_researched: last.clone(),
            execution_kind: researched.then(|| "manual".to_string()),
            stale_reasons: st.stale_reasons.clone(),
        },
        status_card: StatusCard {
            state: st.state,
            sources: summary.sources,
            evidence_relations: summary.evidence_relations,
            open_gaps: summary.open_gaps,
            last_researched: last,
            run_id: run_id.clone(),
        },
        summary,
        delta,
        sections,
        sources,
        missing_evidence: gaps,
        negative_findings: negative,
        actions: Actions {
            research_available: researched,
        },
        provenance: Provenance {
            run_id,
            previous_run_id: previous,
            research_schema: researched.then_some(super::RECORD_SCHEMA),
            publication_schema: SITE_SCHEMA,
        },
    };
    SiteData { site, unparsed }
}

/// What every file this tool writes has in `generator`, first.
pub const GENERATOR: &str = "research_companion";

/// Whether a site data file was written by this tool (its `generator`).
pub fn written_by_us(text: &str) -> bool {
    text.lines().any(|l| {
        l.strip_prefix("generator:")
            .map(|v| v.trim().trim_matches(['\'', '"']))
            .is_some_and(|v| v == GENERATOR || v.starts_with(&format!("{GENERATOR} ")))
    })
}
