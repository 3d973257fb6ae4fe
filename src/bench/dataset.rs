//! The synthetic dataset: fetching sample i pays the producer's cost, then
//! builds a small tensor filled deterministically from i; collate packs a
//! batch into one contiguous buffer. The same index always gives the same
//! data, whoever produces it.

use std::time::Duration;

use super::calibration::{COLLATE_CALL, TENSOR_CALL};
use super::config::{ProducerKind, ProducerSpec};
use super::gil::{self, Gil};
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

/// Fetches one sample: pays the cost, then builds its tensor. Under `gil`,
/// building it is a torch call that lets go of the lock while it runs.
pub fn fetch_sample(spec: &ProducerSpec, index: u64, gil: Option<&Gil>) -> Vec<f32> {
    pay(spec.producer, Duration::from_nanos(spec.cost_ns), gil);
    if let Some(g) = gil {
        g.outside(|| sys::spin_cpu(TENSOR_CALL));
    }
    let mut state = spec.seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (0..spec.sample_floats)
        .map(|_| {
            state = splitmix64(state);
            (state >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

/// Produces batch `batch` (samples batch x size .. (batch + 1) x size, as a
/// sequential sampler would) and collates it into one buffer.
pub fn produce_batch(spec: &ProducerSpec, batch: u64) -> Vec<f32> {
    produce_batch_under(spec, batch, None)
}

/// As [`produce_batch`], holding `gil` as a Python worker's main thread does.
pub fn produce_batch_under(spec: &ProducerSpec, batch: u64, gil: Option<&Gil>) -> Vec<f32> {
    if let Some((slow, ms)) = spec.delay_batch
        && slow == batch
    {
        std::thread::sleep(Duration::from_millis(ms));
    }
    let first = batch * spec.batch_size as u64;
    let samples: Vec<Vec<f32>> = (0..spec.batch_size as u64)
        .map(|k| fetch_sample(spec, first + k, gil))
        .collect();
    let mut out = Vec::with_capacity(spec.batch_size * spec.sample_floats);
    for s in &samples {
        out.extend_from_slice(s);
    }
    if let Some(g) = gil {
        g.outside(|| sys::spin_cpu(COLLATE_CALL));
    }
    out
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
            socket_dir: None,
        }
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
        assert_eq!(&produce_batch(&s, 1)[..8], &fetch_sample(&s, 4, None)[..]);
    }
}
