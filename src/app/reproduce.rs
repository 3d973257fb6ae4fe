//! `reproduce`, the main job: for each chapter asked for (or every chapter
//! of every book), plan the experiment its published tables describe
//! (their headers give producer, cost, batch and consumer, their rows the
//! worker counts, the claims' preconditions the CPUs), run it on each
//! engine asked for, and conclude each run: diffed with the current
//! snapshot and, unless asked not to, recorded. With both engines, the two
//! runs side by side. A chapter with notebook claims has its notebook run
//! too (`reproduce_notebook`), first, and the run kept in the same record
//! as the pipeline's (the first engine's in `engines`: the embedded one's
//! with both, though PyTorch measures first), or in a notebook record of
//! its own when the chapter publishes no tables.
//!
//! What measures a run is the caller's [`Runner`] (the command line's shows
//! progress; a test's returns a recorded run), so this module prints
//! nothing and runs nothing itself.

use super::compare::{self, RunComparison};
use super::notebook::run::Planned;
use super::record::{self, Stored};
use super::reproduce_notebook::{
    ChapterEvidence, NotebookOutcome, NotebookPlan, NotebookRan, plan_chapter,
};
use super::{Project, diff};
use crate::bench::stats::round_row;
use crate::bench::{BenchRun, Decided, Settings, WorkerKind};
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use crate::published::verdict::ClaimVerdict;
use crate::published::{read_claims, read_tables};

/// Measured batches per configuration in each round by default: six
/// rounds of the ten configurations of chapter 06 then take about 75 s on
/// a quiet 2-core machine, and each round's metrics still decide every
/// claim (docs/verdicts.md, "The default run: window, steps and rounds").
pub const BATCHES_PER_ROUND: u64 = 20;

/// Rounds by default: the fewest a 95% interval can be made from.
pub const MIN_ROUNDS: usize = crate::published::interval::MIN_ROUNDS;

/// Which engine measures one run of a chapter's experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReproduceEngine {
    /// This tool's engine (the model).
    Embedded,
    /// PyTorch's DataLoader, through the harness this tool ships.
    Pytorch,
}

/// What the caller sets of every chapter's experiment; the rest comes from
/// the chapter's tables.
#[derive(Debug, Clone, Copy)]
pub struct Overrides {
    pub batches: u64,
    pub repeat: usize,
    /// Rounds at least (more are added while a claim is undecided).
    pub rounds: usize,
    /// Seconds after which no re-run, wait or extra round starts.
    pub budget_s: f64,
    pub worker_kind: WorkerKind,
}

/// What `reproduce` will run.
#[derive(Debug, Clone)]
pub struct ReproducePlan {
    /// Each chapter, with the experiment its tables describe.
    pub chapters: Vec<(Chapter, Settings)>,
    /// Each chapter with notebook claims (some also in `chapters`).
    pub notebooks: Vec<NotebookPlan>,
    /// Each chapter looked at, with the kinds of evidence it has.
    pub evidence: Vec<ChapterEvidence>,
    /// Chapters left out because they publish nothing to reproduce, one
    /// line each saying why.
    pub skipped: Vec<String>,
    /// Chapters that could not be read, one line each.
    pub problems: Vec<String>,
}

