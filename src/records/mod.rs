//! Research, experiment and notebook-run records: one YAML file per run
//! under `records/<book-id>/<chapter-id>/`, with the evidence (report, run
//! file, notebook run file) stored beside it. Records are only ever added, never edited.
//!
//! A notebook run's record holds the `notebook` module's `NotebookInfo`.
//!
//! `store` reads and writes the files (at the paths `Layout` gives),
//! `create` builds new records, `report` checks reports, `report_items`
//! reads a report into items (its ledger, marks, findings), `retraction` is
//! a run withdrawn (a file of its own, never an edit), `source_id` gives a
//! source the id it keeps from run to run, `selection` keeps a bounded
//! part of a long history for the prompt, `status` says which
//! research is current, `notebook_status` and `notebook_claims` judge the
//! chapter's notebook and its claims from the runs, `cache` keeps parsed
//! records and evidence checks between commands, `publish` builds the site
//! data (the book site's schema). A stored verdict is the typed one of
//! `published::verdict`.

pub mod cache;
pub mod create;
pub mod notebook_claims;
pub mod notebook_status;
pub mod publish;
pub mod report;
pub mod report_items;
pub mod retraction;
pub mod selection;
pub mod source_id;
pub mod status;
pub mod store;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::chapter::{Fingerprint, Scope};
use crate::env::Environment;
use crate::ids::RunId;
use crate::provenance::GitProvenance;
use crate::published::diff::ClaimResult;
use crate::published::verdict::{ClaimVerdict, FlaggedVerdict, VerdictFlag};

/// Schema name written in every record.
pub const RECORD_SCHEMA: &str = "research_companion.record.v1";

/// What kind of run a record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum RunKind {
    /// A research report reviewed against a chapter revision.
    Research,
    /// A benchmark run compared with the chapter's published tables.
    Experiment,
    /// The chapter's notebook run in fresh Jupyter kernels.
    Notebook,
}

/// The chapter revision a run examined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    /// Snapshot file, relative to the chapter folder.
    pub snapshot: String,
    pub fingerprint: Fingerprint,
    pub scope: Scope,
}

/// The stored report and what checking it found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportInfo {
    /// The copy stored beside the record (file name in the same folder).
    pub file: String,
    /// Where the report was recorded from.
    pub source: String,
    pub sha256: String,
    pub bytes: u64,
    pub complete: bool,
    /// Stored as a draft (`record --draft`): kept, but it never changes the
    /// chapter's research state.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub draft: bool,
    #[serde(flatten)]
    pub check: report::ReportCheck,
}

/// A claim's verdict as an experiment record keeps it: the verdict with
/// its flags, and what it was measured as.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredVerdictFields", into = "StoredVerdictFields")]
pub struct StoredVerdict {
    pub claim: String,
    /// The flags a record keeps (see [`StoredVerdict::of`]).
    pub verdict: FlaggedVerdict,
    pub measured: Option<f64>,
    /// Why, for NOT_COMPARABLE and UNRUN.
    pub detail: Option<String>,
    /// measured / published.
    pub ratio: Option<f64>,
    /// With rounds: the 95% interval of the claim's value, and the
    /// undisturbed rounds it was made from (absent for a single run, and in
    /// records made before rounds).
    pub interval: Option<StoredInterval>,
}

/// A claim's interval over the rounds, as a record keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StoredInterval {
    pub low: f64,
    pub high: f64,
    /// Undisturbed rounds.
    pub rounds: usize,
}

impl StoredVerdict {
    /// A claim's result as a record keeps it. A model limit and start-up in
    /// the window are not kept: they follow from the run file, which the
    /// record keeps beside it, and are found again whenever the run is
    /// compared.
    pub fn of(r: &ClaimResult) -> Self {
        let mut verdict = r.flagged();
        verdict.flags.retain(|f| {
            !matches!(
                f,
                VerdictFlag::ModelLimit(_) | VerdictFlag::StartInWindow(_)
            )
        });
        StoredVerdict {
            claim: r.id.clone(),
            verdict,
            measured: r.measured,
            detail: r.reason.clone(),
            ratio: r.ratio,
            interval: r
                .rounds
                .as_ref()
                .and_then(|e| e.interval)
                .map(|i| StoredInterval {
                    low: i.low,
                    high: i.high,
                    rounds: i.rounds,
                }),
        }
    }
}

