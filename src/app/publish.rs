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

/// The site data file for a chapter; refused while any of its records is
/// unreadable, since the counts would be wrong. `unparsed` in the answer
/// says what of the report could not become an item.
pub fn site_data(project: &Project, chapter: &Chapter) -> Result<publish::SiteData> {
    let (records, broken) = project.records(chapter)?;
    if !broken.is_empty() {
        return Err(Error::Other(format!(
            "{} record(s) of {} cannot be read; fix or remove them before publishing: {}",
            broken.len(),
            chapter.key,
            crate::text::list(broken.iter().map(|b| b.path.display()))
        )));
    }
    // The items come from the latest complete research report (a failed
    // refresh leaves the page on the last good research, as the site says),
    // and the delta from the complete one before it. Drafts never count.
    let complete: Vec<&crate::records::Record> = records
        .iter()
        .filter(|r| {
            r.kind == crate::records::RunKind::Research
                && r.report.as_ref().is_some_and(|p| p.complete && !p.draft)
        })
        .collect();
    let report_of = |i: usize| {
        complete
            .get(i)
            .map_or(Ok(None), |r| super::runs::report_text(project, r))
    };
    let report = report_of(0)?;
    let previous_report = report_of(1)?;
    let experiment = match records
        .iter()
        .find(|r| r.kind == crate::records::RunKind::Experiment)
    {
        Some(r) => Some(super::runs::experiment(project, r.clone())?),
        None => None,
    };
    let claims = match &experiment {
        Some(e) => super::diff::diff_recorded(project, chapter, e)?.diff.claims,
        None => Vec::new(),
    };
    let evidence = experiment.as_ref().map(|e| publish::ClaimEvidence {
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
        claims: &claims,
    });
    let inputs = publish::Inputs {
        report_run_id: complete.first().map(|r| r.run_id.to_string()),
        report: report.as_deref(),
        previous_report: previous_report.as_deref(),
        evidence,
        has_claims: project.layout().claims_file(&chapter.key).is_file(),
    };
    Ok(publish::site_data(chapter, &records, &inputs))
}

/// Refuses to replace `path` unless this tool wrote it (its `generator`),
/// so a site's own data is never overwritten.
pub fn check_replaceable(path: &Path) -> Result<()> {
    match crate::text::read_at_most(path, crate::text::MAX_FILE_BYTES) {
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
pub fn write_site_data(project: &Project, dir: &Path) -> Result<SiteDataWritten> {
    let (chapters, broken) = project.all_chapters()?;
    let mut done = SiteDataWritten {
        problems: broken,
        ..SiteDataWritten::default()
    };
    let mut files = Vec::new();
    for chapter in &chapters {
        match site_data(project, chapter)
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
