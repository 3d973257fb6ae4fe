//! What the tool tells a reader about the chapter's notebook and a stale
//! chapter (issue 52, defects 1, 2 and 7): a local copy of the notebook is
//! never presented as the published one, each notebook run says which
//! snapshot it used, a failed run is shown once, a stale chapter's change
//! is said in words, notebook runs and experiments of an older revision
//! follow one rule, and an edit in the words a quote elides touches its
//! claim. The published notebook is served from 127.0.0.1 at the URL the
//! test writes into chapter.yaml; the notebooks are small pure-Python ones.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;

use serde_yaml::Value;

use crate::helpers::{CHAPTER, Project, answer_http, exclusive, stderr, stdout};
use crate::notebook::kernel::kernel_python;
use crate::notebook::{code, notebook, run, run_passing};

/// The colab URL chapter 06's chapter.yaml gives for its notebook.
const COLAB: &str = "https://colab.research.google.com/github/ernanhughes/programmer.ie.notebooks/blob/main/notebooks/pytorch-from-first-principles/06-chapter.ipynb";

/// A notebook whose check cell asserts `x * 2 == <answer>`.
fn small_notebook(answer: u32) -> String {
    notebook(vec![
        code("setup", "x = 21"),
        code(
            "check",
            &format!("assert x * 2 == {answer}\nprint('the answer holds')"),
        ),
    ])
}

