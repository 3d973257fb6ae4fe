//! Issue 52, the tool's own site: pages a reader can read at 1280 and 390
//! px (verdicts beside their claims, measured tables inside their box, one
//! state in the header, an index that counts claims as the page shows
//! them, findings on their own lines, addresses as links, the stored
//! notebook linked), and a site whose size does not grow with the history:
//! the newest runs on the chapter's page, the whole history on linked pages,
//! record files linked where they live (or under `--base-url`, or copied
//! with `--copy-records`).

use std::path::{Path, PathBuf};

use scraper::{Html, Selector};

use crate::helpers::{CHAPTER, FIXTURE_RUN, Project, files_under, fixture_record_file, stderr};
use crate::site::assert_links_resolve;

fn site(p: &Project, extra: &[&str]) -> std::process::Output {
    p.cmd()
        .env("RESEARCH_COMPANION_NOW", "2026-12-01T09:00:00Z")
        .args(["site", "--out", "site"])
        .args(extra)
        .output()
        .unwrap()
}

fn page(p: &Project, rel: &str) -> Html {
    Html::parse_document(&std::fs::read_to_string(p.path(rel)).unwrap())
}

fn texts(doc: &Html, css: &str) -> Vec<String> {
    doc.select(&Selector::parse(css).unwrap())
        .map(|e| e.text().collect::<String>())
        .collect()
}

fn attrs(doc: &Html, css: &str, attr: &str) -> Vec<String> {
    doc.select(&Selector::parse(css).unwrap())
        .filter_map(|e| e.value().attr(attr).map(str::to_string))
        .collect()
}

const CHAPTER_PAGE: &str = "site/pytorch-from-first-principles/06.html";

