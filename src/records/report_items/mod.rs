//! A recorded research report read into items the book's site and the
//! next research pass can use: the rows of its source ledger, the things it
//! marks UNVERIFIED, the rows of its claim audit, its findings by group, the
//! proposals of its upgrade section, and the experiments it marks UNRUN.
//! What should have become an item and could not is kept, with the reason,
//! in `unparsed`.
//!
//! `items` holds the types, `plain` turns a cell or a sentence into plain
//! text, `ledger` reads a source-ledger row (`metadata` its authors, year
//! and venue, from one cell or several), `entries` the findings and the
//! experiment opportunities; this file walks the report section by section.

mod entries;
mod items;
mod ledger;
mod metadata;
mod plain;

// Sections, marks and table cells as the report check reads them, so the
// items and the check never disagree about what the report says.
use super::report::{cells, count_word, heading_lines, is_heading, section_of};
use entries::{ReportEntry, bullet_text};

pub use items::{
    AuditRow, Gap, ReportFinding, ReportFindingKind, ReportItems, UnrunExperiment, claim_key,
};
pub use ledger::{LedgerRow, arxiv_in, doi_in};
pub use plain::{plain, sentences};

fn is_separator(cells: &[String]) -> bool {
    !cells.is_empty()
        && cells
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
}

/// The report's required sections by index (see `REQUIRED_SECTIONS`).
const AUDIT: usize = 1;
const LEDGER: usize = 2;
const FINDINGS: usize = 3;
const PROPOSAL: usize = 4;
const EXPERIMENTS: usize = 5;

/// The state of a walk through the report.
#[derive(Default)]
struct Reader {
    items: ReportItems,
    section: Option<usize>,
    heading: String,
    /// The current table's header row, once read.
    header: Option<Vec<String>>,
    /// The source ledger's columns, found once from its header.
    columns: Option<ledger::Columns>,
    /// The open upgrade-proposal entry: its title and lines.
    proposal: Option<(String, Vec<String>)>,
    /// The findings group being read.
    group: Option<ReportFindingKind>,
    /// The open finding or experiment entry.
    entry: Option<ReportEntry>,
    last_blank: bool,
}

