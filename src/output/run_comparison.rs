//! Two runs side by side as text, Markdown and CSV: what `compare`
//! prints, what `bench --engine both` prints, and what `reproduce --engine
//! both` adds after the two engines' runs. Every row gives both runs' ex/s,
//! wait and work with the ratio B/A, and both wait fractions with the
//! difference B − A.

use std::fmt::Write as _;

use super::Render;
use crate::app::compare::{
    Agreement, Bands, Judged, Pair, PairedRow, PythonSpeedNote, RunComparison, SpreadOverlap,
};
use crate::error::{Error, Result};

impl Render for RunComparison {
    fn text(&self) -> Result<String> {
        let mut s = runs_text(self);
        let mut producer = None;
        for r in &self.rows {
            if producer != Some(r.producer) {
                producer = Some(r.producer);
                let _ = write!(
                    s,
                    "\n=== producer={} (A | B, ratio B/A; wait_frac A | B, B-A) ===\n{:>7}  {:>15} {:>7}  {:>15} {:>7}  {:>13} {:>7}  {:>11}\n",
                    r.producer, "workers", "ex/s", "", "wait_mean", "", "work", "", "wait_frac"
                );
            }
            s.push_str(&row_text(r, self.bands, any_interval(self)));
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
            "\n{} configuration(s) compared, {apart} differ (ex/s or wait/work beyond x{}, wait_frac by more than {}, or ex/s beyond both runs' spread over their rounds)",
            self.rows.len(),
            crate::text::format::setting(self.bands.ratio),
            crate::text::format::setting(self.bands.wait_frac)
        );
        let count = |w: SpreadOverlap| self.rows.iter().filter(|r| r.spread == w).count();
        let _ = writeln!(
            s,
            "spread over rounds: ex/s beyond both runs' spread in {}, within it in {}, unknown in {} (a run with fewer than two undisturbed runs of it)",
            count(SpreadOverlap::Beyond),
            count(SpreadOverlap::Within),
            count(SpreadOverlap::Unknown)
        );
        s.push_str(&over_rounds_summary(self));
        Ok(s)
    }

    fn markdown(&self) -> Result<String> {
        let mut s = String::new();
        for (name, l) in [("A", &self.a), ("B", &self.b)] {
            let _ = writeln!(s, "- {name}: `{}` ({})", l.source, l.engine);
        }
        for d in &self.run_differences {
            let _ = writeln!(s, "- the runs differ: {d}");
        }
        if let Some(note) = &self.python_speed {
            let _ = writeln!(s, "- {}", python_speed_text(note));
        }
        s.push_str(
            "\n| producer | workers | ex/s A | ex/s B | ex/s B/A | ex/s B/A, 95% over rounds | wait_mean A | wait_mean B | work A | work B | wait_frac A | wait_frac B | wait_frac B-A | wait_frac B-A, 95% over rounds |\n",
        );
        s.push_str("| --- |");
        s.push_str(&" ---: |".repeat(13));
        s.push('\n');
        let judged = |j: Option<Judged>, text: fn(&Judged) -> String| {
            j.map_or_else(
                || "-".to_string(),
                |j| format!("{} ({})", text(&j), j.reading.text()),
            )
        };
        for r in &self.rows {
            let _ = writeln!(
                s,
                "| {} | {} | {:.0} | {:.0} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.2} | {:+.2} | {} |",
                r.producer,
                r.workers,
                r.ex_per_s.a,
                r.ex_per_s.b,
                ratio_text(&r.ex_per_s),
                judged(r.over_rounds.ex_per_s_ratio, ratio_interval_text),
                r.wait_mean_ms.a,
                r.wait_mean_ms.b,
                r.work_ms.a,
                r.work_ms.b,
                r.wait_frac.a,
                r.wait_frac.b,
                r.wait_frac.difference,
                judged(r.over_rounds.wait_frac_difference, difference_interval_text),
            );
        }
        if !self.unpaired.is_empty() {
            let _ = writeln!(
                s,
                "\nMeasured in one run only: {}",
                self.unpaired.join(", ")
            );
        }
        s.push('\n');
        s.push_str(&over_rounds_summary(self));
        Ok(s)
    }

