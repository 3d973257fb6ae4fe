//! `compare`: two measured runs side by side: every configuration both
//! ran, each number beside its twin, and what differs between the runs
//! themselves (settings, machine, CPUs) so a ratio is never read without
//! the reason it might have.

use serde::Serialize;

use super::Project;
use super::runs::{self, RunSource};
use crate::bench::{BenchRun, ConfigResult, ModelledCosts, ProducerKind, PythonSpeed};
use crate::error::{Error, Result};
use crate::published::interval::IntervalReading;
use crate::published::shift::{self, Shift};

/// Where a run came from and what it was.
#[derive(Debug, Clone, Serialize)]
pub struct RunLabel {
    /// The file path or the recorded run id, as given.
    pub source: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub env_id: String,
    pub cpus_used: Vec<usize>,
    /// Worker kind and, for processes, the hand-off.
    pub engine: String,
    /// Its rounds and how busy the machine was (see
    /// [`crate::bench::export::load_summary`]).
    pub load: String,
    /// Configuration runs other processes disturbed; None when the outside
    /// load was not measured.
    pub disturbed_runs: Option<usize>,
}

/// One number in both runs.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Pair {
    pub a: f64,
    pub b: f64,
    /// b ÷ a, when a is not zero.
    pub ratio: Option<f64>,
    /// b − a.
    pub difference: f64,
}

impl Pair {
    pub(crate) fn new(a: f64, b: f64) -> Pair {
        Pair {
            a,
            b,
            ratio: (a != 0.0).then(|| b / a),
            difference: b - a,
        }
    }
}

/// One configuration both runs measured.
#[derive(Debug, Clone, Serialize)]
pub struct PairedRow {
    pub producer: ProducerKind,
    pub workers: usize,
    pub ex_per_s: Pair,
    pub wait_mean_ms: Pair,
    pub wait_p50_ms: Pair,
    pub work_ms: Pair,
    pub wait_frac: Pair,
    /// Whether ex/s differs by more than both runs' spread.
    pub spread: SpreadOverlap,
    /// The ex/s ratio and the wait_frac difference over the rounds, each
    /// with its 95% interval read against its band.
    pub over_rounds: RowOverRounds,
    /// What differs enough to matter, in words (empty when nothing does).
    pub differences: Vec<String>,
}

/// How far apart the two sides of a row may be and still count as the
/// same: ex/s (and wait, and work) within 1/ratio..ratio of each other,
/// wait_frac within ± wait_frac.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bands {
    pub ratio: f64,
    pub wait_frac: f64,
}

impl Default for Bands {
    fn default() -> Self {
        Bands {
            ratio: RATIO_APART,
            wait_frac: WAIT_FRAC_APART,
        }
    }
}

/// A row's two figures over rounds: None where either run has too few
/// undisturbed rounds of the configuration for a 95% interval.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct RowOverRounds {
    /// ex/s B/A.
    pub ex_per_s_ratio: Option<Judged>,
    /// wait_frac B - A.
    pub wait_frac_difference: Option<Judged>,
    /// The rounds of the configuration with an undisturbed run, in each
    /// run: what the intervals stand on, or why there are none.
    pub rounds_a: usize,
    pub rounds_b: usize,
}

/// A 95% interval and how it stands against its band.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Judged {
    pub interval: Shift,
    pub reading: Agreement,
}

/// What an interval says about a band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Agreement {
    /// The whole interval is within the band: the runs agree.
    Within,
    /// None of it is: the runs differ, beyond their noise.
    Apart,
    /// It reaches both sides of the band's edge: the rounds cannot tell.
    CannotTell,
}

impl Agreement {
    fn of(reading: IntervalReading) -> Self {
        match reading {
            IntervalReading::Inside => Agreement::Within,
            IntervalReading::Outside => Agreement::Apart,
            IntervalReading::Straddles => Agreement::CannotTell,
        }
    }

    /// In words, as the tables print it.
    pub fn text(self) -> &'static str {
        match self {
            Agreement::Within => "within",
            Agreement::Apart => "apart",
            Agreement::CannotTell => "cannot tell",
        }
    }
}

