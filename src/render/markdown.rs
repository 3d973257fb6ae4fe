//! Reports rendered from Markdown to HTML for the static site, as data:
//! raw HTML in a report is shown as text, links keep only web and mail
//! targets (a relative link in a report points nowhere in the site), and an
//! image becomes a link to it, so nothing in a report can run or load.
//! A line break before a list-like line ("Finding 2: ...", "(b) ...") is
//! kept, and a bare web address becomes a link (as [`linkify`] makes one in
//! the pages' own text).

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// Whether a link target may stay a link: a web or mail address.
fn external(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://") || lower.starts_with("mailto:")
}

/// `text` (Markdown) as an HTML fragment that shows, and never runs, what
/// the text holds.
pub fn to_html(text: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut dropped_link = false;
    let events = Parser::new_ext(text, options)
        .into_offset_iter()
        .map(|(event, at)| match event {
            // A line that reads as an item of a list keeps its own line.
            Event::SoftBreak if list_like(next_line(text, at.end)) => Event::HardBreak,
            other => other,
        });
    let events = linked_text(events).filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::Link {
            dest_url, title, ..
        })
        | Event::Start(Tag::Image {
            dest_url, title, ..
        }) => {
            if external(&dest_url) {
                Some(Event::Start(Tag::Link {
                    link_type: pulldown_cmark::LinkType::Inline,
                    dest_url,
                    title,
                    id: CowStr::Borrowed(""),
                }))
            } else {
                dropped_link = true;
                None
            }
        }
        Event::End(TagEnd::Link) | Event::End(TagEnd::Image) => {
            if std::mem::take(&mut dropped_link) {
                None
            } else {
                Some(Event::End(TagEnd::Link))
            }
        }
        other => Some(other),
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

/// The source line that starts at `from`, without its indentation and the
/// marks of a block quote.
fn next_line(text: &str, from: usize) -> &str {
    let rest = text.get(from..).unwrap_or_default();
    let line = rest.split('\n').next().unwrap_or_default();
    line.trim_start_matches(|c: char| c.is_whitespace() || c == '>')
}

/// Whether a line reads as an item of a list written without list marks:
/// `2. ...`, `(b) ...`, `b) ...`, `• ...`, `Finding 2: ...`, `F2 - ...`, or
/// a short label and a colon (`Verdict: ...`, `sleep-speedup-7.4x: ...`).
/// Emphasis around the label is looked through.
fn list_like(line: &str) -> bool {
    let line = line.trim_start_matches(['*', '_']);
    if line.starts_with(['•', '·', '–', '—', '‣', '◦']) {
        return true;
    }
    let label_end = line.find([':', ')', '.', ' ']).unwrap_or(line.len());
    let (label, rest) = line.split_at(label_end);
    let label = label.trim_start_matches('(');
    let short = !label.is_empty() && label.chars().count() <= 3;
    // `2. `, `(b) `, `iv) `
    if short
        && label.chars().all(|c| c.is_ascii_alphanumeric())
        && (rest.starts_with(". ") && label.chars().all(|c| c.is_ascii_digit())
            || rest.starts_with(") "))
    {
        return true;
    }
    // A label of at most four words, then a colon or a dash after a number.
    let Some(colon) = line.find([':', '—', '–']) else {
        return false;
    };
    let head = line[..colon].trim_end_matches(['*', '_', ' ']);
    let words: Vec<&str> = head.split_whitespace().collect();
    let after = &line[colon..];
    let spaced = after
        .char_indices()
        .nth(1)
        .is_some_and(|(_, c)| c.is_whitespace());
    !words.is_empty()
        && words.len() <= 4
        && head.chars().count() <= 40
        && spaced
        && !head.contains("://")
        && !head.ends_with(['.', ','])
}