impl Reader {
    /// Closes the open proposal and entry.
    fn finish(&mut self) {
        if let Some((title, lines)) = self.proposal.take() {
            // The proposed text when the entry gives one, else its first line.
            let proposed = lines.iter().find_map(|l| {
                l.trim_start_matches(['-', '*', ' '])
                    .strip_prefix("Proposed text:")
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string)
            });
            let first = lines
                .iter()
                .map(|l| l.trim_start_matches(['-', '*', ' ']).trim())
                .find(|l| !l.is_empty())
                .map(str::to_string);
            match proposed.or(first) {
                Some(text) => self
                    .items
                    .proposals
                    .push(format!("{title}: {}", plain(&text))),
                None => self.items.unparsed.push(format!(
                    "upgrade proposal \"{title}\": it says nothing to do"
                )),
            }
        }
        if let Some(entry) = self.entry.take() {
            match (self.section, self.group) {
                (Some(FINDINGS), Some(kind)) => entry.into_finding(kind, &mut self.items),
                (Some(EXPERIMENTS), _) => entry.into_unrun(&mut self.items),
                _ => {}
            }
        }
    }

    /// The UNVERIFIED marks of a line, each with its cell or sentence.
    fn marks(&mut self, line: &str) {
        let trimmed = line.trim();
        if count_word(line, "UNVERIFIED") == 0 {
            return;
        }
        if trimmed.starts_with('|') {
            let row = cells(line);
            let claim = match (self.section, &self.header) {
                (Some(LEDGER), Some(_)) => self.ledger_row(&row).ok().and_then(|r| r.bears_on),
                (Some(AUDIT), Some(_)) => Some(row.first().map(|c| plain(c)).unwrap_or_default()),
                _ => None,
            };
            let from_heading = claim.is_none();
            let claim = claim.unwrap_or_else(|| self.heading.clone());
            // A cell marked twice is one lead.
            for cell in row.iter().filter(|c| count_word(c, "UNVERIFIED") > 0) {
                let mut gap = plain(cell);
                if gap == claim {
                    gap = "UNVERIFIED".into();
                }
                self.items.gaps.push(Gap {
                    claim: claim.clone(),
                    gap,
                    from_heading,
                });
            }
            return;
        }
        let text = bullet_text(trimmed).unwrap_or(trimmed);
        // A sentence marked twice is one lead.
        for sentence in plain::sentences(text)
            .into_iter()
            .filter(|s| count_word(s, "UNVERIFIED") > 0)
        {
            self.items.gaps.push(Gap {
                claim: self.heading.clone(),
                gap: plain(sentence),
                from_heading: true,
            });
        }
    }

    /// A row of the source ledger under the current header, its columns
    /// found once per table.
    fn ledger_row(&mut self, row: &[String]) -> Result<ledger::LedgerRow, &'static str> {
        let header = self.header.as_deref().unwrap_or_default();
        if !self.columns.as_ref().is_some_and(|c| c.of(header)) {
            self.columns = Some(ledger::Columns::new(header));
        }
        match &self.columns {
            Some(cols) => ledger::row_in(cols, row),
            None => ledger::ledger_row(header, row),
        }
    }

    /// A row of the claim audit or the source ledger.
    fn table_row(&mut self, s: usize, n: usize, trimmed: &str) {
        let row = cells(trimmed);
        if is_separator(&row) {
            return;
        }
        let Some(h) = &self.header else {
            self.header = Some(row);
            return;
        };
        if s == LEDGER {
            match self.ledger_row(&row) {
                Ok(r) => self.items.sources.push(r),
                Err(why) => self
                    .items
                    .unparsed
                    .push(format!("source ledger, line {}: {why}: {trimmed}", n + 1)),
            }
            return;
        }
        let verdict_col = h.iter().position(|c| c.to_lowercase().contains("verdict"));
        let claim = row.first().map(|c| plain(c)).unwrap_or_default();
        if claim.is_empty() {
            self.items
                .unparsed
                .push(format!("claim audit, line {}: no claim: {trimmed}", n + 1));
            return;
        }
        let cell = |i: Option<usize>| {
            i.and_then(|i| row.get(i))
                .map(|v| plain(v))
                .filter(|v| !v.is_empty())
        };
        self.items.audit.push(AuditRow {
            claim,
            verdict: cell(verdict_col),
            response: cell(row.len().checked_sub(1).filter(|&i| i > 0)),
        });
    }

    /// A line of the upgrade proposal: one entry per `###` heading, or per
    /// bullet when the section has no sub-headings.
    fn proposal_line(&mut self, trimmed: &str) {
        if let Some(title) = trimmed.strip_prefix("### ") {
            self.finish();
            self.proposal = Some((plain(title), Vec::new()));
        } else if let Some((_, lines)) = &mut self.proposal {
            lines.push(trimmed.to_string());
        } else if let Some(bullet) = trimmed.strip_prefix("- ").or(trimmed.strip_prefix("* ")) {
            self.items.proposals.push(plain(bullet));
        }
    }

    /// A line of the findings or the experiments: a group heading (findings
    /// only), a `###` entry, a bullet, a table row, or more of the open entry.
    fn entry_line(&mut self, s: usize, line: &str) {
        let trimmed = line.trim();
        if s == FINDINGS {
            if let Some((kind, rest)) = ReportFindingKind::from_heading(trimmed) {
                self.finish();
                self.group = Some(kind);
                if !rest.is_empty() {
                    self.entry = Some(ReportEntry::new(rest));
                }
                return;
            }
        }
        if trimmed.is_empty() {
            self.last_blank = true;
            return;
        }
        let indented = line.starts_with([' ', '\t']);
        if let Some(title) = trimmed.strip_prefix("### ") {
            self.finish();
            self.entry = Some(ReportEntry::headed(title));
        } else if trimmed.starts_with('|') {
            self.finish();
            let row = cells(trimmed);
            if is_separator(&row) {
                return;
            }
            if self.header.is_none() {
                self.header = Some(row);
            } else {
                self.entry = Some(ReportEntry::from_cells(&row));
                self.finish();
            }
        } else if let Some(text) = bullet_text(trimmed).filter(|_| !indented) {
            self.finish();
            self.entry = Some(ReportEntry::new(text));
        } else {
            match &mut self.entry {
                Some(e) if indented || !self.last_blank || e.headed => e.push(trimmed),
                _ => {
                    self.finish();
                    self.entry = Some(ReportEntry::new(trimmed));
                }
            }
        }
        if !trimmed.starts_with('|') {
            self.header = None;
        }
    }

    fn line(&mut self, n: usize, line: &str, heading: bool) {
        let trimmed = line.trim();
        if heading {
            self.finish();
            self.section = section_of(line);
            self.heading = line.trim_start_matches('#').trim().to_string();
            self.header = None;
            self.group = None;
            return;
        }
        self.marks(line);
        match self.section {
            Some(s @ (AUDIT | LEDGER)) if trimmed.starts_with('|') => self.table_row(s, n, trimmed),
            Some(AUDIT | LEDGER) if !trimmed.is_empty() => self.header = None,
            Some(PROPOSAL) => self.proposal_line(trimmed),
            Some(s @ (FINDINGS | EXPERIMENTS)) => self.entry_line(s, line),
            _ => {}
        }
        if !trimmed.is_empty() {
            self.last_blank = false;
        }
    }
}

/// Reads a report's text into items.
pub fn read(text: &str) -> ReportItems {
    let mut reader = Reader::default();
    let headings = heading_lines(text);
    for (n, line) in text.lines().enumerate() {
        reader.line(n, line, is_heading(&headings, n, line));
    }
    reader.finish();
    reader.items
}

#[cfg(test)]
mod tests;
