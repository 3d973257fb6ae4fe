//! Building new records: the revision a run examined, the evidence it keeps,
//! and where it was made.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use super::store::{self, PLACEHOLDER_STEM, REPORT_SUFFIX, RUN_SUFFIX};
use super::{
    ExperimentInfo, RECORD_SCHEMA, Record, ReportInfo, Revision, RunId, RunKind, StoredVerdict,
    report,
};
use crate::bench::BenchRun;
use crate::chapter::normalize::hex;
use crate::chapter::{self, Chapter};
use crate::env::Environment;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::provenance::GitProvenance;

/// The chapter's current snapshot as a revision.
pub fn current_revision(chapter: &Chapter) -> Revision {
    let c = chapter.manifest.current();
    Revision {
        snapshot: c.file.clone(),
        fingerprint: c.fingerprint.clone(),
        scope: c.scope,
    }
}

/// The revision named by `spec`: a fingerprint (`prose-v1:<hex>` or bare hex)
/// or a unique prefix of one, or a stored snapshot file (as listed in
/// chapter.yaml, or a path to it).
pub fn resolve_revision(layout: &Layout, chapter: &Chapter, spec: &str) -> Result<Revision> {
    let snaps = &chapter.manifest.snapshots;
    let as_revision = |s: &chapter::SnapshotEntry| Revision {
        snapshot: s.file.clone(),
        fingerprint: s.fingerprint.clone(),
        scope: s.scope,
    };
    let chapter_dir = layout.chapter_dir(&chapter.key);
    let by_file = snaps.iter().find(|s| {
        s.file == spec
            || Path::new(spec).canonicalize().ok().is_some_and(|p| {
                chapter_dir.join(&s.file).canonicalize().ok().as_deref() == Some(p.as_path())
            })
    });
    if let Some(s) = by_file {
        return Ok(as_revision(s));
    }
    let hexpart = spec
        .strip_prefix("prose-v1:")
        .unwrap_or(spec)
        .to_ascii_lowercase();
    if hexpart.len() >= 4 && hexpart.bytes().all(|b| b.is_ascii_hexdigit()) {
        let matches: Vec<_> = snaps
            .iter()
            .filter(|s| s.fingerprint.value.starts_with(&hexpart))
            .collect();
        match matches.as_slice() {
            [one] => return Ok(as_revision(one)),
            [] => {}
            many => {
                let mut fps: Vec<&str> = many.iter().map(|s| s.fingerprint.short()).collect();
                fps.dedup();
                if fps.len() == 1 {
                    return Ok(as_revision(many[many.len() - 1]));
                }
                return Err(Error::Usage(format!(
                    "--revision {spec} is ambiguous: {}",
                    fps.join(", ")
                )));
            }
        }
    }
    Err(Error::Usage(format!(
        "--revision {spec}: no stored snapshot of {} has that fingerprint or file name (see `chapter show {}`)",
        chapter.key, chapter.key
    )))
}

/// What a research record needs besides the chapter.
pub struct ResearchInput {
    pub revision: Revision,
    pub report_path: PathBuf,
    pub note: Option<String>,
    pub previous: Option<RunId>,
    pub environment: Environment,
    pub git: GitProvenance,
    pub now: DateTime<Utc>,
}

/// Reads a report that must exist, be UTF-8 and not be empty.
pub fn read_report(path: &Path) -> Result<String> {
    let text = crate::text::read_utf8(path)?;
    if text.trim().is_empty() {
        return Err(Error::invalid(path, "the report is empty"));
    }
    Ok(text)
}

fn placeholder_id(chapter: &Chapter, now: DateTime<Utc>) -> RunId {
    RunId::new(&chapter.key, now, "000000000000")
}

