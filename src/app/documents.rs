//! The documents a chapter's research goes through: the research prompt
//! handed to an assistant, and the review report draft with its plot. Both
//! are rendered from templates; neither is written anywhere here.

use chrono::{DateTime, Utc};

use super::runs::{self, RecordedRun};
use super::{Project, diff, research_record};
use crate::chapter::Chapter;
use crate::error::Result;
use crate::ids::RunId;
use crate::records::store::BrokenRecord;
use crate::render::{PROMPT_TEMPLATE, REPORT_TEMPLATE, Templates, context, record_view};

/// A rendered prompt, and the records that could not be read for it.
#[derive(Debug)]
pub struct Prompt {
    pub text: String,
    /// What the template was given.
    pub context: serde_json::Value,
    pub skipped: Vec<BrokenRecord>,
    /// Reports of research runs that could not be read, one line each.
    pub unreadable: Vec<String>,
}

/// The research prompt for a chapter, quoting up to `excerpt_chars` of its
/// current snapshot.
pub fn prompt(
    project: &Project,
    chapter: &Chapter,
    templates: &Templates,
    excerpt_chars: usize,
) -> Result<Prompt> {
    let (all, skipped) = project.records_with_retracted(chapter)?;
    prompt_from(project, chapter, templates, excerpt_chars, &all, skipped)
}

/// [`prompt`] from records read already (`all`: every record, newest
/// first, retracted ones included), as `site` has them. Only the evidence
/// the prompt shows is read: the reports of the research runs its history
/// lists and of the latest complete one, the latest experiment's run file,
/// the latest notebook run's; the other runs are told from their records.
pub fn prompt_from(
    project: &Project,
    chapter: &Chapter,
    templates: &Templates,
    excerpt_chars: usize,
    all: &[crate::records::Record],
    skipped: Vec<BrokenRecord>,
) -> Result<Prompt> {
    let path = project
        .layout()
        .snapshot_file(&chapter.key, &chapter.state.current_snapshot);
    let text = crate::text::owned::read_owned(&path, &project.layout().snapshots_root())?;
    // Quote only the text the manifest vouches for.
    let current = chapter.state.current();
    let found = crate::chapter::normalize::fingerprint_str(&text)
        .map_err(|e| crate::chapter::normalize_error(&path, e))?;
    if found != current.fingerprint.value {
        return Err(crate::error::Error::invalid(
            &path,
            format!(
                "does not match its fingerprint in chapter.yaml ({} found, {} recorded); run `verify`",
                crate::text::format::prefix(&found, 12),
                current.fingerprint.short()
            ),
        ));
    }
    // The runs section 7 lists: their reports are read, and their run
    // files checked; the rest of a long history is only counted.
    let (listed, _) =
        crate::records::selection::select(chapter, all, crate::records::selection::PROMPT_HISTORY);
    let listed_research: Vec<&crate::ids::RunId> = listed
        .iter()
        .filter(|r| r.kind == crate::records::RunKind::Research)
        .map(|r| &r.run_id)
        .collect();
    let research = research_record::read(
        project,
        all,
        research_record::ReportsToRead {
            listed: &listed_research,
            complete: 1,
        },
    );
    let mut unreadable = research.unreadable.clone();
    // A run file or notebook run file that no longer matches its record is
    // not read: the prompt falls back on what the record itself holds, and
    // says so. (Reports are in `research.unreadable` already.)
    let unreported: Vec<crate::records::Record> = listed
        .iter()
        .filter(|r| r.retraction.is_none() && r.report.is_none())
        .map(|r| (*r).clone())
        .collect();
    unreadable.extend(
        crate::records::store::evidence_problems(project.layout(), &unreported)
            .into_iter()
            .map(|e| format!("the evidence file: {e}; the prompt uses only what its record holds")),
    );
    // The live runs: a retracted run is neither evidence nor research.
    let records = all;
    let mut carried = carried(project, chapter, records, &research);
    // The history lists retracted runs, marked: it is made from them all.
    (carried.history, carried.history_left_out) =
        research_record::history(project, chapter, all, &research);
    carried.researched = all
        .iter()
        .any(|r| r.kind == crate::records::RunKind::Research);
    let mut view = context::prompt(chapter, &text, excerpt_chars, all, carried);
    view.changes_since_research =
        super::changes::since_research(project, chapter, records).map(|c| c.summary());
    view.notebook = notebook(project, chapter, records, PROMPT_CELL_CHARS)?;
    view.notebook_claims = notebook_claims(project, chapter, records)?;
    view.notebook_leads = super::notebook::claims_check::leads(project, chapter);
    crate::render::notebook_view::notes_after_run(
        chapter,
        &mut view.materials,
        view.notebook.as_ref(),
    );
    Ok(Prompt {
        text: templates.render(PROMPT_TEMPLATE, &view)?,
        context: serde_json::to_value(&view)
            .map_err(|e| crate::error::Error::Other(format!("cannot write JSON: {e}")))?,
        skipped,
        unreadable,
    })
}

