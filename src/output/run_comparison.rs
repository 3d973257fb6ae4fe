//! Two runs side by side as text: what `compare` prints, and what
//! `reproduce --engine both` adds after the two engines' runs.

use std::fmt::Write as _;

use super::Render;
use crate::app::compare::{self, Pair, PairedRow, RunComparison, Spread};
use crate::error::Result;

impl Render for RunComparison {
    fn text(&self) -> Result<String> {
        let mut s = runs_text(self);
        let mut producer = None;
        for r in &self.rows {
            if producer != Some(r.producer) {
                producer = Some(r.producer);
                let _ = write!(
                    s,
                    "\n=== producer={} (A | B, ratio B/A) ===\n{:>7}  {:>15} {:>7}  {:>15} {:>7}  {:>13} {:>7}  {:>11}\n",
                    r.producer, "workers", "ex/s", "", "wait_mean", "", "work", "", "wait_frac"
                );
            }
            s.push_str(&row_text(r));
        }
        if !self.unpaired.is_empty() {
            let _ = writeln!(
                s,
                "\nmeasured in one run only: {}",
                self.unpaired.join(", ")
            );
        }
        let apart = self
            .rows
            .iter()
            .filter(|r| !r.differences.is_empty())
            .count();
        let _ = writeln!(
            s,
            "\n{} configuration(s) compared, {apart} differ (ex/s or wait/work beyond x{}, or wait_frac by more than {:.2})",
            self.rows.len(),
            compare::RATIO_APART,
            compare::WAIT_FRAC_APART
        );
        let count = |w: Spread| self.rows.iter().filter(|r| r.spread == w).count();
        let _ = writeln!(
            s,
            "spread over rounds: ex/s beyond both runs' spread in {}, within it in {}, unknown in {} (a run with fewer than two undisturbed runs of it)",
            count(Spread::Beyond),
            count(Spread::Within),
            count(Spread::Unknown)
        );
        Ok(s)
    }
}

/// Where each run came from, and what differs between the runs themselves.
fn runs_text(c: &RunComparison) -> String {
    let mut s = String::new();
    for (name, l) in [("A", &c.a), ("B", &c.b)] {
        let _ = writeln!(
            s,
            "{name}: {} ({}; env {}; CPUs {}; {})",
            crate::text::visible(&l.source),
            crate::text::visible(&l.engine),
            crate::env::short_id(&l.env_id),
            crate::text::list(&l.cpus_used),
            l.created_at.format("%Y-%m-%d %H:%M UTC")
        );
        let _ = writeln!(s, "   {}", l.load);
    }
    if c.run_differences.is_empty() {
        s.push_str(match (c.a.disturbed_runs, c.b.disturbed_runs) {
            (Some(0), Some(0)) => {
                "the runs share their settings, environment and CPUs, and other processes disturbed neither\n"
            }
            _ => "the runs share their settings, environment and CPUs (their load: the lines above)\n",
        });
    } else {
        s.push_str("the runs differ in:\n");
        for d in &c.run_differences {
            let _ = writeln!(s, "  {}", crate::text::visible(d));
        }
    }
    s
}

/// One configuration, both runs' numbers and their ratios, and what
/// differs.
fn row_text(r: &PairedRow) -> String {
    let ratio = |p: &Pair| p.ratio.map_or_else(|| "-".into(), |r| format!("x{r:.2}"));
    let mut s = format!(
        "{:>7}  {:>7.0} {:>7.0} {:>7}  {:>7.1} {:>7.1} {:>7}  {:>6.1} {:>6.1} {:>7}  {:>5.2} {:>5.2}\n",
        r.workers,
        r.ex_per_s.a,
        r.ex_per_s.b,
        ratio(&r.ex_per_s),
        r.wait_mean_ms.a,
        r.wait_mean_ms.b,
        ratio(&r.wait_mean_ms),
        r.work_ms.a,
        r.work_ms.b,
        ratio(&r.work_ms),
        r.wait_frac.a,
        r.wait_frac.b,
    );
    for d in &r.differences {
        let _ = writeln!(s, "{:>9}differs: {d}", "");
    }
    s
}
