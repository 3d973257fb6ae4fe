//! The browser half of real_theme: a server on 127.0.0.1, headless Chromium, a measuring page, screenshots.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{CHAPTER_PAGE, RESEARCH_PAGE};
use crate::helpers::{CHAPTER, answer_http};

const WIDTHS: [u32; 2] = [1280, 390];
/// Serves `root` on 127.0.0.1 (a thread per connection, for the life of the
/// test binary); `/css/` comes from the first theme build, since the
/// theme's stylesheets are linked from the site's root. Returns the port.
fn serve(root: PathBuf, css: PathBuf) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (root, css) = (root.clone(), css.clone());
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                let _ = reader.read_line(&mut line);
                let target = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                let mut header = String::new();
                while reader.read_line(&mut header).unwrap_or(0) > 0 && header != "\r\n" {
                    header.clear();
                }
                let path = target
                    .split('?')
                    .next()
                    .unwrap_or("/")
                    .trim_start_matches('/');
                let file = match path.strip_prefix("css/") {
                    Some(rest) => css.join(rest),
                    None => root.join(path),
                };
                let file = if file.is_dir() {
                    file.join("index.html")
                } else {
                    file
                };
                let kind = match file.extension().and_then(|e| e.to_str()) {
                    Some("html") => "text/html; charset=utf-8",
                    Some("css") => "text/css",
                    Some("svg") => "image/svg+xml",
                    Some("js") => "text/javascript",
                    _ => "application/octet-stream",
                };
                let mut stream = stream;
                match std::fs::read(&file) {
                    Ok(body) if !path.contains("..") => answer_http(
                        &mut stream,
                        &mut reader,
                        200,
                        [("Content-Type", kind)],
                        &body,
                    ),
                    _ => answer_http(&mut stream, &mut reader, 404, [("Content-Type", kind)], b""),
                }
            });
        }
    });
    port
}

/// Headless Chromium with `args` on `url`, stdout into a file it returns;
/// killed after two minutes.
fn run_chromium(chromium: &Path, work: &Path, args: &[String], url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out_file = work.join("chromium.out");
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(url)
        .stdout(Stdio::from(std::fs::File::create(&out_file).unwrap()))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish with {url} in two minutes");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::read_to_string(out_file).unwrap_or_default()
}

/// Loads every page in an iframe of each width and measures it from the
/// same origin: the page's width against its window, its height, and the
/// claims table's verdict cells (how many, how many outside the window).
const MEASURE: &str = r#"<!doctype html><html><body><pre id="out">pending</pre><script>
const jobs = JOBS; const rows = []; let left = jobs.length;
for (const [url, w] of jobs) {
  const f = document.createElement('iframe');
  f.style.width = w + 'px'; f.style.height = '900px'; f.style.border = '0'; f.style.display = 'block';
  f.onload = () => {
    const d = f.contentDocument, cw = d.documentElement.clientWidth;
    const wide = [...d.body.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > cw + 0.5
      || (e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0 && getComputedStyle(e).overflowX == 'visible'));
    const leaves = wide.filter(e => !wide.some(o => o !== e && e.contains(o)))
      .slice(0, 4).map(e => e.tagName + '.' + e.className + ': ' + e.textContent.replace(/\s+/g, ' ').slice(0, 90));
    const verdicts = [...d.querySelectorAll('table.claims td.verdict')];
    const out = verdicts.filter(v => { const r = v.getBoundingClientRect(); return r.width == 0 || r.left < 0 || r.right > cw + 0.5; });
    // An ordinary word (letters between spaces or punctuation, outside code
    // and addresses, which may break anywhere) broken across two lines, as a
    // squeezed table column breaks "Rese/arch".
    const split = [], range = d.createRange(), walk = d.createTreeWalker(d.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n && split.length < 4; n = walk.nextNode()) {
      if (n.parentElement.closest('code, pre, a')) continue;
      const re = /(?<![\w:\/.\-])[A-Za-z]{3,}(?![\w:\/.\-])/g; let m;
      while ((m = re.exec(n.data)) && split.length < 4) {
        range.setStart(n, m.index); range.setEnd(n, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) split.push(m[0] + ' in ' + n.parentElement.tagName.toLowerCase() + '.' + n.parentElement.className);
      }
    }
    rows.push({url, w, split, scroll: d.documentElement.scrollWidth, client: cw, height: d.documentElement.scrollHeight,
      verdicts: verdicts.length, verdicts_outside: out.length, wide: leaves});
    if (--left == 0) document.getElementById('out').textContent = JSON.stringify(rows);
  };
  f.src = url; document.body.appendChild(f);
}
</script></body></html>"#;

