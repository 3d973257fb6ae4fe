//! Checks a published table against itself: ex/s against
//! 1000 x batch / (wait_mean + work), wait_frac against
//! wait_mean / (wait_mean + work), p50 <= p95 <= max and mean <= max. Each
//! check allows for the rounding of the printed numbers; ex/s also gets 1%
//! slack (see [`EX_S_SLACK`]).
//!
//! The ex/s identity also says what the table's ex/s was taken over (its
//! [`WindowKind`]): where it holds in every row, over the same steps as its
//! wait and work columns, a steady state; where ex/s sits below it, over
//! the whole run, the workers' start included. An ex/s above it is a
//! discrepancy whatever the window: no window makes the steps faster than
//! their own wait and work.

use serde::Serialize;

use super::tables::{Location, PrintedNumber, Table};
use crate::bench::{Column, WindowKind};

/// Extra relative slack for ex/s, beyond the rounding of the printed
/// cells: a loop measured step by step spends a little between one step's
/// end and the next one's start (the clock readings, the hand-out of the
/// next index), which no column shows. Chapter 06's ten rows agree within
/// 0.2%; 1% keeps a table rounded more coarsely than the chapter's from
/// reading as a whole run.
pub const EX_S_SLACK: f64 = 0.01;

/// What a published table's ex/s was taken over, and why the audit reads
/// it so.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableWindow {
    pub producer: crate::bench::ProducerKind,
    pub kind: WindowKind,
    /// Rows whose ex/s sits below 1000 x batch / (wait_mean + work): (workers,
    /// ex/s as a share of the identity's value).
    pub rows_below: Vec<(usize, f64)>,
    /// Rows the identity could be checked in (those with ex/s, wait_mean
    /// and work).
    pub rows_checked: usize,
}

