//! The real PyTorch DataLoader as a reference engine (`--engine pytorch`
//! and `both`). The Rust
//! side is tested against a recorded answer of a real harness run and
//! against harnesses that fail or print garbage; the real harness runs only
//! where `python3` can import torch (or RESEARCH_COMPANION_TEST_PYTHON names
//! a Python that can); elsewhere those tests are counted as ignored
//! (docs/testing.md).

use std::path::PathBuf;

use research_companion::bench::BenchRun;

use crate::helpers::{
    Project, exclusive as lock, fake_python, files_under, fixtures, stderr, stdout,
};

/// The settings the recorded harness answer was measured with.
const RECORDED: [&str; 6] = [
    "--batches",
    "20",
    "--workers",
    "0,2",
    "--producer",
    "sleep,spin",
];

fn bench_with(p: &Project, python: &std::path::Path, extra: &[&str]) -> std::process::Output {
    p.cmd()
        .args(["bench", "--engine", "pytorch", "--python"])
        .arg(python)
        .args(RECORDED)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_recorded_harness_answer_becomes_a_run_file_that_diff_reads() {
    let _g = lock();
    let p = Project::seeded();
    let answer = fixtures().join("pytorch-harness-answer.json");
    let python = fake_python(&p, &format!("cat '{}'", answer.display()));
    let out = bench_with(&p, &python, &["--out", "pt.run.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("measured by the pytorch DataLoader (torch 2.15.0"),
        "{text}"
    );
    assert!(text.contains("file_descriptor sharing"), "{text}");
    let run = BenchRun::load(&p.path("pt.run.yaml")).unwrap();
    let reference = run.reference.as_ref().expect("the engine is recorded");
    assert_eq!(reference.sharing_strategy, "file_descriptor");
    assert_eq!(run.results.len(), 4);
    // The spinning producer does not scale on one CPU in PyTorch either.
    let spin0 = run.row("spin".parse().unwrap(), 0).unwrap();
    let spin2 = run.row("spin".parse().unwrap(), 2).unwrap();
    assert!(spin0.wait_frac > 0.8, "{spin0:?}");
    assert!(spin2.work_ms > spin0.work_ms, "{spin2:?}");
    assert_eq!(spin0.batches, 20);
    // diff reads it as it reads any run, and says which engine measured.
    let out = p.cmd().args(["diff", "pt.run.yaml"]).output().unwrap();
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Evidence from the pytorch DataLoader"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn bench_on_both_engines_prints_them_side_by_side_in_every_format() {
    let _g = lock();
    let p = Project::seeded();
    let answer = fixtures().join("pytorch-harness-answer.json");
    let python = fake_python(&p, &format!("cat '{}'", answer.display()));
    let both = |extra: &[&str]| {
        p.cmd()
            .args(["bench", "--engine", "both", "--python"])
            .arg(&python)
            .args(RECORDED)
            // The embedded engine really runs: keep it short.
            .args(["--cost-ms", "0.05", "--consumer-ms", "0.2"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = both(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("PyTorch's DataLoader (A) beside the embedded engine (B)"),
        "{text}"
    );
    assert!(
        text.contains("A: pytorch (pytorch DataLoader (torch 2.15.0"),
        "{text}"
    );
    assert!(
        text.contains("B: embedded (process workers, shared-fd hand-off"),
        "{text}"
    );
    assert!(text.contains("4 configuration(s) compared"), "{text}");
    // Every configuration both ran, each with its wait_frac difference.
    for producer in ["sleep", "spin"] {
        assert!(
            text.contains(&format!("=== producer={producer} (A | B")),
            "{text}"
        );
    }
    let out = both(&["--format", "csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let csv = stdout(&out);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 5, "{csv}");
    assert!(
        lines[0].contains("wait_frac_a,wait_frac_b,wait_frac_difference,ex_per_s_ratio_low,"),
        "{csv}"
    );
    assert!(
        lines[1..]
            .iter()
            .all(|l| l.starts_with("pytorch,embedded,")),
        "{csv}"
    );
    let out = both(&["--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["pytorch"]["reference"]["engine"], "pytorch");
    assert_eq!(json["side_by_side"]["rows"].as_array().unwrap().len(), 4);
    // The model's knobs set the embedded half only; PyTorch has no such
    // knob, so it is no difference, but the embedded run says it set it.
    let out = both(&["--python-cost-scale", "0", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["pytorch"]["settings"]["python_cost_scale"],
        research_companion::bench::PYTHON_COST_SCALE
    );
    assert_eq!(json["embedded"]["settings"]["python_cost_scale"], 0.0);
    let text = stdout(&both(&["--python-cost-scale", "0"]));
    assert!(!text.contains("python_cost_scale: 0.5 vs 0.0"), "{text}");
    assert!(
        text.contains(
            "B alone has fork_cost_scale 0.0, python_cost_scale 0.0, setup_cost_scale 0.0 (the other run has no such setting)"
        ),
        "{text}"
    );
    // One run per file or record: two runs are refused, nothing written.
    for extra in [
        &["--out", "both.yaml"][..],
        &["--record"][..],
        &["--wide"][..],
    ] {
        let out = both(extra);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(
            stderr(&out).contains("with --engine both there are two"),
            "{}",
            stderr(&out)
        );
    }
    assert!(!p.path("both.yaml").exists());
}

#[test]
fn a_broken_harness_is_one_clear_line_and_exit_2() {
    let _g = lock();
    let p = Project::seeded();
    for (body, says) in [
        (
            "echo 'not json at all'",
            "printed something that is not its result",
        ),
        (
            "echo 'Traceback: boom' >&2; exit 1",
            "(exit status: 1): Traceback: boom",
        ),
        (
            "exit 3",
            "cannot import torch; install it with `python3 -m venv DIR",
        ),
        (
            "echo '{\"harness\": 2, \"python\": \"3\", \"torch\": \"2\", \"sharing_strategy\": \"x\", \"start_method\": \"fork\", \"cpus\": [0], \"results\": []}'",
            "the PyTorch harness returned 0 runs, 4 were asked for",
        ),
        (
            "echo '{\"harness\": 1, \"python\": \"3\", \"torch\": \"2\", \"sharing_strategy\": \"x\", \"start_method\": \"fork\", \"cpus\": [0], \"results\": []}'",
            "the PyTorch harness speaks version 1, this tool version 6",
        ),
    ] {
        let python = fake_python(&p, body);
        let out = bench_with(&p, &python, &["--out", "never.yaml"]);
        assert_eq!(out.status.code(), Some(2), "{body}");
        let e = stderr(&out);
        let errors: Vec<&str> = e.lines().filter(|l| l.contains("error:")).collect();
        assert_eq!(errors.len(), 1, "{e}");
        assert!(errors[0].contains(says), "{body}: {e}");
        if says.contains("not its result") {
            // Which Python answered is named, not only the parser's complaint.
            let under = format!("harness under {} printed", python.display());
            assert!(errors[0].contains(&under), "{e}");
        }
        assert!(!p.path("never.yaml").exists());
    }
    let out = bench_with(&p, std::path::Path::new("/no/such/python"), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot run /no/such/python"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_reference_engine_refuses_knobs_pytorch_does_not_have() {
    let p = Project::seeded();
    let python = fake_python(&p, "exit 0");
    for flag in [&["--worker-kind", "thread"][..], &["--out-of-order"][..]] {
        let out = bench_with(&p, &python, flag);
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
        assert!(
            stderr(&out).contains("--engine pytorch"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn the_reference_engine_alone_refuses_the_model_knobs_and_names_them() {
    let p = Project::seeded();
    let python = fake_python(&p, "exit 0");
    let out = bench_with(&p, &python, &["--python-cost-scale", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("--python-cost-scale sets the embedded engine's model"),
        "{err}"
    );
    assert!(err.contains("--engine both"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let out = bench_with(&p, &python, &["--receive-ms", "1", "--transport", "pipe"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--transport, --receive-ms set"),
        "{}",
        stderr(&out)
    );
    // The defaults, given out loud, change nothing and are accepted.
    let out = bench_with(&p, &python, &["--python-cost-scale", "0.5"]);
    assert!(
        !stderr(&out).contains("embedded engine's model"),
        "{}",
        stderr(&out)
    );
}

/// The Python with torch to test with, if this machine has one:
/// RESEARCH_COMPANION_TEST_PYTHON, else `python3`, else the shared venv of
/// this workplace's machines (/tmp/torchenv), whichever imports torch.
fn python_with_torch() -> Option<PathBuf> {
    let candidates = match std::env::var_os("RESEARCH_COMPANION_TEST_PYTHON") {
        Some(p) => vec![PathBuf::from(p)],
        None => vec![
            PathBuf::from("python3"),
            PathBuf::from("/tmp/torchenv/bin/python"),
        ],
    };
    candidates.into_iter().find(|candidate| {
        std::process::Command::new(candidate)
            .args(["-c", "import torch"])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

#[test]
#[cfg_attr(
    rc_no_torch,
    ignore = "needs a Python that imports torch: set RESEARCH_COMPANION_TEST_PYTHON"
)]
fn bench_on_both_engines_with_real_torch_pairs_every_configuration() {
    let _g = lock();
    let Some(python) = python_with_torch() else {
        eprintln!(
            "SKIPPED bench_on_both_engines_with_real_torch_pairs_every_configuration: no Python \
             here imports torch (not RESEARCH_COMPANION_TEST_PYTHON, python3 or \
             /tmp/torchenv/bin/python)"
        );
        return;
    };
    let p = Project::seeded();
    let out = p
        .expect(["bench", "--engine", "both", "--python"])
        .arg(&python)
        .args(["--batches", "6", "--workers", "0,2", "--cost-ms", "0.2"])
        .args(["--consumer-ms", "1", "--rounds", "2", "--budget", "0"])
        .args(["--format", "json"])
        .success()
        .run();
    let json: serde_json::Value = serde_json::from_slice(&out.out.stdout).unwrap();
    assert_eq!(json["pytorch"]["reference"]["engine"], "pytorch");
    assert!(json["embedded"]["reference"].is_null());
    assert_eq!(json["embedded"]["settings"]["rounds"], 2);
    let rows = json["side_by_side"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{rows:?}");
    for r in rows {
        let (a, b) = (&r["ex_per_s"]["a"], &r["ex_per_s"]["b"]);
        assert!(
            a.as_f64().unwrap() > 0.0 && b.as_f64().unwrap() > 0.0,
            "{r}"
        );
        let d = r["wait_frac"]["difference"].as_f64().unwrap();
        let (wa, wb) = (
            r["wait_frac"]["a"].as_f64().unwrap(),
            r["wait_frac"]["b"].as_f64().unwrap(),
        );
        assert!((d - (wb - wa)).abs() < 1e-9, "{r}");
    }
}

#[test]
#[cfg_attr(
    rc_no_torch,
    ignore = "needs a Python that imports torch: set RESEARCH_COMPANION_TEST_PYTHON"
)]
fn the_real_harness_runs_where_torch_is_installed() {
    let _g = lock();
    let Some(python) = python_with_torch() else {
        eprintln!(
            "SKIPPED the_real_harness_runs_where_torch_is_installed: no Python here imports torch \
             (set RESEARCH_COMPANION_TEST_PYTHON to one that does)"
        );
        return;
    };
    let p = Project::seeded();
    let out = p
        .expect(["bench", "--engine", "pytorch", "--python"])
        .arg(&python)
        .args(["--batches", "6", "--workers", "0,2", "--cost-ms", "0.2"])
        .args(["--out", "real.run.yaml"])
        .success()
        .run();
    let run = BenchRun::load(&p.path("real.run.yaml")).unwrap();
    let reference = run.reference.unwrap();
    assert_eq!(reference.engine, "pytorch");
    assert_eq!(run.results.len(), 4);
    assert!(run.results.iter().all(|r| r.summary.batches == 6));
    // What starting the workers cost: both 2-worker configurations' four
    // workers, a fork and a set-up each of some milliseconds of CPU.
    let start = reference.start.expect("the harness measures the start");
    // (A configuration run again for other processes' load starts its
    // workers again.)
    assert!(start.workers >= 4 && start.workers % 2 == 0, "{start:?}");
    assert!(start.fork_ms > 0.5 && start.setup_ms > 0.5, "{start:?}");
    // The per-batch probe: one per harness run, at the run's batch size,
    // a tenth of a millisecond of CPU and more for the loop and the worker.
    let per_batch = reference
        .per_batch
        .expect("the harness probes the per-batch path");
    assert_eq!(per_batch.batch_size, 32);
    assert!(per_batch.probes >= 1, "{per_batch:?}");
    assert!(
        per_batch.loop_us > 100.0 && per_batch.worker_us > 100.0,
        "{per_batch:?}"
    );
    assert!(
        out.stdout()
            .contains("per batch of 32, hot, its loop spent"),
        "{}",
        out.stdout()
    );
    assert!(
        out.stdout()
            .contains("starting the workers: PyTorch's loop spent"),
        "{}",
        out.stdout()
    );
}

/// The recorded answer with what starting the workers cost: `fork_ms` of
/// the loop's CPU per worker and `setup_ms` of each worker's.
fn answer_with_start(p: &Project, fork_ms: u64, setup_ms: u64, setups: Option<usize>) -> PathBuf {
    let mut answer = busy_answer_of_version_4();
    for r in answer["results"].as_array_mut().unwrap() {
        let workers = r["workers"].as_u64().unwrap();
        r["start_cpu_ns"] = (workers * fork_ms * 1_000_000).into();
        let n = setups.filter(|_| workers > 0).unwrap_or(workers as usize);
        r["worker_setup_ns"] = vec![setup_ms * 1_000_000; n].into();
    }
    let file = p.write("answer.json", answer.to_string());
    fake_python(p, &format!("cat '{}'", file.display()))
}

/// `answer_with_start`'s answer with the per-batch probe of a harness of
/// version 5: `probe` as its `per_batch`.
fn answer_with_probe(
    p: &Project,
    fork_ms: u64,
    setup_ms: u64,
    probe: serde_json::Value,
) -> PathBuf {
    answer_with_start(p, fork_ms, setup_ms, None);
    let mut answer: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p.path("answer.json")).unwrap()).unwrap();
    answer["harness"] = 5.into();
    answer["per_batch"] = probe;
    let file = p.write("answer.json", answer.to_string());
    fake_python(p, &format!("cat '{}'", file.display()))
}

#[test]
fn the_per_batch_probe_calibrates_the_per_batch_costs_and_the_start_keeps_its_own() {
    let _g = lock();
    let p = Project::seeded();
    // A start at half the figures, a per-batch path at x0.4 of theirs at
    // batch 32 (683.8 µs of the loop, 1121.2 µs of a worker).
    let probe = |batch_size: u64| {
        serde_json::json!({
            "batch_size": batch_size, "sample_floats": 64, "batches": 240,
            "worker_ns": 448_480, "loop_ns": 273_520
        })
    };
    let python = answer_with_probe(&p, 9, 12, probe(32));
    let run = |extra: &[&str]| {
        p.cmd()
            .args([
                "bench",
                "--engine",
                "both",
                "--calibrate-to-pytorch",
                "--python",
            ])
            .arg(&python)
            .args(RECORDED)
            .args(["--budget", "0"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &json["embedded"]["settings"];
    assert_eq!(
        (
            &s["python_cost_scale"],
            &s["receive_ms"],
            &s["send_ms"],
            &s["fork_cost_scale"],
            &s["setup_cost_scale"]
        ),
        (
            &0.4.into(),
            &0.17.into(),
            &0.14.into(),
            &0.5.into(),
            &0.5.into()
        ),
        "{s}"
    );
    assert_eq!(json["embedded"]["calibrated_to_pytorch"], 0.4);
    let speed = &json["side_by_side"]["python_speed"];
    assert_eq!(
        (&speed["start_factor"], &speed["factor"]),
        (&0.5.into(), &0.4.into()),
        "{speed}"
    );
    assert_eq!(speed["per_batch"]["measured"]["loop_us"], 273.52, "{speed}");
    assert_eq!(speed["modelled"], true, "{speed}");
    let out = run(&[]);
    let text = stdout(&out);
    assert!(
        text.contains(
            "medians of 4 worker starts: x0.50 together; per batch of 32, hot, its loop spent 274 µs \
             and one worker 448 µs (x0.40 of 684 µs and x0.40 of 1121 µs), medians of 1 probe: x0.40 \
             together, the factor of the per-batch costs"
        ) && text.contains(
            "Python costs x0.4, the workers' start x0.5 for the fork and x0.5 for the set-up \
             (calibrated to PyTorch's Python beside it, x0.4)"
        ),
        "{text}"
    );
    // A probe at another batch size is not the one asked for: one line,
    // exit 2, and the embedded half does not run.
    let python = answer_with_probe(&p, 9, 12, probe(4));
    let out = p
        .expect([
            "bench",
            "--engine",
            "both",
            "--calibrate-to-pytorch",
            "--python",
        ])
        .arg(&python)
        .args(RECORDED)
        .args(["--budget", "0"])
        .code(2)
        .run();
    assert!(
        out.stderr().contains(
            "the PyTorch harness's answer for the per-batch probe cannot be right: it ran 240 batches \
             of 4 samples of 64 floats, not batches of 32 samples of 64"
        ),
        "{}",
        out.stderr()
    );
}

/// The recorded answer of a busy machine, as a harness of version 4 would
/// give it (without what the start cost, until a test adds it).
fn busy_answer_of_version_4() -> serde_json::Value {
    let fixture = fixtures().join("pytorch-harness-answer-busy.json");
    let mut answer: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    answer["harness"] = 4.into();
    answer
}

/// A short run of the embedded engine (2 batches, workers 0 and 2, costs
/// of 0.1 ms) written to `name`, with `extra` flags.
fn short_engine_run(p: &Project, name: &str, extra: &[&str]) {
    p.expect([
        "bench",
        "--batches",
        "2",
        "--workers",
        "0,2",
        "--cost-ms",
        "0.1",
    ])
    .args(["--consumer-ms", "0.1", "--budget", "0", "--out", name])
    .args(extra)
    .success()
    .run();
}

#[test]
fn pytorchs_start_says_how_this_machines_python_stands_against_the_engines_figures() {
    let _g = lock();
    let p = Project::seeded();
    // Half the figures' 18 and 24 ms: a machine whose Python is twice as fast.
    let python = answer_with_start(&p, 9, 12, None);
    let out = bench_with(&p, &python, &["--out", "pt.run.yaml", "--budget", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "starting the workers: PyTorch's loop spent 9.0 ms of CPU forking each worker (x0.50 of the \
             engine's figure, 18 ms) and a worker 12.0 ms setting itself up (x0.50 of 24 ms), medians of \
             4 worker starts: x0.50 together"
        ),
        "{}",
        stdout(&out)
    );
    // The answer is of a busy machine: the footer says so beside the start.
    // Its own CPUs read 70% busy; the CPUs it did not use are this
    // machine's own and may be busier still (another test, a build), and
    // then the footer names those instead.
    let text = stdout(&out);
    let own = "x0.50 together (other processes took 70% of the run's own CPUs while PyTorch ran";
    let elsewhere = names_busier_cpus_elsewhere(&text);
    assert!(text.contains(own) || elsewhere, "{text}");
    assert!(
        text.contains(
            " while PyTorch ran, which slows Python's start: the factor may read the load as well as this machine)"
        ),
        "{text}"
    );
    // Beside an engine run at the figures' scale, the comparison says the
    // rows may differ for it and gives the flags that model this machine;
    // beside one run with them, that it modelled it.
    let engine = |name: &str, extra: &[&str]| short_engine_run(&p, name, extra);
    engine(
        "figures.run.yaml",
        &[
            "--python-cost-scale",
            "1",
            "--receive-ms",
            "0.42",
            "--send-ms",
            "0.35",
        ],
    );
    let flags = [
        "--python-cost-scale",
        "0.5",
        "--fork-cost-scale",
        "0.5",
        "--setup-cost-scale",
        "0.5",
        "--receive-ms",
        "0.21",
        "--send-ms",
        "0.18",
    ];
    engine("here.run.yaml", &flags);
    let compare = |b: &str| {
        let out = p.expect(["compare", "pt.run.yaml", b]).success().run();
        out.stdout()
    };
    let text = compare("figures.run.yaml");
    assert!(
        text.contains(
            "the engine ran its Python costs at x1, 0.42 ms loop CPU to take in a batch and \
             0.35 ms worker CPU to hand one off, so rows that lean on them"
        ),
        "{text}"
    );
    // The recorded answer is of a busy machine (other processes took 70%
    // and more of its CPU): the factor may read the load, and says so.
    assert!(
        (text.contains("But other processes took 70% of the run's own CPUs while PyTorch ran")
            || text.contains(" of the CPUs the run did not use while PyTorch ran"))
            && text.contains("measure it again on a quiet machine before calibrating to it"),
        "{text}"
    );
    assert!(
        text.contains(&format!("`{}` models this machine", flags.join(" "))),
        "{text}"
    );
    let text = compare("here.run.yaml");
    assert!(
        text.contains(
            "the engine ran its Python costs at x0.5, 0.21 ms loop CPU to take in a batch and \
             0.18 ms worker CPU to hand one off, as this machine's"
        ),
        "{text}"
    );
    // The scale alone is not the machine: the hand-off's costs count too.
    engine(
        "scale-only.run.yaml",
        &[
            "--python-cost-scale",
            "0.5",
            "--receive-ms",
            "0.42",
            "--send-ms",
            "0.35",
        ],
    );
    let text = compare("scale-only.run.yaml");
    assert!(
        text.contains("so rows that lean on them") && !text.contains("as this machine's"),
        "{text}"
    );
    // The pipe has no sending threads: the flags that model this machine
    // are the ones `bench --transport pipe` takes.
    engine("pipe.run.yaml", &["--transport", "pipe"]);
    let text = compare("pipe.run.yaml");
    assert!(
        text.contains(
            "`--python-cost-scale 0.5 --fork-cost-scale 0.5 --setup-cost-scale 0.5 --receive-ms 0.21` models this machine"
        ),
        "{text}"
    );
    // Thread workers model no Python: nothing to set against it.
    engine("threads.run.yaml", &["--worker-kind", "thread"]);
    assert!(!compare("threads.run.yaml").contains("Python here:"));
    // The JSON form carries the figures and the verdict on them.
    let out = p
        .cmd()
        .args([
            "compare",
            "pt.run.yaml",
            "figures.run.yaml",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let speed = &json["python_speed"];
    assert_eq!(speed["factor"], 0.5, "{speed}");
    assert_eq!(speed["modelled"], false, "{speed}");
    assert_eq!(speed["measured"]["fork_ms"], 9.0, "{speed}");
    assert_eq!(
        (&speed["fork_ratio"], &speed["setup_ratio"]),
        (&0.5.into(), &0.5.into()),
        "{speed}"
    );
    assert_eq!(speed["models_it"]["receive_ms"], 0.21, "{speed}");
    assert_eq!(speed["models_it"]["send_ms"], 0.18, "{speed}");
    assert_eq!(speed["engine_ran"]["python_cost_scale"], 1.0, "{speed}");
}

#[test]
fn a_start_no_setting_can_model_is_said_and_never_calibrated_to() {
    let _g = lock();
    let p = Project::seeded();
    // A million ms of CPU per worker start: a factor past the x100 that
    // --python-cost-scale takes.
    let python = answer_with_start(&p, 1_000_000, 1_000_000, None);
    let out = bench_with(&p, &python, &["--out", "pt.run.yaml", "--budget", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Beside an engine run, the comparison says so and suggests no flags.
    short_engine_run(&p, "e.run.yaml", &[]);
    let out = p
        .cmd()
        .args(["compare", "pt.run.yaml", "e.run.yaml"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("no setting models a factor of x48112.52")
            && !text.contains("models this machine"),
        "{text}"
    );
    p.expect([
        "bench",
        "--engine",
        "both",
        "--calibrate-to-pytorch",
        "--python",
    ])
    .arg(&python)
    .args(RECORDED)
    .args(["--budget", "0"])
    .code(2)
    .stderr_has(
        "no setting models a factor of x48112.52, above the x100 --python-cost-scale takes at most",
    )
    .run();
}

#[test]
fn an_answer_with_more_worker_set_ups_than_workers_is_refused() {
    let _g = lock();
    let p = Project::seeded();
    let python = answer_with_start(&p, 9, 12, Some(3));
    let out = bench_with(&p, &python, &["--out", "pt.run.yaml", "--budget", "0"]);
    assert_ne!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(err.contains("3 worker set-up times for 2 workers"), "{err}");
    assert!(!p.path("pt.run.yaml").exists());
}

#[test]
fn reproduce_refuses_two_runs_into_one_file() {
    let p = Project::seeded();
    p.expect(["reproduce", "06", "--engine", "both", "--out", "x.yaml"])
        .code(2)
        .stderr_has("with --engine both there are two")
        .run();
    assert!(!p.path("x.yaml").exists());
}

#[test]
fn reproduce_on_both_engines_records_nothing_when_the_pytorch_half_fails() {
    let _g = lock();
    let p = Project::seeded();
    let records = || {
        let dir = p.path("records");
        if dir.exists() {
            files_under(&dir)
        } else {
            Vec::new()
        }
    };
    let before = records();
    let cannot_import = fake_python(&p, "exit 3");
    for python in [
        cannot_import.as_path(),
        std::path::Path::new("/no/such/python"),
    ] {
        p.expect(["reproduce", "06", "--engine", "both", "--batches", "2"])
            .args(["--rounds", "1", "--budget", "0", "--python"])
            .arg(python)
            .code(2)
            .run();
        assert_eq!(records(), before, "{python:?}");
    }
}

#[test]
#[cfg_attr(
    rc_no_torch,
    ignore = "needs a Python that imports torch: set RESEARCH_COMPANION_TEST_PYTHON"
)]
fn reproduce_on_both_engines_records_each_and_puts_them_side_by_side() {
    let _g = lock();
    let Some(python) = python_with_torch() else {
        eprintln!(
            "SKIPPED reproduce_on_both_engines_records_each_and_puts_them_side_by_side: \
             no Python here imports torch (set RESEARCH_COMPANION_TEST_PYTHON to one that does)"
        );
        return;
    };
    let p = Project::seeded();
    let out = p
        .cmd()
        .args([
            "reproduce",
            "06",
            "--engine",
            "both",
            "--batches",
            "3",
            "--rounds",
            "2",
            "--budget",
            "0",
            "--python",
        ])
        .arg(&python)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("06 on PyTorch  6 claims"), "{text}");
    assert!(text.contains("Evidence from the embedded engine"), "{text}");
    assert!(
        text.contains("Evidence from the pytorch DataLoader"),
        "{text}"
    );
    assert!(
        text.contains("PyTorch's DataLoader (A) beside the embedded engine (B)"),
        "{text}"
    );
    assert_eq!(
        text.matches("recorded pytorch-from-first-principles:06:")
            .count(),
        4,
        "{text}"
    );
    assert!(
        text.contains("every claim has the same verdict on both engines")
            || text.contains("with a different verdict on each engine:"),
        "{text}"
    );
}

/// The recorded harness answer (workers 0 and 2) stretched to every worker
/// count chapter 06 publishes: the 2-worker measurements stand in for 1, 4
/// and 8 workers, the answer a harness run of the chapter's own settings
/// would have the shape of.
fn every_chapter_worker_count(p: &Project) -> PathBuf {
    let text = std::fs::read_to_string(fixtures().join("pytorch-harness-answer.json")).unwrap();
    let mut answer: serde_json::Value = serde_json::from_str(&text).unwrap();
    let recorded = answer["results"].as_array().unwrap().clone();
    let mut results = Vec::new();
    for producer in ["sleep", "spin"] {
        for workers in [0, 1, 2, 4, 8] {
            let like = if workers == 0 { 0 } else { 2 };
            let mut r = recorded
                .iter()
                .find(|r| r["producer"] == producer && r["workers"] == like)
                .unwrap()
                .clone();
            r["workers"] = workers.into();
            // A steady-state window measures whole turns of the workers:
            // 24 steps at 8 workers where 20 were asked for.
            let steps = 20usize.div_ceil(workers.max(1)) * workers.max(1);
            for list in ["waits_ns", "works_ns"] {
                let values: Vec<serde_json::Value> = r[list]
                    .as_array()
                    .unwrap()
                    .iter()
                    .cycle()
                    .take(steps)
                    .cloned()
                    .collect();
                r[list] = values.into();
            }
            let window = r["window_ns"].as_u64().unwrap();
            r["window_ns"] = (window * steps as u64 / 20 + 1).into();
            results.push(r);
        }
    }
    answer["results"] = results.into();
    p.write("full-answer.json", answer.to_string())
}

#[test]
fn the_report_keeps_pytorch_evidence_and_model_evidence_apart() {
    let _g = lock();
    let p = Project::seeded();
    let recorded_id = |out: &std::process::Output| {
        let text = stdout(out);
        text.split_whitespace()
            .skip_while(|w| *w != "recorded")
            .nth(1)
            .unwrap_or_else(|| panic!("no record in: {text}{}", stderr(out)))
            .to_string()
    };
    // Both runs measure the chapter's experiment (its settings and every
    // worker count its tables publish), so both are evidence.
    let model = p
        .cmd()
        .args(["bench", "--batches", "3", "--record"])
        .output()
        .unwrap();
    assert_eq!(model.status.code(), Some(0), "{}", stderr(&model));
    let model_id = recorded_id(&model);
    let answer = every_chapter_worker_count(&p);
    let python = fake_python(&p, &format!("cat '{}'", answer.display()));
    let real = p
        .cmd()
        .args(["bench", "--engine", "pytorch", "--python"])
        .arg(&python)
        .args(["--batches", "20", "--record"])
        .output()
        .unwrap();
    assert_eq!(real.status.code(), Some(0), "{}", stderr(&real));
    let real_id = recorded_id(&real);

    // The latest run is PyTorch's: its verdicts lead, the model's stand apart.
    let out = p.expect(["report", "06"]).success().run();
    let text = out.stdout();
    let lead = "Verdicts below come from the pytorch DataLoader (torch 2.15.0";
    assert!(text.contains(lead), "{text}");
    assert!(text.contains(&format!(", run {real_id}.")), "{text}");
    let apart = format!(
        "Kept apart: the same claims measured by the embedded engine (a model of the DataLoader), run {model_id}."
    );
    assert!(text.contains(&apart), "{text}");
    // Apart means after the audit table, not mixed into it.
    assert!(text.find(&apart) > text.find("| claim | where it appears |"));

    // Asked for the model's run, the report turns the other way round.
    let out = p
        .cmd()
        .args(["report", "06", "--run", &model_id])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("Verdicts below come from the embedded engine (a model of the DataLoader)"),
        "{text}"
    );
    assert!(
        text.contains("Kept apart: the same claims measured by the pytorch DataLoader"),
        "{text}"
    );
}

#[test]
fn the_workers_cpu_time_the_harness_reads_reaches_the_rows() {
    let _g = lock();
    let p = Project::seeded();
    let fixture = fixtures().join("pytorch-harness-answer.json");
    let mut answer: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    for r in answer["results"].as_array_mut().unwrap() {
        let workers = r["workers"].as_u64().unwrap();
        r["workers_cpu_ns"] = (workers * 123_000_000).into();
    }
    let file = p.write("answer.json", answer.to_string());
    let python = fake_python(&p, &format!("cat '{}'", file.display()));
    let out = bench_with(&p, &python, &["--out", "pt.run.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run = BenchRun::load(&p.path("pt.run.yaml")).unwrap();
    for r in &run.results {
        assert_eq!(
            r.summary.workers_cpu_ms,
            r.workers as f64 * 123.0,
            "{} workers={}",
            r.producer,
            r.workers
        );
    }
}

#[test]
fn the_counters_a_harness_read_on_a_busy_machine_mark_its_rows_disturbed() {
    let _g = lock();
    let p = Project::seeded();
    // A real answer of the harness, recorded on this project's 2-core
    // machine while other builds kept CPU 0 busy.
    let answer = fixtures().join("pytorch-harness-answer-busy.json");
    let python = fake_python(&p, &format!("cat '{}'", answer.display()));
    let out = bench_with(&p, &python, &["--out", "pt.run.yaml", "--budget", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run = BenchRun::load(&p.path("pt.run.yaml")).unwrap();
    for c in &run.results {
        let outside = c.summary.outside.expect("measured");
        assert!(outside > 0.05 && c.summary.disturbed, "{c:?}");
    }
    assert!(
        stdout(&out).contains("configuration run(s) over 5% (marked * in the wide tables)"),
        "{}",
        stdout(&out)
    );
    // Its rows all come from disturbed runs, and the footer says so.
    assert!(
        stdout(&out).contains("every configuration disturbed: the rows measure the machine's load"),
        "{}",
        stdout(&out)
    );
    // The older answer (version 2) has no counters: nothing is measured,
    // nothing is marked.
    let answer = fixtures().join("pytorch-harness-answer.json");
    let python = fake_python(&p, &format!("cat '{}'", answer.display()));
    let out = bench_with(&p, &python, &["--out", "old.run.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run = BenchRun::load(&p.path("old.run.yaml")).unwrap();
    assert!(
        run.results
            .iter()
            .all(|c| c.summary.outside.is_none() && !c.summary.disturbed)
    );
    // Neither measured what starting the workers cost.
    assert!(run.reference.unwrap().start.is_none());
    assert!(!stdout(&out).contains("starting the workers"));
}

#[test]
fn calibrating_to_pytorch_runs_the_embedded_half_at_the_factor_pytorch_measured() {
    let _g = lock();
    let p = Project::seeded();
    let calibrated = |python: &std::path::Path, extra: &[&str]| {
        p.cmd()
            .args(["bench", "--engine", "both", "--calibrate-to-pytorch"])
            .arg("--python")
            .arg(python)
            .args(extra)
            .args(["--budget", "0"])
            .output()
            .unwrap()
    };
    let python = answer_with_start(&p, 9, 12, None);
    let mut extra = RECORDED.to_vec();
    extra.extend(["--format", "json"]);
    let out = calibrated(&python, &extra);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &json["embedded"]["settings"];
    assert_eq!(
        (&s["python_cost_scale"], &s["receive_ms"], &s["send_ms"]),
        (&0.5.into(), &0.21.into(), &0.18.into()),
        "{s}"
    );
    assert_eq!(json["side_by_side"]["python_speed"]["modelled"], true);
    assert_eq!(json["side_by_side"]["python_speed"]["calibrated_to"], 0.5);
    // The calibrated run says so: in its run file and in its footer.
    assert_eq!(json["embedded"]["calibrated_to_pytorch"], 0.5);
    let out = calibrated(&python, &RECORDED);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Python costs x0.5 (calibrated to PyTorch's Python beside it, x0.5)"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("calibrated to this machine's by --calibrate-to-pytorch"),
        "{}",
        stdout(&out)
    );
    // A cheap fork and a dear set-up: the start runs at the two ratios,
    // the rest at the factor, and both outputs say so.
    let apart = answer_with_start(&p, 6, 15, None);
    let out = calibrated(&apart, &extra);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &json["embedded"]["settings"];
    assert_eq!(
        (
            &s["python_cost_scale"],
            &s["fork_cost_scale"],
            &s["setup_cost_scale"]
        ),
        (&0.46.into(), &0.33.into(), &0.63.into()),
        "{s}"
    );
    assert_eq!(json["side_by_side"]["python_speed"]["modelled"], true);
    let out = calibrated(&apart, &RECORDED);
    let text = stdout(&out);
    assert!(
        text.contains("Python costs x0.46, the workers' start x0.33 for the fork and x0.63 for the set-up (calibrated")
            && text.contains("its workers' start at x0.33 for the fork and x0.63 for the set-up"),
        "{text}"
    );

    // Only beside PyTorch, and not with the knobs it sets.
    for (extra, says) in [
        (&["--engine", "embedded"][..], "use it with --engine both"),
        (&["--engine", "pytorch"][..], "use it with --engine both"),
        (
            &["--engine", "both", "--python-cost-scale", "0.7"][..],
            "cannot be used with",
        ),
        (
            &["--engine", "both", "--receive-ms", "0.3"][..],
            "cannot be used with",
        ),
    ] {
        let out = p
            .expect(["bench", "--calibrate-to-pytorch", "--python"])
            .arg(&python)
            .args(extra)
            .code(2)
            .run();
        assert!(out.stderr().contains(says), "{extra:?}: {}", out.stderr());
    }

    // Without a worker count above 0 PyTorch starts no worker to measure:
    // refused before anything runs (this Python does not exist).
    p.expect([
        "bench",
        "--engine",
        "both",
        "--calibrate-to-pytorch",
        "--workers",
        "0",
    ])
    .args(["--python", "/nonexistent/python"])
    .code(2)
    .stderr_has("--calibrate-to-pytorch needs a worker count above 0 in --workers")
    .run();
    p.expect(["reproduce", "--calibrate-to-pytorch", "--no-record"])
        .code(2)
        .stderr_has("use it with --engine both")
        .run();
}

/// Whether the footer names the CPUs the run did not use as busier than
/// its own 70%.
fn names_busier_cpus_elsewhere(text: &str) -> bool {
    let Some(at) = text.find("x0.50 together (other processes took ") else {
        return false;
    };
    let rest = &text[at + "x0.50 together (other processes took ".len()..];
    let Some((share, tail)) = rest.split_once("% of ") else {
        return false;
    };
    share.parse::<u32>().is_ok_and(|s| s >= 70) && tail.starts_with("the CPUs the run did not use")
}
