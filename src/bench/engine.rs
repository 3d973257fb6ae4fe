//! The consumer loop: drives one pipeline configuration the way PyTorch's
//! DataLoader iterator does, and measures where the loop waits.
//!
//! Per step it takes two clock readings and records two histogram values; the
//! scheduler counters are read once at each end of the measured window, so the
//! measuring stays well under a microsecond per step.
//!
//! The loop drives its workers through [`WorkerPool`] and reads the
//! watchdog's time through a clock, so its bookkeeping (the hand-out, the
//! outstanding bound, the reorder stash, the watchdog) is unit-tested here
//! against a pool that finishes batches in a scripted order at once.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use super::config::{PipelineConfig, WorkerKind};
use super::dataset;
use super::gil;
use super::pool::{FinishedBatch, Pool, Sampler, WorkerPool, WorkerStats};
use super::python_costs::PythonCosts;
use crate::error::{EngineError, PoolError};
use crate::sys;

/// Which worker produced which batch, in delivery order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    pub index: u64,
    pub worker: usize,
}

/// Everything one run of one configuration measured.
#[derive(Debug)]
pub struct Measured {
    /// Time blocked getting each measured batch, in ns.
    pub wait: Histogram<u64>,
    /// The step after each measured batch arrived, in ns.
    pub work: Histogram<u64>,
    /// Iterator creation to the first batch.
    pub startup: Duration,
    /// The loop thread's CPU while it started the workers (zero without
    /// workers); the workers' own set-up is in [`WorkerStats`].
    pub start_cpu: Duration,
    /// The window ex/s is computed over.
    pub window: Duration,
    /// Samples delivered in the window.
    pub window_samples: u64,
    /// Steps in the window (for per-step scheduler figures).
    pub window_steps: u64,
    /// Consumer thread scheduler counters over the window.
    pub consumer_sched: sys::SchedStat,
    pub consumer_involuntary_switches: u64,
    /// What each worker reported when it stopped.
    pub workers: Vec<WorkerStats>,
    /// Order-independent digest of every batch's contents, by index.
    pub data_digest: u64,
    /// Most batches ever outstanding at once.
    pub max_outstanding: usize,
    pub deliveries: Vec<Delivery>,
}

/// Why a run stopped early: Ctrl-C, or a failure of the engine.
#[derive(Debug)]
pub enum RunError {
    Interrupted,
    Failed(EngineError),
}

impl From<PoolError> for RunError {
    fn from(e: PoolError) -> Self {
        RunError::Failed(EngineError::Pool(e))
    }
}

/// How long the loop waits for a batch before it looks again (for Ctrl-C,
/// the watchdog, a dead worker).
const POLL: Duration = Duration::from_millis(100);

/// How the loop tells the time while it waits for a batch (the watchdog):
/// the system's clock, or in tests one that moves only when a fake pool
/// says it waited.
trait Clock {
    fn now(&self) -> Instant;
}

/// The system's monotonic clock.
struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// Runs one configuration on the calling thread (the consumer).
/// `worker_exe` is the binary to re-execute for process workers.
pub fn run(
    cfg: &PipelineConfig,
    worker_exe: &Path,
    interrupted: &dyn Fn() -> bool,
    on_step: impl FnMut(),
) -> Result<Measured, RunError> {
    let start = |initial: &[Vec<u64>]| match (cfg.workers, cfg.worker_kind) {
        (0, _) => Ok(None),
        (_, WorkerKind::Thread) => Pool::threads(&cfg.spec, initial).map(Some),
        (_, WorkerKind::Process) => {
            Pool::processes(worker_exe, &cfg.spec, initial, cfg.receive()).map(Some)
        }
    };
    drive(cfg, start, &SystemClock, interrupted, on_step)
}

