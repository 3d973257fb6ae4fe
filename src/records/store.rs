//! The record store on disk. Every write goes through `atomic::write_new`, so
//! a record (or a retraction) is either wholly there or not at all, and
//! never replaced; readers skip temporary files and sweep old ones away, and
//! mark each retracted record with its retraction.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::Record;
use super::cache::{self, Cache, Stamp};
use super::retraction::{RETRACTION_SCHEMA, Retraction};
use crate::atomic;
use crate::error::{Error, Result};
use crate::ids::{ChapterKey, RunId};
use crate::layout::{Evidence, Layout, RECORD_SUFFIX, RETRACTION_SUFFIX};
use crate::text::format::hex;
use crate::yaml_io;

/// Temporary files older than this are left over from a killed writer.
const STALE_TEMP_AGE: Duration = Duration::from_secs(600);

/// Every file a record consists of: the record itself, then its evidence.
pub fn record_files(layout: &Layout, record: &Record) -> Vec<PathBuf> {
    let key = &record.run_id.chapter;
    let mut files = vec![layout.record_file(&record.run_id)];
    files.extend(
        record
            .report
            .iter()
            .map(|r| layout.evidence_file(key, &r.file)),
    );
    files.extend(
        record
            .experiment
            .iter()
            .map(|e| layout.evidence_file(key, &e.file)),
    );
    files.extend(
        record
            .notebook
            .iter()
            .map(|n| layout.evidence_file(key, &n.file)),
    );
    files
}

/// Reads one of a record's evidence files (its report, its run file or its
/// notebook run file) from inside `records/`, and checks that its bytes
/// still have the SHA-256 the record holds for them: a file edited after it
/// was recorded is refused with its path named, never read as the evidence
/// of a verdict. Every reader of a record's evidence goes through here.
pub fn read_evidence(
    layout: &Layout,
    record: &Record,
    file: &str,
    sha256: &str,
) -> Result<Vec<u8>> {
    let path = layout.evidence_file(&record.run_id.chapter, file);
    crate::text::owned::check_owned(&path, &layout.records_root())?;
    let bytes = crate::text::read::read_at_most(&path, crate::text::read::MAX_FILE_BYTES)
        .map_err(|e| Error::io(&path, e))?;
    let found = hex(&Sha256::digest(&bytes));
    if found != sha256 {
        return Err(Error::invalid(
            &path,
            format!(
                "no longer matches run {}: its sha256 is {}..., the record holds {}...; the file was changed after it was recorded, so nothing reads it as evidence",
                record.run_id,
                crate::text::format::prefix(&found, 12),
                crate::text::format::prefix(&crate::text::escape::visible(sha256), 12),
            ),
        ));
    }
    Ok(bytes)
}

/// Checks every evidence file of `record` as [`read_evidence`] reads it:
/// the first that cannot be read or no longer matches, as an error naming
/// the file.
pub fn verify_evidence(layout: &Layout, record: &Record) -> Result<()> {
    let files = [
        record.report.as_ref().map(|r| (&r.file, &r.sha256)),
        record.experiment.as_ref().map(|e| (&e.file, &e.sha256)),
        record.notebook.as_ref().map(|n| (&n.file, &n.sha256)),
    ];
    for (file, sha256) in files.into_iter().flatten() {
        read_evidence(layout, record, file, sha256)?;
    }
    Ok(())
}

/// [`verify_evidence`] for each of a chapter's `records`: the first
/// problem of each record that has one. An evidence file whose size, times
/// and inode are those it had when it last matched is not read again
/// (`cache`); any other is read and hashed.
pub fn evidence_problems(layout: &Layout, records: &[Record]) -> Vec<Error> {
    let Some(first) = records.first() else {
        return Vec::new();
    };
    let key = &first.run_id.chapter;
    let mut cache = Cache::<String>::open(layout, key, "evidence");
    let stamps = cache::stamps_in(&layout.records_dir(key));
    let mut problems = Vec::new();
    for record in records {
        let files = [
            record.report.as_ref().map(|r| (&r.file, &r.sha256)),
            record.experiment.as_ref().map(|e| (&e.file, &e.sha256)),
            record.notebook.as_ref().map(|n| (&n.file, &n.sha256)),
        ];
        for (file, sha256) in files.into_iter().flatten() {
            let stamp = (record.run_id.chapter == *key)
                .then(|| stamps.get(file.as_str()).copied())
                .flatten();
            if let Some(stamp) = stamp
                && cache.get(file, stamp).as_ref() == Some(sha256)
            {
                continue;
            }
            match read_evidence(layout, record, file, sha256) {
                Ok(_) => {
                    if let Some(stamp) = stamp {
                        cache.put(file, stamp, sha256.clone());
                    }
                }
                Err(e) => {
                    problems.push(e);
                    break;
                }
            }
        }
    }
    cache.save(false);
    problems
}

