//! The entries of a report's findings and experiment opportunities: each
//! bullet, `###` entry, table row or paragraph, and what it becomes: a
//! finding of its group (supporting, qualifying, contradictory, unresolved),
//! or an experiment proposed and marked UNRUN.

use super::count_word;
use super::items::{ReportFinding, ReportFindingKind, ReportItems, UnrunExperiment};
use super::plain::{plain, sentences};

/// What to run without the UNRUN marker the entry carries for the check
/// (`X: UNRUN.` reads `X.`), since the site shows it as a proposal anyway.
fn without_marker(text: &str) -> String {
    let mut t = text.replace("(UNRUN)", "");
    for prefix in ["UNRUN: ", "UNRUN — ", "UNRUN - ", "UNRUN "] {
        if let Some(rest) = t.strip_prefix(prefix) {
            t = rest.to_string();
        }
    }
    let stop = t.trim_end().ends_with('.');
    let body = t.trim_end().trim_end_matches('.');
    let body = [": UNRUN", " — UNRUN", " - UNRUN", " UNRUN"]
        .iter()
        .find_map(|s| body.strip_suffix(s))
        .unwrap_or(body)
        .trim_end();
    let out = if stop {
        format!("{body}.")
    } else {
        body.to_string()
    };
    match out.trim() {
        "" | "." => text.to_string(),
        t => t.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

/// The text of a bullet (`- `, `* `, `+ `, `1. `), without its marker.
pub fn bullet_text(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if let Some(rest) = ["- ", "* ", "+ "].iter().find_map(|m| t.strip_prefix(m)) {
        return Some(rest.trim_start_matches("[x] ").trim_start_matches("[ ] "));
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    (digits > 0)
        .then(|| {
            t[digits..]
                .strip_prefix(". ")
                .or(t[digits..].strip_prefix(") "))
        })
        .flatten()
}

/// One entry as it is read: its lines, and whether a `###` heading opened it.
#[derive(Debug, Default)]
pub struct ReportEntry {
    title: Option<String>,
    lines: Vec<String>,
    pub headed: bool,
}

impl ReportEntry {
    pub fn new(first: &str) -> Self {
        ReportEntry {
            lines: vec![first.to_string()],
            ..ReportEntry::default()
        }
    }

    /// An entry opened by a `###` heading.
    pub fn headed(title: &str) -> Self {
        ReportEntry {
            title: Some(title.to_string()),
            headed: true,
            ..ReportEntry::default()
        }
    }

    /// A table row: its first cell the title, the others its lines.
    pub fn from_cells(cells: &[String]) -> Self {
        ReportEntry {
            title: cells.first().cloned(),
            lines: cells
                .iter()
                .skip(1)
                .filter(|c| !c.is_empty())
                .cloned()
                .collect(),
            headed: false,
        }
    }

    pub fn push(&mut self, line: &str) {
        self.lines.push(line.to_string());
    }

    fn raw(&self) -> String {
        self.title
            .iter()
            .chain(&self.lines)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The entry as a finding of `kind`, or as the group's "none".
    pub fn into_finding(self, kind: ReportFindingKind, items: &mut ReportItems) {
        let raw = self.raw();
        let text = plain(&raw);
        let lower = text.to_lowercase();
        if text.is_empty() {
            return;
        }
        if lower.starts_with("none") || lower.starts_with("nothing") || lower == "n/a" {
            if !items.findings_none.contains(&kind) {
                items.findings_none.push(kind);
            }
            return;
        }
        items.findings.push(ReportFinding { kind, text, raw });
    }

    /// The entry as an experiment opportunity, when it is marked UNRUN.
    pub fn into_unrun(self, items: &mut ReportItems) {
        let raw = self.raw();
        if count_word(&raw, "UNRUN") == 0 {
            return;
        }
        let (description, details) = match &self.title {
            Some(title) => (plain(title), plain(&self.lines.join(" "))),
            None => {
                let all = self.lines.join(" ");
                let parts = sentences(&all);
                let first = parts.first().copied().unwrap_or_default();
                let rest = parts.get(1..).unwrap_or_default().join(" ");
                (plain(first), plain(&rest))
            }
        };
        items.unrun.push(UnrunExperiment {
            description: without_marker(&description),
            details,
        });
    }
}
