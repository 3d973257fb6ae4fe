//! Reads the measured tables a chapter publishes. A table is a header line
//! `=== producer=<kind> <cost> ms/sample batch=<n> consumer=<ms> ms/batch ===`,
//! its column names, then rows of numbers, either one row per line or the
//! whole table flattened onto one line (as HTML-to-text leaves it). Columns
//! are read by name. What looks like a table but does not parse is reported
//! with its place, never dropped; nothing here panics on any input.

use serde::Serialize;

use crate::bench::table_layout::HEADER_TOKENS;
use crate::bench::{Column, TableHeader};

/// Where something is in the text (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Location {
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// A number as printed, so rounding can be taken into account.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PrintedNumber {
    pub value: f64,
    /// Digits after the decimal point as printed.
    pub decimals: u32,
}

impl PrintedNumber {
    /// Half a unit in the last printed place.
    pub fn half_ulp(&self) -> f64 {
        0.5 * 10f64.powi(-(self.decimals as i32))
    }
}

/// One published table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    /// The experiment the table measured (its `=== producer=... ===` line).
    #[serde(serialize_with = "header_text")]
    pub header: TableHeader,
    #[serde(serialize_with = "column_names")]
    pub columns: Vec<Column>,
    /// Rows, each with one cell per column.
    pub rows: Vec<Vec<PrintedNumber>>,
    pub location: Location,
}

fn header_text<S: serde::Serializer>(h: &TableHeader, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(h)
}

fn column_names<S: serde::Serializer>(c: &[Column], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(c.iter().map(Column::name))
}

impl Table {
    /// Index of a column.
    pub fn column(&self, column: &Column) -> Option<usize> {
        self.columns.iter().position(|c| c == column)
    }

    /// The row whose `workers` cell is `workers`.
    pub fn row(&self, workers: usize) -> Option<&[PrintedNumber]> {
        let w = self.column(&Column::Workers)?;
        self.rows
            .iter()
            .find(|r| r[w].value == workers as f64)
            .map(|r| r.as_slice())
    }

    /// A cell by worker count and column.
    pub fn cell(&self, workers: usize, column: &Column) -> Option<PrintedNumber> {
        let c = self.column(column)?;
        self.row(workers).map(|r| r[c])
    }

    /// Worker counts, in row order.
    pub fn workers(&self) -> Vec<usize> {
        let Some(w) = self.column(&Column::Workers) else {
            return Vec::new();
        };
        self.rows.iter().map(|r| r[w].value as usize).collect()
    }
}

/// A fragment that looks like a table but does not parse.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Malformed {
    pub location: Location,
    pub problem: String,
    /// How many fragments this entry stands for: 1, or, for the entry
    /// past [`MAX_MALFORMED_DESCRIBED`], every fragment from it on.
    #[serde(skip)]
    pub fragments: usize,
}

/// Everything found in a text.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Parsed {
    pub tables: Vec<Table>,
    pub malformed: Vec<Malformed>,
}

/// A whitespace-separated token with its place.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    line: usize,
    column: usize,
    /// Whether this token is the last on its line.
    ends_line: bool,
}

/// Splits `text` into tokens in one pass: each token's column is counted
/// as the line is walked (counting from the line's start for every token
/// made a line of many fragments quadratic).
fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut line_tokens: Vec<Token<'_>> = Vec::new();
        // The token being read: its byte offset and 1-based column.
        let mut start: Option<(usize, usize)> = None;
        let ends = std::iter::once((line.len(), ' '));
        for (column, (j, ch)) in (1..).zip(line.char_indices().chain(ends)) {
            let sep = ch.is_whitespace() || ch == '|';
            match (sep, start) {
                (true, Some((s, column))) => {
                    line_tokens.push(Token {
                        text: &line[s..j],
                        line: i + 1,
                        column,
                        ends_line: false,
                    });
                    start = None;
                }
                (false, None) => start = Some((j, column)),
                _ => {}
            }
        }
        // Markdown separator rows (`---:`) carry no data.
        line_tokens.retain(|t| !t.text.chars().all(|c| c == '-' || c == ':'));
        if let Some(last) = line_tokens.last_mut() {
            last.ends_line = true;
        }
        out.extend(line_tokens);
    }
    out
}

