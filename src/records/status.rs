//! Which research is current: each record against the chapter's current
//! snapshot, and each chapter's state in the site's vocabulary.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Record, RunKind};
use crate::chapter::Chapter;
use crate::ids::RunId;
use crate::published::verdict::{ClaimVerdict, FlaggedVerdict, Paint, Plain};

/// A record against the chapter as it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RunCurrency {
    /// It examined the current snapshot.
    Current,
    /// The chapter changed since.
    Stale,
}

/// A chapter's research state, as the site names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
pub enum ResearchState {
    Current,
    Stale,
    NeverResearched,
    /// The latest research run's report lacks required sections.
    FailedLatest,
}

impl ResearchState {
    /// The site's label for the state.
    pub fn label(self) -> &'static str {
        match self {
            ResearchState::Current => "Current",
            ResearchState::Stale => "Update available",
            ResearchState::NeverResearched => "Not yet researched",
            ResearchState::FailedLatest => "Refresh incomplete",
        }
    }
}

/// Whether `record` examined the chapter's current snapshot.
pub fn currency(chapter: &Chapter, record: &Record) -> RunCurrency {
    if record.revision.fingerprint == chapter.state.current().fingerprint {
        RunCurrency::Current
    } else {
        RunCurrency::Stale
    }
}

/// One line of `history`.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryEntry {
    pub run_id: RunId,
    pub kind: RunKind,
    pub recorded_at: DateTime<Utc>,
    pub revision: String,
    pub currency: RunCurrency,
    /// The environment the run was recorded in (short id) and its CPUs.
    pub env_id: String,
    pub logical_cpus: usize,
    /// Research runs: whether the report had all seven sections.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_complete: Option<bool>,
    /// Research runs stored as drafts, which do not count as research.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub draft: bool,
    /// Experiment and notebook runs: one line of result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Notebook runs: the stored notebook the run used, with where it came
    /// from (`notebooks/0002-....ipynb (local copy of 06-fail.ipynb)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notebook: Option<String>,
    /// Runs that decided the chapter's notebook claims: their verdicts
    /// counted (`notebook claims: 1 reproduced, 1 inconclusive`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notebook_claims: Option<String>,
    /// Each notebook claim the run decided: its verdict in words, with the
    /// cell that printed the value (`params-110: REPRODUCED: ...`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notebook_claim_verdicts: Vec<String>,
    /// Experiment runs other processes disturbed: the mark, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disturbed: Option<String>,
    /// Experiment runs of an earlier measurement than today's (another
    /// engine model, a run before windows): which, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub earlier_measurement: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Experiment runs recorded although they cannot be compared with the
    /// chapter's tables: why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_comparable: Option<String>,
    /// Withdrawn runs: `RETRACTED on <date>: <reason>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retracted: Option<String>,
}

/// The history lines for one chapter's records (already newest first);
/// `stored`, the chapter's notebooks.yaml, says where the notebook each
/// notebook run used came from; `declared`, claims.yaml's notebook claims
/// now, which of a run's claims were changed or deleted since.
pub fn history(
    chapter: &Chapter,
    records: &[Record],
    stored: Option<&crate::notebook::StoredNotebooks>,
    declared: Option<&[super::notebook_claims::DeclaredNotebookClaim]>,
) -> Vec<HistoryEntry> {
    records
        .iter()
        .map(|r| HistoryEntry {
            run_id: r.run_id.clone(),
            kind: r.kind,
            recorded_at: r.recorded_at,
            revision: r.revision.fingerprint.short().to_string(),
            currency: currency(chapter, r),
            env_id: crate::env::short_id(&r.environment.env_id),
            logical_cpus: r.environment.identity.logical_cpus,
            report_complete: r.report.as_ref().map(|p| p.complete),
            draft: r.report.as_ref().is_some_and(|p| p.draft),
            result: r
                .experiment
                .as_ref()
                .map(|e| e.summary.clone())
                .or_else(|| r.notebook.as_ref().map(|n| n.summary.clone())),
            notebook: r
                .notebook
                .as_ref()
                .map(|n| super::notebook_status::notebook_label(chapter, stored, &n.notebook_file)),
            notebook_claims: r
                .notebook
                .as_ref()
                .and_then(|n| super::notebook_claims::history_words(&n.claims)),
            notebook_claim_verdicts: r
                .notebook
                .as_ref()
                .map(|n| super::notebook_claims::history_claim_lines(&n.claims, declared))
                .unwrap_or_default(),
            disturbed: disturbed_mark(r),
            earlier_measurement: r.experiment.as_ref().and_then(|e| e.earlier_measurement()),
            note: r.note.clone(),
            not_comparable: r.experiment.as_ref().and_then(|e| e.not_comparable.clone()),
            retracted: r.retraction.as_ref().map(|x| x.label()),
        })
        .collect()
}

