//! From measurements to rows: the figures of one repeat, and the medians
//! (and spread of ex/s) over repeats. A summary is made of the undisturbed
//! runs of every round (of all runs, when every one was disturbed).

use super::config::PipelineConfig;
use super::run_file::{ConfigResult, RepeatResult, Row};
use super::verdict::verdict;
use super::{bound, engine, histogram};

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// Turns one measurement into a row and serialized histograms.
pub fn repeat_result(cfg: &PipelineConfig, m: &engine::Measured, cpus: usize) -> RepeatResult {
    let window_s = m.window.as_secs_f64();
    let ex_per_s = m.window_samples as f64 / window_s;
    let ideal = bound::ideal_window(cfg, cpus);
    let bound_ex_per_s = m.window_samples as f64 / ideal;
    let wait_mean_ms = m.wait.mean() / 1e6;
    let work_ms = m.work.mean() / 1e6;
    let wait_frac = if wait_mean_ms + work_ms > 0.0 {
        wait_mean_ms / (wait_mean_ms + work_ms)
    } else {
        0.0
    };
    let steps = m.window_steps.max(1) as f64;
    let consumer_run_delay_ms = m.consumer_sched.run_delay_ns as f64 / 1e6 / steps;
    let row = Row {
        producer: cfg.spec.producer,
        workers: cfg.workers,
        ex_per_s,
        wait_mean_ms,
        wait_p50_ms: ms(m.wait.value_at_quantile(0.50)),
        wait_p95_ms: ms(m.wait.value_at_quantile(0.95)),
        wait_max_ms: ms(m.wait.max()),
        work_ms,
        wait_frac,
        startup_ms: m.startup.as_secs_f64() * 1e3,
        start_cpu_ms: (cfg.workers > 0).then(|| {
            let setup: u64 = m.workers.iter().map(|w| w.setup_cpu_ns).sum();
            (m.start_cpu.as_nanos() as u64 + setup) as f64 / 1e6
        }),
        warmup_batches: Some(cfg.warmup_batches),
        tail_batches: Some(cfg.tail_batches),
        bound_ex_per_s,
        efficiency: ex_per_s / bound_ex_per_s,
        consumer_run_delay_ms,
        consumer_cpu_ms: m.consumer_sched.on_cpu_ns as f64 / 1e6 / steps,
        workers_cpu_ms: m.workers.iter().map(|w| w.cpu_ns).sum::<u64>() as f64 / 1e6,
        involuntary_switches: m.consumer_involuntary_switches,
        verdict: verdict(wait_frac, consumer_run_delay_ms, work_ms),
        batches: m.wait.len(),
        window_ms: window_s * 1e3,
        data_digest: format!("{:016x}", m.data_digest),
        max_outstanding: m.max_outstanding,
        ex_per_s_spread: None,
        outside: None,
        disturbed: false,
    };
    RepeatResult {
        row,
        wait_histogram_ns: histogram::serialize(&m.wait),
        work_histogram_ns: histogram::serialize(&m.work),
        round: None,
    }
}

/// The median of `values`, in any order (sorted here by `f64::total_cmp`):
/// the middle value, or the mean of the two middle ones for an even count.
/// The one median of the crate: the rows over repeats, the harness's
/// figures, and `published`'s intervals, shifts and notebook claims. Every
/// caller has at least one value; an empty slice panics.
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// A configuration in `round`: the medians over its undisturbed runs of
/// that round; None when every run of that round was disturbed (or it did
/// not run in it).
pub fn round_row(config: &ConfigResult, round: usize) -> Option<Row> {
    let runs: Vec<&RepeatResult> = config
        .repeats
        .iter()
        .filter(|r| r.round() == round && !r.row.disturbed)
        .collect();
    (!runs.is_empty()).then(|| median_row(&runs))
}

