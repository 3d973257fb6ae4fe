//! What the engine takes from PyTorch 2.15 and CPython, in one place: every
//! constant that describes them rather than this tool, with what it
//! describes and where it was measured, traced or read. Change one here and
//! the engine's side-by-side with PyTorch (docs/engine.md, "Engine against
//! PyTorch") is due again.
//!
//! "Measured" means on this machine kind: a 2-core x86_64 VM, PyTorch 2.15.0
//! with Python 3.11, the `file_descriptor` sharing strategy, `fork`, the
//! harness in `pytorch_harness.py`.

use std::time::Duration;

/// The model these figures make, by the date it landed; every run of the
/// embedded engine names it (`engine_model` in the run file), so that a
/// record made before a change of model does not read as one made after.
/// Change it with any figure or cost the model spends; a second model the
/// same day is `YYYY-MM-DD.2`.
pub const ENGINE_MODEL: &str = "2026-12-06";

/// The DataLoader loop's CPU per batch received from a worker process, in
/// ms (decoding the message, fetching the descriptor, rebuilding the
/// tensor): measured inside `next()` with eight sleeping workers (no CPU
/// contention), batch 32 x 64 floats, one CPU (docs/engine.md, "Costs of the
/// hand-off"). The default of `--receive-ms`.
pub const PYTORCH_RECEIVE_MS: f64 = 0.42;

/// Of the receive cost, the share the loop spends before it connects to the
/// worker's sharer (decoding the header): a scheduler trace of `next()` at
/// cost 1 ms, batch 16, consumer 4 ms, three spinning workers, one CPU put
/// 0.11 of its 0.34 ms there (docs/engine.md, "Costs of the hand-off").
pub const RECEIVE_BEFORE: f64 = 1.0 / 3.0;

/// Of the receive cost, the share the loop spends in its side of the
/// sharer's handshake, spread evenly over the rounds: 0.19 of the 0.34 ms
/// in the same trace as [`RECEIVE_BEFORE`]; the rest (0.04 ms there) goes
/// to rebuilding the batch after the descriptor.
pub const RECEIVE_IN_HANDSHAKE: f64 = 0.5;

/// The DataLoader worker's CPU per batch spent by its helper threads, in
/// ms: the queue's feeder thread (pickling, moving the storage to shared
/// memory) 0.14 ms and the resource sharer thread (the handshake, sending
/// the descriptor) 0.21 ms; per-thread CPU time of a 306-batch run less a
/// 106-batch run, divided by 200, eight sleeping workers, batch 32 x 64
/// floats (docs/engine.md, "Costs of the hand-off"). The default of `--send-ms`.
pub const PYTORCH_SEND_MS: f64 = 0.35;

/// Of the send cost, the part the feeder thread spends before it writes a
/// batch's message; with `shared-fd` the sharer thread spends the rest when
/// the loop fetches the descriptor, with `queue` the feeder spends it all.
/// From the same measurement as [`PYTORCH_SEND_MS`]: 0.14 of 0.35 ms.
pub const FEEDER_PART_OF_SEND: f64 = 0.4;

/// Messages the sharer answers per descriptor, as `multiprocessing`'s
/// authenticated connection (`multiprocessing.connection`'s challenge and
/// answer) does: its challenge, the welcome, its answer to the loop's
/// challenge, then the descriptor. Read from CPython's `multiprocessing`,
/// and seen in a scheduler trace of PyTorch's resource sharer taking its
/// worker's interpreter lock once per round (docs/engine.md, "The interpreter locks").
pub const HANDSHAKE_ROUNDS: u32 = 4;

/// CPython's default switch interval (`sys.getswitchinterval()`), in ms: how
/// long a thread waits for the interpreter lock before it asks the holder
/// to let go. Read from CPython; the default of `--switch-interval-ms`.
pub const CPYTHON_SWITCH_INTERVAL_MS: f64 = 5.0;

