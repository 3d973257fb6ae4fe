//! Worker pools: threads in this process, or real processes (this binary
//! re-executed as the hidden `__worker` subcommand) whose batches cross a pipe.
//! Both answer the same three calls, so the engine does not care which it has.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use super::calibration::{
    FEEDER_PART_OF_SEND, HANDSHAKE_ROUNDS, RECEIVE_BEFORE, RECEIVE_IN_HANDSHAKE,
};
use super::config::{ProducerSpec, Transport};
use super::dataset;
use super::gil::{self, Gil, blocking, python};
use crate::error::{PoolError, WorkerEnd};
use crate::sys;

/// The hidden subcommand a worker process runs.
pub const WORKER_SUBCOMMAND: &str = "__worker";

const TAG_BATCH: u8 = 1;
const TAG_STATS: u8 = 2;
/// A batch left in shared memory: the loop fetches its descriptor from the
/// worker's sharer socket, as PyTorch's `file_descriptor` strategy does.
const TAG_SHARED: u8 = 3;
const STOP: u64 = u64::MAX;

/// A batch a worker finished.
#[derive(Debug)]
pub struct Finished {
    pub index: u64,
    pub worker: usize,
    pub data: Vec<f32>,
}

/// What a worker reports when it stops.
#[derive(Debug, Clone, Copy, Default)]
pub struct WorkerStats {
    pub cpu_ns: u64,
    pub involuntary_switches: u64,
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
    /// <spec>`. Each gets its first tasks right after it is spawned, so the
    /// first workers produce while the later ones start.
    /// `receive` is the loop CPU spent taking in each batch.
    pub fn processes(
        exe: &Path,
        spec: &ProducerSpec,
        initial: &[Vec<u64>],
        receive: Duration,
    ) -> Result<Pool, PoolError> {
        ProcessPool::start(exe, spec, initial, receive).map(Pool::Processes)
    }

    /// Asks `worker` to produce batch `index`.
    pub fn send(&mut self, worker: usize, index: u64) -> Result<(), PoolError> {
        match self {
            Pool::Threads(p) => p.send(worker, index),
            Pool::Processes(p) => p.send(worker, index),
        }
    }

    /// Waits up to `timeout` for any finished batch.
    pub fn recv(&mut self, timeout: Duration) -> Result<Option<Finished>, PoolError> {
        match self {
            Pool::Threads(p) => p.recv(timeout),
            Pool::Processes(p) => p.recv(timeout),
        }
    }

    /// The worker batch `index` goes to (round robin), and its pid when it is
    /// a process.
    pub fn owner(&self, index: u64) -> (usize, Option<u32>) {
        match self {
            Pool::Threads(p) => ((index % p.tasks.len() as u64) as usize, None),
            Pool::Processes(p) => {
                let w = p.worker_of(index);
                (w, Some(p.children[w].id()))
            }
        }
    }

    /// The loop's interpreter lock, when its workers are modelled as
    /// Python processes with helper threads.
    pub fn interpreter_lock(&self) -> Option<Arc<Gil>> {
        match self {
            Pool::Threads(_) => None,
            Pool::Processes(p) => p.gil.clone(),
        }
    }

    /// Stops every worker and collects what each reports.
    pub fn finish(self) -> Result<Vec<WorkerStats>, PoolError> {
        match self {
            Pool::Threads(p) => p.finish(),
            Pool::Processes(p) => p.finish(),
        }
    }
}

enum ThreadMsg {
    Batch(Finished),
    Stats(WorkerStats),
}

/// Workers as threads.
pub struct ThreadPool {
    tasks: Vec<mpsc::Sender<u64>>,
    results: mpsc::Receiver<ThreadMsg>,
    handles: Vec<JoinHandle<()>>,
}

impl ThreadPool {
    fn start(spec: &ProducerSpec, workers: usize) -> Self {
        let (done_tx, results) = mpsc::channel();
        let mut tasks = Vec::new();
        let mut handles = Vec::new();
        for worker in 0..workers {
            let (tx, rx) = mpsc::channel::<u64>();
            let done = done_tx.clone();
            let spec = spec.clone();
            handles.push(std::thread::spawn(move || {
                let _ = sys::set_timer_slack(spec.timer_slack_ns);
                for index in rx {
                    if index == STOP {
                        break;
                    }
                    let data = dataset::produce_batch(&spec, index);
                    if done
                        .send(ThreadMsg::Batch(Finished {
                            index,
                            worker,
                            data,
                        }))
                        .is_err()
                    {
                        return;
                    }
                }
                let usage = sys::thread_usage();
                let stats = WorkerStats {
                    cpu_ns: sys::thread_cpu_ns(),
                    involuntary_switches: usage.involuntary_switches,
                };
                let _ = done.send(ThreadMsg::Stats(stats));
            }));
            tasks.push(tx);
        }
        ThreadPool {
            tasks,
            results,
            handles,
        }
    }

