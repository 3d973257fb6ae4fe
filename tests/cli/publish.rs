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
        // Only the identifiers a source has: `{}` when none, as the theme's
        // example data writes it (a null one would render an empty element).
        for (k, id) in t["identifiers"].as_mapping().unwrap() {
            assert!(
                ["arxiv", "doi"].contains(&k.as_str().unwrap()) && id.is_string(),
                "{at}.identifiers: {k:?}: {id:?}"
            );
        }
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

/// The site data as text with what changes from one test run to the next
/// named instead (each run id, its stem and its time; the year an
/// experiment or a report was recorded), for a reviewed snapshot.
fn redacted(v: &Value, runs: &[(&str, &str)]) -> String {
    fn walk(v: &mut Value, ids: &[&str]) {
        match v {
            Value::Mapping(m) => {
                let is_run = m
                    .get("id")
                    .and_then(Value::as_str)
                    .is_some_and(|id| ids.contains(&id));
                if is_run && m.contains_key("year") {
                    m.insert("year".into(), "<year recorded>".into());
                }
                m.values_mut().for_each(|x| walk(x, ids));
            }
            Value::Sequence(s) => s.iter_mut().for_each(|x| walk(x, ids)),
            _ => {}
        }
    }
    let mut v = v.clone();
    walk(&mut v, &runs.iter().map(|(id, _)| *id).collect::<Vec<_>>());
    let mut text = serde_yaml::to_string(&v).unwrap();
    for (id, name) in runs {
        let (stem, time) = crate::helpers::run_stem_and_time(id);
        text = text
            .replace(id, &format!("<{name}>"))
            .replace(&stem, &format!("<{name} stem>"))
            // Runs recorded in the same second share a time: one name.
            .replace(&time, "<time recorded>");
    }
    text
}

/// Every list the theme renders, by its path: each must be empty.
const LISTS: [&str; 16] = [
    "sections.current_thesis",
    "sections.existing_evidence.supporting",
    "sections.existing_evidence.qualifying",
    "sections.existing_evidence.competing",
    "sections.existing_evidence.contradictory",
    "sections.existing_evidence.background",
    "sections.existing_evidence.unresolved",
    "sections.new_literature",
    "sections.missing_evidence",
    "sections.limitations",
    "sections.experiment_opportunities",
    "sections.bibliography_additions",
    "sections.recommended_actions",
    "sources",
    "missing_evidence",
    "negative_findings",
];

fn at<'v>(v: &'v Value, path: &str) -> &'v Value {
    path.split('.').fold(v, |v, k| &v[k])
}

fn relations(v: &Value, group: &str) -> Vec<String> {
    at(v, &format!("sections.existing_evidence.{group}"))
        .as_sequence()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["relation"].as_str().unwrap(),
                e["evidence"]["section"].as_str().unwrap()
            )
        })
        .collect()
}

/// The review of a second research pass: the PyTorch docs replaced by the
/// DataLoader's source, the tf.data paper kept, one verdict cell changed.
fn second_review() -> String {
    let docs = "https://pytorch.org/docs/stable/data.html";
    let code = "https://github.com/pytorch/pytorch/blob/v2.5.0/torch/utils/data/dataloader.py";
    let review = crate::helpers::fixture_report("review-06.md");
    for part in [
        docs,
        "0.89 to 0.39.\" | opening, \"Now look at the column\" | REPRODUCED, model limit |",
    ] {
        assert!(review.contains(part), "the fixture report has {part}");
    }
    let old_row = review
        .lines()
        .find(|l| l.starts_with("| [torch.utils.data]"))
        .unwrap()
        .to_string();
    review
        .replace(
            &old_row,
            &format!("| [torch/utils/data/dataloader.py]({code}) | PyTorch contributors | 2024 | {code} | full text | spin-454-vs-449 | the code, not a measurement | 2026-12-02 / 2026-12-02 |"),
        )
        .replace(&format!("[torch.utils.data]({docs}) documentation says"), &format!("[dataloader.py]({code}) source shows"))
        .replace(
            "0.89 to 0.39.\" | opening, \"Now look at the column\" | REPRODUCED, model limit |",
            "0.89 to 0.39.\" | opening, \"Now look at the column\" | REPRODUCED, magnitude differs |",
        )
}

