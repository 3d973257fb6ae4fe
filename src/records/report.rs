//! Checks a research report: the seven required sections, its UNVERIFIED and
//! UNRUN markers, and the rows of its claim-audit and source-ledger tables.

use serde::{Deserialize, Serialize};

/// The report's required top-level headings, exactly as the prompt asks.
pub const REQUIRED_SECTIONS: [&str; 7] = [
    "## 1. Context and provenance",
    "## 2. Claim audit",
    "## 3. Source ledger",
    "## 4. Findings",
    "## 5. Upgrade proposal",
    "## 6. Experiment opportunities",
    "## 7. Review checklist",
];

/// The largest report `record --report` stores, in bytes (2 MiB). Every
/// reader of a record (prompt, report, publish, site) reads the latest
/// report whole and carries parts of it into its output, whose own limit is
/// 16 MiB; a report within this bound leaves them room.
pub const MAX_REPORT_BYTES: usize = 2 << 20;

/// The most source-ledger rows `record --report` stores (a ledger of
/// 10,000 sources is already far past what one review reads).
pub const MAX_LEDGER_ROWS: usize = 10_000;

/// Why a report is too large to record, if it is: more than
/// [`MAX_REPORT_BYTES`] bytes, or more than [`MAX_LEDGER_ROWS`] ledger rows.
pub fn over_bounds(bytes: usize, check: &ReportCheck) -> Option<String> {
    if bytes > MAX_REPORT_BYTES {
        return Some(format!(
            "the report is {bytes} bytes, more than the {MAX_REPORT_BYTES}-byte (2 MiB) limit of a recorded report; nothing was stored"
        ));
    }
    (check.source_ledger_rows > MAX_LEDGER_ROWS).then(|| {
        format!(
            "the source ledger has {} rows, more than the {MAX_LEDGER_ROWS} a recorded report may hold; nothing was stored",
            check.source_ledger_rows
        )
    })
}

/// What the checks found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportCheck {
    pub sections_present: Vec<String>,
    pub sections_missing: Vec<String>,
    pub unverified_markers: usize,
    pub unrun_markers: usize,
    /// The claims the claim audit's rows name, each once.
    pub claim_audit_rows: usize,
    pub source_ledger_rows: usize,
    /// `[[author: ...]]` places the draft leaves for the author.
    #[serde(default)]
    pub placeholders: usize,
    /// Review-checklist boxes not ticked (`- [ ]`).
    #[serde(default)]
    pub unticked: usize,
    /// Claim-audit rows whose last cell (the response) is empty.
    #[serde(default)]
    pub empty_responses: usize,
}

/// How the draft's places for the author begin.
pub const PLACEHOLDER: &str = "[[author:";

impl ReportCheck {
    /// Whether every required section is there.
    pub fn complete(&self) -> bool {
        self.sections_missing.is_empty()
    }

    /// What still makes the report a draft, in words; None when nothing does.
    pub fn draft_reasons(&self) -> Option<String> {
        let mut why = Vec::new();
        if self.placeholders > 0 {
            why.push(format!(
                "{} [[author: ...]] place(s) to fill",
                self.placeholders
            ));
        }
        if self.unticked > 0 {
            why.push(format!(
                "{} unticked review-checklist box(es)",
                self.unticked
            ));
        }
        if self.empty_responses > 0 {
            why.push(format!(
                "{} claim-audit row(s) with no response",
                self.empty_responses
            ));
        }
        (!why.is_empty()).then(|| why.join(", "))
    }
}

/// Which required section a line opens, if any. The heading may go on after
/// the required words (`## 2. Claim audit — a table ...`).
pub(super) fn section_of(line: &str) -> Option<usize> {
    let line = line.trim_end();
    REQUIRED_SECTIONS.iter().position(|h| {
        line.strip_prefix(h).is_some_and(|rest| {
            rest.is_empty()
                || rest.starts_with([' ', '\t', ':', '-', '—', '–', '('])
                || rest.starts_with(" —")
        })
    })
}

