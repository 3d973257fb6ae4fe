//! The wire between the loop and a worker process, both directions, encoded
//! and decoded here and nowhere else: how the loop starts a worker, the
//! batch indices it writes down the worker's stdin (and the stop word), the
//! messages a worker writes up its result pipe, and where the two sides meet
//! on disk (the sharer sockets and the result queue's lock).
//!
//! A message is a tag byte, then little-endian fields:
//! `1 index:u64 floats:u32 data:f32*floats` (a whole batch),
//! `3 index:u64 floats:u32` (a batch waiting in shared memory, fetched from
//! the worker's sharer), `2 cpu_ns:u64 involuntary_switches:u64` (the
//! worker's report when it stops).

use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The hidden subcommand a worker process runs: `exe __worker <spec json>`.
pub const WORKER_SUBCOMMAND: &str = "__worker";

/// The index word that tells a worker to report and stop.
pub const STOP: u64 = u64::MAX;

/// Name of the lock file the workers of a shared result pipe write under.
pub const QUEUE_LOCK: &str = "queue.lock";

const TAG_BATCH: u8 = 1;
const TAG_STATS: u8 = 2;
/// A batch left in shared memory: the loop fetches its descriptor from the
/// worker's sharer socket, as PyTorch's `file_descriptor` strategy does.
const TAG_SHARED: u8 = 3;

/// The sharer socket of the worker with process id `pid`.
pub fn sharer_socket(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}.sock"))
}

/// A batch index as it goes down a worker's stdin (and as the loop asks a
/// sharer for a batch's descriptor).
pub fn index_word(index: u64) -> [u8; 8] {
    index.to_le_bytes()
}

/// Reads one index word.
pub fn read_index(r: &mut impl Read) -> io::Result<u64> {
    let mut word = [0u8; 8];
    r.read_exact(&mut word)?;
    Ok(u64::from_le_bytes(word))
}

/// What a worker reports when it stops.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerStats {
    pub cpu_ns: u64,
    pub involuntary_switches: u64,
    /// The worker's CPU from its start to being ready for its first index:
    /// what its set-up cost.
    pub setup_cpu_ns: u64,
}

/// A message a worker writes up its result pipe, decoded.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkerMessage {
    /// A whole batch.
    Batch { index: u64, data: Vec<f32> },
    /// The index and float count of a batch waiting in shared memory.
    Shared { index: u64, floats: usize },
    /// The worker's report when it stops.
    Stats(WorkerStats),
}

/// An encoded message, ready to be written whole; it knows what it carries,
/// so a feeder need not read its bytes to tell.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    carries_a_batch: bool,
    bytes: Vec<u8>,
}

impl Frame {
    /// A whole batch: `bytes` is its `floats` floats, little-endian (see
    /// [`float_bytes`]).
    pub fn batch(index: u64, floats: usize, bytes: &[u8]) -> Frame {
        let mut out = Vec::with_capacity(13 + bytes.len());
        out.push(TAG_BATCH);
        out.extend_from_slice(&index.to_le_bytes());
        out.extend_from_slice(&(floats as u32).to_le_bytes());
        out.extend_from_slice(bytes);
        Frame {
            carries_a_batch: true,
            bytes: out,
        }
    }

    /// A batch of `floats` floats waiting in shared memory.
    pub fn shared(index: u64, floats: usize) -> Frame {
        let mut out = Vec::with_capacity(13);
        out.push(TAG_SHARED);
        out.extend_from_slice(&index.to_le_bytes());
        out.extend_from_slice(&(floats as u32).to_le_bytes());
        Frame {
            carries_a_batch: true,
            bytes: out,
        }
    }

    /// A worker's report when it stops.
    pub fn stats(stats: WorkerStats) -> Frame {
        let mut out = Vec::with_capacity(25);
        out.push(TAG_STATS);
        out.extend_from_slice(&stats.cpu_ns.to_le_bytes());
        out.extend_from_slice(&stats.involuntary_switches.to_le_bytes());
        out.extend_from_slice(&stats.setup_cpu_ns.to_le_bytes());
        Frame {
            carries_a_batch: false,
            bytes: out,
        }
    }

    /// Whether it hands over a batch (whole or shared), rather than the
    /// worker's final report.
    pub fn carries_a_batch(&self) -> bool {
        self.carries_a_batch
    }

