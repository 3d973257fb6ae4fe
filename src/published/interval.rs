//! A claim over rounds: each round gives the claim's metric a value of its
//! own, and the verdict reads a 95% interval over the undisturbed rounds.
//!
//! The interval is the distribution-free one for the median, from order
//! statistics: sorted, the values x(1) <= ... <= x(n) give [x(k),
//! x(n+1-k)], whose chance of holding the median is 1 - 2 P(B <= k-1) for
//! B ~ Binomial(n, 1/2); k is the largest that keeps that at 95% or more.
//! It needs no normality, one odd round moves it by one rank at most, and
//! it is exact for any n (a bootstrap is not, at the handful of rounds a
//! run can afford). The least n that reaches 95% is 6, where the interval
//! is [min, max] (96.9%); 9 rounds give [x(2), x(8)] (96.1%). Fewer
//! undisturbed rounds cannot decide a claim.

use serde::Serialize;

use super::claims::{Criterion, Magnitude};

/// The confidence every interval is made for.
pub const CONFIDENCE: f64 = 0.95;

/// The fewest rounds an interval can be made from.
pub const MIN_ROUNDS: usize = 6;

/// How the interval is made, in words, for the output.
pub const METHOD: &str = "order statistics (distribution-free, for the median)";

/// P(B <= j) for B ~ Binomial(n, 1/2).
fn binomial_cdf_half(n: usize, j: usize) -> f64 {
    let mut term = 0.5f64.powi(n as i32); // C(n, 0) / 2^n
    let mut sum = term;
    for i in 1..=j.min(n) {
        term *= (n + 1 - i) as f64 / i as f64;
        sum += term;
    }
    sum
}

/// The coverage of [x(k), x(n+1-k)] for the median of n values.
pub fn coverage(n: usize, k: usize) -> f64 {
    if k == 0 || 2 * k > n + 1 {
        return 0.0;
    }
    1.0 - 2.0 * binomial_cdf_half(n, k - 1)
}

/// The rank k of the 95% interval over n values: the largest with coverage
/// of at least 95%; None below [`MIN_ROUNDS`].
pub fn interval_rank(n: usize) -> Option<usize> {
    (1..=n.div_ceil(2))
        .take_while(|&k| coverage(n, k) >= CONFIDENCE)
        .last()
}

/// A 95% interval for the median of a claim's per-round values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
    /// The median of the values.
    pub median: f64,
    /// Its actual coverage (at least 95%).
    pub coverage: f64,
    /// The values it was made from.
    pub rounds: usize,
}

/// The interval for the median of `values`; None with fewer than
/// [`MIN_ROUNDS`].
pub fn median_interval(values: &[f64]) -> Option<Interval> {
    let n = values.len();
    let k = interval_rank(n)?;
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = crate::bench::stats::median(&sorted);
    Some(Interval {
        low: sorted[k - 1],
        high: sorted[n - k],
        median,
        coverage: coverage(n, k),
        rounds: n,
    })
}

/// How an interval stands against a set of acceptable values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalReading {
    /// Every value of the interval is acceptable.
    Inside,
    /// None is.
    Outside,
    /// Some are, some are not.
    Straddles,
}

/// An interval [low, high] against a criterion (a bound or a range: a
/// convex set, so its ends decide).
pub fn against_criterion(c: &Criterion, low: f64, high: f64) -> IntervalReading {
    let (lo, hi) = match c {
        Criterion::AtLeast(x) => (*x, f64::INFINITY),
        Criterion::AtMost(x) => (f64::NEG_INFINITY, *x),
        Criterion::Between([a, b]) => (*a, *b),
    };
    against_range(lo, hi, low, high)
}

/// An interval of ratios [low, high] against a size band [1/W, W].
pub fn against_band(m: &Magnitude, low: f64, high: f64) -> IntervalReading {
    against_range(1.0 / m.within, m.within, low, high)
}

/// An interval [low, high] against the acceptable values lo..=hi.
pub(crate) fn against_range(lo: f64, hi: f64, low: f64, high: f64) -> IntervalReading {
    if low >= lo && high <= hi {
        IntervalReading::Inside
    } else if high < lo || low > hi {
        IntervalReading::Outside
    } else {
        IntervalReading::Straddles
    }
}

/// One round of a claim: its value, or why it has none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RoundValue {
    Value(f64),
    /// A configuration the claim reads was disturbed in every run of the
    /// round: the highest outside share among them.
    Disturbed(f64),
}

/// What the rounds say about a claim.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RoundsJudgement {
    /// The whole interval meets the criterion (`holds`) or fails it.
    Decided { holds: bool, interval: Interval },
    /// The interval straddles the criterion.
    Straddles { interval: Interval },
    /// Too few undisturbed rounds for an interval.
    TooFew {
        undisturbed: usize,
        rounds: usize,
        /// Rounds left out as disturbed, and the highest outside share
        /// among them.
        disturbed: usize,
        busiest: Option<f64>,
    },
}