/// Plans the experiment of the chapter `query` names, or of every chapter
/// of every book: its pipeline experiment where its snapshot publishes
/// tables, its notebook where its claims.yaml has notebook claims. Each
/// chapter's settings, with `overrides`, are checked and then given to
/// `accept`, which may refuse them (an engine that cannot run them).
pub fn plan(
    project: &Project,
    query: Option<&str>,
    overrides: Overrides,
    accept: impl Fn(&Settings) -> Result<()>,
) -> Result<ReproducePlan> {
    let (chapters, problems) = project.chapters_or_all(query)?;
    let mut plan = ReproducePlan {
        chapters: Vec::new(),
        notebooks: Vec::new(),
        evidence: Vec::new(),
        skipped: Vec::new(),
        problems,
    };
    for chapter in chapters {
        let (tables, malformed) =
            read_tables(project.layout(), &chapter, &chapter.state.current_snapshot)
                .map_or((0, true), |p| (p.tables.len(), !p.malformed.is_empty()));
        let settings = settings(project, &chapter);
        let notebook = match plan_chapter(project, &chapter) {
            Ok(n) => n,
            // The tables' own error says more (a claims.yaml read against
            // tables that do not parse fails too); a chapter without any
            // table has only the claims.yaml's error to say.
            Err(_) if settings.is_err() && (tables > 0 || malformed) => None,
            Err(e) if query.is_some() => return Err(e),
            Err(e) => {
                plan.skipped.push(e.to_string());
                continue;
            }
        };
        plan.evidence.push(ChapterEvidence {
            chapter: chapter.key.to_string(),
            tables,
            notebook_claims: notebook.as_ref().map_or(0, |n| n.claims.len()),
        });
        match settings {
            Ok(mut settings) => {
                settings.batches = overrides.batches;
                // A short step gets more measured steps, so every
                // configuration's window lasts about as long.
                settings.more_steps_when_short = true;
                settings.repeat = overrides.repeat;
                settings.rounds = overrides.rounds;
                settings.budget_s = Some(overrides.budget_s);
                settings.worker_kind = overrides.worker_kind;
                settings.check()?;
                accept(&settings)?;
                plan.chapters.push((chapter, settings));
            }
            // No tables, notebook claims: the notebook is the evidence.
            Err(_) if tables == 0 && !malformed && notebook.is_some() => {}
            Err(e) if query.is_some() && notebook.is_none() => return Err(e),
            Err(e) => plan.skipped.push(e.to_string()),
        }
        plan.notebooks.extend(notebook);
    }
    if plan.chapters.is_empty() && plan.notebooks.is_empty() {
        return Err(Error::Usage(format!(
            "no chapter publishes tables or has notebook claims to reproduce{}",
            plan.skipped
                .iter()
                .map(|s| format!("; {s}"))
                .collect::<String>()
        )));
    }
    Ok(plan)
}

/// The chapter's experiment as its current snapshot's tables describe it.
fn settings(project: &Project, chapter: &Chapter) -> Result<Settings> {
    let parsed = read_tables(project.layout(), chapter, &chapter.state.current_snapshot)?;
    let Some(first) = parsed.tables.first() else {
        // Say why, when something looked like a table.
        return Err(Error::Usage(format!(
            "{}: the current snapshot holds no published tables to reproduce{}",
            chapter.key,
            crate::published::tables::why_no_tables(&parsed.malformed)
        )));
    };
    let mut s = Settings::chapter_defaults();
    s.producers.clear();
    s.workers.clear();
    for t in &parsed.tables {
        if !t.header.same_settings_as(&first.header) {
            return Err(Error::Usage(format!(
                "the chapter's tables use different settings ({} and {}); run `bench` for each by hand",
                first.header, t.header
            )));
        }
        if !s.producers.contains(&t.header.producer) {
            s.producers.push(t.header.producer);
        }
        for w in t.workers() {
            if !s.workers.contains(&w) {
                s.workers.push(w);
            }
        }
    }
    s.workers.sort();
    // The window each table's own rows define (its ex/s against its wait
    // and work): a run measures the same quantity, or none of it compares.
    let windows: Vec<_> = parsed
        .tables
        .iter()
        .map(|t| crate::published::audit::table_window(t).kind)
        .collect();
    let window = windows[0];
    if let Some((t, other)) = parsed
        .tables
        .iter()
        .zip(&windows)
        .find(|(_, w)| **w != window)
    {
        return Err(Error::Usage(format!(
            "the chapter's tables take ex/s over different windows ({} over a {}, {} over a {}); run `bench` for each by hand, with the window of each",
            first.header,
            window.label(),
            t.header,
            other.label()
        )));
    }
    s.window = window;
    s.cost_ms = first.header.cost_ms;
    s.batch_size = first.header.batch_size;
    s.consumer_ms = first.header.consumer_ms;
    if let Some(claims) = read_claims(project.layout(), chapter, &parsed)?
        && let Some(n) = claims.claims.iter().find_map(|c| c.preconditions.cpus)
    {
        s.cpus = Some(n);
    }
    Ok(s)
}

/// What measures the runs of a reproduction, and how they are recorded.
pub trait Runner {
    /// Called before a chapter's runs.
    fn starting(&mut self, _chapter: &Chapter, _settings: &Settings) {}

