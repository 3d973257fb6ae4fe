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

/// The default of `--python-cost-scale`: the Python costs below as
/// measured.
pub const PYTHON_COST_SCALE: f64 = 1.0;

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
// batch's life. PROVISIONAL: replaced by measured figures below.

const fn cost(base_ns: f64, per_sample_ns: f64, per_float_ns: f64) -> ShapeCost {
    ShapeCost {
        base_ns,
        per_sample_ns,
        per_float_ns,
    }
}

pub const WORKER_INDEX_GET: ShapeCost = cost(30_000.0, 300.0, 0.0);
pub const SAMPLE_CALL: ShapeCost = cost(3_000.0, 0.0, 0.0);
pub const TENSOR_FULL: ShapeCost = cost(3_000.0, 0.0, 0.1);
pub const COLLATE_SHARED: ShapeCost = cost(100_000.0, 1_500.0, 0.0);
pub const STACK_SHARED: ShapeCost = cost(15_000.0, 500.0, 1.0);
pub const WORKER_RESULT_PUT: ShapeCost = cost(12_000.0, 0.0, 0.0);
pub const LOOP_HAND_OUT: ShapeCost = cost(30_000.0, 100.0, 0.0);
pub const INDEX_PICKLE: ShapeCost = cost(30_000.0, 100.0, 0.0);
pub const LOOP_RELEASE: ShapeCost = cost(10_000.0, 0.0, 0.0);
pub const INLINE_NEXT: ShapeCost = cost(20_000.0, 100.0, 0.0);
pub const COLLATE_INLINE: ShapeCost = cost(10_000.0, 1_000.0, 0.0);
pub const STACK_INLINE: ShapeCost = cost(10_000.0, 500.0, 0.5);
