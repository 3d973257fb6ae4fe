//! The book's theme prints `publish`'s prose as it is (titles, summaries,
//! "Why it matters", stale reasons, opportunities, provenance lines) and
//! cannot wrap a long word: a whole run id in that prose
//! (`pytorch-from-first-principles:06:20261206T064413:51443635b088`, 58
//! characters) made its research page 417-426 px wide at 390 px (issue 52,
//! found by real_theme in Chromium). The prose names a run by its record's
//! stem instead; the id fields keep the whole id.

use serde_yaml::Value;

use crate::helpers::{Project, fixture_report, run_stem_and_time, stderr};

/// Keys whose values are ids or addresses, not prose: the theme prints
/// `run_id` only inside `<code>` in a closed "Research run details", and
/// links a `url` as "Source link" and a chapter by its `public_path`.
const ID_KEYS: [&str; 5] = ["id", "run_id", "previous_run_id", "url", "public_path"];

/// The longest word (between spaces, outside an http address) a reader on
/// a 390 px screen can be shown: the 28 characters of a stem fit in the
/// theme's column, the 58 of a whole run id do not.
const LONGEST_WORD: usize = 36;

fn publish(p: &Project) -> Value {
    let out = p.cmd().args(["publish", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_yaml::from_slice(&out.stdout).unwrap()
}

/// Every prose string of `v` with where it is (`sections.x[0].reason`).
fn prose(v: &Value, at: String, out: &mut Vec<(String, String)>) {
    match v {
        Value::Mapping(m) => {
            for (k, val) in m {
                let k = k.as_str().unwrap_or_default();
                if !(ID_KEYS.contains(&k) && val.is_string()) {
                    prose(val, format!("{at}.{k}"), out);
                }
            }
        }
        Value::Sequence(s) => {
            for (i, x) in s.iter().enumerate() {
                prose(x, format!("{at}[{i}]"), out);
            }
        }
        Value::String(s) => out.push((at, s.clone())),
        _ => {}
    }
}

/// Checks one published state: no run id and no overlong word in its
/// prose, each run named there by its stem, the ids whole in the id fields.
fn check(state: &str, v: &Value, runs: &[&str], latest: &str) {
    let mut texts = Vec::new();
    prose(v, String::new(), &mut texts);
    let all = texts
        .iter()
        .map(|(_, t)| t.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    for (at, text) in &texts {
        for run in runs {
            assert!(
                !text.contains(run),
                "{state}: {at} names a run by its whole id: {text}"
            );
        }
        for word in text.split_whitespace() {
            assert!(
                word.starts_with("http") || word.chars().count() <= LONGEST_WORD,
                "{state}: {at} has a word of {} characters the theme cannot wrap: {word:?} in {text}",
                word.chars().count()
            );
        }
    }
    let (stem, _) = run_stem_and_time(latest);
    for needle in [
        format!("in the findings of research run {stem}"),
        format!("source ledger of research run {stem}"),
    ] {
        assert!(all.contains(&needle), "{state}: no {needle:?} in\n{all}");
    }
    for at in [
        &v["research"]["run_id"],
        &v["status_card"]["run_id"],
        &v["provenance"]["run_id"],
    ] {
        assert_eq!(at, latest, "{state}: the id fields keep the whole id");
    }
}

#[test]
fn publish_names_runs_in_its_prose_by_a_word_a_phone_can_show() {
    let p = Project::seeded();
    let experiment = p.record_fixture_run();
    p.write("review.md", fixture_report("review-06.md"));
    let first = p.record(&["--report", "review.md"]);
    let v = publish(&p);
    check("researched", &v, &[&experiment, &first], &first);
    let (experiment_stem, _) = run_stem_and_time(&experiment);
    let measured = &v["sections"]["existing_evidence"]["supporting"][0];
    assert_eq!(measured["source"]["id"], experiment.as_str());
    assert_eq!(
        measured["source"]["title"],
        format!("research_companion experiment {experiment_stem}").as_str()
    );

    // Stale: the reason names the run the research examined.
    let text =
        std::fs::read_to_string(p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt")).unwrap();
    p.write("revised.txt", format!("{text}\nOne more sentence.\n"));
    p.cmd()
        .args(["snapshot", "add", "06", "revised.txt"])
        .assert()
        .success();
    let v = publish(&p);
    check("stale", &v, &[&experiment, &first], &first);
    let reason = v["research"]["stale_reasons"][0].as_str().unwrap();
    let (first_stem, _) = run_stem_and_time(&first);
    assert!(
        reason.starts_with(&format!(
            "the chapter changed since research run {first_stem} examined it: "
        )),
        "{reason}"
    );
    // The CLI is not bound by a column's width: it keeps the whole id.
    let status = p.cmd().arg("status").output().unwrap();
    assert!(
        String::from_utf8_lossy(&status.stdout).contains(&first),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );

    // A second research run: both runs named, the previous one's id whole.
    let second = p.record(&["--report", "review.md"]);
    let v = publish(&p);
    check("second run", &v, &[&experiment, &first, &second], &second);
    assert_eq!(v["research"]["previous_run_id"], first.as_str());
    assert_eq!(v["provenance"]["previous_run_id"], first.as_str());
}