/// A stored verdict's fields as a record file writes them: the verdict's
/// word, and each flag as a field of its own.
#[derive(Serialize, Deserialize)]
struct StoredVerdictFields {
    claim: String,
    verdict: ClaimVerdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    measured: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ratio: Option<f64>,
    /// Set when the direction held but the size did not: the ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    magnitude_differs: Option<f64>,
    /// True when the quoted sentence was not in the revision compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    quote_missing: Option<bool>,
    /// The ends of the ratio's interval when it straddles the size band.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    magnitude_uncertain: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    interval: Option<StoredInterval>,
}

impl From<StoredVerdictFields> for StoredVerdict {
    fn from(f: StoredVerdictFields) -> Self {
        let mut flags = Vec::new();
        if let Some(ratio) = f.magnitude_differs {
            flags.push(VerdictFlag::MagnitudeDiffers(ratio));
        }
        if let Some([lo, hi]) = f.magnitude_uncertain {
            flags.push(VerdictFlag::MagnitudeUncertain(lo, hi));
        }
        if f.quote_missing == Some(true) {
            flags.push(VerdictFlag::QuoteMissing);
        }
        StoredVerdict {
            claim: f.claim,
            verdict: FlaggedVerdict {
                class: f.verdict,
                flags,
            },
            measured: f.measured,
            detail: f.detail,
            ratio: f.ratio,
            interval: f.interval,
        }
    }
}

impl From<StoredVerdict> for StoredVerdictFields {
    fn from(v: StoredVerdict) -> Self {
        let mut f = StoredVerdictFields {
            claim: v.claim,
            verdict: v.verdict.class,
            measured: v.measured,
            detail: v.detail,
            ratio: v.ratio,
            magnitude_differs: None,
            quote_missing: None,
            magnitude_uncertain: None,
            interval: v.interval,
        };
        for flag in v.verdict.flags {
            match flag {
                VerdictFlag::MagnitudeDiffers(ratio) => f.magnitude_differs = Some(ratio),
                VerdictFlag::MagnitudeUncertain(lo, hi) => f.magnitude_uncertain = Some([lo, hi]),
                VerdictFlag::QuoteMissing => f.quote_missing = Some(true),
                // Never kept (see `StoredVerdict::of`).
                VerdictFlag::ModelLimit(_) | VerdictFlag::StartInWindow(_) => {}
            }
        }
        f
    }
}

/// The stored benchmark run and its one-line result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentInfo {
    /// The run file stored beside the record.
    pub file: String,
    pub source: String,
    pub sha256: String,
    /// One line: what the run showed.
    pub summary: String,
    /// Claim verdicts against the revision's published tables, when known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<StoredVerdict>,
    /// Why the run cannot be compared with the revision's tables (the
    /// first setting that differs), when it was recorded anyway: kept, but
    /// never the evidence `status` and the other readers show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_comparable: Option<String>,
    /// How busy the machine was while the run measured (absent in records
    /// of runs made before outside load was measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<RunLoad>,
    /// What measured the run: the engine (with the embedded engine's model)
    /// and the window. Absent in records made before windows, whose runs
    /// took ex/s over the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_by: Option<Measurement>,
}

impl ExperimentInfo {
    /// What measured the run, in words: `engine model 2026-12-06,
    /// steady-state window`.
    pub fn measurement_text(&self) -> String {
        match &self.measured_by {
            Some(m) => m.text(),
            None => "measured before windows: whole-run window".into(),
        }
    }

    /// Whether the run is the measurement this tool makes today: the
    /// current engine model (or the real DataLoader) over the chapter's
    /// window (records made before windows never are). A verdict of another
    /// measurement may differ from today's because the tool changed, not
    /// the machine.
    pub fn is_current_measurement(&self) -> bool {
        self.measured_by
            .as_ref()
            .is_some_and(Measurement::is_current)
    }

    /// What measured the run, in words, when it is an earlier measurement
    /// than today's; None when it is today's.
    pub fn earlier_measurement(&self) -> Option<String> {
        (!self.is_current_measurement()).then(|| self.measurement_text())
    }
}

/// What measured a recorded run (see [`ExperimentInfo::measured_by`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// `embedded` or `pytorch`.
    pub engine: String,
    /// The embedded engine's model (absent for PyTorch, and for a run file
    /// that did not name one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_model: Option<String>,
    pub window: crate::bench::WindowKind,
}

impl Measurement {
    /// What measured `run`.
    pub fn of(run: &crate::bench::BenchRun) -> Measurement {
        Measurement {
            engine: if run.reference.is_some() {
                "pytorch".into()
            } else {
                "embedded".into()
            },
            engine_model: run.engine_model.clone(),
            window: run.settings.window,
        }
    }

