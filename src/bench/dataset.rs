//! The synthetic dataset: fetching sample i pays the producer's cost, then
//! builds a small tensor filled deterministically from i; collate packs a
//! batch into one contiguous buffer. The same index always gives the same
//! data, whoever produces it. Produced as a Python DataLoader would, each
//! sample and each batch also costs the Python CPU of `python_costs.rs`:
//! the call into `__getitem__` and `default_collate`'s Python under the
//! interpreter lock, `torch.full` and `torch.stack` with it let go.

use std::time::Duration;

use super::config::{ProducerKind, ProducerSpec};
use super::gil::{self, Gil};
use super::python_costs::PythonCosts;
use crate::sys;

/// Pays one sample's cost on the calling thread. With `gil`, the thread
/// holds it as a Python producer would: it lets go while it sleeps and
/// hands it over when asked while it computes.
pub fn pay(kind: ProducerKind, cost: Duration, gil: Option<&Gil>) {
    if cost.is_zero() {
        return;
    }
    let between = || {
        if let Some(g) = gil {
            g.yield_if_asked();
        }
    };
    match kind {
        ProducerKind::Sleep => gil::blocking(gil, || std::thread::sleep(cost)),
        ProducerKind::Spin => gil::compute(cost, gil),
        ProducerKind::SpinWall => sys::spin_wall_with(cost, between),
    }
}

/// Fetches one sample: the fetcher's call into the dataset, the producer's
/// cost, then its tensor, costed as `costs` says. Building the tensor is a
/// torch call (`torch.full`): under `gil` it lets go of the lock, and
/// filling the floats is part of its cost.
pub fn fetch_sample(
    spec: &ProducerSpec,
    index: u64,
    gil: Option<&Gil>,
    costs: &PythonCosts,
) -> Vec<f32> {
    gil::compute(costs.sample, gil);
    pay(spec.producer, Duration::from_nanos(spec.cost_ns), gil);
    gil::compute(costs.wake, gil);
    gil::torch_call(costs.tensor, gil, || sample_values(spec, index))
}

