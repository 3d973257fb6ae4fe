//! The reference engine: the same configurations run on the real PyTorch
//! DataLoader by the Python harness this crate embeds (`pytorch_harness.py`).
//! Its measurements go through the same statistics as the embedded engine's
//! and become the same run file, marked with the engine that produced them
//! ([`ReferenceEngine`]).

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use chrono::Utc;
use serde::Deserialize;

use super::config::ms_to_ns;
use super::engine::{Measured, new_histogram};
use super::harness_runner::{self, Bounds, HARNESS_TIMEOUT_ENV, Stopped};
use super::run_file::{
    BenchRun, ConfigResult, PythonPerBatch, PythonStart, RUN_SCHEMA, ReferenceEngine,
};
use super::{Settings, stats};
use crate::env::Environment;
use crate::error::{Error, HarnessError, Result};
use crate::sys;

/// The harness, as shipped.
pub const HARNESS: &str = include_str!("pytorch_harness.py");

/// How to get PyTorch, for the error that says it is missing.
const INSTALL: &str = "install it with `python3 -m venv DIR && DIR/bin/pip install torch numpy` and use DIR/bin/python";

/// One line of error when `python` cannot be started (the command line
/// adds the flag).
pub fn check_python(python: &Path) -> Result<()> {
    crate::bounded_child::findable(python)
        .map_err(|e| Error::Usage(format!("cannot run {} ({e}); {INSTALL}", python.display())))
}

/// The answer format this tool reads. Version 2: the window starts at the
/// iterator's creation when there is no warm-up (as the engine's), and
/// `workers_cpu_ns` is there. Version 3: `load`, the counters around each
/// configuration. Version 4: `start_cpu_ns` and `worker_setup_ns`, what
/// starting the workers cost. Version 5: `per_batch`, what the per-batch
/// path costs hot. Version 6: each worker count's window (`windows`: its
/// warm-up, measured steps and tail), the tail made and never measured.
const HARNESS_VERSION: u32 = 6;

/// Earlier answers this tool still reads: version 3 lacks what the start
/// cost (its run has no [`PythonStart`]), version 2 `load` as well (its
/// rows have no outside share, as run files made before it was measured),
/// version 4 the per-batch probe (its run has no [`PythonPerBatch`]).
const HARNESS_VERSIONS_READ: [u32; 5] = [2, 3, 4, 5, HARNESS_VERSION];

/// One configuration as the harness measured it.
#[derive(Debug, Deserialize)]
struct HarnessRun {
    producer: super::ProducerKind,
    workers: usize,
    startup_ns: u64,
    window_ns: u64,
    waits_ns: Vec<u64>,
    works_ns: Vec<u64>,
    on_cpu_ns: u64,
    run_delay_ns: u64,
    involuntary_switches: u64,
    /// All worker processes' CPU time together (answers from harnesses
    /// before this field have none).
    #[serde(default)]
    workers_cpu_ns: Option<u64>,
    /// What the harness read around the configuration, for its outside
    /// load (answers from harnesses before version 3 have none).
    #[serde(default)]
    load: Option<HarnessLoad>,
    /// The loop thread's CPU in `iter(loader)`, which forks the workers
    /// (answers before version 4 have none).
    #[serde(default)]
    start_cpu_ns: Option<u64>,
    /// Each worker's process CPU at `worker_init_fn`; 0 for a worker that
    /// never got there.
    #[serde(default)]
    worker_setup_ns: Vec<u64>,
}

/// The counters around one configuration: `/proc/stat`'s per-CPU lines
/// before the loader was made and after its workers were waited for, the
/// wall time between, and the harness's own CPU time over it (its process,
/// every thread, and its waited-for workers: RUSAGE_SELF + RUSAGE_CHILDREN).
#[derive(Debug, Deserialize)]
struct HarnessLoad {
    stat_before: String,
    stat_after: String,
    wall_ns: u64,
    own_cpu_ns: u64,
}

