//! Reading a run file back, and what it (or the PyTorch harness's answer
//! made into one) may say:
//! its settings within the bounds the command line holds the same knobs to
//! (`Settings::check`), results only for the producers and worker counts it
//! was run with, and measurements that a run could have made. Checked where
//! a run is read, so a hand-edited or foreign file is refused with the field
//! named, never compared or recorded.

use std::path::Path;

use super::run_file::{BenchRun, RUN_SCHEMA, Row};
use super::settings::MAX_CPUS;
use crate::error::{Error, Result};
use crate::yaml_io;

/// The fastest rate any row may claim, in examples per second: far beyond
/// anything the engine or the DataLoader reaches (a few thousand), and far
/// below what a window of zero would give.
pub const MAX_EX_PER_S: f64 = 1e9;
/// The longest time any row may claim, in ms (about eleven days).
pub const MAX_ROW_MS: f64 = 1e9;

impl BenchRun {
    /// Reads a run file and checks its schema and its values' bounds
    /// ([`check_run`]).
    pub fn load(path: &Path) -> Result<BenchRun> {
        BenchRun::parse(&yaml_io::read_text(path)?, path)
    }

    /// [`BenchRun::load`] of text already read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<BenchRun> {
        let run: BenchRun = yaml_io::from_str_finite(text, path)?;
        if run.schema != RUN_SCHEMA {
            return Err(Error::invalid(
                path,
                format!("not a bench run file (schema '{}')", run.schema),
            ));
        }
        check_run(&run).map_err(|m| Error::invalid(path, m))?;
        Ok(run)
    }
}

/// The first value of `run` out of bounds, as `field 'path': problem`.
pub fn check_run(run: &BenchRun) -> Result<(), String> {
    let s = &run.settings;
    s.check()
        .map_err(|e| format!("field 'settings.{}': {}", e.knob, e.problem))?;
    if run.cpus_used.is_empty() || run.cpus_used.len() > MAX_CPUS {
        return Err(format!(
            "field 'cpus_used': a run uses 1 to {MAX_CPUS} CPUs, this one lists {}",
            run.cpus_used.len()
        ));
    }
    let overhead = run.measurement_overhead_ns_per_step;
    if !(0.0..=MAX_ROW_MS * 1e6).contains(&overhead) {
        return Err(format!(
            "field 'measurement_overhead_ns_per_step': {overhead} is out of range"
        ));
    }
    // One row per configuration: a second row for the same producer and
    // worker count would let a reader pick either value.
    let mut seen = std::collections::HashMap::new();
    for (i, r) in run.results.iter().enumerate() {
        let at = format!("results[{i}]");
        if let Some(first) = seen.insert((r.producer, r.workers), i) {
            return Err(format!(
                "field '{at}': a second row for producer {} with {} worker(s) (results[{first}] is the first); a run has one row per configuration",
                r.producer, r.workers
            ));
        }
        if !s.producers.contains(&r.producer) {
            return Err(format!(
                "field '{at}.producer': {} is not among the run's producers ({})",
                r.producer,
                crate::text::format::list(&s.producers)
            ));
        }
        if !s.workers.contains(&r.workers) {
            return Err(format!(
                "field '{at}.workers': {} is not among the run's worker counts ({})",
                r.workers,
                crate::text::format::list(&s.workers)
            ));
        }
        check_row(&r.summary, r.producer, r.workers, &format!("{at}.summary"))?;
        for (j, rep) in r.repeats.iter().enumerate() {
            check_row(
                &rep.row,
                r.producer,
                r.workers,
                &format!("{at}.repeats[{j}].row"),
            )?;
            // Rounds count from 1 and a run adds rounds up to the most a
            // run may make: another number would make a round of its own
            // in every interval over rounds.
            if let Some(n) = rep.round
                && !(1..=super::settings::MAX_ROUNDS).contains(&n)
            {
                return Err(format!(
                    "field '{at}.repeats[{j}].round': {n} is not a round from 1 to {}",
                    super::settings::MAX_ROUNDS
                ));
            }
        }
    }
    if let Some(reference) = &run.reference {
        check_reference(run, reference)?;
    }
    if let Some(factor) = run.calibrated_to_pytorch {
        if run.reference.is_some() {
            return Err("field 'calibrated_to_pytorch': a PyTorch run is not calibrated, the embedded half beside it is".into());
        }
        let range = super::python_speed::LEAST_FACTOR..=super::settings::MAX_PYTHON_COST_SCALE;
        if !range.contains(&factor) {
            return Err(format!(
                "field 'calibrated_to_pytorch': {factor} is not a factor from {} to {}",
                range.start(),
                range.end()
            ));
        }
        // Calibrating sets the scale to the factor: a run at another scale
        // was not calibrated to it.
        if (s.python_cost_scale - factor).abs() > 0.005 {
            return Err(format!(
                "field 'calibrated_to_pytorch': {factor}, but the run's settings.python_cost_scale is {}, which calibrating would have set to it",
                s.python_cost_scale
            ));
        }
    }
    if let Some(model) = &run.engine_model
        && !is_model_date(model)
    {
        return Err(format!(
            "field 'engine_model': {} is not a model's date (YYYY-MM-DD, or YYYY-MM-DD.N for the Nth that day)",
            crate::text::escape::visible(model)
        ));
    }
    if run.reference.is_some() && run.engine_model.is_some() {
        return Err("field 'engine_model': a PyTorch run has no embedded engine model".into());
    }
    Ok(())
}

