//! `prompt` and `report`.

use std::path::Path;

use super::Context;
use crate::atomic;
use crate::chapter::Registry;
use crate::cli::{PromptArgs, ReportArgs};
use crate::error::{EXIT_OK, Error, Result};
use crate::published::diff::ClaimResult;
use crate::published::{plot, read_claims, read_tables};
use crate::records::store;
use crate::records::{Record, RunId, RunKind};
use crate::render::{self, PROMPT_TEMPLATE, REPORT_TEMPLATE, Templates, context};

fn emit(ctx: &mut Context, out: Option<&Path>, text: &str) -> Result<()> {
    match out {
        Some(path) => {
            atomic::write_new(path, text.as_bytes())?;
            eprintln!("wrote {}", path.display());
            Ok(())
        }
        None => ctx.out.write(text),
    }
}

/// `prompt`
pub fn prompt(ctx: &mut Context, args: PromptArgs) -> Result<u8> {
    let templates = Templates::new(args.templates.as_deref())?;
    let registry = Registry::open(&ctx.layout)?;
    let chapter = registry.get(&args.chapter)?;
    if let Some(out) = &args.out
        && out.exists()
    {
        return Err(Error::WouldOverwrite { path: out.clone() });
    }
    let text = crate::text::read_utf8(
        &ctx.layout
            .snapshot_file(&chapter.key, &chapter.manifest.current_snapshot),
    )?;
    let (records, broken) = store::list(&ctx.layout, &chapter.key)?;
    for b in &broken {
        eprintln!("warning: skipping unreadable record: {}", b.error);
    }
    let view = context::prompt(&chapter, &text, args.excerpt_chars, &records);
    let rendered = templates.render(PROMPT_TEMPLATE, &view)?;
    emit(ctx, args.out.as_deref(), &rendered)?;
    Ok(EXIT_OK)
}

/// `report`
pub fn report(ctx: &mut Context, args: ReportArgs) -> Result<u8> {
    let templates = Templates::new(args.templates.as_deref())?;
    let now = render::now()?;
    let registry = Registry::open(&ctx.layout)?;
    let chapter = registry.get(&args.chapter)?;
    if let Some(out) = &args.out
        && out.exists()
    {
        return Err(Error::WouldOverwrite { path: out.clone() });
    }
    let (records, _) = store::list(&ctx.layout, &chapter.key)?;
    let record: Option<Record> = match &args.run {
        Some(id) => {
            let id = RunId::parse(id)?;
            let found = records.iter().find(|r| r.run_id == id).cloned();
            let r = found.ok_or_else(|| {
                Error::Usage(format!(
                    "--run {id}: no such run is recorded for {}",
                    chapter.key
                ))
            })?;
            if r.kind != RunKind::Experiment {
                return Err(Error::Usage(format!(
                    "--run {id}: a {} run, not an experiment",
                    r.kind
                )));
            }
            Some(r)
        }
        None => records
            .iter()
            .find(|r| r.kind == RunKind::Experiment)
            .cloned(),
    };
    let run = match &record {
        Some(r) => {
            let file = r
                .experiment
                .as_ref()
                .map(|e| e.file.as_str())
                .unwrap_or_default();
            Some(super::diff::load_run(&store::evidence_path(
                &ctx.layout,
                &chapter.key,
                file,
            ))?)
        }
        None => None,
    };
    let snapshot = record
        .as_ref()
        .map_or(chapter.manifest.current_snapshot.clone(), |r| {
            r.revision.snapshot.clone()
        });
    let (claims, tables): (Vec<ClaimResult>, _) = match &run {
        Some(run) => {
            let (c, t) = super::diff::compare_run(ctx, &chapter, &snapshot, run)?;
            (c.claims, t)
        }
        None => {
            let parsed = read_tables(&ctx.layout, &chapter, &snapshot)?;
            let claims = read_claims(&ctx.layout, &chapter, &parsed)?;
            let set = crate::published::claims::TableSet::from_published(&parsed.tables);
            let unrun = claims
                .map(|f| {
                    let why = || Some("no experiment run is recorded".to_string());
                    f.claims
                        .iter()
                        .map(|c| crate::published::diff::unrun(c, &set, why()))
                        .collect()
                })
                .unwrap_or_default();
            (unrun, parsed.tables)
        }
    };
    // The plot goes beside the report, named after it.
    let plot_name = match (&args.out, &run) {
        (Some(out), Some(run)) if !tables.is_empty() => {
            let stem = out
                .file_stem()
                .map_or("report".into(), |s| s.to_string_lossy().into_owned());
            let name = format!("{stem}.plot.svg");
            plot::write(&out.with_file_name(&name), &tables, run)?;
            Some(name)
        }
        _ => None,
    };
    let experiment = record.as_ref().zip(run.as_ref());
    let view = context::report(&chapter, &claims, experiment, now, plot_name);
    let rendered = templates.render(REPORT_TEMPLATE, &view)?;
    emit(ctx, args.out.as_deref(), &rendered)?;
    Ok(EXIT_OK)
}
