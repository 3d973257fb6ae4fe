//! A long-lived chapter: hundreds of records. The research prompt's
//! section 7 and `publish`'s site data keep a bounded selection of the
//! history (the newest runs of each kind, runs of the current revision up
//! to a cap) and count the rest, saying where the whole history is.

use crate::helpers::{CHAPTER, Project, fixture_report, stdout};

/// Research runs and experiments to add: one research run in three.
const RUNS: usize = 300;

/// A project with the fixture records, one recorded research run, and
/// [`RUNS`] more made the way a long-lived book gathers them: copies of
/// the recorded research run and of the fixture experiment, each a record
/// file of its own, named by a later time and its own hash as the store
/// names records.
fn long_lived() -> Project {
    long_lived_with(RUNS)
}

/// [`long_lived`] with `runs` copies.
fn long_lived_with(runs: usize) -> Project {
    let p = Project::with_fixture_records();
    p.write("review.md", fixture_report("review-06.md"));
    let research = p.record(&["--report", "review.md"]);
    let dir = p.path(&format!("records/{CHAPTER}"));
    let name = |id: &str| {
        let (stem, _) = crate::helpers::run_stem_and_time(id);
        format!("{stem}.record.yaml")
    };
    let experiment = "pytorch-from-first-principles:06:20261102T120000:bbbbbbbbbbbb";
    let templates = [
        (
            research.clone(),
            std::fs::read_to_string(dir.join(name(&research))).unwrap(),
        ),
        (
            experiment.to_string(),
            std::fs::read_to_string(dir.join(name(experiment))).unwrap(),
        ),
    ];
    let recorded_at = |text: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix("recorded_at: "))
            .unwrap()
            .to_string()
    };
    for i in 0..runs {
        let (id, text) = &templates[usize::from(i % 3 != 0)];
        // Every minute from 2030 on: later than anything recorded today.
        let (day, minute) = (1 + i / 1440, i % 1440);
        let stamp = format!("203001{day:02}T{:02}{:02}00", minute / 60, minute % 60);
        let iso = format!(
            "'2030-01-{day:02}T{:02}:{:02}:00Z'",
            minute / 60,
            minute % 60
        );
        let hex = format!("{:012x}", 0xc0ffee000000_u64 + i as u64);
        let new_id = format!("pytorch-from-first-principles:06:{stamp}:{hex}");
        let copy = text
            .replace(id.as_str(), &new_id)
            .replace(&recorded_at(text), &iso);
        std::fs::write(dir.join(format!("{stamp}-{hex}.record.yaml")), copy).unwrap();
    }
    p
}

#[test]
fn the_prompt_and_publish_keep_a_bounded_history_and_count_the_rest() {
    let p = long_lived();
    // Every run is still in `history`.
    let history = stdout(&p.cmd().args(["history", "06"]).output().unwrap());
    assert!(history.lines().count() > RUNS, "{history}");

    let out = p.cmd().args(["prompt", "06"]).output().unwrap();
    assert!(out.status.success());
    let prompt = stdout(&out);
    assert!(prompt.len() <= 64 * 1024, "{} bytes", prompt.len());
    let section = &prompt[prompt.find("== 7. Research history ==").unwrap()
        ..prompt.find("== 8. How to investigate ==").unwrap()];
    let listed: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with("- pytorch-from-first-principles:06:"))
        .collect();
    // All runs are of the current revision: the 5 newest research runs and
    // 5 newest experiments, then more of them up to 20 in all.
    assert_eq!(listed.len(), 20, "{section}");
    let research = listed
        .iter()
        .filter(|l| l.contains("examined revision"))
        .count();
    let experiments = listed
        .iter()
        .filter(|l| l.contains("an experiment on revision"))
        .count();
    assert!(research >= 5 && experiments >= 5, "{section}");
    // The newest run of all is first.
    assert!(
        listed[0].starts_with("- pytorch-from-first-principles:06:20300101T045900:"),
        "{section}"
    );
    // The 303 runs in all (the fixture's two, the recorded one, the copies)
    // less the 20 listed: 102 research runs and 201 experiments in all.
    let (more_research, more_experiments) = (102 - research, 201 - experiments);
    assert!(
        section.contains(&format!(
            "Not listed here: 283 more runs: {more_experiments} experiments, {more_research} research runs (all of the current revision). `research_companion history pytorch-from-first-principles/06` lists every run, and records/pytorch-from-first-principles/06/ holds their records."
        )),
        "{section}"
    );
    assert!(
        section.contains("(a selection, to keep this brief short: the 5 newest research runs, 5 newest experiments and 3 newest notebook runs, then runs of the current revision up to 20 in all)"),
        "{section}"
    );

    let out = p.cmd().args(["publish", "06"]).output().unwrap();
    assert!(out.status.success());
    let data = stdout(&out);
    assert!(data.len() <= 200 * 1024, "{} bytes", data.len());
    let yaml: serde_json::Value = serde_yaml::from_str(&data).unwrap();
    let sources = yaml["sources"].as_array().unwrap();
    assert!(!sources.is_empty(), "{data}");
    for s in sources {
        let provenance = s["provenance"].as_array().unwrap();
        // The five newest research runs whose ledgers hold it, then a count
        // of the other 96 (the fixture's own report has no such ledger).
        assert_eq!(provenance.len(), 6, "{s:?}");
        assert!(
            provenance[0]
                .as_str()
                .unwrap()
                .starts_with("source ledger of research run 20300101T"),
            "{s:?}"
        );
        assert_eq!(
            provenance[5],
            "and the source ledgers of 96 earlier research runs (research_companion history pytorch-from-first-principles/06 lists them)"
        );
    }
}

#[test]
fn publish_reads_the_newest_200_complete_reports_and_says_the_older_ledgers_were_not_read() {
    // 240 research runs in all: the recorded one, 238 copies, the fixture's.
    let p = long_lived_with(714);
    let out = p.cmd().args(["publish", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", crate::helpers::stderr(&out));
    let data = stdout(&out);
    let yaml: serde_json::Value = serde_yaml::from_str(&data).unwrap();
    let sources = yaml["sources"].as_array().unwrap();
    assert!(!sources.is_empty(), "{data}");
    for s in sources {
        let provenance = s["provenance"].as_array().unwrap();
        // The five newest of the 200 read, the other 195 read counted, and
        // the 40 complete ones before them (the fixture's included) named
        // as not read.
        assert_eq!(provenance.len(), 7, "{s:?}");
        assert_eq!(
            provenance[5],
            "and the source ledgers of 195 earlier research runs (research_companion history pytorch-from-first-principles/06 lists them)"
        );
        assert_eq!(
            provenance[6],
            "the source ledgers of 40 older research runs were not read (research_companion history pytorch-from-first-principles/06 lists them)"
        );
    }
}