/// `2026-12-02`, or `2026-12-02.2` for the second model that landed that
/// day: the form `calibration::ENGINE_MODEL` names a model in.
fn is_model_date(s: &str) -> bool {
    let (date, nth) = match s.split_once('.') {
        Some((date, nth)) => (date, Some(nth)),
        None => (s, None),
    };
    let b = date.as_bytes();
    let date_ok = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        });
    let nth_ok = nth.is_none_or(|n| {
        matches!(n.parse::<u8>(), Ok(2..=99)) && !n.starts_with('0') && !n.starts_with('+')
    });
    date_ok && nth_ok
}

/// What a PyTorch run says of its harness: a start that is CPU time a
/// run could have spent, over no more worker starts than its results ran,
/// and a share of the other CPUs from 0 to 1.
fn check_reference(run: &BenchRun, reference: &super::ReferenceEngine) -> Result<(), String> {
    if let Some(start) = reference.start {
        for (name, ms) in [("fork_ms", start.fork_ms), ("setup_ms", start.setup_ms)] {
            if !(ms > 0.0 && ms <= MAX_ROW_MS) {
                return Err(format!(
                    "field 'reference.start.{name}': {ms} is not a CPU time above 0 and at most {MAX_ROW_MS} ms"
                ));
            }
        }
        // Each configuration run started its worker count once.
        let started: usize = run
            .results
            .iter()
            .map(|r| r.workers * r.repeats.len().max(1))
            .sum();
        if start.workers == 0 {
            return Err(
                "field 'reference.start.workers': 0, where a start measured counts at least 1 worker start".into(),
            );
        }
        if start.workers > started {
            return Err(format!(
                "field 'reference.start.workers': {} worker starts, more than the {started} the run's results started",
                start.workers
            ));
        }
    }
    if let Some(probe) = reference.per_batch {
        for (name, us) in [("loop_us", probe.loop_us), ("worker_us", probe.worker_us)] {
            if !(us > 0.0 && us <= MAX_ROW_MS * 1e3) {
                return Err(format!(
                    "field 'reference.per_batch.{name}': {us} is not a CPU time above 0 and at most {} µs",
                    MAX_ROW_MS * 1e3
                ));
            }
        }
        if probe.batch_size != run.settings.batch_size {
            return Err(format!(
                "field 'reference.per_batch.batch_size': {}, where the run's batches are of {}",
                probe.batch_size, run.settings.batch_size
            ));
        }
        if probe.probes == 0 {
            return Err(
                "field 'reference.per_batch.probes': 0, where a probe measured counts at least 1"
                    .into(),
            );
        }
    }
    if let Some(busy) = reference.elsewhere_busy
        && !(0.0..=1.0).contains(&busy)
    {
        return Err(format!(
            "field 'reference.elsewhere_busy': {busy} is not a share from 0 to 1"
        ));
    }
    Ok(())
}

