//! What the Python code of a DataLoader run costs beyond the hand-off, at
//! one configuration: the CPU PyTorch's worker and loop spend per sample
//! and per batch that this engine's own code does not (the call into
//! `__getitem__`, building each sample's tensor, `default_collate`, the
//! index queue's pickling, the loop's bookkeeping). The figures are in
//! `calibration.rs`, with where each was measured; this file evaluates them
//! at a batch's shape and `--python-cost-scale`, and says which thread
//! spends which, under its interpreter lock or with it let go.
//!
//! At scale 0 only the torch calls of the model before this knob are left
//! (3 µs per sample and 7 µs per batch, with the lock let go, where a run
//! models the worker's lock), so a run file written before the knob
//! describes the engine that made it.

use std::time::Duration;

use super::calibration::{
    AwayCost, COLLATE_CALL, COLLATE_INLINE, COLLATE_SHARED, FIRST_BATCHES, INDEX_AWAY,
    INDEX_PICKLE, INLINE_NEXT, LOOP_HAND_OUT, LOOP_RELEASE, RECEIVE_AWAY, SAMPLE_CALL, SLEEP_WAKE,
    SPIN_COLD, STACK_INLINE, STACK_SHARED, TENSOR_CALL, TENSOR_FULL, WORKER_FORK, WORKER_INDEX_GET,
    WORKER_RESULT_PUT, WORKER_START,
};
use super::config::{PipelineConfig, ProducerKind, ProducerSpec, Transport, WorkerKind};

/// Where a batch is produced: which of PyTorch's paths the costs follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Producing {
    /// In a worker process: collated into shared memory, handed over.
    Worker,
    /// In the loop itself (`--workers 0`): `_SingleProcessDataLoaderIter`.
    Inline,
}

/// The modelled Python CPU of one configuration, per step of a batch's
/// life. "Held": spent under the thread's interpreter lock (handing it over
/// when asked); "let go": a torch call, which runs with the lock let go.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PythonCosts {
    /// Worker, held, when an index arrives: `index_queue.get` unpickling it.
    pub index_get: Duration,
    /// Worker, held, on top of its per-batch steps: its per-batch path
    /// finding its caches cold, more the longer it waited for the index
    /// since its last batch went out (spread by [`Self::with_away_spread`]).
    pub index_away: AwayCost,
    /// Per sample, held: the fetcher's call into `__getitem__` and the
    /// dataset's Python around the producer's cost.
    pub sample: Duration,
    /// Per sample, held, after the producer's cost: the sample's Python and
    /// its tensor finding their caches cold (and, after a sleep,
    /// `time.sleep` taking the lock back); more the longer the cost.
    pub wake: Duration,
    /// Per sample, let go: `torch.full` building the sample's tensor.
    pub tensor: Duration,
    /// Per batch, held: `default_collate`'s Python (and in a worker,
    /// allocating the batch's shared storage).
    pub collate: Duration,
    /// Per batch, let go: `torch.stack` copying the samples into the batch.
    pub stack: Duration,
    /// Worker, held, after collating: `data_queue.put` and the worker
    /// loop's bookkeeping.
    pub result_put: Duration,
    /// Loop, held, once a batch is in: `_try_put_index` handing out the
    /// next index (the sampler, the index queue's `put`) and `_next_data`'s
    /// bookkeeping.
    pub hand_out: Duration,
    /// Loop's index feeder, held, per index: pickling it before the write.
    pub index_pickle: Duration,
    /// Loop, held, after it has a batch from a worker: freeing the shared
    /// memory of the batch it let go of.
    pub release: Duration,
    /// Loop, held, on top of the receive cost: the receive path finding its
    /// caches cold, more the longer since the loop last took a batch in.
    pub receive_away: AwayCost,
    /// Loop at 0 workers, held, per batch: `_next_data` and the sampler.
    pub inline_next: Duration,
    /// Loop, held, per worker process it starts: forking itself. Where this
    /// is not zero the loop starts every worker before it hands out the
    /// first index, as `_MultiProcessingDataLoaderIter` does.
    pub fork: Duration,
    /// Worker, held, once before it reads its first index: setting itself
    /// up after the fork.
    pub worker_start: Duration,
    /// Worker, held, once before its first batch goes out: its first
    /// batches' paths starting and going through their pages the first
    /// time.
    pub first_batches: Duration,
}

