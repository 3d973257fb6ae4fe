//! How far apart two runs are over their rounds: a 95% interval for the
//! shift between two independent samples (run A's rounds and run B's).
//!
//! The shift is the Hodges-Lehmann estimate, the median of every
//! difference b_j - a_i, and its interval is the distribution-free one
//! that goes with it: sorted, the n·m differences give [D(k),
//! D(nm+1-k)], whose chance of holding the shift is 1 - 2 P(U <= k-1) for
//! U the Mann-Whitney statistic of samples of sizes n and m; k is the
//! largest that keeps that at 95% or more. It assumes only that the two
//! runs' rounds spread alike around their own centres. A ratio is a shift
//! of logarithms, so ex/s B/A comes from the logs of both runs' values.
//!
//! The fewest rounds that reach 95% are 4 and 4 (97.1%) or 3 and 5
//! (96.4%), where the interval runs from the smallest difference to the
//! largest; 6 and 6 give [D(6), D(31)] (95.9%).

use serde::Serialize;

use super::interval::{CONFIDENCE, IntervalReading};

/// How the interval is made, in words, for the output.
pub const METHOD: &str = "the Hodges-Lehmann shift and its distribution-free Mann-Whitney interval";

/// A 95% interval for the shift from run A's rounds to run B's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Shift {
    pub low: f64,
    pub high: f64,
    /// The Hodges-Lehmann estimate: the median of the differences.
    pub estimate: f64,
    /// Its actual coverage (at least 95%).
    pub coverage: f64,
    /// The rounds of each run it was made from.
    pub rounds_a: usize,
    pub rounds_b: usize,
}

/// The number of orderings of n a's and m b's with U = u (the pairs in
/// which the a is the larger), for every u from 0 to n·m. Take away the
/// largest of i a's and j b's: an a was larger than all j b's, a b than
/// none, so N(i, j, u) = N(i-1, j, u-j) + N(i, j-1, u). Only sums: no
/// cancellation, however many rounds.
fn mann_whitney_counts(n: usize, m: usize) -> Vec<f64> {
    // prev[j]: the counts of i-1 a's and j b's.
    let mut prev: Vec<Vec<f64>> = vec![vec![1.0]; m + 1];
    for i in 1..=n {
        let mut cur: Vec<Vec<f64>> = Vec::with_capacity(m + 1);
        cur.push(vec![1.0]);
        for j in 1..=m {
            let v: Vec<f64> = (0..=i * j)
                .map(|u| {
                    let a_largest = u
                        .checked_sub(j)
                        .and_then(|w| prev[j].get(w))
                        .copied()
                        .unwrap_or(0.0);
                    let b_largest = cur[j - 1].get(u).copied().unwrap_or(0.0);
                    a_largest + b_largest
                })
                .collect();
            cur.push(v);
        }
        prev = cur;
    }
    prev.swap_remove(m)
}

/// The rank k of the 95% interval for samples of sizes n and m, with its
/// coverage; None when no k reaches 95%.
pub fn shift_rank(n: usize, m: usize) -> Option<(usize, f64)> {
    if n == 0 || m == 0 {
        return None;
    }
    let counts = mann_whitney_counts(n, m);
    let total: f64 = counts.iter().sum();
    let mut below = 0.0; // orderings with U <= k - 1
    let mut best = None;
    for (k, count) in (1..=(n * m).div_ceil(2)).zip(counts) {
        below += count;
        let coverage = 1.0 - 2.0 * below / total;
        if coverage < CONFIDENCE {
            break;
        }
        best = Some((k, coverage));
    }
    best
}

/// The interval for the shift from `a` to `b` (b - a); None when the
/// rounds are too few for 95%, or a value is not finite.
pub fn shift_interval(a: &[f64], b: &[f64]) -> Option<Shift> {
    if a.iter().chain(b).any(|v| !v.is_finite()) {
        return None;
    }
    let (k, coverage) = shift_rank(a.len(), b.len())?;
    let mut d: Vec<f64> = b
        .iter()
        .flat_map(|y| a.iter().map(move |x| y - x))
        .collect();
    d.sort_by(f64::total_cmp);
    let n = d.len();
    Some(Shift {
        low: d[k - 1],
        high: d[n - k],
        estimate: crate::bench::stats::median(&d),
        coverage,
        rounds_a: a.len(),
        rounds_b: b.len(),
    })
}

/// The interval for the ratio b / a: the shift of the logarithms, taken
/// back; None as for [`shift_interval`], or when a value is not above 0.
pub fn ratio_interval(a: &[f64], b: &[f64]) -> Option<Shift> {
    if a.iter().chain(b).any(|v| *v <= 0.0) {
        return None;
    }
    let logs = |v: &[f64]| v.iter().map(|x| x.ln()).collect::<Vec<_>>();
    let s = shift_interval(&logs(a), &logs(b))?;
    Some(Shift {
        low: s.low.exp(),
        high: s.high.exp(),
        estimate: s.estimate.exp(),
        ..s
    })
}

