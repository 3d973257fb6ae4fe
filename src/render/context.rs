//! What the templates are given: everything the tool knows about a chapter,
//! its snapshot, its records and its claims, as plain serializable values.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::chapter::{Chapter, Scope};
use crate::published::diff::ClaimResult;
use crate::published::verdict::ClaimVerdict;
use crate::records::report::REQUIRED_SECTIONS;
use crate::records::status::{self, RunCurrency};
use crate::records::{Record, RunKind};
use crate::text::format::number;

use super::record_view::{
    Carried, EvidenceView, FindingView, HistoryView, LeadView, LedgerCells, SourceView,
};

/// What each required section asks for, in this project's words; the
/// headings themselves are the ones `record` checks.
const SECTION_ASKS: [&str; 7] = [
    "which chapter and which snapshot or revision you actually read, how much of it, today's date, and any limit of your tools or execution that shaped the result.",
    "a table with a row per claim: the claim and where it appears, the evidence today, your concern, its priority, and the response you propose.",
    "a table with a row per source: what it is, checked metadata, URL, how much you read (full text, abstract only, not accessible), the claim it bears on (\"none\" for a source you reviewed and did not use, with why in its limits), its limits, and when you checked and accessed it.",
    "the evidence that supports, qualifies or contradicts a claim, and what stays unresolved, each tied to the claim it concerns (by its id where it has one).",
    "the smallest concrete changes to the chapter you recommend, why, what they cost, and what other resources they touch.",
    "what should be tested, how, what would count as success or failure, and an explicit UNRUN wherever you did not run it.",
    "the decisions the author has to make, and for each proposal why you would accept, revise, defer or reject it.",
];

#[derive(Debug, Serialize)]
pub struct BookView {
    pub id: String,
    pub title: String,
}

