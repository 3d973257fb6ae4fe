//! The chapter's table layout, spelled once: its columns and the header line
//! of a producer block (`=== producer=sleep 2.0 ms/sample batch=32
//! consumer=8 ms/batch ===`). The engine's output, the published-table
//! parser, claims, diff and plots all go through these types, so a column
//! name or the header's shape cannot drift between them.

use std::fmt;

use super::config::ProducerKind;
use super::metric_name::ident;
use super::run_file::Row;
use super::settings::Settings;

/// A column of the chapter's tables.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Column {
    Workers,
    /// Examples per second.
    ExPerS,
    WaitMean,
    WaitP50,
    WaitP95,
    WaitMax,
    Work,
    WaitFrac,
    /// A column the engine does not measure, kept by the name the chapter
    /// prints, so a chapter with extra columns still parses.
    Other(String),
}

impl Column {
    /// The chapter's columns in its order, which is also the order the engine
    /// prints them.
    pub const CHAPTER: [Column; 8] = [
        Column::Workers,
        Column::ExPerS,
        Column::WaitMean,
        Column::WaitP50,
        Column::WaitP95,
        Column::WaitMax,
        Column::Work,
        Column::WaitFrac,
    ];

    /// The column a printed name stands for.
    pub fn from_name(name: &str) -> Column {
        Column::CHAPTER
            .into_iter()
            .find(|c| c.name() == name)
            .unwrap_or_else(|| Column::Other(name.to_string()))
    }

    /// The name as the chapter prints it.
    pub fn name(&self) -> &str {
        match self {
            Column::Other(name) => name,
            known => known.chapter_name(),
        }
    }

    /// The name of one of the chapter's own columns ("" for another).
    pub fn chapter_name(&self) -> &'static str {
        match self {
            Column::Workers => "workers",
            Column::ExPerS => "ex/s",
            Column::WaitMean => "wait_mean",
            Column::WaitP50 => "wait_p50",
            Column::WaitP95 => "wait_p95",
            Column::WaitMax => "wait_max",
            Column::Work => "work",
            Column::WaitFrac => "wait_frac",
            Column::Other(_) => "",
        }
    }

    /// The name as claim metrics spell it (`ex/s` is `ex_s`).
    pub fn ident(&self) -> String {
        ident(self.name())
    }

    /// The measured value of this column in a row; None for a column the
    /// engine does not measure.
    pub fn measured(&self, row: &Row) -> Option<f64> {
        Some(match self {
            Column::Workers => row.workers as f64,
            Column::ExPerS => row.ex_per_s,
            Column::WaitMean => row.wait_mean_ms,
            Column::WaitP50 => row.wait_p50_ms,
            Column::WaitP95 => row.wait_p95_ms,
            Column::WaitMax => row.wait_max_ms,
            Column::Work => row.work_ms,
            Column::WaitFrac => row.wait_frac,
            Column::Other(_) => return None,
        })
    }

    /// A measured value printed with the chapter's precision for the column.
    pub fn format(&self, value: f64) -> String {
        match self {
            Column::Workers | Column::ExPerS => format!("{value:.0}"),
            Column::WaitFrac => format!("{value:.2}"),
            _ => format!("{value:.1}"),
        }
    }
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The header line of one producer block: the experiment a table measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TableHeader {
    pub producer: ProducerKind,
    /// Per-sample producer cost.
    pub cost_ms: f64,
    pub batch_size: usize,
    /// Consumer's work per batch.
    pub consumer_ms: f64,
}

/// The header's tokens, split on whitespace: `===`, `producer=<kind>`,
/// `<cost>`, `ms/sample`, `batch=<n>`, `consumer=<ms>`, `ms/batch`, `===`.
pub const HEADER_TOKENS: usize = 8;

impl TableHeader {
    /// The header of `producer`'s block in a run with these settings.
    pub fn of_run(producer: ProducerKind, s: &Settings) -> Self {
        TableHeader {
            producer,
            cost_ms: s.cost_ms,
            batch_size: s.batch_size,
            consumer_ms: s.consumer_ms,
        }
    }

    /// Whether a run with these settings measured the same experiment as
    /// this table (producer aside).
    pub fn same_experiment(&self, s: &Settings) -> bool {
        let same = |a: f64, b: f64| (a - b).abs() < 1e-9;
        same(self.cost_ms, s.cost_ms)
            && self.batch_size == s.batch_size
            && same(self.consumer_ms, s.consumer_ms)
    }

    /// Whether two headers describe the same experiment (producer aside).
    pub fn same_settings_as(&self, other: &TableHeader) -> bool {
        self.cost_ms == other.cost_ms
            && self.batch_size == other.batch_size
            && self.consumer_ms == other.consumer_ms
    }