/// What the harness's `torch.full` of 64 floats per sample costs a Python
/// worker with its interpreter lock let go: measured on one CPU with a
/// thread waiting for the lock meanwhile, which got it during the call and
/// never during plain Python (docs/engine.md, "The interpreter locks").
pub const TENSOR_CALL: Duration = Duration::from_micros(3);

/// What `default_collate`'s `torch.stack` of 16 samples per batch costs a
/// Python worker with its interpreter lock let go: measured as
/// [`TENSOR_CALL`] was.
pub const COLLATE_CALL: Duration = Duration::from_micros(7);

/// The default of `--python-cost-scale`: the Python costs below, as a
/// quiet machine of this kind runs them. The figures were measured on a
/// machine busy with builds (load average 7 to 8), which slows Python's
/// per-batch path: PyTorch's own per-batch probe (`pytorch_harness.py`) read
/// x0.46 and x0.53 of them on a quiet Intel machine of this kind
/// (2026-12-06, two runs), x0.38 to x0.45 on another (2026-12-04), x0.30 on
/// an AMD one (2026-12-05). At x0.5, chapter 06's steady state on the
/// engine came within 1.5% of PyTorch's beside it in every row's ex/s
/// (docs/log/2026-12-06-window-against-pytorch.md).
pub const PYTHON_COST_SCALE: f64 = 0.5;

/// The default of `--fork-cost-scale`: the loop's fork of each worker as a
/// quiet machine of this kind runs it, against [`WORKER_FORK`]: PyTorch's
/// start read x0.60 and x0.52 of it on the quiet Intel machine of
/// [`PYTHON_COST_SCALE`].
pub const FORK_COST_SCALE: f64 = 0.55;

/// The default of `--setup-cost-scale`: a worker's set-up and first
/// batches as a quiet machine of this kind runs them, against
/// [`WORKER_START`]: x0.91 and x0.82 there.
pub const SETUP_COST_SCALE: f64 = 0.8;

/// The default of `--receive-ms`: [`PYTORCH_RECEIVE_MS`] at
/// [`PYTHON_COST_SCALE`], as `--calibrate-to-pytorch` scales it.
pub const DEFAULT_RECEIVE_MS: f64 = 0.21;

/// The default of `--send-ms`: [`PYTORCH_SEND_MS`] at
/// [`PYTHON_COST_SCALE`].
pub const DEFAULT_SEND_MS: f64 = 0.175;

/// A CPU cost that grows with the batch's shape: a fixed part, a part per
/// sample and a part per float of the samples it handles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShapeCost {
    pub base_ns: f64,
    pub per_sample_ns: f64,
    pub per_float_ns: f64,
}

impl ShapeCost {
    /// The cost for `samples` samples of `floats` floats each, times `scale`.
    pub fn at(&self, samples: usize, floats: usize, scale: f64) -> Duration {
        let ns = self.base_ns
            + self.per_sample_ns * samples as f64
            + self.per_float_ns * (samples * floats) as f64;
        Duration::from_nanos((ns * scale).max(0.0).round() as u64)
    }
}

