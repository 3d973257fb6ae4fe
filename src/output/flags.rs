//! The command line's words for what the core reports without naming a
//! flag: which flag sets each benchmark knob, a knob error told as that
//! flag, and the errors every command's flags can fix. Only the command
//! line names flags; the core's errors are typed so that this file can.

use crate::bench::{Knob, Settings, WorkerKind};
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
            "--engine pytorch runs process workers only; drop --worker-kind thread".into(),
        ));
    }
    if !settings.in_order {
        return Err(Error::Usage(
            "--engine pytorch delivers in order only; drop --out-of-order".into(),
        ));
    }
    Ok(())
}