    /// `engine model 2026-12-06, steady-state window`, or `PyTorch,
    /// steady-state window`.
    pub fn text(&self) -> String {
        let engine = match (self.engine.as_str(), &self.engine_model) {
            ("pytorch", _) => "PyTorch's DataLoader".to_string(),
            (_, Some(model)) => format!("engine model {model}"),
            (_, None) => "an unnamed engine model".to_string(),
        };
        format!("{engine}, {}", self.window.label())
    }

    /// Whether it is the measurement this tool makes today: PyTorch's, or
    /// the current engine model's. (Its window is the chapter's: a run
    /// over another window is never recorded as evidence.)
    pub fn is_current(&self) -> bool {
        self.engine == "pytorch"
            || self.engine_model.as_deref() == Some(crate::bench::calibration::ENGINE_MODEL)
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The outside load over a recorded run: the mark `history` shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunLoad {
    pub rounds: usize,
    /// Configuration runs made, re-runs included.
    pub configuration_runs: usize,
    /// Of them, disturbed (other processes took more than the threshold).
    pub disturbed: usize,
    /// Configurations left with a round that has no undisturbed run: the
    /// claims that read them could not count that round.
    pub left_disturbed: usize,
    /// Of them, those with no undisturbed run at all (absent in records
    /// made before it was counted).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub disturbed_throughout: usize,
    /// The highest share of the run's CPUs any configuration run saw taken.
    pub highest_outside: f64,
    /// The CPUs the run was restricted to.
    pub cpus: Vec<usize>,
}

impl RunLoad {
    /// The load of a run, when it was measured.
    pub fn of(run: &crate::bench::BenchRun) -> Option<RunLoad> {
        if !run.outside_measured() {
            return None;
        }
        let (disturbed, highest) = run.disturbance();
        let (left_disturbed, disturbed_throughout) = run.left_disturbed();
        Some(RunLoad {
            rounds: run.rounds(),
            configuration_runs: run.results.iter().map(|c| c.repeats.len()).sum(),
            disturbed,
            left_disturbed,
            disturbed_throughout,
            highest_outside: highest.unwrap_or(0.0),
            cpus: run.cpus_used.clone(),
        })
    }

    /// Whether any configuration run was disturbed.
    pub fn is_disturbed(&self) -> bool {
        self.disturbed > 0
    }

    /// The mark, in words: `disturbed: 3 of 64 configuration runs (other
    /// processes took up to 38% of CPU 0); 1 configuration left disturbed
    /// in some round`; None for a quiet run.
    pub fn mark(&self) -> Option<String> {
        if !self.is_disturbed() {
            return None;
        }
        let left = match self.left_disturbed {
            0 => "each run again quietly".to_string(),
            n => crate::bench::outside_load::left_disturbed_in_words(n, self.disturbed_throughout),
        };
        Some(format!(
            "disturbed: {} of {} configuration runs (other processes took up to {:.0}% of {}); {left}",
            self.disturbed,
            self.configuration_runs,
            self.highest_outside * 100.0,
            crate::bench::outside_load::cpus_in_words(&self.cpus)
        ))
    }
}

/// One recorded run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub schema: String,
    pub run_id: RunId,
    pub kind: RunKind,
    /// When it was recorded, to the nanosecond.
    pub recorded_at: DateTime<Utc>,
    /// The chapter revision the run examined (for experiments: the revision
    /// whose published tables it is compared with).
    pub revision: Revision,
    #[serde(default)]
    pub previous_run_id: Option<RunId>,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<ReportInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<ExperimentInfo>,
    /// Notebook runs: what the run showed (the whole run is its evidence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notebook: Option<crate::notebook::NotebookInfo>,
    pub environment: Environment,
    pub git: GitProvenance,
    /// Random, so that two otherwise identical records get different ids.
    pub nonce: String,
    /// The retraction that withdrew the run, when one did: not part of the
    /// record's file, filled in by the store from the retraction's.
    #[serde(skip)]
    pub retraction: Option<retraction::Retraction>,
}

impl Record {
    /// Whether this is an experiment whose verdicts are evidence about the
    /// chapter's claims: one that could be compared with the tables of the
    /// revision it examined. Every reader that shows "the latest
    /// experiment" takes the latest of these.
    pub fn is_evidence(&self) -> bool {
        self.kind == RunKind::Experiment
            && self.retraction.is_none()
            && self
                .experiment
                .as_ref()
                .is_none_or(|e| e.not_comparable.is_none())
    }

