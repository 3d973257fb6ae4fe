//! Recording runs and what is made from the records: `record`, `history`,
//! `status`, `publish` (the book site's data), `site` (the HTML site),
//! `prompt` and `report`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::formats::{DocFormat, ListFormat, ranged};

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("evidence").required(true).args(["report", "run"]))]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct RecordArgs {
    #[command(subcommand)]
    pub action: Option<RecordCommand>,
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    #[arg(required = true)]
    pub chapter: Option<String>,
    /// The research report (Markdown) to record; a copy is stored
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// A run file written by `bench --out`, recorded as an experiment
    #[arg(long, value_name = "FILE")]
    pub run: Option<PathBuf>,
    /// The revision examined: a fingerprint, a unique prefix of one, or a stored
    /// snapshot file [default: the current snapshot]
    #[arg(long, value_name = "REV")]
    pub revision: Option<String>,
    /// A note kept with the record
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
    /// The run this one follows [default: the chapter's latest run of the same kind]
    #[arg(long, value_name = "RUN_ID")]
    pub previous: Option<String>,
    /// Refuse a report that lacks any of the seven required sections
    #[arg(long)]
    pub strict: bool,
    /// Store an unfinished report as a draft: kept with its record, but it
    /// never changes the chapter's research state
    #[arg(long, requires = "report")]
    pub draft: bool,
    /// Commit the new record and its evidence to the git repository
    #[arg(long)]
    pub commit: bool,
    /// Record a run that cannot be compared with the chapter's tables (other
    /// settings): kept, marked, never shown as the chapter's evidence
    #[arg(long, requires = "run")]
    pub not_comparable: bool,
}

#[derive(Debug, Subcommand)]
pub enum RecordCommand {
    /// Withdraw a recorded run: a retraction file beside the records (the
    /// record is never edited); status, prompt, report, publish and site
    /// stop reading the run, and history shows it retracted
    Retract {
        /// The run to withdraw (as history lists it)
        #[arg(value_name = "RUN_ID")]
        run_id: String,
        /// Why, in a sentence; kept with the retraction
        #[arg(long, value_name = "TEXT")]
        reason: String,
        /// Commit the retraction to the git repository
        #[arg(long)]
        commit: bool,
    },
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Chapter [default: all]
    pub chapter: Option<String>,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    #[arg(required_unless_present = "site", conflicts_with = "site")]
    pub chapter: Option<String>,
    /// Write to FILE instead of standard output (`-`: standard output); a file
    /// is replaced only if this tool wrote it
    #[arg(long, value_name = "FILE", conflicts_with = "site")]
    pub out: Option<PathBuf>,
    /// Write every registered chapter's file into the site folder DIR, at
    /// content/research/chapters/<book>/<chapter>.yaml, replacing only files
    /// this tool wrote
    #[arg(long, value_name = "DIR")]
    pub site: Option<PathBuf>,
    /// Where the evidence site (`site --out`) is served: experiment and
    /// research items link to their run on its chapter page [default: the
    /// chapter's research_pack_url]
    #[arg(long, value_name = "URL", value_parser = web_url)]
    pub site_url: Option<String>,
}

/// An http(s) address with a host and no credentials, as published pages
/// may link to it.
fn web_url(text: &str) -> Result<String, String> {
    super::formats::http_url(text)?;
    let url = url::Url::parse(text).map_err(|e| format!("not a URL: {e}"))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(
            "holds credentials, which would be published; give the address without them".into(),
        );
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(
            "has a ?query or #fragment, which the links to records cannot follow; give the base address".into(),
        );
    }
    Ok(text.trim_end_matches('/').to_string())
}

#[derive(Debug, Args)]
pub struct SiteArgs {
    /// The folder to write: new, empty, or a site this command wrote before
    /// (which it replaces whole) [default: build/site under the project
    /// root, a folder git ignores]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Folder whose templates override the embedded ones, file by file
    /// (site/index.html.j2, site/chapter.html.j2, site/history.html.j2,
    /// site/runs.html.j2, site/style.css.j2, and research-prompt.md.j2 for
    /// the prompt the pages offer)
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
    /// Link each record's files (and the stored notebook) under URL, e.g.
    /// the repository's blob URL, as URL/records/<book>/<chapter>/<file>,
    /// for a site served away from the project [default: a relative path
    /// from the site's folder to the file in the project]
    #[arg(long, value_name = "URL", value_parser = web_url, conflicts_with = "copy_records")]
    pub base_url: Option<String>,
    /// Copy every record's files (and the stored notebook) into the site
    /// and link the copies, as a site that stands alone needs
    #[arg(long)]
    pub copy_records: bool,
}

#[derive(Debug, Args)]
pub struct PromptArgs {
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    pub chapter: String,
    /// Write to FILE instead of standard output (never over an existing file)
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Quote this many characters of the chapter, then cut at the end of a word
    #[arg(long, value_name = "N", default_value_t = crate::render::DEFAULT_EXCERPT_CHARS, value_parser = ranged::<usize>(0, 100_000_000))]
    pub excerpt_chars: usize,
    /// Folder whose templates override the embedded ones, file by file
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
    /// `json` prints the rendered text with everything the template was given
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Stable id, book-id/chapter-id, or a chapter id only one book uses
    pub chapter: String,
    /// The experiment run whose verdicts to use [default: the latest recorded]
    #[arg(long, value_name = "RUN_ID")]
    pub run: Option<String>,
    /// Write to FILE (and the plot beside it) instead of standard output
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Folder whose templates override the embedded ones, file by file
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
    /// `json` prints the rendered text with everything the template was given
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
}
