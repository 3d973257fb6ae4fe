//! `reproduce`: the main job, planned and run by `app::reproduce`. This
//! file gives it the command line's settings and engines, a runner that
//! shows progress and says what it runs on standard error (the chapter's
//! notebook only with an explicit `--python`), and prints what it
//! concluded: a line per run and the notebook claims beside it first, then
//! each run's details.

use std::fmt::Write as _;

use serde::Serialize;

use crate::app::Project;
use crate::app::compare::RunComparison;
use crate::app::notebook::run::{Planned, RunOptions};
use crate::app::reproduce::{
    self, EngineRun, Overrides, ReproduceEngine, ReproducedChapter, Reproduction, Runner,
    VerdictApart,
};
use crate::app::reproduce_notebook::{ChapterEvidence, NotebookOutcome, NotebookRan};
use crate::bench::{BenchRun, Decided, Knob, Settings};
use crate::chapter::Chapter;
use crate::cli::{ReproduceArgs, ReproduceEngineArg};
use crate::error::{Error, Outcome, Result};
use crate::output::flags::{knob_flag, refuse_for_pytorch, settings_error};
use crate::output::progress::{run_on_pytorch, run_with_progress};
use crate::output::run_view::{RunView, evidence_line};
use crate::output::{Out, Render, refuse_existing, wrote};
use crate::published::diff::PublishedDiff;
use crate::published::verdict::ClaimVerdict;
use crate::published::verdict::Plain;
use crate::published::{plot, render};
use crate::text::format::list;

/// `reproduce`
pub fn run(out: &mut Out, project: &Project, args: ReproduceArgs) -> Result<Outcome> {
    // Only these knobs come from the command line; the others from the
    // chapter's tables.
    let flags = |e| {
        settings_error(
            e,
            |k| {
                matches!(
                    k,
                    Knob::Batches | Knob::Repeat | Knob::Rounds | Knob::Budget
                )
                .then(|| knob_flag(k))
            },
            "the chapter's tables",
        )
    };
    let overrides = Overrides {
        batches: args.batches,
        repeat: args.repeat,
        rounds: args.rounds,
        budget_s: args.budget,
        worker_kind: args.worker_kind.into(),
    };
    let on_pytorch = args.engine != ReproduceEngineArg::Embedded;
    let plan = reproduce::plan(project, args.chapter.as_deref(), overrides, |s| {
        if on_pytorch {
            refuse_for_pytorch(s)
        } else {
            Ok(())
        }
    })
    .map_err(flags)?;
    refuse_what_the_plan_cannot_do(&plan, &args)?;
    if on_pytorch {
        // A bad time limit fails before a chapter says it starts.
        crate::bench::pytorch_harness::timeout_from_env()?;
    }
    refuse_existing(args.out.as_deref())?;
    refuse_existing(args.plot.as_deref())?;
    let python3 = std::path::PathBuf::from("python3");
    let mut runner = CommandLineRunner {
        project,
        python: args.python.as_ref().unwrap_or(&python3),
        notebook_python: args.python.as_deref(),
        kernels: args.kernels,
        record: !args.no_record,
        flags: &flags,
        calibrate: args.calibrate_to_pytorch,
        pytorch_beside: None,
    };
    let done = reproduce::reproduce(project, plan, &engines(args.engine), &mut runner)?;
    write_files(project, &done, &args)?;
    let view = ReproduceView {
        done: &done,
        wide: args.wide,
        cells: args.cells,
    };
    out.emit(&view, args.format.into())?;
    // A claim NOT_REPRODUCED (with --strict, INCONCLUSIVE too) is in the
    // output already; broken chapters are reported as problems.
    let strict_failed = args.strict && done.any_inconclusive();
    if strict_failed {
        eprintln!(
            "research_companion: --strict: a claim is INCONCLUSIVE, which fails the check (it is not evidence against the chapter)"
        );
    }
    let failed = done.any_not_reproduced() || strict_failed;
    Ok(if failed || !done.problems.is_empty() {
        Outcome::CheckFailed(done.problems)
    } else {
        Outcome::Ok
    })
}

