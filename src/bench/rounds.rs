//! Rounds: every configuration once per round, in the same order, so that a
//! drift of the machine touches them all alike. After each round, the
//! configurations whose every run of that round was disturbed (others took
//! more than `outside_load::DISTURBED_ABOVE` of the CPUs) are run again, once
//! the machine is quiet, at most [`MAX_RERUNS`] times, each wait bounded
//! ([`quiet_wait`]). Past the minimum rounds, a round is added while the
//! caller says the evidence is not decided yet. The budget bounds it all:
//! once the rounds have taken it, no re-run, wait or extra round starts
//! (the minimum rounds always run).
//!
//! What runs a configuration and how the machine is watched are the
//! caller's ([`RoundEngine`], [`Machine`]), so the schedule is tested here
//! against scripted ones.

use std::time::{Duration, Instant};

use super::config::ProducerKind;
use super::outside_load;
use super::run_file::{ConfigResult, RepeatResult};
use super::stats;
use crate::error::Result;
use crate::sys;

/// Re-runs of a disturbed configuration in one round, at most.
pub const MAX_RERUNS: usize = 2;

/// How long to wait for a quiet machine before the re-run `attempt`
/// (0, 1, ...): 2 s, then 4 s.
pub fn quiet_wait(attempt: usize) -> Duration {
    Duration::from_secs(2 << attempt.min(4))
}

/// How many rounds a run makes, and how long it may take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoundPlan {
    /// Rounds that always run.
    pub min_rounds: usize,
    /// Rounds at most, extra rounds included.
    pub max_rounds: usize,
    /// Wall time after which nothing more starts; None: no re-run, wait or
    /// extra round at all.
    pub budget: Option<Duration>,
}

/// Runs configurations: the embedded engine, or PyTorch's harness.
pub trait RoundEngine {
    /// Runs each of `configs` in order (each as many times as the settings
    /// repeat it), every run with its outside share measured and marked
    /// disturbed when it passed the threshold; returns the runs of each,
    /// in the same order, with `round` set.
    fn run_configs(
        &mut self,
        configs: &[(ProducerKind, usize)],
        round: usize,
    ) -> Result<Vec<Vec<RepeatResult>>>;
}

/// The machine the rounds run on: its clock, and whether it is quiet.
pub trait Machine {
    /// Time since the rounds started.
    fn elapsed(&self) -> Duration;
    /// Waits until other processes take at most the threshold of the run's
    /// CPUs, or `limit` passes; true when it became quiet.
    fn wait_for_quiet(&mut self, limit: Duration) -> bool;
}

/// Runs the rounds of `configs` and returns each configuration with every
/// run of every round and its summary. After each round from the minimum
/// on, `decided` is asked whether the results so far settle what they are
/// for; while it says no, rounds are added (within the plan).
pub fn run_rounds(
    plan: RoundPlan,
    configs: &[(ProducerKind, usize)],
    engine: &mut dyn RoundEngine,
    machine: &mut dyn Machine,
    decided: &mut dyn FnMut(&[ConfigResult]) -> bool,
) -> Result<Vec<ConfigResult>> {
    let mut results: Vec<ConfigResult> = configs
        .iter()
        .map(|&(producer, workers)| ConfigResult {
            producer,
            workers,
            summary: empty_summary(producer, workers),
            repeats: Vec::new(),
        })
        .collect();
    let time_left = |machine: &dyn Machine| {
        plan.budget
            .and_then(|b| b.checked_sub(machine.elapsed()))
            .filter(|left| !left.is_zero())
    };
    let mut round = 0;
    loop {
        round += 1;
        let runs = engine.run_configs(configs, round)?;
        add_runs(&mut results, configs, runs);
        for attempt in 0..MAX_RERUNS {
            let again: Vec<(ProducerKind, usize)> = results
                .iter()
                .filter(|c| stats::round_row(c, round).is_none())
                .map(|c| (c.producer, c.workers))
                .collect();
            if again.is_empty() {
                break;
            }
            let Some(left) = time_left(machine) else {
                break;
            };
            if !machine.wait_for_quiet(quiet_wait(attempt).min(left)) {
                break;
            }
            let runs = engine.run_configs(&again, round)?;
            add_runs(&mut results, &again, runs);
        }
        for c in &mut results {
            c.summary = stats::summarize(&c.repeats);
        }
        if round >= plan.min_rounds
            && (round >= plan.max_rounds || time_left(machine).is_none() || decided(&results))
        {
            return Ok(results);
        }
    }
}

