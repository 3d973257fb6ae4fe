//! A claim's verdict from a run's rounds: the metric on each round's own
//! cells (each configuration's undisturbed runs of that round), then the
//! interval over those rounds (`interval`). A round in which a
//! configuration the claim reads has only disturbed runs does not count. A
//! run of one round (every run file made before rounds) is a single run:
//! its verdict is the metric's on it, as it always was, unless it was
//! disturbed.

use serde::Serialize;

use super::claims::{self, Claim, TableSet};
use super::interval::{self, Interval, IntervalReading, RoundValue, RoundsJudgement};
use super::verdict::ClaimVerdict;
use crate::bench::outside_load::cpus_in_words;
use crate::bench::stats::round_row;
use crate::bench::{BenchRun, ProducerKind, Row};

/// A claim's values over the rounds, as the output shows them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundsEvidence {
    /// Rounds in the run.
    pub rounds: usize,
    /// The claim's value in each undisturbed round, in round order.
    pub values: Vec<f64>,
    /// Rounds left out because a configuration the claim reads was
    /// disturbed in every run of it.
    pub disturbed: usize,
    /// The 95% interval, when enough rounds were undisturbed.
    pub interval: Option<Interval>,
    /// How the interval is made.
    pub method: &'static str,
}

/// What the rounds decided about a claim whose preconditions hold.
#[derive(Debug, Clone, PartialEq)]
pub struct OverRounds {
    pub verdict: ClaimVerdict,
    /// Why, for INCONCLUSIVE.
    pub reason: Option<String>,
    /// None for a single run.
    pub evidence: Option<RoundsEvidence>,
    /// The interval of measured / published straddles the size band.
    pub magnitude_uncertain: Option<(f64, f64)>,
    /// The size is outside the band (the whole interval, with rounds).
    pub magnitude_outside: bool,
}

/// The configurations a metric reads, each once.
fn configs_read(metric: &str) -> Vec<(ProducerKind, usize)> {
    let mut configs: Vec<(ProducerKind, usize)> = claims::cells_used(metric)
        .into_iter()
        .map(|(p, w, _)| (p, w))
        .collect();
    configs.sort_by_key(|&(p, w)| (p.ident(), w));
    configs.dedup();
    configs
}

/// The metric in each round of `run`: its value from that round's cells,
/// or the outside share that left the round out. Rounds in which a
/// configuration it reads did not run at all are skipped.
pub fn round_values(metric: &str, run: &BenchRun) -> Vec<RoundValue> {
    let read = configs_read(metric);
    (1..=run.rounds())
        .filter_map(|round| {
            let mut busiest: Option<f64> = None;
            for &(p, w) in &read {
                let c = run
                    .results
                    .iter()
                    .find(|c| c.producer == p && c.workers == w)?;
                if !c.rounds().contains(&round) {
                    return None;
                }
                if round_row(c, round).is_none() {
                    let share = c.disturbed_in(round).unwrap_or(0.0);
                    busiest = Some(busiest.map_or(share, |b: f64| b.max(share)));
                }
            }
            if let Some(share) = busiest {
                return Some(RoundValue::Disturbed(share));
            }
            let rows: Vec<Row> = run
                .results
                .iter()
                .filter_map(|c| round_row(c, round))
                .collect();
            claims::evaluate(metric, &TableSet::from_rows(&rows))
                .ok()
                .map(RoundValue::Value)
        })
        .collect()
}

/// A share in words: `38%`.
fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