    fn send(&mut self, worker: usize, index: u64) -> Result<(), PoolError> {
        self.tasks[worker]
            .send(index)
            .map_err(|_| PoolError::WorkerDied {
                worker,
                end: WorkerEnd::ThreadEnded,
            })
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Finished>, PoolError> {
        match self.results.recv_timeout(timeout) {
            Ok(ThreadMsg::Batch(b)) => Ok(Some(b)),
            Ok(ThreadMsg::Stats(_)) => Ok(None),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                match self.handles.iter().position(|h| h.is_finished()) {
                    Some(worker) => Err(PoolError::WorkerDied {
                        worker,
                        end: WorkerEnd::ThreadPanicked,
                    }),
                    None => Ok(None),
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(PoolError::WorkerDied {
                worker: 0,
                end: WorkerEnd::EveryThreadEnded,
            }),
        }
    }

    fn finish(self) -> Result<Vec<WorkerStats>, PoolError> {
        for t in &self.tasks {
            let _ = t.send(STOP);
        }
        let mut stats = Vec::new();
        while stats.len() < self.handles.len() {
            match self.results.recv_timeout(Duration::from_secs(30)) {
                Ok(ThreadMsg::Stats(s)) => stats.push(s),
                Ok(ThreadMsg::Batch(_)) => {}
                Err(_) => break,
            }
        }
        for h in self.handles {
            let _ = h.join();
        }
        Ok(stats)
    }
}

/// Workers as processes: a pipe of batch indices to each, and finished
/// batches back through one pipe per worker (`pipe`) or through one pipe
/// every worker writes into (`queue`, `shared-fd`), like the DataLoader's
/// single result queue, so the loop takes batches in the order they were
/// finished.
pub struct ProcessPool {
    children: Vec<Child>,
    stdins: Vec<IndexPipe>,
    /// The loop process's interpreter lock, when the loop runs as Python
    /// does: held by the loop except in blocking calls, wanted by the index
    /// feeders.
    gil: Option<Arc<Gil>>,
    results: Results,
    /// The sharer sockets and the result queue's lock; removed on drop.
    scratch: Option<tempfile::TempDir>,
    /// Loop CPU spent taking in each batch.
    receive: Duration,
}

enum Results {
    PerWorker(Vec<ChildStdout>),
    Shared(std::fs::File),
}

/// Name of the lock file the workers of a shared result pipe write under.
const QUEUE_LOCK: &str = "queue.lock";

impl ProcessPool {
    fn start(
        exe: &Path,
        spec: &ProducerSpec,
        initial: &[Vec<u64>],
        receive: Duration,
    ) -> Result<Self, PoolError> {
        let mut spec = spec.clone();
        let (scratch, mut shared) = match spec.transport {
            Transport::Pipe => (None, None),
            Transport::Queue | Transport::SharedFd => {
                let dir = tempfile::Builder::new()
                    .prefix("research-companion-pool-")
                    .tempdir()
                    .map_err(PoolError::Io)?;
                spec.socket_dir = Some(dir.path().to_path_buf());
                (Some(dir), Some(sys::pipe().map_err(PoolError::Io)?))
            }
        };
        // The loop holds its lock from the start: it only lets go in
        // blocking calls.
        let gil = interpreter_lock(&spec);
        if let Some(g) = &gil {
            g.take();
        }
        let arg = serde_json::to_string(&spec).map_err(|e| PoolError::Io(io::Error::other(e)))?;
        let mut stdouts = Vec::new();
        let mut pool = ProcessPool {
            children: Vec::new(),
            stdins: Vec::new(),
            gil: gil.clone(),
            results: Results::PerWorker(Vec::new()),
            scratch,
            receive,
        };
        for (worker, tasks) in initial.iter().enumerate() {
            // Each worker gets a process group of its own: a terminal's
            // Ctrl-C goes to the foreground group, and it is the run's to
            // handle (stop the workers, exit 130), not the workers' to die of.
            // PR_SET_PDEATHSIG still ends a worker whose run is gone.
            let stdout = match &shared {
                Some((_, writer)) => Stdio::from(writer.try_clone().map_err(PoolError::Io)?),
                None => Stdio::piped(),
            };
            let mut child = Command::new(exe)
                .process_group(0)
                .arg(WORKER_SUBCOMMAND)
                .arg(&arg)
                .stdin(Stdio::piped())
                .stdout(stdout)
                .stderr(Stdio::inherit())
                .spawn()
                .map_err(|source| PoolError::WorkerDied {
                    worker,
                    end: WorkerEnd::NotStarted {
                        exe: exe.to_path_buf(),
                        source,
                    },
                })?;
            let stdin = child.stdin.take().expect("piped");
            pool.stdins.push(match &gil {
                Some(g) => IndexPipe::fed(stdin, Arc::clone(g)),
                None => IndexPipe::Direct(stdin),
            });
            stdouts.extend(child.stdout.take());
            pool.children.push(child);
            for &t in tasks {
                pool.send(worker, t)?;
            }
        }
        pool.results = match shared.take() {
            // The workers hold the only write ends now: the pipe reads as
            // closed once every one of them is gone.
            Some((reader, _writer)) => Results::Shared(reader),
            None => Results::PerWorker(stdouts),
        };
        Ok(pool)
    }

    fn died(&mut self, worker: usize) -> PoolError {
        let child = &mut self.children[worker];
        let pid = child.id();
        // Give the kernel a moment to report the exit after the pipe closed.
        let status = (0..50).find_map(|_| match child.try_wait() {
            Ok(Some(s)) => Some(s),
            _ => {
                std::thread::sleep(Duration::from_millis(10));
                None
            }
        });
        use std::os::unix::process::ExitStatusExt;
        let end = match status {
            Some(status) => match status.signal() {
                Some(signal) => WorkerEnd::Killed { pid, signal },
                None => WorkerEnd::Exited { pid, status },
            },
            None => WorkerEnd::ClosedPipe { pid },
        };
        PoolError::WorkerDied { worker, end }
    }

    fn send(&mut self, worker: usize, index: u64) -> Result<(), PoolError> {
        if self.stdins[worker].send(index).is_err() {
            return Err(self.died(worker));
        }
        Ok(())
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Finished>, PoolError> {
        let gil = self.gil.clone();
        let read = blocking(gil.as_deref(), || match &mut self.results {
            Results::PerWorker(stdouts) => sys::first_readable(stdouts, timeout)
                .map(|ready| ready.map(|w| (Some(w), read_message(&mut stdouts[w])))),
            Results::Shared(reader) => sys::first_readable(std::slice::from_ref(reader), timeout)
                .map(|ready| ready.map(|_| (None, read_message(reader)))),
        })
        .map_err(PoolError::Io)?;
        let Some((from, message)) = read else {
            // Nothing ready: check that every worker is still alive.
            for w in 0..self.children.len() {
                if let Ok(Some(_)) = self.children[w].try_wait() {
                    return Err(self.died(w));
                }
            }
            return Ok(None);
        };
        // On a shared pipe the batch's index says whose it is.
        let whose = |index: u64| from.unwrap_or(self.worker_of(index));
        match message {
            Ok(Message::Batch(index, data)) => {
                self.python_cpu(self.receive);
                Ok(Some(Finished {
                    index,
                    worker: whose(index),
                    data,
                }))
            }
            Ok(Message::Shared(index, floats)) => {
                let worker = whose(index);
                // As in the DataLoader, the loop decodes the message before
                // it connects to the sharer, answers the handshake, and
                // rebuilds the tensor after it has the descriptor.
                let before = self.receive.mul_f64(RECEIVE_BEFORE);
                let rounds = self.receive.mul_f64(RECEIVE_IN_HANDSHAKE);
                self.python_cpu(before);
                let data = self
                    .fetch_shared(worker, index, floats, rounds / HANDSHAKE_ROUNDS)
                    .map_err(|_| self.died(worker))?;
                self.python_cpu(self.receive.saturating_sub(before + rounds));
                Ok(Some(Finished {
                    index,
                    worker,
                    data,
                }))
            }
            Ok(Message::Stats(_)) => Ok(None),
            Err(_) => Err(self.died_somewhere(from)),
        }
    }

    /// Spends `d` of the loop's CPU in Python code.
    fn python_cpu(&self, d: Duration) {
        gil::compute(d, self.gil.as_deref());
    }

    /// Asks worker `worker`'s sharer for the descriptor of batch `index`
    /// and reads the batch out of that shared memory.
    fn fetch_shared(
        &self,
        worker: usize,
        index: u64,
        floats: usize,
        per_round: Duration,
    ) -> io::Result<Vec<f32>> {
        let dir = self.scratch.as_ref().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "a shared batch from a worker not started for shared-fd",
            )
        })?;
        let path = sharer_socket(dir.path(), self.children[worker].id());
        let gil = self.gil.as_deref();
        let mut conn = blocking(gil, || UnixStream::connect(path))?;
        let mut word = [0u8; 8];
        for _ in 1..HANDSHAKE_ROUNDS {
            blocking(gil, || conn.read_exact(&mut word))?;
            self.python_cpu(per_round);
            blocking(gil, || conn.write_all(&word))?;
        }
        self.python_cpu(per_round);
        blocking(gil, || conn.write_all(&index.to_le_bytes()))?;
        let memory = std::fs::File::from(blocking(gil, || sys::recv_fd(&conn))?);
        let mut bytes = vec![0u8; floats * 4];
        memory.read_exact_at(&mut bytes, 0)?;
        Ok(decode_floats(&bytes))
    }

