//! The record store on disk. Every write goes through `atomic::write_new`, so
//! a record is either wholly there or not at all, and never replaced; readers
//! skip temporary files and sweep old ones away.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::{Record, RunId};
use crate::atomic;
use crate::chapter::ChapterKey;
use crate::chapter::normalize::hex;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::yaml_io;

/// Suffix of record files.
pub const RECORD_SUFFIX: &str = ".record.yaml";
/// Suffix of the report stored beside a research record.
pub const REPORT_SUFFIX: &str = ".report.md";
/// Suffix of the run file stored beside an experiment record.
pub const RUN_SUFFIX: &str = ".run.yaml";

/// Temporary files older than this are left over from a killed writer.
const STALE_TEMP_AGE: Duration = Duration::from_secs(600);

/// The record file for a run id.
pub fn record_path(layout: &Layout, key: &ChapterKey, id: &RunId) -> PathBuf {
    layout
        .records_dir(key)
        .join(format!("{}{RECORD_SUFFIX}", id.stem()))
}

/// A record's evidence file (its report or run file), by the name the
/// record gives it.
pub fn evidence_path(layout: &Layout, key: &ChapterKey, file: &str) -> PathBuf {
    layout.records_dir(key).join(file)
}

/// Every file a record consists of: the record itself, then its evidence.
pub fn record_files(layout: &Layout, key: &ChapterKey, record: &Record) -> Vec<PathBuf> {
    let mut files = vec![record_path(layout, key, &record.run_id)];
    files.extend(
        record
            .report
            .iter()
            .map(|r| evidence_path(layout, key, &r.file)),
    );
    files.extend(
        record
            .experiment
            .iter()
            .map(|e| evidence_path(layout, key, &e.file)),
    );
    files
}

/// Random hex for a record's nonce.
pub fn nonce() -> String {
    use std::io::Read;
    let mut buf = [0u8; 8];
    let from_os = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .is_ok();
    if !from_os {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos(),
        );
        h.write_u32(std::process::id());
        buf = h.finish().to_le_bytes();
    }
    hex(&buf)
}

/// The SHA-256 of a record's content, run id left out.
pub fn content_sha256(record: &Record) -> String {
    let mut value = serde_json::to_value(record).expect("records serialize");
    if let Some(map) = value.as_object_mut() {
        map.remove("run_id");
    }
    hex(&Sha256::digest(value.to_string().as_bytes()))
}

/// The stem builders use for sidecar names before the run id is known.
pub const PLACEHOLDER_STEM: &str = "RUNID";

/// Stores a new record and its sidecars. `build` gets a fresh nonce and
/// returns the record and its sidecar files (name, bytes), named with
/// [`PLACEHOLDER_STEM`]; the run id is then derived from the record's content
/// and the names follow it. Sidecars are written first and the record last,
/// so a record never points at a missing file; if the id is taken (a
/// vanishingly rare collision), a new nonce gives a new one.
pub fn store(
    layout: &Layout,
    key: &ChapterKey,
    mut build: impl FnMut(&str) -> Result<(Record, Vec<(String, Vec<u8>)>)>,
) -> Result<(PathBuf, Record)> {
    let dir = layout.records_dir(key);
    atomic::sweep_stale_temp_files(&dir, STALE_TEMP_AGE);
    'attempt: for _ in 0..5 {
        let (mut record, sidecars) = build(&nonce())?;
        let id = RunId::new(key, record.recorded_at, &content_sha256(&record));
        let stem = id.stem();
        let rename = |name: &str| name.replacen(PLACEHOLDER_STEM, &stem, 1);
        record.run_id = id.clone();
        if let Some(r) = record.report.as_mut() {
            r.file = rename(&r.file);
        }
        if let Some(e) = record.experiment.as_mut() {
            e.file = rename(&e.file);
        }
        for (name, bytes) in &sidecars {
            match atomic::write_new(&dir.join(rename(name)), bytes) {
                Ok(()) => {}
                Err(Error::WouldOverwrite { .. }) => continue 'attempt,
                Err(e) => return Err(e),
            }
        }
        let path = record_path(layout, key, &id);
        let text = yaml_io::to_string(&record)?;
        match atomic::write_new(&path, text.as_bytes()) {
            Ok(()) => return Ok((path, record)),
            Err(Error::WouldOverwrite { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::Other(
        "could not find a free run id after 5 tries".into(),
    ))
}

/// A record file that could not be read.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BrokenRecord {
    pub path: PathBuf,
    pub error: String,
}

/// Every record of a chapter, newest first, and the files that would not parse.
pub fn list(layout: &Layout, key: &ChapterKey) -> Result<(Vec<Record>, Vec<BrokenRecord>)> {
    let dir = layout.records_dir(key);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), Vec::new())),
        Err(e) => return Err(Error::io(&dir, e)),
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.ends_with(RECORD_SUFFIX) && !name.starts_with(atomic::TEMP_PREFIX)
        })
        .map(|e| e.path())
        .collect();
    paths.sort();
    atomic::sweep_stale_temp_files(&dir, STALE_TEMP_AGE);
    let parsed = parse_all(&paths);
    let mut records = Vec::new();
    let mut broken = Vec::new();
    for (path, result) in paths.into_iter().zip(parsed) {
        match result {
            Ok(r) => records.push(r),
            Err(error) => broken.push(BrokenRecord { path, error }),
        }
    }
    records.sort_by(|a, b| {
        b.recorded_at
            .cmp(&a.recorded_at)
            .then_with(|| b.run_id.cmp(&a.run_id))
    });
    Ok((records, broken))
}

/// Parses record files on every available core.
fn parse_all(paths: &[PathBuf]) -> Vec<std::result::Result<Record, String>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = paths.len().div_ceil(threads).max(64);
    std::thread::scope(|s| {
        let handles: Vec<_> = paths
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(|p| parse_one(p)).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("record parsing does not panic"))
            .collect()
    })
}

fn parse_one(path: &Path) -> std::result::Result<Record, String> {
    let record: Record = yaml_io::read(path).map_err(|e| e.to_string())?;
    if record.schema != super::RECORD_SCHEMA {
        return Err(format!(
            "{}: unknown schema '{}'",
            path.display(),
            record.schema
        ));
    }
    if !crate::chapter::manifest::is_sha256_hex(&record.revision.fingerprint.value) {
        return Err(format!(
            "{}: field 'revision.fingerprint.value': not 64 lowercase hex digits",
            path.display()
        ));
    }
    let expected = format!("{}{RECORD_SUFFIX}", record.run_id.stem());
    if path.file_name().and_then(|n| n.to_str()) != Some(expected.as_str()) {
        return Err(format!(
            "{}: file name does not match run id {}",
            path.display(),
            record.run_id
        ));
    }
    Ok(record)
}
