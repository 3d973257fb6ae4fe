//! The evidence relations of the site data: what the latest research
//! report's findings say about each claim, with the latest experiment's
//! measurement as the evidence where there is one, and the measured
//! verdicts of the claims the report does not speak to.
//!
//! Where the report names a claim in a finding, the finding's group decides
//! the relation (Supporting: SUPPORTS, Qualifying: QUALIFIES, Contradictory:
//! CONTRADICTS, Unresolved: UNCERTAIN) and the claim's measured verdict, if
//! any, is its evidence. A claim the report does not name gets its measured
//! verdict as an EMPIRICAL_EVIDENCE relation, grouped by
//! [`measured_group`], the one place a verdict class and its flags become a
//! group; when the report says that group holds nothing ("Contradictory:
//! none that I trust"), the measurement goes to `unresolved`, since the
//! report and the run disagree. A measurement is shown as evidence of a
//! contradiction only when [`measured_group`] itself says contradictory.

use aho_corasick::AhoCorasick;
use chrono::{DateTime, Utc};

use super::claim_text::{lead, names_claim, quotes_claim, without_claim_id};
use super::schema::{
    EvidenceGroup, EvidenceGroups, EvidenceItem, Interpretation, ItemEvidence, ItemSource, Source,
};
use super::sources::run_label;
use crate::published::diff::ClaimResult;
use crate::published::in_words::{SpreadWords, verdict_in_words};
use crate::published::verdict::{ClaimVerdict, FlaggedVerdict, VerdictFlag};
use crate::records::report_items::{ReportFinding, ReportFindingKind, ReportItems};

/// The latest experiment's claim verdicts, with where they come from.
#[derive(Debug, Clone)]
pub struct ClaimEvidence<'a> {
    pub run_id: String,
    pub recorded_at: DateTime<Utc>,
    /// `env-v2:... (N CPUs)`.
    pub environment: String,
    /// Which engine measured: the real DataLoader or the model.
    pub engine: String,
    /// Short fingerprint of the revision the run examined.
    pub revision: String,
    pub of_current_revision: bool,
    pub claims: &'a [ClaimResult],
    /// Runs each value comes from (`--repeat`; medians when more than one).
    pub runs: usize,
    /// The page where a reader opens the experiment's record, if known.
    pub url: Option<String>,
}

/// The latest complete research report, read, with its sources.
#[derive(Debug, Clone, Copy)]
pub struct ReportEvidence<'a> {
    pub run_id: &'a str,
    /// The page where a reader opens the research run's record, if known.
    pub url: Option<&'a str>,
    /// The year it was recorded.
    pub year: i64,
    pub items: &'a ReportItems,
    pub sources: &'a [Source],
    /// The chapter's claims: id and quoted sentence.
    pub claims: &'a [(String, String)],
}

/// Whether a flag makes a reproduced claim's evidence qualifying rather
/// than supporting.
fn flag_qualifies(flag: &VerdictFlag) -> bool {
    match flag {
        VerdictFlag::MagnitudeDiffers(_)
        | VerdictFlag::MagnitudeUncertain(..)
        | VerdictFlag::QuoteMissing
        // A figure mostly about starting the workers says little of the size.
        | VerdictFlag::StartInWindow(_) => true,
        // The direction is the model's to give; the report asks for a
        // pytorch run before relying on the size.
        VerdictFlag::ModelLimit(_) => false,
    }
}

/// The group a measured verdict's evidence is shown in when the report
/// does not speak to its claim: every verdict class and flag decides here.
pub fn measured_group(verdict: &FlaggedVerdict, prose_consistent: bool) -> EvidenceGroup {
    let qualified = !prose_consistent || verdict.flags.iter().any(flag_qualifies);
    match verdict.class {
        ClaimVerdict::Reproduced if qualified => EvidenceGroup::Qualifying,
        ClaimVerdict::Reproduced => EvidenceGroup::Supporting,
        // A window mostly the workers' start measured the start as much as
        // the claim: the verdict's own caveat asks for another run first.
        ClaimVerdict::NotReproduced
            if verdict
                .flags
                .iter()
                .any(|f| matches!(f, VerdictFlag::StartInWindow(_))) =>
        {
            EvidenceGroup::Unresolved
        }
        ClaimVerdict::NotReproduced => EvidenceGroup::Contradictory,
        ClaimVerdict::NotComparable => EvidenceGroup::Qualifying,
        // Undecided is not contradicted: a busy machine or a wide interval
        // says nothing against the chapter.
        ClaimVerdict::Unrun | ClaimVerdict::Inconclusive => EvidenceGroup::Unresolved,
    }
}

