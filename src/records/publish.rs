//! The book site's research data for one chapter, schema
//! `programmer.research.chapter.v1`. Counts come only from what the records
//! know; anything they do not know stays empty or zero.

use serde::Serialize;

use super::status::{self, ChapterStatus, State};
use super::{Record, RunKind};
use crate::chapter::Chapter;

/// The site's schema name.
pub const SITE_SCHEMA: &str = "programmer.research.chapter.v1";

#[derive(Debug, Serialize)]
pub struct SiteChapter {
    pub schema: &'static str,
    pub generator: String,
    pub book: SiteBook,
    pub chapter: SiteChapterId,
    pub research: SiteResearch,
    pub summary: Summary,
    pub delta: Option<()>,
    pub sections: Sections,
    pub sources: Vec<()>,
    pub missing_evidence: Vec<()>,
    pub negative_findings: Vec<()>,
    pub status_card: StatusCard,
    pub actions: Actions,
    pub provenance: Provenance,
}

#[derive(Debug, Serialize)]
pub struct SiteBook {
    pub id: String,
    pub title: String,
}

#[derive(Debug, Serialize)]
pub struct SiteChapterId {
    pub id: String,
    pub title: String,
    pub slug: String,
    pub public_path: String,
}

#[derive(Debug, Serialize)]
pub struct SiteResearch {
    pub state: State,
    pub run_id: Option<String>,
    pub previous_run_id: Option<String>,
    pub last_researched: Option<String>,
    pub execution_kind: Option<String>,
    pub stale_reasons: Vec<String>,
}

/// Integer counts the site shows.
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub sources: usize,
    pub evidence_relations: usize,
    pub supporting: usize,
    pub qualifying: usize,
    pub contradictory: usize,
    pub background: usize,
    pub limitations: usize,
    pub open_gaps: usize,
}

#[derive(Debug, Default, Serialize)]
pub struct EvidenceGroups {
    pub supporting: Vec<()>,
    pub qualifying: Vec<()>,
    pub competing: Vec<()>,
    pub contradictory: Vec<()>,
    pub background: Vec<()>,
    pub unresolved: Vec<()>,
}

#[derive(Debug, Serialize)]
pub struct Opportunity {
    pub description: String,
    pub reason: String,
}

#[derive(Debug, Default, Serialize)]
pub struct Sections {
    pub current_thesis: Vec<()>,
    pub existing_evidence: EvidenceGroups,
    pub new_literature: Vec<()>,
    pub missing_evidence: Vec<()>,
    pub limitations: Vec<()>,
    pub experiment_opportunities: Vec<Opportunity>,
    pub bibliography_additions: Vec<()>,
    pub recommended_actions: Vec<()>,
    pub do_not_strengthen: Vec<()>,
}

#[derive(Debug, Serialize)]
pub struct StatusCard {
    pub state: State,
    pub sources: usize,
    pub evidence_relations: usize,
    pub open_gaps: usize,
    pub last_researched: Option<String>,
    pub run_id: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Actions {
    pub research_available: bool,
}

#[derive(Debug, Serialize)]
pub struct Provenance {
    pub run_id: Option<String>,
    pub previous_run_id: Option<String>,
    pub research_schema: &'static str,
    pub publication_schema: &'static str,
}

/// The path part of a URL (`https://host/a/b/` -> `/a/b/`).
fn url_path(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.find('/')
        .map_or_else(|| "/".to_string(), |i| rest[i..].to_string())
}

/// Builds the site data from a chapter and its records (newest first).
pub fn build(chapter: &Chapter, records: &[Record]) -> SiteChapter {
    let st: ChapterStatus = status::chapter_status(chapter, records);
    let latest = records.iter().find(|r| r.kind == RunKind::Research);
    let report = latest.and_then(|r| r.report.as_ref());
    // What the records know: the rows of the source ledger are sources; the
    // things the report marks UNVERIFIED are open gaps. Relations between
    // claims and sources are not in the records, so they stay zero.
    let summary = Summary {
        sources: report.map_or(0, |r| r.check.source_ledger_rows),
        open_gaps: report.map_or(0, |r| r.check.unverified_markers),
        ..Summary::default()
    };
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
    let run_id = st.run_id.as_ref().map(|r| r.to_string());
    let previous = st.previous_run_id.as_ref().map(|r| r.to_string());
    let experiments = records
        .iter()
        .filter(|r| r.kind == RunKind::Experiment)
        .take(1)
        .filter_map(|r| r.experiment.as_ref().map(|e| (r, e)))
        .map(|(r, e)| Opportunity {
            description: format!(
                "Re-run the chapter's pipeline benchmark (last: {})",
                r.run_id
            ),
            reason: e.summary.clone(),
        })
        .collect();
    SiteChapter {
        schema: SITE_SCHEMA,
        generator: format!("research_companion {}", env!("CARGO_PKG_VERSION")),
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
            execution_kind: latest.map(|_| "manual".to_string()),
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
        delta: None,
        sections: Sections {
            experiment_opportunities: experiments,
            ..Sections::default()
        },
        sources: Vec::new(),
        missing_evidence: Vec::new(),
        negative_findings: Vec::new(),
        actions: Actions {
            research_available: true,
        },
        provenance: Provenance {
            run_id,
            previous_run_id: previous,
            research_schema: super::RECORD_SCHEMA,
            publication_schema: SITE_SCHEMA,
        },
    }
}