/// [`read_evidence`] as UTF-8 text.
pub fn read_evidence_text(
    layout: &Layout,
    record: &Record,
    file: &str,
    sha256: &str,
) -> Result<String> {
    let bytes = read_evidence(layout, record, file, sha256)?;
    String::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
        path: layout.evidence_file(&record.run_id.chapter, file),
        offset: e.utf8_error().valid_up_to() as u64,
    })
}

/// Random hex for a record's nonce, from the operating system.
pub fn nonce() -> Result<String> {
    let mut buf = [0u8; 8];
    getrandom::fill(&mut buf)
        .map_err(|e| Error::Other(format!("cannot get random bytes for a record: {e}")))?;
    Ok(hex(&buf))
}

/// The SHA-256 of a record's content, run id left out.
pub fn content_sha256(record: &Record) -> String {
    let mut value = serde_json::to_value(record).expect("records serialize");
    if let Some(map) = value.as_object_mut() {
        map.remove("run_id");
    }
    hex(&Sha256::digest(value.to_string().as_bytes()))
}

/// Stores a new record and its evidence. `build` gets a fresh nonce and
/// returns the record (its evidence file names left empty) and each
/// evidence file's kind and bytes (one of each kind at most: an experiment
/// that also ran the chapter's notebook keeps its run file and its notebook
/// run file); the run id is then derived from the record's content, and
/// each evidence file is named after it (`<stem>.run.yaml`,
/// `<stem>.notebook.yaml`). The evidence is written first and the record
/// last, so a record never points at a missing file; if the id is taken (a
/// vanishingly rare collision), a new nonce gives a new one.
pub fn store(
    layout: &Layout,
    key: &ChapterKey,
    mut build: impl FnMut(&str) -> Result<(Record, Vec<(Evidence, Vec<u8>)>)>,
) -> Result<(PathBuf, Record)> {
    let dir = layout.records_dir(key);
    atomic::sweep_stale_temp_files(&dir, STALE_TEMP_AGE);
    'attempt: for _ in 0..5 {
        let (mut record, evidence) = build(&nonce()?)?;
        let id = RunId::new(key, record.recorded_at, &content_sha256(&record));
        let name = |kind| Layout::evidence_name(&id.stem(), kind);
        record.run_id = id.clone();
        if let Some(r) = record.report.as_mut() {
            r.file = name(Evidence::Report);
        }
        if let Some(e) = record.experiment.as_mut() {
            e.file = name(Evidence::Run);
        }
        if let Some(n) = record.notebook.as_mut() {
            n.file = name(Evidence::NotebookRun);
        }
        for (kind, bytes) in &evidence {
            match atomic::write_new(&layout.evidence_file(key, &name(*kind)), bytes) {
                Ok(()) => {}
                Err(Error::WouldOverwrite { .. }) => continue 'attempt,
                Err(e) => return Err(e),
            }
        }
        let path = layout.record_file(&id);
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

/// Stores a retraction of `record`, a file of its own beside it (never an
/// edit of the record), named after its own id like a record.
pub fn retract(
    layout: &Layout,
    record: &Record,
    reason: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(PathBuf, Retraction)> {
    let key = &record.run_id.chapter;
    for _ in 0..5 {
        let mut r = Retraction {
            schema: RETRACTION_SCHEMA.into(),
            id: RunId::new(key, now, "000000000000"),
            retracts: record.run_id.clone(),
            reason: reason.to_string(),
            retracted_at: now,
            nonce: nonce()?,
        };
        let mut value = serde_json::to_value(&r).expect("retractions serialize");
        if let Some(map) = value.as_object_mut() {
            map.remove("id");
        }
        r.id = RunId::new(
            key,
            now,
            &hex(&Sha256::digest(value.to_string().as_bytes())),
        );
        let path = layout.retraction_file(&r.id);
        match atomic::write_new(&path, yaml_io::to_string(&r)?.as_bytes()) {
            Ok(()) => return Ok((path, r)),
            Err(Error::WouldOverwrite { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::Other(
        "could not find a free retraction id after 5 tries".into(),
    ))
}

/// Reads one retraction file of chapter `key`'s records folder.
fn read_retraction(
    layout: &Layout,
    root: &Path,
    key: &ChapterKey,
    path: &Path,
) -> std::result::Result<Retraction, String> {
    crate::text::owned::check_owned_in(path, root).map_err(|e| e.to_string())?;
    let r: Retraction = yaml_io::read_finite(path).map_err(|e| e.to_string())?;
    let bad = |what: String| Err(format!("{}: {what}", path.display()));
    if r.schema != RETRACTION_SCHEMA {
        return bad(format!("unknown schema '{}'", r.schema));
    }
    if layout.retraction_file(&r.id) != path {
        return bad(format!(
            "file name or folder does not match its id {}",
            r.id
        ));
    }
    if r.retracts.chapter != *key {
        return bad(format!(
            "field 'retracts': {} is a run of another chapter",
            r.retracts
        ));
    }
    if let Err(why) = super::retraction::check_reason(&r.reason) {
        return bad(format!("field 'reason': {why}"));
    }
    Ok(r)
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
    // Each record file with its stamp (read from the folder, for the cache).
    let mut paths: Vec<(PathBuf, Option<Stamp>)> = Vec::new();
    let mut retraction_paths: Vec<PathBuf> = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(atomic::TEMP_PREFIX) {
            continue;
        }
        if name.ends_with(RECORD_SUFFIX) {
            let stamp = e.metadata().ok().and_then(|m| Stamp::of_meta(&m));
            paths.push((e.path(), stamp));
        } else if name.ends_with(RETRACTION_SUFFIX) {
            retraction_paths.push(e.path());
        }
    }
    // One folder: by file name is by path.
    paths.sort_by(|a, b| a.0.file_name().cmp(&b.0.file_name()));
    retraction_paths.sort();
    atomic::sweep_stale_temp_files(&dir, STALE_TEMP_AGE);
    let (mut records, mut broken) = read_records(layout, key, paths);
    records.sort_by(|a, b| {
        b.recorded_at
            .cmp(&a.recorded_at)
            .then_with(|| b.run_id.cmp(&a.run_id))
    });
    // Each retraction marks the run it names (the earliest, when several
    // do); one naming no run here waits for that run to arrive.
    let root = layout.records_root().canonicalize().unwrap_or_default();
    let mut retractions = Vec::new();
    for path in retraction_paths {
        match read_retraction(layout, &root, key, &path) {
            Ok(r) => retractions.push(r),
            Err(error) => broken.push(BrokenRecord { path, error }),
        }
    }
    retractions.sort_by_key(|r| r.retracted_at);
    for r in retractions {
        if let Some(record) = records
            .iter_mut()
            .find(|rec| rec.run_id == r.retracts && rec.retraction.is_none())
        {
            record.retraction = Some(r);
        }
    }
    Ok((records, broken))
}

/// Reads the record files at `paths`: from the cache each one whose file
/// is as it was when cached, parsing the others (and caching those that
/// parse).
fn read_records(
    layout: &Layout,
    key: &ChapterKey,
    paths: Vec<(PathBuf, Option<Stamp>)>,
) -> (Vec<Record>, Vec<BrokenRecord>) {
    let mut cache = Cache::<Record>::open(layout, key, "records");
    // Each record read, with what the cache keys it on (None: not cached).
    let mut records: Vec<(Record, Option<(String, Stamp)>)> = Vec::with_capacity(paths.len());
    let mut unread: Vec<(PathBuf, Option<Stamp>)> = Vec::new();
    for (path, stamp) in paths {
        let name = file_name(&path);
        match stamp.and_then(|s| cache.take(&name, s).map(|r| (r, s))) {
            Some((record, s)) => records.push((record, Some((name, s)))),
            None => unread.push((path, stamp)),
        }
    }
    // Only a record newly cached changes the cache: a broken one is
    // parsed again each time, and never written into it.
    let mut fresh = false;
    let to_parse: Vec<PathBuf> = unread.iter().map(|(p, _)| p.clone()).collect();
    let parsed = parse_all(layout, &to_parse);
    let mut broken = Vec::new();
    for ((path, stamp), result) in unread.into_iter().zip(parsed) {
        match result {
            Ok(r) => {
                let key = stamp
                    .filter(|_| cache::round_trips(&r))
                    .map(|s| (file_name(&path), s));
                fresh |= key.is_some();
                records.push((r, key));
            }
            Err(error) => broken.push(BrokenRecord { path, error }),
        }
    }
    let entries = records
        .iter()
        .filter_map(|(r, key)| key.as_ref().map(|(n, s)| (n.clone(), *s, r)))
        .collect();
    cache.save_all(fresh, entries);
    (records.into_iter().map(|(r, _)| r).collect(), broken)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Parses record files on every available core.
fn parse_all(layout: &Layout, paths: &[PathBuf]) -> Vec<std::result::Result<Record, String>> {
    // Every record must be a regular file inside records/; the folder is
    // looked up once.
    let root = layout.records_root().canonicalize().unwrap_or_default();
    let root = root.as_path();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = paths.len().div_ceil(threads).max(64);
    std::thread::scope(|s| {
        let handles: Vec<_> = paths
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|p| parse_one(layout, root, p))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("record parsing does not panic"))
            .collect()
    })
}

fn parse_one(layout: &Layout, root: &Path, path: &Path) -> std::result::Result<Record, String> {
    crate::text::owned::check_owned_in(path, root).map_err(|e| e.to_string())?;
    // The same finite-number check as run files and claims: a `.nan` or
    // `.inf` anywhere is refused with its field named.
    let mut record: Record = yaml_io::read_finite(path).map_err(|e| e.to_string())?;
    // A notebook run's summary quotes the run; one stored before a
    // redaction rule was added is put through it again.
    if let Some(n) = record.notebook.as_mut() {
        n.redact();
    }
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
    if layout.record_file(&record.run_id) != path {
        return Err(format!(
            "{}: file name or folder does not match run id {}",
            path.display(),
            record.run_id
        ));
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
    }

    /// Every record file under `dir`, sorted.
    fn records_under(dir: &Path) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.to_string_lossy().ends_with(RECORD_SUFFIX) {
                    out.push(p);
                }
            }
        }
        let mut out = Vec::new();
        walk(dir, &mut out);
        out.sort();
        out
    }

    /// Records this tool wrote (copies of the project's chapter 06 records
    /// in the fixtures, so a user's own records cannot break the test) read
    /// back and write out byte for byte: the types keep the format of the
    /// files.
    #[test]
    fn every_record_the_tool_wrote_reads_back_and_writes_out_byte_for_byte() {
        let files = records_under(&repo().join("tests/fixtures/written-records"));
        assert!(files.len() >= 6, "{files:?}");
        let mut verdicts = 0;
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let record: Record = yaml_io::read(path).unwrap();
            assert_eq!(
                yaml_io::to_string(&record).unwrap(),
                text,
                "{}",
                path.display()
            );
            verdicts += record.experiment.map_or(0, |e| e.verdicts.len());
        }
        assert!(verdicts > 0, "some of the records hold claim verdicts");
    }

    /// The fixture records (written by hand) as this tool writes them back,
    /// and the JSON form a run id is derived from, hashed: a change to
    /// either is a change to the record format.
    #[test]
    fn the_fixture_records_write_out_and_hash_as_they_did() {
        for path in records_under(&repo().join("tests/fixtures/records")) {
            let record: Record = yaml_io::read(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = format!(
                "# content_sha256 {}\n{}",
                content_sha256(&record),
                yaml_io::to_string(&record).unwrap()
            );
            insta::assert_snapshot!(name, text);
        }
    }
}
