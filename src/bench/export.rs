//! Output formats for a benchmark run. Text and Markdown share one table
//! builder and the chapter's layout ([`Column`], [`TableHeader`]); CSV goes
//! through the `csv` crate; JSON and YAML are the run file's own
//! serialization.

use std::fmt::Write as _;

use super::ProducerKind;
use super::run_file::{BenchRun, ConfigResult, Row};
use super::table_layout::{Column, TableHeader};
use crate::error::{Error, Result};
use crate::text::table::{Align, aligned};

/// Columns `--wide` adds after the chapter's.
pub const WIDE_COLUMNS: [&str; 12] = [
    "startup",
    "start_cpu",
    "bound",
    "eff",
    "run_delay",
    "cons_cpu",
    "wrk_cpu",
    "nivcsw",
    "spread",
    "outside",
    "verdict",
    "digest",
];

/// The outside share as a cell: `0.4%`, `38.0%*` when disturbed, `-` when
/// not measured.
fn outside_cell(row: &Row) -> String {
    match row.outside {
        Some(share) => format!(
            "{:.1}%{}",
            share * 100.0,
            if row.disturbed { "*" } else { "" }
        ),
        None => "-".into(),
    }
}

/// The cells of one row, chapter columns first.
pub fn cells(row: &Row, wide: bool) -> Vec<String> {
    let mut c: Vec<String> = Column::CHAPTER
        .iter()
        .map(|col| col.format(col.measured(row).unwrap_or(f64::NAN)))
        .collect();
    if wide {
        c.extend([
            format!("{:.1}", row.startup_ms),
            row.start_cpu_ms
                .map(|ms| format!("{ms:.1}"))
                .unwrap_or_else(|| "-".into()),
            format!("{:.0}", row.bound_ex_per_s),
            format!("{:.3}", row.efficiency),
            format!("{:.2}", row.consumer_run_delay_ms),
            format!("{:.2}", row.consumer_cpu_ms),
            format!("{:.0}", row.workers_cpu_ms),
            row.involuntary_switches.to_string(),
            row.ex_per_s_spread
                .map(|s| format!("{:.1}%", s * 100.0))
                .unwrap_or_else(|| "-".into()),
            outside_cell(row),
            row.verdict.to_string(),
            // A digest is hex; PyTorch's rows have none ("not computed").
            if row.data_digest.chars().all(|c| c.is_ascii_hexdigit()) {
                crate::text::format::prefix(&row.data_digest, 8).to_string()
            } else {
                "-".to_string()
            },
        ]);
    }
    c
}

fn columns(wide: bool) -> Vec<&'static str> {
    let mut c: Vec<&'static str> = Column::CHAPTER.iter().map(Column::chapter_name).collect();
    if wide {
        c.extend(WIDE_COLUMNS);
    }
    c
}

/// Results grouped by producer, in run order, under their header lines.
fn blocks(run: &BenchRun) -> Vec<(TableHeader, Vec<&ConfigResult>)> {
    run.settings
        .producers
        .iter()
        .map(|&p: &ProducerKind| {
            (
                TableHeader::of_run(p, &run.settings),
                run.results.iter().filter(|r| r.producer == p).collect(),
            )
        })
        .collect()
}

/// The chapter's layout: a header line per producer, the column names, one
/// row per worker count, numbers right-aligned.
pub fn text(run: &BenchRun, wide: bool) -> String {
    let mut out = String::new();
    let cols = columns(wide);
    let mut align = vec![Align::Right; cols.len()];
    if wide {
        // The verdict and the digest are words.
        let n = align.len();
        align[n - 2] = Align::Left;
        align[n - 1] = Align::Left;
    }
    for (header, results) in blocks(run) {
        let rows: Vec<Vec<String>> = results.iter().map(|r| cells(&r.summary, wide)).collect();
        let _ = writeln!(out, "{header}");
        out.push_str(&aligned(&cols, &rows, &align));
        out.push('\n');
    }
    out
}

/// One Markdown table per producer, under the chapter's header line. Kept by
/// hand: a Markdown table is a line of cells joined by `|` per row, simpler
/// than any crate's builder.
pub fn markdown(run: &BenchRun, wide: bool) -> String {
    let mut out = String::new();
    let cols = columns(wide);
    for (header, results) in blocks(run) {
        let _ = writeln!(out, "`{header}`\n");
        let _ = writeln!(out, "| {} |", cols.join(" | "));
        let _ = writeln!(
            out,
            "|{}",
            cols.iter().map(|_| " ---: |").collect::<String>()
        );
        for r in results {
            let _ = writeln!(out, "| {} |", cells(&r.summary, wide).join(" | "));
        }
        out.push('\n');
    }
    // A table pasted into a chapter keeps the limit it was measured under.
    let limit = model_footer(run);
    if !limit.is_empty() {
        let _ = writeln!(out, "{limit}");
    }
    out
}

