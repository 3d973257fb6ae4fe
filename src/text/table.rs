//! Plain-text tables: rows laid out in columns two spaces apart, without
//! borders or trailing spaces, each column left- or right-aligned
//! (`aligned`, `Align`), through comfy-table.

use comfy_table::{CellAlignment, Table, presets};

/// How a column of an [`aligned`] table is aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// Rows laid out as columns two spaces apart, without borders, one line per
/// row (header first), each line ending in a newline and no trailing spaces.
pub fn aligned(header: &[&str], rows: &[Vec<String>], align: &[Align]) -> String {
    let mut table = Table::new();
    table.load_preset(presets::NOTHING);
    table.set_header(header.to_vec());
    for row in rows {
        table.add_row(row.clone());
    }
    let last = header.len().saturating_sub(1);
    for (i, column) in table.column_iter_mut().enumerate() {
        column.set_padding((0, if i == last { 0 } else { 2 }));
        if align.get(i) == Some(&Align::Right) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = String::new();
    for line in table.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_tables_put_two_spaces_between_columns() {
        let rows = vec![
            vec!["0".to_string(), "414".to_string(), "a".to_string()],
            vec!["8".to_string(), "3049".to_string(), "bb".to_string()],
        ];
        let text = aligned(
            &["workers", "ex/s", "x"],
            &rows,
            &[Align::Right, Align::Right, Align::Left],
        );
        assert_eq!(
            text,
            "workers  ex/s  x\n      0   414  a\n      8  3049  bb\n"
        );
    }
}
