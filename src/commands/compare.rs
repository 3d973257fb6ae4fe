//! `compare`: two measured runs side by side.

use crate::app::{Project, compare};
use crate::cli::CompareArgs;
use crate::error::{Outcome, Result};
use crate::output::Out;

/// `compare`
pub fn run(
    out: &mut Out,
    project: impl Fn() -> Result<Project>,
    args: CompareArgs,
) -> Result<Outcome> {
    let comparison = compare::compare(&args.a, &args.b, args.bands.bands(), project)?;
    out.emit(&comparison, args.format.into())?;
    Ok(Outcome::Ok)
}