    /// Measures `settings` on `engine`, asking `decided` after each round
    /// from the minimum on whether the run so far settles the claims.
    fn run(
        &mut self,
        settings: &Settings,
        engine: ReproduceEngine,
        decided: Decided<'_>,
    ) -> Result<BenchRun>;

    /// What the record of a run on `engine` names as its source; None: the
    /// run is not recorded.
    fn record_as(&self, engine: ReproduceEngine) -> Option<&'static str>;

    /// Runs a chapter's notebook in fresh kernels (its claims decided in
    /// the run file), recording it in a notebook record of its own when
    /// `record_alone` (the chapter has no pipeline run to share a record
    /// with) and records are made; or says why it does not run it.
    fn run_notebook(&mut self, _planned: &Planned, _record_alone: bool) -> Result<NotebookRan> {
        Ok(NotebookRan::NotRun("the notebook was not run".into()))
    }
}

/// One run of a chapter's experiment, concluded.
#[derive(Debug, Clone)]
pub struct EngineRun {
    pub engine: ReproduceEngine,
    pub run: BenchRun,
    /// The run against the chapter's current snapshot.
    pub diffed: diff::Diffed,
    /// The experiment record, unless recording was turned off.
    pub stored: Option<Stored>,
}

/// One chapter reproduced.
#[derive(Debug, Clone)]
pub struct ReproducedChapter {
    pub chapter: Chapter,
    /// One run per engine, in the order asked.
    pub runs: Vec<EngineRun>,
    /// With both engines: PyTorch's run (A) beside the embedded engine's
    /// (B), so that ratios read as the model over the reference.
    pub side_by_side: Option<RunComparison>,
    /// With both engines: the claims whose verdict differs between them.
    pub verdicts_apart: Vec<VerdictApart>,
    /// Its notebook claims, when it has some.
    pub notebook: Option<NotebookOutcome>,
}

/// A claim the two engines give different verdicts (by class; flags such
/// as the model limit belong to one engine by design).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerdictApart {
    pub claim: String,
    pub embedded: ClaimVerdict,
    pub pytorch: ClaimVerdict,
}

/// The claims whose verdict class differs between the embedded engine's
/// run and PyTorch's.
fn verdicts_apart(embedded: &EngineRun, pytorch: &EngineRun) -> Vec<VerdictApart> {
    embedded
        .diffed
        .diff
        .claims
        .iter()
        .filter_map(|e| {
            let p = pytorch.diffed.diff.claims.iter().find(|p| p.id == e.id)?;
            (p.verdict != e.verdict).then(|| VerdictApart {
                claim: e.id.clone(),
                embedded: e.verdict,
                pytorch: p.verdict,
            })
        })
        .collect()
}

/// What `reproduce` concluded.
#[derive(Debug, Clone)]
pub struct Reproduction {
    pub chapters: Vec<ReproducedChapter>,
    /// From the plan: each chapter's kinds of evidence.
    pub evidence: Vec<ChapterEvidence>,
    /// From the plan: chapters left out, and chapters that could not be read.
    pub skipped: Vec<String>,
    pub problems: Vec<String>,
}

impl Reproduction {
    /// Whether a check failed in any run (see
    /// [`crate::published::diff::PublishedDiff::any_not_reproduced`]).
    pub fn any_not_reproduced(&self) -> bool {
        self.chapters
            .iter()
            .flat_map(|c| &c.runs)
            .any(|r| r.diffed.diff.any_not_reproduced())
            || self.any_notebook_claim(ClaimVerdict::NotReproduced)
    }

    /// Whether any notebook claim has `verdict`.
    fn any_notebook_claim(&self, verdict: ClaimVerdict) -> bool {
        self.chapters
            .iter()
            .filter_map(|c| c.notebook.as_ref())
            .any(|n| n.count(verdict) > 0)
    }

    /// Whether any claim of any run is INCONCLUSIVE (what `--strict` also
    /// fails on).
    pub fn any_inconclusive(&self) -> bool {
        self.chapters
            .iter()
            .flat_map(|c| &c.runs)
            .flat_map(|r| &r.diffed.diff.claims)
            .any(|c| c.verdict == ClaimVerdict::Inconclusive)
            || self.any_notebook_claim(ClaimVerdict::Inconclusive)
    }
}