    /// The worker batch `index` went to (round robin).
    fn worker_of(&self, index: u64) -> usize {
        (index % self.children.len() as u64) as usize
    }

    /// The error for a result pipe that broke: the worker it belongs to, or
    /// on the shared pipe the first worker found dead.
    fn died_somewhere(&mut self, from: Option<usize>) -> PoolError {
        if let Some(w) = from {
            return self.died(w);
        }
        for _ in 0..50 {
            if let Some(w) = (0..self.children.len())
                .find(|&w| matches!(self.children[w].try_wait(), Ok(Some(_))))
            {
                return self.died(w);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        PoolError::BrokenMessage
    }

    fn finish(mut self) -> Result<Vec<WorkerStats>, PoolError> {
        // The loop is done with Python: the feeders may pass the stops on.
        if let Some(g) = self.gil.take() {
            g.release();
        }
        for w in 0..self.stdins.len() {
            self.send(w, STOP)?;
        }
        let mut stats = Vec::new();
        let workers = self.children.len();
        for w in 0..workers {
            loop {
                let message = match &mut self.results {
                    Results::PerWorker(stdouts) => (Some(w), read_message(&mut stdouts[w])),
                    Results::Shared(reader) => (None, read_message(reader)),
                };
                match message {
                    (_, Ok(Message::Stats(s))) => {
                        stats.push(s);
                        break;
                    }
                    (_, Ok(Message::Batch(..) | Message::Shared(..))) => {}
                    (from, Err(_)) => return Err(self.died_somewhere(from)),
                }
            }
        }
        for pipe in self.stdins.drain(..) {
            pipe.close();
        }
        for c in &mut self.children {
            let _ = c.wait();
        }
        Ok(stats)
    }
}

/// How the loop's batch indices reach a worker's stdin.
enum IndexPipe {
    /// The loop writes each index itself.
    Direct(ChildStdin),
    /// A feeder thread of the loop writes what the loop queues, as
    /// `multiprocessing.Queue.put` does: it needs the loop's interpreter
    /// lock for the pickling, so an index queued while the loop computes
    /// waits until the loop blocks or hands the lock over.
    Fed {
        queue: mpsc::Sender<u64>,
        feeder: JoinHandle<()>,
    },
}

impl IndexPipe {
    fn fed(mut pipe: impl Write + Send + 'static, gil: Arc<Gil>) -> Self {
        let (queue, rx) = mpsc::channel::<u64>();
        let feeder = std::thread::spawn(move || {
            for index in rx {
                // Pickling the index is Python work; the write is not.
                gil.with(|| ());
                if pipe.write_all(&index.to_le_bytes()).is_err() {
                    return; // the worker is gone; the loop finds out on its pipe
                }
            }
        });
        IndexPipe::Fed { queue, feeder }
    }

    fn send(&mut self, index: u64) -> io::Result<()> {
        match self {
            IndexPipe::Direct(stdin) => stdin.write_all(&index.to_le_bytes()),
            IndexPipe::Fed { queue, .. } => queue
                .send(index)
                .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe)),
        }
    }