/// What the prompt carries forward from the research record: sources,
/// findings, leads, history, and the latest experiment compared again (its
/// verdicts from what the record keeps when its run cannot be read).
fn carried(
    project: &Project,
    chapter: &Chapter,
    records: &[crate::records::Record],
    research: &research_record::ResearchRecord,
) -> record_view::Carried {
    let latest = research.latest();
    let (findings, leads, more_leads) = latest
        .map(|(_, items)| record_view::findings_and_leads(items))
        .unwrap_or_default();
    let latest_id = latest.map(|(r, _)| r.record.run_id.to_string());
    let (sources, more_sources) = record_view::sources(
        chapter,
        latest_id.as_deref().zip(latest.map(|(_, items)| items)),
    );
    let evidence = crate::records::latest_evidence(records).and_then(|r| {
        let compared = runs::experiment(project, r.clone())
            .and_then(|e| diff::diff_recorded(project, chapter, &e).map(|d| (e.run, d.diff.claims)))
            .ok();
        record_view::evidence_view(
            chapter,
            r,
            compared
                .as_ref()
                .map(|(run, claims)| (run, claims.as_slice())),
        )
    });
    // The author's answer travels with the measurement it answered.
    let evidence = evidence.map(|mut view| {
        if let Some((run, items)) = latest {
            for v in &mut view.verdicts {
                v.answered = items
                    .response_to(&v.claim)
                    .map(|r| format!("{r} (research run {})", run.record.run_id));
            }
        }
        view
    });
    record_view::Carried {
        sources,
        more_sources,
        findings,
        leads,
        more_leads,
        unrun: latest
            .map(|(_, items)| {
                items
                    .unrun
                    .iter()
                    .map(|x| {
                        format!("{} {}", x.description, x.details)
                            .trim()
                            .to_string()
                    })
                    .collect()
            })
            .unwrap_or_default(),
        latest_research: latest_id,
        evidence,
        ..Default::default()
    }
}

/// Pre-fills the report draft from the latest complete research run: its
/// sources in the ledger, marked for re-verification, and its responses in
/// the claim audit beside the proposed ones.
fn carry_into_report(
    view: &mut context::ReportContext,
    chapter: &Chapter,
    research: &research_record::ResearchRecord,
) {
    let Some((run, items)) = research.latest() else {
        return;
    };
    let run_id = run.record.run_id.to_string();
    let (sources, more) = record_view::sources(chapter, Some((&run_id, items)));
    view.carried_sources = sources.iter().any(|s| s.run_id.is_some());
    view.ledger = record_view::ledger_cells(&sources);
    view.more_ledger = more;
    for claim in &mut view.claims {
        claim.previous_response = items.response_to(&claim.id).map(str::to_string);
    }
    // The column only when the previous audit answers one of these claims.
    if view.claims.iter().any(|c| c.previous_response.is_some()) {
        view.previous_run = Some(run_id);
    }
}

/// The chapter's notebook claims as their latest run decided them, for a
/// template. `records`: the live ones, newest first.
fn notebook_claims(
    project: &Project,
    chapter: &Chapter,
    records: &[crate::records::Record],
) -> Result<Option<crate::render::notebook_claims_view::NotebookClaimsView>> {
    Ok(
        super::claims::notebook_claims_evidence(project, chapter, records)?
            .as_ref()
            .map(crate::render::notebook_claims_view::notebook_claims_view),
    )
}

/// The claim audit's rows for the chapter's notebook claims: each claim
/// the run decided, its verdict with its source (`INCONCLUSIVE (notebook
/// cell flaky)`), the value printed, and what makes the run not of the
/// chapter as it is now, beside it.
fn notebook_claim_rows(
    view: &crate::render::notebook_claims_view::NotebookClaimsView,
    e: &crate::records::notebook_claims::NotebookClaimsEvidence,
) -> Vec<crate::render::context::ClaimView> {
    let stale = view.stale.clone();
    let measured = |id: &str| {
        e.run
            .iter()
            .flat_map(|r| &r.claims)
            .find(|c| c.claim == id)
            .and_then(|c| c.measured)
    };
    view.claims
        .iter()
        .map(|c| crate::render::context::ClaimView {
            id: c.id.clone(),
            quote: c.quote.clone(),
            location: c.location.clone(),
            metric: String::new(),
            verdict: format!("{} ({})", c.verdict, c.source),
            run_id: view.run_id.clone(),
            measured: measured(&c.id),
            criterion: c.criterion.clone(),
            reason: c.reason.clone(),
            response: c.response.clone(),
            previous_response: None,
            evidence: c.in_words.clone(),
            stale: stale.clone(),
        })
        .collect()
}

/// Characters of each notebook cell's output the prompt quotes.
const PROMPT_CELL_CHARS: usize = 2000;

