//! Loop side: how the loop's batch indices reach a worker's stdin, one
//! index queue per worker as in the DataLoader. Without an interpreter lock
//! the loop writes each index itself; with one, a feeder thread of the loop
//! writes what the loop queues, as `multiprocessing.Queue.put` does: it
//! needs the loop's lock for the pickling, so an index queued while the
//! loop computes waits until the loop blocks or hands the lock over.

use std::io::{self, Write};
use std::process::ChildStdin;
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use super::wire;
use crate::bench::gil::{self, Gil};
use crate::sys;

/// A worker's index queue.
pub enum IndexPipe {
    /// The loop writes each index itself.
    Direct(ChildStdin),
    /// A feeder thread of the loop writes what the loop queues.
    Fed {
        queue: mpsc::Sender<u64>,
        /// Says how much CPU time it used when it ends.
        feeder: JoinHandle<Duration>,
    },
}

impl IndexPipe {
    /// An index queue whose feeder writes into `pipe` under `gil`, after
    /// spending `pickle` of CPU on each index under it.
    pub fn fed(mut pipe: impl Write + Send + 'static, gil: Arc<Gil>, pickle: Duration) -> Self {
        let (queue, rx) = mpsc::channel::<u64>();
        let feeder = std::thread::spawn(move || {
            for index in rx {
                // Pickling the index is Python work; the write is not.
                gil.with(|| gil::compute(pickle, Some(&gil)));
                if pipe.write_all(&wire::index_word(index)).is_err() {
                    break; // the worker is gone; the loop finds out on its pipe
                }
            }
            Duration::from_nanos(sys::thread_cpu_ns())
        });
        IndexPipe::Fed { queue, feeder }
    }

    /// Writes or queues `index`.
    pub fn send(&mut self, index: u64) -> io::Result<()> {
        match self {
            IndexPipe::Direct(stdin) => stdin.write_all(&wire::index_word(index)),
            IndexPipe::Fed { queue, .. } => queue
                .send(index)
                .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe)),
        }
    }

    /// Closes the worker's stdin, after the feeder has written everything
    /// queued; says how much CPU time the feeder used (none without one).
    pub fn close(self) -> Duration {
        match self {
            IndexPipe::Direct(stdin) => {
                drop(stdin);
                Duration::ZERO
            }
            IndexPipe::Fed { queue, feeder } => {
                drop(queue);
                feeder.join().unwrap_or_default()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_queued_index_waits_for_the_loop_to_hand_its_lock_over() {
        let (mut reader, writer) = sys::pipe().unwrap();
        let gil = Arc::new(Gil::new(Duration::from_millis(1)));
        gil.take(); // the loop computes
        let mut pipe = IndexPipe::fed(
            std::fs::File::from(writer),
            Arc::clone(&gil),
            Duration::ZERO,
        );
        pipe.send(7).unwrap();
        // The feeder has asked many times over by now, but the loop has not
        // looked, so nothing has been written.
        std::thread::sleep(Duration::from_millis(50));
        let ready = sys::first_readable(std::slice::from_ref(&reader), Duration::ZERO).unwrap();
        assert_eq!(ready, None, "the index went out under the loop's lock");
        // The loop checks between pieces of work and hands the lock over.
        while !gil.yield_if_asked() {
            std::thread::sleep(Duration::from_millis(1));
        }
        let mut word = [0u8; 8];
        reader.read_exact(&mut word).unwrap();
        assert_eq!(u64::from_le_bytes(word), 7);
        // With the lock free the next index goes straight through.
        gil.release();
        pipe.send(8).unwrap();
        reader.read_exact(&mut word).unwrap();
        assert_eq!(u64::from_le_bytes(word), 8);
        pipe.close();
    }

    #[test]
    fn the_feeder_pickles_each_index_under_the_loops_lock_before_writing_it() {
        let (mut reader, writer) = sys::pipe().unwrap();
        let gil = Arc::new(Gil::new(Duration::from_millis(1)));
        let pickle = Duration::from_millis(30);
        gil.take();
        let mut pipe = IndexPipe::fed(std::fs::File::from(writer), Arc::clone(&gil), pickle);
        pipe.send(9).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let ready = sys::first_readable(std::slice::from_ref(&reader), Duration::ZERO).unwrap();
        assert_eq!(ready, None, "pickled and written under the loop's lock");
        gil.release();
        let mut word = [0u8; 8];
        reader.read_exact(&mut word).unwrap();
        assert_eq!(u64::from_le_bytes(word), 9);
        pipe.send(10).unwrap();
        reader.read_exact(&mut word).unwrap();
        // The feeder's own CPU time: the pickling of both indices.
        let spent = pipe.close();
        assert!(spent >= pickle * 2, "{spent:?}");
    }
}