/// Stores a notebook for chapter 06.
fn store_notebook(p: &Project) {
    p.write(
        "nb.ipynb",
        crate::notebook::notebook(vec![crate::notebook::code("a", "print(1)")]),
    );
    let out = p
        .cmd()
        .args(["notebook", "add", "06", "nb.ipynb"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn the_header_shows_the_state_once_and_the_index_counts_claims_as_the_page_colours_them() {
    let p = Project::with_fixture_records();
    let out = site(&p, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let chapter = page(&p, CHAPTER_PAGE);
    let header = texts(&chapter, "header p.meta").join(" ");
    assert!(header.contains("Current"), "{header}");
    assert!(!header.contains("CURRENT"), "one state, in words: {header}");
    let index = page(&p, "site/index.html");
    let state = texts(&index, "tbody tr td:nth-child(2)").join(" ");
    assert!(!state.contains("CURRENT"), "{state}");
    // Only classes some claim has, each counted as the page colours its
    // verdicts: the same number of claims per colour.
    let counts: Vec<(usize, String)> = index
        .select(&Selector::parse("tbody tr td:nth-child(3) span.label").unwrap())
        .map(|l| {
            let text = l.text().collect::<String>();
            let n = text.split(' ').next().unwrap().parse().unwrap();
            (n, l.value().attr("class").unwrap().to_string())
        })
        .collect();
    assert!(!counts.is_empty());
    assert!(counts.iter().all(|(n, _)| *n > 0), "{counts:?}");
    let shown = attrs(&chapter, "table.claims td.verdict span.label", "class");
    // The page shows one block per environment: the index counts the newest.
    let newest: Vec<String> = chapter
        .select(&Selector::parse("article.evidence").unwrap())
        .next()
        .unwrap()
        .select(&Selector::parse("table.claims td.verdict span.label").unwrap())
        .map(|l| l.value().attr("class").unwrap().to_string())
        .collect();
    assert!(!shown.is_empty());
    for tone in ["label ok", "label warn", "label bad", "label none"] {
        let on_page = newest.iter().filter(|c| *c == tone).count();
        let counted: usize = counts
            .iter()
            .filter(|(_, c)| c == tone)
            .map(|(n, _)| n)
            .sum();
        assert_eq!(on_page, counted, "{tone}: {counts:?}");
    }
    // The fixture's model-limited claim is a warning on the page and in the
    // index, no longer counted as a plain success.
    let claims = texts(&index, "tbody tr td:nth-child(3)").join(" ");
    assert!(claims.contains("2 reproduced"), "{claims}");
    assert!(claims.contains("1 reproduced, model limit"), "{claims}");
    assert!(claims.contains("3 magnitude differs"), "{claims}");
}

/// A report whose findings are lines without list marks, one with a web
/// address holding a secret parameter.
const REPORT: &str = "# Research report\n\n## 1. Context and provenance\nRead the chapter.\n\n\
## 2. Claim audit\nNone.\n\n## 3. Source ledger\nNone.\n\n## 4. Findings\n\
Finding 1: the sleep speed-up holds, as https://pytorch.org/docs/stable/data.html?token=s3cr3t says.\n\
Finding 2: the spin throughput stays flat.\nFinding 3: the wait falls.\nFinding 4: the work grows.\n\n\
A sentence of prose that wraps\nonto a second line.\n\n\
## 5. Upgrade proposal\nNone.\n\n## 6. Experiment opportunities\nNone.\n\n## 7. Review checklist\nDone.\n";

#[test]
fn findings_keep_their_lines_addresses_are_links_and_the_stored_notebook_is_linked() {
    let p = Project::with_fixture_records();
    store_notebook(&p);
    p.write("r.md", REPORT);
    p.record(&["--report", "r.md"]);
    let out = site(&p, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(p.path(CHAPTER_PAGE)).unwrap();
    let doc = Html::parse_document(&html);
    // The newest report, rendered: four findings on four lines; prose that
    // wraps in the file stays one paragraph.
    let report = doc
        .select(&Selector::parse("details.report div.markdown").unwrap())
        .next()
        .expect("the report on the page")
        .inner_html();
    let findings = report
        .split("<p>")
        .find(|p| p.contains("Finding 1"))
        .unwrap();
    assert_eq!(findings.matches("<br>").count(), 3, "{findings}");
    assert!(
        report.contains("A sentence of prose that wraps\nonto"),
        "{report}"
    );
    // Its address is a link, without the secret.
    let hrefs = attrs(&doc, "a[href]", "href");
    assert!(
        hrefs
            .iter()
            .any(|h| h.starts_with("https://pytorch.org/docs/stable/data.html")),
        "{hrefs:?}"
    );
    assert!(!html.contains("s3cr3t"));
    // The chapter's address and the notebook's published address are links.
    assert!(
        hrefs.contains(
            &"https://programmer.ie/books/pytorch-from-first-principles/06-chapter/".to_string()
        ),
        "{hrefs:?}"
    );
    assert!(
        hrefs
            .iter()
            .any(|h| h.starts_with("https://colab.research.google.com/")),
        "{hrefs:?}"
    );
    // The stored notebook is linked, where it lives in the project.
    let notebook = attrs(&doc, "#notebook p.meta a[href]", "href");
    let stored = notebook
        .iter()
        .find(|h| h.ends_with(".ipynb") && !h.starts_with("https:"))
        .unwrap_or_else(|| panic!("no link to the stored notebook: {notebook:?}"));
    let target = p.path("site/pytorch-from-first-principles").join(stored);
    assert!(target.is_file(), "{stored}");
    assert_eq!(
        target.canonicalize().unwrap().parent().unwrap(),
        p.chapter_dir().join("notebooks").canonicalize().unwrap()
    );
    assert_links_resolve(&p.path("site"));
}

/// Adds `n` experiments of chapter 06, an hour apart from 2026-11-03 (after the fixture runs), as
/// copies of the fixture experiment (record and run file, renamed after
/// their new ids); returns their run ids, oldest first.
fn add_experiments(p: &Project, n: usize) -> Vec<String> {
    let record = String::from_utf8(fixture_record_file(
        "20261102T120000-bbbbbbbbbbbb.record.yaml",
    ))
    .unwrap();
    let run = fixture_record_file(FIXTURE_RUN);
    let dir = p.path(&format!("records/{CHAPTER}"));
    let start = chrono::DateTime::parse_from_rfc3339("2026-11-03T00:00:00Z").unwrap();
    (0..n)
        .map(|i| {
            let at = start + chrono::Duration::hours(i as i64);
            let stamp = at.format("%Y%m%dT%H%M%S").to_string();
            let hex = format!("{:012x}", 0xc0000 + i);
            let stem = format!("{stamp}-{hex}");
            let text = record
                .replace(
                    "pytorch-from-first-principles:06:20261102T120000:bbbbbbbbbbbb",
                    &format!("pytorch-from-first-principles:06:{stamp}:{hex}"),
                )
                .replace(
                    "'2026-11-02T12:00:00Z'",
                    &format!("'{}'", at.format("%Y-%m-%dT%H:%M:%SZ")),
                )
                .replace("20261102T120000-bbbbbbbbbbbb", &stem);
            std::fs::write(dir.join(format!("{stem}.record.yaml")), text).unwrap();
            std::fs::write(dir.join(format!("{stem}.run.yaml")), &run).unwrap();
            format!("pytorch-from-first-principles:06:{stamp}:{hex}")
        })
        .collect()
}

fn run_ids(doc: &Html) -> Vec<String> {
    texts(doc, "article.run h3 code")
}

#[test]
fn the_chapter_page_lists_the_newest_runs_and_links_the_whole_history_page_by_page() {
    let p = Project::with_fixture_records();
    let added = add_experiments(&p, 247);
    // 247 experiments, the fixture's experiment and research run: 249.
    let out = site(&p, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let chapter = page(&p, CHAPTER_PAGE);
    let listed = run_ids(&chapter);
    assert!(
        listed.len() <= 25,
        "{} runs on the chapter page",
        listed.len()
    );
    assert_eq!(listed[0], *added.last().unwrap(), "newest first");
    // The fixture's research run (the oldest) is listed with its report,
    // which the page renders.
    assert!(
        listed
            .contains(&"pytorch-from-first-principles:06:20261101T120000:aaaaaaaaaaaa".to_string()),
        "{listed:?}"
    );
    let pages = attrs(&chapter, "#history p.pages a", "href");
    assert_eq!(
        pages,
        [
            "06/history-1.html",
            "06/history-2.html",
            "06/history-3.html"
        ]
    );
    // Every run once across the pages, newest first, 100 a page, each page
    // linked to the next and the one before.
    let mut all = Vec::new();
    for n in 1..=3 {
        let rel = format!("site/pytorch-from-first-principles/06/history-{n}.html");
        let doc = page(&p, &rel);
        let ids = run_ids(&doc);
        assert_eq!(ids.len(), if n < 3 { 100 } else { 49 }, "page {n}");
        let prev = attrs(&doc, "a[rel=prev]", "href");
        let next = attrs(&doc, "a[rel=next]", "href");
        assert_eq!(!prev.is_empty(), n > 1, "page {n}");
        assert_eq!(!next.is_empty(), n < 3, "page {n}");
        if n < 3 {
            assert_eq!(next[0], format!("history-{}.html", n + 1));
        }
        // Reports are linked there, not rendered.
        assert!(texts(&doc, "details.report").is_empty(), "page {n}");
        all.extend(ids);
    }
    let mut expected = added.clone();
    expected.reverse();
    assert_eq!(&all[..247], &expected[..]);
    assert_eq!(all.len(), 249);
    // No record is copied: the links reach the files where they live.
    assert!(!p.path("site/records").exists());
    let history = page(&p, "site/pytorch-from-first-principles/06/history-3.html");
    let links = attrs(&history, "p.files a", "href");
    assert_eq!(links.len(), 49 * 2, "a record and its evidence per run");
    assert_links_resolve(&p.path("site"));
    let written: u64 = files_under(&p.path("site"))
        .iter()
        .map(|f| f.metadata().unwrap().len())
        .sum();
    let records: u64 = files_under(&p.path("records"))
        .iter()
        .map(|f| f.metadata().unwrap().len())
        .sum();
    assert!(
        written < records / 4,
        "the site ({written} bytes) is not a copy of the records ({records} bytes)"
    );
}

#[test]
fn record_files_are_linked_under_a_base_url_or_copied_when_asked() {
    let p = Project::with_fixture_records();
    store_notebook(&p);
    let base = "https://github.com/someone/book/blob/main";
    let out = site(&p, &["--base-url", &format!("{base}/")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let chapter = page(&p, CHAPTER_PAGE);
    let links = attrs(&chapter, "p.files a", "href");
    assert!(
        links.contains(&format!(
            "{base}/records/{CHAPTER}/20261102T120000-bbbbbbbbbbbb.run.yaml"
        )),
        "{links:?}"
    );
    assert!(links.iter().all(|l| l.starts_with(base)), "{links:?}");
    let notebook = attrs(&chapter, "#notebook p.meta a[href]", "href");
    assert!(
        notebook
            .iter()
            .any(|h| h.starts_with(&format!("{base}/book-snapshots/{CHAPTER}/notebooks/"))),
        "{notebook:?}"
    );
    // --copy-records: the files are in the site, and the links open them.
    let out = site(&p, &["--copy-records"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let copied = p.path(&format!("site/records/{CHAPTER}/{FIXTURE_RUN}"));
    assert!(copied.is_file());
    let chapter = page(&p, CHAPTER_PAGE);
    for link in attrs(&chapter, "p.files a, #notebook p.meta a[href]", "href")
        .iter()
        .filter(|l| !l.starts_with("https:"))
    {
        let target: PathBuf = p.path("site/pytorch-from-first-principles").join(link);
        let target = target.canonicalize().unwrap();
        assert!(
            target.starts_with(p.path("site").canonicalize().unwrap()),
            "{link} leaves the site"
        );
    }
    // A base URL the links cannot carry is refused, nothing written.
    std::fs::remove_dir_all(p.path("site")).unwrap();
    for bad in [
        "https://me:pw@github.com/x",
        "https://github.com/x?ref=main",
        "ftp://x.org",
    ] {
        let out = site(&p, &["--base-url", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert_eq!(stderr(&out).trim().lines().count(), 1, "{}", stderr(&out));
        assert!(!p.path("site").exists());
    }
    let out = site(&p, &["--base-url", base, "--copy-records"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Chromium, when installed (`RESEARCH_COMPANION_TEST_CHROMIUM` names
/// another binary).
fn chromium() -> Option<PathBuf> {
    let name = std::env::var("RESEARCH_COMPANION_TEST_CHROMIUM").unwrap_or("chromium".into());
    let ok = std::process::Command::new(&name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then(|| PathBuf::from(name))
}

/// Lays `page` out in a frame `width` px wide in headless Chromium and
/// measures it: the page's width, and each element the selectors name, its
/// left and right edges and its width (`selector: left right width
/// scroll-width` lines).
fn measure(chromium: &Path, dir: &Path, page: &Path, width: u32, selectors: &[&str]) -> String {
    let script = format!(
        r#"const f=document.getElementById("f");f.addEventListener("load",()=>{{const d=f.contentDocument;const r=["page "+d.documentElement.scrollWidth];for(const s of {sel}){{for(const e of d.querySelectorAll(s)){{const b=e.getBoundingClientRect();r.push(s+": "+Math.round(b.left)+" "+Math.round(b.right)+" "+Math.round(b.width)+" "+e.scrollWidth)}}}}const p=document.createElement("pre");p.id="measure";p.textContent=r.join("\n");document.body.appendChild(p)}})"#,
        sel = serde_json::to_string(selectors).unwrap()
    );
    let wrapper = dir.join(format!("measure-{width}.html"));
    std::fs::write(
        &wrapper,
        format!(
            "<!DOCTYPE html><html><body style=\"margin:0\"><iframe id=\"f\" src=\"file://{}\" style=\"width:{width}px;height:3000px;border:0\"></iframe><script>{script}</script></body></html>",
            page.display()
        ),
    )
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--allow-file-access-from-files",
            "--window-size=1400,3000",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", wrapper.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom
        .find("<pre id=\"measure\">")
        .expect("chromium measured the page");
    let end = dom[start..].find("</pre>").unwrap() + start;
    dom[start + 18..end].to_string()
}

/// `(right edge, width, scroll width)` of each element `selector` measured.
fn edges(measured: &str, selector: &str) -> Vec<(i64, i64, i64)> {
    measured
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("{selector}: ")))
        .map(|l| {
            let n: Vec<i64> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            (n[1], n[2], n[3])
        })
        .collect()
}

#[test]
#[cfg_attr(
    rc_no_chromium,
    ignore = "needs Chromium: install it or set RESEARCH_COMPANION_TEST_CHROMIUM"
)]
fn the_pages_fit_1280_and_390_px_in_chromium() {
    let Some(chromium) = chromium() else {
        eprintln!("SKIPPED: no chromium to lay the pages out");
        return;
    };
    let p = Project::with_fixture_records();
    store_notebook(&p);
    assert!(site(&p, &[]).status.success());
    let chapter = p.path(CHAPTER_PAGE).canonicalize().unwrap();
    let index = p.path("site/index.html").canonicalize().unwrap();
    let selectors = [
        "table.claims td.claim",
        "table.claims td.verdict",
        "table.cells",
        "main",
    ];
    // At 1280 px: the claim's words take the room, and each measured table
    // fits its box without scrolling.
    let wide = measure(&chromium, p.root(), &chapter, 1280, &selectors);
    let claim = edges(&wide, "table.claims td.claim");
    assert!(!claim.is_empty(), "{wide}");
    assert!(claim.iter().all(|(_, w, _)| *w >= 500), "{wide}");
    let main = edges(&wide, "main")[0].1;
    let cells = edges(&wide, "table.cells");
    assert!(!cells.is_empty(), "{wide}");
    assert!(cells.iter().all(|(_, w, s)| *w <= main && s <= w), "{wide}");
    // At 390 px: nothing widens the page, every verdict is on screen, and
    // so is every column of the index.
    let narrow = measure(&chromium, p.root(), &chapter, 390, &selectors);
    let width: i64 = narrow.lines().next().unwrap()[5..].parse().unwrap();
    assert!(width <= 390, "the page is {width} px wide: {narrow}");
    assert!(
        edges(&narrow, "table.claims td.verdict")
            .iter()
            .all(|(right, _, _)| *right <= 390),
        "{narrow}"
    );
    let narrow = measure(&chromium, p.root(), &index, 390, &["table.index td"]);
    let width: i64 = narrow.lines().next().unwrap()[5..].parse().unwrap();
    assert!(width <= 390, "the index is {width} px wide: {narrow}");
    let cells = edges(&narrow, "table.index td");
    assert_eq!(cells.len(), 6, "{narrow}");
    assert!(cells.iter().all(|(right, _, _)| *right <= 390), "{narrow}");
}
