//! The chapter's research record as the prompt and the report draft carry
//! it forward: the sources read so far (from chapter.yaml and the latest
//! research run's ledger, each marked by where it came from), the latest
//! run's findings and unverified leads, each run's one-line result, and the
//! latest experiment's verdicts said in words. The use-cases gather what
//! needs the project (report texts, prose changes); this file turns it into
//! the values the templates read.

use serde::Serialize;

use crate::bench::BenchRun;
use crate::chapter::Chapter;
use crate::chapter::manifest::Reference;
use crate::published::diff::ClaimResult;
use crate::published::in_words::{SpreadWords, figures, verdict_in_words};
use crate::published::verdict::ClaimVerdict;
use crate::records::report_items::{LedgerRow, ReportFindingKind, ReportItems};
use crate::records::status::{self, RunCurrency};
use crate::records::{Record, RunKind};

/// A source read so far, for section 3 of the prompt and the report's
/// ledger.
#[derive(Debug, Clone, Serialize)]
pub struct SourceView {
    pub title: String,
    pub authors: Vec<String>,
    pub year: Option<i64>,
    pub url: Option<String>,
    /// The URL, else `arXiv:<id>` or `DOI:<doi>`; empty when none.
    pub locator: String,
    /// How much of it was read, as the ledger says.
    pub reading: Option<String>,
    pub bears_on: Option<String>,
    pub limitations: Option<String>,
    /// Where it came from: `chapter.yaml`, or `the source ledger of research
    /// run <id>`.
    pub origin: String,
    /// The research run whose ledger holds it (None: from chapter.yaml).
    pub run_id: Option<String>,
    /// The ledger says it was reviewed and not used as evidence.
    pub not_used: bool,
}

impl SourceView {
    /// A reference listed in chapter.yaml.
    pub fn of_reference(r: &Reference) -> Self {
        SourceView {
            title: r.title.clone(),
            authors: r.authors.clone(),
            year: r.year.map(i64::from),
            url: r.url.as_deref().map(crate::text::redact::redact_url),
            locator: r
                .url
                .as_deref()
                .map(crate::text::redact::redact_url)
                .unwrap_or_default(),
            reading: None,
            bears_on: None,
            limitations: None,
            origin: "chapter.yaml".into(),
            run_id: None,
            not_used: false,
        }
    }

    /// A row of research run `run_id`'s source ledger.
    pub fn of_ledger(row: &LedgerRow, run_id: &str) -> Self {
        let url = row.url.as_deref().map(crate::text::redact::redact_url);
        let locator = url
            .clone()
            .or_else(|| row.arxiv.as_ref().map(|a| format!("arXiv:{a}")))
            .or_else(|| row.doi.as_ref().map(|d| format!("DOI:{d}")))
            .unwrap_or_default();
        // A partial list says so, for the next pass to complete.
        let mut authors = row.authors.clone();
        if row.authors_partial {
            authors.push("et al.".into());
        }
        SourceView {
            title: row.title.clone(),
            authors,
            year: row.year,
            url,
            locator,
            reading: row.status.clone(),
            bears_on: row.bears_on.clone(),
            limitations: row.limitations.clone(),
            origin: format!("the source ledger of research run {run_id}"),
            run_id: Some(run_id.to_string()),
            not_used: row.not_used(),
        }
    }
}

/// How many of the latest research run's ledger rows, and of its leads,
/// the prompt and the report draft carry: the first ones, and the count of
/// the rest ("and N more"). A recorded report holds at most 10,000 ledger
/// rows, and one stored by an older version any number; what the documents
/// carry stays a few hundred kilobytes whatever the record holds.
pub const CARRIED_ROWS: usize = 200;

/// Characters of a lead's claim the prompt shows (a longer one is cut and
/// ends in `...`).
pub const LEAD_CLAIM_CHARS: usize = 200;

/// Characters of a lead's marked text the prompt shows.
pub const LEAD_GAP_CHARS: usize = 1000;