    fn close(self) {
        match self {
            IndexPipe::Direct(stdin) => drop(stdin),
            IndexPipe::Fed { queue, feeder } => {
                drop(queue);
                let _ = feeder.join();
            }
        }
    }
}

impl Drop for ProcessPool {
    fn drop(&mut self) {
        // A run that ends early leaves no feeder waiting for the lock.
        if let Some(g) = self.gil.take() {
            g.release();
        }
        for c in &mut self.children {
            if let Ok(None) = c.try_wait() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}

enum Message {
    Batch(u64, Vec<f32>),
    /// Batch index and float count of a batch waiting in shared memory.
    Shared(u64, usize),
    Stats(WorkerStats),
}

/// The sharer socket of the worker with process id `pid`.
fn sharer_socket(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}.sock"))
}

fn decode_floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn read_message(r: &mut impl Read) -> io::Result<Message> {
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
                return Ok(Message::Shared(index, floats));
            }
            let mut bytes = vec![0u8; floats * 4];
            r.read_exact(&mut bytes)?;
            Ok(Message::Batch(index, decode_floats(&bytes)))
        }
        TAG_STATS => {
            r.read_exact(&mut word)?;
            let cpu_ns = u64::from_le_bytes(word);
            r.read_exact(&mut word)?;
            Ok(Message::Stats(WorkerStats {
                cpu_ns,
                involuntary_switches: u64::from_le_bytes(word),
            }))
        }
        other => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("unknown message tag {other}"),
        )),
    }
}