pub(super) fn in_the_browser(chromium: &Path, work: &Path, states: &[&str]) {
    let css = work.join(format!("t-{}/public/css", states[0]));
    let port = serve(work.to_path_buf(), css);
    let mut pages = Vec::new();
    for s in states {
        pages.push((*s, "theme-research", format!("/t-{s}/{RESEARCH_PAGE}")));
        pages.push((*s, "theme-chapter", format!("/t-{s}/{CHAPTER_PAGE}")));
        pages.push((*s, "site-chapter", format!("/s-{s}/{CHAPTER}.html")));
        pages.push((*s, "site-index", format!("/s-{s}/index.html")));
    }
    let jobs: Vec<Value> = WIDTHS
        .iter()
        .flat_map(|w| pages.iter().map(move |(_, _, u)| serde_json::json!([u, w])))
        .collect();
    std::fs::write(
        work.join("measure.html"),
        MEASURE.replace("JOBS", &Value::Array(jobs).to_string()),
    )
    .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let dom = run_chromium(
        chromium,
        work,
        &["--dump-dom".into()],
        &format!("{base}/measure.html"),
    );
    let json = dom
        .split("<pre id=\"out\">")
        .nth(1)
        .and_then(|r| r.split("</pre>").next())
        .unwrap_or("pending");
    let json = json
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    let rows: Vec<Value> = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("the measuring page did not finish ({e}): {json}"));
    assert_eq!(rows.len(), pages.len() * WIDTHS.len(), "{rows:#?}");
    let mut wrong = Vec::new();
    for r in &rows {
        let url = r["url"].as_str().unwrap();
        let (scroll, client) = (r["scroll"].as_u64().unwrap(), r["client"].as_u64().unwrap());
        println!(
            "{url} at {} px: {scroll} px wide in a {client} px window, {} px high",
            r["w"], r["height"]
        );
        if scroll > client {
            // The theme prints publish's prose as it is and cannot wrap a
            // long word: a whole run id (`book:chapter:stamp:hex`, 58
            // characters) in it made the research page 417-426 px wide
            // at 390 px.
            let why = if url.starts_with("/t-") {
                " (the theme shows publish's text verbatim: an unbreakable run id in prose?)"
            } else {
                ""
            };
            wrong.push(format!(
                "{url} at {} px is {scroll} px wide in a {client} px window{why}: {}",
                r["w"], r["wide"]
            ));
        }
        let split = r["split"].as_array().map_or(0, Vec::len);
        if split > 0 {
            wrong.push(format!(
                "{url} at {} px breaks words in the middle: {}",
                r["w"], r["split"]
            ));
        }
        if url.ends_with(&format!("{CHAPTER}.html")) {
            let (n, outside) = (
                r["verdicts"].as_u64().unwrap(),
                r["verdicts_outside"].as_u64().unwrap(),
            );
            // A chapter never measured has no claims table to check.
            let measured = !url.starts_with("/s-1-never/");
            if (measured && n == 0) || outside > 0 {
                wrong.push(format!(
                    "{url} at {} px: {outside} of {n} verdicts outside the window",
                    r["w"]
                ));
            }
        }
    }
    if let Some(dir) = std::env::var_os("RESEARCH_COMPANION_THEME_SHOTS") {
        screenshots(chromium, work, &base, Path::new(&dir), &pages, &rows);
    }
    assert!(
        wrong.is_empty(),
        "what a reader sees in the browser:\n{}",
        wrong.join("\n")
    );
}

/// A PNG of every page at both widths, as tall as the page.
fn screenshots(
    chromium: &Path,
    work: &Path,
    base: &str,
    dir: &Path,
    pages: &[(&str, &str, String)],
    rows: &[Value],
) {
    std::fs::create_dir_all(dir).unwrap();
    for (state, kind, url) in pages {
        for w in WIDTHS {
            let height = rows
                .iter()
                .find(|r| r["url"] == url.as_str() && r["w"] == w)
                .and_then(|r| r["height"].as_u64())
                .unwrap_or(4000)
                .clamp(600, 16000);
            let png = dir.join(format!("{state}-{kind}-{w}.png"));
            let args = [
                "--hide-scrollbars".to_string(),
                format!("--window-size={w},{height}"),
                format!("--screenshot={}", png.display()),
            ];
            run_chromium(chromium, work, &args, &format!("{base}{url}"));
        }
    }
    println!(
        "screenshots of every page at 1280 and 390 px in {}",
        dir.display()
    );
}
