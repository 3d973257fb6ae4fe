//! What a report's text yields, as types: its ledger rows (`ledger`), its
//! UNVERIFIED marks, claim-audit rows, findings by group and experiments
//! marked UNRUN. `super` and `entries` fill them in.

use serde::Serialize;

use super::ledger::LedgerRow;

/// The group of the findings a finding is in, as the report's section 4
/// names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportFindingKind {
    Supporting,
    Qualifying,
    Contradictory,
    Unresolved,
}

impl ReportFindingKind {
    /// Every group, in the report's order.
    pub const ALL: [ReportFindingKind; 4] = [
        ReportFindingKind::Supporting,
        ReportFindingKind::Qualifying,
        ReportFindingKind::Contradictory,
        ReportFindingKind::Unresolved,
    ];

    /// The group's name, as the report writes it.
    pub fn name(self) -> &'static str {
        match self {
            ReportFindingKind::Supporting => "Supporting",
            ReportFindingKind::Qualifying => "Qualifying",
            ReportFindingKind::Contradictory => "Contradictory",
            ReportFindingKind::Unresolved => "Unresolved",
        }
    }

    /// The words that open the group's heading.
    fn words(self) -> &'static [&'static str] {
        match self {
            ReportFindingKind::Supporting => &["supporting", "supports"],
            ReportFindingKind::Qualifying => &["qualifying", "qualifies"],
            ReportFindingKind::Contradictory => &["contradictory", "contradicting", "contradicts"],
            ReportFindingKind::Unresolved => &["unresolved"],
        }
    }

    /// The group a line opens, with the rest of the line: a heading
    /// (`### Contradictory`), a bold word (`**Supporting**`), or the word
    /// and a colon (`Contradictory: none that I trust`). "evidence" may
    /// follow the word.
    pub fn from_heading(line: &str) -> Option<(ReportFindingKind, &str)> {
        let heading = line.starts_with('#');
        let t = line.trim_start_matches(['#', ' ']);
        let t = t.strip_prefix("- ").unwrap_or(t);
        let bold = t.starts_with("**") || t.starts_with("__");
        let t = t.trim_start_matches(['*', '_']);
        let lower = t.to_lowercase();
        let (kind, word) = Self::ALL.iter().find_map(|k| {
            k.words()
                .iter()
                .find(|w| {
                    lower.starts_with(*w)
                        && !lower[w.len()..].starts_with(|c: char| c.is_alphanumeric())
                })
                .map(|w| (*k, w.len()))
        })?;
        let mut rest = &t[word..];
        if rest.to_lowercase().starts_with(" evidence") {
            rest = &rest[" evidence".len()..];
        }
        let rest = rest.trim_start_matches(['*', '_']);
        let colon = rest.trim_start().starts_with(':');
        if !(heading || bold || colon || rest.trim().is_empty()) {
            return None;
        }
        let rest = rest
            .trim_start()
            .trim_start_matches([':', '—', '–', '-'])
            .trim();
        Some((kind, rest))
    }
}

/// A finding of the report: its group and its text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportFinding {
    pub kind: ReportFindingKind,
    /// Plain text.
    pub text: String,
    /// As written (Markdown kept, for the links it cites).
    pub raw: String,
}

/// An experiment the report proposes and marks UNRUN.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnrunExperiment {
    /// What to run: the entry's heading or first sentence, plain.
    pub description: String,
    /// The rest of the entry (method, criteria), plain; empty when none.
    pub details: String,
}

/// Something the report marks UNVERIFIED: the claim it is about and the
/// text of the mark, plain: the table cell that carries it, or the sentence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gap {
    /// The claim-audit row's claim, the source-ledger row's "bears on"
    /// cell, or else the section's heading.
    pub claim: String,
    pub gap: String,
    /// Whether `claim` is only the heading of the section the mark is in.
    pub from_heading: bool,
}

/// A claim-audit row: the claim (first cell), the verdict cell if the table
/// has one, and the response (last cell).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRow {
    pub claim: String,
    pub verdict: Option<String>,
    pub response: Option<String>,
}

impl AuditRow {
    /// The claim's id: the first cell up to a colon, in lower case.
    pub fn key(&self) -> String {
        claim_key(&self.claim)
    }

    /// The quoted sentence in the claim cell (between double quotes), if any.
    pub fn quote(&self) -> Option<&str> {
        let start = self.claim.find(['"', '“'])?;
        let rest = &self.claim[start..];
        let open = rest.chars().next()?.len_utf8();
        let end = rest[open..].rfind(['"', '”'])?;
        Some(rest[open..open + end].trim()).filter(|q| !q.is_empty())
    }
}

/// The claim id of an audit cell: its text up to a colon, in lower case.
pub fn claim_key(claim: &str) -> String {
    claim
        .split(':')
        .next()
        .unwrap_or(claim)
        .trim()
        .to_lowercase()
}

/// What the report's text yields.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReportItems {
    pub sources: Vec<LedgerRow>,
    pub gaps: Vec<Gap>,
    pub audit: Vec<AuditRow>,
    /// The findings, in the report's order.
    pub findings: Vec<ReportFinding>,
    /// The groups the report says hold nothing ("Contradictory: none").
    pub findings_none: Vec<ReportFindingKind>,
    /// One recommendation per upgrade-proposal entry.
    pub proposals: Vec<String>,
    /// The experiments section's entries marked UNRUN.
    pub unrun: Vec<UnrunExperiment>,
    /// Lines that should have made an item and could not, with why.
    pub unparsed: Vec<String>,
}

impl ReportItems {
    /// The claim audit's response to the claim `id` (any case), when it
    /// gives one that is not empty.
    pub fn response_to(&self, id: &str) -> Option<&str> {
        let key = id.to_lowercase();
        self.audit
            .iter()
            .find(|row| row.key() == key)
            .and_then(|row| row.response.as_deref())
            .map(str::trim)
            .filter(|r| !r.is_empty())
    }
}