    /// Parses a header from its whitespace-separated tokens (the first is the
    /// opening `===`). The error says which token is wrong and what it found.
    pub fn parse(tokens: &[&str]) -> Result<TableHeader, String> {
        let get = |k: usize| tokens.get(k).copied().unwrap_or("");
        let producer = get(1).strip_prefix("producer=").unwrap_or_default();
        if producer.is_empty() {
            return Err("the header names no producer".into());
        }
        let producer: ProducerKind = producer.parse().map_err(|_| {
            format!(
                "producer '{producer}' is not one the benchmark has ({})",
                ProducerKind::NAMES.join(", ")
            )
        })?;
        let Some(cost_ms) = number(get(2)) else {
            return Err(format!(
                "expected the per-sample cost after producer={producer}, found {:?}",
                get(2)
            ));
        };
        if get(3) != "ms/sample" {
            return Err(format!("expected 'ms/sample', found {:?}", get(3)));
        }
        let Some(batch_size) = get(4)
            .strip_prefix("batch=")
            .and_then(|b| b.parse::<usize>().ok())
        else {
            return Err(format!("expected batch=<n>, found {:?}", get(4)));
        };
        let Some(consumer_ms) = get(5).strip_prefix("consumer=").and_then(number) else {
            return Err(format!("expected consumer=<ms>, found {:?}", get(5)));
        };
        if get(6) != "ms/batch" || get(7) != "===" {
            return Err("expected 'ms/batch ===' to close the header".into());
        }
        Ok(TableHeader {
            producer,
            cost_ms,
            batch_size,
            consumer_ms,
        })
    }
}

/// A non-negative decimal as the header prints it.
fn number(text: &str) -> Option<f64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

impl fmt::Display for TableHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The chapter prints a whole cost with one decimal (`2.0`).
        let cost = if self.cost_ms.fract() == 0.0 {
            format!("{:.1}", self.cost_ms)
        } else {
            format!("{}", self.cost_ms)
        };
        write!(
            f,
            "=== producer={} {cost} ms/sample batch={} consumer={} ms/batch ===",
            self.producer, self.batch_size, self.consumer_ms
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_prints_and_parses_back() {
        let h = TableHeader {
            producer: ProducerKind::Spin,
            cost_ms: 2.0,
            batch_size: 32,
            consumer_ms: 8.0,
        };
        let text = h.to_string();
        assert_eq!(
            text,
            "=== producer=spin 2.0 ms/sample batch=32 consumer=8 ms/batch ==="
        );
        let tokens: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(tokens.len(), HEADER_TOKENS);
        assert_eq!(TableHeader::parse(&tokens).unwrap(), h);
        let odd = TableHeader {
            cost_ms: 0.25,
            consumer_ms: 0.5,
            producer: ProducerKind::SpinWall,
            ..h
        };
        let text = odd.to_string();
        let tokens: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(TableHeader::parse(&tokens).unwrap(), odd);
    }

    #[test]
    fn a_bad_header_says_which_part_is_wrong() {
        for (text, msg) in [
            ("=== producer= 2.0", "names no producer"),
            (
                "=== producer=yield 2.0 ms/sample batch=32 consumer=8 ms/batch ===",
                "producer 'yield' is not one the benchmark has (sleep, spin, spin-wall)",
            ),
            ("=== producer=sleep fast ms/sample", "per-sample cost"),
            ("=== producer=sleep 2.0 ms/each", "expected 'ms/sample'"),
            (
                "=== producer=sleep 2.0 ms/sample batch=many",
                "expected batch=<n>",
            ),
            (
                "=== producer=sleep 2.0 ms/sample batch=32 consumer=4ms per",
                "expected consumer=<ms>",
            ),
            (
                "=== producer=sleep 2.0 ms/sample batch=32 consumer=4 ms/batch",
                "to close the header",
            ),
        ] {
            let tokens: Vec<&str> = text.split_whitespace().collect();
            let err = TableHeader::parse(&tokens).unwrap_err();
            assert!(err.contains(msg), "{text}: {err}");
        }
    }

    #[test]
    fn columns_round_trip_through_their_printed_names() {
        for c in Column::CHAPTER {
            assert_eq!(Column::from_name(c.name()), c);
        }
        assert_eq!(Column::ExPerS.ident(), "ex_s");
        assert_eq!(
            Column::from_name("gpu_util"),
            Column::Other("gpu_util".into())
        );
        assert_eq!(Column::WaitFrac.format(0.394), "0.39");
        assert_eq!(Column::ExPerS.format(3049.4), "3049");
        assert_eq!(Column::Work.format(43.25), "43.2");
    }
}