/// The chapter's notebook with its latest run, each cell's output cut to
/// `cell_chars`; None when it has none.
fn notebook(
    project: &Project,
    chapter: &Chapter,
    records: &[crate::records::Record],
    cell_chars: usize,
) -> Result<Option<crate::render::notebook_view::NotebookView>> {
    let Some(status) = super::notebook::status(project, chapter, records)? else {
        return Ok(None);
    };
    let stored = crate::notebook::store::load(project.layout(), &chapter.key)?;
    let fingerprint = stored.map(|s| s.current().fingerprint.to_string());
    let latest = super::notebook::latest_run(project, records);
    Ok(Some(crate::render::notebook_view::notebook_view(
        &status,
        fingerprint,
        latest.as_ref().map(|(r, f)| (r, f)),
        cell_chars,
    )))
}

/// A rendered report, and its plot (an SVG) when one was asked for and there
/// is a run to draw.
#[derive(Debug)]
pub struct Report {
    pub text: String,
    /// What the template was given.
    pub context: serde_json::Value,
    pub plot: Option<Plot>,
    /// Records that could not be read, so the draft is made without them.
    pub skipped: Vec<BrokenRecord>,
}

/// The plot that goes beside a report.
#[derive(Debug)]
pub struct Plot {
    /// The file name the report links to.
    pub name: String,
    pub svg: String,
}

/// The chapter's latest experiment measured by the other engine than
/// `run`'s, with its claims compared, so the report can show it apart.
fn other_engine(
    project: &Project,
    chapter: &Chapter,
    records: &[crate::records::Record],
    run: &crate::bench::BenchRun,
) -> Option<context::OtherEngine> {
    let is_pytorch = run.reference.is_some();
    for record in records.iter().filter(|r| r.is_evidence()) {
        // A record that cannot be read back is skipped here: the report is
        // about its own run, and `history` shows what is broken.
        let Ok(other) = runs::experiment(project, record.clone()) else {
            continue;
        };
        if other.run.reference.is_some() != is_pytorch {
            let Ok(c) = diff::diff_recorded(project, chapter, &other) else {
                continue;
            };
            return Some(context::other_engine(
                chapter,
                &c.diff.claims,
                &other.record,
                &other.run,
            ));
        }
    }
    None
}

/// The review report draft for a chapter: its claims' verdicts from the
/// experiment `run` (default: the latest recorded), compared with the
/// revision that run examined. `plot_name`, when given, is the file name the
/// report links its plot under.
pub fn report(
    project: &Project,
    chapter: &Chapter,
    templates: &Templates,
    run: Option<&str>,
    now: DateTime<Utc>,
    plot_name: Option<String>,
) -> Result<Report> {
    let record = match run {
        Some(text) => Some(runs::recorded(project, chapter, &RunId::parse(text)?)?),
        None => runs::latest_evidence(project, chapter)?,
    };
    let experiment: Option<RecordedRun> = match record {
        Some(r) => Some(runs::experiment(project, r)?),
        None => None,
    };
    let (claims, tables) = match &experiment {
        Some(e) => {
            let c = diff::diff_recorded(project, chapter, e)?;
            (c.diff.claims, c.tables)
        }
        None => diff::unrun_claims(
            project,
            chapter,
            &chapter.state.current_snapshot,
            "no experiment run is recorded",
        )?,
    };
    let plot = match (plot_name, &experiment) {
        (Some(name), Some(e)) if !tables.is_empty() => Some(Plot {
            name,
            svg: crate::published::plot::svg(&tables, &e.run)?,
        }),
        _ => None,
    };
    let mut view = context::report(
        chapter,
        &claims,
        experiment.as_ref().map(|e| (&e.record, &e.run)),
        now,
        plot.as_ref().map(|p| p.name.clone()),
    );
    let (records, skipped) = project.records(chapter)?;
    // The chapter's notebook claims join the claim audit, each row naming
    // its source; they enter neither the findings nor the proposals.
    if let Some(e) = super::claims::notebook_claims_evidence(project, chapter, &records)? {
        let nc = crate::render::notebook_claims_view::notebook_claims_view(&e);
        view.claims.extend(notebook_claim_rows(&nc, &e));
        view.notebook_claims = Some(nc);
    }
    carry_into_report(
        &mut view,
        chapter,
        &research_record::read(project, &records, research_record::ReportsToRead::LATEST),
    );
    if let Some(e) = &experiment {
        view.other_engine = other_engine(project, chapter, &records, &e.run);
    }
    view.notebook = notebook(project, chapter, &records, 0)?;
    view.notebook_leads = super::notebook::claims_check::leads(project, chapter);
    // Only runs of today's measurement are held against each other.
    let (envs, _) = crate::records::status::by_measurement(&records);
    if envs.len() > 1 {
        view.environments = envs.iter().map(|e| e.label()).collect();
        view.across_environments = crate::records::status::across_environments(&envs)
            .into_iter()
            .map(|c| format!("{}: {}", c.claim, c.summary))
            .collect();
    }
    Ok(Report {
        text: templates.render(REPORT_TEMPLATE, &view)?,
        context: serde_json::to_value(&view)
            .map_err(|e| crate::error::Error::Other(format!("cannot write JSON: {e}")))?,
        plot,
        skipped,
    })
}