/// One row: its configuration is the one it is filed under, and every
/// measurement is one a run could have made.
fn check_row(
    row: &Row,
    producer: super::ProducerKind,
    workers: usize,
    at: &str,
) -> Result<(), String> {
    if row.producer != producer || row.workers != workers {
        return Err(format!(
            "field '{at}': the row is for {} with {} workers, filed under {producer} with {workers}",
            row.producer, row.workers
        ));
    }
    let rates = [
        ("ex_per_s", row.ex_per_s),
        ("bound_ex_per_s", row.bound_ex_per_s),
    ];
    let times = [
        ("wait_mean_ms", row.wait_mean_ms),
        ("wait_p50_ms", row.wait_p50_ms),
        ("wait_p95_ms", row.wait_p95_ms),
        ("wait_max_ms", row.wait_max_ms),
        ("work_ms", row.work_ms),
        ("startup_ms", row.startup_ms),
        ("consumer_run_delay_ms", row.consumer_run_delay_ms),
        ("consumer_cpu_ms", row.consumer_cpu_ms),
        ("workers_cpu_ms", row.workers_cpu_ms),
        ("window_ms", row.window_ms),
    ];
    let within = |name: &str, v: f64, hi: f64| {
        if (0.0..=hi).contains(&v) {
            Ok(())
        } else {
            Err(format!(
                "field '{at}.{name}': {} is not between 0 and {hi}",
                short_number(v)
            ))
        }
    };
    for (name, v) in rates {
        within(name, v, MAX_EX_PER_S)?;
    }
    for (name, v) in times {
        within(name, v, MAX_ROW_MS)?;
    }
    within("wait_frac", row.wait_frac, 1.0)?;
    within("efficiency", row.efficiency, MAX_EX_PER_S)?;
    if let Some(spread) = row.ex_per_s_spread {
        within("ex_per_s_spread", spread, MAX_EX_PER_S)?;
    }
    if row.batches == 0 {
        return Err(format!(
            "field '{at}.batches': a row measures at least one batch"
        ));
    }
    Ok(())
}

