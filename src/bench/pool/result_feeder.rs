//! Worker side: how a worker process's finished batches reach its result
//! pipe. With `pipe` the producing thread writes each message itself; with
//! `queue` and `shared-fd` it queues them for a feeder thread, as
//! `multiprocessing.Queue.put` does, and the feeder spends its part of the
//! send cost under the worker's interpreter lock before it writes each one,
//! whole, under the lock every worker of the shared pipe writes under.

use std::io::{self, Write};
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use super::sharer::{Shelf, start_sharer};
use super::wire::{Frame, QUEUE_LOCK};
use crate::bench::calibration::FEEDER_PART_OF_SEND;
use crate::bench::config::{ProducerSpec, Transport};
use crate::bench::gil::{Gil, python};
use crate::sys;

/// What the producing thread queues for the feeder.
pub enum Queued {
    /// A message to write.
    Frame(Frame),
    /// Answer once everything queued before it is written.
    Drained(mpsc::Sender<()>),
}

fn feeder_stopped() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the feeder stopped")
}

/// How a worker process's finished batches reach its stdout pipe.
pub enum HandOff {
    /// The producing thread writes each message itself.
    Pipe(io::StdoutLock<'static>),
    /// A feeder thread writes what the producing thread queues; with a
    /// shelf, batches wait there in shared memory for the loop to fetch.
    Queue {
        queue: Option<mpsc::Sender<Queued>>,
        feeder: Option<JoinHandle<io::Result<()>>>,
        shelf: Option<Shelf>,
    },
}

impl HandOff {
    /// The hand-off `spec` asks for; with `shared-fd` it starts the
    /// worker's sharer thread too.
    pub fn new(spec: &ProducerSpec, gil: Option<Arc<Gil>>) -> io::Result<Self> {
        if spec.transport == Transport::Pipe {
            return Ok(HandOff::Pipe(io::stdout().lock()));
        }
        let dir = spec.socket_dir.as_deref().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "a queue transport without the pool's folder",
            )
        })?;
        // The send cost: the feeder's part before each message it writes,
        // the sharer's before each descriptor it sends.
        let send = Duration::from_nanos(spec.send_ns);
        let (shelf, feed) = match spec.transport {
            Transport::SharedFd => {
                let feed = send.mul_f64(FEEDER_PART_OF_SEND);
                (Some(start_sharer(dir, send - feed, gil.clone())?), feed)
            }
            Transport::Pipe | Transport::Queue => (None, send),
        };
        // Every worker writes into the same pipe: a message goes in whole,
        // under the queue's lock, as multiprocessing.Queue's feeder does.
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(QUEUE_LOCK))?;
        let (tx, rx) = mpsc::channel::<Queued>();
        let feeder = std::thread::spawn(move || -> io::Result<()> {
            let mut out = io::stdout().lock();
            for queued in rx {
                let frame = match queued {
                    Queued::Frame(frame) => frame,
                    Queued::Drained(done) => {
                        let _ = done.send(());
                        continue;
                    }
                };
                // Only batches cost the feeder; the final stats do not.
                if frame.carries_a_batch() {
                    python(gil.as_deref(), || sys::spin_cpu(feed));
                }
                sys::lock_exclusive(&lock)?;
                let written = out.write_all(frame.bytes()).and_then(|()| out.flush());
                sys::unlock(&lock)?;
                written?;
            }
            Ok(())
        });
        Ok(HandOff::Queue {
            queue: Some(tx),
            feeder: Some(feeder),
            shelf,
        })
    }

    /// Where shared batches wait for the loop, with `shared-fd`.
    pub fn shelf(&self) -> Option<&Shelf> {
        match self {
            HandOff::Queue { shelf, .. } => shelf.as_ref(),
            HandOff::Pipe(_) => None,
        }
    }

    /// Writes `frame`, or queues it for the feeder.
    pub fn send(&mut self, frame: Frame) -> io::Result<()> {
        match self {
            HandOff::Pipe(out) => {
                out.write_all(frame.bytes())?;
                out.flush()
            }
            HandOff::Queue { queue, .. } => queue
                .as_ref()
                .expect("open until finish")
                .send(Queued::Frame(frame))
                .map_err(|_| feeder_stopped()),
        }
    }

    /// Waits until the feeder has written everything queued so far, so the
    /// worker's CPU time read next holds the send cost of every batch (the
    /// feeder could still be spending the last one's when the worker is
    /// told to stop).
    pub fn drain(&mut self) -> io::Result<()> {
        let HandOff::Queue { queue, .. } = self else {
            return Ok(());
        };
        let (done, drained) = mpsc::channel();
        queue
            .as_ref()
            .expect("open until finish")
            .send(Queued::Drained(done))
            .map_err(|_| feeder_stopped())?;
        drained.recv().map_err(|_| feeder_stopped())
    }

    /// CPU time of the whole worker when a feeder shares the work, else of
    /// the producing thread.
    pub fn cpu_ns(&self) -> u64 {
        match self {
            HandOff::Pipe(_) => sys::thread_cpu_ns(),
            HandOff::Queue { .. } => sys::process_cpu_ns(),
        }
    }

    /// Waits until everything queued is written.
    pub fn finish(&mut self) -> io::Result<()> {
        match self {
            HandOff::Pipe(out) => out.flush(),
            HandOff::Queue { queue, feeder, .. } => {
                drop(queue.take());
                match feeder.take().map(JoinHandle::join) {
                    Some(Ok(result)) => result,
                    Some(Err(_)) => Err(io::Error::other("the feeder thread panicked")),
                    None => Ok(()),
                }
            }
        }
    }
}