impl Shift {
    /// How the interval stands against the acceptable values `lo..=hi`.
    pub fn against(&self, lo: f64, hi: f64) -> IntervalReading {
        super::interval::against_range(lo, hi, self.low, self.high)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// C(n+m, n), for checking the counts' total.
    fn choose(n: usize, k: usize) -> f64 {
        (1..=k).fold(1.0, |acc, i| acc * (n + 1 - i) as f64 / i as f64)
    }

    #[test]
    fn the_counts_are_the_mann_whitney_distribution() {
        // Sizes 2 and 2: U = 0, 1, 2, 3, 4 in 1, 1, 2, 1, 1 of the 6 orderings.
        assert_eq!(mann_whitney_counts(2, 2), vec![1.0, 1.0, 2.0, 1.0, 1.0]);
        for (n, m) in [(3, 5), (6, 6), (10, 7), (40, 40), (0, 3)] {
            let c = mann_whitney_counts(n, m);
            let total: f64 = c.iter().sum();
            assert!((total / choose(n + m, n) - 1.0).abs() < 1e-9, "{n} {m}");
            // Symmetric about n·m / 2, and never negative.
            for u in 0..=n * m {
                assert!(c[u] >= 0.0, "{n} {m} {u}");
                assert!((c[u] - c[n * m - u]).abs() <= 1e-9 * total, "{n} {m} {u}");
            }
        }
    }

    #[test]
    fn the_ranks_match_the_published_critical_values() {
        // Two-sided 5% critical values of U (tables of the Mann-Whitney
        // test): n = m = 6 rejects at U <= 5, so k = 6; n = m = 8 at 13;
        // n = m = 10 at 23.
        assert_eq!(shift_rank(6, 6).unwrap().0, 6);
        assert_eq!(shift_rank(8, 8).unwrap().0, 14);
        assert_eq!(shift_rank(10, 10).unwrap().0, 24);
        let (k, coverage) = shift_rank(4, 4).unwrap();
        assert_eq!(k, 1);
        assert!((coverage - (1.0 - 2.0 / 70.0)).abs() < 1e-12);
        assert_eq!(shift_rank(3, 5).unwrap().0, 1);
        // Too few to reach 95%: 3 and 4 orderings number 35.
        assert!(shift_rank(3, 4).is_none());
        assert!(shift_rank(1, 10).is_none());
        // One round against many: 1 and 39 is the least (exactly 95%), as
        // is 2 and 8.
        assert_eq!(shift_rank(1, 39).unwrap().0, 1);
        assert!(shift_rank(1, 38).is_none());
        assert_eq!(shift_rank(2, 8).unwrap().0, 1);
        assert!(shift_rank(2, 7).is_none());
        assert!(shift_rank(0, 10).is_none());
        // Many rounds: still at least 95%.
        let (_, coverage) = shift_rank(100, 100).unwrap();
        assert!((0.95..0.96).contains(&coverage));
    }

    #[test]
    fn a_clear_shift_is_outside_a_band_and_a_small_one_inside() {
        let a = [0.40, 0.41, 0.42, 0.43, 0.44, 0.45];
        let shifted: Vec<f64> = a.iter().map(|x| x + 0.10).collect();
        let s = shift_interval(&a, &shifted).unwrap();
        assert!((s.estimate - 0.10).abs() < 1e-12);
        assert!(s.low > 0.05, "{s:?}");
        assert_eq!(s.against(-0.05, 0.05), IntervalReading::Outside);
        let close: Vec<f64> = a.iter().map(|x| x + 0.01).collect();
        let s = shift_interval(&a, &close).unwrap();
        assert_eq!(s.against(-0.05, 0.05), IntervalReading::Inside);
        // Spread as wide as the shift: the interval cannot tell.
        let wide = [0.30, 0.38, 0.45, 0.50, 0.55, 0.62];
        let s = shift_interval(&a, &wide).unwrap();
        assert_eq!(s.against(-0.05, 0.05), IntervalReading::Straddles);
    }

    #[test]
    fn a_ratio_is_the_shift_of_logarithms() {
        let a = [100.0, 102.0, 98.0, 101.0, 99.0, 100.5];
        let b: Vec<f64> = a.iter().map(|x| x * 1.25).collect();
        let r = ratio_interval(&a, &b).unwrap();
        assert!((r.estimate - 1.25).abs() < 1e-9);
        assert!(r.low > 1.2 && r.high < 1.31, "{r:?}");
        assert!(ratio_interval(&[0.0; 6], &b).is_none());
        assert!(shift_interval(&[f64::NAN; 6], &b).is_none());
    }
}