impl PythonCosts {
    /// The costs of producing batches as `spec` says, `producing` there.
    pub fn of(spec: &ProducerSpec, producing: Producing) -> Self {
        let (b, f) = (spec.batch_size, spec.sample_floats);
        let s = spec.python_scale;
        if s <= 0.0 {
            return Self::before_the_knob(spec, producing);
        }
        let wake = match spec.producer {
            _ if spec.cost_ns == 0 => Duration::ZERO,
            ProducerKind::Sleep => SLEEP_WAKE.at(spec.cost_ns, s),
            ProducerKind::Spin | ProducerKind::SpinWall => SPIN_COLD.at(spec.cost_ns, s),
        };
        match producing {
            Producing::Worker => PythonCosts {
                index_get: WORKER_INDEX_GET.at(b, f, s),
                index_away: INDEX_AWAY.scaled(s),
                sample: SAMPLE_CALL.at(1, f, s),
                wake,
                tensor: TENSOR_FULL.at(1, f, s),
                collate: COLLATE_SHARED.at(b, f, s),
                stack: STACK_SHARED.at(b, f, s),
                result_put: WORKER_RESULT_PUT.at(b, f, s),
                hand_out: LOOP_HAND_OUT.at(b, f, s),
                index_pickle: INDEX_PICKLE.at(b, f, s),
                release: LOOP_RELEASE.at(b, f, s),
                receive_away: RECEIVE_AWAY.scaled(s),
                inline_next: Duration::ZERO,
                fork: WORKER_FORK.at(b, f, spec.fork_scale),
                worker_start: WORKER_START.at(b, f, spec.setup_scale),
                first_batches: FIRST_BATCHES.at(b, f, spec.setup_scale),
            },
            Producing::Inline => PythonCosts {
                sample: SAMPLE_CALL.at(1, f, s),
                wake,
                tensor: TENSOR_FULL.at(1, f, s),
                collate: COLLATE_INLINE.at(b, f, s),
                stack: STACK_INLINE.at(b, f, s),
                inline_next: INLINE_NEXT.at(b, f, s),
                ..PythonCosts::default()
            },
        }
    }

    /// The costs of one configuration: the inline path at 0 workers, the
    /// workers' path with process workers; none in a run of thread workers
    /// (they model no Python, so neither does its 0-worker row).
    pub fn of_config(cfg: &PipelineConfig) -> Self {
        match (cfg.worker_kind, cfg.workers) {
            (WorkerKind::Thread, _) => PythonCosts::default(),
            (WorkerKind::Process, 0) => Self::of(&cfg.spec, Producing::Inline),
            (WorkerKind::Process, _) => Self::of(&cfg.spec, Producing::Worker),
        }
    }

    /// Scale 0: the engine before this knob, whose only Python costs were
    /// the torch calls of a worker that models its interpreter lock.
    fn before_the_knob(spec: &ProducerSpec, producing: Producing) -> Self {
        let worker_lock = spec.transport != Transport::Pipe && spec.switch_interval_ns > 0;
        if producing == Producing::Worker && worker_lock {
            PythonCosts {
                tensor: TENSOR_CALL,
                stack: COLLATE_CALL,
                ..PythonCosts::default()
            }
        } else {
            PythonCosts::default()
        }
    }

    /// A worker's main thread's CPU per batch, every step together, the
    /// least it can be: with no time away from its per-batch path.
    pub fn worker_per_batch(&self, batch_size: usize) -> Duration {
        self.index_get
            + (self.sample + self.wake + self.tensor) * batch_size as u32
            + self.collate
            + self.stack
            + self.result_put
    }

