//! `bench`: run the pipeline benchmark with the settings on the command
//! line, print it, and write or record it when asked; with `--engine both`,
//! run it on PyTorch and then on the embedded engine (a Python that cannot
//! run PyTorch fails before the embedded engine has spent its time) and
//! print the two side by side, PyTorch as A.

use serde::Serialize;

use crate::app::compare::{self, RunComparison};
use crate::app::{Project, record};
use crate::atomic;
use crate::bench::{BenchRun, Settings, export};
use crate::cli::{BenchArgs, Cpus, EngineArg};
use crate::error::{Error, Outcome, Result};
use crate::output::flags::{
    knob_flag, refuse_for_pytorch, refuse_knobs_not_run, refuse_model_knobs_for_pytorch,
    settings_error,
};
use crate::output::progress::{run_on_pytorch, run_with_progress};
use crate::output::run_view::RunView;
use crate::output::stored::print_stored;
use crate::output::{Out, Render, refuse_existing, wrote};

/// The command line as the benchmark's own settings.
fn settings(args: &BenchArgs) -> Settings {
    Settings {
        producers: args.producer.iter().map(|&p| p.into()).collect(),
        cost_ms: args.cost_ms,
        batch_size: args.batch_size,
        consumer_ms: args.consumer_ms,
        workers: args.workers.clone(),
        batches: args.batches,
        warmup_batches: args.warmup_batches,
        window: args.window.into(),
        more_steps_when_short: false,
        repeat: args.repeat,
        rounds: args.rounds,
        budget_s: Some(args.budget),
        prefetch_factor: args.prefetch_factor,
        cpus: match args.cpus {
            Cpus::All => None,
            Cpus::Count(n) => Some(n),
        },
        worker_kind: args.worker_kind.into(),
        in_order: !args.out_of_order,
        seed: args.seed,
        sample_floats: args.sample_floats,
        timer_slack_ns: args.timer_slack_ns,
        delay_batch: args.delay_batch,
        watchdog_ms: args.watchdog_ms,
        transport: args.transport.into(),
        receive_ms: args.receive_ms,
        send_ms: args.send_ms,
        switch_interval_ms: args.switch_interval_ms,
        python_cost_scale: args.python_cost_scale,
        // The start's own defaults go with the default Python scale; a
        // scale given alone scales the start too, as it always did.
        fork_cost_scale: args
            .fork_cost_scale
            .or_else(|| quiet_defaults(args).then_some(crate::bench::FORK_COST_SCALE)),
        setup_cost_scale: args
            .setup_cost_scale
            .or_else(|| quiet_defaults(args).then_some(crate::bench::SETUP_COST_SCALE)),
    }
}

/// Whether the start's default scales apply: the Python costs at their
/// default, on process workers.
fn quiet_defaults(args: &BenchArgs) -> bool {
    args.python_cost_scale == crate::bench::PYTHON_COST_SCALE
        && crate::bench::WorkerKind::from(args.worker_kind) == crate::bench::WorkerKind::Process
}

