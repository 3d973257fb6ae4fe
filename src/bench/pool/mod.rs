//! The workers, after PyTorch's DataLoader: threads in this process, or
//! real processes (this binary re-executed as the hidden `__worker`
//! subcommand) whose batches cross a pipe. Both answer the same calls, so
//! the engine does not care which it has. One file per part the DataLoader
//! has, the loop's side and the worker's apart:
//!
//! - loop side: `sampler.rs` (whose batch is whose), `index_feeder.rs`
//!   (the index queues), `result_queue.rs` (the result queue and taking a
//!   batch in), `process_pool.rs` (spawning, stopping, telling how a worker
//!   died);
//! - worker side: `worker_loop.rs` (`_worker_loop`), `result_feeder.rs` (the
//!   result queue's feeder thread), `sharer.rs` (the resource sharer);
//! - both: `wire.rs` (every byte that crosses between them),
//!   `thread_pool.rs` (workers as threads, both sides in one process).
//!
//! What happens between a worker process finishing a batch and the loop
//! having it, with `shared-fd` (the default):
//!
//! 1. `worker_loop.rs`: the main thread, holding the worker's interpreter
//!    lock, has taken the batch's index in (`index_queue.get`'s Python,
//!    `python_costs.rs`) and produced the batch (`dataset.rs`: per sample
//!    the call into the dataset and the tensor, then collate and the stack,
//!    which leaves its bytes in a memfd on the sharer's shelf); it spends
//!    `data_queue.put`'s Python and queues a header (`wire.rs`).
//! 2. `result_feeder.rs`: the feeder thread takes the worker's lock for its
//!    part of the send cost (`calibration.rs`), then writes the header
//!    into the shared result pipe under the queue's lock.
//! 3. `result_queue.rs`: the loop, waiting on that pipe with its own lock
//!    let go, reads and decodes the header (`wire.rs`), then spends the
//!    first part of its receive cost.
//! 4. `result_queue.rs`: it connects to the worker's sharer socket and
//!    answers the handshake rounds, a part of its receive cost each.
//! 5. `sharer.rs`: the sharer thread answers each round under the worker's
//!    lock, a part of its send cost each, then passes the memfd's
//!    descriptor.
//! 6. `result_queue.rs`: the loop reads the batch out of the memfd, spends
//!    the rest of its receive cost rebuilding it, then the Python cost of
//!    freeing the batch before it: it has the batch.
//! 7. `engine.rs`: it keeps the batch until it is due, spends the Python
//!    cost of handing out the next index, hands it out (`sampler.rs`)
//!    through the worker's index queue (`index_feeder.rs`, whose feeder
//!    waits for the loop's lock and pickles it under it), and runs the
//!    step.
//!
//! With `queue` steps 1 and 2 carry the whole batch and 3 to 6 are one read
//! and the receive cost; with `pipe` the main thread writes the batch into
//! a pipe of its own (no feeder, no lock) in step 1.

mod index_feeder;
mod process_pool;
mod result_feeder;
mod result_queue;
mod sampler;
mod sharer;
mod thread_pool;
mod wire;
mod worker_loop;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub use process_pool::ProcessPool;
pub use result_queue::FinishedBatch;
pub use sampler::Sampler;
pub use thread_pool::ThreadPool;
pub use wire::{WORKER_SUBCOMMAND, WorkerStats};
pub use worker_loop::worker_main;

use super::config::ProducerSpec;
use super::gil::Gil;
use crate::error::{BatchOwner, PoolError};

/// What the engine asks of a running set of workers. The real pools answer
/// it, and so does a scripted fake in the engine's tests, so that the loop's
/// bookkeeping is tested without processes or clocks.
pub trait WorkerPool {
    /// Asks `worker` to produce batch `index`.
    fn send(&mut self, worker: usize, index: u64) -> Result<(), PoolError>;

    /// Waits up to `timeout` for any finished batch.
    fn recv(&mut self, timeout: Duration) -> Result<Option<FinishedBatch>, PoolError>;

    /// The worker batch `index` goes to (round robin), with its pid when it
    /// is a process.
    fn owner(&self, index: u64) -> BatchOwner;

    /// The loop's interpreter lock, when its workers are modelled as
    /// Python processes with helper threads.
    fn interpreter_lock(&self) -> Option<Arc<Gil>>;

    /// Stops every worker and collects what each reports.
    fn finish(self) -> Result<Vec<WorkerStats>, PoolError>;
}

/// A running set of workers.
pub enum Pool {
    Threads(ThreadPool),
    Processes(ProcessPool),
}

impl Pool {
    /// Starts `initial.len()` thread workers, handing worker w the batch
    /// indices `initial[w]` as soon as it exists.
    pub fn threads(spec: &ProducerSpec, initial: &[Vec<u64>]) -> Result<Pool, PoolError> {
        let mut pool = ThreadPool::start(spec, initial.len());
        for (w, tasks) in initial.iter().enumerate() {
            for &t in tasks {
                pool.send(w, t)?;
            }
        }
        Ok(Pool::Threads(pool))
    }

    /// Starts `initial.len()` worker processes by running `exe __worker
    /// <spec>`, in the order [`ProcessPool::start`] says.
    /// `receive` is the loop CPU spent taking in each batch.
    pub fn processes(
        exe: &Path,
        spec: &ProducerSpec,
        initial: &[Vec<u64>],
        receive: Duration,
    ) -> Result<Pool, PoolError> {
        ProcessPool::start(exe, spec, initial, receive).map(Pool::Processes)
    }
}

impl WorkerPool for Pool {
    fn send(&mut self, worker: usize, index: u64) -> Result<(), PoolError> {
        match self {
            Pool::Threads(p) => p.send(worker, index),
            Pool::Processes(p) => p.send(worker, index),
        }
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<FinishedBatch>, PoolError> {
        match self {
            Pool::Threads(p) => p.recv(timeout),
            Pool::Processes(p) => p.recv(timeout),
        }
    }

    fn owner(&self, index: u64) -> BatchOwner {
        match self {
            Pool::Threads(p) => BatchOwner {
                worker: p.owner(index),
                pid: None,
            },
            Pool::Processes(p) => {
                let (worker, pid) = p.owner(index);
                BatchOwner {
                    worker,
                    pid: Some(pid),
                }
            }
        }
    }

    fn interpreter_lock(&self) -> Option<Arc<Gil>> {
        match self {
            Pool::Threads(_) => None,
            Pool::Processes(p) => p.interpreter_lock(),
        }
    }

    fn finish(self) -> Result<Vec<WorkerStats>, PoolError> {
        match self {
            Pool::Threads(p) => p.finish(),
            Pool::Processes(p) => p.finish(),
        }
    }
}