/// Bare web addresses in text (outside code and links) as links.
fn linked_text<'a>(events: impl Iterator<Item = Event<'a>>) -> impl Iterator<Item = Event<'a>> {
    let mut in_link = 0usize;
    let mut in_code = false;
    events.flat_map(move |event| {
        match &event {
            Event::Start(Tag::Link { .. }) | Event::Start(Tag::Image { .. }) => in_link += 1,
            Event::End(TagEnd::Link) | Event::End(TagEnd::Image) => {
                in_link = in_link.saturating_sub(1)
            }
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => in_code = false,
            _ => {}
        }
        match event {
            Event::Text(t) if in_link == 0 && !in_code && !web_urls(&t).is_empty() => {
                let mut out = Vec::new();
                let mut copied = 0;
                for (start, end) in web_urls(&t) {
                    if start > copied {
                        out.push(Event::Text(CowStr::from(t[copied..start].to_string())));
                    }
                    let url = crate::text::redact::redact_url(&t[start..end]);
                    out.push(Event::Start(Tag::Link {
                        link_type: pulldown_cmark::LinkType::Autolink,
                        dest_url: CowStr::from(url.clone()),
                        title: CowStr::Borrowed(""),
                        id: CowStr::Borrowed(""),
                    }));
                    out.push(Event::Text(CowStr::from(url)));
                    out.push(Event::End(TagEnd::Link));
                    copied = end;
                }
                if copied < t.len() {
                    out.push(Event::Text(CowStr::from(t[copied..].to_string())));
                }
                out
            }
            other => vec![other],
        }
    })
}

/// Where each http(s) address in `text` starts and ends, the punctuation
/// that closes a sentence after it left out.
fn web_urls(text: &str) -> Vec<(usize, usize)> {
    crate::text::redact::url_spans(text)
        .into_iter()
        .filter_map(|(start, end)| {
            let url = text[start..end].trim_end_matches(['.', ',', ';', ':', '!', '?']);
            let end = start + url.len();
            let lower = url.to_ascii_lowercase();
            let web = lower.starts_with("https://") || lower.starts_with("http://");
            (web && url.len() > lower.find("://").unwrap_or(0) + 3).then_some((start, end))
        })
        .collect()
}

/// `text` as HTML: escaped, with every http(s) address in it a link to
/// itself (secrets in it taken out first, as every URL the tool shows).
pub fn linkify(text: &str) -> String {
    let text = crate::text::redact::redact_urls_in(text);
    let escape = |s: &str| minijinja::HtmlEscape(s).to_string();
    let mut out = String::new();
    let mut copied = 0;
    for (start, end) in web_urls(&text) {
        out.push_str(&escape(&text[copied..start]));
        let url = escape(&text[start..end]);
        out.push_str(&format!("<a href=\"{url}\">{url}</a>"));
        copied = end;
    }
    out.push_str(&escape(&text[copied..]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_a_report_is_text() {
        let html = to_html(
            "# Title <script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\nok *fine*",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(html.contains("<em>fine</em>"), "{html}");
    }

    #[test]
    fn only_web_links_stay_links() {
        let html = to_html(
            "[docs](https://pytorch.org) [x](javascript:alert(1)) [plot](report.plot.svg) ![p](p.svg)",
        );
        assert!(
            html.contains("<a href=\"https://pytorch.org\">docs</a>"),
            "{html}"
        );
        assert!(!html.contains("javascript"), "{html}");
        assert!(!html.contains("href=\"report.plot.svg\""), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("plot"), "{html}");
    }

    #[test]
    fn list_like_lines_keep_their_breaks_and_prose_does_not() {
        let html = to_html(
            "Findings:\nFinding 1: fast.\nFinding 2: slow.\n(c) third\nsleep-speedup-7.4x: holds\n\nA sentence that wraps\nonto a second line.\n",
        );
        assert_eq!(html.matches("<br />").count(), 4, "{html}");
        assert!(html.contains("A sentence that wraps\nonto"), "{html}");
    }

    #[test]
    fn bare_web_addresses_become_links_and_others_do_not() {
        let html = to_html("See https://pytorch.org/docs. And `https://x.org` and ftp://y.org");
        assert!(
            html.contains("<a href=\"https://pytorch.org/docs\">https://pytorch.org/docs</a>."),
            "{html}"
        );
        assert!(!html.contains("href=\"https://x.org"), "{html}");
        assert!(!html.contains("href=\"ftp"), "{html}");
        let page = linkify("at https://e.org/a?token=s3cret&x=1 <b>");
        assert!(!page.contains("s3cret"), "{page}");
        assert!(page.contains("<a href=\"https:"), "{page}");
        assert!(page.contains("&lt;b&gt;"), "{page}");
    }

    #[test]
    fn tables_render() {
        let html = to_html("| a | b |\n|---|---|\n| 1 | 2 |\n");
        assert!(html.contains("<table>"), "{html}");
        assert!(html.contains("<td>2</td>"), "{html}");
    }
}
