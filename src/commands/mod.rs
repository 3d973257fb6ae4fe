//! The command-line layer's glue: one file per subcommand, each turning its
//! arguments into use-case calls (`app`) and their results into output. No
//! command file imports another; what several share lives here or in
//! `output`. This is also the one place that knows which flag fixes a typed
//! error.

mod bench;
mod chapters;
mod claims;
mod compare;
mod diff;
mod env;
mod fetch;
mod fingerprint;
mod history;
mod prompt;
mod publish;
mod record;
mod report;
mod reproduce;
mod site;
mod snapshot;
mod status;
mod verify;

use crate::app::Project;
use crate::bench::Knob;
use crate::cli::{Cli, Command};
use crate::error::{Error, Outcome, Result};
use crate::layout::Layout;
use crate::output::Out;

/// Runs the parsed command; returns what it concluded.
pub fn run(cli: Cli) -> Result<Outcome> {
    let layout = Layout::discover(cli.root);
    let project = || Project::open(layout.clone());
    let mut out = Out::default();
    let out = &mut out;
    let outcome = match cli.command {
        Command::Fingerprint(args) => fingerprint::run(out, args),
        Command::Env(args) => env::run(out, args),
        Command::Completions(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut buf = Vec::new();
            clap_complete::generate(args.shell, &mut cmd, "research_companion", &mut buf);
            out.bytes(&buf).map(|_| Outcome::Ok)
        }
        Command::Chapters(args) => chapters::list(out, &project()?, args),
        Command::Chapter(cmd) => chapters::show(out, &project()?, cmd),
        Command::Snapshot(cmd) => snapshot::run(out, &project()?, cmd),
        Command::Claims(cmd) => claims::run(out, &project()?, cmd),
        Command::Verify(args) => verify::run(out, &project()?, args),
        Command::Bench(args) => bench::run(out, &project()?, args),
        Command::Record(args) => record::run(out, &project()?, args),
        Command::History(args) => history::run(out, &project()?, args),
        Command::Status(args) => status::run(out, &project()?, args),
        Command::Publish(args) => publish::run(out, &project()?, args),
        Command::Diff(args) => diff::run(out, &project()?, args),
        Command::Compare(args) => compare::run(out, project, args),
        Command::Reproduce(args) => reproduce::run(out, &project()?, args),
        Command::Fetch(args) => fetch::run(out, &project()?, args),
        Command::Prompt(args) => prompt::run(out, &project()?, args),
        Command::Report(args) => report::run(out, &project()?, args),
        Command::Site(args) => site::run(&project()?, args),
    }
    .map_err(name_flags)?;
    out.flush()?;
    Ok(outcome)
}

/// Adds the flag that fixes an error common to every command.
fn name_flags(e: Error) -> Error {
    match e {
        Error::NoChapters { .. } => Error::Usage(format!("{e}, or pass --root DIR")),
        other => other,
    }
}

/// The flag that sets a benchmark knob.
fn knob_flag(knob: Knob) -> &'static str {
    match knob {
        Knob::Producers => "--producer",
        Knob::CostMs => "--cost-ms",
        Knob::BatchSize => "--batch-size",
        Knob::ConsumerMs => "--consumer-ms",
        Knob::ReceiveMs => "--receive-ms",
        Knob::SendMs => "--send-ms",
        Knob::SwitchIntervalMs => "--switch-interval-ms",
        Knob::Workers => "--workers",
        Knob::Batches => "--batches",
        Knob::WarmupBatches => "--warmup-batches",
        Knob::TimerSlackNs => "--timer-slack-ns",
        Knob::Repeat => "--repeat",
        Knob::PrefetchFactor => "--prefetch-factor",
        Knob::Cpus => "--cpus",
        Knob::SampleFloats => "--sample-floats",
    }
}

/// A knob error in the words of the command line: `--batch-size must be
/// at least 1, got 0`. `flag` says which knobs this command takes as flags;
/// the others came from somewhere else (`origin`).
fn settings_error(e: Error, flag: impl Fn(Knob) -> Option<&'static str>, origin: &str) -> Error {
    match e {
        Error::Settings(s) => Error::Usage(match flag(s.knob) {
            Some(f) => format!("{f} {}", s.problem),
            None => format!("{origin}: {} {}", s.knob, s.problem),
        }),
        other => other,
    }
}

