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

/// A realistic report of chapter 06 (two sources, one an arXiv paper;
/// an UNVERIFIED mark in a table cell; an UNRUN experiment).
const REVIEW: &str = include_str!("../../../tests/fixtures/reports/review-06.md");

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
    assert_eq!(items.gaps[0].gap, "UNVERIFIED", "the cell, not the row");
    assert_eq!(items.audit.len(), 2);
    assert_eq!(items.audit[0].verdict.as_deref(), Some("REPRODUCED"));
    assert_eq!(items.audit[0].response.as_deref(), Some("keep"));
    assert_eq!(items.audit[1].key(), "spin-wait");
    assert_eq!(items.audit[1].quote(), Some("waits 28.1 ms"));
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
fn every_unverified_mark_is_one_gap_with_its_sentence_or_cell() {
    let text = "## 1. Context and provenance\nUNVERIFIED: the VM's HZ. Also UNVERIFIED twice, in **bold**.\n\
## 2. Claim audit\n| claim | x |\n| --- | --- |\n| c1 | `UNVERIFIED` on [8 cores](https://x.org) |\n";
    let items = read(text);
    assert_eq!(items.gaps.len(), 3);
    assert_eq!(items.gaps[0].claim, "1. Context and provenance");
    assert_eq!(items.gaps[0].gap, "UNVERIFIED: the VM's HZ.");
    assert_eq!(items.gaps[1].gap, "Also UNVERIFIED twice, in bold.");
    assert_eq!(items.gaps[2].claim, "c1");
    assert_eq!(items.gaps[2].gap, "UNVERIFIED on 8 cores");
    assert_eq!(
        items.gaps.len(),
        super::super::report::check(text).unverified_markers
    );
}

#[test]
fn a_realistic_report_yields_its_ledger_findings_and_unrun_experiments() {
    let items = read(REVIEW);
    assert!(items.unparsed.is_empty(), "{:?}", items.unparsed);
    assert_eq!(items.sources.len(), 2);
    let paper = &items.sources[1];
    assert_eq!(paper.arxiv.as_deref(), Some("2101.12127"));
    assert_eq!(paper.status.as_deref(), Some("abstract only"));
    assert!(paper.not_used(), "{paper:?}");
    assert!(!items.sources[0].not_used());
    assert_eq!(
        items.sources[0].bears_on.as_deref(),
        Some("spin-454-vs-449")
    );

    assert_eq!(items.gaps.len(), 1);
    assert_eq!(
        items.gaps[0].gap,
        "the fall on the real DataLoader is UNVERIFIED: only the model measured it"
    );
    assert!(
        items.gaps[0]
            .claim
            .starts_with("spin-wait-mean-62.8-to-28.1: ")
    );

    let kinds: Vec<ReportFindingKind> = items.findings.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [
            ReportFindingKind::Supporting,
            ReportFindingKind::Supporting,
            ReportFindingKind::Qualifying,
            ReportFindingKind::Unresolved
        ]
    );
    assert_eq!(items.findings_none, [ReportFindingKind::Contradictory]);
    assert!(
        items.findings[1]
            .raw
            .contains("](https://pytorch.org/docs/stable/data.html)")
    );
    assert!(
        items.findings[1]
            .text
            .contains("the torch.utils.data documentation")
    );
    assert_eq!(items.audit.len(), 6);
    assert_eq!(
        items.audit[1].response.as_deref(),
        Some("say \"on one CPU\" beside 454 and 449")
    );

    assert_eq!(items.unrun.len(), 1, "{:?}", items.unrun);
    assert!(
        items.unrun[0]
            .description
            .starts_with("Measure the spinning pipeline's wait at 0 and 8 workers"),
        "{:?}",
        items.unrun[0]
    );
    assert!(
        items.unrun[0].details.starts_with("Success: "),
        "{:?}",
        items.unrun[0]
    );
}

#[test]
fn findings_groups_are_read_in_every_way_a_report_writes_them() {
    let text = "## 4. Findings\n\n### Supporting evidence\n\nc1 holds, as the run shows.\n\n\
### Contradictory\n\nNone.\n\nQualifying: c2 only on one CPU.\n\
- Supporting the claim, a bullet that is not a heading\n";
    let items = read(text);
    let got: Vec<(ReportFindingKind, &str)> = items
        .findings
        .iter()
        .map(|f| (f.kind, f.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (ReportFindingKind::Supporting, "c1 holds, as the run shows."),
            (ReportFindingKind::Qualifying, "c2 only on one CPU."),
            (
                ReportFindingKind::Qualifying,
                "Supporting the claim, a bullet that is not a heading"
            ),
        ]
    );
    assert_eq!(items.findings_none, [ReportFindingKind::Contradictory]);
}

#[test]
fn a_cell_or_sentence_marked_twice_is_one_gap() {
    let text = "## 1. Context and provenance\nUNVERIFIED and UNVERIFIED again. UNVERIFIED once.\n\
## 2. Claim audit\n| claim | evidence |\n|---|---|\n| c1 | UNVERIFIED, UNVERIFIED | \n";
    let gaps: Vec<String> = read(text).gaps.into_iter().map(|g| g.gap).collect();
    assert_eq!(
        gaps,
        [
            "UNVERIFIED and UNVERIFIED again.",
            "UNVERIFIED once.",
            "UNVERIFIED, UNVERIFIED"
        ]
    );
}
