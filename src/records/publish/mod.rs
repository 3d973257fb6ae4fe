//! The site data `publish` writes: the book site's research data for one
//! chapter, as YAML of schema `programmer.research.chapter.v1`, which the
//! book's own site (the hugo-bookkit theme) renders; the HTML site this
//! tool writes itself is `app::site`. The lists come from what the records
//! hold: the latest complete research report's source ledger, UNVERIFIED
//! marks, findings, proposals and UNRUN experiments, and the latest
//! experiment's claim verdicts and notebook run. Every count is the length of the list it
//! counts; before the first research run every list is empty.
//!
//! `schema` is the file's types, `evidence` the findings and verdicts as
//! evidence relations, `claim_text` what a card or a gap is about (and the
//! gaps, one per question), `sources` the sources with their stable ids and
//! the negative findings, `delta` what changed since the research run
//! before, `notebook` the notebook run as an evidence relation,
//! `notebook_claims` each notebook claim's verdict as one; this file
//! builds the whole.

mod claim_text;
mod delta;
mod evidence;
mod notebook;
mod notebook_claims;
pub mod schema;
mod sources;

use super::Record;
use super::report_items::{self, ReportItems};
use super::status::{self, ChapterStatus, ResearchState};
use crate::chapter::Chapter;
use crate::ids::RunId;
use evidence::{ReportEvidence, evidence_groups};
use schema::{
    Actions, Opportunity, Provenance, RecommendedAction, SITE_SCHEMA, Sections, SiteBook,
    SiteChapter, SiteChapterId, SiteResearch, StatusCard, Summary,
};

pub use claim_text::names_claim;
pub use evidence::{ClaimEvidence, measured_group};
pub use sources::RecordLinks;
use sources::run_label;

/// What `site_data` reads besides the records.
#[derive(Debug, Clone, Default)]
pub struct Inputs<'a> {
    /// The complete research reports (drafts do not count), newest first.
    /// The latest gives the items; the one before it the delta.
    pub reports: Vec<ReportText<'a>>,
    pub evidence: Option<ClaimEvidence<'a>>,
    /// The chapter's claims (claims.yaml): id and quoted sentence.
    pub claims: Vec<(String, String)>,
    /// The claims whose quoted sentence changed in the prose between the
    /// revisions the two latest complete reports examined.
    pub claims_touched: Vec<String>,
    /// Complete research runs older than `reports` whose ledgers were not
    /// read (a long history is read only so far back).
    pub ledgers_not_read: usize,
    /// Where a reader opens a run's record.
    pub links: RecordLinks,
    /// The chapter's notebook, when it has one.
    pub notebook: Option<super::notebook_status::NotebookStatus>,
    /// The chapter's notebook claims as their latest run decided them,
    /// when it has some.
    pub notebook_claims: Option<super::notebook_claims::NotebookClaimsEvidence>,
    /// How the prose changed since the latest research run examined it,
    /// in words ("14 words changed; claims touched: ..."), when it did: said
    /// with the stale reason.
    pub changed_since_research: Option<String>,
    /// The experiment that was the latest when the research run before
    /// the latest was recorded, for the delta (`evidence` again when it is
    /// the same run).
    pub evidence_before: Option<ClaimEvidence<'a>>,
    /// Whether the notebook's latest run was recorded by then.
    pub notebook_before: bool,
}

/// A research run's report.
#[derive(Debug, Clone)]
pub struct ReportText<'a> {
    pub run_id: RunId,
    /// The year it was recorded.
    pub year: i64,
    pub text: &'a str,
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
    let url = crate::text::redact::redact_url(url);
    let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
    rest.find('/')
        .map_or_else(|| "/".to_string(), |i| rest[i..].to_string())
}

/// The experiments the site lists as open: those the report marks UNRUN,
/// and the chapter's own experiment when it is not recorded for the
/// current revision.
fn opportunities(items: &ReportItems, run_id: &str, inputs: &Inputs<'_>) -> Vec<Opportunity> {
    let run_id = run_label(run_id);
    let mut out: Vec<Opportunity> = items
        .unrun
        .iter()
        .map(|x| Opportunity {
            description: x.description.clone(),
            reason: if x.details.is_empty() {
                format!("Proposed in research run {run_id}, and marked UNRUN there: not run yet.")
            } else {
                format!(
                    "{} (Proposed in research run {run_id}, marked UNRUN.)",
                    x.details
                )
            },
        })
        .collect();
    match &inputs.evidence {
        _ if inputs.claims.is_empty() => {}
        None => out.push(Opportunity {
            description: "Run the chapter's experiment (research_companion reproduce)".into(),
            reason: "No experiment is recorded for this chapter, so its claims are unchecked."
                .into(),
        }),
        Some(e) if !e.of_current_revision => out.push(Opportunity {
            description: "Re-run the chapter's experiment on the current revision (research_companion reproduce)".into(),
            reason: format!(
                "The latest experiment, {}, examined revision {}; the chapter has changed since.",
                run_label(&e.run_id),
                e.revision
            ),
        }),
        Some(_) => {}
    }
    out
}

