//! `status`: one line per chapter, its research state, and its claims'
//! verdicts in the latest experiment (across environments when there are
//! several).

use crate::app::{Project, status};
use crate::cli::HistoryArgs;
use crate::error::{Outcome, Result};
use crate::output::{Colours, Out, Render};
use crate::records::status::ChapterStatus;
use crate::text::escape::visible;

impl Render for ChapterStatus {
    fn text(&self) -> Result<String> {
        let mut line = head_line(self);
        line.push_str(&experiment_lines(self));
        if let Some(n) = &self.notebook {
            line.push_str(&format!("    {}\n", n.line()));
        }
        if let Some(n) = &self.notebook_claims {
            line.push_str(&notebook_claims_lines(self, n));
        }
        line.push_str(&earlier_and_across_lines(self));
        Ok(line)
    }
}

/// The chapter's first line: its state and label, why it is stale, what
/// changed since research, and its counts of runs.
fn head_line(s: &ChapterStatus) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut line = format!("{}  {}  {}", s.chapter, s.state, s.label);
    for r in &s.stale_reasons {
        line.push_str(&format!(" (Changed: {})", visible(r)));
    }
    if let Some(c) = &s.changed_since_research {
        line.push_str(&format!(" · since the last research run: {}", visible(c)));
    }
    line.push_str(&format!(
        "  · {} research run{}, {} experiment run{} · last researched: {}",
        s.research_runs,
        plural(s.research_runs),
        s.experiment_runs,
        plural(s.experiment_runs),
        s.last_researched
            .map(|t| t.format("%Y-%m-%d").to_string())
            .unwrap_or_else(|| "never".into())
    ));
    line.push('\n');
    line
}

/// The latest experiment's claims, and what to know of it.
fn experiment_lines(s: &ChapterStatus) -> String {
    let mut line = String::new();
    match (&s.claims, &s.latest_experiment) {
        (Some(c), Some(e)) => line.push_str(&format!(
            "    {}{c}; latest experiment {} on {}, revision {}{}, env {} ({} CPUs)\n",
            // Verdicts of an earlier measurement say so before they count.
            e.earlier_measurement
                .as_ref()
                .map(|m| format!(
                    "an earlier measurement ({}), its verdicts then: ",
                    visible(m)
                ))
                .unwrap_or_default(),
            e.run_id,
            e.recorded_at.format("%Y-%m-%d"),
            e.revision,
            if e.of_current_revision {
                " (current)"
            } else {
                " (older than the current snapshot)"
            },
            visible(&e.env_id),
            e.logical_cpus
        )),
        // Notebook claims are counted below, from the notebook's runs.
        _ if s.notebook_claims.is_some() => line.push_str(
            "    no experiment recorded: pipeline claims (over the chapter's tables) unchecked\n",
        ),
        _ => line.push_str("    no experiment recorded: claims unchecked\n"),
    }
    line.push_str(&experiment_notes(s));
    line
}

/// What to know of the latest experiment beside its verdicts: disturbed,
/// run on settings other than the defaults, later ones that decided
/// nothing.
fn experiment_notes(s: &ChapterStatus) -> String {
    let mut line = String::new();
    if let Some(mark) = s
        .latest_experiment
        .as_ref()
        .and_then(|e| e.disturbed.as_ref())
    {
        // What the disturbed rounds did not decide holds nothing against
        // the chapter; a verdict decided on the rounds left still does.
        let decided_against = s
            .claims
            .as_ref()
            .is_some_and(|c| c.not_reproduced + c.magnitude_differs > 0);
        line.push_str(&format!(
            "    the latest experiment was {mark}: a round without an undisturbed run did not count, {}\n",
            if decided_against {
                "and the verdicts above read only the rounds left"
            } else {
                "so it holds nothing against the chapter"
            }
        ));
    }
    if let Some(e) = &s.latest_experiment
        && !e.departs.is_empty()
    {
        // Its verdicts stand, but on settings other than the defaults.
        line.push_str(&format!(
            "    the latest experiment ran with {}\n",
            visible(&e.departs.join("; "))
        ));
    }
    for later in &s.undecided_later {
        line.push_str(&format!(
            "    a later experiment decided nothing and is not counted: {}\n",
            visible(later)
        ));
    }
    line
}

/// Measurements of an earlier tool, and the claims across environments.
fn earlier_and_across_lines(s: &ChapterStatus) -> String {
    let mut line = String::new();
    if !s.earlier_measurements.is_empty() {
        line.push_str(
            "    earlier measurements, not held against today's (the tool changed, not only the machine):\n",
        );
        for e in &s.earlier_measurements {
            line.push_str(&format!("      {}\n", visible(e)));
        }
    }
    if !s.across_environments.is_empty() {
        line.push_str(&format!(
            "    evidence from {} environments ({}):\n",
            s.environments,
            visible(&s.environment_list.join(", "))
        ));
        for c in &s.across_environments {
            line.push_str(&format!(
                "      {}: {}\n",
                visible(&c.claim),
                c.summary_painted(&Colours)
            ));
        }
    }
    line
}

