//! `claims check`: a chapter's claims.yaml against its current snapshot,
//! its notebook claims against the notebook, and the numbers the chapter
//! states against what its latest notebook run printed.

use crate::app::Project;
use crate::app::claims::{self, ClaimsCheck};
use crate::app::notebook::claims_check::NotebookCheck;
use crate::cli::ClaimsCommand;
use crate::error::{Outcome, Result};
use crate::notebook::stated::{StatedFinding, StatedReading};
use crate::output::{Out, Render};
use crate::text::escape::visible;

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
        s.push_str(&stated_text(&self.notebook)?);
        Ok(s)
    }
}

/// Stated against printed, in text: the AGREES and DIFFERS each with the
/// printed line and a ready claim, the NOT PRINTED a line per sentence.
fn stated_text(nb: &NotebookCheck) -> Result<String> {
    let mut s = String::new();
    for note in &nb.notes {
        s.push_str(&format!("notebook: {}\n", visible(note)));
    }
    let Some(run) = &nb.run else {
        return Ok(s);
    };
    s.push_str(&format!(
        "stated against printed (notebook run {run}; a DIFFERS is a lead, not a verdict):\n"
    ));
    let mut not_printed: Vec<(&str, &str, Vec<&str>)> = Vec::new();
    for f in &nb.stated {
        if f.reading == StatedReading::NotPrinted {
            match not_printed.last_mut() {
                Some(last) if last.0 == f.sentence => last.2.push(&f.stated),
                _ => not_printed.push((&f.sentence, &f.source, vec![&f.stated])),
            }
            continue;
        }
        s.push_str(&found_line(f));
        if let Some(claim) = &f.ready_claim {
            s.push_str("    ready claim (paste under notebook_claims:):\n");
            for line in crate::notebook::stated::yaml::ready_claim_lines(claim) {
                s.push_str(&format!("{}\n", visible(&line)));
            }
        } else if f.setting {
            s.push_str("    no ready claim: the cell's code sets this value; it echoes a setting, not a result\n");
        } else if f.claimed_by.is_none() {
            s.push_str("    no ready claim: no label or pattern takes that number alone from the cell's output\n");
        }
    }
    for (sentence, source, numbers) in not_printed {
        s.push_str(&format!(
            "  NOT PRINTED \"{}\" ({}): {}\n",
            visible(sentence),
            visible(source),
            numbers.join(", ")
        ));
    }
    Ok(s)
}

fn found_line(f: &StatedFinding) -> String {
    let cell = f.cell.as_deref().unwrap_or_default();
    let line = f.line.as_deref().unwrap_or_default();
    let printed = match &f.varies {
        Some(v) => v.in_words(),
        None => f.printed.map(|p| p.to_string()).unwrap_or_default(),
    };
    let varies = f
        .varies
        .map(|v| format!(" (varies: {})", v.in_words()))
        .unwrap_or_default();
    let claimed = f
        .claimed_by
        .as_ref()
        .map(|id| format!(" (claim '{}' quotes it)", visible(id)))
        .unwrap_or_default();
    let what = if f.reading == StatedReading::Agrees {
        format!(
            "states {}; cell '{}' printed `{}`{varies}",
            f.stated,
            visible(cell),
            visible(line)
        )
    } else {
        format!(
            "states {}, cell '{}' printed {printed}: `{}` (words in common: {})",
            f.stated,
            visible(cell),
            visible(line),
            f.shared_words.join(", ")
        )
    };
    format!(
        "  {} \"{}\" ({}): {what}{claimed}\n",
        if f.reading == StatedReading::Agrees {
            "AGREES"
        } else {
            "DIFFERS"
        },
        visible(&f.sentence),
        visible(&f.source)
    )
}

/// `claims check`
pub fn run(out: &mut Out, project: &Project, cmd: ClaimsCommand) -> Result<Outcome> {
    let ClaimsCommand::Check { id, format } = cmd;
    let chapter = project.chapter(&id)?;
    let found = claims::check(project, &chapter)?;
    // A claim that cannot be read from the notebook is bad input: its
    // line alone, not a report around it.
    if !found.notebook.problems.is_empty() {
        return Ok(Outcome::Errors(found.notebook.problems.clone()));
    }
    out.emit(&found, format.into())?;
    Ok(Outcome::check(!found.anything()))
}