// The Python CPU beyond the hand-off (`python_costs.rs`), per step of a
// batch's life, in ns. Measured 2026-12-01 on this machine kind (2-core
// x86_64 VM, PyTorch 2.15.0, Python 3.11, one CPU by `taskset -c 1`), busy
// with other builds (load average 7 to 8), so every figure is CPU time:
//
// 1. Totals, by differential runs of the real DataLoader: a spinning
//    producer of cost 0 and no consumer, one worker (or none), 300 batches
//    less 60, divided by 240, 3 repeats, median (the script is in
//    docs/engine.md, "Calibrating the Python costs"). Per batch of B
//    samples of 64 floats, least squares over B = 4, 16, 32, 64, 128 (and
//    4096 floats at B = 4, 32, 128): the worker process (every thread)
//    782 us + 10.6 us x B, spread over the repeats up to 0.45 ms; the
//    loop's main thread 623 us + 1.9 us x B (spread up to 0.38 ms); the
//    loop's index-queue feeder threads 64 us + 0.14 us x B (up to 0.04
//    ms); the loop at 0 workers 67 us + 7.05 us x B (B = 4, 32, 128; up to
//    0.09 ms at B <= 32).
// 2. Less what the engine spends itself in the same runs, at
//    `--python-cost-scale 0` (`bench --producer spin --cost-ms 0
//    --consumer-ms 0 --workers 1|0 --cpus 1`, the same differences): the
//    worker 463 us + 2.25 us x B (the hand-off's 0.35 ms send cost
//    included, the 3 and 7 us torch calls left out), the loop 538 us +
//    0.13 us x B (its 0.42 ms receive cost included), 0.5 us x B at 0
//    workers.
// 3. Split between the steps by timing each call in one Python process
//    (`time.thread_time_ns` over 300 to 3000 calls, median of 5):
//    `torch.full((64,))` 4.4 us, the fetcher's call into `__getitem__`
//    with the harness's zero-cost producer 1.9 us, `torch.stack` of B
//    samples 4 us + 0.15 us x B, `default_collate` around it 2 us. The
//    per-batch rest of the worker is split between its index queue, the
//    allocation of the batch's shared storage (in `collate`) and its data
//    queue by the share each has in CPython's `_worker_loop`; of the
//    loop's, the refill and sampler (`hand_out`) carry the part that grows
//    with B.
//
// Per float nothing is added: PyTorch's worker spends 4.8 ns per float of
// a batch and its loop 0.6 ns, less than the engine's own filling, copying
// and reading of the floats already costs (11 to 15 ns in the same runs),
// which every step below counts inside its figure (`gil::compute_around`).

const fn cost(base_ns: f64, per_sample_ns: f64, per_float_ns: f64) -> ShapeCost {
    ShapeCost {
        base_ns,
        per_sample_ns,
        per_float_ns,
    }
}

/// Worker, per batch: `index_queue.get` unpickling the index list.
pub const WORKER_INDEX_GET: ShapeCost = cost(80_000.0, 0.0, 0.0);
/// Per sample: the fetcher's call into `__getitem__` (1.9 us, less the
/// engine's overshoot of a modelled step).
pub const SAMPLE_CALL: ShapeCost = cost(1_900.0 - STEP_OVERSHOOT_NS, 0.0, 0.0);
/// Per sample: `torch.full` building the sample's tensor (4.4 us, less the
/// engine's overshoot of a modelled step).
pub const TENSOR_FULL: ShapeCost = cost(4_400.0 - STEP_OVERSHOOT_NS, 0.0, 0.0);

/// What a modelled step costs the engine beyond its figure: reading the
/// thread's CPU clock and the last piece of spinning past the target. Per
/// sample two steps, at scale 1 the engine spent 2.2 us per sample more
/// than the figures above add (worker, and loop at 0 workers, B = 4, 32,
/// 128, the runs of (2)), so each per-sample step is short by this much.
const STEP_OVERSHOOT_NS: f64 = 1_100.0;
/// A per-sample cost that grows with the producer's cost: a fixed part and
/// a part per ms of the cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AfterCost {
    pub base_ns: f64,
    pub per_ms_ns: f64,
}

impl AfterCost {
    /// The cost after a producer's cost of `cost_ns`, times `scale`.
    pub fn at(&self, cost_ns: u64, scale: f64) -> Duration {
        let ns = self.base_ns + self.per_ms_ns * cost_ns as f64 / 1e6;
        Duration::from_nanos((ns * scale).max(0.0).round() as u64)
    }
}

