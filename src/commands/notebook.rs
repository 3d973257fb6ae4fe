//! `notebook add`, `notebook run`, `notebook check`, `notebook report`: the
//! chapter's Jupyter notebook stored, run in fresh kernels (with a progress
//! bar on a terminal and Ctrl-C stopping the kernels), audited, and
//! reported on for the whole book.

use std::sync::Arc;
use std::time::Duration;

use crate::app::Project;
use crate::app::notebook::report::BookReport;
use crate::app::notebook::run::{ChapterRun, RunOptions};
use crate::app::notebook::{self, CheckTarget, Checked, Download, NotebookSource};
use crate::cli::{
    NotebookAddArgs, NotebookCheckArgs, NotebookCommand, NotebookReportArgs, NotebookRunArgs,
};
use crate::error::{Outcome, Result};
use crate::layout::Layout;
use crate::notebook::NotebookVerdict;
use crate::notebook::run::{CellOutcome, cell_name, failure_words};
use crate::notebook::store::NotebookAdded;
use crate::output::{Out, Render};
use crate::text::escape::visible;

/// `notebook ...`
pub fn run(out: &mut Out, layout: &Layout, cmd: NotebookCommand) -> Result<Outcome> {
    let project = Project::open(layout.clone())?;
    match cmd {
        NotebookCommand::Add(args) => add(out, &project, args),
        NotebookCommand::Run(args) => run_notebooks(out, &project, args),
        NotebookCommand::Check(args) => check(out, &project, args),
        NotebookCommand::Report(args) => report(out, &project, args),
    }
}

/// `notebook add`
fn add(out: &mut Out, project: &Project, args: NotebookAddArgs) -> Result<Outcome> {
    let chapter = project.chapter(&args.chapter)?;
    let source = match &args.from {
        None => NotebookSource::Published,
        Some(s) if s.contains("://") => NotebookSource::Url(s.clone()),
        Some(s) => NotebookSource::File(s.into()),
    };
    let download = Download {
        connect_timeout: Duration::from_secs_f64(args.connect_timeout),
        timeout: Duration::from_secs_f64(args.timeout),
    };
    let added = notebook::add(project, &chapter, &source, args.source.as_deref(), download)?;
    for note in &added.notes {
        crate::output::warn(note);
    }
    if added.not_modified {
        out.line("unchanged: the server answered 304 Not Modified; nothing written")?;
        return Ok(Outcome::Ok);
    }
    out.line(added_line(&added.outcome))?;
    if let Some(url) = &added.downloaded_from {
        out.line(format!("  downloaded from {url}"))?;
    }
    if matches!(added.outcome, NotebookAdded::Stored(_)) {
        // Stored byte for byte, as the data under audit; what it carries
        // that a published notebook must not is said at once.
        let checked = notebook::check(Some(project), CheckTarget::Chapter(&args.chapter))?;
        if let Some(first) = checked.findings.first() {
            out.line(format!(
                "  note: `notebook check {}` finds {} problem(s) a published notebook must not carry, the first: {}",
                args.chapter,
                checked.findings.len(),
                visible(&first.to_string())
            ))?;
        }
    }
    Ok(Outcome::Ok)
}

/// What storing a notebook did, in one line.
pub fn added_line(outcome: &NotebookAdded) -> String {
    match outcome {
        NotebookAdded::Stored(e) => format!(
            "stored {} ({}, {} cells, {} code) from {}; it is now current",
            e.file, e.fingerprint, e.cells, e.code_cells, e.source
        ),
        NotebookAdded::Unchanged(e) => format!(
            "unchanged: the notebook has the current one's fingerprint {} (outputs, execution counts, ids and metadata do not count); nothing written",
            e.fingerprint
        ),
        NotebookAdded::Reverted(e) => format!(
            "the notebook equals the older {}; it is current again",
            e.file
        ),
    }
}

/// `notebook run`
fn run_notebooks(out: &mut Out, project: &Project, args: NotebookRunArgs) -> Result<Outcome> {
    let planned = notebook::run::plan(project, &args.chapters)?;
    let opts = RunOptions {
        python: args.python.clone(),
        kernel: args.kernel.clone(),
        cell_timeout_seconds: args.cell_timeout,
        repeat: args.repeat,
        jobs: args.jobs,
        record: !args.no_record,
    };
    let total: usize = planned.iter().map(|p| p.code_cells() * args.repeat).sum();
    crate::notebook::harness::check_python(&args.python)
        .map_err(crate::output::flags::name_python_flag)?;
    eprintln!(
        "running {} notebook(s) in {} fresh kernel(s) with {}; a notebook is code, and runs with your permissions",
        planned.len(),
        planned.len() * args.repeat,
        args.python.display()
    );
    crate::output::progress::catch_ctrl_c();
    let bar = crate::output::progress::cell_bar(total as u64);
    let tick = bar.clone();
    let ran = notebook::run::run(
        project,
        &planned,
        &opts,
        Arc::new(move || tick.inc(1)),
        &crate::bench::interrupt::interrupted,
    );
    bar.finish_and_clear();
    let ran = ran.map_err(crate::output::flags::name_python_flag)?;
    let passed = ran.iter().all(|r| r.run.verdict == NotebookVerdict::Pass);
    out.emit(&RunReport(ran), args.format.into())?;
    Ok(Outcome::check(passed))
}

/// The runs of one `notebook run`, as it prints them.
#[derive(serde::Serialize)]
#[serde(transparent)]
struct RunReport(Vec<ChapterRun>);

impl Render for RunReport {
    fn text(&self) -> Result<String> {
        Ok(self.0.iter().map(run_text).collect())
    }
}

