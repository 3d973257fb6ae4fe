//! What a claim states and what a measurement must show: the stated value
//! with its tolerance, the reproduction criterion, and the magnitude band,
//! shared by the pipeline's claims and the notebook's.

use serde::{Deserialize, Serialize};

/// A size band: the measured value is the same size as the published one
/// when their ratio lies between 1/within and within.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Magnitude {
    pub within: f64,
}

impl Magnitude {
    /// Whether `ratio` (measured / published) is inside the band.
    pub fn holds(&self, ratio: f64) -> bool {
        ratio.is_finite() && ratio >= 1.0 / self.within && ratio <= self.within
    }
}

/// A stated value and how far the tables may be from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stated {
    pub value: f64,
    pub tolerance: f64,
}

/// A reproduction criterion: a bound or a two-sided range. Written in YAML
/// as exactly one of `{at_least: x}`, `{at_most: x}`, `{between: [lo, hi]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "CriterionFields", into = "CriterionFields")]
pub enum Criterion {
    AtLeast(f64),
    AtMost(f64),
    Between([f64; 2]),
}

/// The YAML shape of a [`Criterion`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CriterionFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_least: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_most: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between: Option<[f64; 2]>,
}

impl TryFrom<CriterionFields> for Criterion {
    type Error = String;
    fn try_from(f: CriterionFields) -> std::result::Result<Self, String> {
        match (f.at_least, f.at_most, f.between) {
            (Some(x), None, None) => Ok(Criterion::AtLeast(x)),
            (None, Some(x), None) => Ok(Criterion::AtMost(x)),
            (None, None, Some([lo, hi])) if lo <= hi => Ok(Criterion::Between([lo, hi])),
            (None, None, Some([lo, hi])) => Err(format!("between: {lo} is above {hi}")),
            _ => Err("give exactly one of at_least, at_most or between".into()),
        }
    }
}

impl From<Criterion> for CriterionFields {
    fn from(c: Criterion) -> Self {
        match c {
            Criterion::AtLeast(x) => CriterionFields {
                at_least: Some(x),
                ..Default::default()
            },
            Criterion::AtMost(x) => CriterionFields {
                at_most: Some(x),
                ..Default::default()
            },
            Criterion::Between(r) => CriterionFields {
                between: Some(r),
                ..Default::default()
            },
        }
    }
}

impl Criterion {
    /// Whether `x` meets it.
    pub fn holds(&self, x: f64) -> bool {
        match self {
            Criterion::AtLeast(lo) => x >= *lo,
            Criterion::AtMost(hi) => x <= *hi,
            Criterion::Between([lo, hi]) => x >= *lo && x <= *hi,
        }
    }
}

impl std::fmt::Display for Criterion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Criterion::AtLeast(lo) => write!(f, ">= {lo}"),
            Criterion::AtMost(hi) => write!(f, "<= {hi}"),
            Criterion::Between([lo, hi]) if lo == hi => write!(f, "exactly {lo}"),
            Criterion::Between([lo, hi]) => write!(f, "between {lo} and {hi}"),
        }
    }
}
