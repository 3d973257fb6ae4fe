//! Both sides in one process: workers as threads of the loop's process,
//! each with a channel of batch indices, all sending finished batches into
//! one channel. No pipe, no hand-off cost, no interpreter lock.

use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::result_queue::FinishedBatch;
use super::sampler;
use super::wire::{STOP, WorkerStats};
use crate::bench::config::ProducerSpec;
use crate::bench::dataset;
use crate::error::{PoolError, WorkerEnd};
use crate::sys;

enum ThreadMsg {
    Batch(FinishedBatch),
    Stats(WorkerStats),
}

/// Workers as threads.
pub struct ThreadPool {
    tasks: Vec<mpsc::Sender<u64>>,
    results: mpsc::Receiver<ThreadMsg>,
    handles: Vec<JoinHandle<()>>,
}

impl ThreadPool {
    /// Starts `workers` thread workers.
    pub fn start(spec: &ProducerSpec, workers: usize) -> Self {
        let (done_tx, results) = mpsc::channel();
        let mut tasks = Vec::new();
        let mut handles = Vec::new();
        for worker in 0..workers {
            let (tx, rx) = mpsc::channel::<u64>();
            let done = done_tx.clone();
            let spec = spec.clone();
            handles.push(std::thread::spawn(move || {
                let _ = sys::set_timer_slack(spec.timer_slack_ns);
                let setup_cpu_ns = sys::thread_cpu_ns();
                for index in rx {
                    if index == STOP {
                        break;
                    }
                    let data = dataset::produce_batch(&spec, index);
                    if done
                        .send(ThreadMsg::Batch(FinishedBatch {
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
                    setup_cpu_ns,
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

    /// Asks `worker` to produce batch `index`.
    pub fn send(&mut self, worker: usize, index: u64) -> Result<(), PoolError> {
        self.tasks[worker]
            .send(index)
            .map_err(|_| PoolError::WorkerDied {
                worker,
                end: WorkerEnd::ThreadEnded,
            })
    }

    /// Waits up to `timeout` for any finished batch.
    pub fn recv(&mut self, timeout: Duration) -> Result<Option<FinishedBatch>, PoolError> {
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

    /// The worker batch `index` goes to.
    pub fn owner(&self, index: u64) -> usize {
        sampler::owner(index, self.tasks.len())
    }

    /// Stops every worker and collects what each reports.
    pub fn finish(self) -> Result<Vec<WorkerStats>, PoolError> {
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