/// Whether a claim's measurement may stand as the evidence of the report's
/// relation in `group`: only when it says as much on its own. A run that
/// reproduced the claim backs a supporting or a qualifying finding; only a
/// contradicting run backs a contradiction; any measured verdict backs an
/// unresolved one. An undecided run (a busy machine) backs no support, and
/// a run that reproduced the claim is never shown as contradicting it.
fn measurement_backs(group: EvidenceGroup, c: &ClaimResult) -> bool {
    let own = measured_group(&c.flagged(), c.prose_consistent);
    c.verdict != ClaimVerdict::Unrun
        && (own == group
            || group == EvidenceGroup::Unresolved
            || (group == EvidenceGroup::Qualifying && own == EvidenceGroup::Supporting))
}

/// The group and relation of a finding of the report.
fn finding_relation(kind: ReportFindingKind) -> (EvidenceGroup, &'static str) {
    match kind {
        ReportFindingKind::Supporting => (EvidenceGroup::Supporting, "SUPPORTS"),
        ReportFindingKind::Qualifying => (EvidenceGroup::Qualifying, "QUALIFIES"),
        ReportFindingKind::Contradictory => (EvidenceGroup::Contradictory, "CONTRADICTS"),
        ReportFindingKind::Unresolved => (EvidenceGroup::Unresolved, "UNCERTAIN"),
    }
}

/// The finding kind a group is written as in the report, if it is one.
fn kind_of(group: EvidenceGroup) -> Option<ReportFindingKind> {
    match group {
        EvidenceGroup::Supporting => Some(ReportFindingKind::Supporting),
        EvidenceGroup::Qualifying => Some(ReportFindingKind::Qualifying),
        EvidenceGroup::Contradictory => Some(ReportFindingKind::Contradictory),
        EvidenceGroup::Unresolved => Some(ReportFindingKind::Unresolved),
        EvidenceGroup::Competing | EvidenceGroup::Background => None,
    }
}

/// The ledger sources findings may cite, searched for all at once, so that
/// a report's findings are matched against its ledger in time linear in
/// their text (a finding tried against every source in turn made publish
/// quadratic: 10,000 findings and 10,000 sources took seconds).
struct Citations<'s> {
    sources: &'s [Source],
    /// URLs, arXiv ids and DOIs, found in a finding's text as written;
    /// `raw_of[k]` is the source of pattern `k`.
    raw: Option<AhoCorasick>,
    raw_of: Vec<usize>,
    /// Titles of 4 characters or more, lowercased, found in its text
    /// lowercased.
    titles: Option<AhoCorasick>,
    title_of: Vec<usize>,
    /// The first source with an empty URL, arXiv id or DOI: every finding
    /// holds the empty string.
    empty: Option<usize>,
}

impl<'s> Citations<'s> {
    fn new(sources: &'s [Source]) -> Self {
        let (mut raw, mut raw_of, mut titles, mut title_of) = (vec![], vec![], vec![], vec![]);
        let mut empty = None;
        for (i, s) in sources.iter().enumerate() {
            let ids = [&s.url, &s.identifiers.arxiv, &s.identifiers.doi];
            for p in ids.into_iter().flatten() {
                if p.is_empty() {
                    empty = empty.or(Some(i));
                } else {
                    raw.push(p.clone());
                    raw_of.push(i);
                }
            }
            if s.title.chars().count() >= 4 {
                titles.push(s.title.to_lowercase());
                title_of.push(i);
            }
        }
        let build = |patterns: Vec<String>| {
            (!patterns.is_empty())
                .then(|| AhoCorasick::new(patterns).ok())
                .flatten()
        };
        Citations {
            sources,
            raw: build(raw),
            raw_of,
            titles: build(titles),
            title_of,
            empty,
        }
    }