fn number(text: &str) -> Option<PrintedNumber> {
    let t = text.strip_suffix(',').unwrap_or(text);
    if t.is_empty()
        || !t
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
    {
        return None;
    }
    let value: f64 = t.parse().ok()?;
    if !value.is_finite() {
        return None;
    }
    let decimals = t.split_once('.').map_or(0, |(_, d)| d.len() as u32);
    Some(PrintedNumber { value, decimals })
}

/// How many fragments that do not parse are described one by one; past it,
/// one last entry counts the rest, so a text of a hundred thousand
/// fragments makes neither a claims.yaml skeleton larger than the tool
/// reads back nor an error message of megabytes.
pub const MAX_MALFORMED_DESCRIBED: usize = 100;

/// The longest problem description kept for one fragment, in characters
/// (a header's word is quoted in it, and a word may be megabytes long).
const MAX_PROBLEM_CHARS: usize = 300;

/// Parses every table in `text`, in time linear in its length.
pub fn parse(text: &str) -> Parsed {
    let toks = tokens(text);
    let mut parsed = Parsed::default();
    // Fragments past the ones described: how many, and where the first is.
    let mut left_out: Option<(Location, usize)> = None;
    let mut i = 0;
    while i < toks.len() {
        // A header may start mid-token only in odd text; look for tokens
        // that begin it ("===" then "producer=...").
        let t = toks[i];
        let starts = t.text == "==="
            && toks
                .get(i + 1)
                .is_some_and(|n| n.text.starts_with("producer="));
        if !starts {
            i += 1;
            continue;
        }
        let location = Location {
            line: t.line,
            column: t.column,
        };
        match parse_table(&toks, i, location) {
            Ok((table, next)) => {
                parsed.tables.push(table);
                i = next;
            }
            Err((problem, next)) => {
                if parsed.malformed.len() < MAX_MALFORMED_DESCRIBED {
                    let problem = shorten(problem, MAX_PROBLEM_CHARS);
                    parsed.malformed.push(Malformed {
                        location,
                        problem,
                        fragments: 1,
                    });
                } else {
                    left_out.get_or_insert((location, 0)).1 += 1;
                }
                i = next.max(i + 1);
            }
        }
    }
    if let Some((location, n)) = left_out {
        parsed.malformed.push(Malformed {
            location,
            problem: format!(
                "it and {} more after it are not described (only the first \
                 {MAX_MALFORMED_DESCRIBED} fragments that do not parse are)",
                n - 1
            ),
            fragments: n,
        });
    }
    parsed
}

/// How many fragments an error about a text without tables describes.
const FRAGMENTS_IN_AN_ERROR: usize = 2;

/// What an error about a text with no tables adds: the first fragments
/// that looked like a table and why they did not parse, and how many more
/// there are (`claims check` and `chapter new` list up to
/// [`MAX_MALFORMED_DESCRIBED`]); nothing when none did.
pub fn why_no_tables(malformed: &[Malformed]) -> String {
    let mut s: String = malformed
        .iter()
        .take(FRAGMENTS_IN_AN_ERROR)
        .map(|m| {
            format!(
                "; a table-like fragment at {} did not parse: {}",
                m.location, m.problem
            )
        })
        .collect();
    let more: usize = malformed
        .iter()
        .skip(FRAGMENTS_IN_AN_ERROR)
        .map(|m| m.fragments)
        .sum();
    if more > 0 {
        s.push_str(&format!("; and {more} more such fragments"));
    }
    s
}