/// `s` cut to `n` characters, with `...` when it was cut.
fn cut(s: &str, n: usize) -> String {
    let head = crate::text::format::prefix(s, n);
    if head.len() < s.len() {
        format!("{head}...")
    } else {
        s.to_string()
    }
}

/// The sources of chapter.yaml, then the first [`CARRIED_ROWS`] of the
/// latest research run's ledger (`latest`: its run id and items), and how
/// many more rows that ledger holds.
pub fn sources(ch: &Chapter, latest: Option<(&str, &ReportItems)>) -> (Vec<SourceView>, usize) {
    let mut out: Vec<SourceView> = ch
        .manifest
        .references
        .iter()
        .map(SourceView::of_reference)
        .collect();
    let mut more = 0;
    if let Some((run_id, items)) = latest {
        out.extend(
            items
                .sources
                .iter()
                .take(CARRIED_ROWS)
                .map(|r| SourceView::of_ledger(r, run_id)),
        );
        more = items.sources.len().saturating_sub(CARRIED_ROWS);
    }
    (out, more)
}

/// Something the latest research run marked UNVERIFIED, with its claim.
#[derive(Debug, Clone, Serialize)]
pub struct LeadView {
    pub claim: String,
    pub gap: String,
}

/// A finding of the latest research run.
#[derive(Debug, Clone, Serialize)]
pub struct FindingView {
    pub kind: &'static str,
    pub text: String,
}