/// One chapter's line of `status`.
#[derive(Debug, Clone, Serialize)]
pub struct ChapterStatus {
    pub chapter: String,
    pub title: String,
    pub state: ResearchState,
    /// The label the site shows.
    pub label: String,
    /// Why research predates the chapter.
    pub stale_reasons: Vec<String>,
    pub research_runs: usize,
    pub experiment_runs: usize,
    pub last_researched: Option<DateTime<Utc>>,
    pub run_id: Option<RunId>,
    pub previous_run_id: Option<RunId>,
    /// How much the prose changed since the latest research run, when it
    /// changed ("312 words changed; claims touched: ...").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_since_research: Option<String>,
    /// The claims' verdicts in the latest experiment, counted.
    pub claims: Option<ClaimsSummary>,
    /// The latest experiment: when, on which revision, on which machine.
    pub latest_experiment: Option<ExperimentFreshness>,
    /// Later experiments that decided nothing (every claim INCONCLUSIVE),
    /// newest first, with their disturbed marks: kept, not counted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub undecided_later: Vec<String>,
    /// How many environments have recorded experiments of the measurement
    /// this tool makes today.
    pub environments: usize,
    /// Environments whose latest experiment is another measurement (an
    /// earlier engine model, a run before windows), one line each: kept
    /// apart, never counted as a difference between environments.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub earlier_measurements: Vec<String>,
    /// With evidence from several environments: each one, as
    /// `env-v2:... (N CPUs)`, newest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub environment_list: Vec<String>,
    /// With evidence from several environments: each claim's verdicts there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub across_environments: Vec<ClaimAcrossEnvironments>,
    /// The chapter's notebook as its records judge it (filled in by the
    /// caller that reads notebooks.yaml; absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notebook: Option<super::notebook_status::NotebookStatus>,
    /// The chapter's notebook claims as its records decided them (filled
    /// in by the caller that reads claims.yaml; absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notebook_claims: Option<super::notebook_claims::NotebookClaimsEvidence>,
}

