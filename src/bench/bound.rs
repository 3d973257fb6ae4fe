//! The ideal each configuration can reach: the time a zero-overhead engine
//! needs for the same batches under the same rules, pipeline fill included.
//! Computed by stepping through the schedule, so it stays exact for any knobs.

use super::config::PipelineConfig;
use super::python_costs::PythonCosts;

/// Ideal finish time (seconds) of each batch's step, in batch order.
pub fn ideal_finish_times(cfg: &PipelineConfig, cpus: usize) -> Vec<f64> {
    let n = cfg.total_batches() as usize;
    let python = PythonCosts::of_config(cfg);
    // A worker's cost per batch: producing it (its Python included) and
    // handing it off.
    let produce = cfg.batch_cost() + python.worker_per_batch(cfg.spec.batch_size);
    let p = (produce + cfg.send()).as_secs_f64();
    // The loop's own cost per batch: its work, taking the batch in and its
    // own Python.
    let c = (cfg.consumer() + cfg.receive() + python.loop_per_batch()).as_secs_f64();
    let w = cfg.workers;
    let mut done = Vec::with_capacity(n);
    if w == 0 {
        for j in 0..n {
            done.push((j + 1) as f64 * (p + c));
        }
    } else {
        let ahead = cfg.max_outstanding();
        let mut free = vec![0.0f64; w];
        let mut taken = vec![0.0f64; n];
        let mut prev_done = 0.0f64;
        for j in 0..n {
            // Batch j is handed out at the start, or when batch j - ahead was
            // handed to the consumer.
            let handed = if j < ahead { 0.0 } else { taken[j - ahead] };
            let worker = j % w;
            let ready = handed.max(free[worker]) + p;
            free[worker] = ready;
            taken[j] = ready.max(prev_done);
            prev_done = taken[j] + c;
            done.push(prev_done);
        }
    }
    // CPU-bound producers also need the CPU: the run can be no shorter than
    // all the CPU work spread over the CPUs it may use.
    if cfg.spec.producer.needs_cpu() && cpus > 0 {
        let per_batch = (p + c) / cpus as f64;
        for (j, d) in done.iter_mut().enumerate() {
            *d = d.max((j + 1) as f64 * per_batch);
        }
    }
    done
}

/// Ideal duration (seconds) of the measured window: from iterator creation
/// when there is no warm-up, else from the end of the last warm-up step.
pub fn ideal_window(cfg: &PipelineConfig, cpus: usize) -> f64 {
    let done = ideal_finish_times(cfg, cpus);
    let end = *done.last().unwrap_or(&0.0);
    if cfg.warmup_batches == 0 {
        end
    } else {
        end - done[cfg.warmup_batches as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::config::{ProducerKind, ProducerSpec, WorkerKind};

    fn cfg(producer: ProducerKind, workers: usize, total: u64) -> PipelineConfig {
        PipelineConfig {
            spec: ProducerSpec {
                producer,
                cost_ns: 2_000_000,
                batch_size: 32,
                sample_floats: 64,
                seed: 0,
                timer_slack_ns: 1,
                delay_batch: None,
                transport: Default::default(),
                send_ns: 0,
                switch_interval_ns: 0,
                python_scale: 0.0,
                fork_scale: 0.0,
                setup_scale: 0.0,
                socket_dir: None,
            },
            consumer_ns: 8_000_000,
            receive_ns: 0,
            workers,
            prefetch_factor: 2,
            worker_kind: WorkerKind::Thread,
            in_order: true,
            batches: total - 1,
            warmup_batches: 0,
            tail_batches: 0,
            window: crate::bench::WindowKind::WholeRun,
            watchdog_ms: None,
        }
    }

    #[test]
    fn matches_the_worked_examples_in_the_pipeline_notes() {
        // W = 8, P = 64 ms, C = 8 ms: N = 40 takes 384 ms, N = 200 takes 1,664 ms.
        let t40 = ideal_window(&cfg(ProducerKind::Sleep, 8, 40), 1);
        assert!((t40 - 0.384).abs() < 1e-9, "{t40}");
        let t200 = ideal_window(&cfg(ProducerKind::Sleep, 8, 200), 1);
        assert!((t200 - 1.664).abs() < 1e-9, "{t200}");
    }

    #[test]
    fn the_send_cost_counts_only_for_process_workers_with_helper_threads() {
        use crate::bench::config::Transport;
        let base = cfg(ProducerKind::Spin, 4, 10);
        let with_send = |kind, transport| {
            let mut c = base.clone();
            c.worker_kind = kind;
            c.spec.transport = transport;
            c.spec.send_ns = 1_000_000;
            ideal_window(&c, 1)
        };
        let plain = ideal_window(&base, 1);
        // CPU-bound on one CPU: 10 batches of 1 ms more worker CPU each.
        for transport in [Transport::Queue, Transport::SharedFd] {
            let t = with_send(WorkerKind::Process, transport);
            assert!((t - (plain + 0.010)).abs() < 1e-9, "{transport}: {t}");
        }
        assert_eq!(with_send(WorkerKind::Process, Transport::Pipe), plain);
        assert_eq!(with_send(WorkerKind::Thread, Transport::SharedFd), plain);
    }

    #[test]
    fn inline_and_cpu_bound_cases() {
        let t = ideal_window(&cfg(ProducerKind::Sleep, 0, 10), 1);
        assert!((t - 0.72).abs() < 1e-9);
        // Spin on one CPU: N x (P + C) whatever the worker count.
        for w in [0, 1, 2, 8] {
            let t = ideal_window(&cfg(ProducerKind::Spin, w, 10), 1);
            assert!((t - 0.72).abs() < 1e-9, "w={w} {t}");
        }
        // One sleep worker: producer-bound at P per batch after the fill.
        let t = ideal_window(&cfg(ProducerKind::Sleep, 1, 10), 1);
        assert!((t - (10.0 * 0.064 + 0.008)).abs() < 1e-9, "{t}");
    }

    #[test]
    fn the_python_costs_count_as_the_workers_and_the_loops_cpu() {
        use crate::bench::config::Transport;
        let mut c = cfg(ProducerKind::Spin, 4, 10);
        c.worker_kind = WorkerKind::Process;
        c.spec.transport = Transport::SharedFd;
        let plain = ideal_window(&c, 1);
        c.spec.python_scale = 1.0;
        let python = PythonCosts::of_config(&c);
        let per_batch = python.worker_per_batch(32) + python.loop_per_batch();
        // CPU-bound on one CPU: every batch's Python CPU adds up.
        let t = ideal_window(&c, 1);
        let expected = plain + 10.0 * per_batch.as_secs_f64();
        assert!((t - expected).abs() < 1e-6, "{t} vs {expected}");
        // Thread workers model none.
        c.worker_kind = WorkerKind::Thread;
        assert_eq!(
            ideal_window(&c, 1),
            ideal_window(&cfg(ProducerKind::Spin, 4, 10), 1)
        );
    }
}
