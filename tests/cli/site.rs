//! `site`: the static HTML site of the book's evidence.

use std::path::{Path, PathBuf};

use scraper::{Html, Selector};

use crate::helpers::{Project, files_under, stderr};

fn build(p: &Project, out: &str) -> std::process::Output {
    p.cmd()
        .env("RESEARCH_COMPANION_NOW", "2026-12-01T09:00:00Z")
        .args(["site", "--out", out])
        .output()
        .unwrap()
}

fn html_files(dir: &Path) -> Vec<PathBuf> {
    files_under(dir)
        .into_iter()
        .filter(|p| p.extension() == Some("html".as_ref()))
        .collect()
}

fn parse(path: &Path) -> Html {
    let doc = Html::parse_document(&std::fs::read_to_string(path).unwrap());
    assert!(
        doc.errors.is_empty(),
        "{} does not parse cleanly: {:?}",
        path.display(),
        doc.errors
    );
    doc
}

/// Every link, image and stylesheet that is not a web address resolves to
/// a file in the site, or to a record file or stored notebook where it lives
/// in the project (the site's parent folder).
pub fn assert_links_resolve(site: &Path) {
    let targets = Selector::parse("a[href], link[href], img[src]").unwrap();
    for page in html_files(site) {
        let doc = parse(&page);
        for el in doc.select(&targets) {
            let v = el.value();
            let target = v.attr("href").or(v.attr("src")).unwrap();
            if target.starts_with("http://")
                || target.starts_with("https://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            let file = target.split('#').next().unwrap();
            if file.is_empty() {
                continue;
            }
            let resolved = page.parent().unwrap().join(file);
            assert!(
                resolved.is_file(),
                "{} links to {target}, which is not in the site",
                page.display()
            );
            let resolved = resolved.canonicalize().unwrap();
            let project = site.parent().unwrap().canonicalize().unwrap();
            assert!(
                resolved.starts_with(site.canonicalize().unwrap())
                    || resolved.starts_with(project.join("records"))
                    || resolved.starts_with(project.join("book-snapshots")),
                "{target} leaves the site and the project's stores"
            );
        }
    }
}

#[test]
fn the_site_parses_and_every_link_and_image_resolves() {
    let p = Project::with_fixture_records();
    let out = build(&p, "site");
    assert!(out.status.success(), "{}", stderr(&out));
    let site = p.path("site");
    assert!(site.join(".research-companion-site").is_file());
    assert!(site.join("style.css").is_file());
    let pages = html_files(&site);
    // The index, the chapter's page and its one page of history.
    assert_eq!(pages.len(), 3, "{pages:?}");
    assert_links_resolve(&site);
    // The plot is there and is an SVG.
    let chapter =
        std::fs::read_to_string(site.join("pytorch-from-first-principles/06.html")).unwrap();
    let doc = parse(&site.join("pytorch-from-first-principles/06.html"));
    let img = doc
        .select(&Selector::parse("figure img").unwrap())
        .next()
        .expect("a plot");
    let svg = std::fs::read_to_string(
        site.join("pytorch-from-first-principles")
            .join(img.value().attr("src").unwrap()),
    )
    .unwrap();
    assert!(svg.contains("<svg"), "{svg:.100}");
    assert!(
        chapter.contains("The report"),
        "the stored report is on the page"
    );
}

#[test]
fn the_chapter_page_shows_each_claim_with_its_verdict() {
    let p = Project::with_fixture_records();
    assert!(build(&p, "site").status.success());
    let doc = parse(&p.path("site/pytorch-from-first-principles/06.html"));
    let rows = Selector::parse("table.claims tbody tr").unwrap();
    let rows: Vec<String> = doc
        .select(&rows)
        .map(|r| r.text().collect::<String>())
        .collect();
    let claims = [
        ("sleep-speedup-7.4x", "REPRODUCED"),
        ("spin-454-vs-449", "REPRODUCED"),
        (
            "spin-wait-mean-62.8-to-28.1",
            "REPRODUCED, magnitude differs",
        ),
        (
            "spin-wait-frac-0.89-to-0.39",
            "REPRODUCED, magnitude differs",
        ),
        (
            "spin-work-7.8-to-43.2",
            "REPRODUCED, magnitude differs (x1.50)",
        ),
        (
            "spin-step-five-times-slower",
            "REPRODUCED, model limit (spin, 8 workers on 1 CPU)",
        ),
    ];
    assert_eq!(rows.len(), claims.len(), "{rows:#?}");
    for (id, verdict) in claims {
        let row = rows
            .iter()
            .find(|r| r.contains(id))
            .unwrap_or_else(|| panic!("{id} missing"));
        assert!(row.contains(verdict), "{id}: {row}");
        assert!(row.contains("Criterion:"), "{row}");
    }
    // A verdict under a model limit is shown as a warning, not a plain
    // success; one without flags is a success.
    let tone = |id: &str| {
        let tr = Selector::parse("table.claims tbody tr").unwrap();
        let label = Selector::parse("span.label").unwrap();
        let row = doc
            .select(&tr)
            .find(|r| r.text().collect::<String>().contains(id))
            .unwrap();
        let class = row.select(&label).next().unwrap().value().attr("class");
        class.unwrap_or_default().to_string()
    };
    assert_eq!(tone("spin-step-five-times-slower"), "label warn");
    assert_eq!(tone("spin-454-vs-449"), "label ok");
    // Every verdict colour has its words beside it.
    let labels = Selector::parse("span.label").unwrap();
    assert!(
        doc.select(&labels)
            .all(|l| !l.text().collect::<String>().trim().is_empty())
    );
}

#[test]
fn a_hostile_title_and_report_appear_as_text() {
    let p = Project::seeded();
    let hostile = "<script>alert('title')</script>";
    p.write("a.txt", "Queues are where time goes.\n");
    p.cmd()
        .args(["chapter", "new", "evil/01", "a.txt", "--title", hostile])
        .args(["--book-title", "<b>bold</b> book"])
        .assert()
        .success();
    let report = "# <script>alert('report')</script>\n\n## 1. Context and provenance\n<img src=x onerror=alert(1)>\n\n\
[click](javascript:alert(1))\n\n## 2. Claim audit\n## 3. Source ledger\n## 4. Findings\n## 5. Upgrade proposal\n\
## 6. Experiment opportunities\n## 7. Review checklist\n";
    p.write("r.md", report);
    p.cmd()
        .args(["record", "evil/01", "--report", "r.md"])
        .assert()
        .success();
    let out = build(&p, "site");
    assert!(out.status.success(), "{}", stderr(&out));
    for page in html_files(&p.path("site")) {
        let doc = parse(&page);
        let scripts = Selector::parse("script, img[onerror], b").unwrap();
        assert_eq!(
            doc.select(&scripts).count(),
            0,
            "{} runs markup",
            page.display()
        );
        let links = Selector::parse("a[href]").unwrap();
        assert!(
            doc.select(&links)
                .all(|a| !a.value().attr("href").unwrap().contains("javascript"))
        );
    }
    let index = std::fs::read_to_string(p.path("site/index.html")).unwrap();
    assert!(
        index.contains("&lt;script&gt;alert(&#x27;title&#x27;)&lt;&#x2f;script&gt;"),
        "{index}"
    );
    let page = Html::parse_document(&std::fs::read_to_string(p.path("site/evil/01.html")).unwrap());
    let text: String = page.root_element().text().collect();
    assert!(text.contains(hostile), "the title is shown as text");
    // A chapter registered without a stable id shows the one the tool derives.
    assert!(text.contains("evil-01-chapter"), "{text}");
    assert!(
        text.contains("<script>alert('report')</script>"),
        "the report is shown as text"
    );
}

#[test]
fn out_replaces_only_a_site_it_wrote_and_a_failed_run_keeps_the_old_one() {
    let p = Project::with_fixture_records();
    // Not a folder this tool wrote.
    p.write("notes/todo.txt", "mine");
    let out = build(&p, "notes");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("notes: is not empty and holds no .research-companion-site"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(p.path("notes/todo.txt")).unwrap(),
        "mine"
    );
    // Its own site is replaced whole.
    assert!(build(&p, "site").status.success());
    std::fs::write(
        p.path("site/leftover.html"),
        "<!DOCTYPE html><title>x</title>",
    )
    .unwrap();
    assert!(build(&p, "site").status.success());
    assert!(
        !p.path("site/leftover.html").exists(),
        "the old site is replaced, not merged"
    );
    // A run that fails while writing leaves the old site as it was.
    let before = std::fs::read(p.path("site/index.html")).unwrap();
    p.expect([] as [&str; 0])
        .env("RESEARCH_COMPANION_FAIL_WRITE", "style.css")
        .env("RESEARCH_COMPANION_NOW", "2027-01-01T00:00:00Z")
        .args(["site", "--out", "site"])
        .code(2)
        .stderr_has("no space left on device (injected)")
        .run();
    assert_eq!(std::fs::read(p.path("site/index.html")).unwrap(), before);
    let leftovers: Vec<_> = std::fs::read_dir(p.root())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-site-"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "staging folder left behind: {leftovers:?}"
    );
}

