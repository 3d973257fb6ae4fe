//! Loop side: the result queue and the loop's receive path. FinishedBatch
//! batches come back through one pipe per worker (`pipe`) or through one
//! pipe every worker writes into (`queue`, `shared-fd`), like the
//! DataLoader's single result queue, so the loop takes batches in the order
//! they were finished. Taking one in costs the loop its receive CPU, spent
//! where PyTorch's `next()` spends it, and then the CPU of freeing the
//! batch before it; a shared batch is fetched from its worker's sharer (the
//! loop's side of the handshake is here, the sharer's in `sharer.rs`).

use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::ChildStdout;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::sampler;
use super::wire::{self, WorkerMessage};
use crate::bench::calibration::{AwayCost, HANDSHAKE_ROUNDS, RECEIVE_BEFORE, RECEIVE_IN_HANDSHAKE};
use crate::bench::gil::{self, Gil, blocking};
use crate::sys;

/// A batch a worker finished, as the loop has it.
#[derive(Debug)]
pub struct FinishedBatch {
    pub index: u64,
    pub worker: usize,
    pub data: Vec<f32>,
}

/// The pipes finished batches come back through.
pub enum ResultPipes {
    /// One per worker, the worker's own stdout.
    PerWorker(Vec<ChildStdout>),
    /// One every worker writes into.
    Shared(std::fs::File),
}

/// What the loop took off the queue.
pub enum TakenFromQueue {
    Batch(FinishedBatch),
    /// A worker's final report, where batches were expected.
    Stats,
    /// Nothing within the timeout.
    Nothing,
}

/// Why taking a batch in failed.
pub enum Broken {
    /// Waiting on the pipes failed.
    Wait(io::Error),
    /// A pipe broke or carried a broken message: worker `from`'s own, or on
    /// the shared pipe (None) anyone's.
    Message { from: Option<usize> },
    /// Fetching a shared batch from `worker`'s sharer failed.
    Fetch { worker: usize },
}

/// The result queue, with what the loop needs to take batches in.
pub struct ResultQueue {
    pipes: ResultPipes,
    /// The loop process's interpreter lock, when it runs as Python does.
    gil: Option<Arc<Gil>>,
    /// The folder of the workers' sharer sockets, with `shared-fd`.
    sockets: Option<PathBuf>,
    /// Loop CPU spent taking in each batch.
    receive: Duration,
    /// Loop CPU spent, once a batch is in, freeing the one before it (the
    /// Python costs' `release`).
    release: Duration,
    /// Loop CPU on top of `receive`, by how long since the last batch came
    /// in (the Python costs' `receive_away`).
    away: AwayCost,
    /// When the loop last finished taking a batch in.
    last_in: Option<Instant>,
}

impl ResultQueue {
    pub fn new(
        pipes: ResultPipes,
        gil: Option<Arc<Gil>>,
        sockets: Option<PathBuf>,
        receive: Duration,
        release: Duration,
        away: AwayCost,
    ) -> Self {
        ResultQueue {
            pipes,
            gil,
            sockets,
            receive,
            release,
            away,
            last_in: None,
        }
    }

    /// Waits up to `timeout` for a message, the loop's lock let go, and
    /// takes it in; `pids` are the workers' process ids.
    pub fn take(&mut self, timeout: Duration, pids: &[u32]) -> Result<TakenFromQueue, Broken> {
        let gil = self.gil.clone();
        let read = blocking(gil.as_deref(), || match &mut self.pipes {
            ResultPipes::PerWorker(stdouts) => sys::first_readable(stdouts, timeout)
                .map(|ready| ready.map(|w| (Some(w), WorkerMessage::read(&mut stdouts[w])))),
            ResultPipes::Shared(reader) => {
                sys::first_readable(std::slice::from_ref(reader), timeout)
                    .map(|ready| ready.map(|_| (None, WorkerMessage::read(reader))))
            }
        })
        .map_err(Broken::Wait)?;
        let Some((from, message)) = read else {
            return Ok(TakenFromQueue::Nothing);
        };
        // On a shared pipe the batch's index says whose it is.
        let whose = |index: u64| from.unwrap_or(sampler::owner(index, pids.len()));
        // The receive path, colder the longer since the last batch came in.
        let receive = self.receive + self.away.after(self.last_in.map(|t| t.elapsed()));
        let taken = match message {
            Ok(WorkerMessage::Batch { index, data }) => {
                self.python_cpu(receive + self.release);
                Ok(TakenFromQueue::Batch(FinishedBatch {
                    index,
                    worker: whose(index),
                    data,
                }))
            }
            Ok(WorkerMessage::Shared { index, floats }) => {
                let worker = whose(index);
                // As in the DataLoader, the loop decodes the message before
                // it connects to the sharer, answers the handshake, and
                // rebuilds the tensor after it has the descriptor.
                let before = receive.mul_f64(RECEIVE_BEFORE);
                let rounds = receive.mul_f64(RECEIVE_IN_HANDSHAKE);
                self.python_cpu(before);
                let memory = self
                    .fetch_shared(pids[worker], index, rounds / HANDSHAKE_ROUNDS)
                    .map_err(|_| Broken::Fetch { worker })?;
                // Reading the batch out of the memfd is part of rebuilding it.
                let after = receive.saturating_sub(before + rounds) + self.release;
                let data =
                    gil::compute_around(after, self.gil.as_deref(), || read_batch(&memory, floats))
                        .map_err(|_| Broken::Fetch { worker })?;
                Ok(TakenFromQueue::Batch(FinishedBatch {
                    index,
                    worker,
                    data,
                }))
            }
            Ok(WorkerMessage::Stats(_)) => return Ok(TakenFromQueue::Stats),
            Err(_) => Err(Broken::Message { from }),
        };
        self.last_in = Some(Instant::now());
        taken
    }

