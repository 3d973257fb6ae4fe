//! A claim's verdict and the flags beside it, in one place: what each
//! verdict class and each flag is called, how it reads in text, whether it
//! fails the check, and its tone (which a terminal shows as a colour).
//!
//! Everything that prints a verdict (`diff`, `reproduce`, `status`, the
//! report, both sites) formats it through [`FlaggedVerdict`], and records
//! keep the same types, so nothing parses a verdict back out of text. A new
//! verdict class is a variant of [`ClaimVerdict`] and a new flag a variant
//! of [`VerdictFlag`]; the compiler then names every place that must decide
//! what it means there (its wording on the site, in the report, in a
//! record).

use std::fmt;

use serde::{Deserialize, Serialize};

/// A claim's verdict class.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display, strum::EnumIter,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
pub enum ClaimVerdict {
    Reproduced,
    NotReproduced,
    /// The measurement cannot decide: the interval over the rounds
    /// straddles the criterion, or too few undisturbed rounds remained
    /// (other processes took the run's CPUs); the reason says which. Never
    /// evidence against the chapter.
    Inconclusive,
    /// A precondition is not met; the reason says which.
    NotComparable,
    /// No measurement covers the claim.
    Unrun,
}

impl ClaimVerdict {
    /// Every class, in the order counts list them.
    pub fn all() -> impl Iterator<Item = ClaimVerdict> {
        <ClaimVerdict as strum::IntoEnumIterator>::iter()
    }

    /// How the verdict sounds.
    pub fn tone(self) -> Tone {
        match self {
            ClaimVerdict::Reproduced => Tone::Good,
            ClaimVerdict::NotReproduced => Tone::Bad,
            ClaimVerdict::Inconclusive | ClaimVerdict::NotComparable | ClaimVerdict::Unrun => {
                Tone::Caution
            }
        }
    }

    /// Whether the claim held: the measurement agrees with it.
    pub fn holds(self) -> bool {
        self == ClaimVerdict::Reproduced
    }

    /// Whether the verdict fails the check (exit status 1).
    pub fn fails(self) -> bool {
        self == ClaimVerdict::NotReproduced
    }

    /// Whether the verdict fails a strict check (`reproduce --strict`):
    /// also when the measurement could not decide.
    pub fn fails_strictly(self) -> bool {
        self.fails() || self == ClaimVerdict::Inconclusive
    }

    /// What the class means, once, for a legend.
    pub fn meaning(self) -> &'static str {
        match self {
            ClaimVerdict::Reproduced => {
                "the measurement meets the claim's criterion (with rounds: its whole 95% interval does)"
            }
            ClaimVerdict::NotReproduced => {
                "the measurement fails the criterion (with rounds: its whole 95% interval does)"
            }
            ClaimVerdict::Inconclusive => {
                "the measurement cannot decide: its interval straddles the criterion, or other processes took the CPUs in too many rounds; never evidence against the chapter"
            }
            ClaimVerdict::NotComparable => {
                "the run does not meet a precondition of the claim (CPUs, worker kind, the table's settings)"
            }
            ClaimVerdict::Unrun => "no measurement covers the claim",
        }
    }
}

/// What qualifies a verdict without changing its class.
#[derive(Debug, Clone, PartialEq)]
pub enum VerdictFlag {
    /// The direction held but the size did not: measured / published.
    MagnitudeDiffers(f64),
    /// The direction held, and the interval of measured / published over
    /// the rounds straddles the size band: (low, high).
    MagnitudeUncertain(f64, f64),
    /// The evidence is the embedded engine's, in a row where the model is
    /// least like the DataLoader: its split between wait and work with
    /// CPU-bound workers outnumbering the CPUs, or its ex/s with no
    /// training step under 1 ms; names the row (`spin, 8 workers on 1 CPU`,
    /// `sleep, 8 workers, consumer under 1 ms`).
    ModelLimit(String),
    /// The metric reads the ex/s of a configuration whose window, measured
    /// from the loader's creation, is largely the time to its first batch;
    /// names the row and the share (`sleep, 8 workers: 69% of the window
    /// before the first batch`).
    StartInWindow(String),
    /// The quoted sentence is not in the revision compared with.
    QuoteMissing,
}