/// The options the plan cannot honour: a run file or plot of no run or of
/// several, calibrating without both engines or without workers.
fn refuse_what_the_plan_cannot_do(
    plan: &reproduce::ReproducePlan,
    args: &ReproduceArgs,
) -> Result<()> {
    let one_run_written = args.out.is_some() || args.plot.is_some();
    if plan.chapters.is_empty() && one_run_written {
        return Err(Error::Usage(
            "--out and --plot write a pipeline run, and no chapter asked for publishes tables"
                .into(),
        ));
    }
    if plan.chapters.len() > 1 && one_run_written {
        return Err(Error::Usage(
            "--out and --plot write one chapter's run: name the chapter".into(),
        ));
    }
    if args.engine == ReproduceEngineArg::Both && one_run_written {
        return Err(Error::Usage(
            "--out and --plot write one run; with --engine both there are two".into(),
        ));
    }
    if args.calibrate_to_pytorch {
        if args.engine != ReproduceEngineArg::Both {
            return Err(Error::Usage(
                "--calibrate-to-pytorch scales the embedded engine to PyTorch's run beside it: use it with --engine both".into(),
            ));
        }
        for (chapter, settings) in &plan.chapters {
            crate::output::flags::refuse_calibrating_without_workers(settings)
                .map_err(|e| Error::Usage(format!("{}: {e}", chapter.key)))?;
        }
    }
    Ok(())
}

/// The engines `--engine` names, in the order their runs are concluded and
/// recorded; `app::reproduce` measures PyTorch's first.
fn engines(arg: ReproduceEngineArg) -> Vec<ReproduceEngine> {
    match arg {
        ReproduceEngineArg::Embedded => vec![ReproduceEngine::Embedded],
        ReproduceEngineArg::Pytorch => vec![ReproduceEngine::Pytorch],
        ReproduceEngineArg::Both => vec![ReproduceEngine::Embedded, ReproduceEngine::Pytorch],
    }
}

/// `--out` and `--plot`: the run file and the plot of the one run.
fn write_files(project: &Project, done: &Reproduction, args: &ReproduceArgs) -> Result<()> {
    for path in args.out.iter().chain(&args.plot) {
        crate::app::output_folder::prepare(project.layout(), path)?;
    }
    for r in done.chapters.iter().flat_map(|c| &c.runs) {
        if let Some(path) = &args.out {
            crate::atomic::write_new(path, r.run.to_yaml()?.as_bytes())?;
            wrote(path, "run");
        }
        if let Some(path) = &args.plot {
            plot::write(path, &r.diffed.tables, &r.run)?;
            wrote(path, "plot");
        }
    }
    Ok(())
}

/// Runs on the command line: with a progress bar (the embedded engine) or
/// through `python` (PyTorch), saying on standard error what runs.
struct CommandLineRunner<'a> {
    project: &'a Project,
    python: &'a std::path::Path,
    /// `--python` as given: only then does the chapter's notebook run.
    notebook_python: Option<&'a std::path::Path>,
    /// `--kernels`: fresh kernels per notebook.
    kernels: usize,
    record: bool,
    /// Names the flag behind a settings error.
    flags: &'a dyn Fn(Error) -> Error,
    /// `--calibrate-to-pytorch`: the embedded run takes its Python costs
    /// from PyTorch's run of the same chapter, which runs first.
    calibrate: bool,
    pytorch_beside: Option<BenchRun>,
}

