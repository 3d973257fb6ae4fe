//! The notebook claims' verdicts wherever evidence shows (issue 53, item
//! 4): `status` (claims by source, text and JSON), `history`, the research
//! prompt's section 4, the report draft's claim audit, `publish` and the
//! site's claims table, each with the claim's source (the notebook cell)
//! and its verdict; a run of an earlier notebook is said to be one, and
//! claims no run decided yet are said to be unrun, with how to run them.

use serde_yaml::Value;

use super::{notebook_01, run_notebooks, tiny_book};
use crate::helpers::{Project, exclusive, fixture_report, stderr, stdout};
use crate::notebook::code;
use crate::notebook::kernel::kernel_python;

/// What a command printed; it must exit with a status.
fn text_of(p: &Project, args: &[&str]) -> String {
    let out = p.cmd().args(args).output().unwrap();
    assert!(out.status.code().is_some(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// The lines of `text` from the one that starts `from` (trimmed) up to
/// the next chapter's line.
fn chapter_block(text: &str, chapter: &str) -> String {
    text.lines()
        .skip_while(|l| !l.starts_with(chapter))
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.starts_with(' '))
        .map(|(_, l)| format!("{l}\n"))
        .collect()
}

/// `publish CH` parsed.
fn publish(p: &Project, ch: &str) -> Value {
    let out = p.cmd().args(["publish", ch]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_yaml::from_slice(&out.stdout).unwrap()
}

/// The items of `publish` whose evidence section is `claim`, as (group, item).
fn claim_items(v: &Value, claim: &str) -> Vec<(String, Value)> {
    let groups = v["sections"]["existing_evidence"].as_mapping().unwrap();
    groups
        .iter()
        .flat_map(|(g, items)| {
            items
                .as_sequence()
                .into_iter()
                .flatten()
                .filter(|i| i["evidence"]["section"].as_str() == Some(claim))
                .map(move |i| (g.as_str().unwrap().to_string(), i.clone()))
        })
        .collect()
}

/// The claims section of the site's page of chapter `ch` of the tiny book,
/// after `site` wrote it under build/site.
fn site_claims(p: &Project, ch: &str) -> String {
    let out = p.cmd().arg("site").output().unwrap();
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    let page = std::fs::read_to_string(p.path(&format!("build/site/tiny-book/{ch}.html")))
        .expect("the chapter's page");
    let from = page
        .find("<section id=\"claims\">")
        .expect("a claims section");
    let to = from + page[from..].find("</section>").unwrap();
    page[from..to].to_string()
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn notebook_claims_show_their_source_and_verdict_everywhere_evidence_shows() {
    let Some(python) =
        kernel_python("notebook_claims_show_their_source_and_verdict_everywhere_evidence_shows")
    else {
        return;
    };
    let _turn = exclusive();
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    run_notebooks(
        &p,
        &python,
        &["tiny-book/01", "tiny-book/03", "--repeat", "4"],
    );
    // Research recorded, so publish lists evidence.
    p.write("review.md", fixture_report("review-06.md"));
    for ch in ["tiny-book/01", "tiny-book/03"] {
        let out = p
            .cmd()
            .args(["record", ch, "--report", "review.md"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }

    // status: claims by source, in text and JSON.
    let status = text_of(&p, &["status"]);
    let three = chapter_block(&status, "tiny-book/03");
    assert!(
        three.contains("    claims: 2 notebook (1 reproduced, 1 inconclusive); notebook claims from notebook run tiny-book:03:"),
        "{three}"
    );
    assert!(
        three.contains(", 4 kernels, notebook notebooks/0001-"),
        "{three}"
    );
    let one = chapter_block(&status, "tiny-book/01");
    assert!(
        one.contains("    claims: 1 notebook (1 reproduced)"),
        "{one}"
    );
    // A chapter without notebook claims says nothing of them.
    assert!(
        !chapter_block(&status, "tiny-book/02").contains("claims: "),
        "{status}"
    );
    let json: serde_json::Value = serde_json::from_str(&text_of(
        &p,
        &["status", "tiny-book/03", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(
        json[0]["notebook_claims"]["summary"],
        "2 notebook (1 reproduced, 1 inconclusive)"
    );
    let run = &json[0]["notebook_claims"]["run"];
    assert_eq!(run["kind"], "notebook");
    let verdicts: Vec<(&str, &str)> = run["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["claim"].as_str().unwrap(), c["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("mean-near-1.05", "REPRODUCED"),
            ("flaky-kernel", "INCONCLUSIVE")
        ]
    );

    // history: the notebook run's line counts its claims' verdicts.
    let history = text_of(&p, &["history", "tiny-book/03"]);
    let line = history.lines().find(|l| l.contains("notebook  ")).unwrap();
    assert!(
        line.contains("; notebook claims: 1 reproduced, 1 inconclusive  [ran notebooks/0001-"),
        "{line}"
    );

    // The prompt's section 4: each verdict in words, with the printed line.
    let prompt = text_of(&p, &["prompt", "tiny-book/01"]);
    let four = &prompt[prompt.find("== 4.").unwrap()..prompt.find("== 5.").unwrap()];
    assert!(
        four.contains("Notebook claims: the numbers the chapter states, held against what its notebook printed (1 notebook (1 reproduced); from the notebook run tiny-book:01:"),
        "{four}"
    );
    assert!(
        four.contains("- params-110 (\"A layer from 10 inputs to 10 outputs has 110 parameters.\"): REPRODUCED: nb.params = 110 in each of 4 kernels (notebook cell count printed `params: 110`); the text states 110, a run must give exactly 110"),
        "{four}"
    );

    // The report draft's claim audit: a row per notebook claim, its source.
    let report = text_of(&p, &["report", "tiny-book/03"]);
    assert!(
        report.contains("| flaky-kernel: \"The mean of the draws is about 1.05.\" | notebook, Averaging | INCONCLUSIVE (notebook cell flaky) | tiny-book:03:"),
        "{report}"
    );
    assert!(
        report.contains("| mean-near-1.05: \"the mean of many draws sits near 1.05.\" | opening | REPRODUCED (notebook cell draw) |"),
        "{report}"
    );

    // publish: each claim an evidence item, its source the run's cell.
    let site = publish(&p, "tiny-book/01");
    let items = claim_items(&site, "params-110");
    assert_eq!(items.len(), 1, "{items:?}");
    let (group, item) = &items[0];
    assert_eq!(group, "supporting");
    assert_eq!(item["relation"], "EMPIRICAL_EVIDENCE");
    let title = item["source"]["title"].as_str().unwrap();
    assert!(
        title.starts_with("research_companion notebook run ")
            && title.ends_with(", notebook cell count"),
        "{title}"
    );
    assert!(
        item["evidence"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("REPRODUCED: nb.params = 110 in each of 4 kernels"),
        "{item:?}"
    );
    let flaky = claim_items(&publish(&p, "tiny-book/03"), "flaky-kernel");
    assert_eq!(flaky[0].0, "unresolved", "{flaky:?}");

    // The site's claims table: each value's source.
    let claims = site_claims(&p, "01");
    assert!(
        claims.contains("<td class=\"source\" data-label=\"Source\">notebook cell count<br><code>params: 110</code></td>"),
        "{claims}"
    );
    assert!(
        claims.contains("<span class=\"label ok\">REPRODUCED</span>"),
        "{claims}"
    );

    // chapter.yaml names a published notebook: the run of the local copy
    // decides nothing of it.
    let yaml = p.path("book-snapshots/tiny-book/01/chapter.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let material = "associated_material:\n- kind: notebook\n  url: https://example.org/nb/01.ipynb\n  note: the chapter's notebook\n";
    let text = if text.contains("associated_material: []") {
        text.replace("associated_material: []\n", material)
    } else {
        format!("{text}{material}")
    };
    std::fs::write(&yaml, text).unwrap();
    let one = chapter_block(&text_of(&p, &["status"]), "tiny-book/01");
    assert!(
        one.contains("claims: 1 notebook (1 reproduced; of a copy, not the published notebook)")
            && one.contains("(local copy of 01.ipynb), not of the notebook the chapter publishes"),
        "{one}"
    );
    let items = claim_items(&publish(&p, "tiny-book/01"), "params-110");
    assert_eq!(items[0].0, "qualifying", "{items:?}");

    // A new notebook stored after the run: the run is of an earlier one.
    let mut changed: serde_json::Value = serde_json::from_str(&notebook_01()).unwrap();
    changed["cells"]
        .as_array_mut()
        .unwrap()
        .push(code("extra", "print('one more cell')"));
    p.write("01b.ipynb", changed.to_string());
    let out = p
        .cmd()
        .args(["notebook", "add", "tiny-book/01", "01b.ipynb"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let one = chapter_block(&text_of(&p, &["status"]), "tiny-book/01");
    assert!(
        one.contains("claims: 1 notebook (1 reproduced; of an earlier notebook)"),
        "{one}"
    );
    assert!(
        one.contains("the run is of an earlier notebook: it ran notebooks/0001-")
            && one.contains("the chapter's current notebook is notebooks/0002-"),
        "{one}"
    );
    assert!(
        one.contains("to decide them: notebook run tiny-book/01 --python P, or reproduce tiny-book/01 --python P"),
        "{one}"
    );
    let prompt = text_of(&p, &["prompt", "tiny-book/01"]);
    assert!(
        prompt.contains("Read these verdicts with care: the run is of an earlier notebook")
            && prompt.contains("not yet about the chapter as it is now"),
        "{prompt}"
    );
    let items = claim_items(&publish(&p, "tiny-book/01"), "params-110");
    assert_eq!(items[0].0, "qualifying", "{items:?}");
    let claims = site_claims(&p, "01");
    assert!(
        claims.contains("not of the chapter as it is now")
            && claims.contains("the run is of an earlier notebook"),
        "{claims}"
    );
}

#[test]
fn notebook_claims_no_run_decided_are_said_to_be_unrun_with_how_to_run_them() {
    let p = Project::seeded();
    tiny_book(&p, &p.path("kernel-counter"));
    let one = chapter_block(&text_of(&p, &["status"]), "tiny-book/01");
    assert!(
        one.contains("    claims: 1 notebook (not run yet)\n"),
        "{one}"
    );
    assert!(
        one.contains("the notebook claims were not run yet (1 in claims.yaml: params-110)")
            && one.contains(
                "to decide them: notebook run tiny-book/01 --python P, or reproduce tiny-book/01 --python P"
            ),
        "{one}"
    );
    let prompt = text_of(&p, &["prompt", "tiny-book/01"]);
    assert!(
        prompt.contains("- None decided: the notebook claims were not run yet (1 in claims.yaml: params-110). `research_companion notebook run tiny-book/01 --python P`"),
        "{prompt}"
    );
    assert!(!prompt.contains("REPRODUCED"), "{prompt}");
    let report = text_of(&p, &["report", "tiny-book/01"]);
    assert!(
        report.contains("Notebook claims: the notebook claims were not run yet (1 in claims.yaml: params-110); they are UNRUN until"),
        "{report}"
    );
    // The experiment opportunities do not say the chapter has no claims.yaml.
    assert!(
        report.contains("None implied for the pipeline: claims.yaml has no pipeline claims")
            && !report.contains("the chapter has no claims.yaml"),
        "{report}"
    );
    let claims = site_claims(&p, "01");
    assert!(
        claims.contains("the notebook claims were not run yet")
            && claims.contains(
                "<code>research_companion notebook run tiny-book&#x2f;01 --python P</code>"
            )
            && !claims.contains("REPRODUCED"),
        "{claims}"
    );
}

#[test]
fn the_pipeline_claims_table_names_its_source() {
    let p = Project::with_fixture_records();
    let out = p.cmd().arg("site").output().unwrap();
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    let page =
        std::fs::read_to_string(p.path(&format!("build/site/{}.html", crate::helpers::CHAPTER)))
            .unwrap();
    assert!(
        page.contains("<th scope=\"col\" class=\"source\">Source</th>")
            && page.contains("<td class=\"source\" data-label=\"Source\">pipeline run</td>"),
        "{page}"
    );
}