/// The chapter's state from its records (newest first).
pub fn chapter_status(chapter: &Chapter, records: &[Record]) -> ChapterStatus {
    // A draft is kept but is not research: it never sets the state.
    let research: Vec<&Record> = records
        .iter()
        .filter(|r| r.kind == RunKind::Research && !r.report.as_ref().is_some_and(|p| p.draft))
        .collect();
    let latest = research.first().copied();
    // Environments are held against each other only where they made the
    // same measurement: a verdict that changed with the tool (another
    // engine model, another window) is no difference between machines.
    let (envs, earlier) = by_measurement(records);
    let several = envs.len() > 1;
    let (state, stale_reasons) = match latest {
        None => (ResearchState::NeverResearched, Vec::new()),
        Some(r) if r.report.as_ref().is_some_and(|p| !p.complete) => {
            (ResearchState::FailedLatest, Vec::new())
        }
        Some(r) if currency(chapter, r) == RunCurrency::Current => {
            (ResearchState::Current, Vec::new())
        }
        Some(r) => (
            ResearchState::Stale,
            vec![format!(
                "the chapter changed since research run {} examined it: {}",
                r.run_id,
                super::notebook_status::revision_change(chapter, &r.revision)
            )],
        ),
    };
    let label = state.label().to_string();
    // A run recorded as not comparable is kept, but is not the evidence.
    let experiment = super::latest_evidence(records);
    ChapterStatus {
        chapter: chapter.key_str(),
        title: chapter.manifest.chapter.title.clone(),
        state,
        label,
        stale_reasons,
        research_runs: research.len(),
        experiment_runs: records
            .iter()
            .filter(|r| r.kind == RunKind::Experiment)
            .count(),
        last_researched: latest.map(|r| r.recorded_at),
        run_id: latest.map(|r| r.run_id.clone()),
        previous_run_id: latest.and_then(|r| r.previous_run_id.clone()),
        changed_since_research: None,
        claims: experiment
            .and_then(|r| r.experiment.as_ref())
            .map(|e| ClaimsSummary::of(&e.verdicts)),
        environments: envs.len(),
        earlier_measurements: earlier
            .iter()
            .map(|e| {
                format!(
                    "{}: {}; {} of {} claims held then (recorded {})",
                    e.label(),
                    e.measurement,
                    e.held(),
                    e.verdicts.len(),
                    e.recorded_at.format("%Y-%m-%d")
                )
            })
            .collect(),
        environment_list: if several {
            envs.iter().map(EnvironmentEvidence::label).collect()
        } else {
            Vec::new()
        },
        across_environments: if several {
            across_environments(&envs)
        } else {
            Vec::new()
        },
        latest_experiment: experiment.map(|r| ExperimentFreshness {
            earlier_measurement: r.experiment.as_ref().and_then(|e| e.earlier_measurement()),
            run_id: r.run_id.clone(),
            recorded_at: r.recorded_at,
            revision: r.revision.fingerprint.short().to_string(),
            of_current_revision: currency(chapter, r) == RunCurrency::Current,
            env_id: crate::env::short_id(&r.environment.env_id),
            logical_cpus: r.environment.identity.logical_cpus,
            disturbed: disturbed_mark(r),
            departs: Vec::new(),
        }),
        undecided_later: super::undecided_since_evidence(records)
            .into_iter()
            .map(|r| match disturbed_mark(r) {
                Some(mark) => format!("{} ({mark})", r.run_id),
                None => r.run_id.to_string(),
            })
            .collect(),
        notebook: None,
        notebook_claims: None,
    }
}

/// The mark of a disturbed experiment record.
pub fn disturbed_mark(r: &Record) -> Option<String> {
    r.experiment
        .as_ref()
        .and_then(|e| e.load.as_ref())
        .and_then(super::RunLoad::mark)
}

/// The claims' verdicts in the latest experiment, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ClaimsSummary {
    pub claims: usize,
    /// REPRODUCED at the size the prose gives (or with no size band).
    pub reproduced: usize,
    /// REPRODUCED in direction, not in size.
    pub magnitude_differs: usize,
    pub not_reproduced: usize,
    /// The measurement could not decide (never against the chapter).
    pub inconclusive: usize,
    pub not_comparable: usize,
    pub unrun: usize,
    /// Claims whose quoted sentence the revision no longer has (counted
    /// beside their verdicts).
    pub quote_missing: usize,
}

impl ClaimsSummary {
    /// Counts stored verdicts.
    pub fn of(verdicts: &[super::StoredVerdict]) -> Self {
        let mut s = ClaimsSummary {
            claims: verdicts.len(),
            ..Default::default()
        };
        for v in verdicts {
            match v.verdict.class {
                ClaimVerdict::Reproduced if v.verdict.magnitude_differs().is_some() => {
                    s.magnitude_differs += 1
                }
                ClaimVerdict::Reproduced => s.reproduced += 1,
                ClaimVerdict::NotReproduced => s.not_reproduced += 1,
                ClaimVerdict::Inconclusive => s.inconclusive += 1,
                ClaimVerdict::NotComparable => s.not_comparable += 1,
                ClaimVerdict::Unrun => s.unrun += 1,
            }
            if v.verdict.quote_missing() {
                s.quote_missing += 1;
            }
        }
        s
    }
}

