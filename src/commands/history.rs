//! `history`: each chapter's recorded runs, newest first, CURRENT or STALE
//! against the chapter.

use crate::app::{Project, status};
use crate::cli::HistoryArgs;
use crate::error::{Outcome, Result};
use crate::output::{Out, Render};
use crate::records::status::{HistoryEntry, RunCurrency};
use crate::text::escape::visible;

impl Render for status::ChapterHistory {
    fn text(&self) -> Result<String> {
        let mut text = format!("{}  {}\n", self.chapter, visible(&self.title));
        if self.runs.is_empty() {
            text.push_str("  no runs recorded\n");
        }
        for e in &self.runs {
            let state = match e.currency {
                RunCurrency::Current => "CURRENT",
                RunCurrency::Stale => "STALE",
            };
            let detail = detail(e);
            text.push_str(&format!(
                "  {}  {:<10}  {}  {}  {:<7}  env {} ({} CPUs)  {detail}\n",
                e.run_id,
                e.kind.to_string(),
                e.recorded_at.format("%Y-%m-%d %H:%M UTC"),
                e.revision,
                state,
                visible(&e.env_id),
                e.logical_cpus
            ));
            for c in &e.notebook_claim_verdicts {
                text.push_str(&format!("      {}\n", visible(c)));
            }
            if let Some(m) = &e.earlier_measurement {
                text.push_str(&format!(
                    "      {} (an earlier measurement than today's: its verdicts may differ with the tool)\n",
                    visible(m)
                ));
            }
            if let Some(r) = &e.retracted {
                text.push_str(&format!(
                    "      {} (no longer research or evidence)\n",
                    visible(r)
                ));
            }
        }
        Ok(text)
    }
}

/// What a run's line says after its environment: its report's state for
/// research, its one-line result for experiments and notebook runs, with
/// the notebook claims it decided and the notebook it ran or its mark.
fn detail(e: &HistoryEntry) -> String {
    match (&e.report_complete, &e.result) {
        _ if e.draft => "report: DRAFT (not counted as research)".to_string(),
        (None, Some(r)) if e.not_comparable.is_some() => format!(
            "{} [NOT COMPARABLE with the chapter's tables, never its evidence: {}]",
            visible(r),
            visible(e.not_comparable.as_deref().unwrap_or_default())
        ),
        (Some(true), _) => "report: all 7 sections".to_string(),
        (Some(false), _) => "report: MISSING SECTIONS".to_string(),
        (None, Some(r)) => {
            // A run that decided notebook claims counts their verdicts.
            let r = match &e.notebook_claims {
                Some(c) => format!("{}; {}", visible(r), visible(c)),
                None => visible(r).into_owned(),
            };
            match (&e.disturbed, &e.notebook) {
                (Some(mark), _) => format!("{r}  [{}]", visible(mark)),
                (None, Some(nb)) => format!("{r}  [ran {}]", visible(nb)),
                (None, None) => r,
            }
        }
        (None, None) => String::new(),
    }
}

/// `history`
pub fn run(out: &mut Out, project: &Project, args: HistoryArgs) -> Result<Outcome> {
    let all = status::history(project, args.chapter.as_deref())?;
    out.emit(&all.chapters, args.format.into())?;
    Ok(Outcome::unless(all.problems))
}
