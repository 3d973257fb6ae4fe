//! The command line's words for what the core reports without naming a
//! flag: which flag sets each benchmark knob, a knob error told as that
//! flag, and the errors every command's flags can fix. Only the command
//! line names flags; the core's errors are typed so that this file can.

use crate::bench::{BenchRun, Knob, PythonSpeed, Settings, Transport, WorkerKind};
use crate::error::{Error, Result};

/// Adds the flag that fixes an error common to every command.
pub fn name_common_flags(e: Error) -> Error {
    match e {
        Error::NoChapters { .. } => Error::Usage(format!("{e}, or pass --root DIR")),
        Error::NoRoot { .. } => {
            Error::Usage(format!("{e} (named by --root or RESEARCH_COMPANION_ROOT)"))
        }
        other => other,
    }
}

/// Names `--python` in a usage error: only the Python chosen by that flag
/// makes one where it is used (it cannot be started, or lacks a module).
pub fn name_python_flag(e: Error) -> Error {
    match e {
        Error::Usage(m) => Error::Usage(format!("{m} (--python PATH)")),
        other => other,
    }
}

/// The flag that sets a benchmark knob.
pub fn knob_flag(knob: Knob) -> &'static str {
    match knob {
        Knob::Producers => "--producer",
        Knob::CostMs => "--cost-ms",
        Knob::BatchSize => "--batch-size",
        Knob::ConsumerMs => "--consumer-ms",
        Knob::ReceiveMs => "--receive-ms",
        Knob::SendMs => "--send-ms",
        Knob::SwitchIntervalMs => "--switch-interval-ms",
        Knob::PythonCostScale => "--python-cost-scale",
        Knob::ForkCostScale => "--fork-cost-scale",
        Knob::SetupCostScale => "--setup-cost-scale",
        Knob::Workers => "--workers",
        Knob::Batches => "--batches",
        Knob::WarmupBatches => "--warmup-batches",
        Knob::TimerSlackNs => "--timer-slack-ns",
        Knob::Repeat => "--repeat",
        Knob::Rounds => "--rounds",
        Knob::Budget => "--budget",
        Knob::PrefetchFactor => "--prefetch-factor",
        Knob::Cpus => "--cpus",
        Knob::SampleFloats => "--sample-floats",
    }
}

/// A knob error in the words of the command line: `--batch-size must be
/// at least 1, got 0`. `flag` says which knobs this command takes as flags;
/// the others came from somewhere else (`origin`).
pub fn settings_error(
    e: Error,
    flag: impl Fn(Knob) -> Option<&'static str>,
    origin: &str,
) -> Error {
    match e {
        Error::Settings(s) => Error::Usage(match flag(s.knob) {
            Some(f) => format!("{f} {}", s.problem),
            None => format!("{origin}: {} {}", s.knob, s.problem),
        }),
        other => other,
    }
}

/// Refuses knobs PyTorch's DataLoader does not have: it forks process
/// workers and delivers in order.
pub fn refuse_for_pytorch(settings: &Settings) -> Result<()> {
    if settings.worker_kind != WorkerKind::Process {
        return Err(Error::Usage(
            "PyTorch's DataLoader (--engine pytorch or both) runs process workers only; drop --worker-kind thread".into(),
        ));
    }
    if !settings.in_order {
        return Err(Error::Usage(
            "PyTorch's DataLoader (--engine pytorch or both) delivers in order only; drop --out-of-order".into(),
        ));
    }
    Ok(())
}

/// The embedded engine's model knobs set away from their defaults (the
/// knobs a run on PyTorch sets back): each one's name in the run file, its
/// flag, and whether it was set to 0 (none of that cost or lock).
fn model_knobs_set(settings: &Settings) -> Vec<(&'static str, &'static str, bool)> {
    let d = settings.as_pytorch_runs_them();
    let number = |value: f64, default: f64, knob| (value != default, knob_flag(knob), value == 0.0);
    let [transport, receive, send, switch, scale, fork, setup, seed] =
        crate::bench::settings::MODEL_KNOBS;
    // A start scale counts as set when given away from its default (None:
    // not given, the start at the Python scale).
    let given = |value: Option<f64>, default: Option<f64>, knob| {
        (value.is_some() && value != default, knob_flag(knob), false)
    };
    [
        (
            transport,
            (settings.transport != d.transport, "--transport", false),
        ),
        (
            receive,
            number(settings.receive_ms, d.receive_ms, Knob::ReceiveMs),
        ),
        (send, number(settings.send_ms, d.send_ms, Knob::SendMs)),
        (
            switch,
            number(
                settings.switch_interval_ms,
                d.switch_interval_ms,
                Knob::SwitchIntervalMs,
            ),
        ),
        (
            scale,
            number(
                settings.python_cost_scale,
                d.python_cost_scale,
                Knob::PythonCostScale,
            ),
        ),
        (
            fork,
            given(
                settings.fork_cost_scale,
                d.fork_cost_scale,
                Knob::ForkCostScale,
            ),
        ),
        (
            setup,
            given(
                settings.setup_cost_scale,
                d.setup_cost_scale,
                Knob::SetupCostScale,
            ),
        ),
        (seed, (settings.seed != d.seed, "--seed", false)),
    ]
    .into_iter()
    .filter_map(|(name, (changed, flag, zero))| changed.then_some((name, flag, zero)))
    .collect()
}