/// `text` cut to its first `max` characters, with `…` when it was longer.
fn shorten(text: String, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

type Step<T> = Result<(T, usize), (String, usize)>;

fn parse_table(toks: &[Token<'_>], start: usize, location: Location) -> Step<Table> {
    let words: Vec<&str> = toks[start..(start + HEADER_TOKENS).min(toks.len())]
        .iter()
        .map(|t| t.text)
        .collect();
    let header = TableHeader::parse(&words).map_err(|msg| (msg, start + 2))?;
    let close = toks[start + 7];
    let mut k = start + 8;
    let flat = toks.get(k).is_some_and(|t| t.line == close.line);
    let (columns, cells) = if flat {
        read_flat(toks, &mut k)
    } else {
        read_lines(toks, &mut k)?
    };
    if columns.first() != Some(&Column::Workers) {
        return Err((
            match columns.first() {
                Some(c) => format!(
                    "expected column names starting with 'workers', found '{}'",
                    c.name()
                ),
                None => "expected column names starting with 'workers', found none".to_string(),
            },
            k,
        ));
    }
    let n = columns.len();
    if cells.is_empty() {
        return Err(("the table has column names but no rows".into(), k));
    }
    if cells.len() % n != 0 {
        return Err((
            format!("{} numbers do not fill rows of {n} columns", cells.len()),
            k,
        ));
    }
    let rows: Vec<Vec<PrintedNumber>> = cells.chunks(n).map(|r| r.to_vec()).collect();
    check_values(&header, &columns, &rows).map_err(|problem| (problem, k))?;
    let table = Table {
        header,
        columns,
        rows,
        location,
    };
    Ok((table, k))
}

/// Holds a table to what the benchmark could have measured: its header's
/// cost, batch and consumer, and its worker counts, within the bounds the
/// same settings have on the command line (`Settings::check`); every worker
/// count a whole number; wait_frac a fraction; and no measured number
/// negative. The error names the row and column.
fn check_values(
    header: &TableHeader,
    columns: &[Column],
    rows: &[Vec<PrintedNumber>],
) -> Result<(), String> {
    let mut workers = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        for (column, cell) in columns.iter().zip(row) {
            let v = cell.value;
            let bad = match column {
                Column::Workers if v.fract() != 0.0 || v < 0.0 => {
                    Some("is not a whole number of workers")
                }
                Column::WaitFrac if !(0.0..=1.0).contains(&v) => {
                    Some("is not a fraction from 0 to 1")
                }
                Column::Other(_) => None,
                _ if v < 0.0 => Some("is negative"),
                _ => None,
            };
            if let Some(bad) = bad {
                return Err(format!(
                    "row {}, column {}: {v} {bad}",
                    i + 1,
                    column.name()
                ));
            }
        }
        if let Some(w) = columns.iter().position(|c| *c == Column::Workers) {
            // Whole and not negative (checked above), so exact up to 2^53.
            workers.push(row[w].value.min(u32::MAX as f64) as usize);
        }
    }
    let settings = crate::bench::Settings {
        cost_ms: header.cost_ms,
        batch_size: header.batch_size,
        consumer_ms: header.consumer_ms,
        workers,
        ..crate::bench::Settings::chapter_defaults()
    };
    settings.check().map_err(|e| {
        format!("the table's {e} (the bounds of the same setting on the command line)")
    })
}

/// Flattened layout: names up to the first number, then numbers until the
/// first token that is not one.
fn read_flat(toks: &[Token<'_>], k: &mut usize) -> (Vec<Column>, Vec<PrintedNumber>) {
    let mut columns = Vec::new();
    while let Some(t) = toks.get(*k) {
        if number(t.text).is_some() || t.text == "===" {
            break;
        }
        columns.push(Column::from_name(t.text));
        *k += 1;
    }
    let mut cells = Vec::new();
    while let Some(c) = toks.get(*k).and_then(|t| number(t.text)) {
        cells.push(c);
        *k += 1;
    }
    (columns, cells)
}

/// Line layout: the next line holds the names; each following line that is
/// all numbers is a row (and must have one value per column); the first line
/// with anything else ends the table.
fn read_lines(
    toks: &[Token<'_>],
    k: &mut usize,
) -> Result<(Vec<Column>, Vec<PrintedNumber>), (String, usize)> {
    let line_of = |i: usize| toks.get(i).map(|t| t.line);
    let mut columns = Vec::new();
    let names_line = line_of(*k);
    while names_line.is_some() && line_of(*k) == names_line {
        columns.push(Column::from_name(toks[*k].text));
        *k += 1;
    }
    let mut cells = Vec::new();
    while let Some(line) = line_of(*k) {
        let end = (*k..toks.len())
            .find(|&i| toks[i].line != line)
            .unwrap_or(toks.len());
        let row: Option<Vec<PrintedNumber>> =
            toks[*k..end].iter().map(|t| number(t.text)).collect();
        let Some(row) = row else { break };
        if row.len() != columns.len() {
            return Err((
                format!(
                    "the row on line {line} has {} values for {} columns",
                    row.len(),
                    columns.len()
                ),
                end,
            ));
        }
        cells.extend(row);
        *k = end;
    }
    Ok((columns, cells))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::ProducerKind;
    use proptest::prelude::*;

    const FLAT: &str = "Both are given the same treatment.\n=== producer=sleep 2.0 ms/sample batch=32 consumer=8 ms/batch === workers ex/s wait_mean wait_p50 wait_p95 wait_max work wait_frac 0 414 69.8 69.8 70.4 70.7 7.5 0.90 1 452 62.6 62.3 65.9 66.4 8.1 0.89 === producer=spin 2.0 ms/sample batch=32 consumer=8 ms/batch === workers ex/s wait_mean wait_p50 wait_p95 wait_max work wait_frac 0 454 62.8 62.1 66.5 89.1 7.8 0.89 8 449 28.1 24.0 88.2 110.2 43.2 0.39 The first pipeline got 7.4 times faster.\n";

    #[test]
    fn reads_flattened_tables_by_column_name() {
        let p = parse(FLAT);
        assert!(p.malformed.is_empty(), "{:?}", p.malformed);
        assert_eq!(p.tables.len(), 2);
        let spin = &p.tables[1];
        assert_eq!(spin.header.producer, ProducerKind::Spin);
        assert_eq!(spin.header.batch_size, 32);
        assert_eq!(spin.cell(8, &Column::Work).unwrap().value, 43.2);
        assert_eq!(spin.cell(0, &Column::ExPerS).unwrap().value, 454.0);
        assert_eq!(spin.workers(), vec![0, 8]);
        assert_eq!(p.tables[0].location, Location { line: 2, column: 1 });
    }

    #[test]
    fn reads_line_per_row_tables_and_stops_at_prose() {
        let text = "=== producer=sleep 2.0 ms/sample batch=32 consumer=8 ms/batch ===\n\
                    workers ex/s work wait_mean\n0 414 7.5 69.8\n8 3049 9.6 0.9\n\n3 reasons follow.\n";
        let p = parse(text);
        assert!(p.malformed.is_empty(), "{:?}", p.malformed);
        let t = &p.tables[0];
        assert_eq!(t.rows.len(), 2);
        // By name, not position: work is the third column here.
        assert_eq!(t.cell(8, &Column::Work).unwrap().value, 9.6);
        assert_eq!(t.cell(8, &Column::WaitMean).unwrap().decimals, 1);
    }

    #[test]
    fn malformed_fragments_are_reported_with_their_place() {
        let cases = [
            (
                "x\n=== producer=sleep fast ms/sample batch=32 consumer=8 ms/batch ===\n",
                "per-sample cost",
            ),
            (
                "=== producer=sleep 2.0 ms/sample batch=many consumer=8 ms/batch ===",
                "batch=<n>",
            ),
            (
                "=== producer=sleep 2.0 ms/sample batch=32 consumer=8 ms/batch === workers a b 1 2 3 4",
                "do not fill rows",
            ),
            (
                "=== producer=sleep 2.0 ms/sample batch=32 consumer=8 ms/batch ===\nworkers a b\n1 2 3\n4 5\n",
                "has 2 values",
            ),
            (
                "=== producer=sleep 2.0 ms/sample batch=32 consumer=8 ms/batch === ex/s 1 2",
                "starting with 'workers', found 'ex/s'",
            ),
            (
                "=== producer=sleep 2.0 ms/sample batch=32 consumer=8 ms/batch === workers ex/s then prose",
                "no rows",
            ),
        ];
        for (text, msg) in cases {
            let p = parse(text);
            assert!(p.tables.is_empty(), "{text}");
            assert_eq!(p.malformed.len(), 1, "{text}");
            assert!(
                p.malformed[0].problem.contains(msg),
                "{text}: {}",
                p.malformed[0].problem
            );
        }
        assert_eq!(
            parse("x\n=== producer=sleep oops").malformed[0].location,
            Location { line: 2, column: 1 }
        );
    }

    #[test]
    fn columns_count_characters_along_a_long_line() {
        // Multi-byte characters before each fragment: columns are
        // characters, not bytes, however many fragments share the line.
        let fragment = "é === producer=nope ";
        let text = fragment.repeat(3);
        let p = parse(&text);
        let columns: Vec<usize> = p.malformed.iter().map(|m| m.location.column).collect();
        let step = fragment.chars().count();
        assert_eq!(columns, vec![3, 3 + step, 3 + 2 * step]);
    }

    #[test]
    fn many_fragments_are_described_up_to_a_limit_and_then_counted() {
        let fragment = format!("=== producer={} ", "x".repeat(1000));
        let p = parse(&fragment.repeat(MAX_MALFORMED_DESCRIBED + 150));
        assert_eq!(p.malformed.len(), MAX_MALFORMED_DESCRIBED + 1);
        let last = p.malformed.last().unwrap();
        assert!(last.problem.contains("it and 149 more"), "{}", last.problem);
        assert_eq!(last.location.column, MAX_MALFORMED_DESCRIBED * 1014 + 1);
        // A megabyte-long word is not quoted whole.
        assert!(
            p.malformed
                .iter()
                .all(|m| m.problem.chars().count() <= MAX_PROBLEM_CHARS + 1)
        );
    }

    fn render(tables: &[(ProducerKind, Vec<Vec<f64>>)], flat: bool) -> String {
        let mut s = String::from("Intro text.\n");
        for (producer, rows) in tables {
            let header = TableHeader {
                producer: *producer,
                cost_ms: 2.0,
                batch_size: 32,
                consumer_ms: 8.0,
            };
            s.push_str(&header.to_string());
            s.push(if flat { ' ' } else { '\n' });
            s.push_str("workers ex/s wait_mean work");
            for r in rows {
                s.push(if flat { ' ' } else { '\n' });
                s.push_str(
                    &r.iter()
                        .map(|v| format!("{v:.1}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
            s.push(if flat { ' ' } else { '\n' });
        }
        s.push_str("Closing prose.\n");
        s
    }

    #[test]
    fn a_table_with_a_worker_count_twice_is_malformed_not_read() {
        let rows = vec![vec![0.0, 454.0, 62.8, 7.8], vec![0.0, 449.0, 28.1, 43.2]];
        let p = parse(&render(&[(ProducerKind::Spin, rows)], false));
        assert!(p.tables.is_empty());
        let problem = &p.malformed[0].problem;
        assert!(problem.contains("workers lists 0 twice"), "{problem}");
    }

    proptest! {
        #[test]
        fn generated_tables_parse_back_to_the_same_numbers(
            tables in proptest::collection::vec(
                (
                    proptest::sample::select(vec![ProducerKind::Sleep, ProducerKind::Spin, ProducerKind::SpinWall]),
                    // Worker counts are whole, within the knob's bounds, and
                    // each names one row.
                    proptest::collection::btree_map(
                        0usize..=256,
                        proptest::collection::vec(0.0f64..5000.0, 3),
                        1..6,
                    )
                    .prop_map(|rows| {
                        rows.into_iter()
                            .map(|(w, rest)| std::iter::once(w as f64).chain(rest).collect::<Vec<f64>>())
                            .collect::<Vec<_>>()
                    }),
                ),
                1..4),
            flat in any::<bool>(),
        ) {
            let text = render(&tables, flat);
            let p = parse(&text);
            prop_assert!(p.malformed.is_empty(), "{:?}", p.malformed);
            prop_assert_eq!(p.tables.len(), tables.len());
            for (t, (producer, rows)) in p.tables.iter().zip(&tables) {
                prop_assert_eq!(t.header.producer, *producer);
                for (got, want) in t.rows.iter().zip(rows) {
                    for (g, w) in got.iter().zip(want) {
                        prop_assert!((g.value - (w * 10.0).round() / 10.0).abs() < 1e-9);
                    }
                }
            }
        }

        #[test]
        fn never_panics(text in "(=== producer=|ms/sample|batch=|consumer=|ms/batch|===|workers|[0-9.]{1,4}|[ \\n|a-z]{1,3}){0,60}") {
            let _ = parse(&text);
        }

        #[test]
        fn never_panics_on_any_text(text in "\\PC{0,200}") {
            let _ = parse(&text);
        }
    }
}

#[cfg(test)]
mod chapter_excerpt {
    use super::*;
    use crate::bench::ProducerKind;

    const EXCERPT: &str = include_str!(
        "../../tests/fixtures/book-snapshots/pytorch-from-first-principles/06/snapshots/0001-a7d34947a6b4.txt"
    );

    /// The excerpt's tables re-flowed one row per line, as a chapter in plain
    /// text would print them.
    fn reflow(text: &str) -> String {
        const NAMES: &str = "workers ex/s wait_mean wait_p50 wait_p95 wait_max work wait_frac ";
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("=== producer=") {
            out.push_str(rest[..at].trim_end_matches(' '));
            out.push('\n');
            let after_header = at + rest[at..].find("ms/batch ===").unwrap() + "ms/batch ===".len();
            out.push_str(&rest[at..after_header]);
            out.push('\n');
            let body = rest[after_header..]
                .trim_start()
                .strip_prefix(NAMES)
                .unwrap();
            out.push_str(NAMES.trim_end());
            let mut consumed = 0;
            for (count, tok) in body.split(' ').enumerate() {
                if tok.parse::<f64>().is_err() {
                    break;
                }
                out.push(if count % 8 == 0 { '\n' } else { ' ' });
                out.push_str(tok);
                consumed += tok.len() + 1;
            }
            out.push('\n');
            rest = &body[consumed..];
        }
        out.push_str(rest);
        out
    }

    fn check(parsed: &Parsed) {
        assert!(parsed.malformed.is_empty(), "{:?}", parsed.malformed);
        assert_eq!(parsed.tables.len(), 2);
        let (sleep, spin) = (&parsed.tables[0], &parsed.tables[1]);
        assert_eq!(
            (sleep.header.producer, spin.header.producer),
            (ProducerKind::Sleep, ProducerKind::Spin)
        );
        assert_eq!(sleep.workers(), vec![0, 1, 2, 4, 8]);
        assert_eq!(sleep.cell(8, &Column::ExPerS).unwrap().value, 3049.0);
        assert_eq!(sleep.cell(0, &Column::ExPerS).unwrap().value, 414.0);
        assert_eq!(spin.cell(0, &Column::WaitMean).unwrap().value, 62.8);
        assert_eq!(spin.cell(8, &Column::WaitFrac).unwrap().value, 0.39);
        assert_eq!(spin.cell(8, &Column::Work).unwrap().value, 43.2);
        assert_eq!(
            (
                spin.header.cost_ms,
                spin.header.batch_size,
                spin.header.consumer_ms
            ),
            (2.0, 32, 8.0)
        );
    }

    #[test]
    fn the_real_excerpt_parses_flattened() {
        check(&parse(EXCERPT));
    }

    #[test]
    fn the_real_excerpt_parses_reflowed_into_lines() {
        let text = reflow(EXCERPT);
        assert!(
            text.contains("\n0 414 69.8 69.8 70.4 70.7 7.5 0.90\n"),
            "{text}"
        );
        check(&parse(&text));
    }
}
