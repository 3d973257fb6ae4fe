//! `diff` and `reproduce`: a run against the chapter's published tables.

use super::Context;
use super::records::{latest_of, record_chapter};
use crate::bench::{BenchRun, ProducerKind, Settings};
use crate::chapter::{Chapter, Registry};
use crate::cli::{BenchFormat, DiffArgs, DiffFormat, ReproduceArgs};
use crate::error::{EXIT_CHECK_FAILED, EXIT_OK, Error, Result};
use crate::published::diff::{Comparison, compare};
use crate::published::{plot, read_claims, read_tables, render};
use crate::records::store;
use crate::records::{RunId, RunKind, StoredVerdict};
use crate::yaml_io;

/// Compares `run` with the tables and claims of a chapter snapshot.
pub fn compare_run(
    ctx: &Context,
    chapter: &Chapter,
    snapshot: &str,
    run: &BenchRun,
) -> Result<(Comparison, Vec<crate::published::tables::Table>)> {
    let parsed = read_tables(&ctx.layout, chapter, snapshot)?;
    let claims = read_claims(&ctx.layout, chapter, &parsed)?;
    Ok((
        compare(&parsed.tables, &parsed.malformed, claims.as_ref(), run),
        parsed.tables,
    ))
}

/// Claim verdicts as an experiment record keeps them.
pub fn stored_verdicts(c: &Comparison) -> Vec<StoredVerdict> {
    c.claims
        .iter()
        .map(|r| StoredVerdict {
            claim: r.id.clone(),
            verdict: r.verdict.to_string(),
            measured: r.measured,
            detail: r.reason.clone(),
        })
        .collect()
}

/// Loads a run file and checks its schema.
pub fn load_run(path: &std::path::Path) -> Result<BenchRun> {
    let run: BenchRun = yaml_io::read(path)?;
    if run.schema != crate::bench::RUN_SCHEMA {
        return Err(Error::invalid(
            path,
            format!("not a bench run file (schema '{}')", run.schema),
        ));
    }
    Ok(run)
}

/// The run, the chapter and the snapshot to compare with.
fn select(ctx: &Context, args: &DiffArgs) -> Result<(BenchRun, Chapter, String)> {
    let registry = Registry::open(&ctx.layout)?;
    let from_record = |chapter: Chapter, id: RunId| -> Result<(BenchRun, Chapter, String)> {
        let path = store::record_path(&ctx.layout, &chapter.key, &id);
        let record: crate::records::Record = yaml_io::read(&path)?;
        let exp = record.experiment.ok_or_else(|| {
            Error::Usage(format!(
                "run {id} is a {} run, not an experiment",
                record.kind
            ))
        })?;
        let run = load_run(&store::evidence_path(&ctx.layout, &chapter.key, &exp.file))?;
        Ok((run, chapter, record.revision.snapshot))
    };
    if let Some(file) = &args.run_file {
        let chapter = record_chapter(ctx, args.chapter.as_deref())?;
        let snapshot = chapter.manifest.current_snapshot.clone();
        return Ok((load_run(file)?, chapter, snapshot));
    }
    if let Some(id) = &args.run {
        let id = RunId::parse(id)?;
        let chapter = registry.get(&format!("{}/{}", id.book, id.chapter))?;
        if !store::record_path(&ctx.layout, &chapter.key, &id).is_file() {
            return Err(Error::Usage(format!("--run {id}: no such run is recorded")));
        }
        return from_record(chapter, id);
    }
    let chapter = record_chapter(ctx, args.chapter.as_deref())?;
    let id = latest_of(ctx, &chapter, RunKind::Experiment)?.ok_or_else(|| {
        Error::Usage(format!(
            "--latest: no experiment run is recorded for {}",
            chapter.key
        ))
    })?;
    from_record(chapter, id)
}