impl VerdictFlag {
    /// The flag's name, as every text form prints it.
    pub fn name(&self) -> &'static str {
        match self {
            VerdictFlag::MagnitudeDiffers(_) => "magnitude differs",
            VerdictFlag::MagnitudeUncertain(..) => "magnitude uncertain",
            VerdictFlag::ModelLimit(_) => "model limit",
            VerdictFlag::StartInWindow(_) => "start-up in window",
            VerdictFlag::QuoteMissing => "QUOTE_MISSING",
        }
    }

    /// What the flag is about, printed in parentheses after its name.
    pub fn detail(&self) -> Option<String> {
        match self {
            VerdictFlag::MagnitudeDiffers(ratio) => Some(format!("x{}", short_ratio(*ratio))),
            VerdictFlag::MagnitudeUncertain(lo, hi) => {
                Some(format!("x{} to x{}", short_ratio(*lo), short_ratio(*hi)))
            }
            VerdictFlag::ModelLimit(row) | VerdictFlag::StartInWindow(row) => Some(row.clone()),
            VerdictFlag::QuoteMissing => None,
        }
    }

    /// How the flag sounds.
    pub fn tone(&self) -> Tone {
        match self {
            VerdictFlag::MagnitudeDiffers(_)
            | VerdictFlag::MagnitudeUncertain(..)
            | VerdictFlag::ModelLimit(_)
            | VerdictFlag::StartInWindow(_) => Tone::Caution,
            VerdictFlag::QuoteMissing => Tone::Bad,
        }
    }

    /// What the flag means, once, for a legend.
    pub fn meaning(&self) -> &'static str {
        match self {
            VerdictFlag::MagnitudeDiffers(_) => {
                "the direction holds, the size does not: the ratio measured / published (with rounds: its whole interval) is outside the claim's band"
            }
            VerdictFlag::MagnitudeUncertain(..) => {
                "the direction holds; the interval of the ratio measured / published straddles the claim's band, so the rounds cannot say whether the size holds"
            }
            VerdictFlag::ModelLimit(_) => {
                "measured by the embedded engine in a row where its model departs from the DataLoader or is not known to match it: CPU-bound workers that outnumber the CPUs (the split between wait and work turns on where the scheduler's time slice runs out), or a consumer under 1 ms a batch (compared with PyTorch only at 0 ms, where its ex/s with workers ran x0.93 to x1.37 of PyTorch's); the direction can be trusted further than the size, and a run on the pytorch engine checks it"
            }
            VerdictFlag::StartInWindow(_) => {
                "the window ex/s is measured over begins when the loader is made, and here the first batch came only after a large share of it (the workers' start: forking them, each setting itself up, their first batches made side by side): the figure says as much about starting as about running; a run of more batches per configuration weighs the start less, and the chapter does not say how long its window was"
            }
            VerdictFlag::QuoteMissing => {
                "the quoted sentence is not in the revision compared with; fails the check"
            }
        }
    }

    /// Whether the flag fails the check whatever the verdict (a verdict
    /// about a sentence the chapter no longer has cannot pass).
    pub fn fails(&self) -> bool {
        matches!(self, VerdictFlag::QuoteMissing)
    }

    /// Whether the flag is about what was measured, and so may differ from
    /// one environment to another (whether a quote is in the revision does
    /// not).
    pub fn is_about_the_measurement(&self) -> bool {
        match self {
            VerdictFlag::MagnitudeDiffers(_)
            | VerdictFlag::MagnitudeUncertain(..)
            | VerdictFlag::ModelLimit(_)
            | VerdictFlag::StartInWindow(_) => true,
            VerdictFlag::QuoteMissing => false,
        }
    }

    /// Whether `other` is the same flag, whatever its detail.
    pub fn is_like(&self, other: &VerdictFlag) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }

    /// The flag with its detail, `magnitude differs (x0.007)`, with its name
    /// marked by `paint`.
    pub fn painted(&self, paint: &dyn Paint) -> String {
        let name = paint.paint(self.tone(), self.name());
        match self.detail() {
            Some(detail) => format!("{name} ({detail})"),
            None => name,
        }
    }
}