    fn csv(&self) -> Result<String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let fail = |e: csv::Error| Error::Other(format!("cannot write CSV: {e}"));
        w.write_record(COMPARISON_CSV_HEADER).map_err(fail)?;
        let ratio = |p: &Pair| p.ratio.map(|r| format!("{r:.4}")).unwrap_or_default();
        let bound = |j: Option<Judged>, end: fn(&crate::published::shift::Shift) -> f64| {
            j.map(|j| format!("{:.4}", end(&j.interval)))
                .unwrap_or_default()
        };
        let reading = |j: Option<Judged>| {
            j.map(|j| j.reading.text().replace(' ', "_"))
                .unwrap_or_default()
        };
        for r in &self.rows {
            w.write_record([
                self.a.source.clone(),
                self.b.source.clone(),
                r.producer.to_string(),
                r.workers.to_string(),
                format!("{:.3}", r.ex_per_s.a),
                format!("{:.3}", r.ex_per_s.b),
                ratio(&r.ex_per_s),
                format!("{:.4}", r.wait_mean_ms.a),
                format!("{:.4}", r.wait_mean_ms.b),
                ratio(&r.wait_mean_ms),
                format!("{:.4}", r.work_ms.a),
                format!("{:.4}", r.work_ms.b),
                ratio(&r.work_ms),
                format!("{:.4}", r.wait_frac.a),
                format!("{:.4}", r.wait_frac.b),
                format!("{:.4}", r.wait_frac.difference),
                bound(r.over_rounds.ex_per_s_ratio, |i| i.low),
                bound(r.over_rounds.ex_per_s_ratio, |i| i.high),
                reading(r.over_rounds.ex_per_s_ratio),
                bound(r.over_rounds.wait_frac_difference, |i| i.low),
                bound(r.over_rounds.wait_frac_difference, |i| i.high),
                reading(r.over_rounds.wait_frac_difference),
            ])
            .map_err(fail)?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| Error::Other(format!("cannot write CSV: {e}")))?;
        String::from_utf8(bytes).map_err(|e| Error::Other(format!("CSV is not UTF-8: {e}")))
    }
}

/// The CSV header of two runs side by side: which run is A and which B on
/// every row, then each figure of both with its ratio (the wait fraction
/// with its difference), then the ratio's and the difference's 95%
/// intervals over rounds with their readings (empty without one).
const COMPARISON_CSV_HEADER: [&str; 22] = [
    "a",
    "b",
    "producer",
    "workers",
    "ex_per_s_a",
    "ex_per_s_b",
    "ex_per_s_ratio",
    "wait_mean_ms_a",
    "wait_mean_ms_b",
    "wait_mean_ms_ratio",
    "work_ms_a",
    "work_ms_b",
    "work_ms_ratio",
    "wait_frac_a",
    "wait_frac_b",
    "wait_frac_difference",
    "ex_per_s_ratio_low",
    "ex_per_s_ratio_high",
    "ex_per_s_ratio_reading",
    "wait_frac_difference_low",
    "wait_frac_difference_high",
    "wait_frac_difference_reading",
];

/// An interval of ratios as the tables print it: `0.98 to 1.07`.
fn ratio_interval_text(j: &Judged) -> String {
    format!("{:.2} to {:.2}", j.interval.low, j.interval.high)
}

/// An interval of differences: `-0.02 to +0.06`.
fn difference_interval_text(j: &Judged) -> String {
    format!("{:+.2} to {:+.2}", j.interval.low, j.interval.high)
}

