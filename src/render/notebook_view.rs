//! What the templates are given about the chapter's notebook: its state,
//! and the latest recorded run with each code cell's outcome and what it
//! printed (bounded), so the prompt, the report and the site can say what
//! the notebook did rather than that nobody knows.

use serde::Serialize;

use crate::notebook::NotebookRunFile;
use crate::notebook::provenance::NotebookProvenance;
use crate::notebook::run::{CellOutcome, cell_name, failure_words};
use crate::notebook::scrub::bounded;
use crate::records::Record;
use crate::records::notebook_status::NotebookStatus;

/// The chapter's notebook.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookView {
    /// The current stored notebook, when one is stored.
    pub file: Option<String>,
    /// Its `nb-v1:<hex>` fingerprint.
    pub fingerprint: Option<String>,
    /// Where chapter.yaml says it is published.
    pub published_at: Option<String>,
    /// Where the current stored notebook came from, in words: `the
    /// published notebook, downloaded from <url>`, or `local copy of
    /// 06-fail.ipynb, not the notebook published at <url>`.
    pub origin: Option<String>,
    /// PASS, FAIL, FLAKY, NEVER_RUN or STALE.
    pub state: String,
    /// A word for the stylesheet: ok, bad, warn, none.
    pub tone: &'static str,
    /// Why it is STALE or NEVER_RUN.
    pub reasons: Vec<String>,
    /// The latest recorded run, when there is one.
    pub run: Option<NotebookRunView>,
}

/// A recorded notebook run.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookRunView {
    pub run_id: String,
    pub date: String,
    /// `env-v2:0123456789ab (2 CPUs)`.
    pub environment: String,
    pub python: String,
    pub kernel: String,
    pub torch: String,
    pub summary: String,
    pub verdict: String,
    pub code_cells: usize,
    pub assertion_cells: usize,
    pub passed: usize,
    pub failed: usize,
    pub flaky: usize,
    /// The notebook it ran, when that is not the current one.
    pub ran_notebook: String,
    /// Where that notebook came from: `published`, `local copy of ...`.
    pub ran_origin: String,
    pub cells: Vec<CellView>,
}

/// One code cell of the latest run.
#[derive(Debug, Clone, Serialize)]
pub struct CellView {
    pub name: String,
    pub first_line: String,
    pub has_assertions: bool,
    /// Its verdict across the runs (PASS, FAIL, FLAKY, NOT_REACHED), with
    /// the pass rate when there were several.
    pub verdict: String,
    /// A word for the stylesheet: ok, bad, warn, none.
    pub tone: &'static str,
    /// How it failed in the last run, when it did.
    pub failure: Option<String>,
    pub seconds: f64,
    /// What it printed in the last run, bounded.
    pub output: String,
}

/// The view of `status`, with `latest` (the latest run's record and run
/// file) when it can be read; each cell's output cut to `max_chars`.
pub fn notebook_view(
    status: &NotebookStatus,
    fingerprint: Option<String>,
    latest: Option<(&Record, &NotebookRunFile)>,
    max_chars: usize,
) -> NotebookView {
    NotebookView {
        file: status.notebook.clone(),
        fingerprint,
        published_at: status.published_at.clone(),
        origin: status
            .provenance
            .as_ref()
            .map(|p| origin_words(p, status.published_at.as_deref())),
        state: status.state.to_string(),
        tone: state_tone(status.state),
        reasons: status.reasons.clone(),
        run: latest.map(|(r, f)| {
            let mut v = run_view(r, f, max_chars);
            if let Some(l) = status.latest.as_ref().filter(|l| l.run_id == r.run_id) {
                v.ran_origin = l.provenance.short();
            }
            v
        }),
    }
}

/// Where a stored notebook came from, said against where chapter.yaml says
/// the chapter's notebook is published.
fn origin_words(p: &NotebookProvenance, published_at: Option<&str>) -> String {
    match (p, published_at) {
        (NotebookProvenance::Published { url }, _) => {
            format!("the published notebook, downloaded from {url}")
        }
        (_, Some(url)) => format!("{}, not the notebook published at {url}", p.short()),
        (_, None) => p.short(),
    }
}

