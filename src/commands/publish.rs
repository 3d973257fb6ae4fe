//! `publish`: a chapter's site data (its research data in the book site's
//! schema), or every chapter's site data written into the book site's
//! folder (`--site DIR`).

use crate::app::{Project, publish};
use crate::cli::PublishArgs;
use crate::error::{Error, Outcome, Result};
use crate::output::{Out, wrote};
use crate::{atomic, yaml_io};

/// What of a report could not become a site item, said rather than dropped.
fn warn_unparsed(chapter: &str, lines: impl IntoIterator<Item = String>) {
    for line in lines {
        eprintln!("warning: {chapter}: left out of the site's items: {line}");
    }
}

/// `publish`
pub fn run(out: &mut Out, project: &Project, args: PublishArgs) -> Result<Outcome> {
    if let Some(dir) = &args.site {
        crate::app::output_folder::check(project.layout(), dir, "publish --site")?;
        let done = publish::write_site_data(project, dir, args.site_url.as_deref())?;
        for (chapter, line) in done.unparsed {
            warn_unparsed(&chapter, [line]);
        }
        for path in &done.written {
            wrote(path, "site data");
        }
        return Ok(Outcome::unless(done.problems));
    }
    let query = args
        .chapter
        .as_deref()
        .ok_or_else(|| Error::Usage("name a chapter, or give --site DIR".into()))?;
    let chapter = project.chapter(query)?;
    if let Some(path) = args.out.as_deref().filter(|p| p.as_os_str() != "-") {
        crate::app::output_folder::check(project.layout(), path, "publish --out")?;
        crate::app::output_folder::prepare(project.layout(), path)?;
    }
    let data = publish::site_data(project, &chapter, args.site_url.as_deref())?;
    warn_unparsed(&chapter.key.to_string(), data.unparsed);
    let text = yaml_io::to_string(&data.site)?;
    match args.out.as_deref() {
        Some(path) if path.as_os_str() != "-" => {
            publish::check_replaceable(path)?;
            atomic::replace(path, text.as_bytes())?;
            wrote(path, "site data");
        }
        _ => out.write(&text)?,
    }
    Ok(Outcome::Ok)
}
