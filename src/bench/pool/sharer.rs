//! Worker side: the sharer thread of a `shared-fd` worker, PyTorch's
//! resource sharer. The worker's main thread leaves each finished batch on
//! the shelf (a memfd per batch); the sharer answers the loop's connection
//! on the worker's socket with the rounds of `multiprocessing`'s
//! authenticated handshake, each one Python work under the worker's
//! interpreter lock, then passes the batch's descriptor (SCM_RIGHTS).

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::wire;
use crate::bench::calibration::HANDSHAKE_ROUNDS;
use crate::bench::gil::{Gil, python};
use crate::sys;

/// Shared-memory batches a worker made and the loop has not fetched yet.
pub type Shelf = Arc<Mutex<HashMap<u64, std::fs::File>>>;

/// Test aid, in debug builds only: with this set, a shared-fd worker aborts
/// when the loop asks for a descriptor, between header and descriptor.
pub const DIE_BEFORE_SHARING_ENV: &str = "RESEARCH_COMPANION_DIE_BEFORE_SHARING";

fn die_before_sharing() -> bool {
    cfg!(debug_assertions) && std::env::var_os(DIE_BEFORE_SHARING_ENV).is_some()
}

/// Serves the shelf on the worker's sharer socket: each connection sends an
/// 8-byte batch index and gets that batch's descriptor back. The thread
/// lives as long as the worker process. `serve` is the sharer's part of the
/// send cost, spent a round at a time.
pub fn start_sharer(dir: &Path, serve: Duration, gil: Option<Arc<Gil>>) -> io::Result<Shelf> {
    let listener = UnixListener::bind(wire::sharer_socket(dir, std::process::id()))?;
    let shelf: Shelf = Arc::default();
    let served = Arc::clone(&shelf);
    std::thread::spawn(move || {
        let part = serve / HANDSHAKE_ROUNDS;
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let Ok(index) = serve_handshake(&mut conn, part, gil.as_deref()) else {
                continue;
            };
            if die_before_sharing() {
                // The header is in the loop's hands, the descriptor is not.
                std::process::abort();
            }
            let memory = served.lock().expect("producer alive").remove(&index);
            // An unknown index gets the connection closed with nothing sent,
            // which the loop reads as a broken worker.
            if let Some(memory) = memory {
                python(gil.as_deref(), || sys::spin_cpu(part));
                let _ = sys::send_fd(&conn, &memory);
            }
        }
    });
    Ok(shelf)
}

/// The sharer's side of a connection up to the loop's request: each
/// authentication round is Python work under the lock, a reply, and a
/// blocking read of the loop's answer; then the batch index it asks for.
/// The loop's side is in `result_queue.rs`.
fn serve_handshake(conn: &mut UnixStream, part: Duration, gil: Option<&Gil>) -> io::Result<u64> {
    let mut word = [0u8; 8];
    for _ in 1..HANDSHAKE_ROUNDS {
        python(gil, || sys::spin_cpu(part));
        conn.write_all(&word)?;
        conn.read_exact(&mut word)?;
    }
    wire::read_index(conn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread::JoinHandle;

    /// A sharer serving one connection on a thread; the loop's end.
    fn sharer_and_loop_end() -> (JoinHandle<io::Result<u64>>, UnixStream) {
        let (mut sharer_end, loop_end) = UnixStream::pair().unwrap();
        let sharer =
            std::thread::spawn(move || serve_handshake(&mut sharer_end, Duration::ZERO, None));
        (sharer, loop_end)
    }

    #[test]
    fn the_sharer_answers_every_round_then_reads_the_request() {
        let (sharer, mut loop_end) = sharer_and_loop_end();
        let mut word = [0u8; 8];
        for _ in 1..HANDSHAKE_ROUNDS {
            loop_end.read_exact(&mut word).unwrap();
            loop_end.write_all(&word).unwrap();
        }
        loop_end.write_all(&42u64.to_le_bytes()).unwrap();
        assert_eq!(sharer.join().unwrap().unwrap(), 42);
    }

    #[test]
    fn a_loop_that_hangs_up_mid_handshake_is_an_error_not_a_wait() {
        let (sharer, mut loop_end) = sharer_and_loop_end();
        let mut word = [0u8; 8];
        loop_end.read_exact(&mut word).unwrap();
        drop(loop_end);
        assert!(sharer.join().unwrap().is_err());
    }
}