/// A row's intervals over rounds, in words, under its numbers: none when
/// the runs have too few rounds of it.
fn over_rounds_line(r: &PairedRow, bands: Bands, any: bool) -> Option<String> {
    let o = &r.over_rounds;
    if o.ex_per_s_ratio.is_none() && o.wait_frac_difference.is_none() {
        // Among rows that have one, a row without says why.
        return any.then(|| {
            format!(
                "95% over rounds: none, from {} and {} undisturbed rounds ({})",
                o.rounds_a, o.rounds_b, ROUNDS_NEEDED
            )
        });
    }
    let part = |j: Option<Judged>, name: &str, text: fn(&Judged) -> String, band: String| {
        j.map_or_else(
            || format!("{name} no interval"),
            |j| {
                let relation = match j.reading {
                    Agreement::Within => "inside",
                    Agreement::Apart => "outside",
                    Agreement::CannotTell => "across an edge of",
                };
                format!(
                    "{name} {}: {} ({relation} {band})",
                    text(&j),
                    j.reading.text()
                )
            },
        )
    };
    Some(format!(
        "95% over rounds ({} and {}): {}; {}",
        o.rounds_a,
        o.rounds_b,
        part(
            o.ex_per_s_ratio,
            "ex/s B/A",
            ratio_interval_text,
            ratio_band_text(bands.ratio)
        ),
        part(
            o.wait_frac_difference,
            "wait_frac B-A",
            difference_interval_text,
            format!("\u{b1}{}", crate::text::format::setting(bands.wait_frac))
        ),
    ))
}

/// What rounds an interval needs, in words.
const ROUNDS_NEEDED: &str = "a configuration needs 4 undisturbed rounds in each run for one (or 3 and 5, 2 and 8, 1 and 39)";

/// A ratio band as its two edges: `x0.91 to x1.1`.
fn ratio_band_text(ratio: f64) -> String {
    format!(
        "x{:.2} to x{}",
        1.0 / ratio,
        crate::text::format::setting(ratio)
    )
}

/// How many rows each interval reads within its band, apart from it, or
/// cannot tell, and how many have no interval.
fn over_rounds_summary(c: &RunComparison) -> String {
    if !any_interval(c) {
        return format!(
            "no 95% intervals over rounds: {ROUNDS_NEEDED}; `--rounds 6` in both leaves room for a disturbed one\n"
        );
    }
    let counts = |pick: fn(&PairedRow) -> Option<Judged>| {
        let n = |a: Agreement| {
            c.rows
                .iter()
                .filter(|r| pick(r).is_some_and(|j| j.reading == a))
                .count()
        };
        let none = c.rows.iter().filter(|r| pick(r).is_none()).count();
        let mut s = format!(
            "within in {}, apart in {}, cannot tell in {}",
            n(Agreement::Within),
            n(Agreement::Apart),
            n(Agreement::CannotTell)
        );
        if none > 0 {
            s.push_str(&format!(", no interval in {none}"));
        }
        s
    };
    format!(
        "95% over rounds, by {}: ex/s B/A against {}: {}; wait_frac B-A against \u{b1}{}: {}\n\
         (within: the whole interval inside the band; apart: all of it outside, a difference larger than the band beyond the rounds' noise; cannot tell: it crosses an edge, so more rounds or a quieter machine are needed)\n",
        c.interval_method,
        ratio_band_text(c.bands.ratio),
        counts(|r| r.over_rounds.ex_per_s_ratio),
        crate::text::format::setting(c.bands.wait_frac),
        counts(|r| r.over_rounds.wait_frac_difference),
    )
}

/// A ratio as the tables print it: `x1.07`, or `-` where A is 0.
fn ratio_text(p: &Pair) -> String {
    p.ratio.map_or_else(|| "-".into(), |r| format!("x{r:.2}"))
}

