//! `publish`: a chapter's research data in the book site's schema.

use crate::app::{Project, overview};
use crate::cli::PublishArgs;
use crate::error::{Outcome, Result};
use crate::output::{Out, wrote};
use crate::{atomic, yaml_io};

/// `publish`
pub fn run(out: &mut Out, project: &Project, args: PublishArgs) -> Result<Outcome> {
    let chapter = project.chapter(&args.chapter)?;
    let text = yaml_io::to_string(&overview::site(project, &chapter)?)?;
    match &args.out {
        Some(path) => {
            atomic::write_new(path, text.as_bytes())?;
            wrote(path, "site data");
        }
        None => out.write(&text)?,
    }
    Ok(Outcome::Ok)
}