impl fmt::Display for VerdictFlag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.painted(&Plain))
    }
}

/// A verdict with its flags, as every text form prints it:
/// `REPRODUCED, magnitude differs (x0.007), QUOTE_MISSING`. Serialized as
/// that text.
#[derive(Debug, Clone, PartialEq)]
pub struct FlaggedVerdict {
    pub class: ClaimVerdict,
    /// In the order they are printed.
    pub flags: Vec<VerdictFlag>,
}

impl FlaggedVerdict {
    /// Whether a flag like `flag` (whatever its detail) is set.
    pub fn has(&self, flag: &VerdictFlag) -> bool {
        self.flags.iter().any(|f| f.is_like(flag))
    }

    /// The ratio, when the magnitude differs.
    pub fn magnitude_differs(&self) -> Option<f64> {
        self.flags.iter().find_map(|f| match f {
            VerdictFlag::MagnitudeDiffers(ratio) => Some(*ratio),
            _ => None,
        })
    }

    /// Whether the quoted sentence is missing from the revision.
    pub fn quote_missing(&self) -> bool {
        self.flags.contains(&VerdictFlag::QuoteMissing)
    }

    /// Whether the verdict or one of its flags fails the check.
    pub fn fails(&self) -> bool {
        self.class.fails() || self.flags.iter().any(VerdictFlag::fails)
    }

    /// Whether it fails a strict check: also when INCONCLUSIVE.
    pub fn fails_strictly(&self) -> bool {
        self.class.fails_strictly() || self.fails()
    }

    /// The verdict with only the flags about what was measured (see
    /// [`VerdictFlag::is_about_the_measurement`]): what one environment's
    /// evidence says beside another's.
    pub fn of_the_measurement(&self) -> FlaggedVerdict {
        FlaggedVerdict {
            class: self.class,
            flags: self
                .flags
                .iter()
                .filter(|f| f.is_about_the_measurement())
                .cloned()
                .collect(),
        }
    }

    /// The text, with the verdict's and the flags' names marked by `paint`.
    pub fn painted(&self, paint: &dyn Paint) -> String {
        let mut s = paint.paint(self.class.tone(), &self.class.to_string());
        for flag in &self.flags {
            s.push_str(", ");
            s.push_str(&flag.painted(paint));
        }
        s
    }
}

impl fmt::Display for FlaggedVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.painted(&Plain))
    }
}

impl Serialize for FlaggedVerdict {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// How a verdict or flag sounds: what it asks of the author.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// The evidence backs the chapter.
    Good,
    /// Read the reason before relying on it.
    Caution,
    /// The evidence contradicts the chapter, or cannot speak for it.
    Bad,
}

/// How text marks the words of a verdict: [`Plain`] for files, pipes and
/// documents; the command line has one that paints them in colour.
pub trait Paint {
    /// `word`, marked for its tone.
    fn paint(&self, tone: Tone, word: &str) -> String;
}

/// Words as they are.
#[derive(Debug, Clone, Copy, Default)]
pub struct Plain;

impl Paint for Plain {
    fn paint(&self, _: Tone, word: &str) -> String {
        word.to_string()
    }
}