impl Runner for CommandLineRunner<'_> {
    fn starting(&mut self, chapter: &Chapter, settings: &Settings) {
        eprintln!(
            "reproducing {}: producers {}, {} ms/sample, batch {}, consumer {} ms, workers {}, {} CPU(s), {}, {} round(s) at least (more while a claim is undecided, within {} s)",
            chapter.key,
            list(&settings.producers),
            settings.cost_ms,
            settings.batch_size,
            settings.consumer_ms,
            list(&settings.workers),
            settings.cpus.map_or("all".to_string(), |n| n.to_string()),
            settings.window_plan_text(),
            settings.rounds,
            settings.budget_s.unwrap_or(0.0)
        );
    }

    fn run(
        &mut self,
        settings: &Settings,
        engine: ReproduceEngine,
        decided: Decided<'_>,
    ) -> Result<BenchRun> {
        match engine {
            ReproduceEngine::Embedded if self.calibrate => {
                let pytorch = self.pytorch_beside.take().ok_or_else(|| {
                    Error::Usage("--calibrate-to-pytorch: PyTorch's run did not come first".into())
                })?;
                let (scaled, factor) = crate::output::flags::calibrated_to(&pytorch, settings)?;
                let mut run = run_with_progress(&scaled, decided).map_err(self.flags)?;
                run.calibrated_to_pytorch = Some(factor);
                Ok(run)
            }
            ReproduceEngine::Embedded => run_with_progress(settings, decided).map_err(self.flags),
            ReproduceEngine::Pytorch => {
                let run = run_on_pytorch(settings, self.python, self.flags, decided)?;
                if self.calibrate {
                    self.pytorch_beside = Some(run.clone());
                }
                Ok(run)
            }
        }
    }

    fn record_as(&self, engine: ReproduceEngine) -> Option<&'static str> {
        self.record.then_some(match engine {
            ReproduceEngine::Embedded => "reproduce",
            ReproduceEngine::Pytorch => "reproduce --engine pytorch",
        })
    }

    fn run_notebook(&mut self, planned: &Planned, record_alone: bool) -> Result<NotebookRan> {
        let Some(python) = self.notebook_python else {
            return Ok(NotebookRan::NotRun(NOTEBOOK_NOT_RUN.into()));
        };
        eprintln!(
            "running {}'s notebook {} in {} fresh kernel(s) with {} for its {} notebook claim(s); a notebook is code, and runs with your permissions",
            planned.chapter.key,
            planned.entry.file,
            self.kernels,
            python.display(),
            planned.claims.len()
        );
        let opts = RunOptions {
            python: python.to_path_buf(),
            kernel: "python3".into(),
            cell_timeout_seconds: NOTEBOOK_CELL_TIMEOUT_S,
            repeat: self.kernels,
            jobs: 1,
            record: record_alone && self.record,
        };
        crate::output::progress::catch_ctrl_c();
        let bar = crate::output::progress::cell_bar((planned.code_cells() * self.kernels) as u64);
        let tick = bar.clone();
        let ran = crate::app::notebook::run::run(
            self.project,
            std::slice::from_ref(planned),
            &opts,
            std::sync::Arc::new(move || tick.inc(1)),
            &crate::bench::interrupt::interrupted,
        );
        bar.finish_and_clear();
        let mut ran = ran.map_err(crate::output::flags::name_python_flag)?;
        Ok(NotebookRan::Ran(Box::new(ran.remove(0))))
    }
}

/// Why the notebook claims are UNRUN without `--python`.
const NOTEBOOK_NOT_RUN: &str = "the notebook was not run: give --python P, a Python with nbclient, ipykernel and what the notebook imports";

/// Seconds a notebook cell may run (as `notebook run`'s default).
const NOTEBOOK_CELL_TIMEOUT_S: u64 = 120;

/// What `reproduce` prints: a line per run (and per chapter skipped), then
/// each run's details; or, as JSON, each run's diff and record.
struct ReproduceView<'a> {
    done: &'a Reproduction,
    /// Add the measured columns beyond the chapter's.
    wide: bool,
    /// Add every published cell beside the measured one.
    cells: bool,
}