/// The lines (numbered from 0, as `str::lines` counts them) that open a
/// top-level heading (`# ` or `## `) as Markdown reads the text: a heading
/// line inside a code fence, an indented code block or an HTML comment is
/// text, not a section. Found with pulldown-cmark, in one pass.
pub(super) fn heading_lines(text: &str) -> std::collections::HashSet<usize> {
    use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag};
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    Parser::new_ext(text, Options::ENABLE_TABLES)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H1 | HeadingLevel::H2,
                ..
            }) => Some(line_starts.partition_point(|&s| s <= range.start) - 1),
            _ => None,
        })
        .collect()
}

/// Whether line `n` of a report (`line`) opens a top-level section: it
/// starts with `# ` or `## ` and Markdown reads it as a heading (see
/// [`heading_lines`]).
pub(super) fn is_heading(
    headings: &std::collections::HashSet<usize>,
    n: usize,
    line: &str,
) -> bool {
    (line.starts_with("## ") || line.starts_with("# ")) && headings.contains(&n)
}

/// The cells of a Markdown table row, trimmed.
pub(super) fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_matches('|');
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

/// Runs every check on the report's text.
pub fn check(text: &str) -> ReportCheck {
    let mut present = [false; 7];
    let mut current: Option<usize> = None;
    let mut rows = [0usize; 7];
    let mut in_table = false;
    let mut table_lines = 0usize;
    let close_table = |current: Option<usize>, table_lines: &mut usize, rows: &mut [usize; 7]| {
        if let Some(s) = current {
            // A table's first two lines are its header and its separator.
            rows[s] += table_lines.saturating_sub(2);
        }
        *table_lines = 0;
    };
    let mut unticked = 0;
    let mut empty_responses = 0;
    let mut audit_line = 0;
    // The claims the audit's rows name (the first cell up to a colon): a
    // draft lists each claim twice when it keeps the other engine's
    // verdicts apart, and that is one claim, not two rows of audit.
    let mut audited = std::collections::BTreeSet::new();
    let headings = heading_lines(text);
    for (n, line) in text.lines().enumerate() {
        if current == Some(6) && line.trim_start().starts_with("- [ ]") {
            unticked += 1;
        }
        if current == Some(1) && line.trim_start().starts_with('|') {
            audit_line += 1;
            // The header and separator aside, a row's last cell is the response.
            if audit_line > 2 && cells(line).last().is_none_or(|c| c.is_empty()) {
                empty_responses += 1;
            }
            if audit_line > 2
                && let Some(first) = cells(line).first()
                && let Some(id) = first.split(':').next().map(str::trim)
                && !id.is_empty()
            {
                audited.insert(id.to_string());
            }
        } else if current == Some(1) {
            audit_line = 0;
        }
        if is_heading(&headings, n, line) {
            close_table(current, &mut table_lines, &mut rows);
            in_table = false;
            current = section_of(line);
            if let Some(s) = current {
                present[s] = true;
            }
            continue;
        }
        let is_row = line.trim_start().starts_with('|');
        if is_row {
            in_table = true;
            table_lines += 1;
        } else if in_table {
            close_table(current, &mut table_lines, &mut rows);
            in_table = false;
        }
    }
    close_table(current, &mut table_lines, &mut rows);
    let (sections_present, sections_missing) = REQUIRED_SECTIONS.iter().zip(present).fold(
        (Vec::new(), Vec::new()),
        |(mut p, mut m), (h, ok)| {
            if ok {
                p.push(h.to_string())
            } else {
                m.push(h.to_string())
            }
            (p, m)
        },
    );
    ReportCheck {
        sections_present,
        sections_missing,
        unverified_markers: count_word(text, "UNVERIFIED"),
        unrun_markers: count_word(text, "UNRUN"),
        claim_audit_rows: audited.len(),
        source_ledger_rows: rows[2],
        placeholders: text.matches(PLACEHOLDER).count(),
        unticked,
        empty_responses,
    }
}