/// A ratio in a few significant figures: 0.007, 1.49, 150.
pub fn short_ratio(r: f64) -> String {
    let a = r.abs();
    if a >= 100.0 {
        format!("{r:.0}")
    } else if a >= 1.0 {
        format!("{r:.2}")
    } else {
        format!("{r:.2e}")
            .parse::<f64>()
            .map_or(format!("{r:.3}"), |v| v.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marks each word with its tone, to see what was painted.
    struct Marked;

    impl Paint for Marked {
        fn paint(&self, tone: Tone, word: &str) -> String {
            format!("<{tone:?}>{word}</>")
        }
    }

    fn every_flag() -> FlaggedVerdict {
        FlaggedVerdict {
            class: ClaimVerdict::Reproduced,
            flags: vec![
                VerdictFlag::MagnitudeDiffers(0.007117),
                VerdictFlag::ModelLimit("spin, 8 workers on 1 CPU".into()),
                VerdictFlag::QuoteMissing,
            ],
        }
    }

    #[test]
    fn a_verdict_reads_with_its_flags_in_order() {
        let v = every_flag();
        assert_eq!(
            v.to_string(),
            "REPRODUCED, magnitude differs (x0.00712), model limit (spin, 8 workers on 1 CPU), QUOTE_MISSING"
        );
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            format!("\"{v}\""),
            "serialized as its text"
        );
        assert_eq!(
            v.painted(&Marked),
            "<Good>REPRODUCED</>, <Caution>magnitude differs</> (x0.00712), <Caution>model limit</> (spin, 8 workers on 1 CPU), <Bad>QUOTE_MISSING</>"
        );
        assert_eq!(v.magnitude_differs(), Some(0.007117));
        assert!(v.quote_missing());
    }

    #[test]
    fn what_fails_the_check_is_a_verdict_not_reproduced_or_a_missing_quote() {
        let v = every_flag();
        assert!(v.fails(), "a missing quote fails");
        let measured = v.of_the_measurement();
        assert!(!measured.fails());
        assert!(!measured.quote_missing());
        assert_eq!(measured.flags.len(), 2);
        for class in ClaimVerdict::all() {
            let bare = FlaggedVerdict {
                class,
                flags: Vec::new(),
            };
            assert_eq!(bare.fails(), class == ClaimVerdict::NotReproduced);
            assert_eq!(
                bare.fails_strictly(),
                matches!(
                    class,
                    ClaimVerdict::NotReproduced | ClaimVerdict::Inconclusive
                )
            );
            assert_eq!(class.holds(), class == ClaimVerdict::Reproduced);
        }
    }

    #[test]
    fn the_classes_are_listed_in_the_order_counts_give_them() {
        let words: Vec<String> = ClaimVerdict::all().map(|v| v.to_string()).collect();
        assert_eq!(
            words,
            [
                "REPRODUCED",
                "NOT_REPRODUCED",
                "INCONCLUSIVE",
                "NOT_COMPARABLE",
                "UNRUN"
            ]
        );
        let parsed: ClaimVerdict = serde_yaml::from_str("INCONCLUSIVE").unwrap();
        assert_eq!(parsed, ClaimVerdict::Inconclusive);
        let parsed: ClaimVerdict = serde_yaml::from_str("NOT_COMPARABLE").unwrap();
        assert_eq!(parsed, ClaimVerdict::NotComparable);
    }

    #[test]
    fn an_uncertain_magnitude_names_the_interval_of_the_ratio() {
        let v = FlaggedVerdict {
            class: ClaimVerdict::Reproduced,
            flags: vec![VerdictFlag::MagnitudeUncertain(0.4512, 0.5531)],
        };
        assert_eq!(
            v.to_string(),
            "REPRODUCED, magnitude uncertain (x0.451 to x0.553)"
        );
        assert!(!v.fails() && !v.fails_strictly());
        assert!(
            v.of_the_measurement()
                .has(&VerdictFlag::MagnitudeUncertain(0.0, 0.0))
        );
    }

    #[test]
    fn ratios_keep_a_few_significant_figures() {
        assert_eq!(short_ratio(0.007117), "0.00712");
        assert_eq!(short_ratio(1.4949), "1.49");
        assert_eq!(short_ratio(150.4), "150");
        assert_eq!(short_ratio(0.5), "0.5");
    }
}
