//! Deciding the chapter's notebook claims (`notebook_claims:` in
//! claims.yaml, schema in `published::notebook_reads`) from a notebook run:
//! each read takes its number from what its cell printed in each fresh
//! kernel, the metric combines them kernel by kernel, and the values across
//! the kernels decide the claim.
//!
//! - Every kernel printed the same value: it meets the criterion
//!   (REPRODUCED) or not (NOT_REPRODUCED).
//! - The value varies across kernels: the range it took (with six kernels
//!   or more, the 95% interval of its median, as the pipeline's rounds
//!   give) is held against the criterion; partly inside and partly outside
//!   it, the claim is INCONCLUSIVE.
//! - A cell it reads failed, was not reached, or printed nothing a read can
//!   take, in some kernel: INCONCLUSIVE, with the reason. A notebook that
//!   cannot print the number neither confirms nor contradicts the text.

use std::collections::BTreeMap;

pub use super::claim_result::{KernelSpread, KernelValue, NotebookClaimResult, SpreadKind};
use super::run::{CellOutcome, NotebookRunFile};
use crate::published::claims::Criterion;
use crate::published::interval::{self, IntervalReading};
use crate::published::notebook_reads::{self, NotebookClaim, NotebookRead, Taker};
use crate::published::verdict::ClaimVerdict;

/// What one read took from one cell's printed text: the number and the
/// line it was on.
#[derive(Debug, Clone, PartialEq)]
pub struct TakenValue {
    pub value: f64,
    pub line: String,
}

/// Why a read took no number: the field it is about (`cell`, `pattern`,
/// `label`, `nth`) and what happened, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    pub field: &'static str,
    pub message: String,
}

impl ReadError {
    fn new(field: &'static str, message: impl Into<String>) -> Self {
        ReadError {
            field,
            message: message.into(),
        }
    }
}

/// A signed decimal number, with an optional exponent.
pub const NUMBER: &str = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?";

fn numbers() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(NUMBER).expect("the number pattern compiles"))
}

/// Reads a captured text as a number: `7`, `-0.25`, `1e-3`, `3,112`
/// (thousands separators), `0.404s` is not one.
pub fn parse_number(text: &str) -> Option<f64> {
    let t = text.trim();
    let plain = if t.contains(',')
        && t.split(',')
            .skip(1)
            .all(|g| g.len() >= 3 && g[..3].bytes().all(|b| b.is_ascii_digit()))
    {
        t.replace(',', "")
    } else {
        t.to_string()
    };
    let whole = numbers().find(&plain)?;
    (whole.start() == 0 && whole.end() == plain.len())
        .then(|| plain.parse::<f64>().ok())
        .flatten()
        .filter(|x| x.is_finite())
}