/// The body of a worker process: read batch indices from stdin, write
/// finished batches to stdout, report CPU time when told to stop.
pub fn worker_main(spec_json: &str) -> io::Result<()> {
    sys::die_with_parent();
    let spec: ProducerSpec = serde_json::from_str(spec_json).map_err(io::Error::other)?;
    let _ = sys::set_timer_slack(spec.timer_slack_ns);
    let mut stdin = io::stdin().lock();
    let mut word = [0u8; 8];
    // The interpreter lock the worker's threads share, when its helpers
    // run Python code as PyTorch's do. The main thread holds it except
    // while it waits for an index or sleeps.
    let gil = interpreter_lock(&spec);
    let mut hand_off = HandOff::new(&spec, gil.clone())?;
    loop {
        if stdin.read_exact(&mut word).is_err() {
            return hand_off.finish(); // the parent went away
        }
        let index = u64::from_le_bytes(word);
        if index == STOP {
            // The worker's CPU time: every thread of it, feeder included.
            let usage = sys::thread_usage();
            let mut msg = Vec::new();
            msg.push(TAG_STATS);
            msg.extend_from_slice(&hand_off.cpu_ns().to_le_bytes());
            msg.extend_from_slice(&usage.involuntary_switches.to_le_bytes());
            hand_off.send(msg)?;
            return hand_off.finish();
        }
        // Producing and handing over is the main thread's Python work;
        // waiting for the next index is a blocking call that lets go.
        python(gil.as_deref(), || {
            produce_and_hand_over(&spec, index, gil.as_deref(), &mut hand_off)
        })?;
    }
}