/// Occurrences of `word` not inside a longer word.
pub(super) fn count_word(text: &str, word: &str) -> usize {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word)
        .filter(|(i, _)| {
            let before = text[..*i].chars().next_back();
            let after = text[i + word.len()..].chars().next();
            !before.is_some_and(is_word) && !after.is_some_and(is_word)
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = "# Report\n\n## 1. Context and provenance — what I read\ntext UNVERIFIED.\n\n\
## 2. Claim audit\n\n| claim | evidence |\n| --- | --- |\n| 7.4x | table |\n| 454 vs 449 | UNVERIFIED |\n\n\
## 3. Source ledger\n| source | url |\n|---|---|\n| PyTorch docs | x |\n\n## 4. Findings\n\n## 5. Upgrade proposal\n\n\
## 6. Experiment opportunities\nA: UNRUN. B: UNRUNNABLE is not a marker.\n\n## 7. Review checklist\n";

    #[test]
    fn a_complete_report_is_counted() {
        let c = check(FULL);
        assert!(c.complete(), "{c:?}");
        assert_eq!(c.unverified_markers, 2);
        assert_eq!(c.unrun_markers, 1);
        assert_eq!(c.claim_audit_rows, 2);
        assert_eq!(c.source_ledger_rows, 1);
        // The other engine's verdicts kept apart, in a second table of the
        // same claims: still two claims audited.
        let twice = FULL.replace(
            "| 454 vs 449 | UNVERIFIED |\n",
            "| 454 vs 449 | UNVERIFIED |\n\nKept apart:\n\n| claim | verdict |\n| --- | --- |\n| 7.4x | REPRODUCED |\n| 454 vs 449 | REPRODUCED |\n",
        );
        assert_ne!(twice, FULL);
        assert_eq!(check(&twice).claim_audit_rows, 2);
    }

    #[test]
    fn a_draft_is_told_apart_from_a_finished_report() {
        assert_eq!(check(FULL).draft_reasons(), None);
        let draft = FULL
            .replace(
                "text UNVERIFIED.",
                "text [[author: what you read]] UNVERIFIED.",
            )
            .replace(
                "## 7. Review checklist\n",
                "## 7. Review checklist\n- [ ] a: accept (reason: )\n- [x] b: done\n",
            )
            .replace("| 7.4x | table |", "| 7.4x | |");
        let c = check(&draft);
        assert_eq!((c.placeholders, c.unticked, c.empty_responses), (1, 1, 1));
        assert_eq!(
            c.draft_reasons().unwrap(),
            "1 [[author: ...]] place(s) to fill, 1 unticked review-checklist box(es), 1 claim-audit row(s) with no response"
        );
    }

    #[test]
    fn headings_in_code_fences_and_html_comments_are_not_sections() {
        let fenced = format!("# Report\n\n```markdown\n{FULL}```\n");
        let c = check(&fenced);
        assert!(c.sections_present.is_empty(), "{c:?}");
        let tilde = format!("~~~\n{FULL}~~~\n");
        assert!(check(&tilde).sections_present.is_empty());
        let commented = FULL.replace("## 4. Findings", "<!--\n## 4. Findings\n-->");
        assert_eq!(check(&commented).sections_missing, vec!["## 4. Findings"]);
        // The same report outside any fence is complete.
        assert!(check(FULL).complete());
    }

    #[test]
    fn missing_and_misnamed_sections_are_listed() {
        let text = FULL
            .replace("## 4. Findings", "## 4 Findings")
            .replace("## 7. Review checklist", "### 7. Review checklist");
        let c = check(&text);
        assert_eq!(
            c.sections_missing,
            vec!["## 4. Findings", "## 7. Review checklist"]
        );
        // A heading that only starts with the words is not the section.
        assert!(
            !check("## 2. Claim auditing\n")
                .sections_present
                .iter()
                .any(|s| s.contains("Claim"))
        );
    }
}