#[test]
fn the_four_states_the_theme_renders_key_by_key() {
    let _g = lock();
    // 1. Never researched, though an experiment is recorded: the theme says
    // "not yet researched", so no list may hold anything.
    let p = Project::seeded();
    let experiment = p.record_fixture_run();
    let v = publish(&p);
    assert_site_schema(&v);
    assert_eq!(v["research"]["state"], "NEVER_RESEARCHED");
    for list in LISTS {
        assert_eq!(len(at(&v, list)), 0, "{list} before any research");
    }
    for (k, n) in v["summary"].as_mapping().unwrap() {
        assert_eq!(n.as_u64(), Some(0), "summary.{k:?}");
    }
    assert!(v["delta"].is_null());
    assert!(v["research"]["run_id"].is_null());
    assert_eq!(v["actions"]["research_available"], false);
    let runs = vec![(experiment.as_str(), "experiment")];
    insta::assert_snapshot!("site_data_never_researched", redacted(&v, &runs));

    // 2. Current, with a filled report and six claim verdicts.
    p.write("review.md", crate::helpers::fixture_report("review-06.md"));
    let first = p.record(&["--report", "review.md"]);
    let v = publish(&p);
    assert_site_schema(&v);
    assert_eq!(v["research"]["state"], "CURRENT");
    assert_eq!(v["research"]["run_id"], first.as_str());
    let (_, time) = crate::helpers::run_stem_and_time(&first);
    assert_eq!(v["research"]["last_researched"], time.as_str());
    // The ledger's two sources, with ids from the URL and the arXiv id.
    let sources = v["sources"].as_sequence().unwrap();
    assert_eq!(sources.len(), 2);
    assert_eq!(sources[0]["title"], "torch.utils.data");
    assert_eq!(
        sources[0]["identifiers"],
        Value::Mapping(Default::default())
    );
    assert_eq!(sources[1]["identifiers"]["arxiv"], "2101.12127");
    let (docs_id, paper_id) = (sources[0]["id"].clone(), sources[1]["id"].clone());
    for id in [&docs_id, &paper_id] {
        let id = id.as_str().unwrap();
        assert!(id.starts_with("src-") && id.len() == 16, "{id}");
    }
    // Prose names a run by its record's stem, which the theme can wrap.
    let (first_stem, _) = crate::helpers::run_stem_and_time(&first);
    assert_eq!(
        sources[1]["provenance"][0],
        format!("source ledger of research run {first_stem}").as_str()
    );
    // Only what the ledger says was reviewed and not used.
    assert_eq!(len(&v["negative_findings"]), 1);
    assert_eq!(v["negative_findings"][0]["paper"]["id"], paper_id);
    assert_eq!(
        v["negative_findings"][0]["finding"],
        "about tf.data's own runtime, which this chapter does not use"
    );
    // The mark inside a table cell: the cell's text, plain, and the claim's sentence.
    assert_eq!(len(&v["missing_evidence"]), 1);
    assert_eq!(
        v["missing_evidence"][0]["gap"],
        "the fall on the real DataLoader is UNVERIFIED: only the model measured it"
    );
    assert_eq!(
        v["missing_evidence"][0]["claim"],
        "In the second table, wait_mean ... fell from 62.8 ms to 28.1 ms."
    );
    assert_eq!(v["sections"]["missing_evidence"], v["missing_evidence"]);
    // The report's findings decide the relations it speaks to; the
    // measurement is their evidence. "Contradictory: none that I trust".
    assert_eq!(
        relations(&v, "supporting"),
        [
            "SUPPORTS sleep-speedup-7.4x",
            "SUPPORTS spin-454-vs-449",
            "SUPPORTS spin-454-vs-449",
            "EMPIRICAL_EVIDENCE spin-step-five-times-slower"
        ]
    );
    assert_eq!(
        relations(&v, "qualifying"),
        [
            "QUALIFIES spin-wait-mean-62.8-to-28.1",
            "EMPIRICAL_EVIDENCE spin-wait-frac-0.89-to-0.39",
            "EMPIRICAL_EVIDENCE spin-work-7.8-to-43.2"
        ]
    );
    assert!(relations(&v, "contradictory").is_empty());
    assert_eq!(relations(&v, "unresolved"), ["UNCERTAIN Findings"]);
    let supporting = &v["sections"]["existing_evidence"]["supporting"];
    assert_eq!(supporting[0]["source"]["id"], experiment.as_str());
    assert_eq!(
        supporting[0]["source"]["url"],
        "https://programmer.ie/research/books/pytorch-from-first-principles/06-chapter/",
        "the chapter's research page, without --site-url"
    );
    assert!(
        supporting[0]["evidence"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("REPRODUCED: sleep at 8 workers runs 7.79x as fast as at 0 (the chapter: 7.36x); the claim needs >= 5; single run, measured by the embedded engine"),
        "{:?}",
        supporting[0]["evidence"]
    );
    assert_eq!(
        supporting[2]["source"]["id"], docs_id,
        "the source the finding cites"
    );
    assert_eq!(supporting[2]["evidence"]["tier"], "FULL_TEXT");
    assert_eq!(
        v["sections"]["experiment_opportunities"][0]["description"],
        "Measure the spinning pipeline's wait at 0 and 8 workers on the real DataLoader (research_companion reproduce --engine pytorch --repeat 5)."
    );
    assert_eq!(experiments_to_run(&v), 1);
    assert!(v["delta"].is_null(), "no earlier research to compare with");
    let runs = vec![
        (experiment.as_str(), "experiment"),
        (first.as_str(), "research 1"),
    ];
    insta::assert_snapshot!("site_data_current", redacted(&v, &runs));
    // Given where the evidence site is served, items link to the run there.
    let out = p
        .cmd()
        .args([
            "publish",
            "06",
            "--site-url",
            "https://evidence.example.org/book/",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let linked: Value = serde_yaml::from_slice(&out.stdout).unwrap();
    let (stem, _) = crate::helpers::run_stem_and_time(&experiment);
    assert_eq!(
        linked["sections"]["existing_evidence"]["supporting"][0]["source"]["url"],
        format!(
            "https://evidence.example.org/book/pytorch-from-first-principles/06.html#run-{stem}"
        )
        .as_str()
    );
    p.cmd()
        .args(["publish", "06", "--site-url", "ftp://x/"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "needs an http:// or https:// address",
        ));
    // A refused address is quoted without its secrets; one with a query
    // would make links that lead nowhere.
    for (bad, why) in [
        (
            "https://user:pw888@example.org/e?token=tok-111",
            "holds credentials",
        ),
        ("ftp://example.org/e?token=tok-111", "needs an http://"),
        ("https://example.org/e?page=2", "has a ?query or #fragment"),
    ] {
        let out = p.expect(["publish", "06", "--site-url", bad]).code(2).run();
        let err = String::from_utf8_lossy(&out.out.stderr);
        assert!(err.contains(why), "{err}");
        assert!(!err.contains("pw888") && !err.contains("tok-111"), "{err}");
    }

    // 3. Stale: a sentence added to the chapter, touching no claim.
    let text =
        std::fs::read_to_string(p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt")).unwrap();
    p.write(
        "revised.txt",
        format!("{text}\nA closing sentence the author added.\n"),
    );
    p.cmd()
        .args(["snapshot", "add", "06", "revised.txt"])
        .assert()
        .success();
    p.cmd()
        .args(["snapshot", "diff", "06"])
        .assert()
        .stdout(predicates::str::contains("no claim touched"));
    let v = publish(&p);
    assert_site_schema(&v);
    assert_eq!(v["research"]["state"], "STALE");
    assert_eq!(len(&v["research"]["stale_reasons"]), 1);
    let reason = v["research"]["stale_reasons"][0].as_str().unwrap();
    assert!(
        reason.starts_with("the chapter changed since research run ")
            && reason
                .contains("replaced snapshots/0001-a7d34947a6b4.txt (prose-v1 a7d34947a6b4 to ")
            && reason.ends_with("; 6 words changed; no claim touched"),
        "the change in words: {reason}"
    );
    assert_eq!(
        v["sources"][0]["id"], docs_id,
        "the latest research's items stay"
    );
    assert_eq!(v["summary"]["evidence_relations"], 8);
    assert_eq!(experiments_to_run(&v), 2, "and the experiment to re-run");
    let runs = vec![
        (experiment.as_str(), "experiment"),
        (first.as_str(), "research 1"),
    ];
    let stale = redacted(&v, &runs);
    let between = |from: &str, to: char| {
        let rest = &reason[reason.find(from).unwrap() + from.len()..];
        rest[..rest.find(to).unwrap()].to_string()
    };
    let revised = between("(prose-v1 a7d34947a6b4 to ", ')');
    // The day the change was seen is the day the test runs.
    let seen = between(", added on ", ',');
    insta::assert_snapshot!(
        "site_data_stale",
        stale
            .replace(&revised, "<revised>")
            .replace(&format!("on {seen}"), "on <day seen>")
    );

    // 4. A second research run: one source replaced, one verdict cell changed.
    p.write("review2.md", second_review());
    let second = p.record(&["--report", "review2.md"]);
    let v = publish(&p);
    assert_site_schema(&v);
    assert_eq!(v["research"]["state"], "CURRENT");
    assert_eq!(v["research"]["previous_run_id"], first.as_str());
    let d = &v["delta"];
    let counts: Vec<(&str, u64)> = d
        .as_mapping()
        .unwrap()
        .iter()
        .map(|(k, n)| (k.as_str().unwrap(), n.as_u64().unwrap()))
        .collect();
    assert_eq!(
        counts,
        [
            ("relations_reused", 7),
            ("relations_revalidated", 1),
            ("relations_removed", 1),
            ("papers_new", 1),
            ("claims_added", 0),
            ("claims_changed", 0),
            ("claims_removed", 0),
        ],
        "the replaced source's relation is removed and its successor re-evaluated; the other seven are reused, and a changed verdict cell changes no claim"
    );
    let sources = v["sources"].as_sequence().unwrap();
    assert_eq!(sources[1]["id"], paper_id, "the paper kept its id");
    assert_ne!(sources[0]["id"], docs_id, "the new source has its own");
    assert_eq!(
        sources[1]["provenance"],
        serde_yaml::to_value([
            format!(
                "source ledger of research run {}",
                crate::helpers::run_stem_and_time(&second).0
            ),
            format!("source ledger of research run {first_stem}"),
        ])
        .unwrap()
    );
    let runs = vec![
        (experiment.as_str(), "experiment"),
        (first.as_str(), "research 1"),
        (second.as_str(), "research 2"),
    ];
    insta::assert_snapshot!(
        "site_data_second_run",
        redacted(&v, &runs).replace(&revised, "<revised>")
    );
}

#[test]
fn a_failed_refresh_stays_on_the_last_complete_research() {
    let p = Project::seeded();
    p.write("report.md", REPORT);
    p.record(&["--report", "report.md"]);
    // Failed latest: a report with one of its sections only.
    p.write(
        "bad.md",
        "# Notes\n\n## 1. Context and provenance\n\nUNVERIFIED: everything.\n",
    );
    p.record(&["--report", "bad.md"]);
    let v = publish(&p);
    assert_site_schema(&v);
    assert_eq!(v["research"]["state"], "FAILED_LATEST");
    // The page stays on the last good research: its ledger and its one gap,
    // not the failed notes' UNVERIFIED.
    assert_eq!(len(&v["sources"]), 2);
    assert_eq!(len(&v["missing_evidence"]), 1);
    assert_eq!(
        v["missing_evidence"][0]["claim"],
        "The second did not get faster at all: 454 examples per second at zero workers, 449 at eight."
    );
    assert_eq!(v["missing_evidence"][0]["gap"], "UNVERIFIED on 8 cores");
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
    p.expect(["publish", "06", "--out", "theirs.yaml"])
        .code(2)
        .stderr_has("theirs.yaml: was not written by research_companion")
        .run();
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
    p.expect(["publish", "--site"])
        .arg(&site)
        .code(2)
        .stderr_has("01.yaml: was not written by research_companion")
        .run();
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
