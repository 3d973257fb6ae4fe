//! `publish` carries the evidence to the book's site. The output
//! is checked against the schema in research-site-schema.md (keys, order and
//! types), for every research state, and every count against its list.

use serde_yaml::Value;

use crate::helpers::{Project, exclusive as lock, stderr, stdout};

/// A finished report: two source-ledger rows, one UNVERIFIED mark, one
/// upgrade proposal.
const REPORT: &str = "# Review of chapter 06\n\n\
## 1. Context and provenance\nRead the excerpt on 2026-11-30.\n\n\
## 2. Claim audit\n\n| claim | where | latest verdict | response |\n|---|---|---|---|\n\
| sleep-speedup-7.4x | opening | REPRODUCED | keep |\n\
| spin-454-vs-449 | table 2 | UNVERIFIED on 8 cores | re-run |\n\n\
## 3. Source ledger\n\n| source | authors | year | url |\n|---|---|---|---|\n\
| PyTorch DataLoader docs | PyTorch team | 2025 | https://pytorch.org/docs/stable/data.html |\n\
| CFS scheduler design | Ingo Molnar | 2007 | https://docs.kernel.org/scheduler/sched-design-CFS.html |\n\n\
## 4. Findings\nSupporting.\n\n## 5. Upgrade proposal\n\n### spin-454-vs-449\n\n\
- Proposed text: Give the CPU count beside the 454 and 449.\n\n\
## 6. Experiment opportunities\nNone.\n\n## 7. Review checklist\n- [x] accept: the chapter stands\n";

