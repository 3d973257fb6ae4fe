//! A source-ledger row read by its table's column names, with the arXiv id
//! and DOI found anywhere in it, and whether the ledger says the source was
//! reviewed and not used as evidence.

use serde::Serialize;

use super::metadata::{self, Metadata};
use super::plain::plain;

/// A source-ledger row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerRow {
    pub title: String,
    pub authors: Vec<String>,
    /// The ledger ended its authors with "et al.": there are more.
    pub authors_partial: bool,
    pub year: Option<i64>,
    pub venue: Option<String>,
    /// How much of it was read (full text, abstract only, not accessible).
    pub status: Option<String>,
    pub url: Option<String>,
    /// `2106.09685v2`, as written.
    pub arxiv: Option<String>,
    /// `10.1145/3458817.3476209`, as written.
    pub doi: Option<String>,
    /// The claim it bears on.
    pub bears_on: Option<String>,
    /// Its limitations, or the row's notes.
    pub limitations: Option<String>,
}

/// What in a "bears on" or status cell says the source was reviewed and
/// not used: the cell starts with one of these, or holds one of the last.
const NOT_USED_START: [&str; 5] = ["none", "no claim", "not used", "unused", "n/a"];
const NOT_USED_ANYWHERE: [&str; 4] = ["not used", "rejected", "excluded", "discarded"];

impl LedgerRow {
    /// Whether the ledger says this source was reviewed and not used as
    /// evidence: its "bears on" cell says none or not used, or its status
    /// says not used, rejected, excluded or discarded.
    pub fn not_used(&self) -> bool {
        let says = |cell: &Option<String>, starts: &[&str]| {
            cell.as_deref().is_some_and(|c| {
                let c = c.to_lowercase();
                starts.iter().any(|s| c.starts_with(s))
                    || NOT_USED_ANYWHERE.iter().any(|s| c.contains(s))
            })
        };
        says(&self.bears_on, &NOT_USED_START) || says(&self.status, &[])
    }

    /// Why it was not used, as the ledger gives it.
    pub fn why_not_used(&self) -> String {
        self.limitations
            .clone()
            .or_else(|| self.bears_on.clone())
            .unwrap_or_else(|| "Reviewed; not used as evidence.".to_string())
    }
}

/// The first URL in a cell: a Markdown link's target or a bare http(s) URL.
pub fn url_in(cell: &str) -> Option<String> {
    if let Some(i) = cell.find("](") {
        let tail = &cell[i + 2..];
        if let Some(end) = tail.find(')') {
            return Some(tail[..end].trim().to_string()).filter(|u| !u.is_empty());
        }
    }
    cell.split_whitespace()
        .find(|w| w.starts_with("http://") || w.starts_with("https://") || w.starts_with("<http"))
        .map(|w| {
            w.trim_start_matches('<')
                .trim_end_matches(['.', ',', ';', '>', ')'])
                .to_string()
        })
}

/// Whether `id` is an arXiv identifier: `2106.09685`, `2106.09685v2`, or
/// the old form `cs.LG/0101001`, `hep-th/9901001v1`.
fn is_arxiv_id(id: &str) -> bool {
    let base = match id.rfind('v') {
        Some(i)
            if i + 1 < id.len()
                && id[i + 1..].chars().all(|c| c.is_ascii_digit())
                && id[..i].ends_with(|c: char| c.is_ascii_digit()) =>
        {
            &id[..i]
        }
        _ => id,
    };
    if let Some((yymm, number)) = base.split_once('.') {
        if yymm.len() == 4 && yymm.chars().all(|c| c.is_ascii_digit()) {
            return (4..=5).contains(&number.len()) && number.chars().all(|c| c.is_ascii_digit());
        }
    }
    match base.split_once('/') {
        Some((archive, number)) => {
            !archive.is_empty()
                && archive
                    .chars()
                    .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '.')
                && number.len() == 7
                && number.chars().all(|c| c.is_ascii_digit())
        }
        None => false,
    }
}

/// The arXiv id in `text`: after `arxiv.org/abs/`, `arxiv.org/pdf/` or
/// `arXiv:` (any case).
pub fn arxiv_in(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    for marker in ["arxiv.org/abs/", "arxiv.org/pdf/", "arxiv:"] {
        for (at, _) in lower.match_indices(marker) {
            let rest = &text[at + marker.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '-')))
                .unwrap_or(rest.len());
            let id = rest[..end]
                .trim_end_matches(".pdf")
                .trim_end_matches(['.', '/']);
            if is_arxiv_id(id) {
                return Some(id.to_string());
            }
        }
    }
    None
}

