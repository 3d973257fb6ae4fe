//! `claims check`: a chapter's claims.yaml against its current snapshot.

use crate::app::Project;
use crate::app::claims::{self, ClaimsCheck};
use crate::cli::ClaimsCommand;
use crate::error::{Outcome, Result};
use crate::output::{Out, Render};
use crate::text::visible;

impl Render for ClaimsCheck {
    fn text(&self) -> Result<String> {
        let mut s = format!("{}: {} claims\n", self.chapter, self.claims);
        s.push_str(&format!(
            "sentences that state numbers and that no claim quotes ({}):\n",
            self.uncovered.len()
        ));
        for u in &self.uncovered {
            s.push_str(&format!("  - \"{}\"\n", visible(u)));
        }
        s.push_str(&format!(
            "claims whose quote is not in the snapshot ({}):\n",
            self.quote_missing.len()
        ));
        for (id, closest) in &self.quote_missing {
            s.push_str(&format!(
                "  - {}{}\n",
                visible(id),
                closest
                    .as_ref()
                    .map(|c| format!(" (closest: \"{}\")", visible(c)))
                    .unwrap_or_default()
            ));
        }
        s.push_str(&format!(
            "claims whose metric fails ({}):\n",
            self.metric_fails.len()
        ));
        for (id, why) in &self.metric_fails {
            s.push_str(&format!("  - {}: {}\n", visible(id), visible(why)));
        }
        Ok(s)
    }
}

/// `claims check`
pub fn run(out: &mut Out, project: &Project, cmd: ClaimsCommand) -> Result<Outcome> {
    let ClaimsCommand::Check { id, format } = cmd;
    let chapter = project.chapter(&id)?;
    let found = claims::check(project, &chapter)?;
    out.emit(&found, format.into())?;
    Ok(Outcome::check(!found.anything()))
}
