//! Output formats for a benchmark run. Text and Markdown share one table
//! builder; JSON and YAML are the run file's own serialization.

use std::fmt::Write as _;

use super::{BenchRun, ConfigResult, ProducerKind, Row, Settings};

/// The chapter's columns, in its order.
pub const CHAPTER_COLUMNS: [&str; 8] = [
    "workers",
    "ex/s",
    "wait_mean",
    "wait_p50",
    "wait_p95",
    "wait_max",
    "work",
    "wait_frac",
];
/// Columns `--wide` adds.
pub const WIDE_COLUMNS: [&str; 10] = [
    "startup",
    "bound",
    "eff",
    "run_delay",
    "cons_cpu",
    "wrk_cpu",
    "nivcsw",
    "spread",
    "verdict",
    "digest",
];

/// The chapter's header line for one producer block, e.g.
/// `=== producer=sleep 2.0 ms/sample batch=32 consumer=8 ms/batch ===`.
pub fn block_header(producer: ProducerKind, s: &Settings) -> String {
    let cost = if s.cost_ms.fract() == 0.0 {
        format!("{:.1}", s.cost_ms)
    } else {
        format!("{}", s.cost_ms)
    };
    format!(
        "=== producer={producer} {cost} ms/sample batch={} consumer={} ms/batch ===",
        s.batch_size, s.consumer_ms
    )
}

/// The cells of one row, chapter columns first.
pub fn cells(row: &Row, wide: bool) -> Vec<String> {
    let mut c = vec![
        row.workers.to_string(),
        format!("{:.0}", row.ex_per_s),
        format!("{:.1}", row.wait_mean_ms),
        format!("{:.1}", row.wait_p50_ms),
        format!("{:.1}", row.wait_p95_ms),
        format!("{:.1}", row.wait_max_ms),
        format!("{:.1}", row.work_ms),
        format!("{:.2}", row.wait_frac),
    ];
    if wide {
        c.extend([
            format!("{:.1}", row.startup_ms),
            format!("{:.0}", row.bound_ex_per_s),
            format!("{:.3}", row.efficiency),
            format!("{:.2}", row.consumer_run_delay_ms),
            format!("{:.2}", row.consumer_cpu_ms),
            format!("{:.0}", row.workers_cpu_ms),
            row.involuntary_switches.to_string(),
            row.ex_per_s_spread
                .map(|s| format!("{:.1}%", s * 100.0))
                .unwrap_or_else(|| "-".into()),
            row.verdict.to_string(),
            crate::text::prefix(&row.data_digest, 8).to_string(),
        ]);
    }
    c
}

fn columns(wide: bool) -> Vec<&'static str> {
    let mut c = CHAPTER_COLUMNS.to_vec();
    if wide {
        c.extend(WIDE_COLUMNS);
    }
    c
}

/// Results grouped by producer, in run order.
fn blocks(run: &BenchRun) -> Vec<(ProducerKind, Vec<&ConfigResult>)> {
    run.settings
        .producers
        .iter()
        .map(|p| {
            (
                *p,
                run.results.iter().filter(|r| r.producer == *p).collect(),
            )
        })
        .collect()
}

/// The chapter's layout: a header line per producer, the column names, one
/// right-aligned row per worker count.
pub fn text(run: &BenchRun, wide: bool) -> String {
    let mut out = String::new();
    let cols = columns(wide);
    for (producer, results) in blocks(run) {
        let rows: Vec<Vec<String>> = results.iter().map(|r| cells(&r.summary, wide)).collect();
        let widths: Vec<usize> = cols
            .iter()
            .enumerate()
            .map(|(i, c)| {
                rows.iter()
                    .map(|r| r[i].len())
                    .chain([c.len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let _ = writeln!(out, "{}", block_header(producer, &run.settings));
        let line = |cells: Vec<String>| {
            cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:>w$}"))
                .collect::<Vec<_>>()
                .join("  ")
        };
        let _ = writeln!(
            out,
            "{}",
            line(cols.iter().map(|c| c.to_string()).collect())
        );
        for r in rows {
            let _ = writeln!(out, "{}", line(r));
        }
        out.push('\n');
    }
    out
}

/// One Markdown table per producer, under the chapter's header line.
pub fn markdown(run: &BenchRun, wide: bool) -> String {
    let mut out = String::new();
    let cols = columns(wide);
    for (producer, results) in blocks(run) {
        let _ = writeln!(out, "`{}`\n", block_header(producer, &run.settings));
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
    out
}

/// One CSV row per configuration with every column at full precision.
pub fn csv(run: &BenchRun) -> String {
    let mut out = String::from(
        "producer,cost_ms,batch_size,consumer_ms,workers,ex_per_s,wait_mean_ms,wait_p50_ms,wait_p95_ms,\
         wait_max_ms,work_ms,wait_frac,startup_ms,bound_ex_per_s,efficiency,consumer_run_delay_ms,\
         consumer_cpu_ms,workers_cpu_ms,involuntary_switches,ex_per_s_spread,verdict,batches,data_digest\n",
    );
    let s = &run.settings;
    for r in &run.results {
        let x = &r.summary;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{:.3},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.3},{:.3},{:.4},{:.4},{:.4},{:.3},{},{},{},{},{}",
            x.producer,
            s.cost_ms,
            s.batch_size,
            s.consumer_ms,
            x.workers,
            x.ex_per_s,
            x.wait_mean_ms,
            x.wait_p50_ms,
            x.wait_p95_ms,
            x.wait_max_ms,
            x.work_ms,
            x.wait_frac,
            x.startup_ms,
            x.bound_ex_per_s,
            x.efficiency,
            x.consumer_run_delay_ms,
            x.consumer_cpu_ms,
            x.workers_cpu_ms,
            x.involuntary_switches,
            x.ex_per_s_spread
                .map(|v| format!("{v:.4}"))
                .unwrap_or_default(),
            x.verdict,
            x.batches,
            x.data_digest
        );
    }
    out
}

/// A few lines under the tables: how the run was made.
pub fn footer(run: &BenchRun) -> String {
    let s = &run.settings;
    format!(
        "{} batches per configuration ({} warm-up), {} workers, {} delivery, prefetch_factor {}, {} repeat(s); \
         CPUs {:?}; timer slack {} ns; measuring cost {:.0} ns/step; env {}\n",
        s.batches,
        s.warmup_batches,
        s.worker_kind,
        if s.in_order {
            "in-order"
        } else {
            "first-ready"
        },
        s.prefetch_factor,
        s.repeat,
        run.cpus_used,
        s.timer_slack_ns,
        run.measurement_overhead_ns_per_step,
        crate::text::prefix(&run.environment.env_id, 16),
    )
}