// What a sample's Python costs beyond its figures when it runs right after
// the producer's cost: its caches (and branch predictors) have gone cold
// meanwhile, more the longer the cost lasted. `torch.full((64,))` costs 3 to
// 4 us in a tight loop, and after a 0.25 / 1 / 4 ms spin 13 / 29 / 83 us
// (after a sleep 24 / 37 / 108 us); the DataLoader's own per-sample path
// grows the same way. Measured in the real DataLoader at 0 workers, batch
// 16, no consumer: the loop's thread CPU per sample, less the same spin or
// sleep in a plain Python loop, less the DataLoader at cost 0; 40 (sleep
// 20) batches after 3, 5 repeats, median, one CPU (`taskset -c 1`),
// 2026-12-01 with the machine partly busy (load average 2.6 to 3):
//   spin  0.25 / 0.5 / 1 / 2 / 4 ms: 18.7 / 26.9 / 45.9 / 63.8 / 96.0 us
//         (spread of the repeats up to 15 us at 1 ms and below, 30 at 4 ms)
//   sleep 0.25 / 0.5 / 1 / 2 / 4 ms: 36.9 / 40.2 / 38.0 / 50.4 / 86.1 us
//         beyond Python's own `time.sleep`, which costs 7 to 19 us more
//         CPU than the engine's (C's `clock_nanosleep`)
// The script is in docs/log/2026-12-01-python-costs-and-start.md ("Cold
// after the cost").

/// Per sample of a sleeping producer, after its sleep: `time.sleep`
/// returning (taking the lock back) and the sample's Python with caches
/// gone cold. The slope is the least-squares fit of the sleep figures
/// above (13 us per ms). The level: 55 us at 2 ms matched chapter 06's
/// sleeping workers against PyTorch on a quiet machine (docs/engine.md,
/// "Starting the workers"), where the busier calibration gives 63 to 69
/// us; that figure carried the workers' cold per-batch path too, which
/// [`INDEX_AWAY`] now spends (about 0.28 ms a batch of 32 there, the
/// workers waiting some 9 ms for each index), so the level is 9 us lower:
/// 46 us at 2 ms, the same worker CPU per batch at chapter 06's settings.
pub const SLEEP_WAKE: AfterCost = AfterCost {
    base_ns: 20_000.0,
    per_ms_ns: 13_000.0,
};
/// Per sample of a spinning producer, after its spin: the sample's Python
/// with caches gone cold. The least-squares fit of the spin figures above:
/// 19 us + 20 us per ms.
pub const SPIN_COLD: AfterCost = AfterCost {
    base_ns: 19_000.0,
    per_ms_ns: 20_000.0,
};

/// A CPU cost that grows with how long a thread was away from a piece of
/// code: none right after the code last ran, up to `most_ns` once its
/// caches have gone cold, `1 - e^(-away / time_constant)` of that between.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AwayCost {
    pub most_ns: f64,
    pub time_constant_ns: f64,
}

impl AwayCost {
    /// This cost times `scale`.
    pub fn scaled(&self, scale: f64) -> AwayCost {
        AwayCost {
            most_ns: (self.most_ns * scale).max(0.0),
            ..*self
        }
    }

    /// The cost after `away` since the code last ran; `None`: it never ran.
    pub fn after(&self, away: Option<Duration>) -> Duration {
        let cooled = match away {
            _ if self.most_ns <= 0.0 => 0.0,
            None => 1.0,
            Some(_) if self.time_constant_ns <= 0.0 => 1.0,
            Some(a) => 1.0 - (-(a.as_nanos() as f64) / self.time_constant_ns).exp(),
        };
        Duration::from_nanos((self.most_ns * cooled).round() as u64)
    }
}

