//! The pipeline engine's semantics, the shape of its results, the
//! `bench` and `env` commands, and how a run fails.

use std::path::Path;
use std::time::Duration;

use predicates::prelude::*;
use research_companion::bench::engine::{self, Measured};
use research_companion::bench::{
    BenchRun, PipelineConfig, ProducerKind, Settings, Transport, WorkerKind,
};

use crate::helpers::{Project, stderr, stdout};

use crate::helpers::exclusive as lock;

fn exe() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_research_companion"))
}

/// Small, fast settings: costs in tenths of a millisecond.
fn small(producer: ProducerKind, kind: WorkerKind) -> Settings {
    Settings {
        producers: vec![producer],
        cost_ms: 0.1,
        batch_size: 4,
        consumer_ms: 0.2,
        workers: vec![0, 3],
        batches: 20,
        warmup_batches: 0,
        window: research_companion::bench::WindowKind::WholeRun,
        more_steps_when_short: false,
        repeat: 1,
        rounds: 1,
        budget_s: None,
        prefetch_factor: 2,
        cpus: None,
        worker_kind: kind,
        in_order: true,
        seed: 3,
        sample_floats: 16,
        timer_slack_ns: 1,
        delay_batch: None,
        watchdog_ms: None,
        transport: Transport::Pipe,
        receive_ms: 0.0,
        send_ms: 0.0,
        switch_interval_ms: 0.0,
        python_cost_scale: 0.0,
        fork_cost_scale: None,
        setup_cost_scale: None,
    }
}