impl Render for ReproduceView<'_> {
    fn text(&self) -> Result<String> {
        let several = self.done.chapters.len() > 1;
        let mut summary = Vec::new();
        let mut details = String::new();
        for c in &self.done.chapters {
            for r in &c.runs {
                summary.push(summary_line(&c.chapter, r));
                summary.push(format!("  {}", crate::bench::export::load_summary(&r.run)));
                if let Some(start) = r.run.start_text() {
                    summary.push(format!("  {start}"));
                }
                summary.extend(
                    render::needs_attention(&r.diffed.diff, &Plain)
                        .into_iter()
                        .map(|line| format!("  {line}")),
                );
                if several {
                    let _ = writeln!(details, "\n== {} ==", c.chapter.key);
                }
                details.push_str(&run_details(r, self.wide, self.cells)?);
            }
            if let Some(side_by_side) = &c.side_by_side {
                details.push_str("\nPyTorch's DataLoader (A) beside the embedded engine (B)\n");
                details.push_str(&side_by_side.text()?);
                let decided = c
                    .runs
                    .iter()
                    .flat_map(|r| &r.diffed.diff.claims)
                    .any(|claim| {
                        matches!(
                            claim.verdict,
                            ClaimVerdict::Reproduced | ClaimVerdict::NotReproduced
                        )
                    });
                details.push_str(&verdicts_apart_text(&c.verdicts_apart, decided));
            }
            if let Some(n) = &c.notebook {
                summary.extend(notebook_lines(c, n));
            }
        }
        for s in &self.done.skipped {
            summary.push(format!("skipped: {}", crate::text::escape::visible(s)));
        }
        summary.extend(evidence_lines(&self.done.evidence));
        let diffs: Vec<&PublishedDiff> = self
            .done
            .chapters
            .iter()
            .flat_map(|c| &c.runs)
            .map(|r| &r.diffed.diff)
            .collect();
        let legend = render::legend(&diffs, &Plain);
        if !legend.is_empty() {
            summary.push(String::new());
            summary.push("Legend".into());
            summary.extend(legend.into_iter().map(|line| format!("  {line}")));
        }
        Ok(format!("{}\n\n{details}", summary.join("\n")))
    }
}

/// Which kinds of evidence each chapter has, when several were looked at.
fn evidence_lines(evidence: &[ChapterEvidence]) -> Vec<String> {
    if evidence.len() < 2 {
        return Vec::new();
    }
    std::iter::once("Each chapter's evidence".to_string())
        .chain(evidence.iter().map(|e| format!("  {}", e.in_words())))
        .collect()
}

/// A chapter's notebook claims, in the summary: their verdicts counted and
/// where the run is kept, then each claim in words (the value or its range
/// across kernels, the cell and the line it printed); or, when the notebook
/// did not run, why, and the claims left UNRUN. A chapter with a pipeline
/// run has them under its run's line; one without gets a line of its own.
fn notebook_lines(c: &ReproducedChapter, n: &NotebookOutcome) -> Vec<String> {
    let kept = match (&n.stored, c.runs.first().and_then(|r| r.stored.as_ref())) {
        (Some(s), _) => format!("recorded {}", s.record.run_id),
        (None, Some(s)) if n.run.is_some() => format!("kept in record {}", s.record.run_id),
        _ => "not recorded".to_string(),
    };
    let kernels = n
        .run
        .as_ref()
        .map(|r| format!(", in {} fresh kernel(s)", r.runs.len()))
        .unwrap_or_default();
    let head = format!(
        "notebook claims ({}): {}{kernels}  ({kept})",
        n.claims.len(),
        notebook_counts(n)
    );
    let (mut lines, indent) = if c.runs.is_empty() {
        (vec![format!("{}  {head}", c.chapter.key)], "  ")
    } else {
        (vec![format!("  {head}")], "    ")
    };
    if n.run.is_none() {
        let why = n.claims.iter().find_map(|x| x.reason.clone());
        lines.extend(why.map(|w| format!("{indent}{}", crate::text::escape::visible(&w))));
        lines.extend(
            n.claims
                .iter()
                .map(|x| format!("{indent}{} ({})", x.claim, x.source())),
        );
    } else {
        lines.extend(
            n.claims
                .iter()
                .map(|x| format!("{indent}{}: {}", x.claim, x.in_words())),
        );
        lines.extend(
            crate::app::notebook::run::misread_line(&c.chapter.key_str(), &n.claims)
                .map(|l| format!("{indent}{l}")),
        );
    }
    lines
}

