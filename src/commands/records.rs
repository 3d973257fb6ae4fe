//! `record`, `history`, `status` and `publish`.

use chrono::Utc;

use super::Context;
use crate::bench::BenchRun;
use crate::chapter::{Chapter, Registry};
use crate::cli::{HistoryArgs, ListFormat, PublishArgs, RecordArgs};
use crate::error::{EXIT_CHECK_FAILED, EXIT_OK, Error, Result};
use crate::records::create::{self, RunBasics};
use crate::records::status::{self, Currency};
use crate::records::store::{self, BrokenRecord};
use crate::records::{Record, RunId, RunKind, StoredVerdict, publish as site};
use crate::{atomic, env, provenance, yaml_io};

/// The latest run of `kind` for a chapter, for `--previous`'s default.
pub fn latest_of(ctx: &Context, chapter: &Chapter, kind: RunKind) -> Result<Option<RunId>> {
    let (records, _) = store::list(&ctx.layout, &chapter.key)?;
    Ok(records
        .into_iter()
        .find(|r| r.kind == kind)
        .map(|r| r.run_id))
}

/// Checks `--previous` names a recorded run of the chapter.
fn previous(
    ctx: &Context,
    chapter: &Chapter,
    given: Option<&str>,
    kind: RunKind,
) -> Result<Option<RunId>> {
    let Some(given) = given else {
        return latest_of(ctx, chapter, kind);
    };
    let id = RunId::parse(given)?;
    if !store::record_path(&ctx.layout, &chapter.key, &id).is_file() {
        return Err(Error::Usage(format!(
            "--previous {given}: no such run is recorded for {}",
            chapter.key
        )));
    }
    Ok(Some(id))
}

/// `record`
pub fn record(ctx: &mut Context, args: RecordArgs) -> Result<u8> {
    let registry = Registry::open(&ctx.layout)?;
    let chapter = registry.get(&args.chapter)?;
    let revision = match &args.revision {
        Some(spec) => create::resolve_revision(&ctx.layout, &chapter, spec)?,
        None => create::current_revision(&chapter),
    };
    let kind = if args.report.is_some() {
        RunKind::Research
    } else {
        RunKind::Experiment
    };
    let basics = RunBasics {
        revision,
        note: args.note.clone(),
        previous: previous(ctx, &chapter, args.previous.as_deref(), kind)?,
        git: provenance::collect(ctx.layout.root()),
        now: Utc::now(),
    };
    let (path, record) = if let Some(report_path) = &args.report {
        let text = create::read_report(report_path)?;
        let check = crate::records::report::check(&text);
        if !check.complete() {
            let missing = check.sections_missing.join(", ");
            if args.strict {
                return Err(Error::invalid(
                    report_path,
                    format!("missing required sections (--strict): {missing}"),
                ));
            }
            eprintln!(
                "warning: {}: missing required sections: {missing}",
                report_path.display()
            );
        }
        create::record_research(
            &ctx.layout,
            &chapter,
            &basics,
            &env::collect(),
            report_path,
            &text,
        )?
    } else {
        let run_path = args.run.as_ref().expect("clap requires --report or --run");
        let run = super::diff::load_run(run_path)?;
        let bytes = std::fs::read(run_path).map_err(|e| Error::io(run_path, e))?;
        let verdicts = experiment_verdicts(ctx, &chapter, &basics.revision.snapshot, &run)?;
        let source = run_path.display().to_string();
        create::record_experiment(
            &ctx.layout,
            &chapter,
            &basics,
            &source,
            &run,
            &bytes,
            verdicts,
        )?
    };
    report_stored(ctx, &path, &record)?;
    if args.commit {
        commit(ctx, &chapter, &record)?;
    }
    Ok(EXIT_OK)
}

/// Claim verdicts for an experiment against the revision it is compared
/// with; none when that snapshot has no tables.
pub fn experiment_verdicts(
    ctx: &Context,
    chapter: &Chapter,
    snapshot: &str,
    run: &BenchRun,
) -> Result<Vec<StoredVerdict>> {
    let (comparison, _) = super::diff::compare_run(ctx, chapter, snapshot, run)?;
    Ok(super::diff::stored_verdicts(&comparison))
}