/// Takes one number from a cell's printed text as `read` says.
pub fn take(read: &NotebookRead, taker: &Taker, printed: &str) -> Result<TakenValue, ReadError> {
    if printed.trim().is_empty() {
        return Err(ReadError::new(
            "cell",
            format!("cell '{}' printed nothing", read.cell),
        ));
    }
    match taker {
        Taker::Pattern(re) => {
            let mut found: Vec<(&str, &str)> = Vec::new();
            for line in printed.lines() {
                for caps in re.captures_iter(line) {
                    let group = caps.get(1).map_or("", |m| m.as_str());
                    found.push((group, line));
                }
            }
            match found.as_slice() {
                [] => Err(ReadError::new(
                    "pattern",
                    format!("matches nothing cell '{}' printed", read.cell),
                )),
                [(group, line)] => match parse_number(group) {
                    Some(value) => Ok(TakenValue {
                        value,
                        line: line.trim().to_string(),
                    }),
                    None => Err(ReadError::new(
                        "pattern",
                        format!(
                            "captured '{}' from cell '{}', which is not a number",
                            crate::text::format::prefix(group, 80),
                            read.cell
                        ),
                    )),
                },
                many => Err(ReadError::new(
                    "pattern",
                    format!(
                        "matches {} times in what cell '{}' printed; it must match once (anchor it, e.g. with the line's label)",
                        many.len(),
                        read.cell
                    ),
                )),
            }
        }
        Taker::Label { label, nth } => {
            let lines: Vec<&str> = printed
                .lines()
                .filter(|l| l.trim_start().starts_with(label.as_str()))
                .collect();
            let line = match lines.as_slice() {
                [] => {
                    return Err(ReadError::new(
                        "label",
                        format!("no line cell '{}' printed starts with '{label}'", read.cell),
                    ));
                }
                [line] => *line,
                many => {
                    return Err(ReadError::new(
                        "label",
                        format!(
                            "{} lines cell '{}' printed start with '{label}'; it must be one",
                            many.len(),
                            read.cell
                        ),
                    ));
                }
            };
            let rest = &line.trim_start()[label.len()..];
            let found: Vec<&str> = numbers().find_iter(rest).map(|m| m.as_str()).collect();
            match found.get(nth - 1) {
                Some(n) => Ok(TakenValue {
                    value: parse_number(n).ok_or_else(|| {
                        ReadError::new("nth", format!("'{n}' on the line is not a number"))
                    })?,
                    line: line.trim().to_string(),
                }),
                None if found.is_empty() => Err(ReadError::new(
                    "label",
                    format!(
                        "the line '{}' has no number after the label",
                        crate::text::format::prefix(line.trim(), 120)
                    ),
                )),
                None => Err(ReadError::new(
                    "nth",
                    format!(
                        "asks for number {nth} but the line '{}' has {} after the label",
                        crate::text::format::prefix(line.trim(), 120),
                        found.len()
                    ),
                )),
            }
        }
    }
}

/// Decides every notebook claim from one notebook run.
pub fn decide_all(claims: &[NotebookClaim], run: &NotebookRunFile) -> Vec<NotebookClaimResult> {
    claims.iter().map(|c| decide(c, run)).collect()
}

/// A notebook claim no run decided (the notebook was not run), with the
/// reason in words: UNRUN, never read as a verdict.
pub fn unrun(claim: &NotebookClaim, reason: impl Into<String>) -> NotebookClaimResult {
    let mut cells: Vec<String> = Vec::new();
    for r in claim.reads.values() {
        if !cells.contains(&r.cell) {
            cells.push(r.cell.clone());
        }
    }
    NotebookClaimResult {
        claim: claim.id.clone(),
        quote: claim.quote.clone(),
        metric: claim.metric.clone(),
        stated: claim.stated.value,
        criterion: claim.reproduce.to_string(),
        verdict: ClaimVerdict::Unrun,
        measured: None,
        spread: None,
        ratio: None,
        magnitude_differs: None,
        reason: Some(reason.into()),
        cells,
        printed: Vec::new(),
        kernels: Vec::new(),
    }
}