impl ClaimsSummary {
    /// `6 pipeline (5 reproduced, 1 inconclusive)`: the verdicts some
    /// claim has, counted.
    pub fn by_source(&self) -> String {
        let counts = [
            (self.reproduced, "reproduced"),
            (self.magnitude_differs, "magnitude differs"),
            (self.not_reproduced, "not reproduced"),
            (self.inconclusive, "inconclusive"),
            (self.not_comparable, "not comparable"),
            (self.unrun, "unrun"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, w)| format!("{n} {w}"))
        .collect::<Vec<_>>()
        .join(", ");
        format!("{} pipeline ({counts})", self.claims)
    }
}

impl std::fmt::Display for ClaimsSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} claims: {} reproduced, {} magnitude differs, {} not reproduced, {} inconclusive{}, {} not comparable, {} unrun, {} quote missing",
            self.claims,
            self.reproduced,
            self.magnitude_differs,
            self.not_reproduced,
            self.inconclusive,
            if self.inconclusive > 0 {
                " (the measurement could not decide: not evidence against the chapter)"
            } else {
                ""
            },
            self.not_comparable,
            self.unrun,
            self.quote_missing
        )
    }
}

/// How fresh the latest experiment is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExperimentFreshness {
    /// What measured it, when that is an earlier measurement than today's
    /// (another engine model, a run before windows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub earlier_measurement: Option<String>,
    pub run_id: RunId,
    pub recorded_at: DateTime<Utc>,
    /// The revision it examined (12 hex digits).
    pub revision: String,
    /// Whether that is the current snapshot.
    pub of_current_revision: bool,
    /// The environment's id (12 hex digits).
    pub env_id: String,
    pub logical_cpus: usize,
    /// Set when other processes disturbed the run (see
    /// [`super::RunLoad::mark`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disturbed: Option<String>,
    /// How its settings depart from the embedded defaults in ways its
    /// verdicts may rest on (a shorter window, Python costs scaled or
    /// calibrated, another engine), one phrase each; read from its run
    /// file by the app layer, empty when there is none or it is unreadable.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub departs: Vec<String>,
}

/// One environment's latest experiment verdicts.
#[derive(Debug, Clone, Serialize)]
pub struct EnvironmentEvidence {
    /// The environment's id (12 hex digits).
    pub env_id: String,
    pub logical_cpus: usize,
    pub run_id: RunId,
    pub recorded_at: DateTime<Utc>,
    /// What measured it: `engine model 2026-12-06, steady-state window`.
    pub measurement: String,
    /// Whether that is the measurement this tool makes today.
    pub current_measurement: bool,
    /// Claim id and verdict, with the flags about what was measured, in
    /// the record's order.
    pub verdicts: Vec<(String, FlaggedVerdict)>,
}

impl EnvironmentEvidence {
    /// `env-v2:0123456789ab (2 CPUs)`.
    pub fn label(&self) -> String {
        format!("{} ({} CPUs)", self.env_id, self.logical_cpus)
    }

    /// How many of its claims held.
    pub fn held(&self) -> usize {
        self.verdicts
            .iter()
            .filter(|(_, v)| v.class.holds())
            .count()
    }
}

/// A claim's verdicts across environments, and one line saying so.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimAcrossEnvironments {
    pub claim: String,
    /// Environment id and verdict, one per environment.
    pub verdicts: Vec<(String, FlaggedVerdict)>,
    /// [`ClaimAcrossEnvironments::summary_painted`], plain.
    pub summary: String,
    /// The environments where the claim did not hold, as
    /// `env <id> (<n> CPUs)`, with their verdicts.
    #[serde(skip)]
    pub not_held: Vec<(String, FlaggedVerdict)>,
}