fn report_stored(ctx: &mut Context, path: &std::path::Path, record: &Record) -> Result<()> {
    ctx.out
        .line(format!("recorded {} ({})", record.run_id, record.kind))?;
    ctx.out.line(format!("  file:     {}", path.display()))?;
    ctx.out.line(format!(
        "  revision: {} ({}, {})",
        record.revision.fingerprint, record.revision.snapshot, record.revision.scope
    ))?;
    if let Some(r) = &record.report {
        ctx.out.line(format!(
            "  report:   {} of 7 sections, {} claim-audit rows, {} source-ledger rows, {} UNVERIFIED, {} UNRUN",
            r.check.sections_present.len(),
            r.check.claim_audit_rows,
            r.check.source_ledger_rows,
            r.check.unverified_markers,
            r.check.unrun_markers
        ))?;
    }
    if let Some(e) = &record.experiment {
        ctx.out.line(format!("  result:   {}", e.summary))?;
    }
    if !record.git.available {
        ctx.out.line(format!(
            "  git:      {}",
            record.git.note.as_deref().unwrap_or("not available")
        ))?;
    }
    Ok(())
}

/// Commits a stored record of `chapter` and its evidence.
pub fn commit(ctx: &mut Context, chapter: &Chapter, record: &Record) -> Result<()> {
    let files = store::record_files(&ctx.layout, &chapter.key, record);
    let message = format!("Record {} run {}", record.kind, record.run_id);
    let id = provenance::commit_files(ctx.layout.root(), &files, &message)?;
    ctx.out.line(format!("  commit:   {id}"))
}

/// The chapter `bench --record` records against: the one named, or the only
/// one registered. Resolved before the benchmark runs.
pub fn record_chapter(ctx: &Context, query: Option<&str>) -> Result<Chapter> {
    let registry = Registry::open(&ctx.layout)?;
    match query {
        Some(q) => registry.get(q),
        None => match registry.keys() {
            [only] => registry.load(only),
            [] => Err(Error::Usage("--record: no chapters are registered".into())),
            _ => Err(Error::Usage(
                "--record: several chapters are registered; name one with --chapter".into(),
            )),
        },
    }
}

/// Stores an experiment record for a run just made (`bench --record`,
/// `reproduce`), compared with the chapter's current snapshot; `verdicts`
/// are that comparison's when the caller already made it.
pub fn record_bench_run(
    ctx: &mut Context,
    chapter: &Chapter,
    run: &BenchRun,
    verdicts: Option<Vec<StoredVerdict>>,
) -> Result<()> {
    let bytes = yaml_io::to_string(run)?.into_bytes();
    let basics = RunBasics {
        revision: create::current_revision(chapter),
        note: None,
        previous: latest_of(ctx, chapter, RunKind::Experiment)?,
        git: provenance::collect(ctx.layout.root()),
        now: Utc::now(),
    };
    let verdicts = match verdicts {
        Some(v) => v,
        None => experiment_verdicts(ctx, chapter, &chapter.manifest.current_snapshot, run)?,
    };
    let (path, record) = create::record_experiment(
        &ctx.layout,
        chapter,
        &basics,
        "bench --record",
        run,
        &bytes,
        verdicts,
    )?;
    report_stored(ctx, &path, &record)
}

/// Chapters named, or all of them.
fn chapters(ctx: &Context, query: Option<&str>) -> Result<Vec<Chapter>> {
    let registry = Registry::open(&ctx.layout)?;
    match query {
        Some(q) => Ok(vec![registry.get(q)?]),
        None => registry
            .require_keys()?
            .iter()
            .map(|k| registry.load(k))
            .collect(),
    }
}

fn report_broken(broken: &[BrokenRecord]) {
    for b in broken {
        eprintln!("research_companion: error: unreadable record: {}", b.error);
    }
}