fn run_one(cfg: &PipelineConfig) -> Measured {
    engine::run(cfg, exe(), &|| false, || {}).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn batches_go_to_workers_round_robin_within_the_outstanding_bound() {
    let _g = lock();
    for kind in [WorkerKind::Thread, WorkerKind::Process] {
        let cfg = small(ProducerKind::Sleep, kind).pipeline(ProducerKind::Sleep, 3);
        let m = run_one(&cfg);
        assert_eq!(m.deliveries.len() as u64, cfg.total_batches());
        for d in &m.deliveries {
            assert_eq!(
                d.worker as u64,
                d.index % 3,
                "{kind}: batch {} from worker {}",
                d.index,
                d.worker
            );
        }
        // In-order delivery: 0, 1, 2, ...
        let order: Vec<u64> = m.deliveries.iter().map(|d| d.index).collect();
        assert_eq!(
            order,
            (0..cfg.total_batches()).collect::<Vec<_>>(),
            "{kind}"
        );
        // prefetch_factor x workers outstanding, never more.
        assert_eq!(m.max_outstanding, 6, "{kind}");
        assert_eq!(
            m.workers.len(),
            3,
            "{kind}: every worker reports its CPU time"
        );
    }
}

/// Every batch delivered once, in order, and every one of the 3 workers
/// reported back.
fn assert_every_batch_once_in_order(m: &Measured, cfg: &PipelineConfig, what: &str) {
    let order: Vec<u64> = m.deliveries.iter().map(|d| d.index).collect();
    assert_eq!(
        order,
        (0..cfg.total_batches()).collect::<Vec<_>>(),
        "{what}"
    );
    assert_eq!(m.workers.len(), 3, "{what}: every worker reports");
}

#[test]
fn every_transport_delivers_every_batch_once_in_order_with_the_same_data() {
    let _g = lock();
    let mut digests = Vec::new();
    for transport in [Transport::Pipe, Transport::Queue, Transport::SharedFd] {
        let mut s = small(ProducerKind::Sleep, WorkerKind::Process);
        s.transport = transport;
        let cfg = s.pipeline(ProducerKind::Sleep, 3);
        let m = run_one(&cfg);
        assert_every_batch_once_in_order(&m, &cfg, &transport.to_string());
        digests.push((transport, m.data_digest));
    }
    // Threads hand batches over in memory; the data is the same.
    let m =
        run_one(&small(ProducerKind::Sleep, WorkerKind::Thread).pipeline(ProducerKind::Sleep, 3));
    digests.push((Transport::Pipe, m.data_digest));
    assert!(digests.iter().all(|d| d.1 == digests[0].1), "{digests:?}");
}

#[test]
fn with_the_interpreter_lock_every_producer_delivers_every_batch_unchanged() {
    // The worker's main thread, feeder and sharer share one lock with a
    // short switch interval, so it changes hands many times in a run.
    let _g = lock();
    for producer in [
        ProducerKind::Sleep,
        ProducerKind::Spin,
        ProducerKind::SpinWall,
    ] {
        let mut s = small(producer, WorkerKind::Process);
        s.send_ms = 0.2;
        let without = run_one(&s.pipeline(producer, 3)).data_digest;
        for transport in [Transport::Queue, Transport::SharedFd] {
            s.transport = transport;
            s.switch_interval_ms = 0.2;
            let cfg = s.pipeline(producer, 3);
            let m = run_one(&cfg);
            assert_every_batch_once_in_order(&m, &cfg, &format!("{producer} {transport}"));
            assert_eq!(m.data_digest, without, "{producer} {transport}");
        }
    }
}

#[test]
fn batches_larger_than_a_pipe_write_cross_the_shared_queue_whole() {
    // 4 x 4096 floats = 64 KiB per batch: sixteen times what one pipe write
    // keeps in one piece, from six workers writing into the same pipe.
    let _g = lock();
    let mut s = small(ProducerKind::Spin, WorkerKind::Process);
    s.cost_ms = 0.0;
    s.sample_floats = 4096;
    s.batches = 60;
    s.prefetch_factor = 4;
    let mut digests = Vec::new();
    for transport in [Transport::Queue, Transport::Pipe] {
        s.transport = transport;
        let cfg = s.pipeline(ProducerKind::Spin, 6);
        let m = run_one(&cfg);
        let order: Vec<u64> = m.deliveries.iter().map(|d| d.index).collect();
        assert_eq!(order, (0..cfg.total_batches()).collect::<Vec<_>>());
        assert_eq!(m.workers.len(), 6, "{transport}: every worker reports");
        digests.push(m.data_digest);
    }
    assert_eq!(digests[0], digests[1]);
}

#[test]
fn the_receive_cost_is_loop_cpu_per_batch_from_worker_processes_only() {
    let _g = lock();
    let mut s = small(ProducerKind::Sleep, WorkerKind::Process);
    s.receive_ms = 3.0;
    s.transport = Transport::SharedFd;
    let loop_cpu_per_step =
        |m: &Measured| m.consumer_sched.on_cpu_ns as f64 / 1e6 / m.window_steps as f64;
    let processes = run_one(&s.pipeline(ProducerKind::Sleep, 3));
    // CPU time, not wall time: the loop burns its consumer cost and the
    // receive cost for every measured batch, whatever else runs.
    assert!(
        loop_cpu_per_step(&processes) >= 0.99 * (s.consumer_ms + s.receive_ms),
        "{} ms of loop CPU per step",
        loop_cpu_per_step(&processes)
    );
    s.worker_kind = WorkerKind::Thread;
    let threads = run_one(&s.pipeline(ProducerKind::Sleep, 3));
    assert!(
        loop_cpu_per_step(&threads) < s.consumer_ms + s.receive_ms / 2.0,
        "threads pay no receive cost: {} ms",
        loop_cpu_per_step(&threads)
    );
    // The ideal bound counts the receive cost as the loop's own work.
    s.worker_kind = WorkerKind::Process;
    let with = s.pipeline(ProducerKind::Sleep, 3);
    s.receive_ms = 0.0;
    let without = s.pipeline(ProducerKind::Sleep, 3);
    let (with, without) = (
        research_companion::bench::bound::ideal_window(&with, 1),
        research_companion::bench::bound::ideal_window(&without, 1),
    );
    assert!(with > without, "{with} vs {without}");
}

#[test]
fn the_send_cost_is_worker_cpu_per_batch_for_helper_thread_transports_only() {
    let _g = lock();
    let mut s = small(ProducerKind::Sleep, WorkerKind::Process);
    s.send_ms = 2.0;
    let workers_cpu_ms = |transport, send_ms| {
        let mut s = s.clone();
        s.transport = transport;
        s.send_ms = send_ms;
        let cfg = s.pipeline(ProducerKind::Sleep, 3);
        let m = run_one(&cfg);
        let ms = m.workers.iter().map(|w| w.cpu_ns).sum::<u64>() as f64 / 1e6;
        (ms, cfg.total_batches() as f64)
    };
    // Sleeping producers use next to no CPU: what the workers use is the
    // helpers' send cost, paid once for every batch.
    for transport in [Transport::Queue, Transport::SharedFd] {
        let (ms, batches) = workers_cpu_ms(transport, s.send_ms);
        assert!(
            ms >= 0.99 * batches * s.send_ms,
            "{transport}: {ms} ms of worker CPU for {batches} batches"
        );
    }
    // The pipe has no helper threads to pay it: its workers spend about
    // what they spend with no send cost at all (the sleeps' own CPU, which
    // a busy machine makes dearer, is in both).
    let (ms, batches) = workers_cpu_ms(Transport::Pipe, s.send_ms);
    let (without, _) = workers_cpu_ms(Transport::Pipe, 0.0);
    assert!(
        ms - without < batches * s.send_ms / 2.0,
        "pipe: {ms} ms of worker CPU for {batches} batches, {without} ms with no send cost"
    );
}

#[test]
fn the_python_costs_are_cpu_of_the_workers_and_the_loop_as_modelled() {
    use research_companion::bench::python_costs::PythonCosts;
    let _g = lock();
    let mut s = small(ProducerKind::Sleep, WorkerKind::Process);
    s.transport = Transport::SharedFd;
    // Scaled up so that they dwarf everything else the threads do.
    s.python_cost_scale = 10.0;
    let cfg = s.pipeline(ProducerKind::Sleep, 3);
    let costs = PythonCosts::of_config(&cfg);
    let m = run_one(&cfg);
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    // Sleeping producers use next to no CPU: the workers' is their Python
    // for every batch (CPU time, whatever the machine's load).
    let workers_ms = m.workers.iter().map(|w| w.cpu_ns).sum::<u64>() as f64 / 1e6;
    let batches = cfg.total_batches() as f64;
    let per_batch = ms(costs.worker_per_batch(cfg.spec.batch_size));
    assert!(per_batch >= 1.0, "{per_batch} ms");
    assert!(
        workers_ms >= 0.99 * batches * per_batch,
        "{workers_ms} ms of worker CPU for {batches} batches of {per_batch} ms"
    );
    // The loop's thread: its step, and handing out the next index and
    // freeing the last batch for every batch it takes in.
    let loop_ms = m.consumer_sched.on_cpu_ns as f64 / 1e6 / m.window_steps as f64;
    let own = s.consumer_ms + ms(costs.hand_out + costs.release);
    assert!(
        loop_ms >= 0.99 * own,
        "{loop_ms} ms of loop CPU per step, {own} modelled"
    );
    // Thread workers model no Python.
    s.worker_kind = WorkerKind::Thread;
    let threads = run_one(&s.pipeline(ProducerKind::Sleep, 3));
    let threads_ms = threads.workers.iter().map(|w| w.cpu_ns).sum::<u64>() as f64 / 1e6;
    assert!(
        threads_ms < batches * per_batch / 2.0,
        "thread workers: {threads_ms} ms"
    );
}

#[test]
fn a_workers_start_and_first_batches_cost_it_cpu_once_however_many_batches_it_makes() {
    use research_companion::bench::python_costs::PythonCosts;
    let _g = lock();
    let mut s = small(ProducerKind::Sleep, WorkerKind::Process);
    s.transport = Transport::SharedFd;
    s.python_cost_scale = 1.0;
    s.workers = vec![1];
    let worker_cpu_ms = |batches: u64| {
        let mut s = s.clone();
        s.batches = batches;
        let cfg = s.pipeline(ProducerKind::Sleep, 1);
        let m = run_one(&cfg);
        let ms = m.workers.iter().map(|w| w.cpu_ns).sum::<u64>() as f64 / 1e6;
        (ms, cfg.total_batches() as f64, PythonCosts::of_config(&cfg))
    };
    let (few, few_batches, costs) = worker_cpu_ms(4);
    let (many, many_batches, _) = worker_cpu_ms(44);
    let once = (costs.worker_start + costs.first_batches).as_secs_f64() * 1e3;
    assert!(once >= 10.0, "{once} ms");
    // What a batch costs the worker, by difference: the once-costs cancel.
    let per_batch = (many - few) / (many_batches - few_batches);
    assert!(
        per_batch < once / 4.0,
        "{per_batch} ms a batch: the start is paid again per batch"
    );
    // What is left of the short run once its batches are paid: the start.
    let left = few - few_batches * per_batch;
    assert!(
        left >= 0.9 * once,
        "{left} ms of worker CPU beyond its batches, {once} ms modelled once"
    );
}

#[test]
fn out_of_order_takes_the_first_ready_batch() {
    let _g = lock();
    for kind in [WorkerKind::Thread, WorkerKind::Process] {
        let mut s = small(ProducerKind::Sleep, kind);
        s.delay_batch = Some((0, 150));
        s.in_order = false;
        let m = run_one(&s.pipeline(ProducerKind::Sleep, 3));
        assert_ne!(
            m.deliveries[0].index, 0,
            "{kind}: batch 0 is slow, so another comes first"
        );
        let mut seen: Vec<u64> = m.deliveries.iter().map(|d| d.index).collect();
        seen.sort();
        assert_eq!(
            seen,
            (0..21).collect::<Vec<_>>(),
            "{kind}: every batch exactly once"
        );
        // In order, the slow batch still comes first.
        s.in_order = true;
        let m = run_one(&s.pipeline(ProducerKind::Sleep, 3));
        assert_eq!(m.deliveries[0].index, 0, "{kind}");
    }
}

#[test]
fn batch_contents_are_identical_for_every_worker_count_and_kind() {
    let _g = lock();
    let mut digests = Vec::new();
    for kind in [WorkerKind::Thread, WorkerKind::Process] {
        for w in [0, 1, 3, 8] {
            let cfg = small(ProducerKind::Sleep, kind).pipeline(ProducerKind::Sleep, w);
            digests.push((kind, w, run_one(&cfg).data_digest));
        }
    }
    assert!(digests.iter().all(|d| d.2 == digests[0].2), "{digests:?}");
    // A different seed gives different data, so the digest is not vacuous.
    let mut s = small(ProducerKind::Sleep, WorkerKind::Thread);
    s.seed = 4;
    assert_ne!(
        run_one(&s.pipeline(ProducerKind::Sleep, 0)).data_digest,
        digests[0].2
    );
}

fn shape(producer: ProducerKind) -> BenchRun {
    let s = Settings {
        producers: vec![producer],
        cost_ms: 0.5,
        batch_size: 8,
        consumer_ms: 1.0,
        workers: vec![0, 4],
        batches: 40,
        cpus: Some(1),
        worker_kind: WorkerKind::Process,
        ..small(producer, WorkerKind::Process)
    };
    research_companion::bench::run_suite(
        &s,
        research_companion::env::collect(),
        exe(),
        |_| {},
        &mut |_| true,
    )
    .unwrap()
}

/// What the engine guarantees about a whole run on one CPU, whatever the
/// machine's load: counts, bounds and budgets, not speed-ups. (The speed-ups
/// and the verdicts are timing; `cargo bench --bench cli` prints them.)
#[test]
fn a_run_on_one_cpu_keeps_its_counts_bounds_and_cpu_budget() {
    let _g = lock();
    for producer in [ProducerKind::Sleep, ProducerKind::Spin] {
        let run = shape(producer);
        assert_eq!(run.cpus_used.len(), 1, "pinned to one CPU");
        let s = &run.settings;
        let per_batch_ms = s.batch_size as f64 * s.cost_ms;
        let digests: Vec<&str> = run
            .results
            .iter()
            .map(|r| r.summary.data_digest.as_str())
            .collect();
        assert!(digests.iter().all(|d| *d == digests[0]), "{digests:?}");
        for r in &run.results {
            let row = &r.summary;
            let label = format!("{producer} workers={}", row.workers);
            assert_eq!(
                row.batches, s.batches,
                "{label}: one wait per measured batch"
            );
            assert_eq!(r.repeats.len(), s.repeat, "{label}");
            assert_eq!(
                row.max_outstanding,
                s.prefetch_factor * row.workers,
                "{label}: the outstanding bound is reached and kept"
            );
            // Nothing beats the zero-overhead schedule (2% for clock reads).
            assert!(
                row.efficiency <= 1.02,
                "{label}: efficiency {}",
                row.efficiency
            );
            // The consumer's step is CPU work: at least its cost in wall time.
            assert!(
                row.work_ms >= s.consumer_ms * 0.999,
                "{label}: work {}",
                row.work_ms
            );
            assert!(
                (row.wait_frac - row.wait_mean_ms / (row.wait_mean_ms + row.work_ms)).abs() < 1e-9
            );
            // One CPU does at most one CPU-second of work per second: the
            // pinning holds for the consumer and every worker process.
            let cpu_ms = row.consumer_cpu_ms * (row.batches + 1) as f64 + row.workers_cpu_ms;
            assert!(
                cpu_ms <= 1.1 * row.window_ms,
                "{label}: {cpu_ms:.0} ms of CPU in {:.0} ms on one CPU",
                row.window_ms
            );
            // A spinning worker spends its cost in CPU time, not wall time:
            // every batch it produced cost it the whole per-batch cost.
            if producer == ProducerKind::Spin && row.workers > 0 {
                let produced = (1 + s.warmup_batches + s.batches) as f64;
                assert!(
                    row.workers_cpu_ms >= 0.99 * produced * per_batch_ms,
                    "{label}: workers used {} ms of CPU for {produced} batches of {per_batch_ms} ms",
                    row.workers_cpu_ms
                );
            }
        }
    }
}

#[test]
fn every_row_a_steady_state_bench_prints_obeys_the_identity_it_measures() {
    use research_companion::bench::WindowKind;
    use research_companion::published::{audit, tables};
    let _g = lock();
    let p = Project::seeded();
    let out = p
        .cmd()
        .args([
            "bench",
            "--producer",
            "sleep,spin",
            "--cost-ms",
            "0.5",
            "--batch-size",
            "8",
            "--consumer-ms",
            "2",
            "--workers",
            "0,1,3",
            "--batches",
            "30",
            "--cpus",
            "1",
            "--out",
            "run.yaml",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // The tool's own audit, which tells a chapter's window by the identity,
    // reads every printed table as a steady state with no discrepancy.
    let printed = tables::parse(&text).tables;
    assert_eq!(printed.len(), 2, "{text}");
    for t in &printed {
        let w = audit::table_window(t);
        assert_eq!(w.kind, WindowKind::SteadyState, "{}\n{text}", w.in_words());
        assert_eq!(audit::audit(t), vec![], "{text}");
    }
    assert!(
        text.contains("steady-state window: 30 measured steps a configuration"),
        "{text}"
    );
    // At full precision, within 2%, and the window is in the run file.
    let run: BenchRun =
        serde_yaml::from_str(&std::fs::read_to_string(p.path("run.yaml")).unwrap()).unwrap();
    assert_eq!(run.settings.window, WindowKind::SteadyState);
    for c in &run.results {
        let r = &c.summary;
        let identity = 1000.0 * 8.0 / (r.wait_mean_ms + r.work_ms);
        assert!(
            (r.ex_per_s / identity - 1.0).abs() < 0.02,
            "{} {}: ex/s {} against {identity}",
            r.producer,
            r.workers,
            r.ex_per_s
        );
        let fill = 2 * c.workers as u64;
        assert_eq!(r.warmup_batches, Some(fill + 4));
        assert_eq!(r.tail_batches, Some(fill));
        assert_eq!(r.batches, 30, "30 is whole turns of 1 and 3 workers");
        // The start is measured, apart: the time to the first batch and,
        // with workers, the CPU starting them cost.
        assert!(r.startup_ms > 0.0);
        assert_eq!(r.start_cpu_ms.is_some(), c.workers > 0, "{r:?}");
    }
    // A whole-run window has no warm-up to give.
    p.expect(["bench", "--window", "whole-run", "--warmup-batches", "5"])
        .code(2)
        .stderr_has("--warmup-batches 5: a whole-run window starts at the loader's creation")
        .run();
}

#[test]
fn bench_prints_the_chapter_layout_and_writes_a_run_file() {
    let _g = lock();
    let p = Project::seeded();
    let out = p
        .cmd()
        .args([
            "bench",
            "--producer",
            "sleep,spin",
            "--cost-ms",
            "0.1",
            "--batch-size",
            "4",
            "--consumer-ms",
            "0.2",
            "--workers",
            "0,2",
            "--batches",
            "10",
            "--out",
            "run.yaml",
            "--wide",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("=== producer=sleep 0.1 ms/sample batch=4 consumer=0.2 ms/batch ==="),
        "{text}"
    );
    assert!(
        text.contains("=== producer=spin 0.1 ms/sample batch=4 consumer=0.2 ms/batch ==="),
        "{text}"
    );
    assert!(
        text.contains("workers  ex/s  wait_mean  wait_p50  wait_p95  wait_max  work  wait_frac"),
        "{text}"
    );
    assert!(text.contains("verdict"), "--wide adds the verdict: {text}");
    assert!(
        text.contains("model limit: consumer under 1 ms a batch (here 0.2 ms)"),
        "a step shorter than any compared: {text}"
    );
    if cfg!(debug_assertions) {
        assert!(
            stderr(&out).contains("DEBUG build"),
            "a debug build warns loudly"
        );
    }
    // The run file re-loads with every row and its histograms.
    let yaml = std::fs::read_to_string(p.path("run.yaml")).unwrap();
    let run: BenchRun = serde_yaml::from_str(&yaml).unwrap();
    assert_eq!(run.schema, "research_companion.bench-run.v1");
    assert_eq!(run.results.len(), 4);
    let r = &run.results[1].repeats[0];
    let wait = research_companion::bench::histogram::deserialize(&r.wait_histogram_ns).unwrap();
    assert_eq!(wait.len(), 10);
    assert!((wait.mean() / 1e6 - r.row.wait_mean_ms).abs() < 0.01);
    assert!(run.environment.env_id.starts_with("env-v2:") && run.environment.env_id.len() == 71);
    // Never over an existing run file.
    p.cmd()
        .args(["bench", "--batches", "1", "--out", "run.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("run.yaml: already exists"));
}

#[test]
fn bench_under_the_shortest_step_compared_says_the_engines_ex_s_is_not_known() {
    let _g = lock();
    let p = Project::seeded();
    let args = [
        "bench",
        "--producer",
        "sleep",
        "--cost-ms",
        "0.1",
        "--batch-size",
        "4",
        "--consumer-ms",
        "0",
        "--batches",
        "6",
    ];
    let out = p
        .cmd()
        .args(args)
        .args(["--workers", "0,2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("model limit: consumer under 1 ms a batch (here 0 ms)")
            && text.contains("where its ex/s with workers was x0.93 to x1.37 of PyTorch's"),
        "{text}"
    );
    // With no workers there is no hand-off for the loop to be cheap in.
    let out = p
        .cmd()
        .args(args)
        .args(["--workers", "0"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("model limit"), "{}", stdout(&out));
}

#[test]
fn bench_exports_markdown_csv_and_json() {
    let _g = lock();
    let p = Project::seeded();
    let args = [
        "bench",
        "--producer",
        "sleep",
        "--cost-ms",
        "0",
        "--consumer-ms",
        "0",
        "--workers",
        "0,1",
        "--batches",
        "3",
    ];
    let md = stdout(
        &p.cmd()
            .args(args)
            .args(["--format", "markdown"])
            .output()
            .unwrap(),
    );
    assert!(md.contains("| workers | ex/s | wait_mean |"), "{md}");
    let csv = stdout(
        &p.cmd()
            .args(args)
            .args(["--format", "csv"])
            .output()
            .unwrap(),
    );
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(csv.starts_with("producer,cost_ms,batch_size,consumer_ms,workers,ex_per_s,"));
    let json = p
        .cmd()
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["results"][1]["summary"]["workers"], 1);
}

#[test]
fn invalid_knobs_are_refused_before_anything_runs() {
    let p = Project::seeded();
    let not_in = |v: &str, range: &str| format!("': {v} is not in {range}");
    for (args, msg) in [
        (vec!["--batch-size", "0"], not_in("0", "1..=65536")),
        (vec!["--batch-size", "1e12"], "invalid value '1e12' for '--batch-size".into()),
        (vec!["--batch-size", "1000000000000"], not_in("1000000000000", "1..=65536")),
        (vec!["--cost-ms", "-1"], "must be a number from 0 to 60000, got -1".into()),
        (vec!["--cost-ms", "NaN"], "must be a number from 0 to 60000, got NaN".into()),
        (vec!["--consumer-ms", "inf"], "must be a number from 0 to 60000, got inf".into()),
        (vec!["--receive-ms", "-0.5"], "'--receive-ms <RECEIVE_MS>': must be a number from 0 to 60000, got -0.5".into()),
        (vec!["--send-ms", "nan"], "'--send-ms <SEND_MS>': must be a number from 0 to 60000, got nan".into()),
        (vec!["--switch-interval-ms", "-5"], "'--switch-interval-ms <SWITCH_INTERVAL_MS>': must be a number from 0 to 60000, got -5".into()),
        (vec!["--workers", "0,300"], not_in("300", "0..=256")),
        (vec!["--workers", "2,2"], "--workers lists 2 twice".into()),
        (vec!["--workers", "0,2", "--workers", "0"], "--workers lists 0 twice".into()),
        (vec!["--producer", "sleep,sleep"], "--producer lists sleep twice".into()),
        (
            vec!["--fork-cost-scale", "0"],
            "'--fork-cost-scale <FORK_COST_SCALE>': must be a number above 0, up to 100, got 0".into(),
        ),
        (
            vec!["--setup-cost-scale", "-1"],
            "'--setup-cost-scale <SETUP_COST_SCALE>': must be a number above 0, up to 100, got -1".into(),
        ),
        (
            vec!["--setup-cost-scale", "x"],
            "'--setup-cost-scale <SETUP_COST_SCALE>': 'x' is not a number".into(),
        ),
        (
            vec!["--fork-cost-scale", "0.3", "--python-cost-scale", "0"],
            "--fork-cost-scale scales a Python cost, and a Python cost scale of 0 runs none: drop it, or give a Python cost scale above 0".into(),
        ),
        (
            vec!["--calibrate-to-pytorch", "--engine", "both", "--setup-cost-scale", "0.5"],
            "the argument '--calibrate-to-pytorch' cannot be used with '--setup-cost-scale".into(),
        ),
        (vec!["--prefetch-factor", "0"], not_in("0", "1..=64")),
        (vec!["--batches", "0"], not_in("0", "1..=1000000")),
        (vec!["--batches", "1e12"], "invalid value '1e12' for '--batches".into()),
        (
            vec!["--batches", "18446744073709551615"],
            not_in("18446744073709551615", "1..=1000000"),
        ),
        (
            vec!["--batches", "18446744073709551614", "--worker-kind", "thread"],
            not_in("18446744073709551614", "1..=1000000"),
        ),
        (
            vec!["--warmup-batches", "18446744073709551615"],
            not_in("18446744073709551615", "0..=1000000"),
        ),
        (vec!["--sample-floats", "1e12"], "invalid value '1e12' for '--sample-floats".into()),
        (vec!["--sample-floats", "2000000"], not_in("2000000", "1..=1048576")),
        (
            vec!["--sample-floats", "1048576", "--batch-size", "32"],
            "--sample-floats times the batch size must be at most 16777216 floats per batch, got 1048576 x 32".into(),
        ),
        (vec!["--repeat", "1000"], not_in("1000", "1..=100")),
        (vec!["--timer-slack-ns", "2000000000"], not_in("2000000000", "1..=1000000000")),
        // 0 would hand the thread the kernel's default slack while the run
        // recorded 0.
        (
            vec!["--timer-slack-ns", "0"],
            "0 gives the thread the kernel's default slack (50000 ns) while the run would record 0: give 1 or more".into(),
        ),
        (vec!["--timer-slack-ns", "1e3"], "expected a whole number of ns from 1 to 1000000000".into()),
        (vec!["--producer", "yield"], "invalid value 'yield'".into()),
        (vec!["--cpus", "0"], "expected a number of CPUs from 1 to 4096, or `all`".into()),
        (vec!["--cpus", "4096"], "--cpus 4096: this process may use".into()),
        (
            vec!["--ratio-band", "1"],
            "'--ratio-band <X>': must be a ratio above 1 and at most 10 (1.1 for within 10%), got 1".into(),
        ),
        (
            vec!["--wait-frac-band", "-0.05"],
            "'--wait-frac-band <D>': must be a difference of wait fractions above 0 and at most 1, got -0.05".into(),
        ),
        (
            vec!["--ratio-band", "1.1"],
            "--ratio-band and --wait-frac-band hold two runs' rows to a band: use them with --engine both".into(),
        ),
    ] {
        let out = p.expect([] as [&str; 0]).arg("bench").args(&args).code(2).run();
        let e = out.stderr();
        assert!(e.contains(&msg), "{args:?}: {e}");
        assert!(!e.contains("panicked"), "{args:?}: {e}");
    }
}

#[test]
fn model_knobs_the_workers_do_not_run_are_refused_not_recorded() {
    let p = Project::seeded();
    for (args, msg) in [
        (
            vec!["--worker-kind", "thread", "--receive-ms", "1"],
            "--receive-ms sets the model of the DataLoader's process workers, which --worker-kind thread does not run; drop it",
        ),
        (
            vec![
                "--worker-kind",
                "thread",
                "--python-cost-scale",
                "2",
                "--transport",
                "pipe",
            ],
            "--transport, --python-cost-scale set the model",
        ),
        (
            vec!["--worker-kind", "thread", "--fork-cost-scale", "0.3"],
            "--fork-cost-scale sets the model of the DataLoader's process workers, which --worker-kind thread does not run; drop it",
        ),
        (
            vec![
                "--transport",
                "pipe",
                "--send-ms",
                "0.5",
                "--switch-interval-ms",
                "2",
            ],
            "--send-ms, --switch-interval-ms set the sending threads and interpreter locks of the queue hand-offs, which --transport pipe does not have; drop them",
        ),
    ] {
        let out = p
            .expect([] as [&str; 0])
            .arg("bench")
            .args(&args)
            .code(2)
            .run();
        let e = out.stderr();
        assert!(e.contains(msg), "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // The defaults said out loud, and what the pipe does run, are taken.
    let short_run = |workers: &[&str]| {
        p.expect(["bench", "--producer", "sleep", "--cost-ms", "0.05"])
            .args(["--batches", "3", "--workers", "1"])
            .args(workers)
            .success()
            .run()
    };
    short_run(&["--transport", "pipe", "--receive-ms", "0.1"]);
    // 0 asks for none of a cost these workers do not have: nothing to refuse.
    short_run(&[
        "--transport",
        "pipe",
        "--send-ms",
        "0",
        "--switch-interval-ms",
        "0",
    ]);
    let out = short_run(&["--worker-kind", "thread", "--python-cost-scale", "0.5"]);
    assert!(
        out.stdout()
            .contains("in the loop's process: no hand-off, no Python costs"),
        "{}",
        out.stdout()
    );
}

#[test]
fn an_argument_that_is_not_utf8_is_refused_not_a_panic() {
    use std::os::unix::ffi::OsStrExt;
    let p = Project::seeded();
    let out = p
        .expect([] as [&str; 0])
        .arg("chapter")
        .arg("show")
        .arg(std::ffi::OsStr::from_bytes(b"\xff\xfe"))
        .code(2)
        .run();
    let e = out.stderr();
    assert!(e.contains("invalid UTF-8"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
}

/// Children of `pid`, from /proc.
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let ppid: u32 = after.split(' ').nth(1).unwrap().parse().unwrap();
        if ppid == pid {
            out.push(child);
        }
    }
    out
}

/// The process group of `pid`, from /proc.
fn pgrp(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    after.split(' ').nth(2)?.parse().ok()
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !s[s.rfind(')').unwrap()..].starts_with(") Z"))
}

/// Starts a long benchmark, in a process group of its own as a shell runs a
/// foreground job, and waits until its workers exist.
fn long_bench(p: &Project, extra: &[&str]) -> (std::process::Child, Vec<u32>) {
    use std::os::unix::process::CommandExt;
    // Shared-fd sockets go under the project, where a test can look for leftovers.
    let tmp = p.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut cmd = std::process::Command::new(exe());
    cmd.process_group(0)
        .current_dir(p.root())
        .env("TMPDIR", &tmp)
        .args([
            "bench",
            "--producer",
            "sleep",
            "--workers",
            "4",
            "--batches",
            "100000",
            "--cost-ms",
            "1",
        ])
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    for _ in 0..500 {
        let workers = children(child.id());
        // Each worker moves to a process group of its own as it starts.
        if workers.len() == 4 && workers.iter().all(|w| pgrp(*w) == Some(*w)) {
            return (child, workers);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("workers did not start");
}

/// Waits for the child (a hang guard, not a timing assertion).
fn wait(child: std::process::Child) -> std::process::Output {
    let pid = child.id();
    let guard = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(120));
        // SAFETY: kill(2) with a pid and a signal.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    });
    let out = child.wait_with_output().unwrap();
    drop(guard);
    out
}

#[test]
fn a_killed_worker_fails_the_run_naming_it_and_leaves_no_orphans() {
    let _g = lock();
    let p = Project::seeded();
    let (child, workers) = long_bench(&p, &[]);
    // SAFETY: kill(2) on a worker we just found.
    unsafe { libc::kill(workers[2] as i32, libc::SIGKILL) };
    let out = wait(child);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(
        e.contains("producer=sleep workers=4 failed: worker 2"),
        "{e}"
    );
    assert!(e.contains("killed by signal 9"), "{e}");
    assert!(workers.iter().all(|w| !alive(*w)), "orphan workers left");
}

#[test]
fn a_killed_worker_with_a_feeder_thread_fails_the_run_cleanly() {
    let _g = lock();
    let p = Project::seeded();
    let (child, workers) = long_bench(&p, &["--transport", "queue"]);
    // SAFETY: kill(2) on a worker we just found.
    unsafe { libc::kill(workers[0] as i32, libc::SIGKILL) };
    let out = wait(child);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("failed: worker 0"), "{e}");
    assert!(e.contains("killed by signal 9"), "{e}");
    std::thread::sleep(Duration::from_millis(50));
    assert!(workers.iter().all(|w| !alive(*w)), "orphan workers left");
}

#[test]
fn a_killed_shared_fd_worker_fails_the_run_and_leaves_no_sockets() {
    let _g = lock();
    let p = Project::seeded();
    let (child, workers) = long_bench(&p, &["--transport", "shared-fd"]);
    let sockets = || {
        std::fs::read_dir(p.path("tmp"))
            .unwrap()
            .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
            .filter(|f| f.as_ref().unwrap().path().extension() == Some("sock".as_ref()))
            .count()
    };
    // Workers bind their sockets just after they start.
    for _ in 0..500 {
        if sockets() == 4 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(sockets(), 4, "one sharer socket per worker");
    // SAFETY: kill(2) on a worker we just found.
    unsafe { libc::kill(workers[3] as i32, libc::SIGKILL) };
    let out = wait(child);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("failed: worker 3"), "{e}");
    std::thread::sleep(Duration::from_millis(50));
    assert!(workers.iter().all(|w| !alive(*w)), "orphan workers left");
    let left: Vec<_> = std::fs::read_dir(p.path("tmp")).unwrap().collect();
    assert!(left.is_empty(), "socket folder left behind: {left:?}");
}

#[test]
fn a_worker_dying_between_header_and_descriptor_fails_the_run_cleanly() {
    let _g = lock();
    let p = Project::seeded();
    let tmp = p.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let out = p
        .expect([] as [&str; 0])
        .env("TMPDIR", &tmp)
        .env("RESEARCH_COMPANION_DIE_BEFORE_SHARING", "1")
        .args([
            "bench",
            "--producer",
            "sleep",
            "--workers",
            "2",
            "--batches",
            "5",
        ])
        .args(["--cost-ms", "0.1", "--transport", "shared-fd"])
        .code(2)
        .run();
    let e = out.stderr();
    assert!(
        e.contains("producer=sleep workers=2 failed: worker "),
        "{e}"
    );
    assert!(e.contains("killed by signal 6"), "{e}");
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "socket folder left behind: {left:?}");
}

#[test]
fn a_hung_worker_is_caught_by_the_watchdog() {
    let _g = lock();
    let p = Project::seeded();
    let (child, workers) = long_bench(&p, &["--watchdog-ms", "1500"]);
    // SAFETY: kill(2) on a worker we just found; SIGSTOP freezes it.
    unsafe { libc::kill(workers[1] as i32, libc::SIGSTOP) };
    let out = wait(child);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(
        e.contains(&format!(
            "producer=sleep workers=4 failed: worker 1 (pid {})",
            workers[1]
        )),
        "{e}"
    );
    assert!(e.contains("(watchdog); it is hung or stopped"), "{e}");
    assert!(
        workers.iter().all(|w| !alive(*w)),
        "the stopped worker was left behind"
    );
}

#[test]
fn ctrl_c_stops_cleanly_and_writes_no_partial_file() {
    let _g = lock();
    let p = Project::seeded();
    let (child, workers) = long_bench(&p, &["--out", "never.yaml"]);
    // SAFETY: kill(2) on the child we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = wait(child);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted"));
    assert!(!p.path("never.yaml").exists());
    std::thread::sleep(Duration::from_millis(50));
    assert!(workers.iter().all(|w| !alive(*w)), "orphan workers left");
}

#[test]
fn a_worker_caught_by_ctrl_c_while_starting_counts_as_an_interruption() {
    let _g = lock();
    let p = Project::seeded();
    let (child, workers) = long_bench(&p, &[]);
    // What a Ctrl-C does to a worker still in the run's group: it dies of
    // SIGINT. The run reports an interruption, not a failed worker.
    // SAFETY: kill(2) on a worker we just found.
    unsafe { libc::kill(workers[1] as i32, libc::SIGINT) };
    let out = wait(child);
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{e}");
    assert!(e.contains("interrupted"), "{e}");
    std::thread::sleep(Duration::from_millis(50));
    assert!(workers.iter().all(|w| !alive(*w)), "orphan workers left");
}

#[test]
fn a_terminals_ctrl_c_to_the_whole_group_exits_130() {
    let _g = lock();
    let p = Project::seeded();
    let (child, workers) = long_bench(&p, &["--out", "never.yaml"]);
    // A terminal sends SIGINT to every process of the foreground group.
    // SAFETY: kill(2) on the process group of the child we started.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
    let out = wait(child);
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{e}");
    assert!(e.contains("interrupted"), "{e}");
    assert!(!e.contains("killed by signal"), "{e}");
    assert!(!p.path("never.yaml").exists());
    std::thread::sleep(Duration::from_millis(50));
    assert!(workers.iter().all(|w| !alive(*w)), "orphan workers left");
}

#[test]
fn env_prints_the_fingerprint_and_its_id_is_stable() {
    let p = Project::seeded();
    p.cmd()
        .arg("env")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "The environment these numbers came from",
        ))
        .stdout(predicate::str::contains(
            "Volatile readings (not part of env_id)",
        ));
    let ids: Vec<String> = (0..2)
        .map(|_| {
            let out = p.cmd().args(["env", "--format", "json"]).output().unwrap();
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(v["identity"]["logical_cpus"].as_u64().unwrap() >= 1);
            v["env_id"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(ids[0], ids[1]);
}

#[test]
fn a_usage_error_is_one_line_on_stderr_with_exit_status_2() {
    let p = Project::seeded();
    for args in [
        vec!["bench", "--rounds", "0"],
        vec!["snapshot", "add"],
        vec!["reproduce", "06", "--budget", "-1"],
        vec![
            "bench",
            "--engine",
            "both",
            "--calibrate-to-pytorch",
            "--receive-ms",
            "0.3",
        ],
    ] {
        let out = p.cmd().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("research_companion: error: ") && err.ends_with("see --help)\n"),
            "{err}"
        );
    }
}