/// Decides one notebook claim from a notebook run's kernels.
pub fn decide(claim: &NotebookClaim, run: &NotebookRunFile) -> NotebookClaimResult {
    let mut result = NotebookClaimResult {
        reason: None,
        ..unrun(claim, "")
    };
    // Each read's cell, by its position in the notebook.
    let mut index: BTreeMap<&str, (usize, Taker)> = BTreeMap::new();
    for (name, read) in &claim.reads {
        let Some(cell) = run
            .cells
            .iter()
            .find(|c| c.id.as_deref() == Some(read.cell.as_str()))
        else {
            result.reason = Some(format!(
                "reads.{name}.cell: the notebook that ran ({}) has no code cell with id '{}'",
                run.notebook.file, read.cell
            ));
            return result;
        };
        let taker = match read.taker() {
            Ok(t) => t,
            Err((field, e)) => {
                result.reason = Some(format!("reads.{name}.{field} {e}"));
                return result;
            }
        };
        index.insert(name.as_str(), (cell.index, taker));
    }
    if run.runs.is_empty() {
        result.reason = Some("the notebook run has no kernel runs".into());
        return result;
    }
    for (k, kernel) in run.runs.iter().enumerate() {
        let by_index = kernel.cells_by_index();
        let mut values = BTreeMap::new();
        let mut lines = Vec::new();
        let mut failure = None;
        for (name, read) in &claim.reads {
            let (at, taker) = &index[name.as_str()];
            let why = match by_index.get(at) {
                None => Some(format!("cell '{}' did not run", read.cell)),
                Some(c) => match c.outcome {
                    CellOutcome::Ok => match take(read, taker, &c.output) {
                        Ok(t) => {
                            values.insert(name.clone(), t.value);
                            lines.push(t.line);
                            None
                        }
                        Err(e) => Some(format!("reads.{name}.{}: {}", e.field, e.message)),
                    },
                    CellOutcome::Error => Some(format!(
                        "cell '{}' raised {}",
                        read.cell,
                        c.ename.as_deref().unwrap_or("an exception")
                    )),
                    CellOutcome::Timeout => {
                        Some(format!("cell '{}' ran past its timeout", read.cell))
                    }
                    CellOutcome::NotReached => Some(format!(
                        "cell '{}' was not reached (an earlier cell failed)",
                        read.cell
                    )),
                },
            };
            if let Some(why) = why {
                failure = Some(format!("{why} in kernel {}", k + 1));
                break;
            }
        }
        let kernel_value = match failure {
            Some(f) => KernelValue::Failed(f),
            None => match notebook_reads::evaluate(&claim.metric, &values) {
                Ok(x) => {
                    if result.printed.is_empty() {
                        // Two reads of one line show it once.
                        lines.dedup();
                        result.printed = lines;
                    }
                    KernelValue::Value(x)
                }
                Err(e) => KernelValue::Failed(format!("{e} in kernel {}", k + 1)),
            },
        };
        result.kernels.push(kernel_value);
    }
    judge(claim, &mut result);
    result
}

/// The verdict from the kernels' values.
fn judge(claim: &NotebookClaim, r: &mut NotebookClaimResult) {
    let values: Vec<f64> = r
        .kernels
        .iter()
        .filter_map(|k| match k {
            KernelValue::Value(x) => Some(*x),
            KernelValue::Failed(_) => None,
        })
        .collect();
    let failures: Vec<&str> = r
        .kernels
        .iter()
        .filter_map(|k| match k {
            KernelValue::Failed(w) => Some(w.as_str()),
            KernelValue::Value(_) => None,
        })
        .collect();
    let n = r.kernels.len();
    if !values.is_empty() {
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        r.measured = Some(crate::bench::stats::median(&sorted));
        let (low, high) = (sorted[0], sorted[sorted.len() - 1]);
        if high > low {
            r.spread = Some(match interval::median_interval(&values) {
                Some(i) if failures.is_empty() => KernelSpread {
                    low: i.low,
                    high: i.high,
                    kind: SpreadKind::Interval,
                    kernels: values.len(),
                },
                _ => KernelSpread {
                    low,
                    high,
                    kind: SpreadKind::Range,
                    kernels: values.len(),
                },
            });
        }
        r.ratio = r
            .measured
            .map(|m| m / claim.stated.value)
            .filter(|x| x.is_finite());
    }
    if let Some(first) = failures.first() {
        r.verdict = ClaimVerdict::Inconclusive;
        r.reason = Some(if values.is_empty() {
            format!("no kernel gave a value ({first}{})", more(failures.len()))
        } else {
            format!(
                "the notebook failed to give a value in {} of {n} kernels ({first}{})",
                failures.len(),
                more(failures.len())
            )
        });
        return;
    }
    let (low, high) = r.spread.map_or_else(
        || {
            (
                r.measured.unwrap_or(f64::NAN),
                r.measured.unwrap_or(f64::NAN),
            )
        },
        |s| (s.low, s.high),
    );
    r.verdict = match interval::against_criterion(&claim.reproduce, low, high) {
        IntervalReading::Inside => ClaimVerdict::Reproduced,
        IntervalReading::Outside => ClaimVerdict::NotReproduced,
        IntervalReading::Straddles => {
            r.reason = Some(format!(
                "the value varies across the kernels, partly inside and partly outside {}",
                criterion_words(&claim.reproduce)
            ));
            ClaimVerdict::Inconclusive
        }
    };
    if r.verdict == ClaimVerdict::Reproduced
        && let (Some(m), Some(ratio)) = (claim.magnitude, r.ratio)
        && claim.stated.value != 0.0
        && interval::against_band(&m, low / claim.stated.value, high / claim.stated.value)
            == IntervalReading::Outside
    {
        r.magnitude_differs = Some(ratio);
    }
}

