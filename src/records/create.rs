//! Building new records: the revision a run examined, the evidence it keeps,
//! and where it was made.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use super::store;
use super::{
    ExperimentInfo, RECORD_SCHEMA, Record, ReportInfo, Revision, RunKind, StoredVerdict, report,
};
use crate::bench::BenchRun;
use crate::chapter::{self, Chapter};
use crate::env::Environment;
use crate::error::{Error, Result};
use crate::ids::RunId;
use crate::layout::{Evidence, Layout};
use crate::provenance::GitProvenance;
use crate::text::format::hex;

/// The chapter's current snapshot as a revision.
pub fn current_revision(chapter: &Chapter) -> Revision {
    let c = chapter.state.current();
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
    let snaps = &chapter.state.snapshots;
    let as_revision = |s: &chapter::SnapshotEntry| Revision {
        snapshot: s.file.clone(),
        fingerprint: s.fingerprint.clone(),
        scope: s.scope,
    };
    let by_file = snaps.iter().find(|s| {
        s.file == spec
            || Path::new(spec).canonicalize().ok().is_some_and(|p| {
                let stored = layout.snapshot_file(&chapter.key, &s.file);
                stored.canonicalize().ok().as_deref() == Some(p.as_path())
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
                    "revision '{spec}' is ambiguous: {}",
                    fps.join(", ")
                )));
            }
        }
    }
    Err(Error::Usage(format!(
        "revision '{spec}': no stored snapshot of {} has that fingerprint or file name (see `chapter show {}`)",
        chapter.key, chapter.key
    )))
}

/// What every new record needs besides the chapter and its evidence.
pub struct RunBasics {
    /// The revision the run examined.
    pub revision: Revision,
    pub note: Option<String>,
    pub previous: Option<RunId>,
    pub git: GitProvenance,
    pub now: DateTime<Utc>,
}

impl RunBasics {
    /// A record of `kind` with these fields; the store replaces the
    /// placeholder run id with one derived from the content.
    fn record(
        &self,
        chapter: &Chapter,
        kind: RunKind,
        environment: &Environment,
        nonce: &str,
    ) -> Record {
        Record {
            schema: RECORD_SCHEMA.into(),
            run_id: RunId::new(&chapter.key, self.now, "000000000000"),
            kind,
            recorded_at: self.now,
            revision: self.revision.clone(),
            previous_run_id: self.previous.clone(),
            note: self.note.clone(),
            report: None,
            experiment: None,
            notebook: None,
            environment: environment.clone(),
            git: self.git.clone(),
            nonce: nonce.to_string(),
            retraction: None,
        }
    }
}

/// Reads a report that must exist, be UTF-8 and not be empty.
pub fn read_report(path: &Path) -> Result<String> {
    let text = crate::text::read::read_utf8(path)?;
    if text.trim().is_empty() {
        return Err(Error::invalid(path, "the report is empty"));
    }
    Ok(text)
}

/// Stores a research run and a copy of its report, with the environment the
/// research was recorded in; `source` names the report the way a record
/// shows it (see `Layout::portable_source`).
pub fn record_research(
    layout: &Layout,
    chapter: &Chapter,
    basics: &RunBasics,
    environment: &Environment,
    source: &str,
    report_text: &str,
    draft: bool,
) -> Result<(PathBuf, Record)> {
    let check = report::check(report_text);
    let sha = hex(&Sha256::digest(report_text.as_bytes()));
    store::store(layout, &chapter.key, |nonce| {
        let mut record = basics.record(chapter, RunKind::Research, environment, nonce);
        record.report = Some(ReportInfo {
            file: String::new(),
            source: source.to_string(),
            sha256: sha.clone(),
            bytes: report_text.len() as u64,
            complete: check.complete(),
            draft,
            check: check.clone(),
        });
        Ok((
            record,
            vec![(Evidence::Report, report_text.as_bytes().to_vec())],
        ))
    })
}

/// What comparing a run with the chapter found, as its record keeps it.
#[derive(Debug, Clone, Default)]
pub struct Compared {
    /// Each claim's verdict.
    pub verdicts: Vec<StoredVerdict>,
    /// Why the run cannot be compared with the chapter's tables, when it
    /// is recorded anyway.
    pub not_comparable: Option<String>,
}