/// The CSV header: every figure of a row, with its unit in the name.
const CSV_HEADER: [&str; 29] = [
    "producer",
    "cost_ms",
    "batch_size",
    "consumer_ms",
    "workers",
    "ex_per_s",
    "wait_mean_ms",
    "wait_p50_ms",
    "wait_p95_ms",
    "wait_max_ms",
    "work_ms",
    "wait_frac",
    "startup_ms",
    "start_cpu_ms",
    "bound_ex_per_s",
    "efficiency",
    "consumer_run_delay_ms",
    "consumer_cpu_ms",
    "workers_cpu_ms",
    "involuntary_switches",
    "ex_per_s_spread",
    "verdict",
    "batches",
    "warmup_batches",
    "tail_batches",
    "window",
    "data_digest",
    "outside",
    "disturbed",
];

/// One CSV row per configuration with every column at full precision.
pub fn csv(run: &BenchRun) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let fail = |e: csv::Error| Error::Other(format!("cannot write CSV: {e}"));
    w.write_record(CSV_HEADER).map_err(fail)?;
    let s = &run.settings;
    for r in &run.results {
        let x = &r.summary;
        w.write_record([
            x.producer.to_string(),
            s.cost_ms.to_string(),
            s.batch_size.to_string(),
            s.consumer_ms.to_string(),
            x.workers.to_string(),
            format!("{:.3}", x.ex_per_s),
            format!("{:.4}", x.wait_mean_ms),
            format!("{:.4}", x.wait_p50_ms),
            format!("{:.4}", x.wait_p95_ms),
            format!("{:.4}", x.wait_max_ms),
            format!("{:.4}", x.work_ms),
            format!("{:.4}", x.wait_frac),
            format!("{:.3}", x.startup_ms),
            x.start_cpu_ms
                .map(|v| format!("{v:.3}"))
                .unwrap_or_default(),
            format!("{:.3}", x.bound_ex_per_s),
            format!("{:.4}", x.efficiency),
            format!("{:.4}", x.consumer_run_delay_ms),
            format!("{:.4}", x.consumer_cpu_ms),
            format!("{:.3}", x.workers_cpu_ms),
            x.involuntary_switches.to_string(),
            x.ex_per_s_spread
                .map(|v| format!("{v:.4}"))
                .unwrap_or_default(),
            x.verdict.to_string(),
            x.batches.to_string(),
            x.warmup_batches.map(|v| v.to_string()).unwrap_or_default(),
            x.tail_batches.map(|v| v.to_string()).unwrap_or_default(),
            s.window.to_string(),
            x.data_digest.clone(),
            x.outside.map(|v| format!("{v:.4}")).unwrap_or_default(),
            x.disturbed.to_string(),
        ])
        .map_err(fail)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| Error::Other(format!("cannot write CSV: {e}")))?;
    String::from_utf8(bytes).map_err(|e| Error::Other(format!("cannot write CSV: {e}")))
}

/// A few lines under the tables: how the run was made.
pub fn footer(run: &BenchRun) -> String {
    base_footer(run) + &load_footer(run) + &model_footer(run)
}

/// Where the embedded engine's rows are not known to be the real
/// DataLoader's in size, under the tables: with a training step shorter
/// than any it was compared at (docs/engine.md, "Without a training step").
pub fn model_footer(run: &BenchRun) -> String {
    if !run.engine_under_the_shortest_step() || run.results.iter().all(|r| r.workers == 0) {
        return String::new();
    }
    format!("model limit: {}\n", run.shortest_step_text())
}