/// `bench`
pub fn run(out: &mut Out, project: &Project, args: BenchArgs) -> Result<Outcome> {
    let flags = |e| settings_error(e, |k| Some(knob_flag(k)), "");
    let settings = settings(&args);
    settings.check().map_err(|e| flags(e.into()))?;
    refuse_knobs_not_run(&settings)?;
    if args.engine != EngineArg::Embedded {
        refuse_for_pytorch(&settings)?;
    }
    if args.engine == EngineArg::Pytorch {
        refuse_model_knobs_for_pytorch(&settings)?;
    }
    if args.engine == EngineArg::Both && (args.out.is_some() || args.record) {
        return Err(Error::Usage(
            "--out and --record keep one run; with --engine both there are two".into(),
        ));
    }
    if args.calibrate_to_pytorch {
        if args.engine != EngineArg::Both {
            return Err(Error::Usage(
                "--calibrate-to-pytorch scales the embedded engine to PyTorch's run beside it: use it with --engine both".into(),
            ));
        }
        crate::output::flags::refuse_calibrating_without_workers(&settings)?;
    }
    if args.engine != EngineArg::Both && args.bands.given() {
        return Err(Error::Usage(
            "--ratio-band and --wait-frac-band hold two runs' rows to a band: use them with --engine both (or with `compare`)".into(),
        ));
    }
    if args.engine == EngineArg::Both && args.wide {
        return Err(Error::Usage(
            "--wide adds one run's columns; with --engine both there are two: run each engine on its own with --wide".into(),
        ));
    }
    refuse_existing(args.out.as_deref())?;
    let record_to = record_target(project, &args, &settings)?;
    // No claims to settle: the rounds asked for are enough.
    let decided = &mut |_: &BenchRun| true;
    let run = match args.engine {
        EngineArg::Embedded => run_with_progress(&settings, decided).map_err(flags)?,
        EngineArg::Pytorch => run_on_pytorch(&settings, &args.python, flags, decided)?,
        EngineArg::Both => {
            // PyTorch first: a Python that cannot run it fails before the
            // embedded engine has spent its time.
            // The model's knobs set the embedded half only: PyTorch's run
            // file keeps their defaults, so the two runs differ in them.
            let on_pytorch = settings.as_pytorch_runs_them();
            let pytorch = run_on_pytorch(&on_pytorch, &args.python, flags, decided)?;
            let (settings, calibrated) = if args.calibrate_to_pytorch {
                let (s, factor) = crate::output::flags::calibrated_to(&pytorch, &settings)?;
                (s, Some(factor))
            } else {
                (settings, None)
            };
            let mut embedded = run_with_progress(&settings, decided).map_err(flags)?;
            embedded.calibrated_to_pytorch = calibrated;
            out.emit(
                &BothEngines::new(&pytorch, &embedded, args.bands.bands()),
                args.format.into(),
            )?;
            return Ok(Outcome::Ok);
        }
    };
    out.emit(
        &RunView {
            run: &run,
            wide: args.wide,
        },
        args.format.into(),
    )?;
    if let Some(path) = &args.out {
        crate::app::output_folder::prepare(project.layout(), path)?;
        atomic::write_new(path, run.to_yaml()?.as_bytes())?;
        wrote(path, "run");
    }
    if let Some(chapter) = &record_to {
        print_stored(
            out,
            &record::bench_run(
                project,
                chapter,
                &run,
                "bench --record",
                None,
                incomparable(args.not_comparable),
                None,
            )
            .map_err(not_comparable_hint)?,
        )?;
    }
    Ok(Outcome::Ok)
}

/// The chapter `--record` records against, checked before anything runs:
/// named (or the only one), and, unless `--not-comparable`, one whose tables
/// these settings can be compared with.
fn record_target(
    project: &Project,
    args: &BenchArgs,
    settings: &Settings,
) -> Result<Option<crate::chapter::Chapter>> {
    if !args.record {
        return Ok(None);
    }
    let chapter = project
        .the_chapter(args.chapter.as_deref())
        .map_err(|e| match e {
            Error::SeveralChapters { .. } => Error::Usage(format!("{e}; name one with --chapter")),
            other => other,
        })?;
    if !args.not_comparable
        && let Some(reason) = crate::app::diff::planned_comparability(project, &chapter, settings)?
    {
        return Err(not_comparable_hint(Error::NotComparable {
            what: "a run with these settings".into(),
            chapter: chapter.key.to_string(),
            reason,
        }));
    }
    Ok(Some(chapter))
}

/// `--not-comparable` as the core's word for it.
fn incomparable(allowed: bool) -> record::Incomparable {
    if allowed {
        record::Incomparable::RecordMarked
    } else {
        record::Incomparable::Refuse
    }
}

/// Says which flag records a run that cannot be compared anyway.
fn not_comparable_hint(e: Error) -> Error {
    match e {
        Error::NotComparable { .. } => Error::Usage(format!(
            "{e}; record it anyway with --not-comparable (it is kept, marked, and never shown as the chapter's evidence)"
        )),
        other => other,
    }
}

/// `bench --engine both`: PyTorch's run (A) beside the embedded engine's
/// (B), so that every ratio reads as the model over the reference, and every
/// wait_frac difference as the model's minus PyTorch's. JSON and YAML carry
/// both runs as well.
#[derive(Serialize)]
struct BothEngines<'a> {
    pytorch: &'a BenchRun,
    embedded: &'a BenchRun,
    side_by_side: RunComparison,
}

