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
use crate::published::verdict::Plain;
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
            failed |= done.diffed.diff.any_not_reproduced();
            let (line, entry, text) = run_report(
                chapter,
                engine,
                &run,
                &done,
                plans.len() > 1,
                args.wide,
                args.cells,
            )?;
            summary.push(line);
            json.push(entry);
            details.push_str(&text);
            if let Some(path) = &args.out {
                crate::atomic::write_new(path, run.to_yaml()?.as_bytes())?;
                wrote(path, "run");
            }
            if let Some(path) = &args.plot {
                plot::write(path, &done.diffed.tables, &run)?;
                wrote(path, "plot");
            }
            if let Some(stored) = &done.stored {
                details.push_str(&recorded_line(stored));
            }
            measured.push(run);
        }
        if let [embedded, pytorch] = measured.as_slice() {
            details.push_str(&side_by_side_text(embedded, pytorch)?);
        }
    }
    out.write(&printed(args.format, summary, json, &details, &skipped)?)?;
    // A claim NOT_REPRODUCED is in the output already; broken chapters are
    // reported as problems.
    Ok(if failed || !problems.is_empty() {
        Outcome::CheckFailed(std::mem::take(&mut problems))
    } else {
        Outcome::Ok
    })
}

/// One run of one chapter as `reproduce` prints it: its summary line, its
/// entry in the JSON, and its details (verdicts first, then the measured
/// tables, then the cells if asked, then the audit); `several` when more
/// than one chapter is reproduced.
fn run_report(
    chapter: &Chapter,
    engine: &Engine,
    run: &crate::bench::BenchRun,
    done: &reproduce::Reproduced,
    several: bool,
    wide: bool,
    cells: bool,
) -> Result<(String, serde_json::Value, String)> {
    let found = &done.diffed.diff;
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
    let line = format!(
        "{}{engine_word}  {}  ({recorded})",
        chapter.key,
        render::verdict_summary(found, &Plain)
    );
    let entry = serde_json::json!({
        "chapter": chapter.key.to_string(),
        "engine": run.reference.as_ref().map_or("embedded", |r| r.engine.as_str()),
        "summary": render::verdict_summary(found, &Plain),
        "recorded": done.stored.as_ref().map(|s| s.record.run_id.to_string()),
        "comparison": found,
    });
    let mut details = String::new();
    if several {
        let _ = writeln!(details, "\n== {} ==", chapter.key);
    }
    details.push_str(&super::evidence_line(run));
    details.push_str(&render::claims_text(found, &Plain));
    details.push('\n');
    details.push_str(&RunView { run, wide }.text()?);
    if cells {
        details.push('\n');
        details.push_str(&render::cells_text(found));
    }
    details.push_str(&render::audit_text(found));
    Ok((line, entry, details))
}

/// Where a run was recorded, as the details end it.
fn recorded_line(stored: &crate::app::record::Stored) -> String {
    format!(
        "recorded {} ({})\n",
        stored.record.run_id,
        stored.path.display()
    )
}

/// The two engines' runs of one chapter side by side.
fn side_by_side_text(
    embedded: &crate::bench::BenchRun,
    pytorch: &crate::bench::BenchRun,
) -> Result<String> {
    let view = crate::app::compare::compare_runs("embedded", embedded, "pytorch", pytorch);
    Ok(format!(
        "\nThe embedded engine (A) beside PyTorch's DataLoader (B)\n{}",
        view.text()?
    ))
}

