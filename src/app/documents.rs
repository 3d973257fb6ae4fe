//! The documents a chapter's research goes through: the research prompt
//! handed to an assistant, and the review report draft with its plot. Both
//! are rendered from templates; neither is written anywhere here.

use chrono::{DateTime, Utc};

use super::runs::{self, RecordedRun};
use super::{Project, diff};
use crate::chapter::Chapter;
use crate::error::Result;
use crate::ids::RunId;
use crate::records::RunKind;
use crate::records::store::BrokenRecord;
use crate::render::{PROMPT_TEMPLATE, REPORT_TEMPLATE, Templates, context};

/// A rendered prompt, and the records that could not be read for it.
#[derive(Debug)]
pub struct Prompt {
    pub text: String,
    /// What the template was given.
    pub context: serde_json::Value,
    pub skipped: Vec<BrokenRecord>,
}

/// The research prompt for a chapter, quoting up to `excerpt_chars` of its
/// current snapshot.
pub fn prompt(
    project: &Project,
    chapter: &Chapter,
    templates: &Templates,
    excerpt_chars: usize,
) -> Result<Prompt> {
    let path = project
        .layout()
        .snapshot_file(&chapter.key, &chapter.state.current_snapshot);
    let text = crate::text::read_owned(&path, &project.layout().snapshots_root())?;
    // Quote only the text the manifest vouches for.
    let current = chapter.state.current();
    let found = crate::chapter::normalize::fingerprint_str(&text)
        .map_err(|e| crate::chapter::normalize_error(&path, e))?;
    if found != current.fingerprint.value {
        return Err(crate::error::Error::invalid(
            &path,
            format!(
                "does not match its fingerprint in chapter.yaml ({} found, {} recorded); run `verify`",
                crate::text::prefix(&found, 12),
                current.fingerprint.short()
            ),
        ));
    }
    let (records, skipped) = project.records(chapter)?;
    let mut view = context::prompt(chapter, &text, excerpt_chars, &records);
    view.changes_since_research =
        super::changes::since_research(project, chapter, &records).map(|c| c.summary());
    Ok(Prompt {
        text: templates.render(PROMPT_TEMPLATE, &view)?,
        context: serde_json::to_value(&view)
            .map_err(|e| crate::error::Error::Other(format!("cannot write JSON: {e}")))?,
        skipped,
    })
}

/// A rendered report, and its plot (an SVG) when one was asked for and there
/// is a run to draw.
#[derive(Debug)]
pub struct Report {
    pub text: String,
    /// What the template was given.
    pub context: serde_json::Value,
    pub plot: Option<Plot>,
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
    for record in records.iter().filter(|r| r.kind == RunKind::Experiment) {
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
        None => runs::latest(project, chapter, RunKind::Experiment)?,
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
    let (records, _) = project.records(chapter)?;
    if let Some(e) = &experiment {
        view.other_engine = other_engine(project, chapter, &records, &e.run);
    }
    let envs = crate::records::status::by_environment(&records);
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
    })
}