// What taking a batch in costs the loop beyond `--receive-ms` when the loop
// has been away from that code: the consumer's step and the wait before the
// batch came let other work (the workers, the consumer's own Python) push
// the receive path out of the caches. Measured on PyTorch 2.15, one CPU
// (`taskset -c 0`), cost 2 ms, batch 32, sleeping workers, 2026-12-01 with
// the machine quiet: the loop thread's CPU per step beyond the consumer
// (`cons_cpu` less the consumer, 150 batches after 30) is 0.81 ms at 8
// workers and no consumer, where most batches follow the one before within
// a millisecond, and 1.04 to 1.18 ms wherever each batch follows a long
// step or wait (2 workers and any consumer; 8 workers and a consumer of 8
// or 20 ms), where the engine without this cost spent 0.73 to 0.74 ms in
// every one of those runs. Per step (`next()`'s thread CPU against the time
// since the one before returned), the cost rises over the first 5 to 10 ms
// away and is flat after 12 ms: a time constant of 5 ms. The level is the
// mean of PyTorch's extra over the engine in the five long-away runs (0.30
// to 0.44 ms, mean 0.36). The script is in
// docs/log/2026-12-01-python-costs-and-start.md ("Away from the receive").

/// Loop, per batch from a worker, on top of the receive cost: the receive
/// path finding its caches cold after the loop was away from it.
pub const RECEIVE_AWAY: AwayCost = AwayCost {
    most_ns: 360_000.0,
    time_constant_ns: 5_000_000.0,
};

// The same for a worker's per-batch path (the index get, `default_collate`,
// the put, the feeder's pickling) while the worker waits for its next
// index: measured on PyTorch 2.15, one CPU (`taskset -c 0`), 2026-12-02,
// the machine partly busy, each worker logging its process CPU and the wall
// clock around every `__getitem__` (batch 4 at 0.25 ms, 2 and 8 workers,
// sleeping and spinning, consumers 0 to 12 ms; batch 32 at 2 ms, 8 sleeping
// workers, consumers 0 and 8 ms; 3 repeats, medians over the batches after
// the fourth). A batch's CPU, from its first sample to the next batch's,
// rises by 240 to 450 µs between a few milliseconds idle before it and more
// than ten, most of that by 11 ms, as the receive path's does. The script
// is in docs/log/2026-12-02-machines-and-the-factor.md ("The workers away
// from their per-batch path").

/// Worker, per batch: its per-batch path finding its caches cold after the
/// worker waited for its index, spread over the index get, collating and
/// the put in proportion to what each costs warm
/// (`PythonCosts::with_away_spread`): the measurement says how much a
/// batch costs, not in which step. The level is the middle of the measured
/// rise, the time constant the receive path's.
pub const INDEX_AWAY: AwayCost = AwayCost {
    most_ns: 330_000.0,
    time_constant_ns: 5_000_000.0,
};

/// PyTorch's loop, per worker it started, on the machine these figures
/// come from, in ms: `multiprocessing`'s `Process.start()` forking the
/// loop's process (copying its page tables; PyTorch 2.15's loop is a 300
/// MB process) and the queues made for the worker. The loop's thread CPU in
/// `iter(DataLoader(...))` divided by the workers, `fork`, one CPU
/// (`taskset -c 0`), 1, 2, 4 and 8 sleeping or spinning workers, 3 repeats
/// each, 2026-12-01 on a quiet machine: 12 to 24 ms a worker, median 18
/// (docs/engine.md, "Starting the workers"). The PyTorch harness measures
/// the same on every run ([`super::PythonStart`]), which says how this
/// machine's Python stands against these figures.
pub const FIGURES_FORK_MS: f64 = 18.0;
/// A PyTorch worker, once, between its fork and its first index, on the
/// machine these figures come from, in ms: `_worker_loop` setting itself
/// up (seeding, signal handlers, `torch.set_num_threads`) and the
/// copy-on-write faults of the pages it touches. The worker's process CPU
/// (`time.process_time_ns`, which starts at 0 in a forked child) at its
/// first `__getitem__`, the same runs as [`FIGURES_FORK_MS`]: 18 to 32 ms,
/// median 24. (The harness reads it at `worker_init_fn`, just before.)
pub const FIGURES_SETUP_MS: f64 = 24.0;