/// `2 REPRODUCED, 1 INCONCLUSIVE`: the notebook claims' verdicts counted.
fn notebook_counts(n: &NotebookOutcome) -> String {
    let order = [
        ClaimVerdict::Reproduced,
        ClaimVerdict::NotReproduced,
        ClaimVerdict::Inconclusive,
        ClaimVerdict::Unrun,
    ];
    order
        .iter()
        .filter(|&&v| n.count(v) > 0)
        .map(|&v| format!("{} {v}", n.count(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether the two engines gave every claim the same verdict, and where
/// not, each claim with both verdicts.
/// `decided`: whether either engine decided any claim.
fn verdicts_apart_text(apart: &[VerdictApart], decided: bool) -> String {
    if apart.is_empty() && !decided {
        return "every claim has the same verdict on both engines, and neither engine decided one\n"
            .into();
    }
    if apart.is_empty() {
        return "every claim has the same verdict on both engines\n".into();
    }
    let mut s = format!(
        "{} claim(s) with a different verdict on each engine:\n",
        apart.len()
    );
    for a in apart {
        let _ = writeln!(
            s,
            "  {}: {} on the embedded engine, {} on PyTorch",
            a.claim, a.embedded, a.pytorch
        );
    }
    s
}

/// A run's line: the chapter, the engine when not the embedded one, the
/// verdicts counted, and its record.
fn summary_line(chapter: &Chapter, r: &EngineRun) -> String {
    let engine = match (r.engine, r.run.calibrated_to_pytorch) {
        (ReproduceEngine::Embedded, None) => String::new(),
        (ReproduceEngine::Embedded, Some(f)) => format!(
            " on the engine calibrated to PyTorch's Python (x{})",
            crate::text::format::setting(f)
        ),
        (ReproduceEngine::Pytorch, _) => " on PyTorch".to_string(),
    };
    let recorded = r.stored.as_ref().map_or("not recorded".to_string(), |s| {
        format!("recorded {}", s.record.run_id)
    });
    format!(
        "{}{engine}  {}  ({recorded})",
        chapter.key,
        render::verdict_summary(&r.diffed.diff, &Plain)
    )
}

/// A run's details: the verdicts first, then the measured tables, then the
/// cells if asked, then the audit, then where it was recorded.
fn run_details(r: &EngineRun, wide: bool, cells: bool) -> Result<String> {
    let found = &r.diffed.diff;
    let mut s = evidence_line(&r.run);
    // The legend above explains the flags once.
    s.push_str(&render::claims_block(found, &Plain, false));
    s.push('\n');
    s.push_str(&RunView { run: &r.run, wide }.text()?);
    if cells {
        s.push('\n');
        s.push_str(&render::cells_text(found));
    }
    s.push_str(&render::audit_text(found));
    if let Some(stored) = &r.stored {
        let _ = writeln!(
            s,
            "recorded {} ({})",
            stored.record.run_id,
            stored.path.display()
        );
    }
    Ok(s)
}

/// One run in the JSON.
#[derive(Serialize)]
struct RunJson<'a> {
    chapter: String,
    /// `embedded`, or the reference engine that measured it.
    engine: &'a str,
    summary: String,
    /// The record's run id, when recorded.
    recorded: Option<String>,
    comparison: &'a PublishedDiff,
}

/// A chapter run on both engines, the two side by side.
#[derive(Serialize)]
struct SideBySideJson<'a> {
    chapter: String,
    /// PyTorch's run (A) beside the embedded engine's (B).
    comparison: &'a RunComparison,
    verdicts_apart: &'a [VerdictApart],
}

/// A chapter's notebook claims in the JSON.
#[derive(Serialize)]
struct NotebookJson<'a> {
    chapter: String,
    /// Whether the notebook ran (without `--python` it does not, and every
    /// claim is UNRUN with the reason).
    ran: bool,
    kernels: usize,
    /// The record that keeps the notebook run: a notebook record of its
    /// own, or the chapter's experiment record.
    recorded: Option<String>,
    claims: &'a [crate::notebook::claims::NotebookClaimResult],
}

/// Each chapter's notebook claims in the JSON.
fn notebooks_json(done: &Reproduction) -> Vec<NotebookJson<'_>> {
    done.chapters
        .iter()
        .filter_map(|c| c.notebook.as_ref().map(|n| (c, n)))
        .map(|(c, n)| NotebookJson {
            chapter: c.chapter.key.to_string(),
            ran: n.run.is_some(),
            kernels: n.run.as_ref().map_or(0, |r| r.runs.len()),
            recorded: n
                .stored
                .as_ref()
                .or_else(|| c.runs.first().and_then(|r| r.stored.as_ref()))
                .filter(|_| n.run.is_some())
                .map(|s| s.record.run_id.to_string()),
            claims: &n.claims,
        })
        .collect()
}