    /// The ledger source a finding cites: by URL, arXiv id, DOI or title;
    /// of several, the first in the ledger.
    fn cited(&self, f: &ReportFinding) -> Option<&'s Source> {
        let mut first = self.empty;
        let mut take = |i: usize| first = Some(first.map_or(i, |f| f.min(i)));
        if let Some(ac) = &self.raw {
            for m in ac.find_overlapping_iter(&f.raw) {
                take(self.raw_of[m.pattern().as_usize()]);
            }
        }
        if let Some(ac) = &self.titles {
            for m in ac.find_overlapping_iter(&f.text.to_lowercase()) {
                take(self.title_of[m.pattern().as_usize()]);
            }
        }
        first.map(|i| &self.sources[i])
    }
}

/// A measured claim as an item: the verdict in words is the evidence.
fn measured_item(
    c: &ClaimResult,
    e: &ClaimEvidence<'_>,
    relation: &'static str,
    rationale: String,
) -> EvidenceItem {
    let run = run_label(&e.run_id);
    let summary = format!(
        "{}; run {run} on {}, revision {}{}",
        verdict_in_words(c, SpreadWords::of(c, e.runs), &e.engine),
        e.environment,
        e.revision,
        if e.of_current_revision {
            ""
        } else {
            " (the chapter changed since)"
        }
    );
    EvidenceItem {
        relation,
        claim: c.quote.clone(),
        source: ItemSource {
            id: e.run_id.clone(),
            title: format!("research_companion experiment {run}"),
            authors: Vec::new(),
            year: Some(i64::from(chrono::Datelike::year(&e.recorded_at))),
            url: e.url.clone(),
        },
        evidence: ItemEvidence {
            tier: "EXPERIMENT".into(),
            tier_label: "Measured by research_companion".into(),
            section: c.id.clone(),
            summary,
        },
        interpretation: Interpretation { rationale },
    }
}

/// Why a measured verdict means what it does, when the report is silent.
fn measured_rationale(c: &ClaimResult) -> String {
    match c.verdict {
        _ if !c.quote_found => "The quoted sentence is not in the revision the run examined, so the verdict may not be about the prose any more.".to_string(),
        ClaimVerdict::Reproduced if c.magnitude_differs.is_some() => "The direction the chapter states holds; the size it gives does not.".into(),
        ClaimVerdict::Reproduced if c.magnitude_uncertain.is_some() => "The direction the chapter states holds; the run's rounds cannot tell whether the size it gives does.".into(),
        ClaimVerdict::Reproduced if !c.prose_consistent => format!(
            "The measurement agrees with the chapter's table, but the prose says {} where the table gives {}.",
            crate::text::format::number(c.stated),
            crate::text::format::number(c.published)
        ),
        ClaimVerdict::Reproduced => "The measurement agrees with the chapter's claim.".into(),
        ClaimVerdict::NotReproduced => "The measurement contradicts the chapter's claim.".into(),
        ClaimVerdict::Inconclusive => format!(
            "The measurement could not decide ({}); it is not evidence against the chapter.",
            c.reason.as_deref().unwrap_or("no reason recorded")
        ),
        ClaimVerdict::NotComparable => "The run cannot be compared with what the chapter measured.".into(),
        ClaimVerdict::Unrun => "No run has measured this claim yet.".into(),
    }
}

/// A finding as an item whose source is `source` (a ledger source it
/// cites), or else the research report itself.
fn reported_item(
    f: &ReportFinding,
    claim: String,
    section: String,
    source: Option<&Source>,
    r: &ReportEvidence<'_>,
) -> EvidenceItem {
    let (_, relation) = finding_relation(f.kind);
    let (source, tier, tier_label) = match source {
        Some(s) => {
            let status = s.status.as_deref().unwrap_or_default().to_lowercase();
            let (tier, label) = if status.contains("abstract") {
                ("ABSTRACT_EVIDENCE", "Abstract only")
            } else if status.contains("full") {
                ("FULL_TEXT", "Full text read")
            } else {
                ("REPORTED", "Reported by the research run")
            };
            let source = ItemSource {
                id: s.id.clone(),
                title: s.title.clone(),
                authors: s.authors.clone(),
                year: s.year,
                url: s.url.clone(),
            };
            (source, tier, label)
        }
        None => {
            let source = ItemSource {
                id: r.run_id.to_string(),
                title: format!("Research report of run {}", run_label(r.run_id)),
                authors: Vec::new(),
                year: Some(r.year),
                url: r.url.map(str::to_string),
            };
            (source, "RESEARCH_REPORT", "From the research report")
        }
    };
    EvidenceItem {
        relation,
        claim,
        source,
        evidence: ItemEvidence {
            tier: tier.into(),
            tier_label: tier_label.into(),
            summary: without_claim_id(&f.text, &section),
            section,
        },
        interpretation: Interpretation {
            rationale: format!(
                "{} in the findings of research run {}.",
                f.kind.name(),
                run_label(r.run_id)
            ),
        },
    }
}