#[derive(Debug, Serialize)]
pub struct ChapterView {
    pub id: String,
    /// Zero-padded, as the site prints it.
    pub number: String,
    pub title: String,
    pub stable_id: String,
    /// The addresses chapter.yaml gives; None when it gives none.
    pub url: Option<String>,
    pub research_pack_url: Option<String>,
    pub snapshot_url: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct SnapshotView {
    pub file: String,
    pub fingerprint: String,
    pub normalization: String,
    pub scope: String,
    pub is_excerpt: bool,
    /// Whether chapter.yaml gives a published fingerprint.
    pub published: bool,
    pub matches_published: bool,
    /// The text quoted (prompt only; empty in the report).
    pub text: String,
    pub truncated: bool,
    pub shown_chars: usize,
    pub total_chars: usize,
}

#[derive(Debug, Serialize)]
pub struct SectionView {
    pub heading: &'static str,
    pub asks: &'static str,
}

#[derive(Debug, Serialize)]
pub struct PromptContext {
    pub book: BookView,
    pub chapter: ChapterView,
    pub snapshot: SnapshotView,
    pub references: Vec<crate::chapter::manifest::Reference>,
    /// chapter.yaml's references, then the latest research run's ledger,
    /// each with where it came from.
    pub sources: Vec<SourceView>,
    /// Whether any source was carried from a research run.
    pub carried_sources: bool,
    /// The latest research run's ledger rows past those in `sources`.
    pub more_sources: usize,
    /// chapter.yaml's objective, or the general one when it states none.
    pub objective: String,
    pub objective_given: bool,
    pub questions: Vec<String>,
    pub materials: Vec<crate::chapter::manifest::Material>,
    /// The runs section 7 lists, newest first (a bounded selection).
    pub history: Vec<HistoryView>,
    /// The selection in words, and the runs it leaves out, counted
    /// (`9,713 more runs: ...`), when it leaves some out.
    pub history_selection: String,
    pub history_left_out: Option<String>,
    /// Whether any research run is recorded (retracted ones included).
    pub researched: bool,
    pub chapter_changed: bool,
    /// "312 words changed; claims touched: ...", when the chapter changed
    /// since the latest research run.
    pub changes_since_research: Option<String>,
    pub evidence: Option<EvidenceView>,
    /// The latest complete research run, its findings and its leads.
    pub latest_research: Option<String>,
    pub findings: Vec<FindingView>,
    pub leads: Vec<LeadView>,
    /// Its leads past those in `leads`.
    pub more_leads: usize,
    /// The experiments it proposed and left UNRUN.
    pub unrun: Vec<String>,
    pub required_sections: Vec<SectionView>,
    /// The chapter's notebook and its latest run (filled in by the caller
    /// that reads notebooks.yaml; none when the chapter has no notebook).
    pub notebook: Option<super::notebook_view::NotebookView>,
    /// The chapter's notebook claims as their latest run decided them
    /// (filled in by the caller).
    pub notebook_claims: Option<super::notebook_claims_view::NotebookClaimsView>,
    /// The numbers the text states that the notebook's latest run printed
    /// otherwise: unverified leads for section 4 (filled in by the caller).
    pub notebook_leads: Option<super::notebook_leads::NotebookLeads>,
}

/// The objective the prompt gives when chapter.yaml states none.
const GENERAL_OBJECTIVE: &str = "No research objective is stated in chapter.yaml for this chapter, so take the general one: decide whether the chapter still says what it should. Find the claims that later work has overtaken or that lack support, confirm what remains sound, and propose the smallest change the evidence justifies.";

/// A title as one line: a heading or an identity line it goes into cannot
/// be split by a line break (or any other control character) in
/// chapter.yaml, such as the one a YAML folded scalar ends with.
fn one_line(title: &str) -> String {
    title
        .split(|c: char| c.is_control() || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn book_and_chapter(ch: &Chapter) -> (BookView, ChapterView) {
    let m = &ch.manifest;
    let given = |u: &Option<String>| {
        u.as_deref()
            .filter(|u| !u.trim().is_empty())
            .map(crate::text::redact::redact_url)
    };
    (
        BookView {
            id: m.book.id.to_string(),
            title: one_line(&m.book.title),
        },
        ChapterView {
            id: m.chapter.id.to_string(),
            number: format!("{:02}", m.chapter.number),
            title: one_line(&m.chapter.title),
            stable_id: m.stable_id(),
            url: given(&m.chapter.url),
            research_pack_url: given(&m.chapter.research_pack_url),
            snapshot_url: given(&m.chapter.snapshot_url),
        },
    )
}

/// The first `limit` characters of `text`, carried on to the end of the word
/// they stop in; with whether anything was cut.
pub fn cut_at_word(text: &str, limit: usize) -> (&str, bool) {
    let Some((at, _)) = text.char_indices().nth(limit) else {
        return (text.trim_end(), false);
    };
    let end = text[at..]
        .find(char::is_whitespace)
        .map_or(text.len(), |i| at + i);
    let rest_is_blank = text[end..].trim().is_empty();
    (text[..end].trim_end(), !rest_is_blank)
}

fn snapshot_view(ch: &Chapter, text: &str, limit: usize) -> SnapshotView {
    let current = ch.state.current();
    let (shown, truncated) = cut_at_word(text, limit);
    SnapshotView {
        file: current.file.clone(),
        fingerprint: current.fingerprint.value.clone(),
        normalization: current.fingerprint.normalization.clone(),
        scope: current.scope.to_string(),
        is_excerpt: current.scope == Scope::Excerpt,
        published: ch.manifest.published_hex().is_some(),
        matches_published: ch.manifest.published_hex() == Some(current.fingerprint.value.as_str()),
        text: shown.to_string(),
        truncated,
        shown_chars: shown.chars().count(),
        total_chars: text.trim_end().chars().count(),
    }
}

/// The prompt's context. `records` newest first; `text` the current
/// snapshot's stored text; `carried` what the research record holds so far.
pub fn prompt(
    ch: &Chapter,
    text: &str,
    limit: usize,
    records: &[Record],
    carried: Carried,
) -> PromptContext {
    let (book, chapter) = book_and_chapter(ch);
    let chapter_changed = records
        .iter()
        .find(|r| r.kind == RunKind::Research)
        .is_some_and(|r| status::currency(ch, r) == RunCurrency::Stale);
    let objective = ch
        .manifest
        .research_objective
        .clone()
        .filter(|o| !o.trim().is_empty());
    PromptContext {
        book,
        chapter,
        snapshot: snapshot_view(ch, text, limit),
        references: ch.manifest.references.clone(),
        carried_sources: carried.sources.iter().any(|s| s.run_id.is_some()),
        sources: carried.sources,
        more_sources: carried.more_sources,
        objective_given: objective.is_some(),
        objective: objective.unwrap_or_else(|| GENERAL_OBJECTIVE.to_string()),
        questions: ch.manifest.research_questions.clone(),
        materials: ch.manifest.associated_material.clone(),
        history: carried.history,
        history_selection: history_selection(),
        history_left_out: carried.history_left_out.words(),
        researched: carried.researched,
        chapter_changed,
        changes_since_research: None,
        evidence: carried.evidence,
        latest_research: carried.latest_research,
        findings: carried.findings,
        leads: carried.leads,
        more_leads: carried.more_leads,
        unrun: carried.unrun,
        required_sections: REQUIRED_SECTIONS
            .iter()
            .zip(SECTION_ASKS)
            .map(|(heading, asks)| SectionView { heading, asks })
            .collect(),
        notebook: None,
        notebook_claims: None,
        notebook_leads: None,
    }
}

/// What section 7 keeps of a long history, in words.
fn history_selection() -> String {
    let l = crate::records::selection::PROMPT_HISTORY;
    format!(
        "the {} newest research runs, {} newest experiments and {} newest notebook runs, then runs of the current revision up to {} in all",
        l.research, l.experiments, l.notebook, l.cap
    )
}

#[derive(Debug, Serialize)]
pub struct ExperimentView {
    pub run_id: String,
    /// Which engine measured it: the real DataLoader or the model.
    pub evidence: String,
    pub summary: String,
    pub cpus: usize,
    pub worker_kind: String,
    pub os: String,
    pub kernel: String,
    pub cpu_model: String,
    pub env_id: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClaimView {
    pub id: String,
    pub quote: String,
    pub location: String,
    pub metric: String,
    pub verdict: String,
    pub run_id: Option<String>,
    pub measured: Option<f64>,
    pub criterion: String,
    pub reason: Option<String>,
    pub response: String,
    /// The response the latest complete research report gave the claim.
    pub previous_response: Option<String>,
    /// For proposals: the evidence in one sentence.
    pub evidence: String,
    /// When the evidence comes from another revision than the current one.
    pub stale: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct FindingGroup {
    pub name: &'static str,
    pub claims: Vec<ClaimView>,
}

#[derive(Debug, Serialize)]
pub struct OpportunityView {
    pub id: String,
    pub metric: String,
    pub criterion: String,
    pub status: String,
    pub run_id: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ReportContext {
    pub book: BookView,
    pub chapter: ChapterView,
    pub snapshot: SnapshotView,
    pub today: String,
    pub tool_version: String,
    pub sections: Vec<&'static str>,
    pub experiments: Vec<ExperimentView>,
    pub claims: Vec<ClaimView>,
    pub references: Vec<crate::chapter::manifest::Reference>,
    /// The source ledger pre-filled: chapter.yaml's references, then the
    /// sources carried from the latest research run, marked for
    /// re-verification.
    pub ledger: Vec<LedgerCells>,
    /// Whether the ledger holds sources carried from a research run.
    pub carried_sources: bool,
    /// The latest research run's ledger rows past those carried.
    pub more_ledger: usize,
    /// The latest complete research run, whose responses the claim audit
    /// shows beside the proposed ones.
    pub previous_run: Option<String>,
    pub findings: Vec<FindingGroup>,
    pub proposals: Vec<ClaimView>,
    pub opportunities: Vec<OpportunityView>,
    /// File name of the plot written beside the report.
    pub plot: Option<String>,
    /// With experiments from several environments: a line per claim.
    pub across_environments: Vec<String>,
    /// ... and each environment, `env-v2:... (N CPUs)`.
    pub environments: Vec<String>,
    /// The latest experiment of the other engine (the real DataLoader when
    /// the report's run is the model's, or the reverse), kept apart.
    pub other_engine: Option<OtherEngine>,
    /// The chapter's notebook and its latest run, for the experiment
    /// section (filled in by the caller).
    pub notebook: Option<super::notebook_view::NotebookView>,
    /// The chapter's notebook claims as their latest run decided them
    /// (filled in by the caller).
    pub notebook_claims: Option<super::notebook_claims_view::NotebookClaimsView>,
    /// The notebook's unverified leads, for the claim audit (filled in by
    /// the caller).
    pub notebook_leads: Option<super::notebook_leads::NotebookLeads>,
}

/// What a claim backed by `record` says when the record examined another
/// revision than the current one.
fn stale_note(ch: &Chapter, record: &Record) -> Option<String> {
    (record.revision.fingerprint != ch.state.current().fingerprint).then(|| {
        format!(
            "measured on revision {}, the chapter has changed since",
            record.revision.fingerprint.short()
        )
    })
}

/// Claim verdicts from the engine the report's own run did not use.
#[derive(Debug, Clone, Serialize)]
pub struct OtherEngine {
    pub evidence: String,
    pub run_id: String,
    pub claims: Vec<ClaimView>,
}

/// The verdicts of `claims`, measured by `run` (recorded as `record`), for
/// a report whose own evidence came from the other engine.
pub fn other_engine(
    ch: &Chapter,
    claims: &[ClaimResult],
    record: &Record,
    run: &crate::bench::BenchRun,
) -> OtherEngine {
    let run_id = record.run_id.to_string();
    let stale = stale_note(ch, record);
    OtherEngine {
        evidence: run.evidence(),
        claims: claims
            .iter()
            .map(|c| claim_view(c, Some(&run_id), stale.as_deref()))
            .collect(),
        run_id,
    }
}

fn claim_view(c: &ClaimResult, run_id: Option<&str>, stale: Option<&str>) -> ClaimView {
    let measured = c.measured.map(number).unwrap_or_else(|| "-".into());
    let response = match c.verdict {
        _ if !c.quote_found => format!(
            "find the sentence again: it is not in this revision{}",
            c.closest_sentence
                .as_ref()
                .map(|s| format!(" (closest: \"{s}\")"))
                .unwrap_or_default()
        ),
        ClaimVerdict::Reproduced if c.magnitude_differs.is_some() => format!(
            "qualify the size: the direction holds, but the measured value is x{} the published one",
            crate::published::verdict::short_ratio(c.magnitude_differs.unwrap_or(1.0))
        ),
        ClaimVerdict::Reproduced if c.magnitude_uncertain.is_some() => "keep the direction; run `research_companion reproduce` again on a quiet machine (more rounds narrow the interval) before relying on the size".to_string(),
        ClaimVerdict::Reproduced if c.prose_consistent => "keep".to_string(),
        ClaimVerdict::Reproduced => format!(
            "fix the prose: it says {}, its own table gives {}",
            number(c.stated),
            number(c.published)
        ),
        ClaimVerdict::NotReproduced => format!(
            "qualify or correct: measured {measured}, expected {}",
            c.criterion
        ),
        ClaimVerdict::NotComparable => {
            format!(
                "re-run under the chapter's conditions ({})",
                c.reason.clone().unwrap_or_default()
            )
        }
        ClaimVerdict::Inconclusive => format!(
            "nothing to change yet: the measurement could not decide ({}); run `research_companion reproduce` again on a quiet machine",
            c.reason.clone().unwrap_or_default()
        ),
        ClaimVerdict::Unrun => "run `research_companion reproduce` and record it".to_string(),
    };
    // The model's wait and work in this row hang on the scheduler's slice:
    // say where the stronger evidence comes from.
    let response = match (&c.model_limit, c.verdict) {
        (Some(_), ClaimVerdict::Reproduced | ClaimVerdict::NotReproduced) => format!(
            "{response}; before relying on the size, check it with a run on the pytorch engine (the real DataLoader)"
        ),
        _ => response,
    };
    let response = match (&c.start_in_window, c.verdict) {
        (Some(_), ClaimVerdict::Reproduced | ClaimVerdict::NotReproduced) => format!(
            "{response}; the window is largely the workers' start, so before reading the size as the chapter's, run it again with more batches per configuration"
        ),
        _ => response,
    };
    let mut evidence = format!(
        "{} in {}: measured {measured} against {} (the chapter's own tables give {})",
        c.flagged(),
        run_id.unwrap_or("no recorded run"),
        c.criterion,
        number(c.published)
    );
    if let Some(stale) = stale.filter(|_| c.verdict != ClaimVerdict::Unrun) {
        evidence.push_str(&format!("; {stale}"));
    }
    ClaimView {
        id: c.id.clone(),
        quote: c.quote.clone(),
        location: c.location.clone(),
        metric: c.metric.clone(),
        verdict: c.flagged().to_string(),
        run_id: run_id
            .filter(|_| c.verdict != ClaimVerdict::Unrun)
            .map(str::to_string),
        measured: c.measured,
        criterion: c.criterion.clone(),
        reason: c.reason.clone(),
        response,
        previous_response: None,
        evidence,
        stale: stale
            .filter(|_| c.verdict != ClaimVerdict::Unrun)
            .map(str::to_string),
    }
}

/// The report's context. `claims` are the verdicts against `experiment`
/// (all UNRUN when there is none).
pub fn report(
    ch: &Chapter,
    claims: &[ClaimResult],
    experiment: Option<(&Record, &crate::bench::BenchRun)>,
    now: DateTime<Utc>,
    plot: Option<String>,
) -> ReportContext {
    let (book, chapter) = book_and_chapter(ch);
    let run_id = experiment.map(|(r, _)| r.run_id.to_string());
    // Evidence from another revision says so beside every claim it backs.
    let stale = experiment.and_then(|(r, _)| stale_note(ch, r));
    let views: Vec<ClaimView> = claims
        .iter()
        .map(|c| claim_view(c, run_id.as_deref(), stale.as_deref()))
        .collect();
    let group = |name: &'static str, keep: &dyn Fn(&ClaimResult) -> bool| FindingGroup {
        name,
        claims: claims
            .iter()
            .zip(&views)
            .filter(|(c, _)| keep(c))
            .map(|(_, v)| v.clone())
            .collect(),
    };
    let findings = vec![
        group("Supporting", &|c| {
            c.verdict == ClaimVerdict::Reproduced
                && c.prose_consistent
                && c.magnitude_differs.is_none()
                && c.magnitude_uncertain.is_none()
                && c.quote_found
        }),
        group("Qualifying", &|c| {
            (c.verdict == ClaimVerdict::Reproduced
                && (!c.prose_consistent
                    || c.magnitude_differs.is_some()
                    || c.magnitude_uncertain.is_some()))
                || c.verdict == ClaimVerdict::NotComparable
                || !c.quote_found
        }),
        // Where the draft's own response asks for another run before the
        // size is read as the chapter's (a window mostly the workers'
        // start), the claim is unresolved, not contradicted.
        group("Contradictory", &|c| {
            c.verdict == ClaimVerdict::NotReproduced && c.start_in_window.is_none()
        }),
        // A claim the measurement could not decide is not contradicted.
        group("Unresolved", &|c| {
            matches!(c.verdict, ClaimVerdict::Unrun | ClaimVerdict::Inconclusive)
                || (c.verdict == ClaimVerdict::NotReproduced && c.start_in_window.is_some())
        }),
    ];
    let proposals = claims
        .iter()
        .zip(&views)
        .filter(|(c, _)| {
            c.verdict == ClaimVerdict::NotReproduced
                || (c.verdict == ClaimVerdict::Reproduced && !c.prose_consistent)
        })
        .map(|(_, v)| v.clone())
        .collect();
    let opportunities = views
        .iter()
        .map(|v| OpportunityView {
            id: v.id.clone(),
            metric: v.metric.clone(),
            criterion: v.criterion.clone(),
            status: v.verdict.clone(),
            run_id: v.run_id.clone(),
        })
        .collect();
    let experiments = experiment
        .map(|(r, run)| {
            let e = &run.environment.identity;
            vec![ExperimentView {
                run_id: r.run_id.to_string(),
                evidence: run.evidence(),
                summary: r
                    .experiment
                    .as_ref()
                    .map(|x| x.summary.clone())
                    .unwrap_or_default(),
                cpus: run.cpus_used.len(),
                worker_kind: run.settings.worker_kind.to_string(),
                os: e.os_name.clone(),
                kernel: e.kernel.clone(),
                cpu_model: e.cpu_model.clone(),
                env_id: crate::env::short_id(&run.environment.env_id),
            }]
        })
        .unwrap_or_default();
    let mut snapshot = snapshot_view(ch, "", 0);
    snapshot.text.clear();
    ReportContext {
        book,
        chapter,
        snapshot,
        today: now.format("%Y-%m-%d").to_string(),
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        sections: REQUIRED_SECTIONS.to_vec(),
        experiments,
        claims: views,
        references: ch.manifest.references.clone(),
        ledger: super::record_view::ledger_cells(
            &ch.manifest
                .references
                .iter()
                .map(SourceView::of_reference)
                .collect::<Vec<_>>(),
        ),
        carried_sources: false,
        more_ledger: 0,
        previous_run: None,
        findings,
        proposals,
        opportunities,
        plot,
        across_environments: Vec::new(),
        environments: Vec::new(),
        other_engine: None,
        notebook: None,
        notebook_claims: None,
        notebook_leads: None,
    }
}

#[cfg(test)]
mod tests {
    use super::cut_at_word;

    #[test]
    fn cuts_after_the_limit_at_the_end_of_a_word() {
        assert_eq!(cut_at_word("alpha beta gamma", 7), ("alpha beta", true));
        assert_eq!(cut_at_word("alpha beta gamma", 5), ("alpha", true));
        assert_eq!(cut_at_word("alpha beta", 100), ("alpha beta", false));
        assert_eq!(cut_at_word("alpha beta  \n", 10), ("alpha beta", false));
        assert_eq!(cut_at_word("héllo wörld", 2), ("héllo", true));
    }
}