/// Adds the runs of `configs` (in their order) to their configurations.
fn add_runs(
    results: &mut [ConfigResult],
    configs: &[(ProducerKind, usize)],
    runs: Vec<Vec<RepeatResult>>,
) {
    for (&(producer, workers), runs) in configs.iter().zip(runs) {
        if let Some(c) = results
            .iter_mut()
            .find(|c| c.producer == producer && c.workers == workers)
        {
            c.repeats.extend(runs);
        }
    }
}

/// A placeholder until the first round's runs give the summary.
fn empty_summary(producer: ProducerKind, workers: usize) -> super::Row {
    super::Row {
        producer,
        workers,
        ex_per_s: 0.0,
        wait_mean_ms: 0.0,
        wait_p50_ms: 0.0,
        wait_p95_ms: 0.0,
        wait_max_ms: 0.0,
        work_ms: 0.0,
        wait_frac: 0.0,
        startup_ms: 0.0,
        start_cpu_ms: None,
        warmup_batches: None,
        tail_batches: None,
        bound_ex_per_s: 0.0,
        efficiency: 0.0,
        consumer_run_delay_ms: 0.0,
        consumer_cpu_ms: 0.0,
        workers_cpu_ms: 0.0,
        involuntary_switches: 0,
        verdict: super::PipelineVerdict::ConsumerBound,
        batches: 0,
        window_ms: 0.0,
        data_digest: String::new(),
        max_outstanding: 0,
        ex_per_s_spread: None,
        outside: None,
        disturbed: false,
    }
}

/// This machine: the wall clock, and `/proc/stat` sampled for quiet.
pub struct SystemMachine {
    started: Instant,
    /// The CPUs the run is restricted to.
    cpus: Vec<usize>,
    /// Stops a wait early (Ctrl-C).
    interrupted: fn() -> bool,
}

/// How long one look at the machine's load lasts while waiting for quiet:
/// 50 ticks, so the counters' rounding is 2% of it.
const QUIET_SAMPLE: Duration = Duration::from_millis(500);

impl SystemMachine {
    /// Watches `cpus` from now on.
    pub fn new(cpus: Vec<usize>, interrupted: fn() -> bool) -> Self {
        SystemMachine {
            started: Instant::now(),
            cpus,
            interrupted,
        }
    }

    /// The share of the CPUs others took over one sample; None when the
    /// counters cannot be read (or Ctrl-C came).
    fn sample(&self, length: Duration) -> Option<f64> {
        let before = sys::proc_stat()?;
        let own = sys::own_and_children_cpu_ns();
        let t0 = Instant::now();
        while t0.elapsed() < length {
            if (self.interrupted)() {
                return None;
            }
            std::thread::sleep((length - t0.elapsed()).min(Duration::from_millis(100)));
        }
        let wall = t0.elapsed();
        let own = sys::own_and_children_cpu_ns().saturating_sub(own);
        let after = sys::proc_stat()?;
        outside_load::busy_share(
            &before,
            &after,
            &self.cpus,
            wall.as_nanos() as u64,
            own,
            sys::clock_tick_ns(),
        )
    }
}

impl Machine for SystemMachine {
    fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    fn wait_for_quiet(&mut self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            match self.sample(QUIET_SAMPLE.min(left)) {
                Some(share) if !outside_load::is_disturbed(share) => return true,
                Some(_) => {}
                None => return false,
            }
        }
    }
}