/// The loop itself, with the workers `start` gives it for the first
/// indices (None: the loop produces inline).
fn drive<P: WorkerPool>(
    cfg: &PipelineConfig,
    start: impl FnOnce(&[Vec<u64>]) -> Result<Option<P>, PoolError>,
    clock: &impl Clock,
    interrupted: &dyn Fn() -> bool,
    mut on_step: impl FnMut(),
) -> Result<Measured, RunError> {
    let total = cfg.total_batches();
    let first_measured = 1 + cfg.warmup_batches;
    let mut wait = new_histogram();
    let mut work = new_histogram();
    let stall_limit = stall_limit(cfg);

    let created = clock.now();
    let mut window_start = created;
    let mut sched_start = sys::schedstat();
    let mut usage_start = sys::thread_usage();
    // The first prefetch_factor x W indices, round robin, handed out as the
    // workers start; the sampler goes on past the batches the loop takes,
    // into the tail, so the pipeline stays full to the window's end.
    let mut sampler = Sampler::new(cfg.workers, cfg.dataset_batches());
    let initial = sampler.first(cfg.max_outstanding());
    let cpu_before_start = sys::thread_cpu_ns();
    let mut pool = start(&initial)?;
    let start_cpu = Duration::from_nanos(sys::thread_cpu_ns().saturating_sub(cpu_before_start));
    let loop_gil = pool.as_ref().and_then(P::interpreter_lock);
    let costs = PythonCosts::of_config(cfg);
    let mut outstanding = sampler.handed_out() as usize;
    let mut max_outstanding = outstanding;
    let mut stash: BTreeMap<u64, FinishedBatch> = BTreeMap::new();
    let mut next_in_order: u64 = 0;
    let mut startup = Duration::ZERO;
    let mut digest: u64 = 0;
    let mut deliveries = Vec::with_capacity(total as usize);

    for step in 0..total {
        if interrupted() {
            return Err(RunError::Interrupted);
        }
        let t0 = clock.now();
        let (index, worker, data) = match pool.as_mut() {
            None => {
                // `_SingleProcessDataLoaderIter`: the loop's own Python, then
                // the samples and collate, on the loop's thread.
                gil::compute(costs.inline_next, None);
                let data = dataset::produce_batch_under(&cfg.spec, step, None, &costs);
                (step, 0, data)
            }
            Some(p) => {
                let got = next_batch(
                    p,
                    cfg.in_order,
                    next_in_order,
                    &mut stash,
                    stall_limit,
                    clock,
                    interrupted,
                )?;
                next_in_order += 1;
                outstanding -= 1;
                // One new index is handed out for every batch returned,
                // in `_try_put_index`'s Python under the loop's lock.
                gil::compute(costs.hand_out, loop_gil.as_deref());
                if let Some((owner, next)) = sampler.next() {
                    p.send(owner, next)?;
                    outstanding += 1;
                    max_outstanding = max_outstanding.max(outstanding);
                }
                (got.index, got.worker, got.data)
            }
        };
        let t1 = clock.now();
        // The training step is the loop's Python work; reading the batch
        // into its checksum is part of it.
        let sum = gil::compute_around(cfg.consumer(), loop_gil.as_deref(), || {
            dataset::checksum(&data)
        });
        let t2 = clock.now();

        digest = digest.wrapping_add(sum.wrapping_mul(2 * index + 1));
        deliveries.push(Delivery { index, worker });
        if step == 0 {
            startup = t1 - created;
        }
        if step >= first_measured {
            record(&mut wait, t1 - t0);
            record(&mut work, t2 - t1);
        }
        if cfg.warmup_batches > 0 && step + 1 == first_measured {
            window_start = t2;
            sched_start = sys::schedstat();
            usage_start = sys::thread_usage();
        }
        on_step();
    }
    let window = clock.now() - window_start;
    let sched_end = sys::schedstat();
    let usage_end = sys::thread_usage();
    let workers = match pool {
        Some(p) => p.finish()?,
        None => Vec::new(),
    };
    let window_batches = cfg.window_batches();
    Ok(Measured {
        wait,
        work,
        startup,
        start_cpu,
        window,
        window_samples: window_batches * cfg.spec.batch_size as u64,
        window_steps: window_batches,
        consumer_sched: sys::SchedStat {
            on_cpu_ns: sched_end.on_cpu_ns.saturating_sub(sched_start.on_cpu_ns),
            run_delay_ns: sched_end
                .run_delay_ns
                .saturating_sub(sched_start.run_delay_ns),
            timeslices: sched_end.timeslices.saturating_sub(sched_start.timeslices),
        },
        consumer_involuntary_switches: usage_end
            .involuntary_switches
            .saturating_sub(usage_start.involuntary_switches),
        workers,
        data_digest: digest,
        max_outstanding,
        deliveries,
    })
}