/// Everything `reproduce` prints on standard output.
fn printed(
    format: DocFormat,
    mut summary: Vec<String>,
    json: Vec<serde_json::Value>,
    details: &str,
    skipped: &[String],
) -> Result<String> {
    for s in skipped {
        summary.push(format!("skipped: {s}"));
    }
    Ok(match format {
        DocFormat::Json => {
            let doc = serde_json::json!({ "chapters": json, "skipped": skipped });
            serde_json::to_string_pretty(&doc)
                .map_err(|e| Error::Other(format!("cannot write JSON: {e}")))?
                + "\n"
        }
        DocFormat::Text => format!("{}\n\n{details}", summary.join("\n")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::record::Stored;
    use crate::bench::{BenchRun, ProducerKind};

    fn project() -> Project {
        Project::open(crate::testing::repo_layout()).unwrap()
    }

    fn fixture(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/records/pytorch-from-first-principles/06")
            .join(name)
    }

    /// The recorded run of the fixture experiment (the embedded engine's).
    fn recorded_run() -> BenchRun {
        BenchRun::load(&fixture("20261102T120000-bbbbbbbbbbbb.run.yaml")).unwrap()
    }

    /// The same run as if PyTorch had measured it, with a sleep producer that
    /// does not scale and a wait that vanishes.
    fn pytorch_run() -> BenchRun {
        let mut run = recorded_run();
        run.reference = Some(crate::bench::reference::Reference {
            engine: "pytorch".into(),
            python: "3.11.7".into(),
            torch: "2.15.0".into(),
            sharing_strategy: "file_descriptor".into(),
            start_method: "fork".into(),
        });
        for r in run.results.iter_mut().filter(|r| r.workers == 8) {
            match r.producer {
                ProducerKind::Sleep => r.summary.ex_per_s = 420.0,
                _ => r.summary.wait_mean_ms = 0.2,
            }
        }
        run
    }

    /// A record of the run, as if `reproduce` had just stored it.
    fn stored() -> Stored {
        let path = fixture("20261102T120000-bbbbbbbbbbbb.record.yaml");
        Stored {
            record: crate::yaml_io::read(&path).unwrap(),
            path:
                "records/pytorch-from-first-principles/06/20261102T120000-bbbbbbbbbbbb.record.yaml"
                    .into(),
        }
    }

    /// What `reproduce` prints for each format, from fixed runs: one
    /// chapter on the embedded engine, not recorded; and (as if two chapters
    /// were reproduced and one skipped) both engines, recorded, side by
    /// side, with the cells and the wide columns.
    fn outputs(format: DocFormat) -> Vec<String> {
        let project = project();
        let chapter = project.chapter("pytorch-from-first-principles/06").unwrap();
        let one = {
            let run = recorded_run();
            let done = reproduce::conclude(&project, &chapter, &run, None).unwrap();
            let (line, entry, details) = run_report(
                &chapter,
                &Engine::Embedded,
                &run,
                &done,
                false,
                false,
                false,
            )
            .unwrap();
            printed(format, vec![line], vec![entry], &details, &[]).unwrap()
        };
        let (mut summary, mut json, mut details) = (Vec::new(), Vec::new(), String::new());
        for _ in 0..2 {
            let runs = [
                (Engine::Embedded, recorded_run()),
                (Engine::Pytorch, pytorch_run()),
            ];
            for (engine, run) in &runs {
                let mut done = reproduce::conclude(&project, &chapter, run, None).unwrap();
                done.stored = Some(stored());
                let (line, entry, text) =
                    run_report(&chapter, engine, run, &done, true, true, true).unwrap();
                summary.push(line);
                json.push(entry);
                details.push_str(&text);
                details.push_str(&recorded_line(done.stored.as_ref().unwrap()));
            }
            details.push_str(&side_by_side_text(&runs[0].1, &runs[1].1).unwrap());
        }
        let skipped = ["other/01: the current snapshot holds no published tables".to_string()];
        let several = printed(format, summary, json, &details, &skipped).unwrap();
        vec![one, several]
    }

    #[test]
    fn reproduce_prints_text_as_it_did() {
        insta::assert_snapshot!(outputs(DocFormat::Text).join("\n-----\n"));
    }

    #[test]
    fn reproduce_prints_json_as_it_did() {
        insta::assert_snapshot!(outputs(DocFormat::Json).join("\n-----\n"));
    }
}