fn more(failures: usize) -> String {
    if failures > 1 {
        format!("; and {} more", failures - 1)
    } else {
        String::new()
    }
}

fn criterion_words(c: &Criterion) -> String {
    format!("the criterion ({c})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(cell: &str, label: &str, nth: Option<usize>) -> (NotebookRead, Taker) {
        let r = NotebookRead {
            cell: cell.into(),
            pattern: None,
            label: Some(label.into()),
            nth,
        };
        let t = r.taker().unwrap();
        (r, t)
    }

    fn pattern(p: &str) -> (NotebookRead, Taker) {
        let r = NotebookRead {
            cell: "c".into(),
            pattern: Some(p.into()),
            label: None,
            nth: None,
        };
        let t = r.taker().unwrap();
        (r, t)
    }

    #[test]
    fn a_label_takes_the_nth_number_after_it() {
        let printed = "keep_last: 7 batches, last=(4, 4)\ndrop_last: 6 batches, last=(16, 4)\n";
        let (r, t) = label("c", "keep_last:", None);
        assert_eq!(take(&r, &t, printed).unwrap().value, 7.0);
        let (r, t) = label("c", "keep_last:", Some(2));
        assert_eq!(take(&r, &t, printed).unwrap().value, 4.0);
        let (r, t) = label("c", "drop_last:", Some(4));
        let e = take(&r, &t, printed).unwrap_err();
        assert_eq!(e.field, "nth");
        assert!(e.message.contains("has 3 after the label"), "{}", e.message);
    }

    #[test]
    fn a_pattern_must_match_once_and_capture_a_number() {
        let printed = "slow: 0.412s over 3 batches | fast: 0.0011s over 3 batches\n";
        let (r, t) = pattern(r"slow: ([0-9.]+)s");
        let got = take(&r, &t, printed).unwrap();
        assert_eq!(got.value, 0.412);
        assert_eq!(got.line, printed.trim());
        let (r, t) = pattern(r"([0-9.]+)s over");
        assert!(
            take(&r, &t, printed)
                .unwrap_err()
                .message
                .contains("matches 2 times")
        );
        let (r, t) = pattern(r"slow: (\S+) over");
        assert!(
            take(&r, &t, printed)
                .unwrap_err()
                .message
                .contains("not a number")
        );
        let (r, t) = pattern(r"medium: ([0-9.]+)");
        assert!(
            take(&r, &t, printed)
                .unwrap_err()
                .message
                .contains("matches nothing")
        );
        assert!(
            take(&r, &t, "  \n")
                .unwrap_err()
                .message
                .contains("printed nothing")
        );
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(parse_number("3,112"), Some(3112.0));
        assert_eq!(parse_number(" -0.25 "), Some(-0.25));
        assert_eq!(parse_number("1e-3"), Some(0.001));
        assert_eq!(parse_number("0.404s"), None);
        assert_eq!(parse_number("1,2"), None);
        assert_eq!(parse_number("nan"), None);
    }
}