/// The evidence relations: the report's findings first, in its order, then
/// the measured verdicts of the claims it does not name. A finding about a
/// measured claim is one relation with the measurement as its evidence, and
/// one more for the ledger source it cites, if any.
pub fn evidence_groups(e: Option<&ClaimEvidence<'_>>, r: &ReportEvidence<'_>) -> EvidenceGroups {
    let mut groups = EvidenceGroups::default();
    let measured = |id: &str| e.and_then(|e| e.claims.iter().find(|c| c.id == id).map(|c| (c, e)));
    let mut spoken: Vec<&str> = Vec::new();
    // Claims whose measurement stood as the evidence of a finding.
    let mut backed: Vec<&str> = Vec::new();
    let citations = Citations::new(r.sources);
    for f in &r.items.findings {
        let (group, relation) = finding_relation(f.kind);
        // A claim is named by its id (as written) or quoted.
        let named: Vec<&(String, String)> = r
            .claims
            .iter()
            .filter(|(id, quote)| names_claim(&f.raw, id) || quotes_claim(&f.text, quote))
            .collect();
        let source = citations.cited(f);
        if named.is_empty() {
            let item = reported_item(f, lead(&f.text), "Findings".into(), source, r);
            groups.push(group, item);
        }
        for (id, quote) in named {
            spoken.push(id);
            match measured(id) {
                Some((c, e)) if measurement_backs(group, c) => {
                    let why = without_claim_id(&f.text, id);
                    groups.push(group, measured_item(c, e, relation, why));
                    backed.push(id);
                    if source.is_some() {
                        let item = reported_item(f, quote.clone(), id.clone(), source, r);
                        groups.push(group, item);
                    }
                }
                _ => {
                    // The report's words stand as its own; the run, if it
                    // measured the claim, is shown where its verdict puts it.
                    let item = reported_item(f, quote.clone(), id.clone(), source, r);
                    groups.push(group, item);
                }
            }
        }
    }
    for c in e.map(|e| e.claims).unwrap_or_default() {
        let id = c.id.as_str();
        if backed.contains(&id) || (spoken.contains(&id) && c.verdict == ClaimVerdict::Unrun) {
            continue;
        }
        let Some(e) = e else { continue };
        let mut group = measured_group(&c.flagged(), c.prose_consistent);
        let mut rationale = measured_rationale(c);
        // The author's answer to the claim travels with the measurement.
        if let Some(answer) = r.items.response_to(id) {
            rationale = format!(
                "{rationale} The research run {} answered it: \"{answer}\".",
                run_label(r.run_id)
            );
        }
        if kind_of(group).is_some_and(|k| r.items.findings_none.contains(&k)) {
            rationale = format!(
                "{rationale} The research run {} says its {} findings hold nothing, so this stays unresolved.",
                run_label(r.run_id),
                kind_of(group).map_or("", |k| k.name()).to_lowercase()
            );
            group = EvidenceGroup::Unresolved;
        }
        groups.push(group, measured_item(c, e, "EMPIRICAL_EVIDENCE", rationale));
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::report_items::read;

    fn result(id: &str, verdict: ClaimVerdict) -> ClaimResult {
        ClaimResult {
            id: id.into(),
            quote: format!("the sentence of {id}"),
            location: String::new(),
            metric: "sleep.w8.ex_s / sleep.w0.ex_s".into(),
            stated: 7.4,
            published: 7.36,
            prose_consistent: true,
            measured: Some(7.79),
            ratio: Some(1.06),
            published_formula: String::new(),
            measured_formula: None,
            criterion: ">= 5".into(),
            magnitude_within: None,
            magnitude_differs: None,
            magnitude_uncertain: None,
            rounds: None,
            model_limit: None,
            start_in_window: None,
            verdict,
            reason: None,
            quote_found: true,
            closest_sentence: None,
        }
    }

    fn groups_of(report: &str, claims: &[ClaimResult]) -> EvidenceGroups {
        let items = read(report);
        let ids: Vec<(String, String)> = claims
            .iter()
            .map(|c| (c.id.clone(), c.quote.clone()))
            .collect();
        let e = ClaimEvidence {
            run_id: "experiment".into(),
            recorded_at: chrono::DateTime::UNIX_EPOCH,
            environment: "env".into(),
            engine: "the model".into(),
            revision: "abc".into(),
            of_current_revision: true,
            claims,
            runs: 1,
            url: None,
        };
        let r = ReportEvidence {
            run_id: "research",
            url: None,
            year: 2026,
            items: &items,
            sources: &[],
            claims: &ids,
        };
        evidence_groups(Some(&e), &r)
    }

    #[test]
    fn the_report_decides_but_only_a_contradicting_run_is_evidence_of_a_contradiction() {
        let claims = [
            result("a", ClaimVerdict::Reproduced),
            result("b", ClaimVerdict::NotReproduced),
        ];
        let g = groups_of(
            "## 4. Findings\n**Contradictory**\n- a: the docs say otherwise.\n- b: it fails.\n",
            &claims,
        );
        let sources: Vec<(&str, &str)> = g
            .contradictory
            .iter()
            .map(|i| (i.relation, i.source.id.as_str()))
            .collect();
        assert_eq!(
            sources,
            [("CONTRADICTS", "research"), ("CONTRADICTS", "experiment")],
            "a reproduced claim's run is not shown as contradicting it"
        );
        // It is shown where its own verdict puts it, beside the report's words.
        assert_eq!(g.supporting.len(), 1);
        assert_eq!(g.supporting[0].relation, "EMPIRICAL_EVIDENCE");
        assert_eq!(g.relations(), 3);
        // A group the report says is empty gets no measured item: the run
        // that disagrees is unresolved.
        let g = groups_of(
            "## 4. Findings\nContradictory: none that I trust.\n",
            &claims,
        );
        assert!(g.contradictory.is_empty());
        assert_eq!(g.supporting.len(), 1);
        assert_eq!(g.unresolved.len(), 1);
        assert_eq!(g.unresolved[0].relation, "EMPIRICAL_EVIDENCE");
        assert!(
            g.unresolved[0]
                .interpretation
                .rationale
                .contains("says its contradictory findings hold nothing")
        );
    }

    #[test]
    fn an_undecided_run_backs_no_support_the_report_gives() {
        let claims = [result("a", ClaimVerdict::Inconclusive)];
        let g = groups_of("## 4. Findings\n**Supporting**\n- a: it scales.\n", &claims);
        let supporting: Vec<&str> = g.supporting.iter().map(|i| i.source.id.as_str()).collect();
        assert_eq!(
            supporting,
            ["research"],
            "only the report's own words support"
        );
        assert_eq!(g.unresolved.len(), 1);
        assert_eq!(g.unresolved[0].source.id, "experiment");
        assert!(g.unresolved[0].evidence.summary.starts_with("INCONCLUSIVE"));
    }

    #[test]
    fn every_verdict_class_has_its_group() {
        let v = |class, flags| FlaggedVerdict { class, flags };
        use EvidenceGroup as G;
        assert_eq!(
            measured_group(&v(ClaimVerdict::Reproduced, vec![]), true),
            G::Supporting
        );
        assert_eq!(
            measured_group(
                &v(
                    ClaimVerdict::Reproduced,
                    vec![VerdictFlag::ModelLimit("r".into())]
                ),
                true
            ),
            G::Supporting
        );
        assert_eq!(
            measured_group(
                &v(
                    ClaimVerdict::Reproduced,
                    vec![VerdictFlag::MagnitudeDiffers(0.1)]
                ),
                true
            ),
            G::Qualifying
        );
        assert_eq!(
            measured_group(&v(ClaimVerdict::Reproduced, vec![]), false),
            G::Qualifying
        );
        assert_eq!(
            measured_group(&v(ClaimVerdict::NotReproduced, vec![]), true),
            G::Contradictory
        );
        assert_eq!(
            measured_group(&v(ClaimVerdict::NotComparable, vec![]), true),
            G::Qualifying
        );
        assert_eq!(
            measured_group(&v(ClaimVerdict::Unrun, vec![]), true),
            G::Unresolved
        );
    }
}