/// A configuration's summary: the medians over its undisturbed runs (over
/// all its runs when none was undisturbed), marked disturbed when some
/// round has no undisturbed run.
pub fn summarize(repeats: &[RepeatResult]) -> Row {
    let quiet: Vec<&RepeatResult> = repeats.iter().filter(|r| !r.row.disturbed).collect();
    let used: Vec<&RepeatResult> = if quiet.is_empty() {
        repeats.iter().collect()
    } else {
        quiet
    };
    let mut row = median_row(&used);
    let mut rounds: Vec<usize> = repeats.iter().map(RepeatResult::round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    row.disturbed = rounds.iter().any(|&n| {
        repeats
            .iter()
            .filter(|r| r.round() == n)
            .all(|r| r.row.disturbed)
    });
    row
}

/// Medians over `repeats` of every figure (the outside share too), and the
/// spread of ex/s. The verdict is re-derived from the medians; counts and
/// digests come from the repeat whose ex/s is the median one.
pub fn median_row(repeats: &[&RepeatResult]) -> Row {
    let rows: Vec<&Row> = repeats.iter().map(|r| &r.row).collect();
    let med = |f: fn(&Row) -> f64| median(&rows.iter().map(|r| f(r)).collect::<Vec<_>>());
    let ex = med(|r| r.ex_per_s);
    let closest = rows
        .iter()
        .min_by(|a, b| (a.ex_per_s - ex).abs().total_cmp(&(b.ex_per_s - ex).abs()))
        .expect("at least one repeat");
    let mut row = (*closest).clone();
    row.ex_per_s = ex;
    row.wait_mean_ms = med(|r| r.wait_mean_ms);
    row.wait_p50_ms = med(|r| r.wait_p50_ms);
    row.wait_p95_ms = med(|r| r.wait_p95_ms);
    row.wait_max_ms = med(|r| r.wait_max_ms);
    row.work_ms = med(|r| r.work_ms);
    row.wait_frac = med(|r| r.wait_frac);
    row.startup_ms = med(|r| r.startup_ms);
    let start_cpu: Vec<f64> = rows.iter().filter_map(|r| r.start_cpu_ms).collect();
    row.start_cpu_ms = (!start_cpu.is_empty()).then(|| median(&start_cpu));
    row.bound_ex_per_s = med(|r| r.bound_ex_per_s);
    row.efficiency = med(|r| r.efficiency);
    row.consumer_run_delay_ms = med(|r| r.consumer_run_delay_ms);
    row.consumer_cpu_ms = med(|r| r.consumer_cpu_ms);
    row.workers_cpu_ms = med(|r| r.workers_cpu_ms);
    row.window_ms = med(|r| r.window_ms);
    let outside: Vec<f64> = rows.iter().filter_map(|r| r.outside).collect();
    row.outside = (!outside.is_empty()).then(|| median(&outside));
    row.disturbed = rows.iter().all(|r| r.disturbed);
    row.verdict = verdict(row.wait_frac, row.consumer_run_delay_ms, row.work_ms);
    if rows.len() > 1 {
        let lo = rows
            .iter()
            .map(|r| r.ex_per_s)
            .fold(f64::INFINITY, f64::min);
        let hi = rows
            .iter()
            .map(|r| r.ex_per_s)
            .fold(f64::NEG_INFINITY, f64::max);
        row.ex_per_s_spread = Some((hi - lo) / ex);
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{PipelineVerdict, ProducerKind};

    #[test]
    fn the_median_is_the_middle_value_or_the_mean_of_the_two_middle_ones() {
        assert_eq!(median(&[3.0]), 3.0);
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[1.0, 2.0]), 1.5);
        // Sorted or not, the same value.
        assert_eq!(
            median(&[1.0, 2.0, 10.0, 20.0]),
            median(&[20.0, 1.0, 10.0, 2.0])
        );
    }

    #[test]
    #[should_panic]
    fn no_median_of_nothing() {
        median(&[]);
    }

    #[test]
    fn summaries_take_medians_and_the_spread_of_ex_s() {
        let row = |ex: f64| Row {
            wait_mean_ms: ex / 100.0,
            ..summaries_row(ex)
        };
        let repeats: Vec<RepeatResult> = [480.0, 500.0, 490.0]
            .into_iter()
            .map(|ex| RepeatResult {
                row: row(ex),
                wait_histogram_ns: String::new(),
                work_histogram_ns: String::new(),
                round: None,
            })
            .collect();
        let s = summarize(&repeats);
        assert_eq!(s.ex_per_s, 490.0);
        assert_eq!(s.wait_mean_ms, 4.9);
        assert!((s.ex_per_s_spread.unwrap() - 20.0 / 490.0).abs() < 1e-12);
        assert!(!s.disturbed && s.outside.is_none());
    }

    #[test]
    fn a_summary_leaves_disturbed_runs_out_and_says_when_a_round_had_only_those() {
        let run = |round: usize, ex: f64, outside: f64| {
            let mut row = summaries_row(ex);
            row.outside = Some(outside);
            row.disturbed = crate::bench::outside_load::is_disturbed(outside);
            RepeatResult {
                row,
                wait_histogram_ns: String::new(),
                work_histogram_ns: String::new(),
                round: Some(round),
            }
        };
        // Round 2 was disturbed, then run again quietly.
        let repeats = vec![
            run(1, 480.0, 0.01),
            run(2, 200.0, 0.40),
            run(2, 500.0, 0.00),
            run(3, 490.0, 0.02),
        ];
        let s = summarize(&repeats);
        assert_eq!(s.ex_per_s, 490.0, "the disturbed run is left out");
        assert_eq!(s.outside, Some(0.01));
        assert!(!s.disturbed, "every round has an undisturbed run");
        // Round 2 left disturbed: the summary is still of the quiet runs,
        // and says so.
        let s = summarize(&repeats[..2]);
        assert_eq!(s.ex_per_s, 480.0);
        assert!(s.disturbed);
        // Every run disturbed: the summary is of them all.
        let s = summarize(&repeats[1..2]);
        assert_eq!(s.ex_per_s, 200.0);
        assert!(s.disturbed);
    }

    fn summaries_row(ex: f64) -> Row {
        Row {
            producer: ProducerKind::Sleep,
            workers: 1,
            ex_per_s: ex,
            wait_mean_ms: 1.0,
            wait_p50_ms: 0.0,
            wait_p95_ms: 0.0,
            wait_max_ms: 0.0,
            work_ms: 8.0,
            wait_frac: 0.5,
            startup_ms: 0.0,
            start_cpu_ms: None,
            warmup_batches: None,
            tail_batches: None,
            bound_ex_per_s: 500.0,
            efficiency: ex / 500.0,
            consumer_run_delay_ms: 0.0,
            consumer_cpu_ms: 8.0,
            workers_cpu_ms: 0.0,
            involuntary_switches: 0,
            verdict: PipelineVerdict::ProducerBound,
            batches: 10,
            window_ms: 1.0,
            data_digest: "x".into(),
            max_outstanding: 2,
            ex_per_s_spread: None,
            outside: None,
            disturbed: false,
        }
    }
}