/// The latest research run's findings, group by group (a group it says
/// holds nothing reads "none"); its first [`CARRIED_ROWS`] leads, each
/// once, the claim cut to [`LEAD_CLAIM_CHARS`] and the marked text to
/// [`LEAD_GAP_CHARS`]; and how many more leads it has.
pub fn findings_and_leads(items: &ReportItems) -> (Vec<FindingView>, Vec<LeadView>, usize) {
    let mut findings = Vec::new();
    for kind in ReportFindingKind::ALL {
        findings.extend(
            items
                .findings
                .iter()
                .filter(|f| f.kind == kind)
                .map(|f| FindingView {
                    kind: kind.name(),
                    text: f.text.clone(),
                }),
        );
        if items.findings_none.contains(&kind) {
            findings.push(FindingView {
                kind: kind.name(),
                text: "none".into(),
            });
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut leads: Vec<LeadView> = items
        .gaps
        .iter()
        .filter(|g| seen.insert((g.claim.as_str(), g.gap.as_str())))
        .map(|g| LeadView {
            claim: cut(&g.claim, LEAD_CLAIM_CHARS),
            gap: cut(&g.gap, LEAD_GAP_CHARS),
        })
        .collect();
    let more = leads.len().saturating_sub(CARRIED_ROWS);
    leads.truncate(CARRIED_ROWS);
    (findings, leads, more)
}

/// One run, as section 7 of the prompt lists it.
#[derive(Debug, Serialize)]
pub struct HistoryView {
    pub run_id: String,
    pub date: String,
    /// `research`, `experiment` or `notebook`.
    pub kind: String,
    /// What the run did to the revision: `examined revision` (research),
    /// `an experiment on revision`, `a notebook run on revision`.
    pub what: &'static str,
    pub revision: String,
    pub state: &'static str,
    /// For a withdrawn run: `RETRACTED on <date>: <reason>`.
    pub retracted: Option<String>,
    /// What it found, in one line.
    pub result: String,
    /// What changed in the prose since its revision, when it changed.
    pub changed_since: Option<String>,
}

/// A research run's result in one line: its sections, sources, findings and
/// marks; `items` when its report could be read.
pub fn run_result(record: &Record, items: Option<&ReportItems>) -> String {
    let Some(p) = &record.report else {
        return "no report recorded".into();
    };
    if p.draft {
        return "a draft, which does not count as research".into();
    }
    let mut parts = vec![if p.complete {
        "all seven sections".to_string()
    } else {
        format!("missing {}", p.check.sections_missing.join(", "))
    }];
    parts.push(match p.check.source_ledger_rows {
        1 => "1 source in its ledger".to_string(),
        n => format!("{n} sources in its ledger"),
    });
    if let Some(items) = items.filter(|i| !i.findings.is_empty() || !i.findings_none.is_empty()) {
        let count = |k: ReportFindingKind| items.findings.iter().filter(|f| f.kind == k).count();
        parts.push(format!(
            "findings: {}",
            ReportFindingKind::ALL
                .iter()
                .map(|k| format!("{} {}", count(*k), k.name().to_lowercase()))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    } else if items.is_some() {
        parts.push("no findings under the four group headings".to_string());
    }
    parts.push(format!(
        "{} UNVERIFIED, {} UNRUN",
        p.check.unverified_markers, p.check.unrun_markers
    ));
    parts.join("; ")
}

/// A run as section 7 lists it (a research run's result from its report's
/// `items`, another's from its record's summary).
pub fn history_view(
    ch: &Chapter,
    record: &Record,
    items: Option<&ReportItems>,
    changed_since: Option<String>,
) -> HistoryView {
    let fp = &record.revision.fingerprint;
    let (what, result) = match record.kind {
        crate::records::RunKind::Research => ("examined revision", run_result(record, items)),
        crate::records::RunKind::Experiment => (
            "an experiment on revision",
            record
                .experiment
                .as_ref()
                .map_or_else(|| "no run file recorded".into(), |e| e.summary.clone()),
        ),
        crate::records::RunKind::Notebook => (
            "a notebook run on revision",
            record
                .notebook
                .as_ref()
                .map_or_else(|| "no run file recorded".into(), |n| n.summary.clone()),
        ),
    };
    HistoryView {
        run_id: record.run_id.to_string(),
        date: record.recorded_at.format("%Y-%m-%d").to_string(),
        kind: record.kind.to_string(),
        what,
        revision: format!("{}:{}", fp.normalization, fp.short()),
        state: match status::currency(ch, record) {
            RunCurrency::Current => "the current revision",
            RunCurrency::Stale => "an older revision",
        },
        retracted: record.retraction.as_ref().map(|x| x.label()),
        result,
        changed_since,
    }
}

/// One claim's verdict in the latest experiment.
#[derive(Debug, Serialize)]
pub struct VerdictView {
    pub claim: String,
    /// The class alone.
    pub verdict: ClaimVerdict,
    /// The class with its flags.
    pub flagged: String,
    pub measured: Option<f64>,
    /// The verdict in words, with the measurement beside the chapter's.
    pub said: String,
    /// What the latest complete research run answered for this claim in its
    /// claim audit, with that run's id; None when it did not answer it.
    pub answered: Option<String>,
}

/// The latest experiment, for section 4 of the prompt.
#[derive(Debug, Serialize)]
pub struct EvidenceView {
    pub run_id: String,
    pub date: String,
    pub revision: String,
    pub stale: bool,
    pub summary: String,
    /// The engine that measured it, when its run file could be read.
    pub engine: Option<String>,
    pub verdicts: Vec<VerdictView>,
    /// Set when other processes disturbed the run: the record's mark.
    pub disturbed: Option<String>,
    /// Set when the run is an earlier measurement than today's (another
    /// engine model, a run before windows): which.
    pub earlier_measurement: Option<String>,
}

/// The experiment `record` for the prompt: its verdicts in words from the
/// comparison made now (`compared`: its run and claims), or from what the
/// record keeps when the run cannot be compared.
pub fn evidence_view(
    ch: &Chapter,
    record: &Record,
    compared: Option<(&BenchRun, &[ClaimResult])>,
) -> Option<EvidenceView> {
    let e = record
        .experiment
        .as_ref()
        .filter(|_| record.kind == RunKind::Experiment)?;
    let verdicts = match compared {
        Some((run, claims)) => claims
            .iter()
            .map(|c| VerdictView {
                claim: c.id.clone(),
                verdict: c.verdict,
                flagged: c.flagged().to_string(),
                measured: c.measured,
                said: format!(
                    "{}: {}",
                    c.id,
                    verdict_in_words(c, SpreadWords::of(c, run.settings.repeat), &run.evidence())
                ),
                answered: None,
            })
            .collect(),
        None => e
            .verdicts
            .iter()
            .map(|v| VerdictView {
                claim: v.claim.clone(),
                verdict: v.verdict.class,
                flagged: v.verdict.to_string(),
                measured: v.measured,
                said: format!(
                    "{}: {}{}",
                    v.claim,
                    v.verdict,
                    match (v.measured, v.ratio) {
                        (Some(m), Some(r)) => format!(
                            ": measured {}, {}x the chapter's value (the run file could not be compared again)",
                            figures(m),
                            figures(r)
                        ),
                        (Some(m), None) => format!(": measured {}", figures(m)),
                        _ => String::new(),
                    }
                ),
                answered: None,
            })
            .collect(),
    };
    Some(EvidenceView {
        run_id: record.run_id.to_string(),
        date: record.recorded_at.format("%Y-%m-%d").to_string(),
        revision: format!(
            "{}:{}",
            record.revision.fingerprint.normalization,
            record.revision.fingerprint.short()
        ),
        stale: status::currency(ch, record) == RunCurrency::Stale,
        summary: e.summary.clone(),
        engine: compared.map(|(run, _)| run.evidence()),
        verdicts,
        disturbed: status::disturbed_mark(record),
        earlier_measurement: e.earlier_measurement(),
    })
}

/// What the prompt carries forward from the chapter's research record.
#[derive(Debug, Default)]
pub struct Carried {
    /// chapter.yaml's references, then the latest research run's ledger
    /// (its first [`CARRIED_ROWS`] rows).
    pub sources: Vec<SourceView>,
    /// The ledger rows past the first [`CARRIED_ROWS`], not carried.
    pub more_sources: usize,
    /// The latest complete research run's findings and leads, and its id.
    pub findings: Vec<FindingView>,
    pub leads: Vec<LeadView>,
    /// The leads past the first [`CARRIED_ROWS`], not carried.
    pub more_leads: usize,
    /// The experiments it proposed and marked UNRUN.
    pub unrun: Vec<String>,
    pub latest_research: Option<String>,
    /// The runs section 7 lists, newest first: a bounded selection
    /// (`records::selection::PROMPT_HISTORY`).
    pub history: Vec<HistoryView>,
    /// The runs it leaves out, counted.
    pub history_left_out: crate::records::selection::LeftOut,
    /// Whether any research run is recorded.
    pub researched: bool,
    /// The latest experiment.
    pub evidence: Option<EvidenceView>,
}

/// A row of the report draft's source ledger: each cell as written.
#[derive(Debug, Clone, Serialize)]
pub struct LedgerCells {
    pub source: String,
    pub authors: String,
    pub year: String,
    pub url: String,
    pub reading: String,
    pub bears_on: String,
    pub limitations: String,
    pub verified: String,
}

/// Text that fits in a table cell: no `|`, one line.
fn cell(text: &str) -> String {
    text.replace('|', "/")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The report draft's ledger: each source read so far; a carried one is
/// marked for re-verification, which `record` makes the author do.
pub fn ledger_cells(sources: &[SourceView]) -> Vec<LedgerCells> {
    sources
        .iter()
        .map(|s| LedgerCells {
            source: cell(&s.title),
            authors: cell(&s.authors.join("; ")),
            year: s.year.map(|y| y.to_string()).unwrap_or_default(),
            url: cell(&s.locator),
            reading: cell(s.reading.as_deref().unwrap_or_default()),
            bears_on: cell(s.bears_on.as_deref().unwrap_or_default()),
            limitations: cell(s.limitations.as_deref().unwrap_or_default()),
            verified: match &s.run_id {
                Some(run) => format!(
                    "[[author: re-verify; carried from research run {run}{}]]",
                    s.reading
                        .as_deref()
                        .map(|r| format!(", where it was read: {}", cell(r)))
                        .unwrap_or_default()
                ),
                None => String::new(),
            },
        })
        .collect()
}