/// How long the loop may go without any batch before the watchdog fails it:
/// generous against the slowest batch a worker should take.
fn stall_limit(cfg: &PipelineConfig) -> Duration {
    if let Some(ms) = cfg.watchdog_ms {
        return Duration::from_millis(ms);
    }
    let slowest = cfg.batch_cost() * (cfg.max_outstanding().max(1) as u32) + cfg.consumer();
    Duration::from_secs(10) + slowest * 4
}

/// The next batch to deliver: batch `want` when delivering in order (an
/// early batch waits in `stash` for its turn), else the first ready.
fn next_batch<P: WorkerPool>(
    pool: &mut P,
    in_order: bool,
    want: u64,
    stash: &mut BTreeMap<u64, FinishedBatch>,
    stall_limit: Duration,
    clock: &impl Clock,
    interrupted: &dyn Fn() -> bool,
) -> Result<FinishedBatch, RunError> {
    let waiting_since = clock.now();
    loop {
        let ready = if in_order {
            stash.remove(&want)
        } else {
            stash.pop_first().map(|(_, f)| f)
        };
        if let Some(f) = ready {
            return Ok(f);
        }
        if interrupted() {
            return Err(RunError::Interrupted);
        }
        if clock.now().duration_since(waiting_since) > stall_limit {
            return Err(RunError::Failed(EngineError::Stalled {
                limit: stall_limit,
                batch: want,
                owner: in_order.then(|| pool.owner(want)),
            }));
        }
        if let Some(f) = pool.recv(POLL)? {
            stash.insert(f.index, f);
        }
    }
}

pub(crate) fn new_histogram() -> Histogram<u64> {
    // 1 ns to 1 hour at 3 significant figures: finer than a microsecond.
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds")
}

fn record(h: &mut Histogram<u64>, d: Duration) {
    h.saturating_record((d.as_nanos() as u64).max(1));
}