/// Runs the plan: each chapter in turn, its notebook first (when it has
/// notebook claims: a few seconds, and a Python that cannot run it fails
/// before minutes of measuring), then on each of `engines`, the real
/// DataLoader first (a Python that cannot run it fails before the embedded
/// engine has spent minutes); a chapter's runs are concluded (and
/// recorded) only once every engine has measured, so a run that fails or
/// is interrupted leaves no record of the other. The notebook's run goes
/// into the record of the first engine's run. Then the chapters that have
/// notebook claims and no pipeline experiment, each recorded as a notebook
/// run.
pub fn reproduce(
    project: &Project,
    mut plan: ReproducePlan,
    engines: &[ReproduceEngine],
    runner: &mut dyn Runner,
) -> Result<Reproduction> {
    let mut chapters = Vec::new();
    for (chapter, settings) in plan.chapters {
        let nb_plan = plan
            .notebooks
            .iter()
            .position(|n| n.chapter.key == chapter.key)
            .map(|at| plan.notebooks.remove(at));
        let notebook = nb_plan
            .map(|n| run_notebook(runner, &n, false))
            .transpose()?;
        runner.starting(&chapter, &settings);
        let mut order = engines.to_vec();
        order.sort_by_key(|&e| e != ReproduceEngine::Pytorch);
        let mut measured = Vec::new();
        for engine in order {
            let mut decided = |so_far: &BenchRun| settled(project, &chapter, so_far);
            measured.push((engine, runner.run(&settings, engine, &mut decided)?));
        }
        let mut runs = Vec::new();
        for &engine in engines {
            let at = measured.iter().position(|(e, _)| *e == engine);
            let (_, run) = measured.swap_remove(at.expect("every engine measured"));
            let notebook_run = notebook
                .as_ref()
                .and_then(|n| n.run.as_ref())
                .filter(|_| runs.is_empty());
            runs.push(conclude(
                project,
                &chapter,
                engine,
                run,
                runner.record_as(engine),
                notebook_run,
            )?);
        }
        let pair = match runs.as_slice() {
            [e, p]
                if e.engine == ReproduceEngine::Embedded
                    && p.engine == ReproduceEngine::Pytorch =>
            {
                Some((e, p))
            }
            _ => None,
        };
        let side_by_side =
            pair.map(|(e, p)| compare::compare_runs("pytorch", &p.run, "embedded", &e.run));
        let verdicts_apart = pair.map_or_else(Vec::new, |(e, p)| verdicts_apart(e, p));
        chapters.push(ReproducedChapter {
            chapter,
            runs,
            side_by_side,
            verdicts_apart,
            notebook,
        });
    }
    for n in plan.notebooks {
        let notebook = run_notebook(runner, &n, true)?;
        chapters.push(ReproducedChapter {
            chapter: n.chapter,
            runs: Vec::new(),
            side_by_side: None,
            verdicts_apart: Vec::new(),
            notebook: Some(notebook),
        });
    }
    Ok(Reproduction {
        chapters,
        evidence: plan.evidence,
        skipped: plan.skipped,
        problems: plan.problems,
    })
}

/// A chapter's notebook claims: decided by a run of its notebook, or UNRUN
/// with the reason (no stored notebook, or the runner did not run it).
fn run_notebook(
    runner: &mut dyn Runner,
    plan: &NotebookPlan,
    record_alone: bool,
) -> Result<NotebookOutcome> {
    match &plan.planned {
        Ok(planned) => Ok(NotebookOutcome::of(
            runner.run_notebook(planned, record_alone)?,
            plan,
        )),
        Err(why) => Ok(NotebookOutcome::not_run(plan, why)),
    }
}

/// Whether a run so far settles the chapter's claims: no claim is
/// INCONCLUSIVE that another round could decide (its interval straddles
/// the criterion, or it has too few undisturbed rounds and the latest
/// round was quiet, so the machine is free again). A claim a busy machine
/// keeps undecided is left so: more rounds under the same load would not
/// decide it.
pub fn settled(project: &Project, chapter: &Chapter, run: &BenchRun) -> bool {
    let Ok(found) = diff::diff_run(project, chapter, &chapter.state.current_snapshot, run) else {
        return true;
    };
    let latest = run.rounds();
    let latest_quiet = run.results.iter().all(|c| round_row(c, latest).is_some());
    !found.diff.claims.iter().any(|c| {
        c.verdict == ClaimVerdict::Inconclusive
            && c.rounds
                .as_ref()
                .is_some_and(|e| e.interval.is_some() || latest_quiet)
    })
}

