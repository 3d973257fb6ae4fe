//! The site data `publish` writes: the book site's research data for one
//! chapter, as YAML of schema `programmer.research.chapter.v1`, which the
//! book's own site renders (the HTML site this tool writes itself is
//! `app::site`). The lists come from what the records
//! hold: the latest research report's source ledger, UNVERIFIED marks and
//! upgrade proposals, and the latest experiment's claim verdicts. Every count
//! is the length of the list it counts.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::Record;
use super::report_items::{self, ReportItems};
use super::status::{self, ChapterStatus, ResearchState};
use crate::chapter::Chapter;
use crate::published::diff::ClaimResult;
use crate::published::verdict::ClaimVerdict;
use crate::text::number;

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
    pub delta: Option<Delta>,
    pub sections: Sections,
    pub sources: Vec<Source>,
    pub missing_evidence: Vec<MissingEvidence>,
    pub negative_findings: Vec<NegativeFinding>,
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
    pub state: ResearchState,
    pub run_id: Option<String>,
    pub previous_run_id: Option<String>,
    pub last_researched: Option<String>,
    pub execution_kind: Option<String>,
    pub stale_reasons: Vec<String>,
}

/// Integer counts the site shows; each is the length of a list.
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

/// What changed since the previous research run (see README for each count).
#[derive(Debug, Default, Serialize)]
pub struct Delta {
    pub relations_reused: usize,
    pub relations_revalidated: usize,
    pub relations_removed: usize,
    pub papers_new: usize,
    pub claims_added: usize,
    pub claims_changed: usize,
    pub claims_removed: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct ItemSource {
    pub id: String,
    pub title: String,
    pub authors: Vec<String>,
    pub year: Option<i64>,
    pub url: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ItemEvidence {
    pub tier: String,
    pub tier_label: String,
    pub section: String,
    pub summary: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Interpretation {
    pub rationale: String,
}

/// One evidence relation: a claim of the chapter and what bears on it.
#[derive(Debug, Clone, Serialize)]
pub struct EvidenceItem {
    pub relation: &'static str,
    pub claim: String,
    pub source: ItemSource,
    pub evidence: ItemEvidence,
    pub interpretation: Interpretation,
}

#[derive(Debug, Default, Serialize)]
pub struct EvidenceGroups {
    pub supporting: Vec<EvidenceItem>,
    pub qualifying: Vec<EvidenceItem>,
    pub competing: Vec<EvidenceItem>,
    pub contradictory: Vec<EvidenceItem>,
    pub background: Vec<EvidenceItem>,
    pub unresolved: Vec<EvidenceItem>,
}

impl EvidenceGroups {
    fn len(&self) -> usize {
        self.supporting.len()
            + self.qualifying.len()
            + self.competing.len()
            + self.contradictory.len()
            + self.background.len()
            + self.unresolved.len()
    }
}

#[derive(Debug, Serialize)]
pub struct Thesis {
    pub section: String,
    pub claims: Vec<String>,
    pub concepts: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Literature {
    pub title: String,
    pub year: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MissingEvidence {
    pub claim: String,
    pub gap: String,
}

#[derive(Debug, Serialize)]
pub struct Opportunity {
    pub description: String,
    pub reason: String,
}

#[derive(Debug, Serialize)]
pub struct BibliographyAddition {
    pub title: String,
    pub year: Option<i64>,
    pub status: String,
    pub reason: String,
}

#[derive(Debug, Serialize)]
pub struct RecommendedAction {
    pub recommendation: String,
}

#[derive(Debug, Default, Serialize)]
pub struct Sections {
    pub current_thesis: Vec<Thesis>,
    pub existing_evidence: EvidenceGroups,
    pub new_literature: Vec<Literature>,
    pub missing_evidence: Vec<MissingEvidence>,
    pub limitations: Vec<String>,
    pub experiment_opportunities: Vec<Opportunity>,
    pub bibliography_additions: Vec<BibliographyAddition>,
    pub recommended_actions: Vec<RecommendedAction>,
    pub do_not_strengthen: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Identifiers {
    pub arxiv: Option<String>,
    pub doi: Option<String>,
}

/// A source: the ledger row's fields, between its id and its identifiers.
#[derive(Debug, Serialize)]
pub struct Source {
    pub id: String,
    #[serde(flatten)]
    pub row: report_items::LedgerRow,
    pub identifiers: Identifiers,
    pub provenance: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Paper {
    pub id: String,
    pub title: String,
}

#[derive(Debug, Serialize)]
pub struct NegativeFinding {
    pub paper: Paper,
    pub finding: String,
}

#[derive(Debug, Serialize)]
pub struct StatusCard {
    pub state: ResearchState,
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
    pub research_schema: Option<&'static str>,
    pub publication_schema: &'static str,
}

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
        ClaimVerdict::Reproduced if !c.prose_consistent => format!(
            "The measurement agrees with the chapter's table, but the prose says {} where the table gives {}.",
            number(c.stated),
            number(c.published)
        ),
        ClaimVerdict::Reproduced => "The measurement agrees with the chapter's claim.".into(),
        ClaimVerdict::NotReproduced => "The measurement contradicts the chapter's claim.".into(),
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
fn evidence_groups(e: &ClaimEvidence<'_>) -> (EvidenceGroups, Vec<NegativeFinding>) {
    let mut groups = EvidenceGroups::default();
    let mut negative = Vec::new();
    for c in e.claims {
        let item = evidence_item(c, e);
        let qualified = !c.quote_found || c.magnitude_differs.is_some() || !c.prose_consistent;
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
            ClaimVerdict::Unrun => groups.unresolved.push(item),
            ClaimVerdict::NotComparable => groups.qualifying.push(item),
            ClaimVerdict::Reproduced if qualified => groups.qualifying.push(item),
            ClaimVerdict::Reproduced => groups.supporting.push(item),
        }
    }
    (groups, negative)
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
    let (existing, negative) = match &inputs.evidence {
        Some(e) => evidence_groups(e),
        None => (EvidenceGroups::default(), Vec::new()),
    };
    let opportunities = match &inputs.evidence {
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
        evidence_relations: sections.existing_evidence.len(),
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