/// The chapter's claims by source (`claims: 6 pipeline (6 reproduced), 2
/// notebook (1 reproduced, 1 inconclusive)`), where the notebook's verdicts
/// come from, and what makes them not of the chapter as it is now, or how
/// to run them.
fn notebook_claims_lines(
    s: &ChapterStatus,
    n: &crate::records::notebook_claims::NotebookClaimsEvidence,
) -> String {
    let mut sources: Vec<String> = s.claims.iter().map(|c| c.by_source()).collect();
    sources.push(n.counts_words());
    let mut text = format!("    claims: {}", visible(&sources.join(", ")));
    if let Some(run) = n.run_words() {
        text.push_str(&format!("; notebook claims from {}", visible(&run)));
    }
    text.push('\n');
    for c in n.caveats() {
        text.push_str(&format!("      {}\n", visible(&c)));
    }
    if n.needs_run() {
        text.push_str(&format!(
            "      to decide them: notebook run {0} --python P, or reproduce {0} --python P\n",
            s.chapter
        ));
    }
    text
}

/// `status`
pub fn run(out: &mut Out, project: &Project, args: HistoryArgs) -> Result<Outcome> {
    let lines = status::status(project, args.chapter.as_deref())?;
    out.emit(&lines.chapters, args.format.into())?;
    Ok(Outcome::unless(lines.problems))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{Record, StoredVerdict};

    /// The fixture experiment, and a later one on another machine where two
    /// claims did not hold (newest first, as the store lists them).
    fn two_environments() -> Vec<Record> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "tests/fixtures/records/pytorch-from-first-principles/06/20261102T120000-bbbbbbbbbbbb.record.yaml",
        );
        let older: Record = crate::yaml_io::read(&path).unwrap();
        let mut newer = older.clone();
        newer.environment.env_id = "9f2c".repeat(16);
        newer.recorded_at += chrono::Duration::days(1);
        newer.run_id =
            crate::ids::RunId::new(&older.run_id.chapter, newer.recorded_at, &"c".repeat(12));
        let verdicts: Vec<StoredVerdict> = serde_yaml::from_str(
            "- {claim: sleep-speedup-7.4x, verdict: NOT_REPRODUCED, measured: 1.01}\n\
             - {claim: spin-454-vs-449, verdict: REPRODUCED, quote_missing: true}\n\
             - {claim: spin-wait-mean-62.8-to-28.1, verdict: REPRODUCED, magnitude_differs: 0.00712}\n",
        )
        .unwrap();
        newer.experiment.as_mut().unwrap().verdicts = verdicts;
        let mut records = vec![newer, older];
        for r in &mut records {
            r.experiment.as_mut().unwrap().measured_by = Some(today());
        }
        records
    }

    /// The measurement this tool makes today.
    fn today() -> crate::records::Measurement {
        crate::records::Measurement {
            engine: "embedded".into(),
            engine_model: Some(crate::bench::calibration::ENGINE_MODEL.into()),
            window: crate::bench::WindowKind::SteadyState,
        }
    }

    #[test]
    fn a_verdict_of_an_earlier_measurement_is_no_difference_between_environments() {
        let chapter = crate::testing::chapter06();
        // The other machine's run was made before windows, by an older
        // engine model: its NOT_REPRODUCED is the tool's, not the machine's.
        let mut records = two_environments();
        records[0].experiment.as_mut().unwrap().measured_by = None;
        let status = crate::records::status::chapter_status(&chapter, &records);
        assert_eq!(status.environments, 1);
        assert!(status.across_environments.is_empty());
        assert_eq!(status.earlier_measurements.len(), 1);
        let text = anstream::adapter::strip_str(&status.text().unwrap()).to_string();
        assert!(
            text.contains("earlier measurements, not held against today's"),
            "{text}"
        );
        assert!(
            text.contains("measured before windows: whole-run window; 2 of 3 claims held then"),
            "{text}"
        );
        assert!(!text.contains("reproduced on 1 of 2"), "{text}");
        // Another engine model, over the same window: also apart.
        records[0].experiment.as_mut().unwrap().measured_by = Some(crate::records::Measurement {
            engine_model: Some("2026-11-30".into()),
            ..today()
        });
        let status = crate::records::status::chapter_status(&chapter, &records);
        assert_eq!(status.earlier_measurements.len(), 1);
        assert!(
            status.earlier_measurements[0].contains("engine model 2026-11-30, steady-state window"),
            "{:?}",
            status.earlier_measurements
        );
    }

    #[test]
    fn a_disturbed_experiment_holds_nothing_against_the_chapter_only_where_it_decided_nothing_against_it()
     {
        let chapter = crate::testing::chapter06();
        let mut status = crate::records::status::chapter_status(&chapter, &two_environments());
        let latest = status.latest_experiment.as_mut().unwrap();
        latest.disturbed = Some("disturbed: 5 of 10 configuration runs".into());
        let claims = status.claims.as_mut().unwrap();
        assert!(claims.not_reproduced > 0);
        let text = status.text().unwrap();
        assert!(
            text.contains("did not count, and the verdicts above read only the rounds left"),
            "{text}"
        );
        assert!(
            !text.contains("holds nothing against the chapter"),
            "{text}"
        );
        let claims = status.claims.as_mut().unwrap();
        claims.not_reproduced = 0;
        claims.magnitude_differs = 0;
        let text = status.text().unwrap();
        assert!(
            text.contains("so it holds nothing against the chapter"),
            "{text}"
        );
    }

    #[test]
    fn status_prints_several_environments_as_it_did() {
        let chapter = crate::testing::chapter06();
        let status = crate::records::status::chapter_status(&chapter, &two_environments());
        let text = anstream::adapter::strip_str(&status.text().unwrap()).to_string();
        let json = serde_json::to_string_pretty(&status).unwrap();
        insta::assert_snapshot!(format!("{text}\n{json}"));
    }
}