/// Judges claim `c` on `run`, whose value on the run's summary rows is
/// `measured` (measured / published: `ratio`).
pub fn judge_claim(
    c: &Claim,
    measured: f64,
    ratio: Option<f64>,
    published: f64,
    run: &BenchRun,
) -> OverRounds {
    let cpus = cpus_in_words(&run.cpus_used);
    if run.rounds() <= 1 {
        return single_run(c, measured, ratio, run, &cpus);
    }
    let rounds = round_values(&c.metric, run);
    let judged = interval::judge(&rounds, &c.reproduce);
    let values: Vec<f64> = rounds
        .iter()
        .filter_map(|r| match r {
            RoundValue::Value(v) => Some(*v),
            RoundValue::Disturbed(_) => None,
        })
        .collect();
    let mut out = OverRounds {
        verdict: ClaimVerdict::Inconclusive,
        reason: None,
        evidence: Some(RoundsEvidence {
            rounds: run.rounds(),
            disturbed: rounds.len() - values.len(),
            values,
            interval: None,
            method: interval::METHOD,
        }),
        magnitude_uncertain: None,
        magnitude_outside: false,
    };
    let set_interval = |out: &mut OverRounds, i: Interval| {
        if let Some(e) = out.evidence.as_mut() {
            e.interval = Some(i);
        }
    };
    match judged {
        RoundsJudgement::Decided { holds, interval } => {
            set_interval(&mut out, interval);
            out.verdict = if holds {
                ClaimVerdict::Reproduced
            } else {
                ClaimVerdict::NotReproduced
            };
            if holds
                && let (Some(m), Some((lo, hi))) =
                    (c.magnitude, interval::ratio_interval(&interval, published))
            {
                match interval::against_band(&m, lo, hi) {
                    IntervalReading::Inside => {}
                    IntervalReading::Outside => out.magnitude_outside = true,
                    IntervalReading::Straddles => out.magnitude_uncertain = Some((lo, hi)),
                }
            }
        }
        RoundsJudgement::Straddles { interval } => {
            set_interval(&mut out, interval);
            out.reason = Some(format!(
                "interval {} to {} straddles {}",
                short(interval.low),
                short(interval.high),
                c.reproduce
            ));
        }
        RoundsJudgement::TooFew {
            undisturbed,
            rounds,
            disturbed,
            busiest,
        } => {
            out.reason = Some(if disturbed > 0 {
                format!(
                    "machine busy: other processes used up to {} of {cpus} in {disturbed} of {rounds} rounds; {undisturbed} undisturbed, an interval needs {}",
                    percent(busiest.unwrap_or(0.0)),
                    interval::MIN_ROUNDS
                )
            } else {
                format!(
                    "too few rounds: {undisturbed}; a 95% interval needs {}",
                    interval::MIN_ROUNDS
                )
            });
        }
    }
    out
}

/// A run of one round: the metric's verdict on it, unless a configuration
/// it reads was disturbed.
fn single_run(
    c: &Claim,
    measured: f64,
    ratio: Option<f64>,
    run: &BenchRun,
    cpus: &str,
) -> OverRounds {
    let busiest = configs_read(&c.metric)
        .into_iter()
        .filter_map(|(p, w)| {
            run.results
                .iter()
                .find(|r| r.producer == p && r.workers == w)
        })
        .filter(|r| r.summary.disturbed)
        .filter_map(|r| r.disturbed_in(1))
        .max_by(f64::total_cmp);
    if let Some(share) = busiest {
        return OverRounds {
            verdict: ClaimVerdict::Inconclusive,
            reason: Some(format!(
                "machine busy: other processes used up to {} of {cpus} while it ran (a single run)",
                percent(share)
            )),
            evidence: None,
            magnitude_uncertain: None,
            magnitude_outside: false,
        };
    }
    let holds = c.reproduce.holds(measured);
    OverRounds {
        verdict: if holds {
            ClaimVerdict::Reproduced
        } else {
            ClaimVerdict::NotReproduced
        },
        reason: None,
        evidence: None,
        magnitude_uncertain: None,
        magnitude_outside: holds
            && matches!((c.magnitude, ratio), (Some(m), Some(r)) if !m.holds(r)),
    }
}