/// The ratio of two times the table shows to a tenth of a millisecond:
/// none when both show as 0.0, where it would be the ratio of what the
/// columns cannot show (`0.0 0.0 x0.25` with no consumer).
fn ms_ratio_text(p: &Pair) -> String {
    if p.a.abs() < 0.05 && p.b.abs() < 0.05 {
        return "-".into();
    }
    ratio_text(p)
}

/// Where each run came from, and what differs between the runs themselves.
fn runs_text(c: &RunComparison) -> String {
    let mut s = String::new();
    for (name, l) in [("A", &c.a), ("B", &c.b)] {
        let _ = writeln!(
            s,
            "{name}: {} ({}; env {}; CPUs {}; {})",
            crate::text::escape::visible(&l.source),
            crate::text::escape::visible(&l.engine),
            crate::env::short_id(&l.env_id),
            crate::text::format::list(&l.cpus_used),
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
            let _ = writeln!(s, "  {}", crate::text::escape::visible(d));
        }
    }
    if let Some(note) = &c.python_speed {
        let _ = writeln!(s, "{}", python_speed_text(note));
    }
    s
}

/// The workers' start where it ran at scales of its own: `, its workers'
/// start at x0.3 for the fork and x0.54 for the set-up`.
fn start_text(ran: &crate::bench::ModelledCosts) -> String {
    ran.start_text()
        .map(|t| format!(", its workers' start at {t}"))
        .unwrap_or_default()
}

/// How this machine's Python stood against the engine's figures, in words:
/// what the engine ran with, the flags that model the machine where it did
/// not, and a warning where a busy machine may have moved the factor.
fn python_speed_text(note: &PythonSpeedNote) -> String {
    let s = &note.speed;
    let setting = crate::text::format::setting;
    let ran = &note.engine_ran;
    let mut text = format!(
        "Python here: {}; the engine ran its Python costs at x{}{}, {} ms loop CPU to take in a batch{}",
        s.measured_text(),
        setting(ran.python_cost_scale),
        start_text(ran),
        setting(ran.receive_ms),
        ran.send_ms
            .map(|send| format!(" and {} ms worker CPU to hand one off", setting(send)))
            .unwrap_or_default(),
    );
    match (&s.models_it, note.modelled) {
        (None, _) => {
            text.push_str("; ");
            text.push_str(&no_setting_models(s));
        }
        (Some(_), true) => text.push_str(match note.calibrated_to {
            Some(_) => ", calibrated to this machine's by --calibrate-to-pytorch",
            None => ", as this machine's",
        }),
        (Some(m), false) => text.push_str(&format!(
            ", so rows that lean on them (small batches, short costs, workers crowding the CPUs) may differ \
             for that reason; `--python-cost-scale {}{} --receive-ms {}{}` models this machine \
             (`--calibrate-to-pytorch` with `bench --engine both`)",
            setting(m.python_cost_scale),
            // At the default Python scale `bench` runs the start at its own
            // defaults, so the start's scales are said whenever they would
            // not otherwise follow.
            if m.start_apart() || m.python_cost_scale == crate::bench::PYTHON_COST_SCALE {
                format!(
                    " --fork-cost-scale {} --setup-cost-scale {}",
                    setting(m.fork_cost_scale),
                    setting(m.setup_cost_scale)
                )
            } else {
                String::new()
            },
            setting(m.receive_ms),
            m.send_ms
                .map(|send| format!(" --send-ms {}", setting(send)))
                .unwrap_or_default(),
        )),
    }
    if let Some(busy) = s.busy_text() {
        text.push_str(&format!(
            ". But {busy}, and load slows Python's start even on CPUs the run did not use: \
             the factor may read the load as well as the machine, so measure it again on a quiet \
             machine before calibrating to it"
        ));
    }
    text
}