/// `diff`
pub fn diff(ctx: &mut Context, args: DiffArgs) -> Result<u8> {
    let (run, chapter, snapshot) = select(ctx, &args)?;
    let (comparison, tables) = compare_run(ctx, &chapter, &snapshot, &run)?;
    if tables.is_empty() {
        return Err(Error::Usage(format!(
            "{}: the snapshot {snapshot} holds no published tables",
            chapter.key
        )));
    }
    match args.format {
        DiffFormat::Table => ctx.out.write(&render::text(&comparison))?,
        DiffFormat::Markdown => ctx.out.write(&render::markdown(&comparison))?,
        DiffFormat::Json => ctx.out.json(&comparison)?,
        DiffFormat::Yaml => ctx.out.yaml(&comparison)?,
    }
    if let Some(path) = &args.plot {
        plot::write(path, &tables, &run)?;
        eprintln!("plot written to {}", path.display());
    }
    Ok(if comparison.any_not_reproduced() {
        EXIT_CHECK_FAILED
    } else {
        EXIT_OK
    })
}

/// The chapter's experiment as its tables describe it: their headers give
/// producer, cost, batch and consumer, their rows the worker counts; the
/// claims' preconditions give the CPUs (1, the chapter's environment).
pub fn preset(ctx: &Context, chapter: &Chapter) -> Result<Settings> {
    let parsed = read_tables(&ctx.layout, chapter, &chapter.manifest.current_snapshot)?;
    let Some(first) = parsed.tables.first() else {
        return Err(Error::Usage(format!(
            "{}: the current snapshot holds no published tables to reproduce",
            chapter.key
        )));
    };
    let mut s = Settings::chapter_defaults();
    s.producers.clear();
    s.workers.clear();
    for t in &parsed.tables {
        let kind: ProducerKind = clap::ValueEnum::from_str(&t.producer, false).map_err(|_| {
            Error::Usage(format!(
                "the chapter's table at {} uses producer '{}', which the benchmark does not have",
                t.location, t.producer
            ))
        })?;
        if t.cost_ms != first.cost_ms
            || t.batch_size != first.batch_size
            || t.consumer_ms != first.consumer_ms
        {
            return Err(Error::Usage(format!(
                "the chapter's tables use different settings ({} and {}); run `bench` for each by hand",
                first.header(),
                t.header()
            )));
        }
        if !s.producers.contains(&kind) {
            s.producers.push(kind);
        }
        for w in t.workers() {
            if !s.workers.contains(&w) {
                s.workers.push(w);
            }
        }
    }
    s.workers.sort();
    s.cost_ms = first.cost_ms;
    s.batch_size = first.batch_size;
    s.consumer_ms = first.consumer_ms;
    if let Some(claims) = read_claims(&ctx.layout, chapter, &parsed)?
        && let Some(n) = claims.claims.iter().find_map(|c| c.preconditions.cpus)
    {
        s.cpus = Some(n);
    }
    Ok(s)
}

/// `reproduce`
pub fn reproduce(ctx: &mut Context, args: ReproduceArgs) -> Result<u8> {
    let registry = Registry::open(&ctx.layout)?;
    let chapter = registry.get(&args.chapter)?;
    let mut settings = preset(ctx, &chapter)?;
    settings.batches = args.batches;
    settings.repeat = args.repeat;
    settings.worker_kind = args.worker_kind;
    if let Some(out) = &args.out
        && out.exists()
    {
        return Err(Error::WouldOverwrite { path: out.clone() });
    }
    eprintln!(
        "reproducing {}: producers {:?}, {} ms/sample, batch {}, consumer {} ms, workers {:?}, {} CPU(s), {} batches",
        chapter.key,
        settings
            .producers
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>(),
        settings.cost_ms,
        settings.batch_size,
        settings.consumer_ms,
        settings.workers,
        settings.cpus.map_or("all".to_string(), |n| n.to_string()),
        settings.batches
    );
    let run = super::bench::run_with_progress(&settings)?;
    super::bench::print_run(ctx, &run, BenchFormat::Text, args.wide)?;
    let snapshot = chapter.manifest.current_snapshot.clone();
    let (comparison, tables) = compare_run(ctx, &chapter, &snapshot, &run)?;
    ctx.out.write("\n")?;
    ctx.out.write(&render::text(&comparison))?;
    if let Some(out) = &args.out {
        super::bench::write_run_file(out, &run)?;
    }
    if let Some(path) = &args.plot {
        plot::write(path, &tables, &run)?;
        eprintln!("plot written to {}", path.display());
    }
    if !args.no_record {
        super::records::record_bench_run(ctx, &chapter, &run, Some(stored_verdicts(&comparison)))?;
    }
    Ok(if comparison.any_not_reproduced() {
        EXIT_CHECK_FAILED
    } else {
        EXIT_OK
    })
}
