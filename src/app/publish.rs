//! `publish`: the site data of a chapter (YAML in the book site's schema,
//! built by `records::publish`), printed or written into the book site's
//! folder; a file there is replaced only if this tool wrote it. (The HTML
//! site this tool writes itself is `site`.)

use std::path::{Path, PathBuf};

use super::Project;
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use crate::records::publish;
use crate::yaml_io;

/// Where the site data's items link a reader to a run's record: the run on
/// its chapter's page of the evidence site served at `site_url`, else the
/// chapter's research page from chapter.yaml, else nowhere.
fn record_links(chapter: &Chapter, site_url: Option<&str>) -> publish::RecordLinks {
    match (site_url, &chapter.manifest.chapter.research_pack_url) {
        (Some(base), _) => publish::RecordLinks::Site {
            base: crate::text::redact::redact_url(base),
            page: super::site::page_path(chapter),
        },
        (None, Some(page)) => publish::RecordLinks::Page(crate::text::redact::redact_url(page)),
        (None, None) => publish::RecordLinks::None,
    }
}

/// How many of the newest complete research reports `publish` reads: the
/// latest gives the items, the one before it the delta, and the ledgers of
/// them all a source's provenance. The ledgers of older ones are not read,
/// and the provenance says how many they are.
pub const PUBLISH_LEDGERS: usize = 200;

/// The site data file for a chapter; refused while any of its records (or
/// their reports) is unreadable, since the counts would be wrong. `unparsed`
/// in the answer says what of the report could not become an item.
/// `site_url`: where `site --out` is served, for the links to records.
pub fn site_data(
    project: &Project,
    chapter: &Chapter,
    site_url: Option<&str>,
) -> Result<publish::SiteData> {
    let (records, broken) = project.records(chapter)?;
    // The newest complete reports: the items, the delta and the sources'
    // provenance come from them; older ones are counted, not read.
    let research = super::research_record::read(
        project,
        &records,
        super::research_record::ReportsToRead {
            listed: &[],
            complete: PUBLISH_LEDGERS,
        },
    );
    if !broken.is_empty() || !research.unreadable.is_empty() {
        return Err(Error::Other(format!(
            "{} record(s) of {} cannot be read; fix or remove them before publishing: {}",
            broken.len() + research.unreadable.len(),
            chapter.key,
            crate::text::format::list(
                broken
                    .iter()
                    .map(|b| b.error.clone())
                    .chain(research.unreadable.iter().cloned())
            )
        )));
    }
    // The items come from the latest complete research report (a failed
    // refresh leaves the page on the last good research, as the site says),
    // and the delta from the complete one before it. Drafts never count.
    let complete: Vec<&super::research_record::ResearchRun> = research.complete().collect();
    let claims_touched = match complete.as_slice() {
        [now, before, ..] => super::research_record::changed_between(
            project,
            chapter,
            &before.record,
            &now.record.revision.snapshot,
        )
        .map(|c| c.claims_touched)
        .unwrap_or_default(),
        _ => Vec::new(),
    };
    let experiment = match crate::records::latest_evidence(&records) {
        Some(r) => Some(super::runs::experiment(project, r.clone())?),
        None => None,
    };
    let results = match &experiment {
        Some(e) => super::diff::diff_recorded(project, chapter, e)?.diff.claims,
        None => Vec::new(),
    };
    let links = record_links(chapter, site_url);
    let evidence = experiment
        .as_ref()
        .map(|e| claim_evidence(chapter, e, &results, &links));
    // The delta compares the latest research run's relations with those of
    // the run before, as they were then: with the experiment that was the
    // latest when it was recorded, and the notebook run only if there was
    // one by then.
    let with_text: Vec<(&super::research_record::ResearchRun, &str)> = complete
        .iter()
        .filter_map(|r| Some((*r, r.text.as_deref()?)))
        .collect();
    let before_at = with_text.get(1).map(|(r, _)| r.record.recorded_at);
    let earlier = before_at
        .and_then(|t| records.iter().position(|r| r.recorded_at <= t))
        .and_then(|i| crate::records::latest_evidence(&records[i..]));
    let experiment_before = match (earlier, &experiment) {
        (Some(r), Some(e)) if r.run_id == e.record.run_id => None,
        (Some(r), _) => Some(super::runs::experiment(project, r.clone())?),
        (None, _) => None,
    };
    let results_before = match &experiment_before {
        Some(e) => super::diff::diff_recorded(project, chapter, e)?.diff.claims,
        None => Vec::new(),
    };
    let evidence_before = match (&experiment_before, earlier) {
        (Some(e), _) => Some(claim_evidence(chapter, e, &results_before, &links)),
        (None, Some(_)) => evidence.clone(),
        (None, None) => None,
    };
    let notebook = super::notebook::status(project, chapter, &records)?;
    let notebook_before = match (&notebook, before_at) {
        (Some(n), Some(t)) => n.latest.as_ref().is_some_and(|l| l.recorded_at <= t),
        _ => false,
    };
    let inputs = publish::Inputs {
        reports: with_text
            .iter()
            .map(|(r, text)| publish::ReportText {
                run_id: r.record.run_id.clone(),
                year: i64::from(chrono::Datelike::year(&r.record.recorded_at)),
                text,
            })
            .collect(),
        evidence,
        claims: super::claims::quotes(project, chapter)?,
        claims_touched,
        ledgers_not_read: research.complete_not_read,
        links,
        notebook,
        notebook_claims: super::claims::notebook_claims_evidence(project, chapter, &records)?,
        evidence_before,
        notebook_before,
        changed_since_research: super::changes::since_research(project, chapter, &records)
            .map(|c| c.summary()),
    };
    Ok(publish::site_data(chapter, &records, &inputs))
}

