//! Reading the records back: each chapter's history, its research state in
//! the site's vocabulary, and the site's data file for one chapter.

use serde::Serialize;

use super::Project;
use crate::chapter::Chapter;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

use crate::records::publish;
use crate::records::status::{self, ChapterStatus, HistoryEntry};
use crate::yaml_io;

/// One chapter's runs, newest first.
#[derive(Debug, Clone, Serialize)]
pub struct ChapterHistory {
    pub chapter: String,
    #[serde(skip)]
    pub title: String,
    pub runs: Vec<HistoryEntry>,
}

/// Each chapter a query names (all when none) with its records read, and
/// the record files that would not parse.
fn each_chapter<T>(
    project: &Project,
    query: Option<&str>,
    mut view: impl FnMut(&Chapter, &[crate::records::Record]) -> T,
) -> Result<Overview<T>> {
    let (chapters, broken_chapters) = project.chapters_or_all(query)?;
    let mut all = Vec::new();
    let mut problems = broken_chapters;
    for ch in chapters {
        let (records, bad) = project.records(&ch)?;
        problems.extend(
            bad.iter()
                .map(|b| format!("unreadable record: {}", b.error)),
        );
        all.push(view(&ch, &records));
    }
    Ok(Overview {
        chapters: all,
        problems,
    })
}

/// One view per chapter, and what could not be read (broken chapters,
/// unreadable records), one line each.
#[derive(Debug)]
pub struct Overview<T> {
    pub chapters: Vec<T>,
    pub problems: Vec<String>,
}

/// The history of the chapters a query names (all when none), and the
/// record files that would not parse.
pub fn history(project: &Project, query: Option<&str>) -> Result<Overview<ChapterHistory>> {
    each_chapter(project, query, |ch, records| ChapterHistory {
        chapter: ch.key_str(),
        title: ch.manifest.chapter.title.clone(),
        runs: status::history(ch, records),
    })
}

/// The research state of the chapters a query names (all when none), and
/// the record files that would not parse.
pub fn status(project: &Project, query: Option<&str>) -> Result<Overview<ChapterStatus>> {
    each_chapter(project, query, |ch, records| {
        let mut s = status::chapter_status(ch, records);
        s.changed_since_research =
            super::changes::since_research(project, ch, records).map(|c| c.summary());
        s
    })
}

/// The chapter's research runs that examined another revision than the
/// current snapshot, newest first.
pub fn stale_research(project: &Project, chapter: &Chapter) -> Result<Vec<crate::records::Record>> {
    let (records, _) = project.records(chapter)?;
    let current = &chapter.state.current().fingerprint;
    Ok(records
        .into_iter()
        .filter(|r| {
            r.kind == crate::records::RunKind::Research && r.revision.fingerprint != *current
        })
        .collect())
}

/// The site's data file for a chapter; refused while any of its records is
/// unreadable, since the counts would be wrong. `unparsed` in the answer
/// says what of the report could not become an item.
pub fn site(project: &Project, chapter: &Chapter) -> Result<publish::Built> {
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
    Ok(publish::build(chapter, &records, &inputs))
}

/// Refuses to replace `path` unless this tool wrote it (its `generator`),
/// so a site's own data is never overwritten.
pub fn check_replaceable(path: &Path) -> Result<()> {
    match std::fs::read(path) {
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

/// What `publish_site` did.
#[derive(Debug, Default)]
pub struct SitePublished {
    pub written: Vec<PathBuf>,
    /// Per chapter, what of its report could not become an item.
    pub unparsed: Vec<(String, String)>,
    /// Chapters that could not be published, one line each; their files
    /// were left as they were.
    pub problems: Vec<String>,
}

/// Where the site reads a chapter's file under its folder.
pub fn site_file(dir: &Path, chapter: &Chapter) -> PathBuf {
    dir.join("content/research/chapters")
        .join(chapter.key.book.as_str())
        .join(format!("{}.yaml", chapter.key.chapter.as_str()))
}

/// Writes every registered chapter's site file under `dir`, never
/// researched ones included. Every file it would replace is checked first:
/// one that this tool did not write stops the whole run before anything is
/// written.
pub fn publish_site(project: &Project, dir: &Path) -> Result<SitePublished> {
    let (chapters, broken) = project.all_chapters()?;
    let mut done = SitePublished {
        problems: broken,
        ..SitePublished::default()
    };
    let mut files = Vec::new();
    for chapter in &chapters {
        match site(project, chapter).and_then(|b| Ok((b.unparsed, yaml_io::to_string(&b.site)?))) {
            Ok((unparsed, text)) => {
                let path = site_file(dir, chapter);
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
