//! `reproduce`: the main job. Run each chapter's experiment as its tables
//! describe it, compare it claim by claim, and record it: one chapter when
//! named, else every chapter whose snapshot publishes tables. A line per
//! chapter comes first, then the details.

use std::fmt::Write as _;

use super::{
    RunView, knob_flag, refuse_existing, refuse_for_pytorch, run_on_pytorch, run_with_progress,
    settings_error,
};
use crate::app::{Project, reproduce};
use crate::bench::{Knob, Settings};
use crate::chapter::Chapter;
use crate::cli::{DocFormat, ReproduceArgs, ReproduceEngineArg};
use crate::error::{Error, Outcome, Result};
use crate::output::{Out, Render, wrote};
use crate::published::{plot, render};
use crate::text::list;

/// Which engine one pass of the experiment runs on.
enum Engine {
    Embedded,
    Pytorch,
}

/// `reproduce`
pub fn run(out: &mut Out, project: &Project, args: ReproduceArgs) -> Result<Outcome> {
    // Only these knobs come from the command line; the others from the
    // chapter's tables.
    let flags = |e| {
        settings_error(
            e,
            |k| matches!(k, Knob::Batches | Knob::Repeat).then(|| knob_flag(k)),
            "the chapter's tables",
        )
    };
    let named = args.chapter.is_some();
    let (chapters, mut problems) = project.chapters_or_all(args.chapter.as_deref())?;
    let mut plans: Vec<(Chapter, Settings)> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    for chapter in chapters {
        match reproduce::settings(project, &chapter) {
            Ok(mut settings) => {
                settings.batches = args.batches;
                settings.repeat = args.repeat;
                settings.worker_kind = args.worker_kind.into();
                settings.check().map_err(|e| flags(e.into()))?;
                if args.engine != ReproduceEngineArg::Embedded {
                    refuse_for_pytorch(&settings)?;
                }
                plans.push((chapter, settings));
            }
            Err(e) if named => return Err(e),
            Err(e) => skipped.push(e.to_string()),
        }
    }
    if plans.is_empty() {
        return Err(Error::Usage(format!(
            "no chapter publishes tables to reproduce{}",
            skipped.iter().map(|s| format!("; {s}")).collect::<String>()
        )));
    }
    if plans.len() > 1 && (args.out.is_some() || args.plot.is_some()) {
        return Err(Error::Usage(
            "--out and --plot write one chapter's run: name the chapter".into(),
        ));
    }
    if args.engine == ReproduceEngineArg::Both && (args.out.is_some() || args.plot.is_some()) {
        return Err(Error::Usage(
            "--out and --plot write one run; with --engine both there are two".into(),
        ));
    }
    let engines = match args.engine {
        ReproduceEngineArg::Embedded => vec![Engine::Embedded],
        ReproduceEngineArg::Pytorch => vec![Engine::Pytorch],
        ReproduceEngineArg::Both => vec![Engine::Embedded, Engine::Pytorch],
    };
    refuse_existing(args.out.as_deref())?;
    refuse_existing(args.plot.as_deref())?;
    let mut summary = Vec::new();
    let mut details = String::new();
    let mut failed = false;
    let mut json: Vec<serde_json::Value> = Vec::new();
    for (chapter, settings) in &plans {
        eprintln!(
            "reproducing {}: producers {}, {} ms/sample, batch {}, consumer {} ms, workers {}, {} CPU(s), {} batches",
            chapter.key,
            list(&settings.producers),
            settings.cost_ms,
            settings.batch_size,
            settings.consumer_ms,
            list(&settings.workers),
            settings.cpus.map_or("all".to_string(), |n| n.to_string()),
            settings.batches
        );
        let mut measured: Vec<crate::bench::BenchRun> = Vec::new();
        for engine in &engines {
            let run = match engine {
                Engine::Embedded => run_with_progress(settings).map_err(flags)?,
                Engine::Pytorch => run_on_pytorch(settings, &args.python, flags)?,
            };
            let source = (!args.no_record).then_some(match engine {
                Engine::Embedded => "reproduce",
                Engine::Pytorch => "reproduce --engine pytorch",
            });
            let done = reproduce::conclude(project, chapter, &run, source)?;
            let comparison = &done.compared.comparison;
            failed |= comparison.any_not_reproduced();
            let recorded = done
                .stored
                .as_ref()
                .map_or("not recorded".to_string(), |s| {
                    format!("recorded {}", s.record.run_id)
                });
            let engine_word = match engine {
                Engine::Embedded => "",
                Engine::Pytorch => " on PyTorch",
            };
            summary.push(format!(
                "{}{engine_word}  {}  ({recorded})",
                chapter.key,
                render::verdict_summary(comparison)
            ));
            json.push(serde_json::json!({
                "chapter": chapter.key.to_string(),
                "engine": run.reference.as_ref().map_or("embedded", |r| r.engine.as_str()),
                "summary": render::verdict_summary(comparison),
                "recorded": done.stored.as_ref().map(|s| s.record.run_id.to_string()),
                "comparison": comparison,
            }));
            if plans.len() > 1 {
                let _ = writeln!(details, "\n== {} ==", chapter.key);
            }
            // Verdicts first, then the measured tables, then the cells if asked.
            details.push_str(&super::evidence_line(&run));
            details.push_str(&render::claims_text(comparison));
            details.push('\n');
            details.push_str(
                &RunView {
                    run: &run,
                    wide: args.wide,
                }
                .text()?,
            );
            if args.cells {
                details.push('\n');
                details.push_str(&render::cells_text(comparison));
            }
            details.push_str(&render::audit_text(comparison));
            if let Some(path) = &args.out {
                crate::atomic::write_new(path, run.to_yaml()?.as_bytes())?;
                wrote(path, "run");
            }
            if let Some(path) = &args.plot {
                plot::write(path, &done.compared.tables, &run)?;
                wrote(path, "plot");
            }
            if let Some(stored) = &done.stored {
                let _ = writeln!(
                    details,
                    "recorded {} ({})",
                    stored.record.run_id,
                    stored.path.display()
                );
            }
            measured.push(run);
        }
        if let [embedded, pytorch] = measured.as_slice() {
            let view =
                crate::app::side_by_side::side_by_side("embedded", embedded, "pytorch", pytorch);
            details.push_str("\nThe embedded engine (A) beside PyTorch's DataLoader (B)\n");
            details.push_str(&view.text()?);
        }
    }
    for s in &skipped {
        summary.push(format!("skipped: {s}"));
    }
    match args.format {
        DocFormat::Json => {
            let doc = serde_json::json!({ "chapters": json, "skipped": skipped });
            out.line(
                serde_json::to_string_pretty(&doc)
                    .map_err(|e| Error::Other(format!("cannot write JSON: {e}")))?,
            )?;
        }
        DocFormat::Text => {
            out.line(summary.join("\n"))?;
            out.line("")?;
            out.write(&details)?;
        }
    }
    // A claim NOT_REPRODUCED is in the output already; broken chapters are
    // reported as problems.
    Ok(if failed || !problems.is_empty() {
        Outcome::CheckFailed(std::mem::take(&mut problems))
    } else {
        Outcome::Ok
    })
}
