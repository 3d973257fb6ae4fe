//! The site data's schema, `programmer.research.chapter.v1`, field by field
//! as the book's site reads it: every type that the YAML file is made of.
//! `super` fills them in.

use serde::Serialize;

use crate::records::status::ResearchState;

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

/// What changed since the previous research run (docs/formats.md, "Site data", gives each count).
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

/// One of the groups the site shows evidence in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvidenceGroup {
    Supporting,
    Qualifying,
    Competing,
    Contradictory,
    Background,
    Unresolved,
}

impl EvidenceGroups {
    /// Adds `item` to `group`.
    pub fn push(&mut self, group: EvidenceGroup, item: EvidenceItem) {
        match group {
            EvidenceGroup::Supporting => self.supporting.push(item),
            EvidenceGroup::Qualifying => self.qualifying.push(item),
            EvidenceGroup::Competing => self.competing.push(item),
            EvidenceGroup::Contradictory => self.contradictory.push(item),
            EvidenceGroup::Background => self.background.push(item),
            EvidenceGroup::Unresolved => self.unresolved.push(item),
        }
    }

    /// How many evidence relations there are, in every group.
    pub fn relations(&self) -> usize {
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

/// A source's identifiers; only those it has are written, so a source
/// with none has `identifiers: {}`, as the theme's example data writes it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Identifiers {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
}

/// A source of the latest research run's ledger. `id` stays the same from
/// run to run (`records::source_id`).
#[derive(Debug, Clone, Serialize)]
pub struct Source {
    pub id: String,
    pub title: String,
    pub authors: Vec<String>,
    pub year: Option<i64>,
    pub venue: Option<String>,
    pub status: Option<String>,
    pub url: Option<String>,
    pub identifiers: Identifiers,
    /// Each research run whose ledger holds it, newest first.
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