impl ClaimAcrossEnvironments {
    /// One line: `reproduced on 2 of 3 environments; not on env 9f2c…
    /// (2 CPUs): NOT_REPRODUCED`, the verdicts marked by `paint`.
    pub fn summary_painted(&self, paint: &dyn Paint) -> String {
        let n = self.verdicts.len();
        let mut summary = format!(
            "reproduced on {} of {n} environment{}",
            n - self.not_held.len(),
            if n == 1 { "" } else { "s" }
        );
        if !self.not_held.is_empty() {
            let not: Vec<String> = self
                .not_held
                .iter()
                .map(|(env, v)| {
                    let undecided = if v.class == ClaimVerdict::Inconclusive {
                        " (undecided: not evidence against the chapter)"
                    } else {
                        ""
                    };
                    format!("{env}: {}{undecided}", v.painted(paint))
                })
                .collect();
            summary.push_str(&format!("; not on {}", not.join(", ")));
        }
        summary
    }
}

/// The latest experiment of each environment (records newest first).
pub fn by_environment(records: &[Record]) -> Vec<EnvironmentEvidence> {
    let mut seen: Vec<EnvironmentEvidence> = Vec::new();
    for r in records.iter().filter(|r| r.is_evidence()) {
        let env = crate::env::short_id(&r.environment.env_id);
        if seen.iter().any(|e| e.env_id == env) {
            continue;
        }
        let Some(exp) = &r.experiment else { continue };
        seen.push(EnvironmentEvidence {
            env_id: env,
            logical_cpus: r.environment.identity.logical_cpus,
            run_id: r.run_id.clone(),
            recorded_at: r.recorded_at,
            measurement: exp.measurement_text(),
            current_measurement: exp.is_current_measurement(),
            verdicts: exp
                .verdicts
                .iter()
                // What differs from one environment to another is the
                // measurement; whether a quote is in the revision does not.
                .map(|v| (v.claim.clone(), v.verdict.of_the_measurement()))
                .collect(),
        });
    }
    seen
}

/// The latest experiment of each environment, split into those of the
/// measurement this tool makes today and those of an earlier one (another
/// engine model, a run before windows): only the first are held against
/// each other, since a verdict of the second may have changed with the tool.
pub fn by_measurement(records: &[Record]) -> (Vec<EnvironmentEvidence>, Vec<EnvironmentEvidence>) {
    by_environment(records)
        .into_iter()
        .partition(|e| e.current_measurement)
}