/// The DOI in `text`: `10.<4 to 9 digits>/<suffix>`, alone or after
/// `doi.org/` or `doi:`, up to white space or a closing mark.
pub fn doi_in(text: &str) -> Option<String> {
    for (at, _) in text.match_indices("10.") {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.') {
            continue;
        }
        let rest = &text[at..];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | ']' | '>' | '|' | '"' | '<'))
            .unwrap_or(rest.len());
        let doi = rest[..end].trim_end_matches(['.', ',', ';']);
        let Some((prefix, suffix)) = doi.split_once('/') else {
            continue;
        };
        let registrant = &prefix[3..];
        if (4..=9).contains(&registrant.len())
            && registrant.chars().all(|c| c.is_ascii_digit())
            && !suffix.is_empty()
        {
            return Some(doi.to_string());
        }
    }
    None
}

/// Whether a header names the one cell that holds a source's authors,
/// year and venue together ("checked metadata", as the prompt asks).
fn is_metadata(header: &str) -> bool {
    let h = header.to_lowercase();
    ["metadata", "bibliographic", "citation"]
        .iter()
        .any(|n| h.contains(n))
}

/// The year a cell gives: its first four digits.
fn year_cell(cell: &str) -> Result<i64, &'static str> {
    cell.chars()
        .filter(char::is_ascii_digit)
        .collect::<String>()
        .get(..4)
        .and_then(|d| d.parse().ok())
        .ok_or("its year is not a year")
}

/// Where a ledger's columns are, found once from its header row: each
/// field's column by the names in order of preference (the first name some
/// header holds wins), and the one "checked metadata" column, which is read
/// as a whole and never as one of the others ("checked metadata" is no
/// reading status).
#[derive(Debug, Clone, PartialEq)]
pub struct Columns {
    header: Vec<String>,
    title: Option<usize>,
    url: Option<usize>,
    year: Option<usize>,
    date: Option<usize>,
    author: Option<usize>,
    venue: Option<usize>,
    status: Option<usize>,
    bears: Option<usize>,
    limit: Option<usize>,
    metadata: Option<usize>,
}

impl Columns {
    pub fn new(header: &[String]) -> Self {
        let lower: Vec<String> = header.iter().map(|h| h.to_lowercase()).collect();
        let col = |names: &[&str]| {
            names.iter().find_map(|n| {
                lower
                    .iter()
                    .zip(header)
                    .position(|(l, h)| !is_metadata(h) && l.contains(n))
            })
        };
        Columns {
            header: header.to_vec(),
            title: col(&["title", "source", "reference", "work"]),
            url: col(&["url", "link"]),
            year: col(&["year"]),
            date: col(&["date"]),
            author: col(&["author"]),
            venue: col(&["venue", "publisher", "journal"]),
            status: col(&["status", "reading", "read", "verified", "checked"]),
            bears: col(&["bears", "claim", "used for", "relevance"]),
            limit: col(&["limit", "note", "caveat"]),
            metadata: header.iter().position(|h| is_metadata(h)),
        }
    }

    /// Whether these are the columns of `header`.
    pub fn of(&self, header: &[String]) -> bool {
        self.header == header
    }
}

/// A ledger row from its cells, by the header's column names. Authors,
/// year and venue come from columns of their own, else from a metadata
/// cell ([`metadata`]); a "date" column is the year only when neither
/// gives one.
pub fn ledger_row(header: &[String], row: &[String]) -> Result<LedgerRow, &'static str> {
    row_in(&Columns::new(header), row)
}