/// Stores a research run and a copy of its report.
pub fn record_research(
    layout: &Layout,
    chapter: &Chapter,
    input: ResearchInput,
    report_text: &str,
) -> Result<(PathBuf, Record)> {
    let check = report::check(report_text);
    let sha = hex(&Sha256::digest(report_text.as_bytes()));
    store::store(layout, &chapter.key, |nonce| {
        let file = format!("{PLACEHOLDER_STEM}{REPORT_SUFFIX}");
        let record = Record {
            schema: RECORD_SCHEMA.into(),
            run_id: placeholder_id(chapter, input.now),
            kind: RunKind::Research,
            recorded_at: input.now,
            revision: input.revision.clone(),
            previous_run_id: input.previous.clone(),
            note: input.note.clone(),
            report: Some(ReportInfo {
                file: file.clone(),
                source: input.report_path.display().to_string(),
                sha256: sha.clone(),
                bytes: report_text.len() as u64,
                complete: check.complete(),
                check: check.clone(),
            }),
            experiment: None,
            environment: input.environment.clone(),
            git: input.git.clone(),
            nonce: nonce.to_string(),
        };
        Ok((record, vec![(file, report_text.as_bytes().to_vec())]))
    })
}

/// What an experiment record needs besides the chapter.
pub struct ExperimentInput {
    pub revision: Revision,
    /// Where the run came from (a file path, or `bench --record`).
    pub source: String,
    pub run: BenchRun,
    /// The run file's bytes, stored beside the record.
    pub run_bytes: Vec<u8>,
    pub verdicts: Vec<StoredVerdict>,
    pub note: Option<String>,
    pub previous: Option<RunId>,
    pub git: GitProvenance,
    pub now: DateTime<Utc>,
}

/// Stores an experiment run and a copy of its run file.
pub fn record_experiment(
    layout: &Layout,
    chapter: &Chapter,
    input: ExperimentInput,
) -> Result<(PathBuf, Record)> {
    let sha = hex(&Sha256::digest(&input.run_bytes));
    let summary = experiment_summary(&input.run);
    store::store(layout, &chapter.key, |nonce| {
        let file = format!("{PLACEHOLDER_STEM}{RUN_SUFFIX}");
        let record = Record {
            schema: RECORD_SCHEMA.into(),
            run_id: placeholder_id(chapter, input.now),
            kind: RunKind::Experiment,
            recorded_at: input.now,
            revision: input.revision.clone(),
            previous_run_id: input.previous.clone(),
            note: input.note.clone(),
            report: None,
            experiment: Some(ExperimentInfo {
                file: file.clone(),
                source: input.source.clone(),
                sha256: sha.clone(),
                summary: summary.clone(),
                verdicts: input.verdicts.clone(),
            }),
            environment: input.run.environment.clone(),
            git: input.git.clone(),
            nonce: nonce.to_string(),
        };
        Ok((record, vec![(file, input.run_bytes.clone())]))
    })
}

/// One line of what a run showed: each producer's speed-up from the fewest
/// to the most workers, and how it was run.
pub fn experiment_summary(run: &BenchRun) -> String {
    let mut parts = Vec::new();
    for p in &run.settings.producers {
        let rows: Vec<_> = run
            .results
            .iter()
            .filter(|r| r.producer == *p)
            .map(|r| &r.summary)
            .collect();
        let (Some(lo), Some(hi)) = (
            rows.iter().min_by_key(|r| r.workers),
            rows.iter().max_by_key(|r| r.workers),
        ) else {
            continue;
        };
        parts.push(format!(
            "{p} {}->{} workers {:.2}x ({:.0} -> {:.0} ex/s)",
            lo.workers,
            hi.workers,
            hi.ex_per_s / lo.ex_per_s,
            lo.ex_per_s,
            hi.ex_per_s
        ));
    }
    let cpus = match run.settings.cpus {
        Some(n) => format!("{n} CPU"),
        None => format!("{} CPUs", run.cpus_used.len()),
    };
    format!(
        "{}; {cpus}, {} workers",
        parts.join(", "),
        run.settings.worker_kind
    )
}