    /// These costs with `away`, a worker's per-batch path gone cold, spread
    /// over that path's held steps (the index get, collating, the put) in
    /// proportion to what each costs warm: the cold path costs more where
    /// it has more to run.
    pub fn with_away_spread(&self, away: Duration) -> Self {
        let steps = [self.index_get, self.collate, self.result_put];
        let warm: Duration = steps.iter().sum();
        if away.is_zero() || warm.is_zero() {
            return *self;
        }
        let share = |d: Duration| away.mul_f64(d.as_secs_f64() / warm.as_secs_f64());
        PythonCosts {
            index_get: self.index_get + share(self.index_get),
            collate: self.collate + share(self.collate),
            result_put: self.result_put + share(self.result_put),
            ..*self
        }
    }

    /// Whether the loop starts every worker before it hands out the first
    /// index (PyTorch's order), rather than each worker's first indices
    /// right after it starts (the engine before the Python costs).
    pub fn starts_all_first(&self) -> bool {
        self.fork > Duration::ZERO
    }

    /// The loop process's CPU per batch (its index feeder included).
    pub fn loop_per_batch(&self) -> Duration {
        self.hand_out + self.index_pickle + self.release + self.inline_next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Settings;
    use crate::bench::config::ProducerKind;

    fn spec(scale: f64, batch: usize, floats: usize) -> ProducerSpec {
        let mut s = Settings::chapter_defaults();
        s.python_cost_scale = scale;
        s.batch_size = batch;
        s.sample_floats = floats;
        s.pipeline(ProducerKind::Sleep, 2).spec
    }

    #[test]
    fn costs_grow_with_the_batch_and_the_samples_and_scale_linearly() {
        let small = PythonCosts::of(&spec(1.0, 4, 64), Producing::Worker);
        let big = PythonCosts::of(&spec(1.0, 128, 64), Producing::Worker);
        let wide = PythonCosts::of(&spec(1.0, 128, 16_384), Producing::Worker);
        assert!(big.worker_per_batch(128) > small.worker_per_batch(4));
        assert!(big.collate > small.collate && big.hand_out > small.hand_out);
        // Per float PyTorch spends less than the engine's own handling of
        // the floats, which every step counts inside its figure.
        assert_eq!(wide, big, "{wide:?} {big:?}");
        assert_eq!(small.sample, big.sample, "a sample's call is per sample");
        let double = PythonCosts::of(&spec(2.0, 128, 64), Producing::Worker);
        let close = |a: Duration, b: Duration| a.abs_diff(b) <= Duration::from_nanos(2);
        assert!(close(double.collate, big.collate * 2));
        assert!(close(double.hand_out, big.hand_out * 2));
    }

    #[test]
    fn a_sample_after_a_longer_cost_finds_its_caches_colder() {
        let after = |producer, cost_ns| {
            let mut s = spec(1.0, 32, 64);
            s.producer = producer;
            s.cost_ns = cost_ns;
            PythonCosts::of(&s, Producing::Worker)
        };
        for producer in [ProducerKind::Sleep, ProducerKind::Spin] {
            let short = after(producer, 250_000);
            let long = after(producer, 4_000_000);
            assert!(long.wake > short.wake, "{producer:?}");
            assert_eq!(
                long.worker_per_batch(32) - short.worker_per_batch(32),
                (long.wake - short.wake) * 32
            );
            // No cost, nothing to come back from.
            assert_eq!(after(producer, 0).wake, Duration::ZERO);
        }
    }

    #[test]
    fn the_loop_at_zero_workers_pays_its_own_path_and_no_hand_off() {
        let inline = PythonCosts::of(&spec(1.0, 32, 64), Producing::Inline);
        assert!(inline.inline_next > Duration::ZERO);
        assert!(inline.sample > Duration::ZERO && inline.stack > Duration::ZERO);
        assert_eq!(inline.index_get + inline.result_put, Duration::ZERO);
        assert_eq!(
            inline.hand_out + inline.index_pickle + inline.release,
            Duration::ZERO
        );
        let worker = PythonCosts::of(&spec(1.0, 32, 64), Producing::Worker);
        assert_eq!(worker.inline_next, Duration::ZERO);
        assert_eq!(
            inline.fork + inline.worker_start + inline.first_batches,
            Duration::ZERO
        );
        assert!(worker.fork > Duration::ZERO && worker.worker_start > Duration::ZERO);
        assert!(worker.first_batches > Duration::ZERO);
        assert!(worker.starts_all_first() && !inline.starts_all_first());
        // Only a loop that takes batches in from workers has a receive path
        // to go cold.
        assert_eq!(inline.receive_away, AwayCost::default());
        assert!(worker.receive_away.after(None) > Duration::ZERO);
        // Only a worker waits for an index.
        assert_eq!(inline.index_away, AwayCost::default());
        assert!(worker.index_away.after(None) > Duration::ZERO);
    }

    #[test]
    fn the_start_costs_take_their_own_scales_and_the_rest_the_python_one() {
        let mut s = Settings::chapter_defaults();
        s.python_cost_scale = 0.4;
        s.fork_cost_scale = None;
        s.setup_cost_scale = None;
        let at = |s: &Settings| {
            PythonCosts::of(&s.pipeline(ProducerKind::Sleep, 8).spec, Producing::Worker)
        };
        let common = at(&s);
        s.fork_cost_scale = Some(0.2);
        s.setup_cost_scale = Some(0.8);
        let apart = at(&s);
        // The fork at half, the set-up and first batches at twice.
        assert_eq!(apart.fork * 2, common.fork);
        assert_eq!(apart.worker_start, common.worker_start * 2);
        assert_eq!(apart.first_batches, common.first_batches * 2);
        // Every other cost as before.
        let rest = |c: &PythonCosts| PythonCosts {
            fork: Duration::ZERO,
            worker_start: Duration::ZERO,
            first_batches: Duration::ZERO,
            ..*c
        };
        assert_eq!(rest(&apart), rest(&common));
        assert!(apart.starts_all_first());
    }

    #[test]
    fn a_cold_per_batch_path_costs_more_where_it_has_more_to_run() {
        let warm = PythonCosts::of(&spec(1.0, 4, 64), Producing::Worker);
        let away = warm.index_away.after(Some(Duration::from_millis(20)));
        assert!(away > Duration::from_micros(300), "{away:?}");
        let cold = warm.with_away_spread(away);
        // The whole cost lands on the batch, none of it on a sample.
        assert_eq!(cold.worker_per_batch(4) - warm.worker_per_batch(4), away);
        assert_eq!(
            (cold.sample, cold.wake, cold.tensor),
            (warm.sample, warm.wake, warm.tensor)
        );
        // Each held step grows by its share: collating costs the most warm,
        // so it grows the most.
        let grew = |c: Duration, w: Duration| (c - w).as_secs_f64() / w.as_secs_f64();
        let (i, c, p) = (
            grew(cold.index_get, warm.index_get),
            grew(cold.collate, warm.collate),
            grew(cold.result_put, warm.result_put),
        );
        // Equal shares, to the nanosecond each step is rounded to.
        assert!((i - c).abs() < 1e-4 && (c - p).abs() < 1e-4, "{i} {c} {p}");
        assert!(cold.collate - warm.collate > cold.index_get - warm.index_get);
        assert_eq!(warm.with_away_spread(Duration::ZERO), warm);
    }

    #[test]
    fn scale_zero_is_the_engine_before_the_knob() {
        let old = PythonCosts::of(&spec(0.0, 32, 64), Producing::Worker);
        assert_eq!(
            old,
            PythonCosts {
                tensor: TENSOR_CALL,
                stack: COLLATE_CALL,
                ..PythonCosts::default()
            }
        );
        let mut pipe = spec(0.0, 32, 64);
        pipe.transport = Transport::Pipe;
        assert_eq!(
            PythonCosts::of(&pipe, Producing::Worker),
            PythonCosts::default()
        );
        assert_eq!(
            PythonCosts::of(&spec(0.0, 32, 64), Producing::Inline),
            PythonCosts::default()
        );
        assert!(!old.starts_all_first(), "scale 0 keeps the old start order");
        assert_eq!(old.receive_away.after(None), Duration::ZERO);
        assert_eq!(old.index_away.after(None), Duration::ZERO);
    }
}