#[test]
fn the_index_of_the_fixture_project() {
    let p = Project::with_fixture_records();
    assert!(build(&p, "site").status.success());
    let index = std::fs::read_to_string(p.path("site/index.html")).unwrap();
    insta::assert_snapshot!("site_index", index);
}

#[test]
fn a_broken_chapter_is_in_the_index_with_its_error() {
    let p = Project::with_fixture_records();
    p.new_chapter(
        "systems-notes/01",
        "Queues are where time goes.
",
        "Queues",
        Some("Systems Notes"),
    );
    std::fs::write(
        p.path("book-snapshots/systems-notes/01/chapter.yaml"),
        "schema: [unclosed\n",
    )
    .unwrap();
    let out = build(&p, "site");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = parse(&p.path("site/index.html"));
    let broken = Selector::parse("tr.broken").unwrap();
    let row: String = doc
        .select(&broken)
        .next()
        .expect("a row for the broken chapter")
        .text()
        .collect();
    assert!(row.contains("systems-notes/01"), "{row}");
    assert!(row.contains("Error"), "{row}");
    assert!(
        row.contains("book-snapshots/systems-notes/01/chapter.yaml"),
        "{row}"
    );
    let root = p.root().display().to_string();
    assert!(
        !row.contains(&root),
        "the site names no folder of this machine: {row}"
    );
    // The good chapter still has its page.
    assert!(
        p.path("site/pytorch-from-first-principles/06.html")
            .is_file()
    );
    assert_links_resolve(&p.path("site"));
}