impl<'a> BothEngines<'a> {
    fn new(pytorch: &'a BenchRun, embedded: &'a BenchRun, bands: compare::Bands) -> Self {
        BothEngines {
            pytorch,
            embedded,
            side_by_side: compare::compare_within("pytorch", pytorch, "embedded", embedded, bands),
        }
    }
}

impl Render for BothEngines<'_> {
    fn text(&self) -> Result<String> {
        Ok(format!(
            "PyTorch's DataLoader (A) beside the embedded engine (B), run back to back\n{}\n{}{}",
            self.side_by_side.text()?,
            labelled("A", &export::footer(self.pytorch)),
            labelled("B", &export::footer(self.embedded))
        ))
    }

    fn markdown(&self) -> Result<String> {
        self.side_by_side.markdown()
    }

    fn csv(&self) -> Result<String> {
        self.side_by_side.csv()
    }
}

/// A run's footer under its letter, its later lines indented to match.
fn labelled(letter: &str, footer: &str) -> String {
    footer
        .lines()
        .enumerate()
        .map(|(i, line)| match i {
            0 => format!("{letter}: {line}\n"),
            _ => format!("   {line}\n"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::ProducerKind;
    use crate::output::Format;

    /// The fixture experiment as the embedded engine recorded it, and as if
    /// PyTorch had measured it: slower at 8 sleeping workers, and waiting
    /// more at 8 spinning ones.
    fn runs() -> (BenchRun, BenchRun) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/records/pytorch-from-first-principles/06")
            .join("20261102T120000-bbbbbbbbbbbb.run.yaml");
        let embedded = BenchRun::load(&path).unwrap();
        let mut pytorch = crate::testing::measured_by_pytorch(embedded.clone());
        for r in pytorch.results.iter_mut().filter(|r| r.workers == 8) {
            match r.producer {
                ProducerKind::Sleep => r.summary.ex_per_s = 2900.0,
                _ => r.summary.wait_frac = 0.17,
            }
        }
        (embedded, pytorch)
    }

    fn printed(format: Format) -> String {
        let (embedded, pytorch) = runs();
        let mut out = Out::in_memory();
        out.emit(
            &BothEngines::new(&pytorch, &embedded, compare::Bands::default()),
            format,
        )
        .unwrap();
        String::from_utf8(out.into_bytes()).unwrap()
    }

    #[test]
    fn both_engines_print_side_by_side_with_ratios_and_differences() {
        let text = printed(Format::Text);
        assert!(text.starts_with("PyTorch's DataLoader (A) beside the embedded engine (B)"));
        // Sleep at 8 workers: the model's ex/s over PyTorch's.
        assert!(text.contains("   2900    3410   x1.18"), "{text}");
        // Spin at 8 workers: the model's wait_frac minus PyTorch's.
        assert!(text.contains("0.17  0.00  -0.17"), "{text}");
        // Each run says how it was measured, under its own letter.
        let footer = |letter: &str| text.lines().rfind(|l| l.starts_with(letter));
        let (a, b) = (footer("A: ").unwrap(), footer("B: ").unwrap());
        assert!(a.contains("measured by the pytorch DataLoader"), "{text}");
        assert!(
            b.contains("process workers") && !b.contains("measured by"),
            "{text}"
        );
        insta::assert_snapshot!(
            [text, printed(Format::Markdown), printed(Format::Csv)].join("\n-----\n")
        );
        let json: serde_json::Value = serde_json::from_str(&printed(Format::Json)).unwrap();
        assert_eq!(json["pytorch"]["reference"]["engine"], "pytorch");
        assert!(json["embedded"]["reference"].is_null());
        let rows = json["side_by_side"]["rows"].as_array().unwrap();
        let sleep8 = rows
            .iter()
            .find(|r| r["producer"] == "sleep" && r["workers"] == 8)
            .unwrap();
        let ratio = sleep8["ex_per_s"]["ratio"].as_f64().unwrap();
        assert!((ratio - 3410.344 / 2900.0).abs() < 1e-3, "{ratio}");
    }
}