/// Refuses an output path that exists before any work starts.
fn refuse_existing(path: Option<&std::path::Path>) -> Result<()> {
    match path {
        Some(p) if p.exists() => Err(Error::WouldOverwrite {
            path: p.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// A benchmark run as `bench` and `reproduce` print it.
#[derive(serde::Serialize)]
#[serde(transparent)]
struct RunView<'a> {
    run: &'a crate::bench::BenchRun,
    /// Add the columns beyond the chapter's (text and Markdown only).
    #[serde(skip)]
    wide: bool,
}

impl crate::output::Render for RunView<'_> {
    fn text(&self) -> Result<String> {
        use crate::bench::export;
        Ok(export::text(self.run, self.wide) + &export::footer(self.run))
    }

    fn markdown(&self) -> Result<String> {
        Ok(crate::bench::export::markdown(self.run, self.wide))
    }

    fn csv(&self) -> Result<String> {
        crate::bench::export::csv(self.run)
    }
}

/// Runs a benchmark with a progress bar on standard error (hidden when it is
/// not a terminal) and Ctrl-C wired to stop it cleanly.
fn run_with_progress(settings: &crate::bench::Settings) -> Result<crate::bench::BenchRun> {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    settings.check()?;
    if crate::env::is_debug_build() {
        crate::output::warn(
            "this is a DEBUG build; its numbers are not comparable with the chapter's. \
             Use `cargo run --release`.",
        );
    }
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(crate::bench::interrupt::interrupt);
    });
    let pb =
        ProgressBar::with_draw_target(Some(settings.total_steps()), ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} {msg:<28} [{bar:30}] {pos}/{len} batches, {elapsed}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let mut label = String::new();
    let result = crate::app::bench::run(settings, |cfg| {
        let l = cfg.label();
        if l != label {
            pb.set_message(l.clone());
            label = l;
        }
        pb.inc(1);
    });
    pb.finish_and_clear();
    result
}

/// Prints where a record was stored and what it holds.
fn print_stored(out: &mut Out, stored: &crate::app::record::Stored) -> Result<()> {
    let record = &stored.record;
    out.line(format!("recorded {} ({})", record.run_id, record.kind))?;
    out.line(format!("  file:     {}", stored.path.display()))?;
    out.line(format!(
        "  revision: {} ({}, {})",
        record.revision.fingerprint, record.revision.snapshot, record.revision.scope
    ))?;
    if let Some(r) = &record.report {
        out.line(format!(
            "  report:   {} of 7 sections, {} claim-audit rows, {} source-ledger rows, {} UNVERIFIED, {} UNRUN",
            r.check.sections_present.len(),
            r.check.claim_audit_rows,
            r.check.source_ledger_rows,
            r.check.unverified_markers,
            r.check.unrun_markers
        ))?;
    }
    if let Some(e) = &record.experiment {
        out.line(format!("  result:   {}", e.summary))?;
    }
    if !record.git.available {
        out.line(format!(
            "  git:      {}",
            record.git.note.as_deref().unwrap_or("not available")
        ))?;
    }
    Ok(())
}

/// A rendered document with what its template was given (`--format json`).
#[derive(serde::Serialize)]
struct DocView<'a> {
    text: &'a str,
    context: &'a serde_json::Value,
}

/// Writes a document (`prompt`, `report`) to `out` (never over a file) or to
/// standard output, as text or as JSON with its context.
fn emit_document(
    out: &mut Out,
    to: Option<&std::path::Path>,
    doc: DocView<'_>,
    format: crate::cli::DocFormat,
    what: &str,
) -> Result<()> {
    let text = match format {
        crate::cli::DocFormat::Text => doc.text.to_string(),
        crate::cli::DocFormat::Json => {
            let mut s = serde_json::to_string_pretty(&doc)
                .map_err(|e| crate::error::Error::Other(format!("cannot write JSON: {e}")))?;
            s.push('\n');
            s
        }
    };
    match to {
        Some(path) => {
            crate::atomic::write_new(path, text.as_bytes())?;
            crate::output::wrote(path, what);
            Ok(())
        }
        None => out.write(&text),
    }
}

/// Which engine a run's evidence came from, as a paragraph of its own.
fn evidence_line(run: &crate::bench::BenchRun) -> String {
    format!("Evidence from {}\n\n", run.evidence())
}

/// Refuses knobs PyTorch's DataLoader does not have: it forks process
/// workers and delivers in order.
fn refuse_for_pytorch(settings: &crate::bench::Settings) -> Result<()> {
    if settings.worker_kind != crate::bench::WorkerKind::Process {
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

/// Runs `settings` on PyTorch's DataLoader with `python`, saying so on
/// stderr; `flags` names the flag behind a settings error.
fn run_on_pytorch(
    settings: &crate::bench::Settings,
    python: &std::path::Path,
    flags: impl Fn(Error) -> Error,
) -> Result<crate::bench::BenchRun> {
    eprintln!(
        "running {} configuration(s) on PyTorch's DataLoader with {}",
        settings.producers.len() * settings.workers.len() * settings.repeat,
        python.display()
    );
    crate::app::bench::run_reference(settings, python).map_err(|e| match e {
        // Only the Python itself makes a usage error here.
        Error::Usage(m) => Error::Usage(format!("{m} (--python PATH)")),
        other => flags(other),
    })
}
