//! Printed tables: a header line of words over rows of numbers, columns
//! apart by spaces. A number in a row is named by its column's header (and
//! its row's label), not by the words beside it on the line.
//!
//! ```text
//! tokenizer       tokens   vocab  chars/token
//! syllable       163,459      10         2.40
//! ```
//!
//! Here 163,459 is `tokens` of the `syllable` row, and 10 its `vocab`.

use super::read::{self, COMMON, number_re, word_re};

/// One cell of a table row: where it is on the line, and its column's
/// header words (stems).
#[derive(Debug, Clone)]
pub(super) struct TableColumn {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) header: Vec<String>,
}

/// A row of a printed table.
#[derive(Debug, Clone)]
pub(super) struct TableRow {
    pub(super) columns: Vec<TableColumn>,
    /// The words of its first cell, when that is a word (`syllable`).
    pub(super) label: Vec<String>,
    /// The value of its first cell, when that is a number (`0.8` in a
    /// table by `rho`): the row a sentence naming that value speaks of.
    pub(super) key: Option<f64>,
}

impl TableRow {
    /// The column of the number that starts at `at`.
    pub(super) fn column(&self, at: usize) -> Option<&TableColumn> {
        self.columns.iter().find(|c| at >= c.start && at < c.end)
    }
}

/// The cells of a line, split at runs of spaces, with where each starts.
fn cells(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((s, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out
}

/// Whether a cell is a number (`163,459`, `2.40`, `-3.6`, `57.8%`).
fn is_number(cell: &str) -> bool {
    let c = cell.trim_end_matches(['%', 'x', '×', 's']);
    let c = c.strip_prefix(['-', '−', '+']).unwrap_or(c);
    number_re()
        .find(c)
        .is_some_and(|m| m.start() == 0 && m.end() == c.len())
}

/// A header cell's words: stems of its words of three letters or more that
/// are not common words (`mean_wait` is `mean`, `wait`).
fn words(cell: &str) -> Vec<String> {
    word_re()
        .find_iter(cell)
        .map(|w| w.as_str().to_lowercase())
        .filter(|w| w.len() >= 3 && !COMMON.contains(&w.as_str()))
        .map(|w| read::stem(&w))
        .collect()
}

/// Whether a line only separates a header from its rows (`-----`, `|--|`).
fn separator(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty()
        && t.chars()
            .all(|c| matches!(c, '-' | '=' | '+' | '|' | ':' | ' '))
}

/// The table row each line of `output` is, if any.
pub(super) fn rows(output: &str) -> Vec<Option<TableRow>> {
    let lines: Vec<&str> = output.lines().collect();
    let mut out: Vec<Option<TableRow>> = vec![None; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        let header = cells(lines[i]);
        let is_header = header.len() >= 2
            && header
                .iter()
                .all(|(_, c)| c.chars().any(char::is_alphabetic) && !is_number(c));
        if !is_header {
            i += 1;
            continue;
        }
        let mut k = i + 1;
        while k < lines.len() && separator(lines[k]) {
            k += 1;
        }
        let first = k;
        while k < lines.len() {
            let row = cells(lines[k]);
            // A row's cells after the first are mostly numbers: `done in
            // 0.3 s` under a header of four words is no row.
            let numbers = row[1..].iter().filter(|(_, c)| is_number(c)).count();
            if row.len() != header.len() || numbers == 0 || 2 * numbers < row.len() - 1 {
                break;
            }
            let (_, head) = row[0];
            out[k] = Some(TableRow {
                columns: row
                    .iter()
                    .zip(&header)
                    .map(|((start, cell), (_, h))| TableColumn {
                        start: *start,
                        end: start + cell.len(),
                        header: words(h),
                    })
                    .collect(),
                label: if is_number(head) {
                    Vec::new()
                } else {
                    words(head)
                },
                key: is_number(head)
                    .then(|| head.replace(',', "").trim_end_matches('%').parse().ok())
                    .flatten(),
            });
            k += 1;
        }
        i = if k > first { k } else { i + 1 };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_over_rows_of_numbers_names_each_column() {
        let out = "tokenizer       tokens   vocab  chars/token\n\
                   whitespace      65,579   9,192         5.98\n\
                   syllable       163,459      10         2.40\n\
                   done in 0.3 s\n";
        let rows = rows(out);
        assert!(rows[0].is_none() && rows[3].is_none());
        let row = rows[2].as_ref().unwrap();
        assert_eq!(row.label, vec!["syllable"]);
        assert_eq!(row.key, None);
        let line = out.lines().nth(2).unwrap();
        let at = line.find("163").unwrap();
        assert_eq!(row.column(at).unwrap().header, vec!["token"]);
        let at = line.find("10 ").unwrap();
        assert_eq!(row.column(at).unwrap().header, vec!["vocab"]);
    }

    #[test]
    fn a_row_keyed_by_a_number_keeps_it_and_a_separator_is_skipped() {
        let out = "rho   mean_wait   p95_wait\n-----------------\n0.8        3.96      13.96\n";
        let rows = rows(out);
        let row = rows[2].as_ref().unwrap();
        assert_eq!(row.key, Some(0.8));
        assert_eq!(row.columns[1].header, vec!["mean", "wait"]);
    }

    #[test]
    fn prose_lines_are_no_table() {
        let out = "final loss: 0.031\nthe run took 12 steps\n";
        assert!(rows(out).iter().all(Option::is_none));
    }
}