/// A configuration's value of `figure` in each round with an undisturbed
/// run of it.
fn round_values(c: &ConfigResult, figure: fn(&crate::bench::Row) -> f64) -> Vec<f64> {
    c.rounds()
        .into_iter()
        .filter_map(|n| crate::bench::stats::round_row(c, n))
        .map(|row| figure(&row))
        .collect()
}

/// The row's ex/s ratio and wait_frac difference over the rounds of `a`
/// and `b`, against `bands`.
fn over_rounds(a: &ConfigResult, b: &ConfigResult, bands: Bands) -> RowOverRounds {
    let ex = |c| round_values(c, |r| r.ex_per_s);
    let frac = |c| round_values(c, |r| r.wait_frac);
    let judged = |interval: Shift, lo, hi| Judged {
        interval,
        reading: Agreement::of(interval.against(lo, hi)),
    };
    let (ex_a, ex_b) = (ex(a), ex(b));
    RowOverRounds {
        ex_per_s_ratio: shift::ratio_interval(&ex_a, &ex_b)
            .map(|i| judged(i, 1.0 / bands.ratio, bands.ratio)),
        wait_frac_difference: shift::shift_interval(&frac(a), &frac(b))
            .map(|i| judged(i, -bands.wait_frac, bands.wait_frac)),
        rounds_a: ex_a.len(),
        rounds_b: ex_b.len(),
    }
}

/// How two runs' ex/s of a configuration stand against their spread over
/// rounds (each run's undisturbed runs of it, lowest to highest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpreadOverlap {
    /// The two ranges do not overlap.
    Beyond,
    /// They overlap: the difference is within the runs' own noise.
    Within,
    /// A run has a single undisturbed run of it: no spread to read.
    Unknown,
}