fn publish(p: &Project) -> Value {
    let out = p.cmd().args(["publish", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_yaml::from_slice(&out.stdout).unwrap()
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_mapping()
        .unwrap_or_else(|| panic!("not a mapping: {v:?}"))
        .keys()
        .map(|k| k.as_str().unwrap())
        .collect()
}

/// The keys of `v` are exactly `want`, in order, and each value has the
/// type its spec names: `s` string, `i` integer, `b` bool, `l` list, `m`
/// mapping, `n` null, combined with `|`.
fn fields(v: &Value, at: &str, want: &[(&str, &str)]) {
    assert_eq!(
        keys(v),
        want.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        "keys of {at}"
    );
    for (k, spec) in want {
        let x = &v[*k];
        let ok = spec.split('|').any(|t| match t {
            "s" => x.is_string(),
            "i" => x.is_u64() || x.is_i64(),
            "b" => x.is_bool(),
            "l" => x.is_sequence(),
            "m" => x.is_mapping(),
            "n" => x.is_null(),
            other => panic!("unknown type {other}"),
        });
        assert!(ok, "{at}.{k} should be {spec}, is {x:?}");
    }
}

fn each(v: &Value, at: &str, check: impl Fn(&Value, &str)) {
    for (i, item) in v.as_sequence().unwrap().iter().enumerate() {
        check(item, &format!("{at}[{i}]"));
    }
}

fn len(v: &Value) -> u64 {
    v.as_sequence().unwrap().len() as u64
}

/// The opportunities to run the chapter's experiment, leaving out the one
/// to run its notebook (the fixture chapter has a notebook and no run of it).
fn experiments_to_run(v: &Value) -> u64 {
    let all = v["sections"]["experiment_opportunities"]
        .as_sequence()
        .unwrap();
    let notebook = |o: &&Value| o["description"].as_str().unwrap().contains("notebook run");
    assert_eq!(all.iter().filter(notebook).count(), 1, "{all:?}");
    all.iter().filter(|o| !notebook(o)).count() as u64
}

/// Everything research-site-schema.md lists, with its type, and every
/// count equal to the length of the list it counts.
fn assert_site_schema(v: &Value) {
    fields(
        v,
        "",
        &[
            ("schema", "s"),
            ("generator", "s"),
            ("book", "m"),
            ("chapter", "m"),
            ("research", "m"),
            ("summary", "m"),
            ("delta", "n|m"),
            ("sections", "m"),
            ("sources", "l"),
            ("missing_evidence", "l"),
            ("negative_findings", "l"),
            ("status_card", "m"),
            ("actions", "m"),
            ("provenance", "m"),
        ],
    );
    assert_eq!(v["schema"], "programmer.research.chapter.v1");
    fields(&v["book"], "book", &[("id", "s"), ("title", "s")]);
    fields(
        &v["chapter"],
        "chapter",
        &[
            ("id", "s"),
            ("title", "s"),
            ("slug", "s"),
            ("public_path", "s"),
        ],
    );
    fields(
        &v["research"],
        "research",
        &[
            ("state", "s"),
            ("run_id", "s|n"),
            ("previous_run_id", "s|n"),
            ("last_researched", "s|n"),
            ("execution_kind", "s|n"),
            ("stale_reasons", "l"),
        ],
    );
    let counts = [
        "sources",
        "evidence_relations",
        "supporting",
        "qualifying",
        "contradictory",
        "background",
        "limitations",
        "open_gaps",
    ];
    fields(&v["summary"], "summary", &counts.map(|k| (k, "i")));
    if !v["delta"].is_null() {
        fields(
            &v["delta"],
            "delta",
            &[
                "relations_reused",
                "relations_revalidated",
                "relations_removed",
                "papers_new",
                "claims_added",
                "claims_changed",
                "claims_removed",
            ]
            .map(|k| (k, "i")),
        );
    }
    let s = &v["sections"];
    fields(
        s,
        "sections",
        &[
            ("current_thesis", "l"),
            ("existing_evidence", "m"),
            ("new_literature", "l"),
            ("missing_evidence", "l"),
            ("limitations", "l"),
            ("experiment_opportunities", "l"),
            ("bibliography_additions", "l"),
            ("recommended_actions", "l"),
            ("do_not_strengthen", "l"),
        ],
    );
    each(&s["current_thesis"], "current_thesis", |t, at| {
        fields(
            t,
            at,
            &[("section", "s"), ("claims", "l"), ("concepts", "l")],
        )
    });
    let groups = [
        "supporting",
        "qualifying",
        "competing",
        "contradictory",
        "background",
        "unresolved",
    ];
    fields(
        &s["existing_evidence"],
        "existing_evidence",
        &groups.map(|g| (g, "l")),
    );
    for g in groups {
        each(&s["existing_evidence"][g], g, |e, at| {
            fields(
                e,
                at,
                &[
                    ("relation", "s"),
                    ("claim", "s"),
                    ("source", "m"),
                    ("evidence", "m"),
                    ("interpretation", "m"),
                ],
            );
            fields(
                &e["source"],
                at,
                &[
                    ("id", "s"),
                    ("title", "s"),
                    ("authors", "l"),
                    ("year", "i|n"),
                    ("url", "s|n"),
                ],
            );
            fields(
                &e["evidence"],
                at,
                &[
                    ("tier", "s"),
                    ("tier_label", "s"),
                    ("section", "s"),
                    ("summary", "s"),
                ],
            );
            fields(&e["interpretation"], at, &[("rationale", "s")]);
            let relations = [
                "SUPPORTS",
                "EXTENDS",
                "QUALIFIES",
                "CONTRADICTS",
                "ALTERNATIVE",
                "BACKGROUND",
                "METHOD",
                "EMPIRICAL_EVIDENCE",
                "LIMITATION",
                "SUPERSEDES",
                "UNCERTAIN",
            ];
            assert!(relations.contains(&e["relation"].as_str().unwrap()), "{at}");
        });
    }
    each(&s["new_literature"], "new_literature", |t, at| {
        fields(t, at, &[("title", "s"), ("year", "i|n")])
    });
    for list in [&s["missing_evidence"], &v["missing_evidence"]] {
        each(list, "missing_evidence", |t, at| {
            fields(t, at, &[("claim", "s"), ("gap", "s")])
        });
    }
    each(&s["limitations"], "limitations", |t, at| {
        assert!(t.is_string(), "{at}")
    });
    each(
        &s["experiment_opportunities"],
        "experiment_opportunities",
        |t, at| fields(t, at, &[("description", "s"), ("reason", "s")]),
    );
    each(
        &s["bibliography_additions"],
        "bibliography_additions",
        |t, at| {
            fields(
                t,
                at,
                &[
                    ("title", "s"),
                    ("year", "i|n"),
                    ("status", "s"),
                    ("reason", "s"),
                ],
            )
        },
    );
    each(&s["recommended_actions"], "recommended_actions", |t, at| {
        fields(t, at, &[("recommendation", "s")])
    });
    each(&v["sources"], "sources", |t, at| {
        fields(
            t,
            at,
            &[
                ("id", "s"),
                ("title", "s"),
                ("authors", "l"),
                ("year", "i|n"),
                ("venue", "s|n"),
                ("status", "s|n"),
                ("url", "s|n"),
                ("identifiers", "m"),
                ("provenance", "l"),
            ],
        );
        fields(&t["identifiers"], at, &[("arxiv", "s|n"), ("doi", "s|n")]);
    });
    each(&v["negative_findings"], "negative_findings", |t, at| {
        fields(t, at, &[("paper", "m"), ("finding", "s")]);
        fields(&t["paper"], at, &[("id", "s"), ("title", "s")]);
    });
    fields(
        &v["status_card"],
        "status_card",
        &[
            ("state", "s"),
            ("sources", "i"),
            ("evidence_relations", "i"),
            ("open_gaps", "i"),
            ("last_researched", "s|n"),
            ("run_id", "s|n"),
        ],
    );
    fields(&v["actions"], "actions", &[("research_available", "b")]);
    fields(
        &v["provenance"],
        "provenance",
        &[
            ("run_id", "s|n"),
            ("previous_run_id", "s|n"),
            ("research_schema", "s|n"),
            ("publication_schema", "s"),
        ],
    );

    // Every count is the length of what it counts.
    let sum = &v["summary"];
    let ev = &s["existing_evidence"];
    assert_eq!(sum["sources"], len(&v["sources"]));
    assert_eq!(
        sum["evidence_relations"],
        groups.iter().map(|g| len(&ev[*g])).sum::<u64>()
    );
    for g in ["supporting", "qualifying", "contradictory", "background"] {
        assert_eq!(sum[g], len(&ev[g]), "summary.{g}");
    }
    assert_eq!(sum["limitations"], len(&s["limitations"]));
    assert_eq!(sum["open_gaps"], len(&v["missing_evidence"]));
    assert_eq!(len(&v["missing_evidence"]), len(&s["missing_evidence"]));
    for k in ["sources", "evidence_relations", "open_gaps"] {
        assert_eq!(v["status_card"][k], sum[k], "status_card.{k}");
    }
    assert_eq!(v["status_card"]["state"], v["research"]["state"]);
    // What the example data means by these: something was researched.
    let researched = v["research"]["state"] != "NEVER_RESEARCHED";
    assert_eq!(v["actions"]["research_available"], researched);
    assert_eq!(v["provenance"]["research_schema"].is_string(), researched);
}

#[test]
fn every_state_keeps_the_schema_and_counts_its_lists() {
    let _g = lock();
    // Never researched, nothing run: no evidence, the experiment to run.
    let p = Project::seeded();
    let v = publish(&p);
    assert_site_schema(&v);
    assert_eq!(v["research"]["state"], "NEVER_RESEARCHED");
    assert_eq!(v["actions"]["research_available"], false);
    assert!(v["provenance"]["research_schema"].is_null());
    assert_eq!(experiments_to_run(&v), 1);

    // Current, with a filled report and an experiment of six claims.
    let experiment = p.record_fixture_run();
    p.write("report.md", REPORT);
    p.record(&["--report", "report.md"]);
    let v = publish(&p);
    assert_site_schema(&v);
    assert_eq!(v["research"]["state"], "CURRENT");
    assert_eq!(len(&v["sources"]), 2, "two source-ledger rows");
    assert_eq!(v["sources"][1]["title"], "CFS scheduler design");
    assert_eq!(v["sources"][1]["year"], 2007);
    assert_eq!(len(&v["missing_evidence"]), 1, "one UNVERIFIED mark");
    assert_eq!(v["missing_evidence"][0]["claim"], "spin-454-vs-449");
    assert_eq!(v["summary"]["evidence_relations"], 6, "six claim verdicts");
    let item = &v["sections"]["existing_evidence"]["supporting"][0];
    assert_eq!(item["relation"], "EMPIRICAL_EVIDENCE");
    assert_eq!(item["source"]["id"], experiment.as_str());
    let summary = item["evidence"]["summary"].as_str().unwrap();
    assert!(summary.starts_with("REPRODUCED: measured "), "{summary}");
    assert!(summary.contains("published"), "{summary}");
    assert!(summary.contains("env fefefefefefe (2 CPUs)"), "{summary}");
    assert!(
        summary.contains("the embedded engine (a model of the DataLoader)"),
        "{summary}"
    );
    // The quoted sentence of the claim, not its id.
    assert!(item["claim"].as_str().unwrap().ends_with('.'), "{item:?}");
    assert_eq!(
        v["sections"]["recommended_actions"][0]["recommendation"],
        "spin-454-vs-449: Give the CPU count beside the 454 and 449."
    );
    // The experiment ran on the current revision: nothing left to run.
    assert_eq!(experiments_to_run(&v), 0);
    assert!(v["delta"].is_null(), "no earlier research to compare with");

    // A second research run: the delta says what changed.
    p.write(
        "report2.md",
        REPORT.replace(
            "| CFS scheduler design |",
            "| EEVDF scheduler | Peter Zijlstra | 2023 | https://lwn.net/Articles/925371/ |\n| CFS scheduler design |",
        ),
    );
    p.record(&["--report", "report2.md"]);
    let v = publish(&p);
    assert_site_schema(&v);
    assert_eq!(v["delta"]["papers_new"], 1);
    assert_eq!(v["delta"]["claims_added"], 0);
    assert_eq!(v["delta"]["relations_reused"], 2);

    // Stale: the chapter changed since.
    p.write("full.txt", "The complete chapter, as revised.");
    p.cmd()
        .args(["snapshot", "add", "06", "full.txt", "--complete"])
        .assert()
        .success();
    let v = publish(&p);
    assert_site_schema(&v);
    assert_eq!(v["research"]["state"], "STALE");
    assert_eq!(experiments_to_run(&v), 1);

    // Failed latest: a report without its sections.
    p.write("bad.md", "# Notes\n\nUNVERIFIED: everything.\n");
    p.record(&["--report", "bad.md"]);
    let v = publish(&p);
    assert_site_schema(&v);
    assert_eq!(v["research"]["state"], "FAILED_LATEST");
    // The page stays on the last good research: its ledger and its one gap,
    // not the failed notes' UNVERIFIED.
    assert_eq!(len(&v["sources"]), 3);
    assert_eq!(len(&v["missing_evidence"]), 1);
    assert_eq!(v["missing_evidence"][0]["claim"], "spin-454-vs-449");
}

#[test]
fn a_ledger_row_that_is_not_a_source_is_said_not_dropped() {
    let p = Project::seeded();
    p.write(
        "report.md",
        REPORT.replace("| CFS scheduler design |", "| |"),
    );
    p.record(&["--report", "report.md"]);
    let out = p.cmd().args(["publish", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(
        e.contains("warning: pytorch-from-first-principles/06: left out of the site's items: source ledger, line"),
        "{e}"
    );
    assert!(e.contains("it has no title"), "{e}");
    let v: Value = serde_yaml::from_slice(&out.stdout).unwrap();
    assert_eq!(len(&v["sources"]), 1);
}

#[test]
fn out_replaces_its_own_file_and_refuses_anyone_elses() {
    let p = Project::seeded();
    p.cmd()
        .args(["publish", "06", "--out", "site.yaml"])
        .assert()
        .success();
    // Its own earlier output is replaced.
    p.write("report.md", REPORT);
    p.record(&["--report", "report.md"]);
    p.cmd()
        .args(["publish", "06", "--out", "site.yaml"])
        .assert()
        .success();
    let v: Value =
        serde_yaml::from_str(&std::fs::read_to_string(p.path("site.yaml")).unwrap()).unwrap();
    assert_eq!(v["research"]["state"], "CURRENT");
    // A file it did not write is left alone.
    let theirs = "schema: programmer.research.chapter.v1\ngenerator: a person\n";
    p.write("theirs.yaml", theirs);
    let out = p
        .cmd()
        .args(["publish", "06", "--out", "theirs.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("theirs.yaml: was not written by research_companion"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(p.path("theirs.yaml")).unwrap(),
        theirs
    );
    // `-` is standard output.
    let out = p
        .cmd()
        .args(["publish", "06", "--out", "-"])
        .output()
        .unwrap();
    assert!(stdout(&out).starts_with("schema: programmer.research.chapter.v1\n"));
    // Neither a chapter nor a site: a usage error.
    p.cmd().arg("publish").assert().code(2);
}

/// A project with three chapters in two books.
fn three_chapters() -> Project {
    let p = Project::seeded();
    p.new_chapter(
        "systems-notes/01",
        "Queues are where time goes.
",
        "Queues",
        Some("Systems Notes"),
    );
    p.new_chapter(
        "systems-notes/02",
        "Locks are where time goes.
",
        "Locks",
        None,
    );
    p
}

#[test]
fn publish_site_writes_every_chapter_and_replaces_only_its_own_files() {
    let p = three_chapters();
    let site = p.path("site");
    let file =
        |book: &str, ch: &str| site.join(format!("content/research/chapters/{book}/{ch}.yaml"));
    let files = [
        file("pytorch-from-first-principles", "06"),
        file("systems-notes", "01"),
        file("systems-notes", "02"),
    ];
    // A page the site's authors keep beside ours.
    let theirs = site.join("content/research/chapters/systems-notes/_index.md");
    std::fs::create_dir_all(theirs.parent().unwrap()).unwrap();
    std::fs::write(&theirs, "---\ntitle: Research\n---\n").unwrap();

    p.cmd()
        .args(["publish", "--site"])
        .arg(&site)
        .assert()
        .success();
    for f in &files {
        let v: Value = serde_yaml::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        assert_site_schema(&v);
        assert_eq!(
            v["research"]["state"],
            "NEVER_RESEARCHED",
            "{}",
            f.display()
        );
    }
    let before_02 = std::fs::read(&files[2]).unwrap();

    // Research on one chapter, then publish again: its file changes, the
    // others are rewritten as they were, the site's own page is untouched.
    p.write("report.md", REPORT);
    p.record(&["--report", "report.md"]);
    p.cmd()
        .args(["publish", "--site"])
        .arg(&site)
        .assert()
        .success();
    let v: Value = serde_yaml::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    assert_eq!(v["research"]["state"], "CURRENT");
    assert_eq!(std::fs::read(&files[2]).unwrap(), before_02);
    assert_eq!(
        std::fs::read_to_string(&theirs).unwrap(),
        "---\ntitle: Research\n---\n"
    );

    // A chapter file someone else wrote stops the run before anything is
    // written.
    std::fs::write(
        &files[1],
        "schema: programmer.research.chapter.v1\ngenerator: hand\n",
    )
    .unwrap();
    let before_06 = std::fs::read(&files[0]).unwrap();
    p.write(
        "report2.md",
        REPORT.replace("Supporting.", "Supporting, again."),
    );
    p.record(&["--report", "report2.md"]);
    let out = p
        .cmd()
        .args(["publish", "--site"])
        .arg(&site)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("01.yaml: was not written by research_companion"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(&files[0]).unwrap(),
        before_06,
        "nothing written"
    );
    assert_eq!(
        std::fs::read_to_string(&files[1]).unwrap(),
        "schema: programmer.research.chapter.v1\ngenerator: hand\n"
    );
}