/// The harness's whole answer.
#[derive(Debug, Deserialize)]
struct HarnessOutput {
    harness: u32,
    python: String,
    torch: String,
    sharing_strategy: String,
    start_method: String,
    cpus: Vec<usize>,
    results: Vec<HarnessRun>,
    /// The per-batch probe (answers before version 5 have none).
    #[serde(default)]
    per_batch: Option<HarnessPerBatch>,
}

/// The harness's per-batch probe: one worker, cost 0, no consumer, the
/// differences of a long run and a short one over the batches between.
/// Signed: on a busy machine a difference can come out below 0.
#[derive(Debug, Deserialize)]
struct HarnessPerBatch {
    batch_size: usize,
    sample_floats: usize,
    batches: u64,
    worker_ns: i64,
    loop_ns: i64,
}

/// The floats per sample the probe must use: those of the figures it is
/// read against.
const PROBE_FLOATS: usize = 64;

/// The settings the harness reads.
fn harness_argument(s: &Settings) -> String {
    serde_json::json!({
        "producers": s.producers,
        "cost_ns": ms_to_ns(s.cost_ms),
        "batch_size": s.batch_size,
        "consumer_ns": ms_to_ns(s.consumer_ms),
        "workers": s.workers,
        // Each configuration's steps, as the engine takes them.
        "windows": s
            .configurations()
            .into_iter()
            .map(|(producer, w)| {
                let p = s.window_plan(producer, w);
                (
                    format!("{producer}/{w}"),
                    serde_json::json!([p.warmup, p.measured, p.tail]),
                )
            })
            .collect::<serde_json::Map<_, _>>(),
        "repeat": s.repeat,
        "prefetch_factor": s.prefetch_factor,
        "sample_floats": s.sample_floats,
    })
    .to_string()
}

/// Runs the harness with `python` under `settings` (on the CPUs the caller
/// set) and returns its measurements as a run file. A Python that cannot be
/// run or cannot import torch is a usage error (the caller chose it). The
/// harness runs within the bounds `harness_runner` enforces: a time limit
/// from the run's size, its answer's size, a process group ended with it.
pub fn run(settings: &Settings, environment: Environment, python: &Path) -> Result<BenchRun> {
    let (limits, limit_from_env) = bounds(settings)?;
    let unwritten = HarnessError::NotWritten;
    // A folder of the run's own for the script and for every temporary file
    // Python makes (multiprocessing's `pymp-*` folders, which a killed
    // DataLoader leaves behind): removed when `folder` drops, on every way
    // out of here.
    let folder = tempfile::Builder::new()
        .prefix("research-companion-harness-")
        .tempdir()
        .map_err(unwritten)?;
    let script = folder.path().join("research_companion_harness.py");
    std::fs::File::create_new(&script)
        .and_then(|mut f| f.write_all(HARNESS.as_bytes()))
        .map_err(unwritten)?;
    let mut cmd = Command::new(python);
    cmd.arg(&script)
        .arg(harness_argument(settings))
        .env("TMPDIR", folder.path());
    let output = harness_runner::run(cmd, limits).map_err(|e| match e {
        Stopped::NotStarted(e) => {
            Error::Usage(format!("cannot run {} ({e}); {INSTALL}", python.display()))
        }
        Stopped::Interrupted => Error::Interrupted,
        Stopped::TimedOut => HarnessError::TimedOut {
            limit: limits.time,
            from_env: limit_from_env,
        }
        .into(),
        Stopped::TooMuchOutput => HarnessError::TooMuchOutput {
            limit: limits.stdout_bytes,
        }
        .into(),
    })?;
    let last = output.stderr_tail.lines().last().unwrap_or("").trim();
    match output.status.code() {
        Some(0) => {}
        Some(3) => {
            return Err(Error::Usage(format!(
                "{} cannot import torch; {INSTALL}",
                python.display()
            )));
        }
        _ => {
            return Err(HarnessError::Failed {
                python: python.to_path_buf(),
                status: output.status,
                last_line: last.to_string(),
            }
            .into());
        }
    }
    let parsed: HarnessOutput = serde_json::from_slice(&output.stdout).map_err(|reason| {
        let text = String::from_utf8_lossy(&output.stdout);
        HarnessError::NotItsAnswer {
            python: python.to_path_buf(),
            reason,
            start: crate::text::format::prefix(text.trim(), 60).to_string(),
        }
    })?;
    to_run(settings, environment, parsed)
}