/// Judges a claim on its rounds: disturbed rounds never count, and the
/// order of the rounds does not matter.
pub fn judge(rounds: &[RoundValue], criterion: &Criterion) -> RoundsJudgement {
    let values: Vec<f64> = rounds
        .iter()
        .filter_map(|r| match r {
            RoundValue::Value(v) => Some(*v),
            RoundValue::Disturbed(_) => None,
        })
        .collect();
    let disturbed: Vec<f64> = rounds
        .iter()
        .filter_map(|r| match r {
            RoundValue::Disturbed(share) => Some(*share),
            RoundValue::Value(_) => None,
        })
        .collect();
    let Some(interval) = median_interval(&values) else {
        return RoundsJudgement::TooFew {
            undisturbed: values.len(),
            rounds: rounds.len(),
            disturbed: disturbed.len(),
            busiest: disturbed.into_iter().max_by(f64::total_cmp),
        };
    };
    match against_criterion(criterion, interval.low, interval.high) {
        IntervalReading::Inside => RoundsJudgement::Decided {
            holds: true,
            interval,
        },
        IntervalReading::Outside => RoundsJudgement::Decided {
            holds: false,
            interval,
        },
        IntervalReading::Straddles => RoundsJudgement::Straddles { interval },
    }
}

/// The interval of measured / published for a claim's interval; None when
/// the published value is 0 or not finite.
pub fn ratio_interval(interval: &Interval, published: f64) -> Option<(f64, f64)> {
    if published == 0.0 || !published.is_finite() {
        return None;
    }
    let (a, b) = (interval.low / published, interval.high / published);
    Some((a.min(b), a.max(b)))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn six_rounds_is_the_least_that_reaches_95_percent() {
        assert_eq!(interval_rank(5), None);
        assert!((coverage(5, 1) - 0.9375).abs() < 1e-12);
        assert_eq!(interval_rank(6), Some(1));
        assert!((coverage(6, 1) - (1.0 - 2.0 / 64.0)).abs() < 1e-12);
        assert_eq!(interval_rank(8), Some(1), "k = 2 covers only 93%");
        assert_eq!(interval_rank(9), Some(2));
        assert!((coverage(9, 2) - (1.0 - 20.0 / 512.0)).abs() < 1e-12);
        assert_eq!(interval_rank(20), Some(6));
        for n in MIN_ROUNDS..=100 {
            let k = interval_rank(n).unwrap();
            assert!(coverage(n, k) >= CONFIDENCE, "{n}");
            assert!(coverage(n, k + 1) < CONFIDENCE, "{n}: k is the largest");
        }
    }

    #[test]
    fn the_interval_of_six_is_the_range_and_of_nine_drops_one_each_end() {
        let i = median_interval(&[5.0, 4.1, 5.6, 4.9, 5.2, 5.3]).unwrap();
        assert_eq!((i.low, i.high), (4.1, 5.6));
        assert_eq!(i.median, (5.0 + 5.2) / 2.0);
        assert_eq!(i.rounds, 6);
        let i = median_interval(&[9.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]).unwrap();
        assert_eq!((i.low, i.high, i.median), (2.0, 8.0, 5.0));
        assert!(median_interval(&[1.0; 5]).is_none());
    }

    #[test]
    fn an_interval_reads_inside_outside_or_straddling() {
        let at_least = Criterion::AtLeast(5.0);
        assert_eq!(
            against_criterion(&at_least, 5.0, 6.0),
            IntervalReading::Inside
        );
        assert_eq!(
            against_criterion(&at_least, 4.1, 5.6),
            IntervalReading::Straddles
        );
        assert_eq!(
            against_criterion(&at_least, 3.0, 4.9),
            IntervalReading::Outside
        );
        let flat = Criterion::Between([0.95, 1.05]);
        assert_eq!(
            against_criterion(&flat, 0.96, 0.99),
            IntervalReading::Inside
        );
        assert_eq!(
            against_criterion(&flat, 0.90, 1.10),
            IntervalReading::Straddles
        );
        assert_eq!(
            against_criterion(&flat, 1.06, 1.2),
            IntervalReading::Outside
        );
        let at_most = Criterion::AtMost(0.75);
        assert_eq!(
            against_criterion(&at_most, 0.8, 0.9),
            IntervalReading::Outside
        );
        let band = Magnitude { within: 2.0 };
        assert_eq!(against_band(&band, 0.45, 0.55), IntervalReading::Straddles);
        assert_eq!(against_band(&band, 0.2, 0.4), IntervalReading::Outside);
        assert_eq!(against_band(&band, 0.6, 1.9), IntervalReading::Inside);
    }

    #[test]
    fn too_few_undisturbed_rounds_say_how_many_and_how_busy() {
        let rounds = [
            RoundValue::Value(7.0),
            RoundValue::Disturbed(0.38),
            RoundValue::Disturbed(0.12),
            RoundValue::Value(7.1),
            RoundValue::Disturbed(0.2),
            RoundValue::Value(7.2),
        ];
        assert_eq!(
            judge(&rounds, &Criterion::AtLeast(5.0)),
            RoundsJudgement::TooFew {
                undisturbed: 3,
                rounds: 6,
                disturbed: 3,
                busiest: Some(0.38)
            }
        );
    }

    #[test]
    fn the_ratio_interval_keeps_its_order_whatever_the_sign() {
        let i = median_interval(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        assert_eq!(ratio_interval(&i, 2.0), Some((0.5, 3.0)));
        assert_eq!(ratio_interval(&i, -2.0), Some((-3.0, -0.5)));
        assert_eq!(ratio_interval(&i, 0.0), None);
    }

    /// Rounds of a claim whose values lie in [lo, hi].
    fn values(lo: f64, hi: f64, n: std::ops::Range<usize>) -> impl Strategy<Value = Vec<f64>> {
        prop::collection::vec(lo..hi, n)
    }

    proptest! {
        #[test]
        fn a_criterion_every_round_meets_with_room_to_spare_is_reproduced(
            v in values(5.5, 9.0, 6..30),
        ) {
            let j = judge(&v.iter().map(|&x| RoundValue::Value(x)).collect::<Vec<_>>(),
                &Criterion::AtLeast(5.0));
            prop_assert!(matches!(j, RoundsJudgement::Decided { holds: true, .. }), "{j:?}");
        }

        #[test]
        fn rounds_that_fail_it_every_time_are_not_reproduced(v in values(0.5, 4.5, 6..30)) {
            let j = judge(&v.iter().map(|&x| RoundValue::Value(x)).collect::<Vec<_>>(),
                &Criterion::AtLeast(5.0));
            prop_assert!(matches!(j, RoundsJudgement::Decided { holds: false, .. }), "{j:?}");
        }

        #[test]
        fn a_set_straddling_the_criterion_is_inconclusive(
            below in values(3.0, 4.9, 1..4),
            above in values(5.1, 7.0, 1..4),
            middle in values(4.9, 5.1, 4..6),
        ) {
            // The lowest and the highest of at most 11 rounds are in the
            // interval's ends' reach: one below 5, one above.
            let mut v = below;
            v.extend(above);
            v.extend(middle);
            let n = v.len();
            let k = interval_rank(n).unwrap();
            prop_assume!(k == 1);
            let j = judge(&v.iter().map(|&x| RoundValue::Value(x)).collect::<Vec<_>>(),
                &Criterion::AtLeast(5.0));
            prop_assert!(matches!(j, RoundsJudgement::Straddles { .. }), "{j:?}");
        }

        #[test]
        fn the_order_of_the_rounds_does_not_matter(
            v in values(0.0, 10.0, 1..30),
            disturbed in prop::collection::vec(any::<bool>(), 30),
            seed in any::<u64>(),
            criterion in prop_oneof![
                (0.0..10.0).prop_map(Criterion::AtLeast),
                (0.0..10.0).prop_map(Criterion::AtMost),
                (0.0..5.0, 5.0..10.0).prop_map(|(a, b)| Criterion::Between([a, b])),
            ],
        ) {
            let rounds: Vec<RoundValue> = v
                .iter()
                .zip(&disturbed)
                .map(|(&x, &d)| if d { RoundValue::Disturbed(x / 10.0) } else { RoundValue::Value(x) })
                .collect();
            let mut shuffled = rounds.clone();
            // A permutation from the seed (Fisher-Yates with an LCG).
            let mut state = seed;
            for i in (1..shuffled.len()).rev() {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let j = (state >> 33) as usize % (i + 1);
                shuffled.swap(i, j);
            }
            prop_assert_eq!(judge(&rounds, &criterion), judge(&shuffled, &criterion));
        }

        #[test]
        fn a_disturbed_round_never_counts(
            v in values(5.5, 9.0, 6..20),
            share in 0.06f64..1.0,
        ) {
            let clean: Vec<RoundValue> = v.iter().map(|&x| RoundValue::Value(x)).collect();
            let mut with = clean.clone();
            with.push(RoundValue::Disturbed(share));
            let criterion = Criterion::AtLeast(5.0);
            // A disturbed round changes neither the interval nor the verdict
            // (`diff`'s tests give one a wild value to show it is not read).
            prop_assert_eq!(judge(&clean, &criterion), judge(&with, &criterion));
            // And rounds disturbed until fewer than six are left decide nothing.
            let mut few: Vec<RoundValue> = clean[..5].to_vec();
            few.extend(std::iter::repeat_n(RoundValue::Disturbed(share), v.len() - 5));
            let is_too_few = matches!(judge(&few, &criterion), RoundsJudgement::TooFew { undisturbed: 5, .. });
            prop_assert!(is_too_few);
        }
    }
}
