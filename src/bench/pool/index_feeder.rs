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

use super::wire;
use crate::bench::gil::Gil;

/// A worker's index queue.
pub enum IndexPipe {
    /// The loop writes each index itself.
    Direct(ChildStdin),
    /// A feeder thread of the loop writes what the loop queues.
    Fed {
        queue: mpsc::Sender<u64>,
        feeder: JoinHandle<()>,
    },
}

impl IndexPipe {
    /// An index queue whose feeder writes into `pipe` under `gil`.
    pub fn fed(mut pipe: impl Write + Send + 'static, gil: Arc<Gil>) -> Self {
        let (queue, rx) = mpsc::channel::<u64>();
        let feeder = std::thread::spawn(move || {
            for index in rx {
                // Pickling the index is Python work; the write is not.
                gil.with(|| ());
                if pipe.write_all(&wire::index_word(index)).is_err() {
                    return; // the worker is gone; the loop finds out on its pipe
                }
            }
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
    /// queued.
    pub fn close(self) {
        match self {
            IndexPipe::Direct(stdin) => drop(stdin),
            IndexPipe::Fed { queue, feeder } => {
                drop(queue);
                let _ = feeder.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys;
    use std::io::Read;
    use std::time::Duration;

    #[test]
    fn a_queued_index_waits_for_the_loop_to_hand_its_lock_over() {
        let (mut reader, writer) = sys::pipe().unwrap();
        let gil = Arc::new(Gil::new(Duration::from_millis(1)));
        gil.take(); // the loop computes
        let mut pipe = IndexPipe::fed(std::fs::File::from(writer), Arc::clone(&gil));
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
}