    /// The bytes to write.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl WorkerMessage {
    /// Reads and decodes one message.
    pub fn read(r: &mut impl Read) -> io::Result<WorkerMessage> {
        let mut tag = [0u8; 1];
        r.read_exact(&mut tag)?;
        let mut word = [0u8; 8];
        match tag[0] {
            TAG_BATCH | TAG_SHARED => {
                r.read_exact(&mut word)?;
                let index = u64::from_le_bytes(word);
                let mut len = [0u8; 4];
                r.read_exact(&mut len)?;
                let floats = u32::from_le_bytes(len) as usize;
                if tag[0] == TAG_SHARED {
                    return Ok(WorkerMessage::Shared { index, floats });
                }
                let mut bytes = vec![0u8; floats * 4];
                r.read_exact(&mut bytes)?;
                Ok(WorkerMessage::Batch {
                    index,
                    data: floats_of(&bytes),
                })
            }
            TAG_STATS => {
                r.read_exact(&mut word)?;
                let cpu_ns = u64::from_le_bytes(word);
                r.read_exact(&mut word)?;
                let involuntary_switches = u64::from_le_bytes(word);
                r.read_exact(&mut word)?;
                Ok(WorkerMessage::Stats(WorkerStats {
                    cpu_ns,
                    involuntary_switches,
                    setup_cpu_ns: u64::from_le_bytes(word),
                }))
            }
            other => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("unknown message tag {other}"),
            )),
        }
    }
}

/// A batch's floats as little-endian bytes: what a whole batch carries and
/// what a shared one leaves in shared memory.
pub fn float_bytes(data: &[f32]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(data.len() * 4);
    for v in data {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes
}

/// The floats of little-endian bytes.
pub fn floats_of(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A message encoded the way a worker encodes it.
    fn encode(m: &WorkerMessage) -> Frame {
        match m {
            WorkerMessage::Batch { index, data } => {
                Frame::batch(*index, data.len(), &float_bytes(data))
            }
            WorkerMessage::Shared { index, floats } => Frame::shared(*index, *floats),
            WorkerMessage::Stats(stats) => Frame::stats(*stats),
        }
    }

    fn message() -> impl Strategy<Value = WorkerMessage> {
        // Any bit pattern, NaNs included: the wire carries bits, not values.
        let floats = prop::collection::vec(any::<u32>().prop_map(f32::from_bits), 0..200);
        prop_oneof![
            (any::<u64>(), floats).prop_map(|(index, data)| WorkerMessage::Batch { index, data }),
            (any::<u64>(), 0..(1usize << 24))
                .prop_map(|(index, floats)| WorkerMessage::Shared { index, floats }),
            (any::<u64>(), any::<u64>(), any::<u64>()).prop_map(
                |(cpu_ns, involuntary_switches, setup_cpu_ns)| {
                    WorkerMessage::Stats(WorkerStats {
                        cpu_ns,
                        involuntary_switches,
                        setup_cpu_ns,
                    })
                }
            ),
        ]
    }

    /// The message with its floats as bits, so NaNs compare equal.
    fn bits(m: &WorkerMessage) -> (Option<Vec<u32>>, WorkerMessage) {
        match m {
            WorkerMessage::Batch { index, data } => (
                Some(data.iter().map(|f| f.to_bits()).collect()),
                WorkerMessage::Batch {
                    index: *index,
                    data: Vec::new(),
                },
            ),
            other => (None, other.clone()),
        }
    }

    proptest! {
        #[test]
        fn every_message_reads_back_as_written(m in message()) {
            let frame = encode(&m);
            let mut r = frame.bytes();
            let read = WorkerMessage::read(&mut r).unwrap();
            prop_assert!(r.is_empty(), "{} bytes left over", r.len());
            prop_assert_eq!(bits(&read), bits(&m));
            prop_assert_eq!(
                frame.carries_a_batch(),
                !matches!(m, WorkerMessage::Stats(_))
            );
        }

        #[test]
        fn a_cut_off_message_is_an_error_not_a_shorter_message(
            m in message(),
            cut in any::<prop::sample::Index>(),
        ) {
            let frame = encode(&m);
            let bytes = &frame.bytes()[..cut.index(frame.bytes().len())];
            prop_assert!(WorkerMessage::read(&mut &bytes[..]).is_err());
        }

        #[test]
        fn messages_follow_each_other_on_one_pipe(a in message(), b in message()) {
            let mut pipe = encode(&a).bytes().to_vec();
            pipe.extend_from_slice(encode(&b).bytes());
            let mut r = &pipe[..];
            prop_assert_eq!(bits(&WorkerMessage::read(&mut r).unwrap()), bits(&a));
            prop_assert_eq!(bits(&WorkerMessage::read(&mut r).unwrap()), bits(&b));
        }

        #[test]
        fn index_words_read_back(index in any::<u64>()) {
            prop_assert_eq!(read_index(&mut &index_word(index)[..]).unwrap(), index);
        }
    }

    #[test]
    fn an_unknown_tag_is_an_error() {
        let err = WorkerMessage::read(&mut &[9u8, 0, 0][..]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(err.to_string(), "unknown message tag 9");
    }
}