/// The research items of a researched chapter: sources, gaps, evidence,
/// negative findings, open experiments and proposals; what of its report
/// could not become an item; and the delta from the run before, if any.
#[derive(Default)]
struct Researched {
    sections: Sections,
    sources: Vec<schema::Source>,
    negative: Vec<schema::NegativeFinding>,
    unparsed: Vec<String>,
    delta: Option<schema::Delta>,
}

/// The evidence relations of the report `at` (0 the latest) of `read`,
/// with `evidence` and, when `notebook`, the notebook's run.
fn relations(
    inputs: &Inputs<'_>,
    read: &[(&RunId, ReportItems)],
    at: usize,
    evidence: Option<&ClaimEvidence<'_>>,
    notebook: bool,
) -> (
    schema::EvidenceGroups,
    Vec<schema::Source>,
    Vec<schema::NegativeFinding>,
    Vec<Opportunity>,
) {
    let (Some((run, items)), Some(text)) = (read.get(at), inputs.reports.get(at)) else {
        return Default::default();
    };
    let run_id = run.to_string();
    let mut sources = sources::sources(read.get(at..).unwrap_or_default());
    if inputs.ledgers_not_read > 0 {
        let line = ledgers_not_read(inputs.ledgers_not_read, run);
        for s in &mut sources {
            s.provenance.push(line.clone());
        }
    }
    let url = inputs.links.record(run);
    let report = ReportEvidence {
        run_id: &run_id,
        url: url.as_deref(),
        year: text.year,
        items,
        sources: &sources,
        claims: &inputs.claims,
    };
    let mut groups = evidence_groups(evidence, &report);
    let negative = sources::negative_findings(items, &sources);
    let mut opportunities = opportunities(items, &run_id, inputs);
    if let (Some(n), true) = (&inputs.notebook, notebook) {
        notebook::add_notebook(n, &inputs.links, &mut groups, &mut opportunities);
    }
    if let (Some(nc), true) = (&inputs.notebook_claims, notebook) {
        notebook_claims::add_notebook_claims(nc, &inputs.links, &mut groups, &mut opportunities);
    }
    (groups, sources, negative, opportunities)
}

/// The provenance line for the ledgers of `n` older research runs that
/// were not read.
fn ledgers_not_read(n: usize, run: &RunId) -> String {
    format!(
        "the source {} of {} older research {} {} not read (research_companion history {} lists them)",
        if n == 1 { "ledger" } else { "ledgers" },
        crate::records::selection::grouped(n),
        if n == 1 { "run" } else { "runs" },
        if n == 1 { "was" } else { "were" },
        run.chapter
    )
}

fn research_items(inputs: &Inputs<'_>) -> Researched {
    let read: Vec<(&RunId, ReportItems)> = inputs
        .reports
        .iter()
        .map(|r| (&r.run_id, report_items::read(r.text)))
        .collect();
    let Some((_, items)) = read.first() else {
        return Researched::default();
    };
    let (groups, sources, negative, opportunities) =
        relations(inputs, &read, 0, inputs.evidence.as_ref(), true);
    let delta = read.get(1).map(|(_, before)| {
        let (before_groups, ..) = relations(
            inputs,
            &read,
            1,
            inputs.evidence_before.as_ref(),
            inputs.notebook_before,
        );
        let now = delta::Pass {
            items,
            groups: &groups,
        };
        let before = delta::Pass {
            items: before,
            groups: &before_groups,
        };
        delta::delta(now, before, &inputs.claims_touched)
    });
    let sections = Sections {
        existing_evidence: groups,
        missing_evidence: claim_text::missing_evidence(&items.gaps, &inputs.claims),
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
    Researched {
        sections,
        sources,
        negative,
        unparsed: items.unparsed.clone(),
        delta,
    }
}

/// Builds the site data from a chapter, its records (newest first) and
/// what `inputs` read for it. Before the first research run every list is
/// empty, as the site's example data has it: experiments alone are not
/// research.
pub fn site_data(chapter: &Chapter, records: &[Record], inputs: &Inputs<'_>) -> SiteData {
    let mut st: ChapterStatus = status::chapter_status(chapter, records);
    if let (Some(reason), Some(change)) =
        (st.stale_reasons.first_mut(), &inputs.changed_since_research)
    {
        reason.push_str(&format!("; {change}"));
    }
    // The CLI's stale reason names the run by its whole id; the theme
    // prints this one as it is, so it names the run as all prose here does.
    if let Some(run) = &st.run_id {
        let (id, label) = (run.to_string(), run.stem());
        for reason in &mut st.stale_reasons {
            *reason = reason.replace(&id, &label);
        }
    }
    let researched = st.state != ResearchState::NeverResearched;
    let run_id = st.run_id.as_ref().map(|r| r.to_string());
    let Researched {
        sections,
        sources,
        negative,
        unparsed,
        delta,
    } = if researched {
        research_items(inputs)
    } else {
        Researched::default()
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
    let gaps = sections.missing_evidence.clone();
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