/// An experiment's claim verdicts (`results`) as the site data's evidence.
fn claim_evidence<'a>(
    chapter: &Chapter,
    e: &super::runs::RecordedRun,
    results: &'a [crate::published::diff::ClaimResult],
    links: &publish::RecordLinks,
) -> publish::ClaimEvidence<'a> {
    publish::ClaimEvidence {
        run_id: e.record.run_id.to_string(),
        recorded_at: e.record.recorded_at,
        environment: format!(
            "env {} ({} CPUs)",
            crate::env::short_id(&e.run.environment.env_id),
            e.run.environment.identity.logical_cpus
        ),
        engine: e.run.evidence(),
        revision: e.record.revision.fingerprint.short().to_string(),
        of_current_revision: e.record.revision.fingerprint == chapter.state.current().fingerprint,
        claims: results,
        runs: e.run.settings.repeat,
        url: links.record(&e.record.run_id),
    }
}

/// Refuses to replace `path` unless this tool wrote it (its `generator`),
/// so a site's own data is never overwritten.
pub fn check_replaceable(path: &Path) -> Result<()> {
    // The type first, without opening: reading a FIFO would wait forever,
    // and a device or a folder is nothing this tool wrote.
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(path, e)),
        Ok(m) if !m.is_file() => {
            return Err(Error::invalid(
                path,
                format!(
                    "{}, not a regular file this tool wrote; refusing to replace it",
                    crate::text::read::file_kind(&m.file_type())
                ),
            ));
        }
        Ok(_) => {}
    }
    match crate::text::read::read_at_most(path, crate::text::read::MAX_FILE_BYTES) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(path, e)),
        Ok(bytes) => match std::str::from_utf8(&bytes) {
            Ok(text) if publish::written_by_us(text) => Ok(()),
            _ => Err(Error::invalid(
                path,
                "was not written by research_companion (it has no `generator: research_companion` line); refusing to replace it",
            )),
        },
    }
}

/// What `write_site_data` did.
#[derive(Debug, Default)]
pub struct SiteDataWritten {
    pub written: Vec<PathBuf>,
    /// Per chapter, what of its report could not become an item.
    pub unparsed: Vec<(String, String)>,
    /// Chapters that could not be published, one line each; their files
    /// were left as they were.
    pub problems: Vec<String>,
}

/// Where the book's site reads a chapter's data file under its folder.
pub fn site_data_file(dir: &Path, chapter: &Chapter) -> PathBuf {
    dir.join("content/research/chapters")
        .join(chapter.key.book.as_str())
        .join(format!("{}.yaml", chapter.key.chapter.as_str()))
}

/// Writes every registered chapter's site file under `dir`, never
/// researched ones included. Every file it would replace is checked first:
/// one that this tool did not write stops the whole run before anything is
/// written.
pub fn write_site_data(
    project: &Project,
    dir: &Path,
    site_url: Option<&str>,
) -> Result<SiteDataWritten> {
    let (chapters, broken) = project.all_chapters()?;
    let mut done = SiteDataWritten {
        problems: broken,
        ..SiteDataWritten::default()
    };
    let mut files = Vec::new();
    for chapter in &chapters {
        match site_data(project, chapter, site_url)
            .and_then(|b| Ok((b.unparsed, yaml_io::to_string(&b.site)?)))
        {
            Ok((unparsed, text)) => {
                let path = site_data_file(dir, chapter);
                check_replaceable(&path)?;
                done.unparsed
                    .extend(unparsed.into_iter().map(|u| (chapter.key.to_string(), u)));
                files.push((path, text));
            }
            Err(e) => done.problems.push(format!("{}: {e}", chapter.key)),
        }
    }
    for (path, text) in files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        crate::atomic::replace(&path, text.as_bytes())?;
        done.written.push(path);
    }
    Ok(done)
}
