//! Test support for the unit tests beside the code: chapter 06 as the test
//! fixtures hold it (`tests/fixtures/`, never the user's own
//! `book-snapshots/`, which a user may change), its published tables, runs
//! made from numbers, and records made by hand. Compiled only for tests.

use chrono::{DateTime, Utc};

use crate::bench::{BenchRun, ConfigResult, PipelineVerdict, ProducerKind, RUN_SCHEMA, Row};
use crate::bench::{Column, Settings};
use crate::chapter::registry::Registry;
use crate::chapter::{Chapter, Fingerprint, Scope};
use crate::ids::RunId;
use crate::layout::Layout;
use crate::published::tables::{self, Table};
use crate::records::{RECORD_SCHEMA, Record, Revision, RunKind};

/// The test fixtures, as a project (read-only).
pub fn repo_layout() -> Layout {
    Layout::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"))
}

/// Chapter 06 as the fixtures store it.
pub fn chapter06() -> Chapter {
    Registry::open(&repo_layout())
        .unwrap()
        .get("pytorch-from-first-principles/06")
        .unwrap()
}

/// Chapter 06's notebook as the fixtures store it (its first snapshot).
pub fn chapter06_notebook() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/book-snapshots/pytorch-from-first-principles/06/notebooks/0001-98070b378394.ipynb",
    )
}

/// The tables chapter 06's stored excerpt publishes.
pub fn chapter06_tables() -> Vec<Table> {
    let text = include_str!(
        "../tests/fixtures/book-snapshots/pytorch-from-first-principles/06/snapshots/0001-a7d34947a6b4.txt"
    );
    let parsed = tables::parse(text);
    assert!(parsed.malformed.is_empty(), "{:?}", parsed.malformed);
    parsed.tables
}

/// Chapter 06's stored excerpt, normalized.
pub fn prose06() -> String {
    crate::chapter::normalize::normalize(include_str!(
        "../tests/fixtures/book-snapshots/pytorch-from-first-principles/06/snapshots/0001-a7d34947a6b4.txt"
    ))
    .expect("the excerpt normalizes")
}

/// A row with the chapter's columns set and everything else neutral.
pub fn row(producer: ProducerKind, workers: usize, cells: &[(Column, f64)]) -> Row {
    let mut r = Row {
        producer,
        workers,
        ex_per_s: 0.0,
        wait_mean_ms: 0.0,
        wait_p50_ms: 0.0,
        wait_p95_ms: 0.0,
        wait_max_ms: 0.0,
        work_ms: 0.0,
        wait_frac: 0.0,
        startup_ms: 0.0,
        start_cpu_ms: None,
        warmup_batches: None,
        tail_batches: None,
        bound_ex_per_s: 0.0,
        efficiency: 1.0,
        consumer_run_delay_ms: 0.0,
        consumer_cpu_ms: 0.0,
        workers_cpu_ms: 0.0,
        involuntary_switches: 0,
        verdict: PipelineVerdict::ConsumerBound,
        batches: 90,
        window_ms: 1000.0,
        data_digest: "0".into(),
        max_outstanding: 0,
        ex_per_s_spread: None,
        outside: None,
        disturbed: false,
    };
    for (c, v) in cells {
        match c {
            Column::ExPerS => r.ex_per_s = *v,
            Column::WaitMean => r.wait_mean_ms = *v,
            Column::WaitP50 => r.wait_p50_ms = *v,
            Column::WaitP95 => r.wait_p95_ms = *v,
            Column::WaitMax => r.wait_max_ms = *v,
            Column::Work => r.work_ms = *v,
            Column::WaitFrac => r.wait_frac = *v,
            Column::Workers | Column::Other(_) => {}
        }
    }
    r
}

/// A run that measured exactly what `tables` publish, with the chapter's
/// settings, on `cpus` CPUs.
pub fn run_like(tables: &[Table], cpus: usize) -> BenchRun {
    let mut results = Vec::new();
    for t in tables {
        for w in t.workers() {
            let cells: Vec<(Column, f64)> = t
                .columns
                .iter()
                .filter_map(|c| Some((c.clone(), t.cell(w, c)?.value)))
                .collect();
            results.push(ConfigResult {
                producer: t.header.producer,
                workers: w,
                summary: row(t.header.producer, w, &cells),
                repeats: Vec::new(),
            });
        }
    }
    BenchRun {
        schema: RUN_SCHEMA.into(),
        created_at: at("2026-11-30T10:00:00Z"),
        tool_version: "test".into(),
        settings: Settings::chapter_defaults(),
        cpus_used: (0..cpus).collect(),
        environment: crate::env::collect(),
        measurement_overhead_ns_per_step: 100.0,
        outside_load_cost_ns: None,
        results,
        reference: None,
        engine_model: Some(crate::bench::calibration::ENGINE_MODEL.into()),
        calibrated_to_pytorch: None,
    }
}

/// `run` as if the real DataLoader had measured it: PyTorch 2.15 under
/// Python 3.11, `file_descriptor` sharing, `fork`.
pub fn measured_by_pytorch(mut run: BenchRun) -> BenchRun {
    run.reference = Some(crate::bench::ReferenceEngine {
        engine: "pytorch".into(),
        python: "3.11.7".into(),
        torch: "2.15.0".into(),
        sharing_strategy: "file_descriptor".into(),
        start_method: "fork".into(),
        start: None,
        per_batch: None,
        elsewhere_busy: None,
    });
    run.engine_model = None;
    run
}

/// `run`'s configurations in `rounds` rounds: round r's run of each is its
/// summary with every cell changed by `vary(round, producer, workers, row)`,
/// and an outside share of 1% (quiet); summaries made as a run makes them.
pub fn in_rounds(mut run: BenchRun, rounds: usize, vary: impl Fn(usize, &mut Row)) -> BenchRun {
    for c in &mut run.results {
        c.repeats = (1..=rounds)
            .map(|round| {
                let mut row = c.summary.clone();
                row.outside = Some(0.01);
                vary(round, &mut row);
                crate::bench::RepeatResult {
                    row,
                    wait_histogram_ns: String::new(),
                    work_histogram_ns: String::new(),
                    round: Some(round),
                }
            })
            .collect();
        c.summary = crate::bench::stats::summarize(&c.repeats);
    }
    run.settings.rounds = rounds;
    run
}

/// A time from RFC 3339 text.
pub fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

/// A record of `kind` for chapter 06 that examined the revision with
/// fingerprint `hex`, recorded at `when`.
pub fn record(kind: RunKind, hex: &str, when: &str) -> Record {
    let ch = chapter06();
    let recorded_at = at(when);
    Record {
        schema: RECORD_SCHEMA.into(),
        run_id: RunId::new(&ch.key, recorded_at, &"ab".repeat(32)),
        kind,
        recorded_at,
        revision: Revision {
            snapshot: "snapshots/0001-a7d34947a6b4.txt".into(),
            fingerprint: Fingerprint::prose_v1(hex.to_string()),
            scope: Scope::Excerpt,
        },
        previous_run_id: None,
        note: None,
        report: None,
        experiment: None,
        notebook: None,
        environment: crate::env::collect(),
        git: crate::provenance::unavailable("test".into()),
        nonce: "0".into(),
        retraction: None,
    }
}