/// Serves `body` once on 127.0.0.1, makes that URL chapter 06's published
/// notebook in chapter.yaml, and stores it with `notebook add 06` (no
/// file: the download of the published URL). Returns the URL.
fn publish_and_download(p: &Project, body: String) -> String {
    crate::notebook::without_notebook_claims(p);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://127.0.0.1:{}/nb/06-chapter.ipynb",
        listener.local_addr().unwrap().port()
    );
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
            line.clear();
        }
        let mut stream = stream;
        answer_http(
            &mut stream,
            &mut reader,
            200,
            [("Content-Type", "application/x-ipynb+json")],
            body.as_bytes(),
        );
    });
    let yaml = p.chapter_dir().join("chapter.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    assert!(text.contains(COLAB));
    std::fs::write(&yaml, text.replace(COLAB, &url)).unwrap();
    let out = p.cmd().args(["notebook", "add", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    server.join().unwrap();
    url
}

/// Stores `body` as chapter 06's notebook from the local file `name`.
fn add_local(p: &Project, name: &str, body: String) {
    crate::notebook::without_notebook_claims(p);
    p.write(name, body);
    let out = p
        .cmd()
        .args(["notebook", "add", "06", name])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// `publish 06` parsed.
fn publish(p: &Project) -> Value {
    let out = p.cmd().args(["publish", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_yaml::from_slice(&out.stdout).unwrap()
}

/// The notebook's items in each evidence group, as (group, item).
fn notebook_items(v: &Value) -> Vec<(String, Value)> {
    let groups = v["sections"]["existing_evidence"].as_mapping().unwrap();
    groups
        .iter()
        .flat_map(|(g, items)| {
            items
                .as_sequence()
                .into_iter()
                .flatten()
                .filter(|i| i["evidence"]["section"] == "notebook")
                .map(move |i| (g.as_str().unwrap().to_string(), i.clone()))
        })
        .collect()
}

fn str_of(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// The `history 06` line of a run.
fn history_line(p: &Project, run_id: &str) -> String {
    let text = stdout(&p.cmd().args(["history", "06"]).output().unwrap());
    text.lines()
        .find(|l| l.contains(run_id))
        .unwrap_or_else(|| panic!("{run_id} not in\n{text}"))
        .to_string()
}

/// The run id `notebook run` printed (`recorded <run id> ...`).
fn recorded(out: &std::process::Output) -> String {
    let text = stdout(out);
    text.split_whitespace()
        .skip_while(|w| *w != "recorded")
        .nth(1)
        .unwrap_or_else(|| panic!("no recorded run in {text}"))
        .trim_end_matches([':', ','])
        .to_string()
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_local_copy_of_the_notebook_is_never_called_the_published_one() {
    let Some(python) =
        kernel_python("a_local_copy_of_the_notebook_is_never_called_the_published_one")
    else {
        return;
    };
    let _g = exclusive();
    let p = Project::with_fixture_records();
    let url = publish_and_download(&p, small_notebook(42));
    let pass = recorded(&run_passing(&p, &python, &["06"]));
    // A local copy with one assertion changed, run: it fails.
    add_local(&p, "06-fail.ipynb", small_notebook(43));
    let out = run(&p, &python, &["06"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let fail = recorded(&out);

    // status names the current notebook with where it came from.
    let status = stdout(&p.cmd().arg("status").output().unwrap());
    assert!(
        status.contains("notebook FAIL notebooks/0003-")
            && status.contains(" (local copy of 06-fail.ipynb)"),
        "{status}"
    );

    // The history says which snapshot each notebook run used.
    let line = history_line(&p, &pass);
    assert!(
        line.contains("[ran notebooks/0002-") && line.ends_with(".ipynb (published)]"),
        "{line}"
    );
    let line = history_line(&p, &fail);
    assert!(
        line.contains("[ran notebooks/0003-")
            && line.ends_with(".ipynb (local copy of 06-fail.ipynb)]"),
        "{line}"
    );

    // The research prompt and the report say which notebook the run used.
    let prompt = stdout(&p.cmd().args(["prompt", "06"]).output().unwrap());
    assert!(
        prompt.contains("in its latest recorded run, of notebooks/0003-")
            && prompt.contains(".ipynb (local copy of 06-fail.ipynb) ("),
        "{prompt}"
    );
    let report = stdout(&p.cmd().args(["report", "06"]).output().unwrap());
    assert!(
        report.contains(".ipynb` (local copy of 06-fail.ipynb), run in a fresh kernel: FAIL"),
        "{report}"
    );

    let table = stdout(&p.cmd().args(["notebook", "report"]).output().unwrap());
    assert!(
        table.contains(".ipynb (local copy of 06-fail.ipynb) | FAIL |"),
        "{table}"
    );

    // The site's panel: the local copy is not "published at" anything.
    p.cmd().args(["site", "--out", "site"]).assert().success();
    let page = std::fs::read_to_string(p.path(&format!("site/{CHAPTER}.html"))).unwrap();
    let panel = &page[page.find("<section id=\"notebook\">").unwrap()..];
    let panel = &panel[..panel.find("</section>").unwrap()];
    assert!(!panel.contains("· published at"), "{panel}");
    assert!(
        panel.contains(&format!(
            "local copy of 06-fail.ipynb, not the notebook published at <a href=\"{0}\">{0}</a>",
            url.replace('/', "&#x2f;")
        )),
        "{panel}"
    );
    assert!(
        panel.contains("(local copy of 06-fail.ipynb)</p>"),
        "{panel}"
    );
    // And the site's history says it of each run.
    assert!(
        page.contains(".ipynb (local copy of 06-fail.ipynb)")
            && page.contains(".ipynb (published)"),
        "the history names each run's notebook"
    );

    // The book site's data: the failed run of the local copy is said to be
    // of that copy, shown once, and qualifies rather than contradicts: it
    // says nothing of how the published notebook runs.
    let v = publish(&p);
    let items = notebook_items(&v);
    assert_eq!(items.len(), 1, "{items:?}");
    let (group, item) = &items[0];
    assert_eq!(group, "qualifying");
    assert_eq!(v["summary"]["contradictory"].as_u64(), Some(0));
    let rationale = str_of(&item["interpretation"]["rationale"]);
    assert!(!rationale.contains("as published"), "{rationale}");
    assert!(
        rationale.contains("a local copy of 06-fail.ipynb (not the published notebook) failed"),
        "{rationale}"
    );
    assert!(
        str_of(&item["evidence"]["summary"]).contains("(local copy of 06-fail.ipynb)"),
        "{item:?}"
    );
    let negative = v["negative_findings"].as_sequence().unwrap();
    assert!(
        negative.iter().all(|n| n["paper"]["id"] != fail.as_str()),
        "the failed run is not also a source reviewed but not used: {negative:?}"
    );
    // Every count is its list's length.
    let len = |x: &Value| x.as_sequence().map_or(0, Vec::len) as u64;
    let s = &v["summary"];
    assert_eq!(s["open_gaps"].as_u64(), Some(len(&v["missing_evidence"])));
    assert_eq!(
        s["contradictory"].as_u64(),
        Some(len(&v["sections"]["existing_evidence"]["contradictory"]))
    );
}

#[test]
#[cfg_attr(
    rc_no_kernel,
    ignore = "needs a notebook Python with nbclient and ipykernel: set RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON"
)]
fn a_stale_chapter_is_said_in_words_and_its_runs_follow_one_rule() {
    let Some(python) =
        kernel_python("a_stale_chapter_is_said_in_words_and_its_runs_follow_one_rule")
    else {
        return;
    };
    let _g = exclusive();
    let p = Project::with_fixture_records();
    publish_and_download(&p, small_notebook(42));
    let pass = recorded(&run_passing(&p, &python, &["06"]));
    // A new revision: one word changed in the words a claim's quote elides.
    let before = publish(&p);
    assert_eq!(before["research"]["state"], "CURRENT");
    let experiments_before: Vec<(String, Value)> = groups_of_experiments(&before);
    add_revision(&p);
    let v = publish(&p);
    assert_eq!(v["research"]["state"], "STALE");
    // (a) the change in words, not only two fingerprints.
    let reason = str_of(&v["research"]["stale_reasons"][0]);
    for words in [
        "the chapter changed since research run ",
        "snapshot snapshots/0002-",
        ", added on ",
        "replaced snapshots/0001-a7d34947a6b4.txt",
        "2 words changed; claims touched: spin-wait-mean-62.8-to-28.1",
    ] {
        assert!(reason.contains(words), "{words}: {reason}");
    }
    // (b) the notebook run of the old revision stays where its verdict
    // puts it, as the experiment's items do.
    let items = notebook_items(&v);
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0].0, "supporting", "{items:?}");
    assert!(
        str_of(&items[0].1["interpretation"]["rationale"])
            .contains("earlier revision of the chapter"),
        "{items:?}"
    );
    assert_eq!(
        groups_of_experiments(&v)
            .iter()
            .map(|(g, _)| g)
            .collect::<Vec<_>>(),
        experiments_before
            .iter()
            .map(|(g, _)| g)
            .collect::<Vec<_>>(),
        "the experiment's items keep their groups"
    );
    // (c) a re-run is offered for the notebook as for the experiment.
    let offers = v["sections"]["experiment_opportunities"]
        .as_sequence()
        .unwrap();
    let notebook_offer = offers
        .iter()
        .find(|o| str_of(&o["description"]).contains("notebook run"))
        .unwrap_or_else(|| panic!("no notebook re-run offered: {offers:?}"));
    assert!(
        str_of(&notebook_offer["description"]).contains(&format!("notebook run {CHAPTER}")),
        "{notebook_offer:?}"
    );
    assert!(
        str_of(&notebook_offer["reason"]).contains(&crate::helpers::run_stem_and_time(&pass).0),
        "{notebook_offer:?}"
    );
    assert!(
        offers
            .iter()
            .any(|o| str_of(&o["description"]).contains("Re-run the chapter's experiment")),
        "{offers:?}"
    );
}

/// The experiment's items, as (group, item).
fn groups_of_experiments(v: &Value) -> Vec<(String, Value)> {
    let groups = v["sections"]["existing_evidence"].as_mapping().unwrap();
    groups
        .iter()
        .flat_map(|(g, items)| {
            items
                .as_sequence()
                .into_iter()
                .flatten()
                .filter(|i| {
                    str_of(&i["source"]["title"]).starts_with("research_companion experiment")
                })
                .map(move |i| (g.as_str().unwrap().to_string(), i.clone()))
        })
        .collect()
}

/// Stores a revision of chapter 06 with one word changed inside the words
/// the quote of spin-wait-mean-62.8-to-28.1 elides ("In the second table,
/// wait_mean ... fell from 62.8 ms to 28.1 ms.").
fn add_revision(p: &Project) {
    let text =
        std::fs::read_to_string(p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt")).unwrap();
    assert!(text.contains("sat blocked waiting"));
    p.write(
        "revised.txt",
        text.replace("sat blocked waiting", "sat stalled waiting"),
    );
    p.cmd()
        .args(["snapshot", "add", "06", "revised.txt"])
        .assert()
        .success();
}

#[test]
fn an_edit_in_the_words_a_quote_elides_touches_its_claim() {
    let p = Project::with_fixture_records();
    add_revision(&p);
    let out = p.cmd().args(["snapshot", "diff", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("2 words changed; claims touched: spin-wait-mean-62.8-to-28.1"),
        "{text}"
    );
    // status says the same of the change since the research run.
    let status = stdout(&p.cmd().arg("status").output().unwrap());
    assert!(
        status.contains("claims touched: spin-wait-mean-62.8-to-28.1"),
        "{status}"
    );
}