/// Refuses the `set` flags, if any, as setting `what`, which the run does
/// not run; `or` is another way out after "drop them".
fn refuse_set(set: &[&str], what: &str, or: &str) -> Result<()> {
    if set.is_empty() {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "{} set{} {what}; drop {}{or}",
        set.join(", "),
        if set.len() == 1 { "s" } else { "" },
        if set.len() == 1 { "it" } else { "them" },
    )))
}

/// Refuses knobs of the model set away from their defaults where the
/// workers asked for do not run them: thread workers have no hand-off,
/// interpreter locks or Python costs; the pipe has no sending threads or
/// interpreter lock. Taken silently, they would be recorded as if they had
/// shaped the run.
pub fn refuse_knobs_not_run(settings: &Settings) -> Result<()> {
    let what = match (settings.worker_kind, settings.transport) {
        (WorkerKind::Thread, _) => {
            "the model of the DataLoader's process workers, which --worker-kind thread does not run"
        }
        (WorkerKind::Process, Transport::Pipe) => {
            "the sending threads and interpreter locks of the queue hand-offs, which --transport pipe does not have"
        }
        _ => return Ok(()),
    };
    let not_run = settings.model_knobs_not_run();
    // 0 asks for none of that cost or lock, which is what these workers have.
    let set: Vec<&str> = model_knobs_set(settings)
        .into_iter()
        .filter(|(name, _, zero)| not_run.contains(name) && !zero)
        .map(|(_, flag, _)| flag)
        .collect();
    refuse_set(&set, what, "")
}

/// Refuses, for a run on PyTorch alone, the knobs of the embedded engine's
/// model set away from their defaults: the real DataLoader has its own
/// hand-off, interpreter lock and Python, so they would change nothing but
/// the settings the run file claims. (With both engines they set the
/// embedded half. The timer slack is not one of them: the harness inherits
/// it, as it does the CPUs.)
pub fn refuse_model_knobs_for_pytorch(settings: &Settings) -> Result<()> {
    let set: Vec<&str> = model_knobs_set(settings)
        .into_iter()
        .map(|(_, flag, _)| flag)
        .collect();
    refuse_set(
        &set,
        "the embedded engine's model, which --engine pytorch does not run",
        " or use --engine both",
    )
}

/// `--calibrate-to-pytorch`, checked before anything runs: PyTorch starts
/// workers to measure only at a worker count above 0.
pub fn refuse_calibrating_without_workers(settings: &Settings) -> Result<()> {
    if settings.workers.iter().all(|&w| w == 0) {
        return Err(Error::Usage(
            "--calibrate-to-pytorch needs a worker count above 0 in --workers: with no workers PyTorch starts none to measure".into(),
        ));
    }
    Ok(())
}

/// `--calibrate-to-pytorch`: `settings` with the embedded half's Python
/// costs, and its hand-off's, at the factor PyTorch's start measured in
/// `pytorch`, and that factor. Says on standard error when the machine was
/// busy enough to move the factor.
pub fn calibrated_to(pytorch: &BenchRun, settings: &Settings) -> Result<(Settings, f64)> {
    let speed = PythonSpeed::of_run(pytorch, settings).ok_or_else(|| {
        Error::Usage(
            "--calibrate-to-pytorch: PyTorch's run measured no worker start to scale by (it needs a worker count above 0 in --workers)".into(),
        )
    })?;
    let scaled = speed.scaled(settings).ok_or_else(|| {
        Error::Usage(format!(
            "--calibrate-to-pytorch: PyTorch's Python here was x{} of the engine's figures, and {}; the embedded half did not run",
            crate::text::format::setting(speed.factor),
            super::run_comparison::no_setting_models(&speed),
        ))
    })?;
    if let Some(busy) = speed.busy_text() {
        eprintln!(
            "research_companion: --calibrate-to-pytorch: {busy}, which slows Python's start: the factor x{} may read the load as well as this machine",
            crate::text::format::setting(speed.factor)
        );
    }
    Ok((scaled, speed.factor))
}
