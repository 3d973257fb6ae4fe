//! What `record --report` accepts is what every reader of the record can
//! carry (issue 51, class 5): at most 2 MiB and 10,000 source-ledger rows,
//! refused past that with one line and nothing stored; prompt and report
//! carry the first 200 ledger rows and leads and count the rest, so even a
//! larger report stored by an older version leaves them working.

use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::helpers::{CHAPTER, Project, stderr, stdout};

/// A guard against a hang only; no time is asserted.
const HANG_GUARD: Duration = Duration::from_secs(120);

/// A complete report of chapter 06 whose ledger has `rows` distinct
/// sources (every 7th marked UNVERIFIED, every 10th not used), whose claim
/// audit has a cell marked UNVERIFIED twice, and whose first section is
/// padded with `padding` bytes of prose.
fn report(rows: usize, padding: usize) -> String {
    let mut s = String::from(
        "# Review of chapter 06\n\n## 1. Context and provenance\nRead on 2026-12-01.\n",
    );
    let line = "Padding prose of the context section, one line of it.\n";
    let mut pad = 0;
    while pad + line.len() <= padding {
        s.push_str(line);
        pad += line.len();
    }
    s.push_str(
        "\n## 2. Claim audit\n\n| claim | where | latest verdict | evidence | concern | priority | response |\n|---|---|---|---|---|---|---|\n\
| spin-454-vs-449: \"454 vs 449\" | opening | REPRODUCED | twice-marked UNVERIFIED cell, UNVERIFIED again | none | low | keep |\n\n\
## 3. Source ledger\n\n| source | authors | year | url | reading status | claim it bears on | limitations |\n|---|---|---|---|---|---|---|\n",
    );
    for i in 0..rows {
        let bears = if i % 10 == 9 {
            "none: not used"
        } else {
            "spin-454-vs-449"
        };
        let limit = if i % 7 == 3 {
            format!("UNVERIFIED in row {i}")
        } else {
            "own runtime".to_string()
        };
        s.push_str(&format!(
            "| Source {i} | A{i} | {} | https://arxiv.org/abs/{:04}.{:05} | read | {bears} | {limit} |\n",
            2000 + i % 26,
            2100 + i / 90_000,
            i % 90_000 + 10_000
        ));
    }
    s.push_str(
        "\n## 4. Findings\n\n**Supporting**\n- sleep-speedup-7.4x: the recorded run scales 7.79x.\n\n\
## 5. Upgrade proposal\n\n- Say one CPU beside 454 and 449.\n\n\
## 6. Experiment opportunities\n\n- Measure on the real DataLoader: UNRUN.\n\n\
## 7. Review checklist\n\n- [x] accept the proposal\n",
    );
    s
}

fn run(p: &Project, args: &[&str]) -> std::process::Output {
    p.cmd().args(args).timeout(HANG_GUARD).output().unwrap()
}