/// What the prompt lists of the chapter's material once a run of its
/// notebook is recorded: chapter.yaml's note on the notebook, without the
/// sentences that call whether it runs unverified (the recorded run, shown
/// below it, says) and with one that says so instead. Before any run, and
/// for every other material, the notes stay as written.
pub fn notes_after_run(
    chapter: &crate::chapter::Chapter,
    materials: &mut [crate::chapter::manifest::Material],
    notebook: Option<&NotebookView>,
) {
    if notebook.is_none_or(|n| n.run.is_none()) {
        return;
    }
    let all = &chapter.manifest.associated_material;
    let Some(at) = crate::notebook::store::published_notebook(&chapter.manifest)
        .and_then(|nb| all.iter().position(|m| std::ptr::eq(m, nb)))
    else {
        return;
    };
    let Some(m) = materials.get_mut(at) else {
        return;
    };
    let sentences = crate::records::report_items::sentences(&m.note);
    let kept: Vec<&str> = sentences
        .iter()
        .copied()
        .filter(|s| !s.to_lowercase().contains("unverified"))
        .collect();
    if kept.len() < sentences.len() {
        m.note = kept
            .into_iter()
            .chain(["What it did in its latest recorded run is given below."])
            .collect::<Vec<_>>()
            .join(" ");
    }
}

/// A word for the stylesheet for a notebook state.
pub fn state_tone(state: crate::records::notebook_status::NotebookState) -> &'static str {
    use crate::records::notebook_status::NotebookState as S;
    match state {
        S::Pass => "ok",
        S::Fail => "bad",
        S::Flaky | S::Stale => "warn",
        S::NeverRun => "none",
    }
}

fn run_view(record: &Record, f: &NotebookRunFile, max_chars: usize) -> NotebookRunView {
    use crate::notebook::NotebookVerdict as V;
    let last = f
        .last_run()
        .map(crate::notebook::run::KernelRun::cells_by_index);
    let cells = f
        .cells
        .iter()
        .map(|c| {
            let ran = last.as_ref().and_then(|k| k.get(&c.index).copied());
            let several = f.runs.len() > 1;
            CellView {
                name: cell_name(c.index, c.id.as_deref()),
                first_line: crate::text::escape::visible(&c.first_line).into_owned(),
                has_assertions: c.has_assertions,
                verdict: if several {
                    format!("{} ({} of {} runs passed)", c.verdict, c.passed, c.reached)
                } else {
                    c.verdict.to_string()
                },
                tone: match c.verdict {
                    V::Pass => "ok",
                    V::Fail => "bad",
                    V::Flaky => "warn",
                    V::NotReached => "none",
                },
                failure: ran
                    .filter(|x| !matches!(x.outcome, CellOutcome::Ok | CellOutcome::NotReached))
                    .map(failure_words),
                seconds: ran.map_or(0.0, |x| x.seconds),
                output: ran.map_or_else(String::new, |x| bounded(x.output.trim_end(), max_chars).0),
            }
        })
        .collect();
    let v = &f.versions;
    NotebookRunView {
        run_id: record.run_id.to_string(),
        date: record.recorded_at.format("%Y-%m-%d").to_string(),
        environment: format!(
            "{} ({} CPUs)",
            crate::env::short_id(&record.environment.env_id),
            record.environment.identity.logical_cpus
        ),
        python: v.python.clone(),
        kernel: v.kernel.clone(),
        torch: v.torch.clone().unwrap_or_else(|| "not installed".into()),
        summary: f.summary(),
        verdict: f.verdict.to_string(),
        code_cells: f.totals.code_cells,
        assertion_cells: f.totals.assertion_cells,
        passed: f.totals.passed,
        failed: f.totals.failed,
        flaky: f.totals.flaky,
        ran_notebook: f.notebook.file.clone(),
        ran_origin: String::new(),
        cells,
    }
}
