//! A benchmark run as `bench` and `reproduce` print it, and the line that
//! says which engine a run's evidence came from (`diff`, `reproduce`).

use serde::Serialize;

use super::Render;
use crate::bench::{BenchRun, export};
use crate::error::Result;

/// A benchmark run as `bench` and `reproduce` print it.
#[derive(Serialize)]
#[serde(transparent)]
pub struct RunView<'a> {
    pub run: &'a BenchRun,
    /// Add the columns beyond the chapter's (text and Markdown only).
    #[serde(skip)]
    pub wide: bool,
}

impl Render for RunView<'_> {
    fn text(&self) -> Result<String> {
        Ok(export::text(self.run, self.wide) + &export::footer(self.run))
    }

    fn markdown(&self) -> Result<String> {
        Ok(export::markdown(self.run, self.wide))
    }

    fn csv(&self) -> Result<String> {
        export::csv(self.run)
    }
}

/// Which engine a run's evidence came from, as a paragraph of its own.
pub fn evidence_line(run: &BenchRun) -> String {
    format!(
        "Evidence from {}\n\n",
        crate::text::escape::visible(&run.evidence())
    )
}