/// The rounds and the outside load, under the tables: what the rows are
/// medians of, and how busy the machine was.
fn load_footer(run: &BenchRun) -> String {
    if !run.outside_measured() {
        return String::new();
    }
    let spreads: Vec<f64> = run
        .results
        .iter()
        .filter_map(|c| c.summary.ex_per_s_spread)
        .collect();
    let (disturbed, highest) = run.disturbance();
    let runs: usize = run.results.iter().map(|c| c.repeats.len()).sum();
    let all_disturbed = runs > 0 && disturbed >= runs;
    let rounds = match run.rounds() {
        1 if all_disturbed => "a single run, every configuration disturbed: the rows measure the machine's load as much as the pipeline".to_string(),
        1 => "a single run".to_string(),
        n if all_disturbed => format!(
            "{n} rounds, every run disturbed: the rows are medians of disturbed runs, and measure the machine's load as much as the pipeline"
        ),
        n => {
            // A configuration disturbed in every run has no undisturbed run
            // to take a median of: its row is of the disturbed ones.
            let throughout = run.left_disturbed().1;
            let but = match throughout {
                0 => String::new(),
                1 => ", but for 1 configuration disturbed in every run, whose row is of disturbed runs".to_string(),
                t => format!(
                    ", but for {t} configurations disturbed in every run, whose rows are of disturbed runs"
                ),
            };
            format!(
                "{n} rounds, rows the medians of the undisturbed ones{but} (spread of ex/s up to {:.1}%)",
                spreads.iter().copied().fold(0.0, f64::max) * 100.0
            )
        }
    };
    // A disturbed run that was run again once the machine was quiet leaves
    // no row to mark.
    let marked = match (disturbed, run.left_disturbed().0) {
        (0, _) => "",
        (_, 0) => " (each run again once it was quiet: no row marked)",
        _ => " (marked * in the wide tables)",
    };
    format!(
        "{rounds}; outside load: other processes took up to {:.1}% of {}, {disturbed} configuration run(s) over {:.0}%{marked}{}\n",
        highest.unwrap_or(0.0) * 100.0,
        super::outside_load::cpus_in_words(&run.cpus_used),
        super::outside_load::DISTURBED_ABOVE * 100.0,
        run.outside_load_cost_ns
            .map(|ns| format!("; measuring it costs {:.0} µs per configuration", ns / 1e3))
            .unwrap_or_default()
    )
}

/// How a run was measured and how busy the machine was, in a line: `6
/// rounds of 20 batches; other processes took at most 1% of CPU 0: no
/// configuration run disturbed`.
pub fn load_summary(run: &BenchRun) -> String {
    let rounds = match run.rounds() {
        1 => format!("a single run of {} batches", run.measured_steps_text()),
        n => format!("{n} rounds of {} batches", run.measured_steps_text()),
    };
    let cpus = super::outside_load::cpus_in_words(&run.cpus_used);
    let (disturbed, highest) = run.disturbance();
    let load = match highest {
        None => "outside load not measured".to_string(),
        Some(h) if disturbed == 0 => format!(
            "other processes took at most {:.0}% of {cpus}: no configuration run disturbed",
            h * 100.0
        ),
        Some(h) => {
            let (left, throughout) = run.left_disturbed();
            format!(
                "machine busy: other processes took up to {:.0}% of {cpus}; {disturbed} configuration run(s) disturbed, {}",
                h * 100.0,
                match left {
                    0 => "each run again once it was quiet".to_string(),
                    n if throughout == 0 => format!(
                        "{} (those rounds do not count)",
                        super::outside_load::left_disturbed_in_words(n, 0)
                    ),
                    n => super::outside_load::left_disturbed_in_words(n, throughout),
                }
            )
        }
    };
    format!("{rounds}; {load}")
}

fn base_footer(run: &BenchRun) -> String {
    let s = &run.settings;
    let cpus = crate::text::format::list(&run.cpus_used);
    let env = crate::env::short_id(&run.environment.env_id);
    if let Some(reference) = &run.reference {
        // The harness ran the loop as PyTorch does: in order, with
        // processes forked, and with its own hand-off.
        // It inherits the CPUs and the timer slack.
        let start = super::PythonSpeed::of_run(run, s)
            .map(|speed| {
                let busy = speed
                    .busy_text()
                    .map(|b| {
                        format!(
                            " ({b}, which slows Python's start: the factor may read the load as well as this machine)"
                        )
                    })
                    .unwrap_or_default();
                format!("\n   starting the workers: {}{busy}", speed.measured_text())
            })
            .unwrap_or_default();
        return format!(
            "{}; measured by the {reference}, \
             prefetch_factor {}, {} repeat(s); CPUs {cpus}; timer slack {} ns; env {env}{start}\n",
            run.window_text(),
            s.prefetch_factor,
            s.repeat,
            s.timer_slack_ns,
        );
    }
    format!(
        "{}; {} workers{}, {} delivery, prefetch_factor {}, {} repeat(s); \
         seed {}; CPUs {cpus}; timer slack {} ns; measuring cost {:.0} ns/step; env {env}; {}\n",
        run.window_text(),
        s.worker_kind,
        match s.worker_kind {
            super::WorkerKind::Process => format!(
                " ({} hand-off, {} ms loop CPU to take in a batch{}{})",
                s.transport,
                crate::text::format::setting(s.receive_ms),
                if s.python_cost_scale > 0.0 {
                    format!(
                        ", Python costs x{}{}{}",
                        crate::text::format::setting(s.python_cost_scale),
                        start_scales_text(s),
                        run.calibrated_to_pytorch
                            .map(|f| format!(
                                " (calibrated to PyTorch's Python beside it, x{})",
                                crate::text::format::setting(f)
                            ))
                            .unwrap_or_default()
                    )
                } else {
                    ", no Python costs".to_string()
                },
                if s.transport == super::Transport::Pipe {
                    String::new()
                } else {
                    format!(
                        ", {} ms worker CPU to hand one off, interpreter lock {}",
                        crate::text::format::setting(s.send_ms),
                        if s.switch_interval_ms > 0.0 {
                            format!(
                                "switching every {} ms",
                                crate::text::format::setting(s.switch_interval_ms)
                            )
                        } else {
                            "off".to_string()
                        }
                    )
                }
            ),
            // The model's hand-off and Python costs are the process
            // workers' alone.
            super::WorkerKind::Thread => {
                " (in the loop's process: no hand-off, no Python costs)".to_string()
            }
        },
        if s.in_order {
            "in-order"
        } else {
            "first-ready"
        },
        s.prefetch_factor,
        s.repeat,
        s.seed,
        s.timer_slack_ns,
        run.measurement_overhead_ns_per_step,
        match &run.engine_model {
            Some(model) => format!("engine model of {model}"),
            None => "engine model not named (an older run file)".to_string(),
        },
    )
}