/// PyTorch's per-batch path on the machine these figures come from, hot:
/// the loop's main thread and one worker process (every thread), in µs
/// per batch of B samples of 64 floats, as base + per sample × B. The
/// differential runs of docs/engine.md ("Calibrating the Python costs",
/// (1)): a spinning producer of cost 0, no consumer, one worker, one CPU,
/// 300 batches less 60, at B = 4 to 128, fitted by least squares. The
/// harness's probe measures the same on every run ([`super::PythonPerBatch`]),
/// which says how this machine's per-batch Python stands against the
/// figures every per-sample and per-batch cost was fitted to.
pub const FIGURES_LOOP_PER_BATCH_US: (f64, f64) = (623.0, 1.9);
pub const FIGURES_WORKER_PER_BATCH_US: (f64, f64) = (782.0, 10.6);

/// A `FIGURES_*_PER_BATCH_US` figure at a batch of `samples`.
pub fn per_batch_figure((base, per_sample): (f64, f64), samples: usize) -> f64 {
    base + per_sample * samples as f64
}
/// What the engine's own loop spends spawning a worker process, in ms.
const ENGINE_SPAWN_MS: f64 = 0.5;
/// What the engine's own worker process spends starting (exec, its
/// hand-off threads) before it spends [`WORKER_START`], in ms.
const ENGINE_WORKER_START_MS: f64 = 3.0;
/// Loop, per worker started: [`FIGURES_FORK_MS`] less what the engine's own
/// loop spends spawning a worker. Scaled by `fork_cost_scale`, which
/// `--calibrate-to-pytorch` sets to this machine's fork over
/// [`FIGURES_FORK_MS`]: one factor for the fork and the set-up split their
/// sum wrong where the two ratios are far apart (on an Intel machine of
/// 2026-12-04, x0.29 to x0.32 against x0.53 to x0.57;
/// docs/log/2026-12-04-intel-grid-start-and-no-step.md, "The start,
/// traced").
pub const WORKER_FORK: ShapeCost = cost((FIGURES_FORK_MS - ENGINE_SPAWN_MS) * 1e6, 0.0, 0.0);
/// Worker, once, before it reads its first index: [`FIGURES_SETUP_MS`]
/// less what the engine's own worker spends starting. Scaled by
/// `setup_cost_scale`, this machine's set-up over [`FIGURES_SETUP_MS`]
/// when calibrated.
pub const WORKER_START: ShapeCost =
    cost((FIGURES_SETUP_MS - ENGINE_WORKER_START_MS) * 1e6, 0.0, 0.0);
/// Worker, once, before its first batch goes out: its first batches
/// costing more than the ones after (the result queue's feeder thread
/// starting and pickling its first tensor, the resource sharer starting
/// its listener, the copy-on-write faults of every page those first paths
/// touch). Per worker, its process CPU from its first sample to the first
/// of its fifth batch, less four times its median batch after: eight
/// settings (batch 4 at 0.25 ms with a 1 ms consumer, batch 32 at 2 ms
/// with none or 8 ms, 2 and 8 workers, sleeping and spinning, 3 repeats
/// each), 2026-12-01, settings' medians 6.9 to 10.4 ms, median 8.5. The
/// engine's own workers spend no more on their first batches than later.
/// Scaled by `setup_cost_scale`: like the set-up it is a fresh worker's
/// cold start (new threads, first paths, copy-on-write faults), and a
/// scheduler trace of chapter 06's eight sleeping workers on 2026-12-04
/// put PyTorch's first batch at about 5.1 ms of worker CPU beyond a later
/// one where the set-up ratio was x0.53 to x0.57 (8.5 ms x0.55 is 4.7 ms;
/// the common factor, x0.40, gave 3.4).
pub const FIRST_BATCHES: ShapeCost = cost(8_500_000.0, 0.0, 0.0);