/// Produces batch `index` and hands it to `hand_off`, in shared memory when
/// the hand-off has a shelf, else whole in the message.
fn produce_and_hand_over(
    spec: &ProducerSpec,
    index: u64,
    gil: Option<&Gil>,
    hand_off: &mut HandOff,
) -> io::Result<()> {
    let data = dataset::produce_batch_under(spec, index, gil);
    let mut bytes = Vec::with_capacity(data.len() * 4);
    for v in &data {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    // Like a tensor moved to shared memory, a shared batch stays in a
    // memfd and only its index and size travel down the pipe.
    let shared = match hand_off.shelf() {
        Some(shelf) => {
            let memory = sys::shared_memory("research-companion-batch")?;
            memory.write_all_at(&bytes, 0)?;
            shelf.lock().expect("sharer alive").insert(index, memory);
            true
        }
        None => false,
    };
    let mut msg = Vec::with_capacity(13 + if shared { 0 } else { bytes.len() });
    msg.push(if shared { TAG_SHARED } else { TAG_BATCH });
    msg.extend_from_slice(&index.to_le_bytes());
    msg.extend_from_slice(&(data.len() as u32).to_le_bytes());
    if !shared {
        msg.extend_from_slice(&bytes);
    }
    hand_off.send(msg)
}

/// How a worker process's finished batches reach its stdout pipe.
enum HandOff {
    /// The producing thread writes each message itself.
    Pipe(io::StdoutLock<'static>),
    /// A feeder thread writes what the producing thread queues; with a
    /// shelf, batches wait there in shared memory for the loop to fetch.
    Queue {
        queue: Option<mpsc::Sender<Vec<u8>>>,
        feeder: Option<JoinHandle<io::Result<()>>>,
        shelf: Option<Shelf>,
    },
}

/// The interpreter lock a process of this run has, loop or worker: one
/// when its workers hand batches to helper threads, as CPython processes
/// with a switch interval; none with `pipe` (no helpers to contend for it)
/// or an interval of 0.
fn interpreter_lock(spec: &ProducerSpec) -> Option<Arc<Gil>> {
    (spec.transport != Transport::Pipe && spec.switch_interval_ns > 0)
        .then(|| Arc::new(Gil::new(Duration::from_nanos(spec.switch_interval_ns))))
}

/// Shared-memory batches a worker made and the loop has not fetched yet.
type Shelf = Arc<Mutex<HashMap<u64, std::fs::File>>>;

/// Test aid, in debug builds only: with this set, a shared-fd worker aborts
/// when the loop asks for a descriptor, between header and descriptor.
pub const DIE_BEFORE_SHARING_ENV: &str = "RESEARCH_COMPANION_DIE_BEFORE_SHARING";

fn die_before_sharing() -> bool {
    cfg!(debug_assertions) && std::env::var_os(DIE_BEFORE_SHARING_ENV).is_some()
}

/// Serves the shelf on the worker's sharer socket: each connection sends an
/// 8-byte batch index and gets that batch's descriptor back. The thread
/// lives as long as the worker process.
fn start_sharer(dir: &Path, serve: Duration, gil: Option<Arc<Gil>>) -> io::Result<Shelf> {
    let listener = UnixListener::bind(sharer_socket(dir, std::process::id()))?;
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
fn serve_handshake(conn: &mut UnixStream, part: Duration, gil: Option<&Gil>) -> io::Result<u64> {
    let mut word = [0u8; 8];
    for _ in 1..HANDSHAKE_ROUNDS {
        python(gil, || sys::spin_cpu(part));
        conn.write_all(&word)?;
        conn.read_exact(&mut word)?;
    }
    conn.read_exact(&mut word)?;
    Ok(u64::from_le_bytes(word))
}

impl HandOff {
    fn new(spec: &ProducerSpec, gil: Option<Arc<Gil>>) -> io::Result<Self> {
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
        let (tx, rx) = mpsc::channel::<Vec<u8>>();
        let feeder = std::thread::spawn(move || -> io::Result<()> {
            let mut out = io::stdout().lock();
            for msg in rx {
                // Only batches cost the feeder; the final stats do not.
                if msg.first() != Some(&TAG_STATS) {
                    python(gil.as_deref(), || sys::spin_cpu(feed));
                }
                sys::lock_exclusive(&lock)?;
                let written = out.write_all(&msg).and_then(|()| out.flush());
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

    fn shelf(&self) -> Option<&Shelf> {
        match self {
            HandOff::Queue { shelf, .. } => shelf.as_ref(),
            HandOff::Pipe(_) => None,
        }
    }

    fn send(&mut self, msg: Vec<u8>) -> io::Result<()> {
        match self {
            HandOff::Pipe(out) => {
                out.write_all(&msg)?;
                out.flush()
            }
            HandOff::Queue { queue, .. } => queue
                .as_ref()
                .expect("open until finish")
                .send(msg)
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the feeder stopped")),
        }
    }

    /// CPU time of the whole worker when a feeder shares the work, else of
    /// the producing thread.
    fn cpu_ns(&self) -> u64 {
        match self {
            HandOff::Pipe(_) => sys::thread_cpu_ns(),
            HandOff::Queue { .. } => sys::process_cpu_ns(),
        }
    }

    /// Waits until everything queued is written.
    fn finish(&mut self) -> io::Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