/// Measures what the per-step measuring costs: two clock readings and two
/// histogram records, averaged over many rounds, in ns.
pub fn measurement_overhead_ns() -> f64 {
    const ROUNDS: u32 = 200_000;
    let mut a = new_histogram();
    let mut b = new_histogram();
    let start = Instant::now();
    for _ in 0..ROUNDS {
        let t0 = Instant::now();
        let t1 = Instant::now();
        record(&mut a, t1 - t0);
        record(&mut b, t1 - t0);
    }
    start.elapsed().as_nanos() as f64 / ROUNDS as f64
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::*;
    use crate::bench::config::{ProducerKind, ProducerSpec, Transport};
    use crate::bench::gil::Gil;
    use crate::error::{BatchOwner, WorkerEnd};

    /// What the loop did, in order, as the scripted pool and the step
    /// callback saw it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Event {
        Sent { worker: usize, index: u64 },
        Finished(u64),
        Stepped,
    }

    /// A clock that moves only when the scripted pool waits.
    struct ScriptedClock {
        start: Instant,
        waited: Rc<Cell<Duration>>,
    }

    impl Clock for ScriptedClock {
        fn now(&self) -> Instant {
            self.start + self.waited.get()
        }
    }

    /// Workers that finish batches at once, in a scripted order, without
    /// processes, threads or sleeps: at each wait, `choices` picks which of
    /// the batches handed out and not yet finished is finished next.
    struct ScriptedPool {
        workers: usize,
        spec: ProducerSpec,
        in_flight: Vec<(usize, u64)>,
        choices: Vec<usize>,
        picks: usize,
        /// With no choices left: finish the highest index first (else the
        /// first handed out).
        newest_first: bool,
        /// A batch its worker never finishes.
        hung: Option<u64>,
        /// (batches finished, worker): that worker dies on the next wait.
        dies_after: Option<(usize, usize)>,
        /// A batch whose worker is gone when the loop hands it out.
        refused: Option<u64>,
        finished: usize,
        waited: Rc<Cell<Duration>>,
        log: Rc<RefCell<Vec<Event>>>,
        /// Each event with the calling (loop) thread's CPU time then.
        cpu_log: Rc<RefCell<Vec<(Event, u64)>>>,
    }

    fn pid(worker: usize) -> u32 {
        4000 + worker as u32
    }

    fn killed(worker: usize) -> PoolError {
        PoolError::WorkerDied {
            worker,
            end: WorkerEnd::Killed {
                pid: pid(worker),
                signal: 9,
            },
        }
    }

    impl WorkerPool for ScriptedPool {
        fn send(&mut self, worker: usize, index: u64) -> Result<(), PoolError> {
            if self.refused == Some(index) {
                return Err(killed(worker));
            }
            self.log.borrow_mut().push(Event::Sent { worker, index });
            let cpu = sys::thread_cpu_ns();
            self.cpu_log
                .borrow_mut()
                .push((Event::Sent { worker, index }, cpu));
            self.in_flight.push((worker, index));
            Ok(())
        }

        fn recv(&mut self, timeout: Duration) -> Result<Option<FinishedBatch>, PoolError> {
            if let Some((after, worker)) = self.dies_after
                && self.finished >= after
            {
                return Err(killed(worker));
            }
            let ready: Vec<usize> = (0..self.in_flight.len())
                .filter(|&i| Some(self.in_flight[i].1) != self.hung)
                .collect();
            if ready.is_empty() {
                self.waited.set(self.waited.get() + timeout);
                return Ok(None);
            }
            let pick = match self.choices.get(self.picks) {
                Some(choice) => ready[choice % ready.len()],
                None if self.newest_first => *ready
                    .iter()
                    .max_by_key(|&&i| self.in_flight[i].1)
                    .expect("some batch is ready"),
                None => ready[0],
            };
            self.picks += 1;
            let (worker, index) = self.in_flight.remove(pick);
            self.finished += 1;
            self.log.borrow_mut().push(Event::Finished(index));
            let cpu = sys::thread_cpu_ns();
            self.cpu_log
                .borrow_mut()
                .push((Event::Finished(index), cpu));
            Ok(Some(FinishedBatch {
                index,
                worker,
                data: dataset::produce_batch(&self.spec, index),
            }))
        }

        fn owner(&self, index: u64) -> BatchOwner {
            let worker = (index % self.workers as u64) as usize;
            BatchOwner {
                worker,
                pid: Some(pid(worker)),
            }
        }

        fn interpreter_lock(&self) -> Option<Arc<Gil>> {
            None
        }

        fn finish(self) -> Result<Vec<WorkerStats>, PoolError> {
            Ok(vec![WorkerStats::default(); self.workers])
        }
    }

    fn config(
        workers: usize,
        prefetch_factor: usize,
        batches: u64,
        in_order: bool,
    ) -> PipelineConfig {
        PipelineConfig {
            spec: ProducerSpec {
                producer: ProducerKind::Sleep,
                cost_ns: 0,
                batch_size: 2,
                sample_floats: 3,
                seed: 11,
                timer_slack_ns: 1,
                delay_batch: None,
                send_ns: 0,
                switch_interval_ns: 0,
                python_scale: 0.0,
                fork_scale: 0.0,
                setup_scale: 0.0,
                transport: Transport::Pipe,
                socket_dir: None,
            },
            consumer_ns: 0,
            receive_ns: 0,
            workers,
            prefetch_factor,
            worker_kind: WorkerKind::Process,
            in_order,
            batches,
            warmup_batches: 0,
            tail_batches: 0,
            window: crate::bench::WindowKind::WholeRun,
            watchdog_ms: Some(1_000),
        }
    }

    /// A scripted run and what it logged.
    struct Scripted {
        result: Result<Measured, RunError>,
        log: Vec<Event>,
        cpu_log: Vec<(Event, u64)>,
        waited: Duration,
    }

    /// Runs `cfg` against a scripted pool that `script` sets up; Ctrl-C
    /// comes after `interrupt_after` steps, if given.
    fn scripted(
        cfg: &PipelineConfig,
        script: impl FnOnce(&mut ScriptedPool),
        interrupt_after: Option<usize>,
    ) -> Scripted {
        let log = Rc::new(RefCell::new(Vec::new()));
        let cpu_log = Rc::new(RefCell::new(Vec::new()));
        let waited = Rc::new(Cell::new(Duration::ZERO));
        let clock = ScriptedClock {
            start: Instant::now(),
            waited: Rc::clone(&waited),
        };
        let mut pool = ScriptedPool {
            workers: cfg.workers,
            spec: cfg.spec.clone(),
            in_flight: Vec::new(),
            choices: Vec::new(),
            picks: 0,
            newest_first: false,
            hung: None,
            dies_after: None,
            refused: None,
            finished: 0,
            waited: Rc::clone(&waited),
            log: Rc::clone(&log),
            cpu_log: Rc::clone(&cpu_log),
        };
        script(&mut pool);
        let start = |initial: &[Vec<u64>]| {
            assert_eq!(initial.len(), cfg.workers, "one list per worker");
            for (worker, tasks) in initial.iter().enumerate() {
                for &index in tasks {
                    pool.send(worker, index)?;
                }
            }
            Ok(Some(pool))
        };
        let steps = Cell::new(0usize);
        let interrupted = || interrupt_after.is_some_and(|n| steps.get() >= n);
        let result = drive(cfg, start, &clock, &interrupted, || {
            steps.set(steps.get() + 1);
            log.borrow_mut().push(Event::Stepped);
            let cpu = sys::thread_cpu_ns();
            cpu_log.borrow_mut().push((Event::Stepped, cpu));
        });
        let log = log.borrow().clone();
        let cpu_log = cpu_log.borrow().clone();
        Scripted {
            result,
            log,
            cpu_log,
            waited: waited.get(),
        }
    }

    /// The same configuration produced inline, for its digest.
    fn inline_digest(cfg: &PipelineConfig) -> u64 {
        let inline = PipelineConfig {
            workers: 0,
            ..cfg.clone()
        };
        let no_pool = |_: &[Vec<u64>]| Ok(None::<ScriptedPool>);
        drive(&inline, no_pool, &SystemClock, &|| false, || {})
            .unwrap()
            .data_digest
    }

    /// Checks the hand-out: the first indices as the workers start, then
    /// one at a time in order, every index once and to its round robin
    /// owner, never more than `prefetch_factor x workers` handed out and not
    /// yet taken by the loop.
    fn assert_handed_out_by_the_rules(cfg: &PipelineConfig, log: &[Event]) {
        let bound = cfg.prefetch_factor * cfg.workers;
        let first = bound.min(cfg.total_batches() as usize) as u64;
        let mut sent: Vec<u64> = Vec::new();
        let (mut stepped, mut any_finished) = (0usize, false);
        for event in log {
            match *event {
                Event::Sent { worker, index } => {
                    assert_eq!(
                        worker,
                        (index % cfg.workers as u64) as usize,
                        "batch {index}"
                    );
                    if any_finished {
                        assert_eq!(index, sent.len() as u64, "refills go out in order");
                    } else {
                        assert!(
                            index < first,
                            "batch {index} handed out before the loop began"
                        );
                    }
                    sent.push(index);
                    // A refill comes after the loop took its step's batch.
                    let taken = if any_finished { stepped + 1 } else { 0 };
                    assert!(
                        sent.len() - taken <= bound,
                        "{} sent, {taken} taken, bound {bound}: {log:?}",
                        sent.len()
                    );
                }
                Event::Finished(_) => any_finished = true,
                Event::Stepped => stepped += 1,
            }
        }
        sent.sort_unstable();
        assert_eq!(
            sent,
            (0..cfg.total_batches()).collect::<Vec<_>>(),
            "every index handed out once"
        );
    }

    proptest! {
        #[test]
        fn whatever_order_workers_finish_in_the_loop_gets_every_batch_once_in_order(
            workers in 1usize..6,
            prefetch_factor in 1usize..4,
            batches in 1u64..40,
            choices in prop::collection::vec(any::<usize>(), 0..80),
        ) {
            let cfg = config(workers, prefetch_factor, batches, true);
            let run = scripted(&cfg, |p| p.choices = choices, None);
            let m = run.result.unwrap();
            let order: Vec<u64> = m.deliveries.iter().map(|d| d.index).collect();
            prop_assert_eq!(order, (0..cfg.total_batches()).collect::<Vec<_>>());
            for d in &m.deliveries {
                prop_assert_eq!(d.worker, (d.index % workers as u64) as usize);
            }
            assert_handed_out_by_the_rules(&cfg, &run.log);
            let bound = (prefetch_factor * workers).min(cfg.total_batches() as usize);
            prop_assert_eq!(m.max_outstanding, bound);
            prop_assert_eq!(m.data_digest, inline_digest(&cfg));
            prop_assert_eq!(m.workers.len(), workers);
            prop_assert_eq!(run.waited, Duration::ZERO, "the loop never waited for nothing");
        }

        #[test]
        fn out_of_order_the_loop_takes_batches_as_they_finish(
            workers in 1usize..6,
            prefetch_factor in 1usize..4,
            batches in 1u64..40,
            choices in prop::collection::vec(any::<usize>(), 0..80),
        ) {
            let cfg = config(workers, prefetch_factor, batches, false);
            let run = scripted(&cfg, |p| p.choices = choices, None);
            let m = run.result.unwrap();
            let finished: Vec<u64> = run
                .log
                .iter()
                .filter_map(|e| match e {
                    Event::Finished(i) => Some(*i),
                    _ => None,
                })
                .collect();
            let delivered: Vec<u64> = m.deliveries.iter().map(|d| d.index).collect();
            prop_assert_eq!(&delivered, &finished);
            let mut once = delivered.clone();
            once.sort_unstable();
            prop_assert_eq!(once, (0..cfg.total_batches()).collect::<Vec<_>>());
            assert_handed_out_by_the_rules(&cfg, &run.log);
            prop_assert_eq!(m.data_digest, inline_digest(&cfg));
        }
    }

    #[test]
    fn a_batch_that_finishes_early_waits_for_its_turn() {
        // Two workers, two batches each ahead; the newest always finishes
        // first, so every batch but the last arrives before the one due.
        let cfg = config(2, 2, 6, true);
        let run = scripted(&cfg, |p| p.newest_first = true, None);
        let m = run.result.unwrap();
        let finished: Vec<u64> = run
            .log
            .iter()
            .filter_map(|e| match e {
                Event::Finished(i) => Some(*i),
                _ => None,
            })
            .collect();
        assert_eq!(&finished[..4], &[3, 2, 1, 0], "{:?}", run.log);
        let delivered: Vec<u64> = m.deliveries.iter().map(|d| d.index).collect();
        assert_eq!(delivered, (0..7).collect::<Vec<_>>());
        // Batch 4 goes out, to worker 0, only once batch 0 is taken.
        let sent_4 = run
            .log
            .iter()
            .position(|e| {
                *e == Event::Sent {
                    worker: 0,
                    index: 4,
                }
            })
            .unwrap();
        let finished_0 = run
            .log
            .iter()
            .position(|e| *e == Event::Finished(0))
            .unwrap();
        assert!(sent_4 > finished_0, "{:?}", run.log);
    }

    #[test]
    fn a_batch_never_delivered_fails_the_run_naming_its_worker_after_the_limit() {
        let cfg = config(3, 2, 20, true);
        let run = scripted(&cfg, |p| p.hung = Some(4), None);
        match run.result {
            Err(RunError::Failed(EngineError::Stalled {
                limit,
                batch,
                owner,
            })) => {
                assert_eq!(limit, Duration::from_secs(1));
                assert_eq!(batch, 4);
                assert_eq!(
                    owner,
                    Some(BatchOwner {
                        worker: 1,
                        pid: Some(4001)
                    })
                );
            }
            other => panic!("{other:?}"),
        }
        // The watchdog waits out its limit, and one poll more at most.
        assert!(run.waited > Duration::from_secs(1), "{:?}", run.waited);
        assert!(
            run.waited <= Duration::from_secs(1) + POLL,
            "{:?}",
            run.waited
        );
        let steps = run.log.iter().filter(|e| **e == Event::Stepped).count();
        assert_eq!(steps, 4, "batches 0 to 3 were delivered");
    }

    #[test]
    fn out_of_order_a_stall_names_no_worker() {
        let cfg = config(2, 2, 10, false);
        let run = scripted(&cfg, |p| p.hung = Some(3), None);
        match run.result {
            Err(RunError::Failed(EngineError::Stalled { owner: None, .. })) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_worker_that_dies_fails_the_run_with_how_it_died() {
        let cfg = config(3, 2, 20, true);
        let run = scripted(&cfg, |p| p.dies_after = Some((5, 2)), None);
        match run.result {
            Err(RunError::Failed(EngineError::Pool(e))) => {
                assert_eq!(e.to_string(), "worker 2 (pid 4002) was killed by signal 9");
            }
            other => panic!("{other:?}"),
        }
        let refused = scripted(&cfg, |p| p.refused = Some(9), None);
        match refused.result {
            Err(RunError::Failed(EngineError::Pool(PoolError::WorkerDied {
                worker: 0, ..
            }))) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ctrl_c_stops_the_loop_between_steps() {
        let cfg = config(2, 2, 20, true);
        let run = scripted(&cfg, |_| {}, Some(3));
        assert!(
            matches!(run.result, Err(RunError::Interrupted)),
            "{:?}",
            run.result
        );
        let steps = run.log.iter().filter(|e| **e == Event::Stepped).count();
        assert_eq!(steps, 3);
    }

    #[test]
    fn the_loop_hands_out_each_index_after_its_python_on_its_own_thread() {
        let mut cfg = config(2, 2, 8, true);
        cfg.spec.python_scale = 100.0;
        let hand_out = PythonCosts::of_config(&cfg).hand_out;
        assert!(hand_out >= Duration::from_millis(1), "{hand_out:?}");
        let run = scripted(&cfg, |_| {}, None);
        run.result.unwrap();
        // Every refill goes out at least the hand-out's CPU after whatever
        // the loop did before (a batch came in, or the last step ended, when
        // the batch due was waiting in the stash); the first four went out
        // at the start.
        let mut refills = 0;
        let mut started = false;
        for pair in run.cpu_log.windows(2) {
            let ((_, before), (event, cpu)) = (pair[0], pair[1]);
            started |= matches!(pair[0].0, Event::Finished(_));
            if started && matches!(event, Event::Sent { .. }) {
                let spent = Duration::from_nanos(cpu - before);
                assert!(spent >= hand_out, "{spent:?} < {hand_out:?}");
                refills += 1;
            }
        }
        assert_eq!(refills, 5, "{:?}", run.log);
    }

    #[test]
    fn at_zero_workers_the_loop_pays_the_inline_pythons_costs_itself() {
        let mut cfg = config(0, 2, 5, true);
        cfg.spec.python_scale = 20.0;
        let costs = PythonCosts::of_config(&cfg);
        let per_batch = costs.inline_next + costs.worker_per_batch(cfg.spec.batch_size);
        assert!(per_batch >= Duration::from_millis(1), "{per_batch:?}");
        let no_pool = |_: &[Vec<u64>]| Ok(None::<ScriptedPool>);
        let start = sys::thread_cpu_ns();
        let m = drive(&cfg, no_pool, &SystemClock, &|| false, || {}).unwrap();
        let spent = Duration::from_nanos(sys::thread_cpu_ns() - start);
        assert!(
            spent >= per_batch * 6,
            "{spent:?} for 6 batches of {per_batch:?}"
        );
        cfg.spec.python_scale = 0.0;
        assert_eq!(m.data_digest, inline_digest(&cfg), "costs change no data");
    }

    /// Workers sharing one CPU: each works on the first batch of its queue,
    /// every busy worker at the same share of the CPU (as the kernel's fair
    /// scheduler shares it among spinning threads), and a batch needs
    /// `cost_ns` of CPU. The clock moves by the CPU time the batches took,
    /// so a window's ex/s can be held against what one CPU allows.
    struct OneCpuPool {
        spec: ProducerSpec,
        cost_ns: u64,
        /// Each worker's queue: (index, CPU still needed).
        queues: Vec<std::collections::VecDeque<(u64, u64)>>,
        done: std::collections::VecDeque<(usize, u64)>,
        waited: Rc<Cell<Duration>>,
    }

    impl WorkerPool for OneCpuPool {
        fn send(&mut self, worker: usize, index: u64) -> Result<(), PoolError> {
            self.queues[worker].push_back((index, self.cost_ns));
            Ok(())
        }

        fn recv(&mut self, timeout: Duration) -> Result<Option<FinishedBatch>, PoolError> {
            if self.done.is_empty() {
                let busy: Vec<usize> = (0..self.queues.len())
                    .filter(|&w| !self.queues[w].is_empty())
                    .collect();
                let Some(least) = busy.iter().map(|&w| self.queues[w][0].1).min() else {
                    self.waited.set(self.waited.get() + timeout);
                    return Ok(None);
                };
                // Each busy worker gets 1/k of the CPU until the nearest
                // batch is done.
                let elapsed = least * busy.len() as u64;
                self.waited
                    .set(self.waited.get() + Duration::from_nanos(elapsed));
                for w in busy {
                    self.queues[w][0].1 -= least;
                    if self.queues[w][0].1 == 0 {
                        let (index, _) = self.queues[w].pop_front().expect("busy");
                        self.done.push_back((w, index));
                    }
                }
            }
            Ok(self.done.pop_front().map(|(worker, index)| FinishedBatch {
                index,
                worker,
                data: dataset::produce_batch(&self.spec, index),
            }))
        }

        fn owner(&self, index: u64) -> BatchOwner {
            BatchOwner {
                worker: (index % self.queues.len() as u64) as usize,
                pid: None,
            }
        }

        fn interpreter_lock(&self) -> Option<Arc<Gil>> {
            None
        }

        fn finish(self) -> Result<Vec<WorkerStats>, PoolError> {
            Ok(vec![WorkerStats::default(); self.queues.len()])
        }
    }

    /// Steps a second over `cfg`'s window, its workers on [`OneCpuPool`].
    fn one_cpu_rate(cfg: &PipelineConfig, cost_ns: u64) -> f64 {
        let waited = Rc::new(Cell::new(Duration::ZERO));
        let clock = ScriptedClock {
            start: Instant::now(),
            waited: Rc::clone(&waited),
        };
        let pool = OneCpuPool {
            spec: cfg.spec.clone(),
            cost_ns,
            queues: vec![Default::default(); cfg.workers],
            done: Default::default(),
            waited,
        };
        let start = |initial: &[Vec<u64>]| {
            let mut pool = pool;
            for (worker, tasks) in initial.iter().enumerate() {
                for &index in tasks {
                    pool.send(worker, index)?;
                }
            }
            Ok(Some(pool))
        };
        let m = drive(cfg, start, &clock, &|| false, || {}).unwrap();
        assert_eq!(m.window_steps, cfg.batches);
        m.window_steps as f64 / m.window.as_secs_f64()
    }

    #[test]
    fn a_steady_window_on_one_cpu_never_beats_the_cpu() {
        use crate::bench::{WindowKind, WindowPlan};
        // 64 ms of CPU a batch, no training step: one CPU makes 15.625
        // batches a second, whatever the workers.
        let cost_ns = 64_000_000;
        let bound = 1e9 / cost_ns as f64;
        let steady = |workers: usize, measured: u64| {
            let plan = WindowPlan::of(WindowKind::SteadyState, workers, 2, 0, measured);
            let mut cfg = config(workers, 2, plan.measured, true);
            cfg.warmup_batches = plan.warmup;
            cfg.tail_batches = plan.tail;
            cfg.window = WindowKind::SteadyState;
            cfg.watchdog_ms = None;
            cfg
        };
        for workers in [1, 2, 3, 4, 8] {
            for measured in [20, 100] {
                let cfg = steady(workers, measured);
                let rate = one_cpu_rate(&cfg, cost_ns);
                assert!(
                    rate <= bound * (1.0 + 1e-9),
                    "{workers} workers, {} steps: {rate} > {bound}",
                    cfg.batches
                );
                assert!(rate >= bound * 0.999, "{workers} workers: {rate}");
            }
        }
        // Without the tail the window ends with the pipeline draining: the
        // batches made before it are delivered inside it, and the rate
        // passes what the CPU can do. The same with a window that is not a
        // whole number of the workers' turns.
        let mut drained = steady(8, 100);
        drained.tail_batches = 0;
        let rate = one_cpu_rate(&drained, cost_ns);
        assert!(rate > bound * 1.01, "{rate}");
        // (21 steps before the window leave 3 of a wave of 8 made and not
        // taken; 98 more leave 1.)
        let mut ragged = steady(8, 100);
        ragged.batches = 98;
        let rate = one_cpu_rate(&ragged, cost_ns);
        assert!(rate > bound * 1.01, "{rate}");
    }
}
