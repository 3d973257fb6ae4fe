//! `history` and `status`: the records read back, chapter by chapter: each
//! one's runs, and its research state in the site's vocabulary.

use serde::Serialize;

use super::Project;
use crate::chapter::Chapter;
use crate::error::Result;

use crate::records::status::{self, ChapterStatus, HistoryEntry};

/// One chapter's runs, newest first.
#[derive(Debug, Clone, Serialize)]
pub struct ChapterHistory {
    pub chapter: String,
    #[serde(skip)]
    pub title: String,
    pub runs: Vec<HistoryEntry>,
}

/// Each chapter a query names (all when none) with its records read, and
/// the record files that would not parse.
fn each_chapter<T>(
    project: &Project,
    query: Option<&str>,
    with_retracted: bool,
    mut view: impl FnMut(&Chapter, &[crate::records::Record]) -> T,
) -> Result<Overview<T>> {
    let (chapters, broken_chapters) = project.chapters_or_all(query)?;
    let mut all = Vec::new();
    let mut problems = broken_chapters;
    for ch in chapters {
        let (records, bad) = if with_retracted {
            project.records_with_retracted(&ch)?
        } else {
            project.records(&ch)?
        };
        problems.extend(
            bad.iter()
                .map(|b| format!("unreadable record: {}", b.error)),
        );
        problems.extend(evidence_problems(project, &records));
        all.push(view(&ch, &records));
    }
    Ok(Overview {
        chapters: all,
        problems,
    })
}

/// The records whose evidence files cannot be read or no longer have the
/// sha256 their record holds, one line each naming the file.
pub fn evidence_problems(project: &Project, records: &[crate::records::Record]) -> Vec<String> {
    crate::records::store::evidence_problems(project.layout(), records)
        .into_iter()
        .map(|e| format!("unreadable evidence: {e}"))
        .collect()
}

/// One view per chapter, and what could not be read (broken chapters,
/// unreadable records), one line each.
#[derive(Debug)]
pub struct Overview<T> {
    pub chapters: Vec<T>,
    pub problems: Vec<String>,
}

/// The history of the chapters a query names (all when none), and the
/// record files that would not parse.
pub fn history(project: &Project, query: Option<&str>) -> Result<Overview<ChapterHistory>> {
    // A history lists retracted runs too, marked; each notebook run with
    // the notebook it used, as notebooks.yaml says where it came from.
    let mut unreadable = Vec::new();
    let mut overview = each_chapter(project, query, true, |ch, records| {
        let stored = match crate::notebook::store::load(project.layout(), &ch.key) {
            Ok(s) => s,
            Err(e) => {
                unreadable.push(format!("{}: {e}", ch.key));
                None
            }
        };
        let declared = match super::claims::declared_notebook_claims(project, ch) {
            Ok(d) => Some(d),
            Err(e) => {
                unreadable.push(format!("{}: {e}", ch.key));
                None
            }
        };
        ChapterHistory {
            chapter: ch.key_str(),
            title: ch.manifest.chapter.title.clone(),
            runs: status::history(ch, records, stored.as_ref(), declared.as_deref()),
        }
    })?;
    overview.problems.extend(unreadable);
    Ok(overview)
}

/// The research state of the chapters a query names (all when none), and
/// the record files that would not parse.
pub fn status(project: &Project, query: Option<&str>) -> Result<Overview<ChapterStatus>> {
    let mut unreadable = Vec::new();
    let mut overview = each_chapter(project, query, false, |ch, records| {
        let mut s = status::chapter_status(ch, records);
        s.changed_since_research =
            super::changes::since_research(project, ch, records).map(|c| c.summary());
        if let Some(latest) = &mut s.latest_experiment
            && let Some(record) = records.iter().find(|r| r.run_id == latest.run_id)
            && let Ok(recorded) = super::runs::experiment(project, record.clone())
        {
            latest.departs = departures(&recorded.run);
        }
        match super::notebook::status(project, ch, records) {
            Ok(n) => s.notebook = n,
            Err(e) => unreadable.push(format!("{}: {e}", ch.key)),
        }
        match super::claims::notebook_claims_evidence(project, ch, records) {
            Ok(n) => s.notebook_claims = n,
            Err(e) => unreadable.push(format!("{}: {e}", ch.key)),
        }
        s
    })?;
    overview.problems.extend(unreadable);
    Ok(overview)
}

/// How a recorded run's settings depart from what `reproduce` measures
/// today in ways its verdicts may rest on, one phrase each: a whole-run
/// window, another engine model, fewer measured steps, the Python costs
/// scaled (or calibrated to PyTorch's; not where the run's workers spend
/// none), or the real DataLoader measuring instead of the engine.
pub fn departures(run: &crate::bench::BenchRun) -> Vec<String> {
    let defaults = crate::bench::Settings::chapter_defaults();
    let s = &run.settings;
    let mut out = Vec::new();
    if s.window == crate::bench::WindowKind::WholeRun {
        out.push(
            "a whole-run window (ex/s from the loader's creation, the workers' start inside), not the steady state reproduce measures"
                .to_string(),
        );
    }
    if run.reference.is_none()
        && run.engine_model.as_deref() != Some(crate::bench::calibration::ENGINE_MODEL)
    {
        out.push(format!(
            "{}, not today's ({})",
            run.engine_model.as_deref().map_or(
                "an unnamed engine model (an older run file)".to_string(),
                |m| format!("engine model {m}")
            ),
            crate::bench::calibration::ENGINE_MODEL
        ));
    }
    let fewest = super::reproduce::BATCHES_PER_ROUND;
    if s.batches < fewest {
        out.push(format!(
            "{} measured steps a configuration, fewer than reproduce's {fewest}: wider intervals",
            s.batches
        ));
    }
    if let Some(reference) = &run.reference {
        out.push(format!(
            "measured by the {reference}, not the embedded engine"
        ));
    } else if let Some(factor) = run.calibrated_to_pytorch {
        out.push(format!(
            "the engine's Python costs at x{}, calibrated to PyTorch's Python on that machine",
            crate::text::format::setting(factor)
        ));
    } else if !s.model_knobs_not_run().contains(&"python_cost_scale")
        && (s.python_cost_scale - defaults.python_cost_scale).abs() > 1e-9
    {
        out.push(format!(
            "the engine's Python costs at x{}, not the default (x{})",
            crate::text::format::setting(s.python_cost_scale),
            crate::text::format::setting(defaults.python_cost_scale)
        ));
    }
    out
}

/// The chapter's research runs that examined another revision than the
/// current snapshot, newest first.
pub fn stale_research(project: &Project, chapter: &Chapter) -> Result<Vec<crate::records::Record>> {
    let (records, _) = project.records(chapter)?;
    let current = &chapter.state.current().fingerprint;
    Ok(records
        .into_iter()
        .filter(|r| {
            r.kind == crate::records::RunKind::Research && r.revision.fingerprint != *current
        })
        .collect())
}