/// The whole JSON.
#[derive(Serialize)]
struct ReproductionJson<'a> {
    chapters: Vec<RunJson<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notebooks: Vec<NotebookJson<'a>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    evidence: &'a [ChapterEvidence],
    skipped: &'a [String],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    side_by_side: Vec<SideBySideJson<'a>>,
}

impl Serialize for ReproduceView<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let chapters: Vec<RunJson<'_>> = self
            .done
            .chapters
            .iter()
            .flat_map(|c| c.runs.iter().map(move |r| (c, r)))
            .map(|(c, r)| RunJson {
                chapter: c.chapter.key.to_string(),
                engine: r
                    .run
                    .reference
                    .as_ref()
                    .map_or("embedded", |x| x.engine.as_str()),
                summary: render::verdict_summary(&r.diffed.diff, &Plain),
                recorded: r.stored.as_ref().map(|x| x.record.run_id.to_string()),
                comparison: &r.diffed.diff,
            })
            .collect();
        let side_by_side = self
            .done
            .chapters
            .iter()
            .filter_map(|c| {
                c.side_by_side.as_ref().map(|comparison| SideBySideJson {
                    chapter: c.chapter.key.to_string(),
                    comparison,
                    verdicts_apart: &c.verdicts_apart,
                })
            })
            .collect();
        let notebooks = notebooks_json(self.done);
        let json = ReproductionJson {
            chapters,
            notebooks,
            evidence: &self.done.evidence,
            skipped: &self.done.skipped,
            side_by_side,
        };
        // Through a JSON value, whose maps sort their keys: reproduce's JSON
        // has always listed them in that order, at every level.
        serde_json::to_value(json)
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::record::Stored;
    use crate::bench::{BenchRun, ProducerKind};

    fn project() -> Project {
        Project::open(crate::testing::repo_layout()).unwrap()
    }

    fn fixture(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/records/pytorch-from-first-principles/06")
            .join(name)
    }

    /// The recorded run of the fixture experiment (the embedded engine's).
    fn recorded_run() -> BenchRun {
        BenchRun::load(&fixture("20261102T120000-bbbbbbbbbbbb.run.yaml")).unwrap()
    }

    /// The same run as if PyTorch had measured it, with a sleep producer that
    /// does not scale and a wait that vanishes.
    fn pytorch_run() -> BenchRun {
        let mut run = crate::testing::measured_by_pytorch(recorded_run());
        for r in run.results.iter_mut().filter(|r| r.workers == 8) {
            match r.producer {
                ProducerKind::Sleep => r.summary.ex_per_s = 420.0,
                _ => r.summary.wait_mean_ms = 0.2,
            }
        }
        run
    }

    /// A record of the run, as if `reproduce` had just stored it.
    fn stored() -> Stored {
        let path = fixture("20261102T120000-bbbbbbbbbbbb.record.yaml");
        Stored {
            record: crate::yaml_io::read(&path).unwrap(),
            path:
                "records/pytorch-from-first-principles/06/20261102T120000-bbbbbbbbbbbb.record.yaml"
                    .into(),
        }
    }

    /// Measures nothing: returns the recorded runs, and records nothing.
    struct Recorded;

    impl Runner for Recorded {
        fn run(
            &mut self,
            _: &Settings,
            engine: ReproduceEngine,
            _: Decided<'_>,
        ) -> Result<BenchRun> {
            Ok(match engine {
                ReproduceEngine::Embedded => recorded_run(),
                ReproduceEngine::Pytorch => pytorch_run(),
            })
        }

        fn record_as(&self, _: ReproduceEngine) -> Option<&'static str> {
            None
        }
    }

    /// What `reproduce` prints for each format, from fixed runs: one
    /// chapter on the embedded engine, not recorded; and (as if two chapters
    /// were reproduced and one skipped) both engines, recorded, side by
    /// side, with the cells and the wide columns.
    fn outputs(format: crate::output::Format) -> Vec<String> {
        let project = project();
        let chapter = project.chapter("pytorch-from-first-principles/06").unwrap();
        let planned = |times: usize, skipped: Vec<String>| reproduce::ReproducePlan {
            chapters: vec![(chapter.clone(), Settings::chapter_defaults()); times],
            notebooks: Vec::new(),
            evidence: Vec::new(),
            skipped,
            problems: Vec::new(),
        };
        let printed = |done: &Reproduction, wide: bool, cells: bool| {
            let view = ReproduceView { done, wide, cells };
            let mut out = crate::output::Out::in_memory();
            out.emit(&view, format).unwrap();
            String::from_utf8(out.into_bytes()).unwrap()
        };
        let engines = [ReproduceEngine::Embedded];
        let one = reproduce::reproduce(&project, planned(1, Vec::new()), &engines, &mut Recorded)
            .unwrap();
        let skipped = vec!["other/01: the current snapshot holds no published tables".to_string()];
        let engines = [ReproduceEngine::Embedded, ReproduceEngine::Pytorch];
        let mut several =
            reproduce::reproduce(&project, planned(2, skipped), &engines, &mut Recorded).unwrap();
        for r in several.chapters.iter_mut().flat_map(|c| &mut c.runs) {
            r.stored = Some(stored());
        }
        vec![printed(&one, false, false), printed(&several, true, true)]
    }

    #[test]
    fn reproduce_prints_text_as_it_did() {
        insta::assert_snapshot!(outputs(crate::output::Format::Text).join("\n-----\n"));
    }

    /// Returns the recorded run as if `--calibrate-to-pytorch` had run it
    /// at x0.64.
    struct Calibrated;

    impl Runner for Calibrated {
        fn run(&mut self, _: &Settings, _: ReproduceEngine, _: Decided<'_>) -> Result<BenchRun> {
            let mut run = recorded_run();
            run.settings.python_cost_scale = 0.64;
            run.calibrated_to_pytorch = Some(0.64);
            Ok(run)
        }

        fn record_as(&self, _: ReproduceEngine) -> Option<&'static str> {
            None
        }
    }

    #[test]
    fn a_calibrated_run_says_so_in_its_summary_and_its_evidence_heading() {
        let project = project();
        let chapter = project.chapter("pytorch-from-first-principles/06").unwrap();
        let plan = reproduce::ReproducePlan {
            chapters: vec![(chapter, Settings::chapter_defaults())],
            notebooks: Vec::new(),
            evidence: Vec::new(),
            skipped: Vec::new(),
            problems: Vec::new(),
        };
        let done = reproduce::reproduce(
            &project,
            plan,
            &[ReproduceEngine::Embedded],
            &mut Calibrated,
        )
        .unwrap();
        let text = ReproduceView {
            done: &done,
            wide: false,
            cells: false,
        }
        .text()
        .unwrap();
        assert!(
            text.starts_with(
                "pytorch-from-first-principles/06 on the engine calibrated to PyTorch's Python (x0.64)  6 claims"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "Evidence from the embedded engine (a model of the DataLoader, its Python costs calibrated to PyTorch's Python beside it, x0.64)"
            ),
            "{text}"
        );
    }

    #[test]
    fn reproduce_prints_json_as_it_did() {
        insta::assert_snapshot!(outputs(crate::output::Format::Json).join("\n-----\n"));
    }
}
