//! A report's Markdown as the plain text the book's site and the prompt
//! show: a table cell or a sentence without its emphasis, link syntax, code
//! marks or escapes (`**[PyTorch docs](https://...)**` reads `PyTorch
//! docs`). The text is read inline only: a cell that starts with `1. ` or
//! `# ` stays as written rather than becoming a list or a heading.

use pulldown_cmark::{Event, Options, Parser, TagEnd};

/// Escapes what would open a block at the start of `text` (a heading, a
/// quote, a list item), so only its inline Markdown is read.
fn inline_only(text: &str) -> String {
    let t = text.trim();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    let after_digits = &t[digits..];
    if digits > 0 && (after_digits.starts_with(". ") || after_digits.starts_with(") ")) {
        return format!("{}\\{}", &t[..digits], after_digits);
    }
    let opens_block = t.starts_with('#')
        || t.starts_with('>')
        || t.starts_with("- ")
        || t.starts_with("+ ")
        || t.starts_with("* ")
        || t.starts_with('=');
    if opens_block {
        format!("\\{t}")
    } else {
        t.to_string()
    }
}

/// `text` (Markdown, one line or cell) as plain text, white space collapsed.
pub fn plain(text: &str) -> String {
    let mut out = String::new();
    for event in Parser::new_ext(&inline_only(text), Options::ENABLE_STRIKETHROUGH) {
        match event {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::SoftBreak
            | Event::HardBreak
            | Event::InlineHtml(_)
            | Event::Html(_)
            | Event::End(TagEnd::Paragraph) => out.push(' '),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The sentences of a line as written (Markdown kept): split after `.`,
/// `!` or `?` (and any closing quote or bracket) where white space follows.
pub fn sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let mut end = i + c.len_utf8();
        while let Some(&(j, q)) = chars.peek() {
            if matches!(q, '"' | '\'' | ')' | ']' | '”' | '’' | '*' | '_') {
                end = j + q.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        if chars.peek().is_some_and(|(_, n)| n.is_whitespace()) {
            out.push(line[start..end].trim());
            start = end;
        }
    }
    out.push(line[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_marks_are_dropped_and_the_words_kept() {
        assert_eq!(
            plain("**[PyTorch docs](https://pytorch.org/docs/)**, `num_workers` _matters_"),
            "PyTorch docs, num_workers matters"
        );
        assert_eq!(plain("a &amp; b\\*<br>c"), "a & b* c");
        assert_eq!(plain("<https://example.org/x>"), "https://example.org/x");
        // Inline only: what would open a block stays text.
        assert_eq!(plain("1. Context"), "1. Context");
        assert_eq!(plain("# not a heading"), "# not a heading");
        assert_eq!(plain("- not a bullet"), "- not a bullet");
    }

    #[test]
    fn a_line_splits_into_its_sentences() {
        assert_eq!(
            sentences("One is read. Two is UNVERIFIED (see \"x.\") Three? Yes!"),
            [
                "One is read.",
                "Two is UNVERIFIED (see \"x.\")",
                "Three?",
                "Yes!"
            ]
        );
        assert_eq!(
            sentences("7.4x and 0.5 stay whole"),
            ["7.4x and 0.5 stay whole"]
        );
        assert!(sentences("   ").is_empty());
    }
}