/// The lowest and highest ex/s of a configuration's undisturbed runs; None
/// with fewer than two.
fn ex_range(run: &BenchRun, producer: ProducerKind, workers: usize) -> Option<(f64, f64)> {
    let c = run
        .results
        .iter()
        .find(|c| c.producer == producer && c.workers == workers)?;
    let ex: Vec<f64> = c
        .repeats
        .iter()
        .filter(|r| !r.row.disturbed)
        .map(|r| r.row.ex_per_s)
        .collect();
    (ex.len() >= 2).then(|| {
        (
            ex.iter().copied().fold(f64::INFINITY, f64::min),
            ex.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    })
}

fn spread(a: &BenchRun, b: &BenchRun, producer: ProducerKind, workers: usize) -> SpreadOverlap {
    match (
        ex_range(a, producer, workers),
        ex_range(b, producer, workers),
    ) {
        (Some((alo, ahi)), Some((blo, bhi))) if ahi < blo || bhi < alo => SpreadOverlap::Beyond,
        (Some(_), Some(_)) => SpreadOverlap::Within,
        _ => SpreadOverlap::Unknown,
    }
}

/// Two runs compared: what `compare` prints.
#[derive(Debug, Clone, Serialize)]
pub struct RunComparison {
    pub a: RunLabel,
    pub b: RunLabel,
    /// Settings and environment facts that differ, as `name: A vs B`.
    pub run_differences: Vec<String>,
    pub rows: Vec<PairedRow>,
    /// Configurations only one run measured, as `producer workers=N (A|B only)`.
    pub unpaired: Vec<String>,
    /// When one run is PyTorch's and the other the embedded engine's with
    /// process workers: how PyTorch's Python ran here against the engine's
    /// figures, and whether the engine run modelled that.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub python_speed: Option<PythonSpeedNote>,
    /// What the rows' differences are held to.
    pub bands: Bands,
    /// How the rows' intervals over rounds are made.
    pub interval_method: &'static str,
}

/// PyTorch's Python on the machine of the comparison against the machine
/// the engine's figures come from.
#[derive(Debug, Clone, Serialize)]
pub struct PythonSpeedNote {
    #[serde(flatten)]
    pub speed: PythonSpeed,
    /// The engine run's Python and hand-off costs.
    pub engine_ran: ModelledCosts,
    /// Whether those are each within 10% of the machine's (`models_it`).
    pub modelled: bool,
    /// The factor `--calibrate-to-pytorch` set the engine run's costs by,
    /// when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibrated_to: Option<f64>,
}

impl PythonSpeedNote {
    /// Between PyTorch's run and an embedded one with process workers (the
    /// only engine runs with Python costs to scale), either way round.
    fn of(a: &BenchRun, b: &BenchRun) -> Option<Self> {
        let (pytorch, engine) = match (&a.reference, &b.reference) {
            (Some(_), None) => (a, b),
            (None, Some(_)) => (b, a),
            _ => return None,
        };
        let s = &engine.settings;
        if s.worker_kind != crate::bench::WorkerKind::Process {
            return None;
        }
        let speed = PythonSpeed::of_run(pytorch, s)?;
        Some(PythonSpeedNote {
            speed,
            engine_ran: ModelledCosts::ran(s),
            modelled: speed.modelled_by(s),
            calibrated_to: engine.calibrated_to_pytorch,
        })
    }
}

/// A wait fraction this far apart is a different split of the step.
pub const WAIT_FRAC_APART: f64 = 0.10;
/// A ratio outside 1/x..x is a different size.
pub const RATIO_APART: f64 = 1.2;

/// Loads `text` as a run file when such a file exists, else as a recorded
/// run id. `project` is asked for only in the second case.
fn load(text: &str, project: impl FnOnce() -> Result<Project>) -> Result<BenchRun> {
    let path = std::path::Path::new(text);
    if path.exists() {
        return BenchRun::load(path);
    }
    if crate::ids::RunId::parse(text).is_err() {
        return Err(Error::Usage(format!(
            "'{text}' is neither a run file nor a recorded run id"
        )));
    }
    Ok(runs::select(&project()?, RunSource::Recorded(text), None)?.run)
}

fn label(source: &str, run: &BenchRun) -> RunLabel {
    let s = &run.settings;
    let engine = match (&run.reference, s.worker_kind) {
        (Some(reference), _) => reference.to_string(),
        (None, crate::bench::WorkerKind::Process) => {
            format!("process workers, {} hand-off", s.transport)
        }
        (None, crate::bench::WorkerKind::Thread) => "thread workers".to_string(),
    };
    RunLabel {
        source: source.to_string(),
        created_at: run.created_at,
        env_id: run.environment.env_id.clone(),
        cpus_used: run.cpus_used.clone(),
        engine,
        load: crate::bench::export::load_summary(run),
        disturbed_runs: run.outside_measured().then(|| run.disturbance().0),
    }
}

/// Top-level settings fields whose values differ, as `name: A vs B`. A
/// setting one run recorded but did not run (`BenchRun::settings_not_run`)
/// is no difference; where the other run set it away from the value the
/// first recorded, one line says what that run's model ran with.
fn settings_differences(a: &BenchRun, b: &BenchRun) -> Vec<String> {
    // A start scale not given ran at the Python cost scale: where either
    // run gave one, the other's is the scale it ran at.
    let (fork, setup) = [&a.settings, &b.settings]
        .iter()
        .fold((false, false), |(f, s), x| {
            (
                f || x.fork_cost_scale.is_some(),
                s || x.setup_cost_scale.is_some(),
            )
        });
    let ran = |s: &crate::bench::Settings| {
        let (ran_fork, ran_setup) = s.start_scales();
        let mut s = s.clone();
        if fork {
            s.fork_cost_scale = Some(ran_fork);
        }
        if setup {
            s.setup_cost_scale = Some(ran_setup);
        }
        s
    };
    let (Ok(serde_json::Value::Object(sa)), Ok(serde_json::Value::Object(sb))) = (
        serde_json::to_value(ran(&a.settings)),
        serde_json::to_value(ran(&b.settings)),
    ) else {
        return Vec::new();
    };
    let show = |v: Option<&serde_json::Value>| match v {
        None | Some(serde_json::Value::Null) => "unset".to_string(),
        Some(v) => v.to_string().replace('"', ""),
    };
    let (na, nb) = (a.settings_not_run(), b.settings_not_run());
    // A cost or lock of 0 is what thread workers or the pipe have where they
    // do not run it (PyTorch has its own, so not there).
    let none = |v: Option<&serde_json::Value>, other: &BenchRun| {
        other.reference.is_none() && v.and_then(serde_json::Value::as_f64) == Some(0.0)
    };
    let mut keys: Vec<&String> = sa.keys().chain(sb.keys()).collect();
    keys.sort();
    keys.dedup();
    // Another window is said first, in words (`measurement: ...`).
    keys.retain(|k| k.as_str() != "window");
    let mut out = Vec::new();
    let mut only = [Vec::new(), Vec::new()];
    for k in keys {
        // Which configurations ran is what the rows show.
        if matches!(k.as_str(), "producers" | "workers") || sa.get(k) == sb.get(k) {
            continue;
        }
        match (na.contains(&k.as_str()), nb.contains(&k.as_str())) {
            (false, false) => out.push(format!("{k}: {} vs {}", show(sa.get(k)), show(sb.get(k)))),
            (true, false) if !none(sb.get(k), a) => {
                only[1].push(format!("{k} {}", show(sb.get(k))))
            }
            (false, true) if !none(sa.get(k), b) => {
                only[0].push(format!("{k} {}", show(sa.get(k))))
            }
            _ => {}
        }
    }
    for (name, set) in ["A", "B"].into_iter().zip(only) {
        if !set.is_empty() {
            out.push(format!(
                "{name} alone has {} (the other run has no such setting)",
                set.join(", ")
            ));
        }
    }
    out
}

/// What differs enough to matter between the two sides of a row.
fn row_differences(p: &PairedRow, bands: Bands) -> Vec<String> {
    let mut out = Vec::new();
    let apart = |r: Option<f64>| r.is_some_and(|r| !(1.0 / bands.ratio..=bands.ratio).contains(&r));
    // The medians alone can differ by noise: where the rounds give an
    // interval that does not say the same, the difference says so.
    let noise = |j: Option<Judged>| match j.map(|j| j.reading) {
        Some(Agreement::CannotTell) => " (but its 95% interval over rounds cannot tell)",
        Some(Agreement::Within) => " (but its 95% interval over rounds is within the band)",
        _ => "",
    };
    if apart(p.ex_per_s.ratio) {
        out.push(format!(
            "ex/s x{:.2}{}",
            p.ex_per_s.ratio.unwrap_or(0.0),
            noise(p.over_rounds.ex_per_s_ratio)
        ));
    }
    let (wait, work, frac) = (p.wait_mean_ms, p.work_ms, p.wait_frac);
    if (frac.b - frac.a).abs() > bands.wait_frac {
        out.push(format!(
            "wait_frac {:.2} vs {:.2} ({:+.2}){}",
            frac.a,
            frac.b,
            frac.b - frac.a,
            noise(p.over_rounds.wait_frac_difference)
        ));
    }
    // The split of the step: the same step time can be waiting in one run
    // and working in the other.
    if apart(wait.ratio) && (wait.b - wait.a).abs() >= 1.0 {
        let (wa, wb) = (format!("{:.1}", work.a), format!("{:.1}", work.b));
        out.push(if wa == wb {
            // No split to show: the work printed is the same on both sides.
            format!("wait {:.1} vs {:.1} ms", wait.a, wait.b)
        } else {
            format!(
                "wait {:.1} vs {:.1} ms, work {wa} vs {wb} ms",
                wait.a, wait.b
            )
        });
    } else if apart(work.ratio) && (work.b - work.a).abs() >= 1.0 {
        out.push(format!("work {:.1} vs {:.1} ms", work.a, work.b));
    }
    out
}

/// Compares the runs `a` and `b` name (each a run file or a recorded run
/// id; `project` is opened only for an id), holding their rows to `bands`.
pub fn compare(
    a: &str,
    b: &str,
    bands: Bands,
    project: impl Fn() -> Result<Project>,
) -> Result<RunComparison> {
    let run_a = load(a, &project)?;
    let run_b = load(b, &project)?;
    Ok(compare_within(a, &run_a, b, &run_b, bands))
}

/// [`compare_within`] at the default bands.
pub fn compare_runs(sa: &str, a: &BenchRun, sb: &str, b: &BenchRun) -> RunComparison {
    compare_within(sa, a, sb, b, Bands::default())
}

/// Pairs every configuration of `a` with its twin in `b`, holding their
/// differences to `bands`; `sa` and `sb` say where each run came from.
pub fn compare_within(
    sa: &str,
    a: &BenchRun,
    sb: &str,
    b: &BenchRun,
    bands: Bands,
) -> RunComparison {
    let mut rows = Vec::new();
    let mut unpaired = Vec::new();
    for ca in &a.results {
        let ra = &ca.summary;
        let Some(cb) = b
            .results
            .iter()
            .find(|c| c.producer == ra.producer && c.workers == ra.workers)
        else {
            unpaired.push(format!("{} workers={} (A only)", ra.producer, ra.workers));
            continue;
        };
        let rb = &cb.summary;
        let mut row = PairedRow {
            producer: ra.producer,
            workers: ra.workers,
            ex_per_s: Pair::new(ra.ex_per_s, rb.ex_per_s),
            wait_mean_ms: Pair::new(ra.wait_mean_ms, rb.wait_mean_ms),
            wait_p50_ms: Pair::new(ra.wait_p50_ms, rb.wait_p50_ms),
            work_ms: Pair::new(ra.work_ms, rb.work_ms),
            wait_frac: Pair::new(ra.wait_frac, rb.wait_frac),
            spread: spread(a, b, ra.producer, ra.workers),
            over_rounds: over_rounds(ca, cb, bands),
            differences: Vec::new(),
        };
        row.differences = row_differences(&row, bands);
        // Beyond both spreads says the runs differ at all; where the ex/s
        // interval lies within the band, they differ by less than matters.
        match (row.spread, row.over_rounds.ex_per_s_ratio.map(|j| j.reading)) {
            (SpreadOverlap::Beyond, Some(Agreement::Within)) => {}
            (SpreadOverlap::Beyond, Some(Agreement::CannotTell)) => row.differences.push(
                "ex/s beyond both runs' spread over their rounds (but its 95% interval over rounds cannot tell whether by more than the band)".into(),
            ),
            (SpreadOverlap::Beyond, _) => row
                .differences
                .push("ex/s beyond both runs' spread over their rounds".into()),
            _ => {}
        }
        rows.push(row);
    }
    for rb in b.results.iter().map(|r| &r.summary) {
        if a.row(rb.producer, rb.workers).is_none() {
            unpaired.push(format!("{} workers={} (B only)", rb.producer, rb.workers));
        }
    }
    let mut run_differences = settings_differences(a, b);
    let engine = |r: &BenchRun| match (&r.reference, &r.engine_model) {
        (Some(reference), _) => format!("{} {}", reference.engine, reference.torch),
        (None, Some(model)) => format!("embedded (model of {model})"),
        (None, None) => "embedded (model not named, an older run file)".to_string(),
    };
    if engine(a) != engine(b) {
        run_differences.insert(0, format!("engine: {} vs {}", engine(a), engine(b)));
    }
    // Another window is another quantity: first, and in words.
    if a.settings.window != b.settings.window {
        run_differences.insert(
            0,
            format!(
                "measurement: {} vs {}: ex/s over different steps, not the same quantity",
                a.settings.window.label(),
                b.settings.window.label()
            ),
        );
    }
    if a.environment.env_id != b.environment.env_id {
        let short = |id: &str| crate::env::short_id(id);
        run_differences.push(format!(
            "environment: {} ({} CPUs) vs {} ({} CPUs)",
            short(&a.environment.env_id),
            a.environment.identity.logical_cpus,
            short(&b.environment.env_id),
            b.environment.identity.logical_cpus
        ));
    }
    // A machine's load changes what it measures: say so, the settings aside.
    let load_1m = |r: &BenchRun| r.environment.volatile.load_average.map(|l| l[0]);
    if let (Some(la), Some(lb)) = (load_1m(a), load_1m(b))
        && (la - lb).abs() >= 1.0
    {
        run_differences.push(format!("load average when it started: {la:.2} vs {lb:.2}"));
    }
    // Each run's own line says how many of its runs were disturbed; as a
    // difference it counts only when the counts differ.
    let (da, db) = (a.disturbance(), b.disturbance());
    if da.0 != db.0 {
        run_differences.push(format!(
            "configuration runs disturbed by other processes: {} vs {}",
            da.0, db.0
        ));
    }
    if a.cpus_used != b.cpus_used {
        run_differences.push(format!(
            "CPUs used: {} vs {}",
            crate::text::format::list(&a.cpus_used),
            crate::text::format::list(&b.cpus_used)
        ));
    }
    RunComparison {
        a: label(sa, a),
        b: label(sb, b),
        run_differences,
        rows,
        unpaired,
        python_speed: PythonSpeedNote::of(a, b),
        bands,
        interval_method: shift::METHOD,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{chapter06_tables, in_rounds, run_like};

    /// The chapter's numbers in six rounds, ex/s off by `spread` (a
    /// fraction) from the lowest round to the highest, all scaled by `scale`.
    fn rounds(scale: f64, spread: f64) -> BenchRun {
        in_rounds(run_like(&chapter06_tables(), 1), 6, move |round, row| {
            row.ex_per_s *= scale * (1.0 + spread * (round as f64 - 1.0) / 5.0);
        })
    }

    #[test]
    fn two_runs_differ_beyond_their_spread_only_when_their_ranges_do_not_overlap() {
        let a = rounds(1.0, 0.02);
        let beyond = compare_runs("a", &a, "b", &rounds(1.05, 0.02));
        assert!(
            beyond
                .rows
                .iter()
                .all(|r| r.spread == SpreadOverlap::Beyond)
        );
        // 5% apart is beyond the spread but within the band of x1.2, which
        // the interval over rounds shows: no difference that matters.
        assert!(beyond.rows.iter().all(|r| r.differences.is_empty()));
        // Held to x1.02, the same rows differ.
        let tight = Bands {
            ratio: 1.02,
            ..Bands::default()
        };
        let held = compare_within("a", &a, "b", &rounds(1.05, 0.02), tight);
        assert!(
            held.rows[0]
                .differences
                .iter()
                .any(|d| d == "ex/s beyond both runs' spread over their rounds"),
            "{:?}",
            held.rows[0].differences
        );
        let within = compare_runs("a", &a, "b", &rounds(1.01, 0.02));
        assert!(
            within
                .rows
                .iter()
                .all(|r| r.spread == SpreadOverlap::Within)
        );
        // A single run has no spread to read.
        let single = compare_runs("a", &a, "b", &run_like(&chapter06_tables(), 1));
        assert!(
            single
                .rows
                .iter()
                .all(|r| r.spread == SpreadOverlap::Unknown)
        );
        assert_eq!(single.b.disturbed_runs, None, "its load was not measured");
        assert_eq!(single.a.disturbed_runs, Some(0));
    }

    /// Six rounds at ex/s x`scale` (2% spread) and wait_frac moved by
    /// `shift` plus a spread of `spread` from the lowest round to the
    /// highest.
    fn rounds_frac(scale: f64, shift: f64, spread: f64) -> BenchRun {
        in_rounds(run_like(&chapter06_tables(), 1), 6, move |round, row| {
            let step = (round as f64 - 1.0) / 5.0;
            row.ex_per_s *= scale * (1.0 + 0.02 * step);
            row.wait_frac = (row.wait_frac + shift + spread * (step - 0.5)).clamp(0.0, 1.0);
        })
    }

    #[test]
    fn rows_over_rounds_read_within_apart_or_cannot_tell_against_the_bands() {
        let bands = Bands {
            ratio: 1.10,
            wait_frac: 0.05,
        };
        let a = rounds_frac(1.0, 0.0, 0.01);
        let row = |b: &BenchRun| compare_within("a", &a, "b", b, bands).rows[1].over_rounds;
        // 3% faster and 0.01 more waiting, with little spread: the same.
        let close = row(&rounds_frac(1.03, 0.01, 0.01));
        let ex = close.ex_per_s_ratio.unwrap();
        assert_eq!(ex.reading, Agreement::Within);
        assert!((ex.interval.estimate - 1.03).abs() < 0.01, "{ex:?}");
        assert_eq!(
            close.wait_frac_difference.unwrap().reading,
            Agreement::Within
        );
        // 20% faster and 0.15 more waiting: apart, beyond the noise.
        let far = row(&rounds_frac(1.20, 0.15, 0.01));
        assert_eq!(far.ex_per_s_ratio.unwrap().reading, Agreement::Apart);
        assert_eq!(far.wait_frac_difference.unwrap().reading, Agreement::Apart);
        // 0.05 more waiting with a spread of 0.10: the rounds cannot tell.
        let noisy = row(&rounds_frac(1.0, 0.05, 0.10));
        assert_eq!(
            noisy.wait_frac_difference.unwrap().reading,
            Agreement::CannotTell
        );
        // One round: no interval at all.
        let single = compare_within("a", &a, "b", &run_like(&chapter06_tables(), 1), bands);
        assert!(
            single
                .rows
                .iter()
                .all(|r| r.over_rounds.ex_per_s_ratio.is_none()
                    && r.over_rounds.wait_frac_difference.is_none())
        );
    }

    #[test]
    fn a_median_difference_the_rounds_cannot_tell_from_noise_says_so() {
        let a = rounds_frac(1.0, 0.0, 0.02);
        // The medians 0.06 apart, against a band of 0.05, with a spread of
        // 0.30 around them.
        let b = rounds_frac(1.0, 0.06, 0.30);
        let bands = Bands {
            ratio: 1.10,
            wait_frac: 0.05,
        };
        let c = compare_within("a", &a, "b", &b, bands);
        let d = &c.rows[1].differences;
        assert!(
            d.iter().any(|d| d.starts_with("wait_frac")
                && d.ends_with("(but its 95% interval over rounds cannot tell)")),
            "{d:?}"
        );
        // At the default bands the same rows differ in nothing.
        assert!(
            compare_runs("a", &a, "b", &b).rows[1]
                .differences
                .is_empty()
        );
    }

    #[test]
    fn a_wait_apart_shows_the_work_beside_it_only_where_the_work_differs() {
        let with_work = |wait: f64, work: f64| {
            in_rounds(run_like(&chapter06_tables(), 1), 1, move |_, row| {
                row.wait_mean_ms = wait;
                row.work_ms = work;
            })
        };
        let differences =
            |x: &BenchRun, y: &BenchRun| compare_runs("x", x, "y", y).rows[0].differences.clone();
        // A consumer of 0 ms: both sides work 0.0 ms, so only the wait moved.
        let d = differences(&with_work(6.2, 0.0), &with_work(8.1, 0.0));
        assert!(d.contains(&"wait 6.2 vs 8.1 ms".to_string()), "{d:?}");
        // The time moved from waiting into the step: both halves shown.
        let d = differences(&with_work(6.2, 2.0), &with_work(8.1, 0.3));
        assert!(
            d.contains(&"wait 6.2 vs 8.1 ms, work 2.0 vs 0.3 ms".to_string()),
            "{d:?}"
        );
    }

    #[test]
    fn a_setting_one_run_did_not_run_is_no_difference_but_the_other_run_says_it_set_it() {
        use crate::testing::measured_by_pytorch;
        let pytorch = measured_by_pytorch(run_like(&chapter06_tables(), 1));
        let mut model = run_like(&chapter06_tables(), 1);
        model.settings.python_cost_scale = 0.0;
        model.settings.seed = 7;
        let c = compare_runs("pytorch", &pytorch, "model", &model);
        assert!(
            !c.run_differences
                .iter()
                .any(|d| d.starts_with("seed:") || d.starts_with("python_cost_scale:")),
            "PyTorch has no such knobs: {:?}",
            c.run_differences
        );
        assert!(
            c.run_differences.contains(
                &"B alone has python_cost_scale 0.0, seed 7 (the other run has no such setting)"
                    .to_string()
            ),
            "{:?}",
            c.run_differences
        );
        // At the model's defaults there is nothing to say.
        let c = compare_runs(
            "pytorch",
            &pytorch,
            "model",
            &run_like(&chapter06_tables(), 1),
        );
        assert_eq!(
            c.run_differences,
            vec![format!(
                "engine: pytorch 2.15.0 vs embedded (model of {})",
                crate::bench::calibration::ENGINE_MODEL
            )]
        );
        // Thread workers run no Python costs: a scale they recorded is none,
        // and one of 0 elsewhere is the same; one of 2 is not.
        let mut threads = run_like(&chapter06_tables(), 1);
        threads.settings.worker_kind = crate::bench::WorkerKind::Thread;
        let c = compare_runs("threads", &threads, "model", &model);
        assert!(
            !c.run_differences
                .iter()
                .any(|d| d.contains("python_cost_scale")),
            "{:?}",
            c.run_differences
        );
        model.settings.python_cost_scale = 2.0;
        let c = compare_runs("threads", &threads, "model", &model);
        assert!(
            c.run_differences.contains(
                &"B alone has python_cost_scale 2.0 (the other run has no such setting)"
                    .to_string()
            ),
            "{:?}",
            c.run_differences
        );
    }

    #[test]
    fn runs_over_different_windows_say_first_they_are_not_the_same_quantity() {
        let steady = run_like(&chapter06_tables(), 1);
        let mut whole = steady.clone();
        whole.settings.window = crate::bench::WindowKind::WholeRun;
        let c = compare_runs("old", &whole, "new", &steady);
        assert_eq!(
            c.run_differences[0],
            "measurement: whole-run window vs steady-state window: ex/s over different steps, not the same quantity"
        );
        let c = compare_runs("a", &steady, "b", &steady.clone());
        assert!(
            !c.run_differences
                .iter()
                .any(|d| d.starts_with("measurement"))
        );
    }

    #[test]
    fn a_start_scale_not_given_compares_as_the_python_scale_it_ran_at() {
        let mut plain = run_like(&chapter06_tables(), 1);
        plain.settings.python_cost_scale = 0.3;
        plain.settings.fork_cost_scale = None;
        plain.settings.setup_cost_scale = None;
        let mut given = plain.clone();
        given.settings.fork_cost_scale = Some(0.3);
        given.settings.setup_cost_scale = Some(0.3);
        let c = compare_runs("plain", &plain, "given", &given);
        assert!(
            !c.run_differences.iter().any(|d| d.contains("cost_scale")),
            "the same start: {:?}",
            c.run_differences
        );
        given.settings.setup_cost_scale = Some(0.6);
        let c = compare_runs("plain", &plain, "given", &given);
        let scales: Vec<&String> = c
            .run_differences
            .iter()
            .filter(|d| d.contains("cost_scale"))
            .collect();
        assert_eq!(scales, [&"setup_cost_scale: 0.3 vs 0.6".to_string()]);
    }

    #[test]
    fn disturbed_runs_are_a_difference_between_runs() {
        let a = rounds(1.0, 0.02);
        let mut b = rounds(1.0, 0.02);
        let first = &mut b.results[0].repeats[0].row;
        first.outside = Some(0.4);
        first.disturbed = true;
        let c = compare_runs("a", &a, "b", &b);
        assert!(
            c.run_differences
                .contains(&"configuration runs disturbed by other processes: 0 vs 1".to_string()),
            "{:?}",
            c.run_differences
        );
        assert!(c.b.load.contains("machine busy"), "{}", c.b.load);
        // A disturbed run beside itself: the same count is no difference,
        // and each run's own line still says it was disturbed.
        let same = compare_runs("b", &b, "b", &b);
        assert!(
            same.run_differences.is_empty(),
            "{:?}",
            same.run_differences
        );
        assert!(same.a.load.contains("machine busy"), "{}", same.a.load);
    }
}