/// A number as an error quotes it: `-1e308`, not 309 digits.
fn short_number(v: f64) -> String {
    if v != 0.0 && !(1e-3..1e9).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> BenchRun {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "tests/fixtures/records/pytorch-from-first-principles/06/20261102T120000-bbbbbbbbbbbb.run.yaml",
        );
        crate::yaml_io::read_finite(&path).unwrap()
    }

    fn with_start(run: &mut BenchRun, fork_ms: f64, setup_ms: f64, workers: usize) {
        *run = crate::testing::measured_by_pytorch(run.clone());
        if let Some(reference) = &mut run.reference {
            reference.start = Some(crate::bench::PythonStart {
                fork_ms,
                setup_ms,
                workers,
            });
        }
    }

    /// A per-batch probe `off_by` samples away from the run's batch size.
    fn with_probe(run: &mut BenchRun, off_by: usize, loop_us: f64, probes: usize) {
        with_start(run, 12.0, 16.5, 8);
        let batch_size = run.settings.batch_size + off_by;
        if let Some(reference) = &mut run.reference {
            reference.per_batch = Some(crate::bench::PythonPerBatch {
                batch_size,
                loop_us,
                worker_us: 500.0,
                probes,
            });
        }
    }

    #[test]
    fn the_fixture_run_is_within_bounds() {
        assert_eq!(check_run(&fixture()), Ok(()));
        let mut measured = fixture();
        with_start(&mut measured, 12.0, 16.5, 8);
        assert_eq!(check_run(&measured), Ok(()));
        with_probe(&mut measured, 0, 300.0, 6);
        assert_eq!(check_run(&measured), Ok(()));
    }

    #[test]
    fn out_of_range_values_are_named_by_field() {
        type Break = fn(&mut BenchRun);
        let cases: Vec<(Break, &str)> = vec![
            (
                |r| r.results[0].summary.ex_per_s = -1e308,
                "results[0].summary.ex_per_s",
            ),
            (
                |r| r.settings.batch_size = 0,
                "settings.batch_size': must be at least 1",
            ),
            (|r| r.settings.cost_ms = -5.0, "settings.cost_ms'"),
            (
                |r| r.settings.workers.push(usize::MAX),
                "settings.workers': must be at most 256",
            ),
            (
                |r| r.results[0].workers = 3,
                "results[0].workers': 3 is not among",
            ),
            (
                |r| r.results[1].repeats[0].row.wait_frac = 1.5,
                "results[1].repeats[0].row.wait_frac",
            ),
            (
                |r| r.results[1].repeats[0].round = Some(0),
                "results[1].repeats[0].round': 0 is not a round from 1 to 100",
            ),
            (
                |r| r.results[1].repeats[0].round = Some(101),
                "results[1].repeats[0].round': 101 is not a round from 1 to 100",
            ),
            (|r| r.cpus_used.clear(), "cpus_used"),
            (|r| r.settings.cpus = Some(5000), "settings.cpus"),
            (
                |r| with_start(r, -3.0, 18.0, 8),
                "reference.start.fork_ms': -3 is not a CPU time above 0 and at most",
            ),
            (|r| with_start(r, 12.0, 0.0, 8), "reference.start.setup_ms'"),
            (|r| with_start(r, 12.0, 18.0, 0), "reference.start.workers'"),
            (
                |r| with_probe(r, 0, -1.0, 1),
                "reference.per_batch.loop_us': -1 is not a CPU time above 0",
            ),
            (
                |r| with_probe(r, 1, 300.0, 1),
                "reference.per_batch.batch_size'",
            ),
            (
                |r| with_probe(r, 0, 300.0, 0),
                "reference.per_batch.probes': 0",
            ),
            (
                |r| with_start(r, 12.0, 2e9, 8),
                "reference.start.setup_ms': 2000000000 is not a CPU time above 0 and at most",
            ),
            (
                |r| with_start(r, 12.0, 18.0, 100_000),
                "reference.start.workers': 100000 worker starts, more than the",
            ),
            (
                |r| {
                    with_start(r, 12.0, 18.0, 8);
                    r.reference.as_mut().unwrap().elsewhere_busy = Some(1.5);
                },
                "reference.elsewhere_busy': 1.5",
            ),
            (
                |r| r.calibrated_to_pytorch = Some(0.0),
                "calibrated_to_pytorch': 0 is not a factor from 0.05 to 100",
            ),
            (
                |r| r.calibrated_to_pytorch = Some(0.7),
                "calibrated_to_pytorch': 0.7, but the run's settings.python_cost_scale is 0,",
            ),
            (
                |r| r.engine_model = Some("2026-13-45; rm".into()),
                "engine_model': 2026-13-45; rm is not a model's date",
            ),
            (
                |r| r.engine_model = Some("2026-12-02.1".into()),
                "engine_model': 2026-12-02.1 is not a model's date",
            ),
            (
                |r| {
                    with_start(r, 12.0, 18.0, 8);
                    r.calibrated_to_pytorch = Some(0.7);
                },
                "calibrated_to_pytorch': a PyTorch run is not calibrated",
            ),
            (
                |r| {
                    with_start(r, 12.0, 18.0, 8);
                    r.engine_model = Some("2026-12-02".into());
                },
                "engine_model': a PyTorch run has no",
            ),
        ];
        for (break_it, field) in cases {
            let mut run = fixture();
            break_it(&mut run);
            let err = check_run(&run).unwrap_err();
            assert!(err.contains(field), "{field}: {err}");
        }
    }

    #[test]
    fn a_model_is_named_by_its_day_and_then_by_its_order_that_day() {
        for good in ["2026-12-02", "2026-12-02.2", "2026-12-02.17"] {
            assert!(is_model_date(good), "{good}");
        }
        for bad in [
            "2026-12-2",
            "2026-12-02.",
            "2026-12-02.1",
            "2026-12-02.02",
            "2026-12-02.+3",
            "2026-12-02.x",
            "2026-12-02.100",
        ] {
            assert!(!is_model_date(bad), "{bad}");
        }
    }
}
