//! What deciding a notebook claim gives, as a notebook run file and its
//! record keep it ([`NotebookClaimResult`]), and the verdict in words. Apart
//! from `claims`, which decides them from a run, so that the run file can
//! hold them without an import circle between the two.
//!
//! Each kernel's value is written plainly (`7.0`, or the reason it gave
//! none as a string), with no YAML tag, so any YAML reader takes the file.

use serde::{Deserialize, Serialize};

use crate::published::verdict::ClaimVerdict;

/// What one kernel gave a claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum KernelValue {
    /// The metric's value in this kernel.
    Value(f64),
    /// Why this kernel gave none, in words.
    Failed(String),
}

/// A notebook claim decided from a notebook run, as the run file and the
/// record keep it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotebookClaimResult {
    pub claim: String,
    pub quote: String,
    pub metric: String,
    /// The value the text states.
    pub stated: f64,
    /// What a run must print, in words (`>= 3`, `between 1.03 and 1.07`, `exactly 7`).
    pub criterion: String,
    pub verdict: ClaimVerdict,
    /// The value: the one every kernel printed, or the median across them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<f64>,
    /// Where the value varied across kernels: the range it took (fewer
    /// than six kernels) or the 95% interval of its median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<KernelSpread>,
    /// measured / stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// The claim holds but its size does not: measured / stated outside the
    /// claim's magnitude band.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub magnitude_differs: Option<f64>,
    /// Why, for INCONCLUSIVE and UNRUN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The code cells it read, by id.
    pub cells: Vec<String>,
    /// The printed lines its values were taken from (in the first kernel
    /// that gave them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub printed: Vec<String>,
    /// Each kernel's value, in run order.
    pub kernels: Vec<KernelValue>,
}

/// How a value varied across kernels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KernelSpread {
    pub low: f64,
    pub high: f64,
    /// `range` (the lowest and highest value) or `interval` (the 95%
    /// interval of the median).
    pub kind: SpreadKind,
    pub kernels: usize,
}

/// What a [`KernelSpread`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum SpreadKind {
    Range,
    Interval,
}

impl NotebookClaimResult {
    /// The cells it read, as a source says it: `notebook cell c06-e1code`.
    pub fn source(&self) -> String {
        let cells = self.cells.join(", ");
        if self.cells.len() == 1 {
            format!("notebook cell {cells}")
        } else {
            format!("notebook cells {cells}")
        }
    }

    /// The verdict in words, with the printed line it rests on.
    pub fn in_words(&self) -> String {
        let printed = self
            .printed
            .iter()
            .map(|l| format!("`{}`", crate::text::escape::visible(l)))
            .collect::<Vec<_>>()
            .join(", ");
        let all = self.kernels.len();
        let gave = self
            .kernels
            .iter()
            .filter(|k| matches!(k, KernelValue::Value(_)))
            .count();
        // "3 kernels", or "the 4 of 6 kernels that gave a value".
        let kernels = if gave == all {
            format!("{all} kernel{}", if all == 1 { "" } else { "s" })
        } else {
            format!("the {gave} of {all} kernels that gave a value")
        };
        let value = match (self.measured, self.spread) {
            (Some(m), Some(s)) => {
                let [_, low, high] = crate::published::in_words::figures_apart([m, s.low, s.high]);
                format!(
                    "{} varies across {kernels}: {} {low} to {high}",
                    self.metric,
                    if s.kind == SpreadKind::Range {
                        "from"
                    } else {
                        "95% interval of the median"
                    },
                )
            }
            (Some(m), None) if gave == 1 && all == 1 => {
                format!("{} = {} in 1 kernel", self.metric, figures(m))
            }
            (Some(m), None) if gave == all => {
                format!("{} = {} in each of {kernels}", self.metric, figures(m))
            }
            (Some(m), None) => format!("{} = {} in {kernels}", self.metric, figures(m)),
            (None, _) => format!("{} gave no value", self.metric),
        };
        let mut s = format!(
            "{}: {value} ({}{}); the text states {}, a run must give {}",
            self.verdict,
            self.source(),
            if printed.is_empty() {
                String::new()
            } else {
                format!(" printed {printed}")
            },
            figures(self.stated),
            self.criterion
        );
        if let Some(r) = self.magnitude_differs {
            s.push_str(&format!(
                "; magnitude differs ({}x the stated value)",
                figures(r)
            ));
        }
        if let Some(reason) = &self.reason {
            s.push_str(&format!("; {reason}"));
        }
        s
    }
}

fn figures(x: f64) -> String {
    crate::published::in_words::figures(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_count_only_the_kernels_that_gave_a_value() {
        let r = NotebookClaimResult {
            claim: "c".into(),
            quote: "q".into(),
            metric: "nb.f".into(),
            stated: 5.0,
            criterion: "exactly 5".into(),
            verdict: ClaimVerdict::Inconclusive,
            measured: Some(5.0),
            spread: None,
            ratio: Some(1.0),
            magnitude_differs: None,
            reason: Some("the notebook failed to give a value in 2 of 6 kernels".into()),
            cells: vec!["f".into()],
            printed: vec!["f: 5".into()],
            kernels: [5.0, 5.0, 5.0, 5.0]
                .into_iter()
                .map(KernelValue::Value)
                .chain((0..2).map(|k| KernelValue::Failed(format!("raised in kernel {k}"))))
                .collect(),
        };
        let words = r.in_words();
        assert!(
            words.contains("nb.f = 5 in the 4 of 6 kernels that gave a value"),
            "{words}"
        );
        assert!(!words.contains("each of 6"), "{words}");
    }
}