/// The shortest time limit RESEARCH_COMPANION_HARNESS_TIMEOUT may set, in
/// seconds: a millisecond, so that the limit prints as a time.
const MIN_TIMEOUT_S: f64 = 0.001;
/// The longest, in seconds (about 115 days).
const MAX_TIMEOUT_S: f64 = 1e7;

/// The time limit RESEARCH_COMPANION_HARNESS_TIMEOUT sets, if it sets one:
/// unset, none; set, it must be a number of seconds in range (a blank value
/// or one that is not UTF-8 is refused, not taken for unset). Checked
/// before a run starts, so that a bad value fails at once rather than
/// after the progress line.
pub fn timeout_from_env() -> Result<Option<Duration>> {
    let v = match std::env::var(HARNESS_TIMEOUT_ENV) {
        Err(std::env::VarError::NotPresent) => return Ok(None),
        Err(std::env::VarError::NotUnicode(raw)) => raw.to_string_lossy().into_owned(),
        Ok(v) => v,
    };
    if v.trim().is_empty() {
        return Err(HarnessError::BlankTimeout {
            min: MIN_TIMEOUT_S,
            max: MAX_TIMEOUT_S,
        }
        .into());
    }
    match v.trim().parse::<f64>() {
        Ok(secs) if (MIN_TIMEOUT_S..=MAX_TIMEOUT_S).contains(&secs) => {
            Ok(Some(Duration::from_secs_f64(secs)))
        }
        _ => Err(HarnessError::BadTimeout {
            value: crate::text::escape::visible(&v).into_owned(),
            min: MIN_TIMEOUT_S,
            max: MAX_TIMEOUT_S,
        }
        .into()),
    }
}

/// The time and output the harness may take for `s`, and whether the
/// environment set the time rather than the run's size.
fn bounds(s: &Settings) -> Result<(Bounds, bool)> {
    let (time, from_env) = match timeout_from_env()? {
        Some(time) => (time, true),
        None => (time_limit(s), false),
    };
    let bounds = Bounds {
        time,
        stdout_bytes: answer_bytes(s),
    };
    Ok((bounds, from_env))
}

/// How many configurations the harness runs.
fn configurations(s: &Settings) -> u64 {
    (s.producers.len() * s.workers.len() * s.repeat) as u64
}

/// The time the harness may take: a minute to start Python and import
/// torch, another for the per-batch probe (two loaders of one worker and
/// 60 and 300 batches of cost 0), then for each configuration 30 s to
/// start its workers plus four
/// times the run's time if nothing overlapped: (first batch + warm-up +
/// measured batches + tail) × (batch size × cost + consumer). docs/commands.md
/// states the same rule.
pub fn time_limit(s: &Settings) -> Duration {
    let per_batch_ms = s.batch_size as f64 * s.cost_ms + s.consumer_ms;
    let configs: f64 = s
        .configurations()
        .into_iter()
        .map(|(producer, w)| {
            let batches = s.window_plan(producer, w).dataset() as f64;
            30.0 + 4.0 * batches * per_batch_ms / 1000.0
        })
        .sum();
    let per_round = configs * s.repeat as f64;
    Duration::from_secs_f64(120.0 + per_round)
}

/// The most the harness's answer can take for `s`: per configuration two
/// lists of `batches` numbers (at most 20 digits and a separator each) and
/// 4 KiB for the rest, and 64 KiB for the whole.
fn answer_bytes(s: &Settings) -> usize {
    let most = s
        .configurations()
        .into_iter()
        .map(|(p, w)| s.window_plan(p, w).measured)
        .max()
        .unwrap_or(s.batches);
    let per_config = 2 * most.saturating_mul(22) + 4096;
    usize::try_from(
        configurations(s)
            .saturating_mul(per_config)
            .saturating_add(64 << 10),
    )
    .unwrap_or(usize::MAX)
}