/// `history`
pub fn history(ctx: &mut Context, args: HistoryArgs) -> Result<u8> {
    let mut all = Vec::new();
    let mut broken = Vec::new();
    for ch in chapters(ctx, args.chapter.as_deref())? {
        let (records, bad) = store::list(&ctx.layout, &ch.key)?;
        broken.extend(bad);
        all.push((
            ch.key_str(),
            ch.manifest.chapter.title.clone(),
            status::history(&ch, &records),
        ));
    }
    report_broken(&broken);
    match args.format {
        ListFormat::Json | ListFormat::Yaml => {
            #[derive(serde::Serialize)]
            struct ChapterHistory<'a> {
                chapter: &'a str,
                runs: &'a [status::HistoryEntry],
            }
            let view: Vec<ChapterHistory<'_>> = all
                .iter()
                .map(|(c, _, runs)| ChapterHistory { chapter: c, runs })
                .collect();
            if args.format == ListFormat::Json {
                ctx.out.json(&view)?
            } else {
                ctx.out.yaml(&view)?
            }
        }
        ListFormat::Text => {
            let mut text = String::new();
            for (chapter, title, runs) in &all {
                text.push_str(&format!("{chapter}  {title}\n"));
                if runs.is_empty() {
                    text.push_str("  no runs recorded\n");
                }
                for e in runs {
                    let state = match e.currency {
                        Currency::Current => "CURRENT",
                        Currency::Stale => "STALE",
                    };
                    let detail = match (&e.report_complete, &e.result) {
                        (Some(true), _) => "report: all 7 sections".to_string(),
                        (Some(false), _) => "report: MISSING SECTIONS".to_string(),
                        (None, Some(r)) => r.clone(),
                        (None, None) => String::new(),
                    };
                    text.push_str(&format!(
                        "  {}  {:<10}  {}  {}  {:<7}  {detail}\n",
                        e.run_id,
                        e.kind,
                        e.recorded_at.format("%Y-%m-%d %H:%M UTC"),
                        e.revision,
                        state
                    ));
                }
            }
            ctx.out.write(&text)?;
        }
    }
    Ok(if broken.is_empty() {
        EXIT_OK
    } else {
        EXIT_CHECK_FAILED
    })
}

/// `status`
pub fn status(ctx: &mut Context, args: HistoryArgs) -> Result<u8> {
    let mut lines = Vec::new();
    let mut broken = Vec::new();
    for ch in chapters(ctx, args.chapter.as_deref())? {
        let (records, bad) = store::list(&ctx.layout, &ch.key)?;
        broken.extend(bad);
        lines.push(status::chapter_status(&ch, &records));
    }
    report_broken(&broken);
    match args.format {
        ListFormat::Json => ctx.out.json(&lines)?,
        ListFormat::Yaml => ctx.out.yaml(&lines)?,
        ListFormat::Text => {
            for s in &lines {
                let state = serde_json::to_value(s.state).expect("state serializes");
                let mut line = format!(
                    "{}  {}  {}",
                    s.chapter,
                    state.as_str().unwrap_or_default(),
                    s.label
                );
                for r in &s.stale_reasons {
                    line.push_str(&format!(" (Changed: {r})"));
                }
                line.push_str(&format!(
                    "  · {} research run{}, {} experiment run{} · last researched: {}",
                    s.research_runs,
                    if s.research_runs == 1 { "" } else { "s" },
                    s.experiment_runs,
                    if s.experiment_runs == 1 { "" } else { "s" },
                    s.last_researched
                        .map(|t| t.format("%Y-%m-%d").to_string())
                        .unwrap_or_else(|| "never".into())
                ));
                ctx.out.line(line)?;
            }
        }
    }
    Ok(if broken.is_empty() {
        EXIT_OK
    } else {
        EXIT_CHECK_FAILED
    })
}

/// `publish`
pub fn publish(ctx: &mut Context, args: PublishArgs) -> Result<u8> {
    let registry = Registry::open(&ctx.layout)?;
    let chapter = registry.get(&args.chapter)?;
    let (records, broken) = store::list(&ctx.layout, &chapter.key)?;
    if !broken.is_empty() {
        report_broken(&broken);
        return Err(Error::Other(
            "publish: fix or remove the unreadable records first".into(),
        ));
    }
    let text = yaml_io::to_string(&site::build(&chapter, &records))?;
    match &args.out {
        Some(path) => {
            atomic::write_new(path, text.as_bytes())?;
            eprintln!("wrote {}", path.display());
        }
        None => ctx.out.write(&text)?,
    }
    Ok(EXIT_OK)
}