/// The workers' start where it ran at scales of its own: `, the workers'
/// start x0.3 for the fork and x0.54 for the set-up`.
fn start_scales_text(s: &super::Settings) -> String {
    super::python_speed::ModelledCosts::ran(s)
        .start_text()
        .map(|t| format!(", the workers' start {t}"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{chapter06_tables, in_rounds, run_like};

    /// Chapter 06's run in four quiet rounds, with one more run of its first
    /// configuration in round 2, disturbed (`outside` 30%).
    fn with_a_disturbed_run(left_disturbed: bool) -> BenchRun {
        let mut run = in_rounds(run_like(&chapter06_tables(), 1), 4, |_, _| {});
        let c = &mut run.results[0];
        let mut busy = c.repeats[1].clone();
        busy.row.outside = Some(0.3);
        busy.row.disturbed = true;
        if left_disturbed {
            // Every round of it disturbed: nothing quiet to take instead.
            for r in &mut c.repeats {
                r.row.outside = Some(0.3);
                r.row.disturbed = true;
            }
        } else {
            c.repeats.push(busy);
        }
        c.summary = crate::bench::stats::summarize(&c.repeats);
        run
    }

    #[test]
    fn the_footer_points_at_marked_rows_only_when_a_row_is_marked() {
        let rerun = load_footer(&with_a_disturbed_run(false));
        assert!(
            rerun.contains(
                "1 configuration run(s) over 5% (each run again once it was quiet: no row marked)"
            ),
            "{rerun}"
        );
        assert!(!rerun.contains("marked *"), "{rerun}");
        let left = load_footer(&with_a_disturbed_run(true));
        assert!(
            left.contains("over 5% (marked * in the wide tables)"),
            "{left}"
        );
        let quiet = load_footer(&in_rounds(run_like(&chapter06_tables(), 1), 4, |_, _| {}));
        assert!(
            quiet.ends_with("0 configuration run(s) over 5%\n"),
            "{quiet}"
        );
        // The summary says a configuration was disturbed in every run; the
        // footer does not call its row a median of undisturbed runs.
        assert!(
            left.contains(
                "rows the medians of the undisturbed ones, but for 1 configuration disturbed in every run, whose row is of disturbed runs"
            ),
            "{left}"
        );
        assert!(!rerun.contains(", but for"), "{rerun}");
    }

    #[test]
    fn a_run_under_the_shortest_step_compared_says_its_ex_s_is_not_known() {
        let mut run = run_like(&chapter06_tables(), 1);
        assert_eq!(model_footer(&run), "", "a training step of 8 ms");
        run.settings.consumer_ms = 1.0;
        assert_eq!(model_footer(&run), "", "the shortest step compared");
        run.settings.consumer_ms = 0.0;
        assert!(markdown(&run, false).contains("model limit: consumer under 1 ms a batch"));
        assert!(
            footer(&run).contains("model limit: consumer under 1 ms a batch (here 0 ms)"),
            "{}",
            footer(&run)
        );
        // Only the 0-worker rows: nothing handed off, nothing to say.
        let mut inline = run.clone();
        inline.results.retain(|r| r.workers == 0);
        assert_eq!(model_footer(&inline), "");
        // The real DataLoader measured it.
        assert_eq!(model_footer(&crate::testing::measured_by_pytorch(run)), "");
    }
}