/// Why no setting models a factor outside what the engine's flags can
/// model, in words.
pub fn no_setting_models(speed: &crate::bench::PythonSpeed) -> String {
    let factor = speed.factor;
    let max = crate::bench::settings::MAX_PYTHON_COST_SCALE;
    if factor <= max && speed.fork_ratio.max(speed.setup_ratio) > max {
        return format!(
            "no setting models a start at x{} for the fork and x{} for the set-up, above the x{} \
             --fork-cost-scale and --setup-cost-scale take at most",
            crate::text::format::setting(speed.fork_ratio),
            crate::text::format::setting(speed.setup_ratio),
            crate::text::format::setting(max)
        );
    }
    if factor < crate::bench::python_speed::LEAST_FACTOR {
        format!(
            "no setting models a factor below x{}: at the two places --receive-ms and --send-ms take, the hand-off's costs would be 0",
            crate::text::format::setting(crate::bench::python_speed::LEAST_FACTOR)
        )
    } else {
        format!(
            "no setting models a factor of x{}, above the x{} --python-cost-scale takes at most",
            crate::text::format::setting(factor),
            crate::text::format::setting(crate::bench::settings::MAX_PYTHON_COST_SCALE)
        )
    }
}

/// One configuration, both runs' numbers and their ratios, and what
/// differs.
/// Whether any row has an interval over rounds.
fn any_interval(c: &RunComparison) -> bool {
    c.rows.iter().any(|r| {
        r.over_rounds.ex_per_s_ratio.is_some() || r.over_rounds.wait_frac_difference.is_some()
    })
}

fn row_text(r: &PairedRow, bands: Bands, any: bool) -> String {
    let ratio = ratio_text;
    let mut s = format!(
        "{:>7}  {:>7.0} {:>7.0} {:>7}  {:>7.1} {:>7.1} {:>7}  {:>6.1} {:>6.1} {:>7}  {:>5.2} {:>5.2} {:>+6.2}\n",
        r.workers,
        r.ex_per_s.a,
        r.ex_per_s.b,
        ratio(&r.ex_per_s),
        r.wait_mean_ms.a,
        r.wait_mean_ms.b,
        ms_ratio_text(&r.wait_mean_ms),
        r.work_ms.a,
        r.work_ms.b,
        ms_ratio_text(&r.work_ms),
        r.wait_frac.a,
        r.wait_frac.b,
        r.wait_frac.difference,
    );
    if let Some(line) = over_rounds_line(r, bands, any) {
        let _ = writeln!(s, "{:>9}{line}", "");
    }
    for d in &r.differences {
        let _ = writeln!(s, "{:>9}differs: {d}", "");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_that_both_show_as_zero_get_no_ratio() {
        assert_eq!(ms_ratio_text(&Pair::new(0.04, 0.01)), "-");
        assert_eq!(ms_ratio_text(&Pair::new(0.04, 0.2)), "x5.00");
        assert_eq!(ms_ratio_text(&Pair::new(8.0, 8.4)), "x1.05");
    }

    #[test]
    fn a_start_ratio_past_the_limit_is_named_not_the_factor() {
        use crate::bench::{PythonSpeed, Transport, run_file::PythonStart};
        let speed = |fork_ms, setup_ms| {
            let start = PythonStart {
                fork_ms,
                setup_ms,
                workers: 8,
            };
            PythonSpeed::of(start, None, Transport::SharedFd).unwrap()
        };
        // A fork 200 times the figures' and a set-up a hundredth: the factor
        // (x1.41) runs, the fork's ratio does not.
        let apart = speed(200.0 * 18.0, 0.01 * 24.0);
        assert_eq!(apart.factor, 1.41);
        assert_eq!(apart.models_it, None);
        assert_eq!(
            no_setting_models(&apart),
            "no setting models a start at x200 for the fork and x0.01 for the set-up, above the x100 \
             --fork-cost-scale and --setup-cost-scale take at most"
        );
        let past = speed(1e6, 1e6);
        assert!(
            no_setting_models(&past).contains("above the x100 --python-cost-scale takes at most")
        );
    }
}