/// Each claim's verdict in every environment, with a one-line summary
/// ("reproduced on 2 of 3 environments; not on env 9f2c… (2 CPUs)").
pub fn across_environments(envs: &[EnvironmentEvidence]) -> Vec<ClaimAcrossEnvironments> {
    let mut claims: Vec<String> = Vec::new();
    for e in envs {
        for (c, _) in &e.verdicts {
            if !claims.contains(c) {
                claims.push(c.clone());
            }
        }
    }
    claims
        .into_iter()
        .map(|claim| {
            let verdicts: Vec<(String, FlaggedVerdict)> = envs
                .iter()
                .filter_map(|e| {
                    e.verdicts
                        .iter()
                        .find(|(c, _)| *c == claim)
                        .map(|(_, v)| (e.env_id.clone(), v.clone()))
                })
                .collect();
            let not_held = verdicts
                .iter()
                .filter(|(_, v)| !v.class.holds())
                .map(|(env, v)| {
                    let cpus = envs
                        .iter()
                        .find(|e| e.env_id == *env)
                        .map_or(0, |e| e.logical_cpus);
                    (format!("env {env} ({cpus} CPUs)"), v.clone())
                })
                .collect();
            let mut c = ClaimAcrossEnvironments {
                claim,
                verdicts,
                summary: String::new(),
                not_held,
            };
            c.summary = c.summary_painted(&Plain);
            c
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{chapter06, record};

    /// The fingerprint of chapter 06's current snapshot.
    fn current() -> String {
        chapter06().state.current().fingerprint.value.clone()
    }

    #[test]
    fn a_chapter_with_no_research_is_never_researched_whatever_its_experiments() {
        let ch = chapter06();
        let runs = vec![record(
            RunKind::Experiment,
            &current(),
            "2026-11-30T10:00:00Z",
        )];
        let s = chapter_status(&ch, &runs);
        assert_eq!(s.state, ResearchState::NeverResearched);
        assert_eq!((s.research_runs, s.experiment_runs), (0, 1));
        assert_eq!(s.last_researched, None);
        assert_eq!(s.label, "Not yet researched");
        let e = s.latest_experiment.unwrap();
        assert!(e.of_current_revision);
        assert_eq!(s.claims, None, "a record without experiment data");
    }

    #[test]
    fn status_counts_the_latest_experiments_claims() {
        use crate::published::verdict::VerdictFlag;
        let v = |class: ClaimVerdict, flags: Vec<VerdictFlag>| crate::records::StoredVerdict {
            claim: "c".into(),
            verdict: FlaggedVerdict { class, flags },
            measured: None,
            detail: None,
            ratio: None,
            interval: None,
        };
        let s = ClaimsSummary::of(&[
            v(ClaimVerdict::Reproduced, vec![]),
            v(
                ClaimVerdict::Reproduced,
                vec![VerdictFlag::MagnitudeDiffers(0.007)],
            ),
            v(ClaimVerdict::NotReproduced, vec![VerdictFlag::QuoteMissing]),
            v(ClaimVerdict::Unrun, vec![]),
        ]);
        assert_eq!(
            s.to_string(),
            "4 claims: 1 reproduced, 1 magnitude differs, 1 not reproduced, 0 inconclusive, 0 not comparable, 1 unrun, 1 quote missing"
        );
        let s = ClaimsSummary::of(&[v(ClaimVerdict::Inconclusive, vec![])]);
        assert_eq!(
            s.to_string(),
            "1 claims: 0 reproduced, 0 magnitude differs, 0 not reproduced, 1 inconclusive (the measurement could not decide: not evidence against the chapter), 0 not comparable, 0 unrun, 0 quote missing"
        );
    }

    #[test]
    fn the_latest_research_run_decides_the_state() {
        let ch = chapter06();
        let old = "0".repeat(64);
        let fresh = record(RunKind::Research, &current(), "2026-11-30T10:00:00Z");
        let stale = record(RunKind::Research, &old, "2026-11-29T10:00:00Z");
        let s = chapter_status(&ch, &[fresh.clone(), stale.clone()]);
        assert_eq!(
            (s.state, s.label.as_str()),
            (ResearchState::Current, "Current")
        );
        assert_eq!(s.run_id, Some(fresh.run_id.clone()));
        let s = chapter_status(&ch, std::slice::from_ref(&stale));
        assert_eq!(s.state, ResearchState::Stale);
        assert_eq!(s.label, "Update available");
        assert!(
            s.stale_reasons[0].contains("snapshot snapshots/0001-a7d34947a6b4.txt, added on ")
                && s.stale_reasons[0].ends_with("(prose-v1 000000000000 to a7d34947a6b4)"),
            "{:?}",
            s.stale_reasons
        );
    }

    #[test]
    fn an_incomplete_latest_report_is_a_failed_refresh() {
        let ch = chapter06();
        let mut r = record(RunKind::Research, &current(), "2026-11-30T10:00:00Z");
        r.report = Some(crate::records::ReportInfo {
            file: "x.report.md".into(),
            source: "x.md".into(),
            sha256: "0".repeat(64),
            bytes: 1,
            complete: false,
            draft: false,
            check: Default::default(),
        });
        let s = chapter_status(&ch, &[r]);
        assert_eq!(
            (s.state, s.label.as_str()),
            (ResearchState::FailedLatest, "Refresh incomplete")
        );
    }

    #[test]
    fn history_marks_each_run_current_or_stale() {
        let ch = chapter06();
        let runs = vec![
            record(RunKind::Experiment, &current(), "2026-11-30T10:00:00Z"),
            record(RunKind::Research, &"0".repeat(64), "2026-11-29T10:00:00Z"),
        ];
        let h = history(&ch, &runs, None, None);
        assert_eq!(h[0].currency, RunCurrency::Current);
        assert_eq!(h[1].currency, RunCurrency::Stale);
        assert_eq!(h[1].revision, "000000000000");
        assert_eq!(
            ResearchState::NeverResearched.to_string(),
            "NEVER_RESEARCHED"
        );
    }
}