#[test]
fn a_report_past_either_bound_is_refused_in_one_line_and_nothing_is_stored() {
    let p = Project::seeded();
    let rows = report(10_001, 0);
    assert!(rows.len() < 2 << 20, "{}", rows.len());
    p.write("rows.md", &rows);
    let big = report(10, 2 << 20);
    assert!(big.len() > 2 << 20);
    p.write("big.md", &big);
    let before = p.state();
    for (file, says) in [
        (
            "rows.md",
            "the source ledger has 10001 rows, more than the 10000 a recorded report may hold; nothing was stored",
        ),
        (
            "big.md",
            "more than the 2097152-byte (2 MiB) limit of a recorded report; nothing was stored",
        ),
    ] {
        let out = run(&p, &["record", "06", "--report", file]);
        assert_eq!(out.status.code(), Some(2), "{file}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(file) && err.contains(says), "{err}");
        assert_eq!(p.state(), before, "{file}: something was stored");
    }
}

/// The leads section of a prompt: from its heading to the next section.
fn leads(prompt: &str) -> &str {
    let start = prompt.find("Unverified leads").expect(prompt);
    let end = prompt[start..]
        .find("\n== ")
        .map_or(prompt.len(), |e| start + e);
    &prompt[start..end]
}

#[test]
fn a_report_just_under_the_bounds_is_recorded_and_every_reader_carries_it() {
    let p = Project::seeded();
    let text = report(10_000, 0);
    let text = report(10_000, (2 << 20) - text.len() - 100);
    assert!(
        text.len() <= 2 << 20 && text.len() > (2 << 20) - 200,
        "{}",
        text.len()
    );
    p.write("report.md", &text);
    let out = run(&p, &["record", "06", "--report", "report.md"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let out = run(&p, &["prompt", "06"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let prompt = stdout(&out);
    assert!(
        prompt.contains("- and 9800 more sources in the ledger of research run"),
        "{prompt}"
    );
    assert!(prompt.contains("Source 199 (") && !prompt.contains("Source 200 ("));
    // One lead for the claim-audit cell marked twice, then the ledger's:
    // 1,429 rows marked, of which 199 are shown.
    let l = leads(&prompt);
    assert_eq!(l.matches("twice-marked UNVERIFIED cell").count(), 1, "{l}");
    assert_eq!(
        l.lines().filter(|x| x.starts_with("- ")).count(),
        201,
        "{l}"
    );
    assert!(l.contains("- and 1230 more leads, not listed here"), "{l}");

    let out = run(&p, &["report", "06"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "The latest research run's ledger holds 9800 more sources, not carried into this draft"
        ),
        "{}",
        stdout(&out)
    );

    let out = run(&p, &["publish", "06"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let site: serde_yaml::Value = serde_yaml::from_slice(&out.stdout).unwrap();
    assert_eq!(site["summary"]["sources"].as_u64(), Some(10_000));
    assert_eq!(
        site["negative_findings"].as_sequence().map(Vec::len),
        Some(1_000)
    );

    let out = run(&p, &["site", "--out", "site"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_larger_report_an_older_version_stored_leaves_every_reader_working() {
    let p = Project::seeded();
    let small = report(2, 0);
    p.write("report.md", &small);
    let out = run(&p, &["record", "06", "--report", "report.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // What an older version stored: past both bounds, in rows and in bytes,
    // and past the 4 MiB of reports the site shows on a page (the bytes are
    // prose, which no reader lists, so that the run stays short).
    let dir = p.path(&format!("records/{CHAPTER}"));
    let file = |suffix: &str| {
        std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|f| f.to_string_lossy().ends_with(suffix))
            .unwrap()
    };
    let rows = 12_000;
    let big = report(rows, 9 << 19);
    assert!(rows > research_companion::records::report::MAX_LEDGER_ROWS);
    assert!(big.len() > 4 << 20);
    std::fs::write(file(".report.md"), &big).unwrap();
    let record = file(".record.yaml");
    let hex = |t: &str| {
        Sha256::digest(t.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let yaml = std::fs::read_to_string(&record)
        .unwrap()
        .replace(&hex(&small), &hex(&big))
        .replace(
            &format!("bytes: {}\n", small.len()),
            &format!("bytes: {}\n", big.len()),
        )
        .replace(
            "source_ledger_rows: 2\n",
            &format!("source_ledger_rows: {rows}\n"),
        );
    std::fs::write(&record, yaml).unwrap();

    for cmd in ["report", "publish"] {
        let out = run(&p, &[cmd, "06"]);
        assert!(out.status.success(), "{cmd}: {}", stderr(&out));
    }
    let out = run(&p, &["prompt", "06"]);
    assert!(out.status.success(), "prompt: {}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("- and {} more sources", rows - 200)),
        "{}",
        stdout(&out)
    );
    // The site links the report instead of showing it, and the chapter
    // has its page.
    let out = run(&p, &["site", "--out", "site"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = std::fs::read_to_string(p.path(&format!("site/{CHAPTER}.html"))).unwrap();
    assert!(
        page.contains("is too large to show on this page"),
        "{}",
        page.len()
    );
}