/// One chapter's run: the verdict line, the versions, a line per code cell,
/// the time the tool's harness took beside nbclient's, and the record.
fn run_text(c: &ChapterRun) -> String {
    let r = &c.run;
    let v = &r.versions;
    let mut s = format!("{}  {}  {}\n", c.chapter, r.notebook.file, r.summary());
    s.push_str(&format!(
        "  python {}, kernel {}, ipykernel {}, nbclient {}, torch {}\n",
        v.python,
        v.kernel,
        v.ipykernel,
        v.nbclient,
        v.torch.as_deref().unwrap_or("not installed")
    ));
    let last = r.last_run();
    for cell in &r.cells {
        let run = last.and_then(|k| k.cells.iter().find(|x| x.index == cell.index));
        let rate = if r.runs.len() > 1 {
            format!(" {}/{}", cell.passed, cell.reached)
        } else {
            String::new()
        };
        let why = run
            .filter(|x| !matches!(x.outcome, CellOutcome::Ok | CellOutcome::NotReached))
            .map(|x| format!("  {}", failure_words(x)))
            .unwrap_or_default();
        s.push_str(&format!(
            "  {:<11} {:<16} {:>7.2} s  {}{why}\n",
            format!("{}{rate}", cell.verdict),
            cell_name(cell.index, cell.id.as_deref()),
            run.map_or(0.0, |x| x.seconds),
            visible(crate::text::format::prefix(&cell.first_line, 60))
        ));
    }
    s.push_str(&claim_lines(c));
    for (i, k) in r.runs.iter().enumerate() {
        s.push_str(&format!(
            "  kernel {}: {:.1} s in all, of which nbclient {:.1} s (kernel start {:.1} s)\n",
            i + 1,
            k.wall_seconds,
            k.client_seconds,
            k.kernel_start_seconds
        ));
    }
    match &c.stored {
        Some(st) => s.push_str(&format!("  recorded {} (notebook)\n", st.record.run_id)),
        None => s.push_str("  not recorded\n"),
    }
    s
}

/// The chapter's notebook claims the run decided, one line each, and the
/// line sending the author to `claims check` when the run could not read
/// what a claim asks; nothing when the chapter has none.
fn claim_lines(c: &ChapterRun) -> String {
    let claims = &c.run.claims;
    if claims.is_empty() {
        return String::new();
    }
    let mut s = format!("  notebook claims ({}):\n", claims.len());
    for x in claims {
        s.push_str(&format!("    {}: {}\n", x.claim, visible(&x.in_words())));
    }
    if let Some(line) = notebook::run::misread_line(&c.chapter, claims) {
        s.push_str(&format!("  {line}\n"));
    }
    s
}

/// `notebook check`
fn check(out: &mut Out, project: &Project, args: NotebookCheckArgs) -> Result<Outcome> {
    let path = std::path::Path::new(&args.target);
    let target = match std::fs::metadata(path) {
        // A file, or something else that is no folder (a FIFO, a device),
        // which the reader refuses without a blocking open.
        Ok(m) if !m.is_dir() => CheckTarget::File(path),
        // A path no chapter id can be (absolute, relative to `.`, a folder
        // with its `/`, or a notebook's name) names a file, read as one: a
        // missing one or a folder is said so by the reader, not read as a
        // chapter id.
        _ if names_a_file(&args.target) => CheckTarget::File(path),
        _ => CheckTarget::Chapter(&args.target),
    };
    let checked = notebook::check(Some(project), target)?;
    out.emit(&checked, args.format.into())?;
    Ok(Outcome::check(checked.findings.is_empty()))
}

/// Whether `notebook check`'s argument can only be a file: a chapter id is
/// never absolute, never starts with `.` or `~`, and never ends in `/` or
/// `.ipynb`.
fn names_a_file(target: &str) -> bool {
    target.starts_with(['/', '.', '~'])
        || target.ends_with('/')
        || target.to_ascii_lowercase().ends_with(".ipynb")
}

impl Render for Checked {
    fn text(&self) -> Result<String> {
        let mut s = String::new();
        for f in &self.findings {
            s.push_str(&format!("{f}\n"));
        }
        s.push_str(&match self.findings.len() {
            0 => format!(
                "{}: {} cells, no findings\n",
                visible(&self.notebook),
                self.cells
            ),
            n => format!(
                "{}: {} cells, {n} finding(s)\n",
                visible(&self.notebook),
                self.cells
            ),
        });
        Ok(s)
    }
}

/// `notebook report`
fn report(out: &mut Out, project: &Project, args: NotebookReportArgs) -> Result<Outcome> {
    let report = notebook::report::report(project, args.book.as_deref())?;
    out.emit(&report, args.format.into())?;
    Ok(Outcome::unless(report.problems.clone()))
}

impl Render for BookReport {
    fn text(&self) -> Result<String> {
        self.markdown()
    }

    fn markdown(&self) -> Result<String> {
        let mut s = String::from(
            "| chapter | notebook | status | runtime per kernel | code cells | assertions | flaky cells | audit findings | run id |\n\
             | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        );
        let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        for r in &self.rows {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.chapter,
                match &r.origin {
                    Some(o) => format!("{} ({o})", r.notebook),
                    None => r.notebook.clone(),
                },
                r.status,
                or_dash(r.runtime_seconds.map(|t| format!("{t:.1} s"))),
                or_dash(r.code_cells.map(|n| n.to_string())),
                or_dash(r.assertion_cells.map(|n| n.to_string())),
                or_dash(r.flaky_cells.map(|n| n.to_string())),
                or_dash(r.audit_findings.map(|n| n.to_string())),
                or_dash(r.run_id.clone()),
            ));
        }
        if self.rows.is_empty() {
            s.push_str("\nNo chapter has a notebook.\n");
        }
        Ok(s)
    }
}
