//! A claim's measurement said in words, as the research prompt and the book's
//! site give it: what the metric compares, the measured value beside the
//! chapter's, how the value was taken (an interval when the run gives one,
//! else "single run" or the median of repeats), and the engine.
//! `spin.w8.wait_mean / spin.w0.wait_mean` at 0.225 reads "spin at 8
//! workers waits 0.225x as long as at 0 (the chapter: 0.447x)".
//!
//! Built from the typed result ([`ClaimResult`] and its
//! [`FlaggedVerdict`](super::verdict::FlaggedVerdict)), never from text.

use super::diff::ClaimResult;
use super::verdict::ClaimVerdict;

/// A 95% interval of a measured value, and how it was found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntervalWords<'a> {
    pub low: f64,
    pub high: f64,
    pub method: &'a str,
}

/// How a measured value was taken.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpreadWords<'a> {
    /// With an interval.
    Interval(IntervalWords<'a>),
    /// Rounds, but too few of them undisturbed for an interval.
    Rounds { rounds: usize, counted: usize },
    /// Without rounds: from this many runs (medians when more than one).
    Runs(usize),
}

impl<'a> SpreadWords<'a> {
    /// How `c`'s value was taken: its rounds' interval when the run gave
    /// one, else from `runs` runs of each configuration (a run file made
    /// before rounds: `--repeat`).
    pub fn of(c: &'a ClaimResult, runs: usize) -> SpreadWords<'a> {
        match &c.rounds {
            Some(r) => match &r.interval {
                Some(i) => SpreadWords::Interval(IntervalWords {
                    low: i.low,
                    high: i.high,
                    method: r.method,
                }),
                None => SpreadWords::Rounds {
                    rounds: r.rounds,
                    counted: r.values.len(),
                },
            },
            None => SpreadWords::Runs(runs),
        }
    }

    fn words(&self) -> String {
        match self {
            SpreadWords::Interval(i) => format!(
                "95% interval {} to {} ({})",
                figures(i.low),
                figures(i.high),
                i.method
            ),
            SpreadWords::Rounds { rounds, counted } => {
                format!("{counted} of {rounds} rounds undisturbed, too few for an interval")
            }
            SpreadWords::Runs(n) if *n <= 1 => "single run".to_string(),
            SpreadWords::Runs(n) => format!("median of {n} runs, no interval"),
        }
    }
}

/// A value and the ends of its range, written to three significant figures
/// (whole numbers as they are) or with as many more decimals (up to six) as
/// tell the low and the high apart, so a range never reads as one number
/// twice: `1.050 (1.048 to 1.052)`, not `1.05 (1.05 to 1.05)`.
pub fn figures_apart([m, low, high]: [f64; 3]) -> [String; 3] {
    let magnitude = m.abs().max(low.abs()).max(high.abs());
    let whole = [m, low, high].iter().all(|x| x.fract() == 0.0);
    let first = if whole || magnitude <= 0.0 {
        0
    } else {
        (2 - magnitude.log10().floor() as i64).clamp(0, 12) as usize
    };
    match (first..=first + 6).find(|d| format!("{low:.d$}") != format!("{high:.d$}")) {
        Some(d) => [
            format!("{m:.d$}"),
            format!("{low:.d$}"),
            format!("{high:.d$}"),
        ],
        None => [figures(m), figures(low), figures(high)],
    }
}

/// A value in a few figures, enough to tell 0.996 from 0.989: `7.79`,
/// `0.225`, `444`, `28.1`, `0.0451`.
pub fn figures(x: f64) -> String {
    let a = x.abs();
    let s = if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else if a == 0.0 || !a.is_finite() {
        format!("{x}")
    } else {
        let decimals = (2.0 - a.log10().floor()).max(0.0) as usize;
        format!("{x:.decimals$}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// One cell a metric reads: `spin.w8.wait_mean`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct MetricCell<'a> {
    producer: &'a str,
    workers: &'a str,
    column: &'a str,
}

fn cell(text: &str) -> Option<MetricCell<'_>> {
    let mut parts = text.trim().split('.');
    let (producer, w, column) = (parts.next()?, parts.next()?, parts.next()?);
    let workers = w.strip_prefix('w')?;
    (parts.next().is_none()
        && !workers.is_empty()
        && workers.chars().all(|c| c.is_ascii_digit())
        && !producer.is_empty())
    .then_some(MetricCell {
        producer,
        workers,
        column,
    })
}

/// What a column is, as a noun.
fn noun(column: &str) -> String {
    match column {
        "ex_s" => "throughput".into(),
        "wait_mean" => "mean wait".into(),
        "wait_p50" => "median wait".into(),
        "wait_p95" => "95th-percentile wait".into(),
        "wait_max" => "longest wait".into(),
        "work" => "work per step".into(),
        "wait_frac" => "share of each step spent waiting".into(),
        other => other.to_string(),
    }
}

/// How a value of a metric reads: `0.225x`, `0.5 lower`, `444`.
type ValueWords = fn(f64) -> String;

/// What the metric says a value of it means, with the value's place marked
/// `{}`, and how a value reads there.
fn shape(metric: &str) -> Option<(String, ValueWords)> {
    let ratio = |x: f64| format!("{}x", figures(x));
    if let Some((a, b)) = metric.split_once(" / ") {
        let (a, b) = (cell(a)?, cell(b)?);
        if a.producer != b.producer || a.column != b.column {
            return None;
        }
        let said = match a.column {
            "ex_s" => "runs {} as fast".to_string(),
            "wait_mean" => "waits {} as long".to_string(),
            "work" => "spends {} as long on each step's work".to_string(),
            other => format!("has {{}} the {}", noun(other)),
        };
        return Some((
            format!(
                "{} at {} workers {said} as at {}",
                a.producer, a.workers, b.workers
            ),
            ratio,
        ));
    }
    if let Some((a, b)) = metric.split_once(" - ") {
        let (a, b) = (cell(a)?, cell(b)?);
        if a.producer != b.producer || a.column != b.column {
            return None;
        }
        // a - b > 0: the value at b's workers is lower.
        return Some((
            format!(
                "{}'s {} is {{}} at {} workers than at {}",
                a.producer,
                noun(a.column),
                b.workers,
                a.workers
            ),
            |x: f64| {
                let way = if x >= 0.0 { "lower" } else { "higher" };
                format!("{} {way}", figures(x.abs()))
            },
        ));
    }
    let c = cell(metric)?;
    Some((
        format!(
            "{} at {} workers: {} {{}}",
            c.producer,
            c.workers,
            noun(c.column)
        ),
        |x: f64| figures(x),
    ))
}

/// The claim's measurement in words, beside the chapter's value: "spin at
/// 8 workers waits 0.225x as long as at 0 (the chapter: 0.447x)"; a metric of
/// another form reads "`metric` comes out at 0.23 (the chapter: 0.45)".
pub fn measurement_in_words(c: &ClaimResult) -> String {
    let Some(measured) = c.measured else {
        return format!("not measured (the chapter: {})", figures(c.published));
    };
    match shape(&c.metric) {
        Some((pattern, value)) => format!(
            "{} (the chapter: {})",
            pattern.replacen("{}", &value(measured), 1),
            value(c.published)
        ),
        None => format!(
            "`{}` comes out at {} (the chapter: {})",
            c.metric,
            figures(measured),
            figures(c.published)
        ),
    }
}

/// The claim's verdict in words: the verdict with its flags, the
/// measurement beside the chapter's value, the criterion, how the value was
/// taken and by which engine.
pub fn verdict_in_words(c: &ClaimResult, spread: SpreadWords<'_>, engine: &str) -> String {
    let mut s = format!("{}: ", c.flagged());
    match c.verdict {
        ClaimVerdict::Unrun => s.push_str(&format!(
            "not measured{}",
            c.reason
                .as_ref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        )),
        ClaimVerdict::Reproduced
        | ClaimVerdict::NotReproduced
        | ClaimVerdict::Inconclusive
        | ClaimVerdict::NotComparable => {
            s.push_str(&measurement_in_words(c));
            s.push_str(&format!("; the claim needs {}", c.criterion));
            if c.verdict == ClaimVerdict::Inconclusive {
                s.push_str(&format!(
                    "; undecided ({}), which is not evidence against the chapter",
                    c.reason.as_deref().unwrap_or("no reason recorded")
                ));
            }
            if let Some(reason) = c
                .reason
                .as_ref()
                .filter(|_| c.verdict == ClaimVerdict::NotComparable)
            {
                s.push_str(&format!("; not comparable: {reason}"));
            }
            s.push_str(&format!("; {}, measured by {engine}", spread.words()));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(metric: &str, measured: Option<f64>, published: f64) -> ClaimResult {
        ClaimResult {
            id: "c".into(),
            quote: "q".into(),
            location: "l".into(),
            metric: metric.into(),
            stated: published,
            published,
            prose_consistent: true,
            measured,
            ratio: measured.map(|m| m / published),
            published_formula: String::new(),
            measured_formula: None,
            criterion: "<= 0.75".into(),
            magnitude_within: None,
            magnitude_differs: None,
            magnitude_uncertain: None,
            rounds: None,
            model_limit: Some("spin, 8 workers on 1 CPU".into()),
            start_in_window: None,
            verdict: ClaimVerdict::Reproduced,
            reason: None,
            quote_found: true,
            closest_sentence: None,
        }
    }

    #[test]
    fn figures_keep_two_or_three_places() {
        assert_eq!(figures(0.225), "0.225");
        assert_eq!(figures(0.99645), "0.996");
        assert_eq!(figures(7.794), "7.79");
        assert_eq!(figures(28.14), "28.1");
        assert_eq!(figures(444.4), "444");
        assert_eq!(figures(0.045123), "0.0451");
        assert_eq!(figures(0.5), "0.5");
        assert_eq!(figures(0.0), "0");
    }

    #[test]
    fn each_metric_shape_reads_as_a_sentence() {
        let wait = claim("spin.w8.wait_mean / spin.w0.wait_mean", Some(0.225), 0.447);
        assert_eq!(
            measurement_in_words(&wait),
            "spin at 8 workers waits 0.225x as long as at 0 (the chapter: 0.447x)"
        );
        let speed = claim("sleep.w8.ex_s / sleep.w0.ex_s", Some(7.794), 7.365);
        assert_eq!(
            measurement_in_words(&speed),
            "sleep at 8 workers runs 7.79x as fast as at 0 (the chapter: 7.37x)"
        );
        let drop = claim("spin.w0.wait_frac - spin.w8.wait_frac", Some(0.68), 0.5);
        assert_eq!(
            measurement_in_words(&drop),
            "spin's share of each step spent waiting is 0.68 lower at 8 workers than at 0 (the chapter: 0.5 lower)"
        );
        let other = claim("sleep.w8.ex_s / spin.w8.ex_s", Some(7.0), 6.8);
        assert_eq!(
            measurement_in_words(&other),
            "`sleep.w8.ex_s / spin.w8.ex_s` comes out at 7 (the chapter: 6.8)"
        );
        let unrun = claim("spin.w8.work / spin.w0.work", None, 5.54);
        assert_eq!(
            measurement_in_words(&unrun),
            "not measured (the chapter: 5.54)"
        );
    }

    #[test]
    fn a_verdict_reads_with_its_flags_its_spread_and_its_engine() {
        let wait = claim("spin.w8.wait_mean / spin.w0.wait_mean", Some(0.225), 0.447);
        assert_eq!(
            verdict_in_words(&wait, SpreadWords::Runs(1), "the embedded engine"),
            "REPRODUCED, model limit (spin, 8 workers on 1 CPU): spin at 8 workers waits 0.225x as long as at 0 (the chapter: 0.447x); the claim needs <= 0.75; single run, measured by the embedded engine"
        );
        let interval = SpreadWords::Interval(IntervalWords {
            low: 0.21,
            high: 0.24,
            method: "bootstrap over 5 rounds",
        });
        assert!(
            verdict_in_words(&wait, interval, "e")
                .ends_with("; 95% interval 0.21 to 0.24 (bootstrap over 5 rounds), measured by e")
        );
        assert!(
            verdict_in_words(&wait, SpreadWords::Runs(3), "e")
                .contains("median of 3 runs, no interval")
        );
    }
}