/// A ledger row from its cells, with the columns already found.
pub fn row_in(cols: &Columns, row: &[String]) -> Result<LedgerRow, &'static str> {
    let cell = |i: usize| {
        row.get(i)
            .map(|c| c.trim())
            .filter(|c| !c.is_empty() && *c != "-")
    };
    let col = |at: Option<usize>| at.and_then(cell);
    let meta: Metadata = col(cols.metadata)
        .map(metadata::metadata)
        .unwrap_or_default();
    let title_cell = col(cols.title).or(row.first().map(|c| c.trim()));
    let title = title_cell
        .map(plain)
        .filter(|t| !t.is_empty())
        .ok_or("it has no title")?;
    let url = col(cols.url)
        .and_then(url_in)
        .or_else(|| title_cell.and_then(url_in))
        .map(|u| crate::text::redact::redact_url(&u));
    let year = match (col(cols.year), meta.year, col(cols.date)) {
        (Some(y), _, _) => Some(year_cell(y)?),
        (None, Some(y), _) => Some(y),
        (None, None, Some(y)) => Some(year_cell(y)?),
        (None, None, None) => None,
    };
    let (authors, authors_partial) = match col(cols.author) {
        Some(a) => metadata::authors(a),
        None => (meta.authors, meta.partial),
    };
    let whole = row.join(" ");
    Ok(LedgerRow {
        title,
        authors,
        authors_partial,
        year,
        venue: col(cols.venue).map(plain).or(meta.venue),
        status: col(cols.status).map(plain),
        arxiv: arxiv_in(&whole),
        doi: doi_in(&whole),
        url,
        bears_on: col(cols.bears).map(plain),
        limitations: col(cols.limit).map(plain),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arxiv_ids_and_dois_are_found_where_they_are_written() {
        assert_eq!(
            arxiv_in("https://arxiv.org/abs/2106.09685v2").as_deref(),
            Some("2106.09685v2")
        );
        assert_eq!(
            arxiv_in("[pdf](https://arxiv.org/pdf/1706.03762.pdf)").as_deref(),
            Some("1706.03762")
        );
        assert_eq!(
            arxiv_in("arXiv:hep-th/9901001").as_deref(),
            Some("hep-th/9901001")
        );
        assert_eq!(arxiv_in("arxiv: soon"), None);
        assert_eq!(arxiv_in("https://arxiv.org/abs/12.3"), None);
        assert_eq!(
            doi_in("https://doi.org/10.1145/3458817.3476209.").as_deref(),
            Some("10.1145/3458817.3476209")
        );
        assert_eq!(doi_in("doi:10.5555/abc)").as_deref(), Some("10.5555/abc"));
        assert_eq!(doi_in("version 110.1234/x"), None);
        assert_eq!(doi_in("10.12/x"), None);
    }

    fn row(header: &str, cells: &str) -> LedgerRow {
        let split = |s: &str| {
            s.split('|')
                .map(|c| c.trim().to_string())
                .collect::<Vec<_>>()
        };
        ledger_row(&split(header), &split(cells)).unwrap()
    }

    #[test]
    fn columns_are_read_by_name_and_not_used_is_what_the_ledger_says() {
        let header = "source | authors | url | reading status | claim it bears on | limitations | verified / accessed";
        let r = row(
            header,
            "**Attention** | A; B | https://arxiv.org/abs/1706.03762 | abstract only | none: off topic | a transformer paper | 2026-11-30",
        );
        assert_eq!(r.title, "Attention");
        assert_eq!(
            r.status.as_deref(),
            Some("abstract only"),
            "status before verified"
        );
        assert_eq!(r.arxiv.as_deref(), Some("1706.03762"));
        assert_eq!(r.bears_on.as_deref(), Some("none: off topic"));
        assert!(r.not_used());
        assert_eq!(r.why_not_used(), "a transformer paper");
        let used = row(
            header,
            "Docs | | https://x.org | full text | spin-454-vs-449 | | 2026-11-30",
        );
        assert!(!used.not_used());
        let rejected = row(
            header,
            "Blog | | | rejected: no data | spin-454-vs-449 | | ",
        );
        assert!(rejected.not_used());
        assert_eq!(rejected.why_not_used(), "spin-454-vs-449");
    }

    #[test]
    fn authors_with_commas_in_their_names_are_split_at_semicolons() {
        let r = row("source | authors", "A paper | Doe, J.; Roe, R.");
        assert_eq!(r.authors, ["Doe, J.", "Roe, R."]);
        let r = row("source | authors", "B | Ann Lee, Bo Ng");
        assert_eq!(r.authors, ["Ann Lee", "Bo Ng"]);
        let r = row("source | authors", "C | Ann Lee, Bo Ng, et al.");
        assert_eq!((r.authors.len(), r.authors_partial), (2, true));
    }

    #[test]
    fn a_checked_metadata_cell_gives_authors_year_and_venue() {
        let header = "what it is | checked metadata | URL | how much you read | claim it bears on | limits | checked / accessed";
        let r = row(
            header,
            "tf.data | Murray et al. (2021), Proc. VLDB Endowment | https://arxiv.org/abs/2101.12127 | abstract only | none | - | 2026-12-01",
        );
        assert_eq!(r.authors, ["Murray"]);
        assert!(r.authors_partial);
        assert_eq!(r.year, Some(2021), "not the year it was accessed");
        assert_eq!(r.venue.as_deref(), Some("Proc. VLDB Endowment"));
        assert_eq!(r.status.as_deref(), Some("abstract only"));
    }
}
