//! A recorded research report read into items the book's site can list: the
//! rows of its source ledger, the things it marks UNVERIFIED, the claims of
//! its audit table and the proposals of its upgrade section. What cannot be
//! read into an item is kept, with the reason, in `unparsed`.

use serde::Serialize;

// Sections, marks and table cells as the report check reads them, so the
// items and the check never disagree about what the report says.
use super::report::{cells, count_word, section_of};

/// A source-ledger row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerRow {
    pub title: String,
    pub authors: Vec<String>,
    pub year: Option<i64>,
    pub venue: Option<String>,
    pub status: Option<String>,
    pub url: Option<String>,
}

/// Something the report marks UNVERIFIED: the claim it is about (the audit
/// row's first cell, else the section) and the line itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gap {
    pub claim: String,
    pub gap: String,
}

/// A claim-audit row: the claim (first cell) and the verdict cell, if the
/// table has one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRow {
    pub claim: String,
    pub verdict: Option<String>,
}

/// What the report's text yields.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReportItems {
    pub sources: Vec<LedgerRow>,
    pub gaps: Vec<Gap>,
    pub audit: Vec<AuditRow>,
    /// One recommendation per upgrade-proposal entry.
    pub proposals: Vec<String>,
    /// Lines that should have made an item and could not, with why.
    pub unparsed: Vec<String>,
}

fn is_separator(cells: &[String]) -> bool {
    !cells.is_empty()
        && cells
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
}

