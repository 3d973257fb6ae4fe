//! `notebook run`: each chapter's stored notebook in `repeat` fresh kernels
//! (several at once with `jobs`), summarized cell by cell and recorded as
//! a notebook run against the notebook and the chapter revision it ran.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use chrono::Utc;

use super::{Project, current_notebook, stored};
use crate::app::record::Stored;
use crate::app::runs;
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use crate::notebook::claims::{KernelValue, NotebookClaimResult};
use crate::notebook::harness::{self, HarnessCall, OneRun};
use crate::notebook::run::{
    NOTEBOOK_RUN_SCHEMA, NotebookRef, NotebookRunFile, RunSettings, summarize,
};
use crate::notebook::{Notebook, NotebookEntry};
use crate::published::notebook_reads::NotebookClaim;
use crate::records::RunKind;
use crate::records::create::{self, RunBasics};

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub python: PathBuf,
    pub kernel: String,
    pub cell_timeout_seconds: u64,
    pub repeat: usize,
    /// Kernels at once.
    pub jobs: usize,
    /// Store a notebook record for each chapter.
    pub record: bool,
}

/// A chapter's notebook, read and ready to run.
#[derive(Debug, Clone)]
pub struct Planned {
    pub chapter: Chapter,
    pub entry: NotebookEntry,
    pub path: PathBuf,
    pub notebook: Notebook,
    /// The chapter's claims over what its notebook prints (claims.yaml's
    /// `notebook_claims`), decided from the run.
    pub claims: Vec<NotebookClaim>,
}

impl Planned {
    /// Its code cells.
    pub fn code_cells(&self) -> usize {
        self.notebook.cells.iter().filter(|c| c.is_code()).count()
    }
}

/// The chapters' stored notebooks, read and checked before anything runs.
/// `chapters` empty: every chapter that has a stored notebook.
pub fn plan(project: &Project, chapters: &[String]) -> Result<Vec<Planned>> {
    let mut planned = Vec::new();
    let all = chapters.is_empty();
    let named: Vec<Chapter> = if all {
        project.all_chapters()?.0
    } else {
        chapters
            .iter()
            .map(|q| project.chapter(q))
            .collect::<Result<_>>()?
    };
    for chapter in named {
        if all && crate::notebook::store::load(project.layout(), &chapter.key)?.is_none() {
            continue;
        }
        let state = stored(project, &chapter)?;
        let (path, notebook) = current_notebook(project, &chapter, &state)?;
        let claims = crate::app::claims::notebook_claims(project, &chapter)?;
        if !claims.is_empty() {
            refuse_missing_cells(project, &chapter, &notebook, &state.current().file)?;
        }
        planned.push(Planned {
            claims,
            entry: state.current().clone(),
            chapter,
            path,
            notebook,
        });
    }
    if planned.is_empty() {
        return Err(Error::Usage(
            "no chapter has a stored notebook; store one with `research_companion notebook add CHAPTER FILE|URL`".into(),
        ));
    }
    Ok(planned)
}

/// Refuses, before any kernel starts, a notebook claim whose read names a
/// cell the notebook to run has no code cell with (missing, or markdown):
/// the claims.yaml error `claims check` gives, file, line, claim and field.
/// What only a run shows (a pattern matching twice, a cell printing
/// nothing) is left to the run, which says it in the claim's reason.
fn refuse_missing_cells(
    project: &Project,
    chapter: &Chapter,
    notebook: &Notebook,
    notebook_file: &str,
) -> Result<()> {
    let path = project.layout().claims_file(&chapter.key);
    let text = crate::yaml_io::read_text(&path)?;
    let file: crate::published::claims::ClaimsFile = crate::yaml_io::from_str_finite(&text, &path)?;
    let none = std::collections::BTreeSet::new();
    match super::claims_check::cell_id_problems(notebook, &text, &file, &none, notebook_file)
        .into_iter()
        .next()
    {
        Some(first) => Err(Error::invalid(&path, first)),
        None => Ok(()),
    }
}

/// The line that sends the author to `claims check` when a run showed a
/// claim's read to be wrongly written (a pattern that matches twice, a
/// label on no line, a cell that printed nothing, a capture that is no
/// number): such a claim is INCONCLUSIVE with the field in its reason, the
/// run having happened, and claims.yaml wants fixing. None when no claim's
/// read failed so.
pub fn misread_line(chapter: &str, claims: &[NotebookClaimResult]) -> Option<String> {
    let misread: Vec<&str> = claims
        .iter()
        .filter(|c| {
            c.reason.as_deref().is_some_and(|r| r.starts_with("reads."))
                || c.kernels
                    .iter()
                    .any(|k| matches!(k, KernelValue::Failed(w) if w.starts_with("reads.")))
        })
        .map(|c| c.claim.as_str())
        .collect();
    (!misread.is_empty()).then(|| {
        format!(
            "claims.yaml: the run could not read what {} claim(s) ask ({}); fix the reads, see `research_companion claims check {chapter}`",
            misread.len(),
            misread.join(", ")
        )
    })
}