/// A value in a few significant figures, without trailing zeros: 4.1,
/// 0.975, 437.
fn short(x: f64) -> String {
    let s = super::verdict::short_ratio(x);
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::bench::ProducerKind::{Sleep, Spin};
    use crate::bench::{ProducerKind, RepeatResult, Row};
    use crate::published::claims::{self, ClaimsFile, TableSet};
    use crate::published::diff::{ClaimResult, PublishedDiff, diff_run};
    use crate::published::tables::Table;
    use crate::published::verdict::{ClaimVerdict, VerdictFlag};
    use crate::testing::{chapter06_tables, in_rounds, prose06, repo_layout, run_like};

    fn claims06(tables: &[Table]) -> ClaimsFile {
        let path = repo_layout().claims_file(&crate::testing::chapter06().key);
        claims::load(&path, &TableSet::from_published(tables)).unwrap()
    }

    fn check(run: &crate::bench::BenchRun) -> PublishedDiff {
        let tables = chapter06_tables();
        diff_run(&tables, &[], Some(&claims06(&tables)), &prose06(), run)
    }

    fn claim<'a>(d: &'a PublishedDiff, id: &str) -> &'a ClaimResult {
        d.claims.iter().find(|c| c.id == id).unwrap()
    }

    /// The chapter's own numbers in `rounds` rounds, each cell off by up to
    /// 2% one way or the other from round to round.
    fn jittered(rounds: usize) -> crate::bench::BenchRun {
        in_rounds(run_like(&chapter06_tables(), 1), rounds, |round, row| {
            let f = 1.0 + 0.004 * (round as f64 - 3.5);
            row.ex_per_s *= f;
            row.wait_mean_ms *= f;
            row.work_ms /= f;
        })
    }

    /// Marks `producer`'s `workers` run of `round` disturbed, with a value
    /// that would decide the claims it reads the other way if it counted.
    fn disturb(
        run: &mut crate::bench::BenchRun,
        producer: ProducerKind,
        workers: usize,
        round: usize,
    ) {
        let c = run
            .results
            .iter_mut()
            .find(|c| c.producer == producer && c.workers == workers)
            .unwrap();
        for r in c.repeats.iter_mut().filter(|r| r.round() == round) {
            r.row.outside = Some(0.38);
            r.row.disturbed = true;
            r.row.ex_per_s *= 0.1;
            r.row.work_ms *= 10.0;
        }
        c.summary = crate::bench::stats::summarize(&c.repeats);
    }

    #[test]
    fn six_quiet_rounds_decide_every_claim_with_an_interval_named_by_its_method() {
        let d = check(&jittered(6));
        for c in &d.claims {
            assert_eq!(c.verdict, ClaimVerdict::Reproduced, "{c:?}");
            let e = c.rounds.as_ref().expect("rounds");
            assert_eq!((e.rounds, e.values.len(), e.disturbed), (6, 6, 0));
            let i = e.interval.expect("an interval");
            assert!(i.low <= i.median && i.median <= i.high);
            assert_eq!(e.method, crate::published::interval::METHOD);
        }
        let speedup = claim(&d, "sleep-speedup-7.4x");
        assert_eq!(
            speedup.rounds.as_ref().unwrap().interval.unwrap().coverage,
            1.0 - 2.0 / 64.0
        );
    }

    #[test]
    fn a_round_disturbed_in_a_configuration_never_counts_for_the_claims_that_read_it() {
        let mut run = jittered(8);
        disturb(&mut run, Spin, 8, 2);
        disturb(&mut run, Spin, 8, 5);
        let d = check(&run);
        // The spin claims read spin w8: 6 rounds of 8 count, and they
        // decide as the quiet rounds do, whatever the disturbed runs read.
        let flat = claim(&d, "spin-454-vs-449");
        assert_eq!(flat.verdict, ClaimVerdict::Reproduced, "{flat:?}");
        let e = flat.rounds.as_ref().unwrap();
        assert_eq!((e.values.len(), e.disturbed), (6, 2));
        // The sleep claim does not read spin w8: all 8 rounds count.
        let sleep = claim(&d, "sleep-speedup-7.4x");
        assert_eq!(sleep.rounds.as_ref().unwrap().values.len(), 8);
        // A third disturbed round leaves 5: too few, and the reason names
        // the load, not the chapter.
        disturb(&mut run, Spin, 8, 7);
        let d = check(&run);
        for id in ["spin-454-vs-449", "spin-work-7.8-to-43.2"] {
            let c = claim(&d, id);
            assert_eq!(c.verdict, ClaimVerdict::Inconclusive, "{c:?}");
            assert_eq!(
                c.reason.as_deref(),
                Some(
                    "machine busy: other processes used up to 38% of CPU 0 in 3 of 8 rounds; 5 undisturbed, an interval needs 6"
                )
            );
        }
        assert!(!d.any_not_reproduced());
        assert_eq!(
            claim(&d, "sleep-speedup-7.4x").verdict,
            ClaimVerdict::Reproduced
        );
    }

    #[test]
    fn a_disturbed_round_run_again_quietly_counts_again() {
        let mut run = jittered(6);
        disturb(&mut run, Spin, 0, 3);
        assert_eq!(
            claim(&check(&run), "spin-454-vs-449").verdict,
            ClaimVerdict::Inconclusive
        );
        let c = run
            .results
            .iter_mut()
            .find(|c| c.producer == Spin && c.workers == 0)
            .unwrap();
        let mut again: RepeatResult = c.repeats[0].clone();
        again.round = Some(3);
        c.repeats.push(again);
        c.summary = crate::bench::stats::summarize(&c.repeats);
        assert!(!c.summary.disturbed);
        assert_eq!(
            claim(&check(&run), "spin-454-vs-449").verdict,
            ClaimVerdict::Reproduced
        );
    }

    /// Sets the sleep speed-up of each round: sleep w8's ex/s over w0's.
    fn speedups(values: &[f64]) -> crate::bench::BenchRun {
        let w0 = 414.0;
        let values = values.to_vec();
        in_rounds(
            run_like(&chapter06_tables(), 1),
            values.len(),
            move |round, row: &mut Row| {
                if row.producer == Sleep {
                    row.ex_per_s = if row.workers == 8 {
                        w0 * values[round - 1]
                    } else if row.workers == 0 {
                        w0
                    } else {
                        row.ex_per_s
                    };
                }
            },
        )
    }

    #[test]
    fn an_interval_across_the_criterion_is_inconclusive_and_says_so_in_words() {
        let d = check(&speedups(&[4.1, 5.6, 5.2, 4.8, 5.3, 5.0]));
        let c = claim(&d, "sleep-speedup-7.4x");
        assert_eq!(c.verdict, ClaimVerdict::Inconclusive);
        assert_eq!(
            c.reason.as_deref(),
            Some("interval 4.1 to 5.6 straddles >= 5")
        );
        assert!(!d.any_not_reproduced());
        // Wholly below it: NOT_REPRODUCED.
        let d = check(&speedups(&[3.1, 3.6, 3.2, 3.8, 3.3, 3.0]));
        assert_eq!(
            claim(&d, "sleep-speedup-7.4x").verdict,
            ClaimVerdict::NotReproduced
        );
        assert!(d.any_not_reproduced());
    }

    #[test]
    fn the_size_flag_reads_the_interval_of_the_ratio() {
        // Published 7.36, band 1.5: 4.91 to 11.0.
        let c = claim(
            &check(&speedups(&[5.1, 5.6, 5.2, 5.05, 5.3, 5.0])),
            "sleep-speedup-7.4x",
        )
        .clone();
        assert_eq!(c.verdict, ClaimVerdict::Reproduced);
        assert!(c.magnitude_differs.is_none());
        assert!(c.magnitude_uncertain.is_none(), "inside the band: {c:?}");
        let c = claim(
            &check(&speedups(&[5.1, 5.6, 5.2, 7.0, 8.3, 5.0])),
            "sleep-speedup-7.4x",
        )
        .clone();
        assert!(c.magnitude_uncertain.is_none());
        let c = claim(
            &check(&speedups(&[12.0, 13.0, 12.5, 14.0, 12.2, 13.1])),
            "sleep-speedup-7.4x",
        )
        .clone();
        assert!(
            c.magnitude_differs.is_some(),
            "wholly outside the band: {c:?}"
        );
        let c = claim(
            &check(&speedups(&[10.0, 13.0, 12.5, 14.0, 12.2, 13.1])),
            "sleep-speedup-7.4x",
        )
        .clone();
        assert!(c.magnitude_differs.is_none());
        let (lo, hi) = c.magnitude_uncertain.expect("straddles 11.0");
        assert!(lo < 1.5 && hi > 1.5, "{lo} {hi}");
        assert!(c.flagged().has(&VerdictFlag::MagnitudeUncertain(0.0, 0.0)));
    }

    #[test]
    fn a_single_run_decides_as_it_always_did_unless_it_was_disturbed() {
        let tables = chapter06_tables();
        let d = check(&run_like(&tables, 1));
        assert!(
            d.claims
                .iter()
                .all(|c| c.verdict == ClaimVerdict::Reproduced && c.rounds.is_none())
        );
        let mut one = in_rounds(run_like(&tables, 1), 1, |_, _| {});
        disturb(&mut one, Sleep, 0, 1);
        let d = check(&one);
        let c = claim(&d, "sleep-speedup-7.4x");
        assert_eq!(c.verdict, ClaimVerdict::Inconclusive);
        assert_eq!(
            c.reason.as_deref(),
            Some(
                "machine busy: other processes used up to 38% of CPU 0 while it ran (a single run)"
            )
        );
        assert_eq!(
            claim(&d, "spin-454-vs-449").verdict,
            ClaimVerdict::Reproduced
        );
    }

    #[test]
    fn fewer_than_six_quiet_rounds_are_too_few() {
        let d = check(&jittered(3));
        let c = claim(&d, "spin-454-vs-449");
        assert_eq!(c.verdict, ClaimVerdict::Inconclusive);
        assert_eq!(
            c.reason.as_deref(),
            Some("too few rounds: 3; a 95% interval needs 6")
        );
    }
}