#[test]
fn the_chapter_page_offers_the_prompt_and_the_snapshot_as_prompt_and_the_store_give_them() {
    let p = Project::with_fixture_records();
    assert!(build(&p, "site").status.success());
    let site = p.path("site");
    let prompt = p.cmd().args(["prompt", "06"]).output().unwrap();
    assert!(prompt.status.success(), "{}", stderr(&prompt));
    // "Take the context": the download holds the bytes `prompt` prints...
    let download = site.join("pytorch-from-first-principles/06/prompt.txt");
    assert_eq!(std::fs::read(&download).unwrap(), prompt.stdout);
    // ... and the page shows the same text in full.
    let doc = parse(&site.join("pytorch-from-first-principles/06.html"));
    let shown: String = doc
        .select(&Selector::parse("pre.prompt-text").unwrap())
        .next()
        .expect("the prompt on the page")
        .text()
        .collect();
    assert_eq!(shown.as_bytes(), prompt.stdout.as_slice());
    // "Bring the full chapter": the current snapshot, byte for byte.
    let snapshot = site.join("pytorch-from-first-principles/06/chapter-snapshot.txt");
    assert_eq!(
        std::fs::read(snapshot).unwrap(),
        std::fs::read(p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt")).unwrap()
    );
    let links: Vec<&str> = doc
        .select(&Selector::parse("#research a[download]").unwrap())
        .map(|a| a.value().attr("href").unwrap())
        .collect();
    assert_eq!(links, ["06/prompt.txt", "06/chapter-snapshot.txt"]);
    let text: String = doc.root_element().text().collect();
    for heading in [
        "Take the context",
        "Bring the full chapter",
        "Research history",
    ] {
        assert!(text.contains(heading), "{heading}");
    }
    // Each run has the anchor `publish --site-url` links the book's site to.
    for stem in [
        "20261101T120000-aaaaaaaaaaaa",
        "20261102T120000-bbbbbbbbbbbb",
    ] {
        let anchor = Selector::parse(&format!("article#run-{stem}")).unwrap();
        assert!(doc.select(&anchor).next().is_some(), "run-{stem}");
    }
    assert_links_resolve(&site);
    // A snapshot its fingerprint no longer vouches for is not offered; the
    // page says why, naming the file from the project root.
    let stored = p.chapter_dir().join("snapshots/0001-a7d34947a6b4.txt");
    let mut altered = std::fs::read(&stored).unwrap();
    altered.extend_from_slice(b"\nAn edit made behind the tool's back.\n");
    std::fs::write(&stored, altered).unwrap();
    assert!(build(&p, "site").status.success());
    assert!(
        !site
            .join("pytorch-from-first-principles/06/chapter-snapshot.txt")
            .exists()
    );
    assert!(
        !site
            .join("pytorch-from-first-principles/06/prompt.txt")
            .exists()
    );
    let page = std::fs::read_to_string(site.join("pytorch-from-first-principles/06.html")).unwrap();
    let notice = "Not everything here could be assembled: book-snapshots&#x2f;pytorch-from-first-principles&#x2f;06&#x2f;snapshots&#x2f;0001-a7d34947a6b4.txt: does not match its fingerprint; run `verify`</p>";
    assert!(page.contains(notice), "{page}");
    assert_links_resolve(&site);
}