impl TableWindow {
    /// The window in words, for the audit: why the table reads as it does.
    pub fn in_words(&self) -> String {
        match self.kind {
            WindowKind::SteadyState => format!(
                "{} table: every ex/s equals 1000 x batch / (wait_mean + work) within its rounding and {:.0}%, so its ex/s is taken over the measured steps: a steady-state window",
                self.producer,
                EX_S_SLACK * 100.0
            ),
            WindowKind::WholeRun if self.rows_checked == 0 => format!(
                "{} table: no row has ex/s, wait_mean and work to tell its window by; read as the whole run",
                self.producer
            ),
            WindowKind::WholeRun => format!(
                "{} table: ex/s sits below 1000 x batch / (wait_mean + work) in {}, so its ex/s is taken over the whole run, the workers' start included",
                self.producer,
                self.rows_below
                    .iter()
                    .map(|(w, share)| format!("workers={w} ({:.0}%)", share * 100.0))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// The window `table`'s ex/s was taken over (see the module's doc).
pub fn table_window(table: &Table) -> TableWindow {
    let b = table.header.batch_size as f64;
    let mut rows_below = Vec::new();
    let mut rows_checked = 0;
    for row in &table.rows {
        let get = |c: Column| table.column(&c).map(|i| row[i]);
        let (Some(ex), Some(wm), Some(work)) = (
            get(Column::ExPerS),
            get(Column::WaitMean),
            get(Column::Work),
        ) else {
            continue;
        };
        let hi_sum = wm.value + wm.half_ulp() + work.value + work.half_ulp();
        if hi_sum <= 0.0 {
            continue;
        }
        rows_checked += 1;
        let lo = 1000.0 * b / hi_sum * (1.0 - EX_S_SLACK);
        if ex.value + ex.half_ulp() < lo {
            let workers = get(Column::Workers).map_or(0, |w| w.value as usize);
            let mid = 1000.0 * b / (wm.value + work.value);
            rows_below.push((workers, ex.value / mid));
        }
    }
    let kind = if rows_checked > 0 && rows_below.is_empty() {
        WindowKind::SteadyState
    } else {
        WindowKind::WholeRun
    };
    TableWindow {
        producer: table.header.producer,
        kind,
        rows_below,
        rows_checked,
    }
}

/// One inconsistency in a published table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Discrepancy {
    pub table: String,
    pub location: Location,
    pub workers: usize,
    pub column: String,
    pub stated: f64,
    /// What the other cells imply, as a range or a bound.
    pub implied: String,
    pub rule: String,
}

/// Every inconsistency in `table`.
pub fn audit(table: &Table) -> Vec<Discrepancy> {
    let mut found = Vec::new();
    let b = table.header.batch_size as f64;
    for row in &table.rows {
        let get = |c: Column| table.column(&c).map(|i| row[i]);
        let workers = get(Column::Workers).map_or(0, |w| w.value as usize);
        let mut report = |column: Column, stated: PrintedNumber, implied: String, rule: &str| {
            found.push(Discrepancy {
                table: table.header.to_string(),
                location: table.location,
                workers,
                column: column.name().to_string(),
                stated: stated.value,
                implied,
                rule: rule.to_string(),
            });
        };
        if let (Some(wm), Some(work)) = (get(Column::WaitMean), get(Column::Work)) {
            let (lo_sum, hi_sum) = (
                wm.value - wm.half_ulp() + work.value - work.half_ulp(),
                wm.value + wm.half_ulp() + work.value + work.half_ulp(),
            );
            if let Some(ex) = get(Column::ExPerS)
                && hi_sum > 0.0
            {
                // Below the identity is a whole-run window (table_window);
                // above it, a discrepancy.
                let hi = if lo_sum > 0.0 {
                    1000.0 * b / lo_sum * (1.0 + EX_S_SLACK)
                } else {
                    f64::INFINITY
                };
                if !overlaps(ex, f64::NEG_INFINITY, hi) {
                    let mid = 1000.0 * b / (wm.value + work.value);
                    report(
                        Column::ExPerS,
                        ex,
                        format!(
                            "{mid:.1} (1000 x {} / ({} + {}))",
                            table.header.batch_size, wm.value, work.value
                        ),
                        "ex/s = 1000 x batch / (wait_mean + work)",
                    );
                }
            }
            if let Some(frac) = get(Column::WaitFrac) {
                let wlo = (wm.value - wm.half_ulp()).max(0.0);
                let whi = wm.value + wm.half_ulp();
                let klo = (work.value - work.half_ulp()).max(0.0);
                let khi = work.value + work.half_ulp();
                let lo = if wlo + khi > 0.0 {
                    wlo / (wlo + khi)
                } else {
                    0.0
                };
                let hi = if whi + klo > 0.0 {
                    whi / (whi + klo)
                } else {
                    1.0
                };
                if !overlaps(frac, lo, hi) {
                    let mid = wm.value / (wm.value + work.value);
                    report(
                        Column::WaitFrac,
                        frac,
                        format!("{mid:.3} ({} / ({} + {}))", wm.value, wm.value, work.value),
                        "wait_frac = wait_mean / (wait_mean + work)",
                    );
                }
            }
        }
        for (small, big) in [
            (Column::WaitP50, Column::WaitP95),
            (Column::WaitP95, Column::WaitMax),
            (Column::WaitMean, Column::WaitMax),
        ] {
            if let (Some(a), Some(z)) = (get(small.clone()), get(big.clone()))
                && a.value - z.value > a.half_ulp() + z.half_ulp()
            {
                report(
                    small.clone(),
                    a,
                    format!("at most {big} = {}", z.value),
                    &format!("{small} <= {big}"),
                );
            }
        }
    }
    found
}

fn overlaps(stated: PrintedNumber, lo: f64, hi: f64) -> bool {
    stated.value + stated.half_ulp() >= lo && stated.value - stated.half_ulp() <= hi
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::published::tables::parse;

    const CHAPTER: &str = "=== producer=sleep 2.0 ms/sample batch=32 consumer=8 ms/batch === workers ex/s wait_mean wait_p50 wait_p95 wait_max work wait_frac 0 414 69.8 69.8 70.4 70.7 7.5 0.90 1 452 62.6 62.3 65.9 66.4 8.1 0.89 2 890 27.3 25.3 56.8 57.7 8.6 0.76 4 1769 8.4 2.1 30.3 30.5 9.7 0.46 8 3049 0.9 0.9 2.7 3.5 9.6 0.09 === producer=spin 2.0 ms/sample batch=32 consumer=8 ms/batch === workers ex/s wait_mean wait_p50 wait_p95 wait_max work wait_frac 0 454 62.8 62.1 66.5 89.1 7.8 0.89 1 451 56.9 56.4 62.4 79.7 14.0 0.80 2 456 49.5 47.7 103.8 107.2 20.7 0.71 4 458 38.0 21.9 121.1 134.2 31.9 0.54 8 449 28.1 24.0 88.2 110.2 43.2 0.39";

    #[test]
    fn the_chapters_tables_are_consistent() {
        for t in parse(CHAPTER).tables {
            assert_eq!(audit(&t), vec![], "{}", t.header);
        }
    }

    #[test]
    fn the_chapters_tables_are_read_as_steady_state_windows() {
        for t in parse(CHAPTER).tables {
            let w = table_window(&t);
            assert_eq!(w.kind, WindowKind::SteadyState, "{}", w.in_words());
            assert_eq!((w.rows_checked, w.rows_below.len()), (5, 0));
            assert!(w.in_words().contains("a steady-state window"));
        }
    }

    #[test]
    fn ex_s_below_the_identity_reads_as_a_whole_run_and_is_no_discrepancy() {
        // The tool's own whole-run measurement of sleep at 8 workers: ex/s
        // 940 where the row's wait and work give 3,137.
        let text = CHAPTER.replace("8 3049 0.9", "8 940 0.9");
        let tables = parse(&text).tables;
        let w = table_window(&tables[0]);
        assert_eq!(w.kind, WindowKind::WholeRun);
        assert_eq!(w.rows_below.len(), 1);
        assert_eq!(w.rows_below[0].0, 8);
        assert!((w.rows_below[0].1 - 940.0 / 3047.6).abs() < 1e-3);
        assert!(w.in_words().contains("workers=8 (31%)"), "{}", w.in_words());
        assert!(w.in_words().contains("whole run"), "{}", w.in_words());
        assert_eq!(audit(&tables[0]), vec![], "below is a window, not a typo");
        // The other table keeps its own reading.
        assert_eq!(table_window(&tables[1]).kind, WindowKind::SteadyState);
    }

    #[test]
    fn planted_typos_are_found_with_cell_and_implied_value() {
        // Planted: ex/s 1769 -> 1969; wait_frac 0.39 -> 0.93; a p95 below its
        // p50; a max below p95 and the mean.
        let text = CHAPTER
            .replace("4 1769 8.4", "4 1969 8.4")
            .replace("43.2 0.39", "43.2 0.93")
            .replace("21.9 121.1", "21.9 12.1")
            .replace("0.9 0.9 2.7 3.5", "0.9 0.9 2.7 0.5");
        let tables = parse(&text).tables;
        let sleep = audit(&tables[0]);
        let spin = audit(&tables[1]);
        let ex = sleep
            .iter()
            .find(|d| d.column == "ex/s")
            .expect("ex/s typo");
        assert_eq!((ex.workers, ex.stated), (4, 1969.0));
        assert!(
            ex.implied.starts_with("1768.0 (1000 x 32 / (8.4 + 9.7))"),
            "{}",
            ex.implied
        );
        assert!(
            sleep
                .iter()
                .any(|d| d.workers == 8 && d.rule == "wait_p95 <= wait_max"),
            "{sleep:?}"
        );
        assert!(
            sleep
                .iter()
                .any(|d| d.workers == 8 && d.rule == "wait_mean <= wait_max"),
            "{sleep:?}"
        );
        let frac = spin
            .iter()
            .find(|d| d.column == "wait_frac")
            .expect("wait_frac typo");
        assert_eq!((frac.workers, frac.stated), (8, 0.93));
        assert!(frac.implied.starts_with("0.394"), "{}", frac.implied);
        assert!(
            spin.iter()
                .any(|d| d.workers == 4 && d.rule == "wait_p50 <= wait_p95"),
            "{spin:?}"
        );
    }
}