/// Worker, per batch: `default_collate`'s Python and the batch's shared
/// storage.
pub const COLLATE_SHARED: ShapeCost = cost(150_000.0, 2_200.0, 0.0);
/// Worker, per batch: `torch.stack` into the shared storage.
pub const STACK_SHARED: ShapeCost = cost(10_000.0, 150.0, 0.0);
/// Worker, per batch: `data_queue.put` and the worker loop's bookkeeping.
pub const WORKER_RESULT_PUT: ShapeCost = cost(79_000.0, 0.0, 0.0);
/// Loop, per batch from a worker: `_try_put_index` (the sampler building
/// the next index list) and `_next_data`'s bookkeeping; per sample 1.84
/// us less the 0.6 us per sample the engine's own loop spent more at scale
/// 1 than at 0.
pub const LOOP_HAND_OUT: ShapeCost = cost(50_000.0, 1_250.0, 0.0);
/// Loop's index-queue feeder, per index list: pickling it.
pub const INDEX_PICKLE: ShapeCost = cost(55_000.0, 140.0, 0.0);
/// Loop, per batch from a worker: freeing the batch before it.
pub const LOOP_RELEASE: ShapeCost = cost(35_000.0, 0.0, 0.0);
/// Loop at 0 workers, per batch: `_next_data`, the sampler, the fetcher.
pub const INLINE_NEXT: ShapeCost = cost(45_000.0, 0.0, 0.0);
/// Loop at 0 workers, per batch: `default_collate`'s Python.
pub const COLLATE_INLINE: ShapeCost = cost(12_000.0, 100.0, 0.0);
/// Loop at 0 workers, per batch: `torch.stack`.
pub const STACK_INLINE: ShapeCost = cost(10_000.0, 150.0, 0.0);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_cost_adds_its_parts_and_scales() {
        let c = cost(10.0, 2.0, 0.5);
        // 10 + 2 x 4 + 0.5 x 4 x 64, twice.
        assert_eq!(c.at(4, 64, 2.0), Duration::from_nanos(292));
        assert_eq!(c.at(4, 64, 0.0), Duration::ZERO);
    }

    #[test]
    fn the_measured_steps_add_up_to_the_differential_totals() {
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        let worker = |b: usize| {
            us(WORKER_INDEX_GET.at(b, 64, 1.0)
                + (SAMPLE_CALL.at(1, 64, 1.0) + TENSOR_FULL.at(1, 64, 1.0)) * b as u32
                + COLLATE_SHARED.at(b, 64, 1.0)
                + STACK_SHARED.at(b, 64, 1.0)
                + WORKER_RESULT_PUT.at(b, 64, 1.0))
        };
        // PyTorch's 782 us + 10.6 us x B (and 0.3 us x B for 64 floats),
        // less the engine's own 463 + 2.25 us x B, less its overshoot.
        let expected = |b: f64| 782.0 - 463.0 + (10.9 - 2.25 - 2.2) * b;
        for b in [4, 32, 128] {
            let got = worker(b);
            assert!((got - expected(b as f64)).abs() < 1.0, "{b}: {got}");
        }
    }

    #[test]
    fn an_away_cost_grows_with_the_time_away_up_to_its_most() {
        let c = AwayCost {
            most_ns: 400_000.0,
            time_constant_ns: 5_000_000.0,
        };
        let us = |d: Duration| d.as_nanos() as f64 / 1e3;
        assert_eq!(c.after(Some(Duration::ZERO)), Duration::ZERO);
        // Half of the most after ln 2 time constants.
        let half = Duration::from_nanos((5e6 * std::f64::consts::LN_2) as u64);
        assert!((us(c.after(Some(half))) - 200.0).abs() < 1.0);
        assert!(us(c.after(Some(Duration::from_millis(60)))) > 399.0);
        assert_eq!(c.after(None), Duration::from_micros(400), "never ran: cold");
        assert_eq!(c.scaled(0.5).after(None), Duration::from_micros(200));
        assert_eq!(c.scaled(0.0).after(None), Duration::ZERO);
    }
}
