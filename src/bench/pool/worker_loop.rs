//! Worker side: the body of a worker process, PyTorch's `_worker_loop`.
//! It reads batch indices from stdin, takes each in (`index_queue.get`'s
//! Python), produces the batch under its interpreter lock (when the run
//! models one), puts it on its hand-off (`data_queue.put`'s Python) and
//! hands it to the loop; told to stop, it reports its CPU time and exits.

use std::io;
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

use super::result_feeder::HandOff;
use super::wire::{self, Frame, STOP, WorkerStats};
use crate::bench::config::ProducerSpec;
use crate::bench::dataset;
use crate::bench::gil::{self, Gil, interpreter_lock, python};
use crate::bench::python_costs::{Producing, PythonCosts};
use crate::sys;

/// The body of a worker process: read batch indices from stdin, write
/// finished batches to stdout, report CPU time when told to stop.
pub fn worker_main(spec_json: &str) -> io::Result<()> {
    sys::die_with_parent();
    let spec: ProducerSpec = serde_json::from_str(spec_json).map_err(io::Error::other)?;
    let _ = sys::set_timer_slack(spec.timer_slack_ns);
    let mut stdin = io::stdin().lock();
    // The interpreter lock the worker's threads share, when its helpers
    // run Python code as PyTorch's do. The main thread holds it except
    // while it waits for an index or sleeps.
    let gil = interpreter_lock(&spec);
    let mut hand_off = HandOff::new(&spec, gil.clone())?;
    let costs = PythonCosts::of(&spec, Producing::Worker);
    // `_worker_loop` setting itself up after the fork, before its first
    // `index_queue.get`.
    python(gil.as_deref(), || {
        gil::compute(costs.worker_start, gil.as_deref())
    });
    let setup_cpu_ns = hand_off.cpu_ns();
    // What its first batches cost beyond the ones after, spent on the
    // first.
    let mut first_batches = costs.first_batches;
    // When the last batch went out: how long the worker has been away from
    // its per-batch path when the next index comes (none before the first,
    // whose cold start is in `first_batches`).
    let mut last_out: Option<Instant> = None;
    loop {
        let Ok(index) = wire::read_index(&mut stdin) else {
            return hand_off.finish(); // the parent went away
        };
        if index == STOP {
            // The worker's CPU time: every thread of it, feeder included,
            // once the feeder has paid for every batch.
            hand_off.drain()?;
            let usage = sys::thread_usage();
            let stats = WorkerStats {
                cpu_ns: hand_off.cpu_ns(),
                involuntary_switches: usage.involuntary_switches,
                setup_cpu_ns,
            };
            hand_off.send(Frame::stats(stats))?;
            return hand_off.finish();
        }
        // Producing and handing over is the main thread's Python work;
        // waiting for the next index is a blocking call that lets go.
        let extra = std::mem::take(&mut first_batches);
        let away = last_out.map_or(Duration::ZERO, |out| {
            costs.index_away.after(Some(out.elapsed()))
        });
        python(gil.as_deref(), || {
            let costs = &costs.with_away_spread(away);
            produce_and_hand_over(&spec, index, gil.as_deref(), costs, extra, &mut hand_off)
        })?;
        last_out = Some(Instant::now());
    }
}

/// Produces batch `index` and hands it to `hand_off`, in shared memory when
/// the hand-off has a shelf, else whole in the message; `costs` are the
/// Python CPU of taking the index in and of putting the batch out, `extra`
/// CPU spent once the batch is put, before it goes out.
fn produce_and_hand_over(
    spec: &ProducerSpec,
    index: u64,
    gil: Option<&Gil>,
    costs: &PythonCosts,
    extra: Duration,
    hand_off: &mut HandOff,
) -> io::Result<()> {
    gil::compute(costs.index_get, gil);
    // Like a batch stacked into shared memory, a shared batch stays in a
    // memfd and only its index and size travel down the pipe; storing it
    // is part of the stack call.
    let shelf = hand_off.shelf();
    let frame = dataset::produce_batch_into(spec, index, gil, costs, |data| {
        let bytes = wire::float_bytes(&data);
        match shelf {
            Some(shelf) => {
                let memory = sys::shared_memory("research-companion-batch")?;
                memory.write_all_at(&bytes, 0)?;
                shelf.lock().expect("sharer alive").insert(index, memory);
                Ok::<_, io::Error>(Frame::shared(index, data.len()))
            }
            None => Ok(Frame::batch(index, data.len(), &bytes)),
        }
    })?;
    gil::compute(costs.result_put + extra, gil);
    hand_off.send(frame)
}