/// Stores an experiment run and a copy of its run file, with the
/// environment the run was measured in. `source` says where the run came
/// from (a file path, or `bench --record`). `notebook`: the run of the
/// chapter's notebook made beside it (`reproduce` with its notebook
/// claims), kept as a second evidence file under the same stem, so one
/// record holds the pipeline's verdicts and the notebook's claims.
#[allow(clippy::too_many_arguments)]
pub fn record_experiment(
    layout: &Layout,
    chapter: &Chapter,
    basics: &RunBasics,
    source: &str,
    run: &BenchRun,
    run_bytes: &[u8],
    compared: Compared,
    notebook: Option<&crate::notebook::NotebookRunFile>,
) -> Result<(PathBuf, Record)> {
    let sha = hex(&Sha256::digest(run_bytes));
    let summary = experiment_summary(run);
    let notebook = match notebook {
        Some(nb) => {
            let bytes = nb.to_yaml()?.into_bytes();
            let info = crate::notebook::NotebookInfo::of(nb, hex(&Sha256::digest(&bytes)));
            Some((info, bytes))
        }
        None => None,
    };
    store::store(layout, &chapter.key, |nonce| {
        let mut record = basics.record(chapter, RunKind::Experiment, &run.environment, nonce);
        record.experiment = Some(ExperimentInfo {
            file: String::new(),
            source: source.to_string(),
            sha256: sha.clone(),
            summary: summary.clone(),
            verdicts: compared.verdicts.clone(),
            not_comparable: compared.not_comparable.clone(),
            load: super::RunLoad::of(run),
            measured_by: Some(super::Measurement::of(run)),
        });
        let mut evidence = vec![(Evidence::Run, run_bytes.to_vec())];
        if let Some((info, bytes)) = &notebook {
            record.notebook = Some(info.clone());
            evidence.push((Evidence::NotebookRun, bytes.clone()));
        }
        Ok((record, evidence))
    })
}

/// Stores a notebook run and its run file, with the environment it ran in.
pub fn record_notebook(
    layout: &Layout,
    chapter: &Chapter,
    basics: &RunBasics,
    run: &crate::notebook::NotebookRunFile,
) -> Result<(PathBuf, Record)> {
    let bytes = run.to_yaml()?.into_bytes();
    let info = crate::notebook::NotebookInfo::of(run, hex(&Sha256::digest(&bytes)));
    store::store(layout, &chapter.key, |nonce| {
        let mut record = basics.record(chapter, RunKind::Notebook, &run.environment, nonce);
        record.notebook = Some(info.clone());
        Ok((record, vec![(Evidence::NotebookRun, bytes.clone())]))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{chapter06, repo_layout};

    const HEX: &str = "a7d34947a6b4";

    #[test]
    fn a_revision_is_found_by_file_fingerprint_or_prefix() {
        let (layout, ch) = (repo_layout(), chapter06());
        let full = ch.state.current().fingerprint.value.clone();
        for spec in [
            "snapshots/0001-a7d34947a6b4.txt".to_string(),
            full.clone(),
            format!("prose-v1:{full}"),
            HEX.to_string(),
            HEX[..4].to_uppercase(),
        ] {
            let r = resolve_revision(&layout, &ch, &spec).unwrap();
            assert_eq!(r.fingerprint.value, full, "{spec}");
            assert_eq!(r.snapshot, "snapshots/0001-a7d34947a6b4.txt");
        }
        // A path to the stored file names it too.
        let path = layout.snapshot_file(&ch.key, "snapshots/0001-a7d34947a6b4.txt");
        assert!(resolve_revision(&layout, &ch, path.to_str().unwrap()).is_ok());
    }

    #[test]
    fn an_unknown_or_too_short_revision_is_refused_naming_it() {
        let (layout, ch) = (repo_layout(), chapter06());
        for spec in ["ffff", "a7d", "snapshots/0002.txt", ""] {
            let err = resolve_revision(&layout, &ch, spec)
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with(&format!("revision '{spec}': no stored snapshot")),
                "{err}"
            );
        }
    }

    #[test]
    fn the_summary_gives_each_producers_speed_up() {
        let tables = crate::testing::chapter06_tables();
        let run = crate::testing::run_like(&tables, 1);
        assert_eq!(
            experiment_summary(&run),
            "sleep 0->8 workers 7.36x (414 -> 3049 ex/s), spin 0->8 workers 0.99x (454 -> 449 ex/s); 1 CPU, process workers"
        );
    }
}
