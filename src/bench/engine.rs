//! The consumer loop: drives one pipeline configuration the way PyTorch's
//! DataLoader iterator does, and measures where the loop waits.
//!
//! Per step it takes two clock readings and records two histogram values; the
//! scheduler counters are read once at each end of the measured window, so the
//! measuring stays well under a microsecond per step.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use super::config::{PipelineConfig, WorkerKind};
use super::dataset;
use super::gil;
use super::pool::{Finished, Pool, WorkerStats};
use crate::error::{BatchOwner, EngineError, PoolError};
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

/// Runs one configuration on the calling thread (the consumer).
/// `worker_exe` is the binary to re-execute for process workers.
pub fn run(
    cfg: &PipelineConfig,
    worker_exe: &Path,
    interrupted: &dyn Fn() -> bool,
    mut on_step: impl FnMut(),
) -> Result<Measured, RunError> {
    let total = cfg.total_batches();
    let first_measured = 1 + cfg.warmup_batches;
    let mut wait = new_histogram();
    let mut work = new_histogram();
    let stall_limit = stall_limit(cfg);

    let created = Instant::now();
    let mut window_start = created;
    let mut sched_start = sys::schedstat();
    let mut usage_start = sys::thread_usage();
    // The first prefetch_factor x W indices, round robin, handed out as the
    // workers start.
    let sent: u64 = total.min(cfg.max_outstanding() as u64);
    let mut initial = vec![Vec::new(); cfg.workers];
    for j in 0..sent {
        initial[(j % cfg.workers.max(1) as u64) as usize].push(j);
    }
    let mut pool = match (cfg.workers, cfg.worker_kind) {
        (0, _) => None,
        (_, WorkerKind::Thread) => {
            Some(Pool::threads(&cfg.spec, &initial).map_err(RunError::from)?)
        }
        (_, WorkerKind::Process) => Some(
            Pool::processes(worker_exe, &cfg.spec, &initial, cfg.receive())
                .map_err(RunError::from)?,
        ),
    };
    let loop_gil = pool.as_ref().and_then(Pool::interpreter_lock);
    let mut sent = sent;
    let mut outstanding = sent as usize;
    let mut max_outstanding = outstanding;
    let mut stash: BTreeMap<u64, Finished> = BTreeMap::new();
    let mut next_in_order: u64 = 0;
    let mut startup = Duration::ZERO;
    let mut digest: u64 = 0;
    let mut deliveries = Vec::with_capacity(total as usize);

    for step in 0..total {
        if interrupted() {
            return Err(RunError::Interrupted);
        }
        let t0 = Instant::now();
        let (index, worker, data) = match pool.as_mut() {
            None => (step, 0, dataset::produce_batch(&cfg.spec, step)),
            Some(p) => {
                let got = next_batch(
                    p,
                    cfg.in_order,
                    next_in_order,
                    &mut stash,
                    stall_limit,
                    interrupted,
                )?;
                next_in_order += 1;
                outstanding -= 1;
                // One new index is handed out for every batch returned.
                if sent < total {
                    p.send((sent % cfg.workers as u64) as usize, sent)
                        .map_err(RunError::from)?;
                    sent += 1;
                    outstanding += 1;
                    max_outstanding = max_outstanding.max(outstanding);
                }
                (got.index, got.worker, got.data)
            }
        };
        let t1 = Instant::now();
        let sum = dataset::checksum(&data);
        // The training step is the loop's Python work.
        gil::compute(cfg.consumer(), loop_gil.as_deref());
        let t2 = Instant::now();

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
    let window = window_start.elapsed();
    let sched_end = sys::schedstat();
    let usage_end = sys::thread_usage();
    let workers = match pool {
        Some(p) => p.finish().map_err(RunError::from)?,
        None => Vec::new(),
    };
    let window_batches = cfg.window_batches();
    Ok(Measured {
        wait,
        work,
        startup,
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

fn next_batch(
    pool: &mut Pool,
    in_order: bool,
    want: u64,
    stash: &mut BTreeMap<u64, Finished>,
    stall_limit: Duration,
    interrupted: &dyn Fn() -> bool,
) -> Result<Finished, RunError> {
    let waiting_since = Instant::now();
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
        if waiting_since.elapsed() > stall_limit {
            let owner = in_order.then(|| {
                let (worker, pid) = pool.owner(want);
                BatchOwner { worker, pid }
            });
            return Err(RunError::Failed(EngineError::Stalled {
                limit: stall_limit,
                batch: want,
                owner,
            }));
        }
        if let Some(f) = pool
            .recv(Duration::from_millis(100))
            .map_err(RunError::from)?
        {
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
