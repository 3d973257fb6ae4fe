//! Reports rendered from Markdown to HTML for the static site, as data:
//! raw HTML in a report is shown as text, links keep only web and mail
//! targets (a relative link in a report points nowhere in the site), and an
//! image becomes a link to it, so nothing in a report can run or load.

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
    let events = Parser::new_ext(text, options).filter_map(|event| match event {
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
    fn tables_render() {
        let html = to_html("| a | b |\n|---|---|\n| 1 | 2 |\n");
        assert!(html.contains("<table>"), "{html}");
        assert!(html.contains("<td>2</td>"), "{html}");
    }
}