/// What measuring the outside load costs per configuration: reading the
/// counters and the run's CPU time at both ends, in ns (the median of a
/// few tries).
pub fn outside_load_cost_ns() -> f64 {
    let mut tries: Vec<f64> = (0..9)
        .map(|_| {
            let t0 = Instant::now();
            for _ in 0..2 {
                std::hint::black_box(sys::proc_stat());
                std::hint::black_box(sys::own_and_children_cpu_ns());
            }
            t0.elapsed().as_nanos() as f64
        })
        .collect();
    tries.sort_by(f64::total_cmp);
    tries[tries.len() / 2]
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::collections::BTreeSet;
    use std::rc::Rc;

    use proptest::prelude::*;

    use super::*;
    use crate::bench::ProducerKind::{Sleep, Spin};

    /// A run of a configuration with its outside share.
    fn run(producer: ProducerKind, workers: usize, round: usize, outside: f64) -> RepeatResult {
        let mut row = empty_summary(producer, workers);
        row.ex_per_s = 100.0 + workers as f64;
        row.outside = Some(outside);
        row.disturbed = outside_load::is_disturbed(outside);
        RepeatResult {
            row,
            wait_histogram_ns: String::new(),
            work_histogram_ns: String::new(),
            round: Some(round),
        }
    }

    /// Runs configurations in a second each, disturbed while the scripted
    /// hog runs (from `hog.0` to `hog.1` s).
    struct Scripted {
        clock: Rc<Cell<Duration>>,
        hog: (u64, u64),
        /// Every configuration run, in order, with its round.
        log: Vec<(ProducerKind, usize, usize)>,
        /// When each round's first run started.
        starts: Vec<Duration>,
    }

    impl Scripted {
        fn busy(&self) -> bool {
            let now = self.clock.get().as_secs();
            now >= self.hog.0 && now < self.hog.1
        }
    }

    impl RoundEngine for Scripted {
        fn run_configs(
            &mut self,
            configs: &[(ProducerKind, usize)],
            round: usize,
        ) -> Result<Vec<Vec<RepeatResult>>> {
            if self.starts.len() < round {
                self.starts.push(self.clock.get());
            }
            Ok(configs
                .iter()
                .map(|&(p, w)| {
                    let outside = if self.busy() { 0.4 } else { 0.01 };
                    self.clock.set(self.clock.get() + Duration::from_secs(1));
                    self.log.push((p, w, round));
                    vec![run(p, w, round, outside)]
                })
                .collect())
        }
    }

    /// The same clock; quiet whenever the hog does not run, and waits in
    /// seconds until it stops or the limit passes.
    struct Watched {
        clock: Rc<Cell<Duration>>,
        hog: (u64, u64),
        waited: Vec<Duration>,
    }

    impl Machine for Watched {
        fn elapsed(&self) -> Duration {
            self.clock.get()
        }

        fn wait_for_quiet(&mut self, limit: Duration) -> bool {
            self.waited.push(limit);
            let now = self.clock.get();
            let quiet_at = Duration::from_secs(self.hog.1);
            if now.as_secs() < self.hog.0 || now >= quiet_at {
                return true;
            }
            let until = (now + limit).min(quiet_at);
            self.clock.set(until);
            until >= quiet_at
        }
    }

    const CONFIGS: [(ProducerKind, usize); 4] = [(Sleep, 0), (Sleep, 8), (Spin, 0), (Spin, 8)];

    fn rounds_with(
        plan: RoundPlan,
        hog: (u64, u64),
        decided: &mut dyn FnMut(&[ConfigResult]) -> bool,
    ) -> (Vec<ConfigResult>, Scripted, Watched) {
        let clock = Rc::new(Cell::new(Duration::ZERO));
        let mut engine = Scripted {
            clock: Rc::clone(&clock),
            hog,
            log: Vec::new(),
            starts: Vec::new(),
        };
        let mut machine = Watched {
            clock,
            hog,
            waited: Vec::new(),
        };
        let results = run_rounds(plan, &CONFIGS, &mut engine, &mut machine, decided).unwrap();
        (results, engine, machine)
    }

    fn plan(min: usize, max: usize, budget_s: Option<u64>) -> RoundPlan {
        RoundPlan {
            min_rounds: min,
            max_rounds: max,
            budget: budget_s.map(Duration::from_secs),
        }
    }

    #[test]
    fn on_a_quiet_machine_every_configuration_runs_once_a_round_in_the_same_order() {
        let (results, engine, machine) = rounds_with(plan(3, 10, Some(100)), (0, 0), &mut |_| true);
        let expected: Vec<(ProducerKind, usize, usize)> = (1..=3)
            .flat_map(|r| CONFIGS.iter().map(move |&(p, w)| (p, w, r)))
            .collect();
        assert_eq!(engine.log, expected);
        assert!(machine.waited.is_empty(), "nothing to wait for");
        for c in &results {
            assert_eq!(c.rounds(), vec![1, 2, 3]);
            assert!(!c.summary.disturbed);
            assert_eq!(c.summary.ex_per_s, 100.0 + c.workers as f64);
        }
    }

    #[test]
    fn a_configuration_disturbed_by_a_hog_that_stops_is_run_again_once_it_is_quiet() {
        // The hog runs from 1 s to 4 s: the second, third and fourth
        // configuration of round 1 are disturbed; the wait ends at 4 s and
        // they run again in round 1.
        let (results, engine, machine) = rounds_with(plan(2, 2, Some(100)), (1, 4), &mut |_| true);
        assert_eq!(machine.waited, vec![quiet_wait(0)]);
        let round1: Vec<(ProducerKind, usize)> = engine
            .log
            .iter()
            .filter(|(_, _, r)| *r == 1)
            .map(|&(p, w, _)| (p, w))
            .collect();
        assert_eq!(
            round1,
            [
                (Sleep, 0),
                (Sleep, 8),
                (Spin, 0),
                (Spin, 8),
                (Sleep, 8),
                (Spin, 0),
                (Spin, 8)
            ]
        );
        for c in &results {
            assert!(
                stats::round_row(c, 1).is_some() && stats::round_row(c, 2).is_some(),
                "{c:?}"
            );
            assert!(!c.summary.disturbed);
        }
        let kept = results
            .iter()
            .flat_map(|c| &c.repeats)
            .filter(|r| r.row.disturbed);
        assert_eq!(kept.count(), 3, "the disturbed runs are kept");
    }

    #[test]
    fn a_hog_that_never_stops_leaves_rounds_disturbed_within_the_budget() {
        let (results, engine, machine) =
            rounds_with(plan(2, 10, Some(10)), (0, u64::MAX), &mut |_| false);
        // Round 1 (4 s), a wait of 2 s that ends with the machine still
        // busy, so no re-run; round 2 runs because it is the minimum (6 s
        // to 10 s); then the budget is spent and nothing more starts.
        assert_eq!(machine.waited, vec![quiet_wait(0)]);
        assert_eq!(
            engine.log.len(),
            8,
            "two rounds, no re-run: {:?}",
            engine.log
        );
        for c in &results {
            assert!(c.summary.disturbed);
            assert_eq!(c.disturbed_in(1), Some(0.4));
        }
    }

    #[test]
    fn without_a_budget_nothing_is_run_again_or_added() {
        let (_, engine, machine) = rounds_with(plan(1, 10, None), (0, 2), &mut |_| false);
        assert!(machine.waited.is_empty());
        assert_eq!(engine.log.len(), 4);
    }

    #[test]
    fn rounds_are_added_until_the_caller_is_decided_or_the_plan_ends() {
        let asked = Cell::new(0);
        let mut decided = |results: &[ConfigResult]| {
            asked.set(asked.get() + 1);
            results[0].rounds().len() >= 5
        };
        let (results, _, _) = rounds_with(plan(3, 10, Some(1000)), (0, 0), &mut decided);
        assert_eq!(results[0].rounds().len(), 5);
        assert_eq!(asked.get(), 3, "asked after rounds 3, 4 and 5");
        let (results, _, _) = rounds_with(plan(3, 4, Some(1000)), (0, 0), &mut |_| false);
        assert_eq!(results[0].rounds().len(), 4, "the plan's most");
        // The budget: rounds of 4 s, 10 s allowed.
        let (results, _, _) = rounds_with(plan(1, 10, Some(10)), (0, 0), &mut |_| false);
        assert_eq!(results[0].rounds().len(), 3);
    }

    proptest! {
        #[test]
        fn whatever_the_hog_every_round_runs_every_configuration_and_the_budget_holds(
            start in 0u64..40,
            length in 0u64..40,
            min in 1usize..4,
            budget in 0u64..40,
        ) {
            let (results, engine, machine) =
                rounds_with(plan(min, 8, Some(budget)), (start, start + length), &mut |_| false);
            let rounds: BTreeSet<usize> = engine.log.iter().map(|&(_, _, r)| r).collect();
            prop_assert!(rounds.len() >= min);
            prop_assert_eq!(rounds.len(), results[0].rounds().len());
            for &r in &rounds {
                for &(p, w) in &CONFIGS {
                    prop_assert!(engine.log.contains(&(p, w, r)));
                }
            }
            // Past the minimum, a round starts only while the budget lasts:
            // the rounds before it took 4 s each, their waits and re-runs
            // included in the clock.
            let extra = rounds.len().saturating_sub(min);
            prop_assert!(extra == 0 || engine.starts[min] < Duration::from_secs(budget),
                "round {} started at {:?}", min + 1, engine.starts[min]);
            prop_assert!(machine.waited.len() <= MAX_RERUNS * rounds.len());
            prop_assert!(machine.waited.iter().all(|w| *w <= quiet_wait(MAX_RERUNS - 1)));
            // Every round a configuration has an undisturbed run in comes
            // out in its summary as not disturbed.
            for c in &results {
                let all_quiet = c.rounds().iter().all(|&r| stats::round_row(c, r).is_some());
                prop_assert_eq!(c.summary.disturbed, !all_quiet);
            }
        }
    }
}
