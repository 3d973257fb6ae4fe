//! `env`: the environment fingerprint recorded with every run.

use crate::cli::EnvArgs;
use crate::env;
use crate::error::{Outcome, Result};
use crate::output::{Out, Render};

/// The environment fingerprint, printed.
#[derive(serde::Serialize)]
#[serde(transparent)]
struct EnvView(env::Environment);

impl Render for EnvView {
    fn text(&self) -> Result<String> {
        Ok(env::render_table(&self.0))
    }
}

/// `env`
pub fn run(out: &mut Out, args: EnvArgs) -> Result<Outcome> {
    out.emit(&EnvView(env::collect()), args.format.into())?;
    Ok(Outcome::Ok)
}