fn to_run(settings: &Settings, environment: Environment, out: HarnessOutput) -> Result<BenchRun> {
    if !HARNESS_VERSIONS_READ.contains(&out.harness) {
        return Err(HarnessError::Version {
            spoken: out.harness,
            expected: HARNESS_VERSION,
        }
        .into());
    }
    let cpus = out.cpus.len().max(1);
    let start = python_start(&out.results);
    let per_batch = match &out.per_batch {
        Some(p) => python_per_batch(settings, p).map_err(|problem| HarnessError::OutOfRange {
            config: "the per-batch probe".into(),
            problem,
        })?,
        None => None,
    };
    let mut results: Vec<ConfigResult> = Vec::new();
    let expected = settings.producers.len() * settings.workers.len() * settings.repeat;
    if out.results.len() != expected {
        return Err(HarnessError::Runs {
            returned: out.results.len(),
            asked: expected,
        }
        .into());
    }
    for r in out.results {
        let cfg = settings.pipeline(r.producer, r.workers);
        check_answer(settings, &r, out.cpus.len()).map_err(|problem| HarnessError::OutOfRange {
            config: cfg.label(),
            problem,
        })?;
        if r.waits_ns.len() as u64 != cfg.batches || r.works_ns.len() != r.waits_ns.len() {
            return Err(HarnessError::Batches {
                measured: r.waits_ns.len(),
                config: cfg.label(),
                asked: cfg.batches,
            }
            .into());
        }
        let mut wait = new_histogram();
        let mut work = new_histogram();
        for &w in &r.waits_ns {
            wait.saturating_record(w.max(1));
        }
        for &w in &r.works_ns {
            work.saturating_record(w.max(1));
        }
        let window_batches = cfg.window_batches();
        let measured = Measured {
            wait,
            work,
            startup: Duration::from_nanos(r.startup_ns),
            start_cpu: Duration::from_nanos(r.start_cpu_ns.unwrap_or(0)),
            window: Duration::from_nanos(r.window_ns.max(1)),
            // The window the harness measured: every batch when there is no
            // warm-up, else the measured ones (the engine's rule).
            window_samples: window_batches * settings.batch_size as u64,
            window_steps: window_batches,
            consumer_sched: sys::SchedStat {
                on_cpu_ns: r.on_cpu_ns,
                run_delay_ns: r.run_delay_ns,
                timeslices: 0,
            },
            consumer_involuntary_switches: r.involuntary_switches,
            // One figure for all workers together: that is what rusage gives.
            workers: r
                .workers_cpu_ns
                .map(|cpu_ns| {
                    vec![super::pool::WorkerStats {
                        cpu_ns,
                        involuntary_switches: 0,
                        setup_cpu_ns: r
                            .worker_setup_ns
                            .iter()
                            .fold(0u64, |a, b| a.saturating_add(*b)),
                    }]
                })
                .unwrap_or_default(),
            data_digest: 0,
            max_outstanding: settings.prefetch_factor * r.workers,
            deliveries: Vec::new(),
        };
        let mut repeat = stats::repeat_result(&cfg, &measured, cpus);
        if r.start_cpu_ns.is_none() {
            repeat.row.start_cpu_ms = None; // a harness before version 4
        }
        // The harness does not hash the batches: PyTorch's samples are not
        // the engine's, so a digest would compare nothing.
        repeat.row.data_digest = "not computed".into();
        if let Some(load) = &r.load {
            let window = super::outside_load::LoadWindow {
                before: Some(&load.stat_before),
                after: Some(&load.stat_after),
                wall_ns: load.wall_ns,
                own_cpu_ns: load.own_cpu_ns,
                single_thread_run_delay_ns: (r.workers == 0).then_some(r.run_delay_ns),
            };
            repeat.row.outside =
                super::outside_load::outside_share(&window, &out.cpus, sys::clock_tick_ns());
            repeat.row.disturbed = repeat
                .row
                .outside
                .is_some_and(super::outside_load::is_disturbed);
        }
        match results
            .iter_mut()
            .find(|c| c.producer == r.producer && c.workers == r.workers)
        {
            Some(c) => c.repeats.push(repeat),
            None => results.push(ConfigResult {
                producer: r.producer,
                workers: r.workers,
                summary: repeat.row.clone(),
                repeats: vec![repeat],
            }),
        }
    }
    for c in &mut results {
        c.summary = stats::summarize(&c.repeats);
    }
    let run = BenchRun {
        schema: RUN_SCHEMA.into(),
        created_at: Utc::now(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        settings: settings.clone(),
        cpus_used: out.cpus,
        environment,
        measurement_overhead_ns_per_step: 0.0,
        outside_load_cost_ns: None,
        results,
        reference: Some(ReferenceEngine {
            engine: "pytorch".into(),
            python: out.python,
            torch: out.torch,
            sharing_strategy: out.sharing_strategy,
            start_method: out.start_method,
            start,
            per_batch,
            elsewhere_busy: None,
        }),
        engine_model: None,
        calibrated_to_pytorch: None,
    };
    // What the answer became must pass what a run file read back passes.
    super::run_check::check_run(&run).map_err(|problem| HarnessError::OutOfRange {
        config: "the run".into(),
        problem,
    })?;
    Ok(run)
}

/// One configuration of the harness's answer against what was asked: a
/// producer and worker count of the settings, on 1 to `MAX_CPUS` CPUs, and
/// a window that holds every measured step (so ex/s cannot come out of a
/// window of 0).
/// What starting the workers cost, the medians over the configurations
/// with workers that measured it: the loop's CPU per worker it forked, and
/// a worker's CPU to its `worker_init_fn`. None when no configuration had
/// workers or the harness did not measure it.
fn python_start(runs: &[HarnessRun]) -> Option<PythonStart> {
    let fork: Vec<f64> = runs
        .iter()
        .filter(|r| r.workers > 0)
        .filter_map(|r| r.start_cpu_ns.map(|ns| ns as f64 / 1e6 / r.workers as f64))
        .collect();
    let setup: Vec<f64> = runs
        .iter()
        .flat_map(|r| r.worker_setup_ns.iter())
        .filter(|&&ns| ns > 0)
        .map(|&ns| ns as f64 / 1e6)
        .collect();
    (!fork.is_empty() && !setup.is_empty()).then(|| PythonStart {
        fork_ms: stats::median(&fork),
        workers: setup.len(),
        setup_ms: stats::median(&setup),
    })
}

/// The per-batch probe against what was asked: the run's batch size, the
/// figures' floats. None where a difference came out at 0 or below (a
/// probe the load swamped measures nothing).
fn python_per_batch(
    settings: &Settings,
    p: &HarnessPerBatch,
) -> Result<Option<PythonPerBatch>, String> {
    if p.batch_size != settings.batch_size || p.sample_floats != PROBE_FLOATS || p.batches == 0 {
        return Err(format!(
            "it ran {} batches of {} samples of {} floats, not batches of {} samples of {PROBE_FLOATS}",
            p.batches, p.batch_size, p.sample_floats, settings.batch_size
        ));
    }
    Ok((p.worker_ns > 0 && p.loop_ns > 0).then(|| PythonPerBatch {
        batch_size: p.batch_size,
        loop_us: p.loop_ns as f64 / 1e3,
        worker_us: p.worker_ns as f64 / 1e3,
        probes: 1,
    }))
}

/// Several harness runs' per-batch probes as one: the medians of theirs;
/// None for none.
pub fn per_batch_over_rounds(probes: &[PythonPerBatch]) -> Option<PythonPerBatch> {
    let first = probes.first()?;
    Some(PythonPerBatch {
        batch_size: first.batch_size,
        loop_us: stats::median(&probes.iter().map(|p| p.loop_us).collect::<Vec<_>>()),
        worker_us: stats::median(&probes.iter().map(|p| p.worker_us).collect::<Vec<_>>()),
        probes: probes.iter().map(|p| p.probes).sum(),
    })
}

/// Several harness runs' start figures as one (a run of several rounds):
/// the medians of theirs, every worker counted; None for none.
pub fn start_over_rounds(starts: &[PythonStart]) -> Option<PythonStart> {
    (!starts.is_empty()).then(|| PythonStart {
        fork_ms: stats::median(&starts.iter().map(|s| s.fork_ms).collect::<Vec<_>>()),
        setup_ms: stats::median(&starts.iter().map(|s| s.setup_ms).collect::<Vec<_>>()),
        workers: starts.iter().map(|s| s.workers).sum(),
    })
}

fn check_answer(settings: &Settings, r: &HarnessRun, cpus: usize) -> Result<(), String> {
    if !settings.producers.contains(&r.producer) || !settings.workers.contains(&r.workers) {
        return Err("a producer or worker count that was not asked for".into());
    }
    if cpus == 0 || cpus > super::settings::MAX_CPUS {
        return Err(format!("it ran on {cpus} CPUs"));
    }
    if r.worker_setup_ns.len() > r.workers {
        return Err(format!(
            "{} worker set-up times for {} workers",
            r.worker_setup_ns.len(),
            r.workers
        ));
    }
    let steps: u128 = r
        .waits_ns
        .iter()
        .zip(&r.works_ns)
        .map(|(a, b)| u128::from(*a) + u128::from(*b))
        .sum();
    if r.window_ns == 0 || u128::from(r.window_ns) < steps {
        return Err(format!(
            "its window of {} ns is shorter than the {steps} ns its measured steps took",
            r.window_ns
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(batch_size: usize, sample_floats: usize, worker_ns: i64) -> HarnessPerBatch {
        HarnessPerBatch {
            batch_size,
            sample_floats,
            batches: 240,
            worker_ns,
            loop_ns: 300_000,
        }
    }

    #[test]
    fn the_per_batch_probe_is_read_at_the_runs_batch_size_and_the_figures_floats() {
        let s = Settings::chapter_defaults();
        let read = python_per_batch(&s, &probe(32, 64, 1_200_000))
            .unwrap()
            .unwrap();
        assert_eq!(
            (read.loop_us, read.worker_us, read.probes),
            (300.0, 1200.0, 1)
        );
        // Another batch size or sample size is not the probe asked for.
        let e = python_per_batch(&s, &probe(4, 64, 1_200_000)).unwrap_err();
        assert_eq!(
            e,
            "it ran 240 batches of 4 samples of 64 floats, not batches of 32 samples of 64"
        );
        assert!(python_per_batch(&s, &probe(32, 4096, 1_200_000)).is_err());
        // A difference the load swamped measures nothing.
        assert_eq!(python_per_batch(&s, &probe(32, 64, -5)).unwrap(), None);
        // Over rounds: the medians, every probe counted.
        let over = per_batch_over_rounds(&[
            read,
            read,
            PythonPerBatch {
                loop_us: 900.0,
                ..read
            },
        ]);
        assert_eq!(over.map(|p| (p.loop_us, p.probes)), Some((300.0, 3)));
        assert_eq!(per_batch_over_rounds(&[]), None);
    }

    #[test]
    fn the_harness_reads_the_settings_it_is_given() {
        let s = Settings::chapter_defaults();
        let v: serde_json::Value = serde_json::from_str(&harness_argument(&s)).unwrap();
        assert_eq!(v["cost_ns"], 2_000_000);
        assert_eq!(v["consumer_ns"], 8_000_000);
        assert_eq!(v["producers"][1], "spin");
        for key in v.as_object().unwrap().keys() {
            assert!(HARNESS.contains(&format!("\"{key}\"")), "{key} unread");
        }
    }
}