/// One chapter's run: its run file, and its record when recorded.
#[derive(Debug, serde::Serialize)]
pub struct ChapterRun {
    pub chapter: String,
    /// The record's run id, when recorded.
    pub run_id: Option<String>,
    pub run: NotebookRunFile,
    #[serde(skip)]
    pub stored: Option<Stored>,
}

/// Runs every planned notebook `repeat` times, `jobs` kernels at once;
/// `on_cell` is told each time a code cell ends, `stop` asked whether to
/// give up. The first error stops the kernels still running and is the
/// answer; nothing is recorded then.
pub fn run(
    project: &Project,
    planned: &[Planned],
    opts: &RunOptions,
    on_cell: Arc<dyn Fn() + Send + Sync>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<ChapterRun>> {
    let tasks: Vec<(usize, usize)> = (0..planned.len())
        .flat_map(|p| (0..opts.repeat).map(move |r| (p, r)))
        .collect();
    let results: Vec<Mutex<Option<Result<OneRun>>>> =
        tasks.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let give_up = || stop() || failed.load(Ordering::SeqCst);
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.clamp(1, tasks.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= tasks.len() || give_up() {
                        return;
                    }
                    let p = &planned[tasks[i].0];
                    let call = HarnessCall {
                        python: &opts.python,
                        notebook: &p.path,
                        kernel: &opts.kernel,
                        cell_timeout_seconds: opts.cell_timeout_seconds,
                        code_cells: p.code_cells(),
                        project_root: project.layout().root(),
                    };
                    let tick = Arc::clone(&on_cell);
                    let result = harness::run_once(&call, Arc::new(move |_| tick()), &give_up);
                    if result.is_err() {
                        failed.store(true, Ordering::SeqCst);
                    }
                    *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                }
            });
        }
    });
    let mut per_chapter: Vec<Vec<OneRun>> = planned.iter().map(|_| Vec::new()).collect();
    let mut first_error: Option<Error> = None;
    for (slot, (p, _)) in results.into_iter().zip(&tasks) {
        match slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(Ok(one)) => per_chapter[*p].push(one),
            Some(Err(e)) => {
                // An error another kernel's failure caused is not the answer.
                let caused = matches!(e, Error::Interrupted) && !stop();
                if first_error.is_none() && !caused {
                    first_error = Some(e);
                }
            }
            None => {}
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    if stop() {
        return Err(Error::Interrupted);
    }
    planned
        .iter()
        .zip(per_chapter)
        .map(|(p, runs)| finish(project, p, opts, runs))
        .collect()
}

/// One chapter's runs as a run file, recorded when asked.
fn finish(
    project: &Project,
    p: &Planned,
    opts: &RunOptions,
    runs: Vec<OneRun>,
) -> Result<ChapterRun> {
    let (versions, scrubber) = runs
        .last()
        .map(|r| (r.versions.clone(), r.scrubber.clone()))
        .ok_or_else(|| {
            Error::Other(format!(
                "{}: no run of its notebook finished",
                p.chapter.key
            ))
        })?;
    // The notebook's own text gets what its outputs got.
    let scrub = |s: &str| scrubber.scrub(s);
    let kernel_runs: Vec<_> = runs.into_iter().map(|r| r.run).collect();
    let (cells, totals, verdict) = summarize(&p.notebook.cells, &kernel_runs, &scrub);
    let environment = crate::env::collect();
    let run = NotebookRunFile {
        schema: NOTEBOOK_RUN_SCHEMA.into(),
        created_at: Utc::now(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        notebook: NotebookRef {
            file: p.entry.file.clone(),
            fingerprint: p.entry.fingerprint.clone(),
            sha256: p.entry.sha256.clone(),
        },
        chapter_revision: p.chapter.state.current().fingerprint.clone(),
        settings: RunSettings {
            cell_timeout_seconds: opts.cell_timeout_seconds,
            kernel: opts.kernel.clone(),
            repeat: opts.repeat,
        },
        versions,
        environment,
        verdict,
        totals,
        cells,
        runs: kernel_runs,
        claims: Vec::new(),
    };
    let run = NotebookRunFile {
        claims: crate::notebook::claims::decide_all(&p.claims, &run),
        ..run
    };
    let stored = if opts.record {
        Some(record(project, &p.chapter, &run)?)
    } else {
        None
    };
    Ok(ChapterRun {
        chapter: p.chapter.key_str(),
        run_id: stored.as_ref().map(|s| s.record.run_id.to_string()),
        run,
        stored,
    })
}

/// Records a notebook run against the chapter's current snapshot.
fn record(project: &Project, chapter: &Chapter, run: &NotebookRunFile) -> Result<Stored> {
    let basics = RunBasics {
        revision: create::current_revision(chapter),
        note: None,
        previous: runs::previous(project, chapter, None, RunKind::Notebook)?,
        git: crate::provenance::collect(project.layout().root()),
        now: Utc::now(),
    };
    let (path, record) = create::record_notebook(project.layout(), chapter, &basics, run)?;
    Ok(Stored { path, record })
}
