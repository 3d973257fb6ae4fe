//! `site`: the book's evidence as a static HTML folder.

use crate::app::{Project, site};
use crate::cli::SiteArgs;
use crate::error::{Outcome, Result};
use crate::render::{self, Templates};

/// `site`
pub fn run(project: &Project, args: SiteArgs) -> Result<Outcome> {
    let templates = Templates::new(args.templates.as_deref())?;
    let out = args
        .out
        .unwrap_or_else(|| project.layout().build_dir().join("site"));
    crate::app::output_folder::check(project.layout(), &out, "site --out")?;
    crate::app::output_folder::prepare(project.layout(), &out)?;
    let options = site::SiteOptions {
        base_url: args.base_url,
        copy_records: args.copy_records,
    };
    let built = site::build(project, &templates, &out, &options, render::now()?)?;
    eprintln!(
        "site written to {} ({} chapter page(s), {} file(s)); open {}",
        built.out.display(),
        built.chapters,
        built.files,
        built.out.join("index.html").display()
    );
    Ok(Outcome::unless(built.broken))
}