/// Text without Markdown emphasis and link syntax: `[t](u)` -> `t`.
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find("](") {
            Some(close) if after[close + 2..].contains(')') => {
                out.push_str(&after[..close]);
                let tail = &after[close + 2..];
                rest = &tail[tail.find(')').map_or(0, |i| i + 1)..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.replace("**", "").replace('`', "").trim().to_string()
}

/// The first URL in a cell: a Markdown link's target or a bare http(s) URL.
fn url_in(cell: &str) -> Option<String> {
    if let Some(i) = cell.find("](") {
        let tail = &cell[i + 2..];
        if let Some(end) = tail.find(')') {
            return Some(tail[..end].trim().to_string()).filter(|u| !u.is_empty());
        }
    }
    cell.split_whitespace()
        .find(|w| w.starts_with("http://") || w.starts_with("https://"))
        .map(|w| {
            w.trim_end_matches(['.', ',', ';', '>'])
                .trim_start_matches('<')
                .to_string()
        })
}

/// A ledger row from its cells, by the header's column names.
fn ledger_row(header: &[String], row: &[String]) -> Result<LedgerRow, &'static str> {
    let col = |names: &[&str]| {
        header
            .iter()
            .position(|h| names.iter().any(|n| h.to_lowercase().contains(n)))
            .and_then(|i| row.get(i))
            .map(|c| c.trim())
            .filter(|c| !c.is_empty() && *c != "-")
    };
    let title_cell =
        col(&["title", "source", "reference", "work"]).or(row.first().map(|c| c.trim()));
    let title = title_cell
        .map(plain)
        .filter(|t| !t.is_empty())
        .ok_or("it has no title")?;
    let url = col(&["url", "link"])
        .and_then(url_in)
        .or_else(|| title_cell.and_then(url_in))
        .map(|u| crate::text::redact_url(&u));
    let year = match col(&["year", "date"]) {
        None => None,
        Some(y) => Some(
            y.chars()
                .filter(char::is_ascii_digit)
                .collect::<String>()
                .get(..4)
                .and_then(|d| d.parse().ok())
                .ok_or("its year is not a year")?,
        ),
    };
    Ok(LedgerRow {
        title,
        authors: col(&["author"])
            .map(|a| {
                a.split([';', ','])
                    .map(plain)
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default(),
        year,
        venue: col(&["venue", "publisher", "journal"]).map(plain),
        status: col(&["status", "verified", "checked"]).map(plain),
        url,
    })
}

/// Reads a report's text into items.
pub fn read(text: &str) -> ReportItems {
    let mut items = ReportItems::default();
    let mut section: Option<usize> = None;
    let mut heading = String::new();
    let mut header: Option<Vec<String>> = None;
    let mut proposal: Option<(String, Vec<String>)> = None;
    let finish = |p: Option<(String, Vec<String>)>, items: &mut ReportItems| {
        if let Some((title, lines)) = p {
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
                Some(text) => items.proposals.push(format!("{title}: {}", plain(&text))),
                None => items.unparsed.push(format!(
                    "upgrade proposal \"{title}\": it says nothing to do"
                )),
            }
        }
    };
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if line.starts_with("## ") || line.starts_with("# ") {
            finish(proposal.take(), &mut items);
            section = section_of(line);
            heading = line.trim_start_matches('#').trim().to_string();
            header = None;
            continue;
        }
        for _ in 0..count_word(line, "UNVERIFIED") {
            let claim = if trimmed.starts_with('|') {
                cells(line).first().map(|c| plain(c)).unwrap_or_default()
            } else {
                heading.clone()
            };
            let gap = plain(trimmed.trim_start_matches(['-', '*', ' ']));
            items.gaps.push(Gap { claim, gap });
        }
        match section {
            // Claim audit and source ledger: their tables.
            Some(s @ (1 | 2)) if trimmed.starts_with('|') => {
                let row = cells(line);
                if is_separator(&row) {
                    continue;
                }
                let Some(h) = &header else {
                    header = Some(row);
                    continue;
                };
                if s == 2 {
                    match ledger_row(h, &row) {
                        Ok(r) => items.sources.push(r),
                        Err(why) => items
                            .unparsed
                            .push(format!("source ledger, line {}: {why}: {trimmed}", n + 1)),
                    }
                } else {
                    let verdict_col = h.iter().position(|c| c.to_lowercase().contains("verdict"));
                    let claim = row.first().map(|c| plain(c)).unwrap_or_default();
                    if claim.is_empty() {
                        items
                            .unparsed
                            .push(format!("claim audit, line {}: no claim: {trimmed}", n + 1));
                    } else {
                        items.audit.push(AuditRow {
                            claim,
                            verdict: verdict_col
                                .and_then(|i| row.get(i))
                                .map(|v| plain(v))
                                .filter(|v| !v.is_empty()),
                        });
                    }
                }
            }
            Some(1 | 2) if !trimmed.is_empty() => header = None,
            // Upgrade proposal: one entry per `###` heading, or per bullet
            // when the section has no sub-headings.
            Some(4) => {
                if let Some(title) = trimmed.strip_prefix("### ") {
                    finish(proposal.take(), &mut items);
                    proposal = Some((plain(title), Vec::new()));
                } else if let Some((_, lines)) = &mut proposal {
                    lines.push(trimmed.to_string());
                } else if let Some(bullet) =
                    trimmed.strip_prefix("- ").or(trimmed.strip_prefix("* "))
                {
                    items.proposals.push(plain(bullet));
                }
            }
            _ => {}
        }
    }
    finish(proposal.take(), &mut items);
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "# Research report\n\n## 1. Context and provenance\n\nRead on 2026-11-30.\n\n\
## 2. Claim audit\n\n| claim | where | latest verdict | response |\n| --- | --- | --- | --- |\n\
| sleep-speedup-7.4x: \"scales 7.4x\" | opening | REPRODUCED | keep |\n\
| spin-wait: \"waits 28.1 ms\" | table 2 | UNVERIFIED | re-run |\n\n\
## 3. Source ledger\n\n| source | authors | year | url |\n|---|---|---|---|\n\
| [torch.utils.data docs](https://pytorch.org/docs/stable/data.html) | PyTorch team | 2025 | |\n\
| Linux CFS design | Molnar; Kumar | 2007 | https://docs.kernel.org/scheduler/sched-design-CFS.html |\n\n\
## 4. Findings\n\nAll good.\n\n## 5. Upgrade proposal\n\n### spin-wait\n\n- The chapter says: \"28.1 ms\"\n\
- Proposed text: Say that the wait depends on the hand-off.\n\n### sleep-speedup-7.4x\n\nKeep as is.\n\n\
## 6. Experiment opportunities\n\n- none\n\n## 7. Review checklist\n\n- [x] done\n";

    #[test]
    fn sources_gaps_claims_and_proposals_become_items() {
        let items = read(REPORT);
        assert_eq!(items.sources.len(), 2, "{items:#?}");
        assert_eq!(items.sources[0].title, "torch.utils.data docs");
        assert_eq!(
            items.sources[0].url.as_deref(),
            Some("https://pytorch.org/docs/stable/data.html")
        );
        assert_eq!(items.sources[1].authors, vec!["Molnar", "Kumar"]);
        assert_eq!(items.sources[1].year, Some(2007));
        assert_eq!(items.gaps.len(), 1);
        assert_eq!(items.gaps[0].claim, "spin-wait: \"waits 28.1 ms\"");
        assert_eq!(items.audit.len(), 2);
        assert_eq!(items.audit[0].verdict.as_deref(), Some("REPRODUCED"));
        assert_eq!(
            items.proposals,
            vec![
                "spin-wait: Say that the wait depends on the hand-off.",
                "sleep-speedup-7.4x: Keep as is."
            ]
        );
        assert!(items.unparsed.is_empty(), "{:?}", items.unparsed);
    }

    #[test]
    fn a_row_that_cannot_be_an_item_is_kept_with_its_reason() {
        let text = REPORT.replace(
            "| Linux CFS design | Molnar; Kumar | 2007 |",
            "| | Molnar | 2007 |",
        );
        let items = read(&text);
        assert_eq!(items.sources.len(), 1);
        assert_eq!(items.unparsed.len(), 1, "{:?}", items.unparsed);
        assert!(
            items.unparsed[0].contains("source ledger, line"),
            "{:?}",
            items.unparsed
        );
        assert!(
            items.unparsed[0].contains("no title"),
            "{:?}",
            items.unparsed
        );
        let text = REPORT.replace("| 2007 |", "| long ago |");
        let items = read(&text);
        assert!(
            items.unparsed[0].contains("its year is not a year"),
            "{:?}",
            items.unparsed
        );
    }

    #[test]
    fn every_unverified_mark_is_one_gap() {
        let text = "## 1. Context and provenance\nUNVERIFIED: the VM's HZ. Also UNVERIFIED twice.\n\
## 2. Claim audit\n| claim | x |\n| --- | --- |\n| c1 | UNVERIFIED |\n";
        let items = read(text);
        assert_eq!(items.gaps.len(), 3);
        assert_eq!(items.gaps[0].claim, "1. Context and provenance");
        assert_eq!(items.gaps[2].claim, "c1");
        assert_eq!(
            items.gaps.len(),
            super::super::report::check(text).unverified_markers
        );
    }
}