    /// Reads the next message from worker `worker`'s pipe, or from the
    /// shared one, without the receive cost: the run is over. Says whose
    /// pipe it read (None: the shared one).
    pub fn next_message(&mut self, worker: usize) -> (Option<usize>, io::Result<WorkerMessage>) {
        match &mut self.pipes {
            ResultPipes::PerWorker(stdouts) => {
                (Some(worker), WorkerMessage::read(&mut stdouts[worker]))
            }
            ResultPipes::Shared(reader) => (None, WorkerMessage::read(reader)),
        }
    }

    /// Spends `d` of the loop's CPU in Python code.
    fn python_cpu(&self, d: Duration) {
        gil::compute(d, self.gil.as_deref());
    }

    /// Asks the sharer of the worker with process id `pid` for the
    /// descriptor of batch `index`: the shared memory it is in.
    fn fetch_shared(&self, pid: u32, index: u64, per_round: Duration) -> io::Result<std::fs::File> {
        let dir = self.sockets.as_ref().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "a shared batch from a worker not started for shared-fd",
            )
        })?;
        let path = wire::sharer_socket(dir, pid);
        let gil = self.gil.as_deref();
        let mut conn = blocking(gil, || UnixStream::connect(path))?;
        let mut word = [0u8; 8];
        for _ in 1..HANDSHAKE_ROUNDS {
            blocking(gil, || conn.read_exact(&mut word))?;
            self.python_cpu(per_round);
            blocking(gil, || conn.write_all(&word))?;
        }
        self.python_cpu(per_round);
        blocking(gil, || conn.write_all(&wire::index_word(index)))?;
        Ok(std::fs::File::from(blocking(gil, || sys::recv_fd(&conn))?))
    }
}

/// The `floats` floats of a batch in shared memory.
fn read_batch(memory: &std::fs::File, floats: usize) -> io::Result<Vec<f32>> {
    let mut bytes = vec![0u8; floats * 4];
    memory.read_exact_at(&mut bytes, 0)?;
    Ok(wire::floats_of(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taking_a_batch_in_costs_the_loop_its_receive_then_its_release_cpu() {
        let (reader, writer) = sys::pipe().unwrap();
        let data = [1.5f32, 2.5, 3.5];
        let frame = wire::Frame::batch(4, data.len(), &wire::float_bytes(&data));
        std::fs::File::from(writer)
            .write_all(frame.bytes())
            .unwrap();
        let ms = Duration::from_millis;
        let none = AwayCost::default();
        let mut queue =
            ResultQueue::new(ResultPipes::Shared(reader), None, None, ms(6), ms(9), none);
        let start = sys::thread_cpu_ns();
        let taken = queue.take(Duration::from_secs(5), &[100, 101]);
        let spent = Duration::from_nanos(sys::thread_cpu_ns() - start);
        match taken {
            Ok(TakenFromQueue::Batch(f)) => {
                assert_eq!((f.index, f.worker, f.data), (4, 0, data.to_vec()));
            }
            _ => panic!("no batch taken"),
        }
        // Spent on the loop's own thread, in CPU time.
        assert!(spent >= ms(15), "{spent:?}");
    }

    #[test]
    fn the_loop_pays_more_to_take_a_batch_in_the_longer_it_was_away() {
        let (reader, writer) = sys::pipe().unwrap();
        let mut writer = std::fs::File::from(writer);
        let data = [0.5f32; 4];
        for index in [0, 1] {
            let frame = wire::Frame::batch(index, data.len(), &wire::float_bytes(&data));
            writer.write_all(frame.bytes()).unwrap();
        }
        let ms = Duration::from_millis;
        let away = AwayCost {
            most_ns: 20e6,
            time_constant_ns: 5e6,
        };
        let mut queue =
            ResultQueue::new(ResultPipes::Shared(reader), None, None, ms(1), ms(0), away);
        let mut take = || {
            let start = sys::thread_cpu_ns();
            assert!(matches!(
                queue.take(Duration::from_secs(5), &[100]),
                Ok(TakenFromQueue::Batch(_))
            ));
            Duration::from_nanos(sys::thread_cpu_ns() - start)
        };
        // The first batch finds the receive path cold: it never ran.
        let first = take();
        // The second comes right after it, while the path is still warm.
        let second = take();
        assert!(first >= ms(21), "{first:?}");
        assert!(second + ms(10) < first, "{second:?} then {first:?}");
    }
}