    /// Whether an experiment's run decided at least one claim (or keeps no
    /// verdicts to say): a run whose every claim is INCONCLUSIVE or UNRUN,
    /// as one on a busy machine can be, decided nothing.
    pub fn decided_something(&self) -> bool {
        self.experiment.as_ref().is_none_or(|e| {
            e.verdicts.is_empty()
                || e.verdicts.iter().any(|v| {
                    !matches!(
                        v.verdict.class,
                        ClaimVerdict::Inconclusive | ClaimVerdict::Unrun
                    )
                })
        })
    }
}

/// The latest experiment that is evidence ([`Record::is_evidence`]) among
/// records listed newest first, passing over later ones that decided
/// nothing ([`Record::decided_something`]): a run on a busy machine never
/// takes the place of one that measured. When none decided anything, the
/// latest.
pub fn latest_evidence(records: &[Record]) -> Option<&Record> {
    let mut evidence = records.iter().filter(|r| r.is_evidence());
    let latest = evidence.clone().next();
    evidence.find(|r| r.decided_something()).or(latest)
}

/// The experiments after [`latest_evidence`] that decided nothing, newest
/// first: kept and shown in the history, not counted.
pub fn undecided_since_evidence(records: &[Record]) -> Vec<&Record> {
    let Some(chosen) = latest_evidence(records) else {
        return Vec::new();
    };
    records
        .iter()
        .take_while(|r| r.run_id != chosen.run_id)
        .filter(|r| r.is_evidence() && !r.decided_something())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mark_says_when_a_configuration_was_disturbed_in_every_run() {
        let load = |left, throughout| RunLoad {
            rounds: 3,
            configuration_runs: 12,
            disturbed: 12,
            left_disturbed: left,
            disturbed_throughout: throughout,
            highest_outside: 0.9,
            cpus: vec![0],
        };
        let mark = |l: RunLoad| l.mark().unwrap();
        assert!(mark(load(0, 0)).ends_with("each run again quietly"));
        assert!(mark(load(1, 0)).ends_with("1 configuration left disturbed in some round"));
        assert!(
            mark(load(4, 4)).ends_with(
                "4 configurations disturbed in every run (their rows are of disturbed runs)"
            ),
            "{}",
            mark(load(4, 4))
        );
        assert!(
            mark(load(3, 1)).ends_with(
                "3 configurations left disturbed in some round, 1 of them in every run (their rows are of disturbed runs)"
            ),
            "{}",
            mark(load(3, 1))
        );
    }

    /// A stored verdict with every field set, as a record holds it.
    const EVERY_FIELD: &str = "\
- claim: spin-wait-mean-62.8-to-28.1
  verdict: REPRODUCED
  measured: 0.2
  ratio: 0.007117437722419929
  magnitude_differs: 0.007117437722419929
  quote_missing: true
- claim: sleep-speedup-7.4x
  verdict: NOT_COMPARABLE
  measured: 7.36
  detail: needs 1 CPU(s), the run used 2
  ratio: 1.0
- claim: spin-454-vs-449
  verdict: UNRUN
  detail: the run has no measurement for every table and worker count the metric reads
- claim: spin-step-five-times-slower
  verdict: NOT_REPRODUCED
  measured: 1.0
  ratio: 0.2
";

    #[test]
    fn stored_verdicts_read_and_write_every_field_as_records_hold_them() {
        let verdicts: Vec<StoredVerdict> = serde_yaml::from_str(EVERY_FIELD).unwrap();
        assert_eq!(verdicts.len(), 4);
        assert_eq!(
            verdicts[0].verdict.to_string(),
            "REPRODUCED, magnitude differs (x0.00712), QUOTE_MISSING"
        );
        assert_eq!(verdicts[3].verdict.class, ClaimVerdict::NotReproduced);
        assert_eq!(crate::yaml_io::to_string(&verdicts).unwrap(), EVERY_FIELD);
        // The JSON form, which run ids hash, keeps the same fields.
        assert_eq!(
            serde_json::to_string(&verdicts[0]).unwrap(),
            r#"{"claim":"spin-wait-mean-62.8-to-28.1","verdict":"REPRODUCED","measured":0.2,"ratio":0.007117437722419929,"magnitude_differs":0.007117437722419929,"quote_missing":true}"#
        );
    }
}
