//! `compare`: two measured runs side by side.

use crate::app::Project;
use crate::app::side_by_side::{self, Pair, SideBySide};
use crate::cli::CompareArgs;
use crate::error::{Outcome, Result};
use crate::output::{Out, Render};

fn ratio(p: &Pair) -> String {
    p.ratio
        .map(|r| format!("x{r:.2}"))
        .unwrap_or_else(|| "-".into())
}

impl Render for SideBySide {
    fn text(&self) -> Result<String> {
        let mut s = String::new();
        for (name, l) in [("A", &self.a), ("B", &self.b)] {
            s.push_str(&format!(
                "{name}: {} ({}; env {}; CPUs {}; {})\n",
                l.source,
                l.engine,
                crate::env::short_id(&l.env_id),
                crate::text::list(&l.cpus_used),
                l.created_at.format("%Y-%m-%d %H:%M UTC")
            ));
        }
        if self.run_differences.is_empty() {
            s.push_str("the runs share their settings, environment and CPUs\n");
        } else {
            s.push_str("the runs differ in:\n");
            for d in &self.run_differences {
                s.push_str(&format!("  {d}\n"));
            }
        }
        let mut producer = None;
        for r in &self.rows {
            if producer != Some(r.producer) {
                producer = Some(r.producer);
                s.push_str(&format!(
                    "\n=== producer={} (A | B, ratio B/A) ===\n{:>7}  {:>15} {:>7}  {:>15} {:>7}  {:>13} {:>7}  {:>11}\n",
                    r.producer, "workers", "ex/s", "", "wait_mean", "", "work", "", "wait_frac"
                ));
            }
            s.push_str(&format!(
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
            ));
            for d in &r.differences {
                s.push_str(&format!("{:>9}differs: {d}\n", ""));
            }
        }
        if !self.unpaired.is_empty() {
            s.push_str(&format!(
                "\nmeasured in one run only: {}\n",
                self.unpaired.join(", ")
            ));
        }
        let apart = self
            .rows
            .iter()
            .filter(|r| !r.differences.is_empty())
            .count();
        s.push_str(&format!(
            "\n{} configuration(s) compared, {apart} differ (ex/s or wait/work beyond x{}, or wait_frac by more than {:.2})\n",
            self.rows.len(),
            side_by_side::RATIO_APART,
            side_by_side::WAIT_FRAC_APART
        ));
        Ok(s)
    }
}

/// `compare`
pub fn run(
    out: &mut Out,
    project: impl Fn() -> Result<Project>,
    args: CompareArgs,
) -> Result<Outcome> {
    let a = side_by_side::load(&args.a, &project)?;
    let b = side_by_side::load(&args.b, &project)?;
    let view = side_by_side::side_by_side(&args.a, &a, &args.b, &b);
    out.emit(&view, args.format.into())?;
    Ok(Outcome::Ok)
}