/// Sample `index`'s floats, filled deterministically from it and the seed.
fn sample_values(spec: &ProducerSpec, index: u64) -> Vec<f32> {
    let mut state = spec.seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (0..spec.sample_floats)
        .map(|_| {
            state = splitmix64(state);
            (state >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

/// Produces batch `batch` (samples batch x size .. (batch + 1) x size, as a
/// sequential sampler would) and collates it into one buffer, with no
/// Python costs (thread workers).
pub fn produce_batch(spec: &ProducerSpec, batch: u64) -> Vec<f32> {
    produce_batch_under(spec, batch, None, &PythonCosts::default())
}

/// As [`produce_batch`], spending `costs` as a Python DataLoader does, and
/// holding `gil` as a Python worker's main thread does.
pub fn produce_batch_under(
    spec: &ProducerSpec,
    batch: u64,
    gil: Option<&Gil>,
    costs: &PythonCosts,
) -> Vec<f32> {
    produce_batch_into(spec, batch, gil, costs, |data| data)
}

/// As [`produce_batch_under`], handing the collated batch to `store` inside
/// the stack call (as `torch.stack` writes into the batch's shared
/// storage), so that storing it is part of that call's cost; returns what
/// `store` returns.
pub fn produce_batch_into<R>(
    spec: &ProducerSpec,
    batch: u64,
    gil: Option<&Gil>,
    costs: &PythonCosts,
    store: impl FnOnce(Vec<f32>) -> R,
) -> R {
    if let Some((slow, ms)) = spec.delay_batch
        && slow == batch
    {
        std::thread::sleep(Duration::from_millis(ms));
    }
    let first = batch * spec.batch_size as u64;
    let samples: Vec<Vec<f32>> = (0..spec.batch_size as u64)
        .map(|k| fetch_sample(spec, first + k, gil, costs))
        .collect();
    gil::compute(costs.collate, gil);
    gil::torch_call(costs.stack, gil, || {
        let mut out = Vec::with_capacity(spec.batch_size * spec.sample_floats);
        for s in &samples {
            out.extend_from_slice(s);
        }
        store(out)
    })
}

/// Reads every value of a batch into a checksum, so the data is really used.
pub fn checksum(batch: &[f32]) -> u64 {
    batch.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, v| {
        (h ^ v.to_bits() as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ProducerSpec {
        ProducerSpec {
            producer: ProducerKind::Sleep,
            cost_ns: 0,
            batch_size: 4,
            sample_floats: 8,
            seed: 7,
            timer_slack_ns: 1,
            delay_batch: None,
            transport: Default::default(),
            send_ns: 0,
            switch_interval_ns: 0,
            python_scale: 0.0,
            fork_scale: 0.0,
            setup_scale: 0.0,
            socket_dir: None,
        }
    }

    /// Costs large enough that nothing else the thread does comes near.
    fn python(sample: u64, tensor: u64, collate: u64, stack: u64) -> PythonCosts {
        let ms = Duration::from_millis;
        PythonCosts {
            sample: ms(sample),
            tensor: ms(tensor),
            collate: ms(collate),
            stack: ms(stack),
            ..PythonCosts::default()
        }
    }

    #[test]
    fn each_python_cost_is_cpu_of_the_producing_thread() {
        let s = spec(); // 4 samples a batch, no producer cost
        let costs = python(1, 2, 3, 4);
        let start = sys::thread_cpu_ns();
        let data = produce_batch_under(&s, 2, None, &costs);
        let spent = Duration::from_nanos(sys::thread_cpu_ns() - start);
        // 4 x (1 + 2) + 3 + 4 ms, in CPU time whatever the machine's load.
        assert!(spent >= Duration::from_millis(19), "{spent:?}");
        assert_eq!(data, produce_batch(&s, 2), "costs change no data");
        let start = sys::thread_cpu_ns();
        produce_batch(&s, 2);
        let plain = Duration::from_nanos(sys::thread_cpu_ns() - start);
        assert!(plain < Duration::from_millis(5), "{plain:?}");
    }

    /// Produces a batch holding `gil` while another thread waits for it,
    /// and says whether that thread got the lock before the batch was done.
    fn waiter_got_in_while_producing(costs: PythonCosts) -> bool {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        // An interval no test waits out: the waiter never asks, so it gets
        // the lock only when the producer lets go of it.
        let gil = Arc::new(Gil::new(Duration::from_secs(3600)));
        let done = Arc::new(AtomicBool::new(false));
        gil.take();
        let waiter = {
            let (gil, done) = (Arc::clone(&gil), Arc::clone(&done));
            std::thread::spawn(move || gil.with(|| !done.load(Ordering::Acquire)))
        };
        std::thread::sleep(Duration::from_millis(20)); // the waiter waits
        produce_batch_under(&spec(), 0, Some(&gil), &costs);
        done.store(true, Ordering::Release);
        gil.release();
        waiter.join().unwrap()
    }

    #[test]
    fn torch_calls_let_go_of_the_lock_and_the_python_around_them_holds_it() {
        assert!(waiter_got_in_while_producing(python(0, 5, 0, 0)), "tensor");
        assert!(waiter_got_in_while_producing(python(0, 0, 0, 5)), "stack");
        assert!(!waiter_got_in_while_producing(python(5, 0, 5, 0)), "held");
    }

    #[test]
    fn batches_are_deterministic_and_distinct() {
        let s = spec();
        assert_eq!(produce_batch(&s, 3), produce_batch(&s, 3));
        assert_ne!(
            checksum(&produce_batch(&s, 3)),
            checksum(&produce_batch(&s, 4))
        );
        assert_eq!(produce_batch(&s, 0).len(), 32);
        // Batch 1 holds samples 4..8.
        let none = PythonCosts::default();
        assert_eq!(
            &produce_batch(&s, 1)[..8],
            &fetch_sample(&s, 4, None, &none)[..]
        );
    }
}