/// Diffs a run of the chapter's experiment with its current snapshot and
/// records it (with the verdicts just found, and `notebook`, the run of the
/// chapter's notebook made beside it) when `record_as` names what made the
/// run.
pub fn conclude(
    project: &Project,
    chapter: &Chapter,
    engine: ReproduceEngine,
    run: BenchRun,
    record_as: Option<&str>,
    notebook: Option<&crate::notebook::NotebookRunFile>,
) -> Result<EngineRun> {
    let diffed = diff::diff_run(project, chapter, &chapter.state.current_snapshot, &run)?;
    let stored = match record_as {
        Some(source) => {
            let verdicts = diff::stored_verdicts(&diffed.diff);
            // The chapter's own experiment; only a knob the user set
            // (thread workers where the claims need processes) can make it
            // incomparable, and then it is recorded marked.
            Some(record::bench_run(
                project,
                chapter,
                &run,
                source,
                Some(verdicts),
                record::Incomparable::RecordMarked,
                notebook,
            )?)
        }
        None => None,
    };
    Ok(EngineRun {
        engine,
        run,
        diffed,
        stored,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::ProducerKind;
    use crate::testing::{chapter06_tables, in_rounds, repo_layout, run_like};

    fn project() -> Project {
        Project::open(repo_layout()).unwrap()
    }

    /// Six rounds of the chapter's own numbers; `edit` changes a round's
    /// row.
    fn six(edit: impl Fn(usize, &mut crate::bench::Row)) -> BenchRun {
        in_rounds(run_like(&chapter06_tables(), 1), 6, edit)
    }

    /// Notes which engines it was asked to run; the real DataLoader fails.
    struct NoTorch(Vec<ReproduceEngine>);

    impl Runner for NoTorch {
        fn run(
            &mut self,
            _: &Settings,
            engine: ReproduceEngine,
            _: Decided<'_>,
        ) -> Result<BenchRun> {
            self.0.push(engine);
            match engine {
                ReproduceEngine::Embedded => Ok(six(|_, _| {})),
                ReproduceEngine::Pytorch => Err(Error::Usage("no torch here".into())),
            }
        }

        fn record_as(&self, _: ReproduceEngine) -> Option<&'static str> {
            None
        }
    }

    #[test]
    fn both_engines_run_the_real_dataloader_first_and_conclude_nothing_when_it_fails() {
        let p = project();
        let ch = p.chapter("pytorch-from-first-principles/06").unwrap();
        let plan = ReproducePlan {
            chapters: vec![(ch, Settings::chapter_defaults())],
            notebooks: Vec::new(),
            evidence: Vec::new(),
            skipped: Vec::new(),
            problems: Vec::new(),
        };
        let mut runner = NoTorch(Vec::new());
        let engines = [ReproduceEngine::Embedded, ReproduceEngine::Pytorch];
        let got = reproduce(&p, plan, &engines, &mut runner);
        assert!(got.is_err());
        assert_eq!(
            runner.0,
            [ReproduceEngine::Pytorch],
            "the embedded engine never ran"
        );
    }

    #[test]
    fn rounds_are_added_only_while_another_round_could_decide_a_claim() {
        let p = project();
        let ch = p.chapter("pytorch-from-first-principles/06").unwrap();
        assert!(settled(&p, &ch, &six(|_, _| {})), "every claim decided");
        // The sleep speed-up's interval straddles 5: another round may
        // decide it.
        let straddling = six(|round, row| {
            if (row.producer, row.workers) == (ProducerKind::Sleep, 8) {
                row.ex_per_s *= 0.6 + 0.03 * round as f64;
            }
        });
        assert!(!settled(&p, &ch, &straddling));
        // Spin w8 disturbed in rounds 1 to 3, the machine quiet since:
        // more rounds will decide.
        let disturbed_in = |last: usize| {
            six(move |round, row| {
                if (row.producer, row.workers) == (ProducerKind::Spin, 8) && round <= last {
                    row.outside = Some(0.4);
                    row.disturbed = true;
                }
            })
        };
        assert!(!settled(&p, &ch, &disturbed_in(3)));
        // Disturbed up to the latest round: more rounds under the same
        // load would not.
        assert!(settled(&p, &ch, &disturbed_in(6)));
    }
}
