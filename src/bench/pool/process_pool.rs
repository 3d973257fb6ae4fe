//! Loop side: workers as processes, this binary re-executed as the hidden
//! worker subcommand. The pool spawns them, gives each its index queue
//! (`index_feeder.rs`), holds the result queue (`result_queue.rs`), and
//! tells how a worker died when a pipe breaks or a child exits.

use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use super::index_feeder::IndexPipe;
use super::result_queue::{Broken, FinishedBatch, ResultPipes, ResultQueue, TakenFromQueue};
use super::sampler;
use super::wire::{STOP, WORKER_SUBCOMMAND, WorkerMessage, WorkerStats};
use crate::bench::config::{ProducerSpec, Transport};
use crate::bench::gil::{self, Gil, interpreter_lock};
use crate::bench::python_costs::{Producing, PythonCosts};
use crate::error::{PoolError, WorkerEnd};
use crate::sys;

/// Workers as processes: an index queue to each, and the result queue.
pub struct ProcessPool {
    children: Vec<Child>,
    /// The children's process ids, by worker.
    pids: Vec<u32>,
    stdins: Vec<IndexPipe>,
    /// The loop process's interpreter lock, when the loop runs as Python
    /// does: held by the loop except in blocking calls, wanted by the index
    /// feeders.
    gil: Option<Arc<Gil>>,
    results: ResultQueue,
    /// The sharer sockets and the result queue's lock; removed on drop.
    scratch: Option<tempfile::TempDir>,
}

impl ProcessPool {
    /// Starts `initial.len()` worker processes by running `exe __worker
    /// <spec>`. With the Python costs modelled, the loop pays a fork for
    /// each and hands out the first tasks once all are started, round robin,
    /// as PyTorch does; without them each gets its first tasks right after it
    /// is spawned, so the first workers produce while the later ones start. `receive` is the
    /// loop CPU spent taking in each batch.
    pub fn start(
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
        let costs = PythonCosts::of(&spec, Producing::Worker);
        let arg = serde_json::to_string(&spec).map_err(|e| PoolError::Io(io::Error::other(e)))?;
        let mut stdouts = Vec::new();
        let mut pool = ProcessPool {
            children: Vec::new(),
            pids: Vec::new(),
            stdins: Vec::new(),
            gil: gil.clone(),
            results: ResultQueue::new(
                ResultPipes::PerWorker(Vec::new()),
                None,
                None,
                receive,
                costs.release,
                costs.receive_away,
            ),
            scratch,
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
                Some(g) => IndexPipe::fed(stdin, Arc::clone(g), costs.index_pickle),
                None => IndexPipe::Direct(stdin),
            });
            stdouts.extend(child.stdout.take());
            pool.pids.push(child.id());
            pool.children.push(child);
            if costs.starts_all_first() {
                // `Process.start()`: the loop forks itself for the worker.
                gil::compute(costs.fork, gil.as_deref());
            } else {
                for &t in tasks {
                    pool.send(worker, t)?;
                }
            }
        }
        if costs.starts_all_first() {
            // `_reset`: once every worker is started, the first indices in
            // the order the sampler made them, round robin.
            let rounds = initial.iter().map(Vec::len).max().unwrap_or(0);
            for round in 0..rounds {
                for (worker, tasks) in initial.iter().enumerate() {
                    if let Some(&t) = tasks.get(round) {
                        pool.send(worker, t)?;
                    }
                }
            }
        }
        let sockets = pool.scratch.as_ref().map(|d| d.path().to_path_buf());
        let pipes = match shared.take() {
            // The workers hold the only write ends now: the pipe reads as
            // closed once every one of them is gone.
            Some((reader, _writer)) => ResultPipes::Shared(reader),
            None => ResultPipes::PerWorker(stdouts),
        };
        pool.results = ResultQueue::new(
            pipes,
            gil,
            sockets,
            receive,
            costs.release,
            costs.receive_away,
        );
        Ok(pool)
    }

    /// The loop process's interpreter lock, when it has one.
    pub fn interpreter_lock(&self) -> Option<Arc<Gil>> {
        self.gil.clone()
    }

    /// The worker batch `index` goes to, and its process id.
    pub fn owner(&self, index: u64) -> (usize, u32) {
        let w = sampler::owner(index, self.children.len());
        (w, self.pids[w])
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

    /// Asks `worker` to produce batch `index`.
    pub fn send(&mut self, worker: usize, index: u64) -> Result<(), PoolError> {
        if self.stdins[worker].send(index).is_err() {
            return Err(self.died(worker));
        }
        Ok(())
    }

    /// Waits up to `timeout` for any finished batch.
    pub fn recv(&mut self, timeout: Duration) -> Result<Option<FinishedBatch>, PoolError> {
        match self.results.take(timeout, &self.pids) {
            Ok(TakenFromQueue::Batch(finished)) => Ok(Some(finished)),
            Ok(TakenFromQueue::Stats) => Ok(None),
            Ok(TakenFromQueue::Nothing) => {
                // Nothing ready: check that every worker is still alive.
                for w in 0..self.children.len() {
                    if let Ok(Some(_)) = self.children[w].try_wait() {
                        return Err(self.died(w));
                    }
                }
                Ok(None)
            }
            Err(Broken::Wait(e)) => Err(PoolError::Io(e)),
            Err(Broken::Fetch { worker }) => Err(self.died(worker)),
            Err(Broken::Message { from }) => Err(self.died_somewhere(from)),
        }
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

    /// Stops every worker and collects what each reports.
    pub fn finish(mut self) -> Result<Vec<WorkerStats>, PoolError> {
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
                match self.results.next_message(w) {
                    (_, Ok(WorkerMessage::Stats(s))) => {
                        stats.push(s);
                        break;
                    }
                    (_, Ok(WorkerMessage::Batch { .. } | WorkerMessage::Shared { .. })) => {}
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
