//! Text read from files as a terminal may show it: control characters,
//! invisible formatting characters (Unicode category Cf, default-ignorable
//! code points) and the line and paragraph separators written as escapes
//! (`\n`, `\u{202e}`), on one line (`visible`) or with the document's lines
//! kept (`visible_lines`), so no file can forge a line, drive the terminal
//! or reorder what it says. Every print of file-derived text goes through
//! here.

/// Whether `c` is an invisible character that can change how text around
/// it reads, or hide in it, without showing itself: every format character
/// (Unicode general category Cf: direction marks and overrides, zero-width
/// spaces and joiners, the byte order mark, interlinear annotation marks,
/// tag characters, ...), every Default_Ignorable_Code_Point (the soft
/// hyphen U+00AD, the combining grapheme joiner U+034F, the Hangul fillers
/// U+115F, U+1160, U+3164 and U+FFA0, the Khmer vowels U+17B4 and U+17B5,
/// the Mongolian selectors U+180B to U+180F, variation selectors, U+2060
/// to U+206F, U+FFF0 to U+FFF8, U+E0000 to U+E0FFF, ...), and the blank
/// Braille pattern U+2800, which shows as a space. The categories and the
/// set come from the Unicode data of `icu_properties`.
pub fn is_format_char(c: char) -> bool {
    use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory};
    use icu_properties::{CodePointMapData, CodePointSetData};
    // Nothing below the soft hyphen is a format or ignorable character.
    if c < '\u{AD}' {
        return false;
    }
    c == '\u{2800}'
        || CodePointMapData::<GeneralCategory>::new().get(c) == GeneralCategory::Format
        || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
}

/// Whether `c` breaks a line without being a control character: the
/// Unicode line and paragraph separators (U+2028, U+2029), which some
/// readers show as a new line.
pub(super) fn is_line_separator(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}')
}

/// Text read from a file (a title, a note, a quote, an error naming a
/// value, a cell id) as a terminal may show it on one line: every control
/// character (line feed, carriage return, tab, NUL, BEL and escape
/// included; C1 controls too), every invisible formatting character
/// ([`is_format_char`]: U+202E, U+200B, ...) and the line and paragraph
/// separators (U+2028, U+2029) are written as an escape
/// (`\n`, `\r`, `\t`, `\u{1b}`, `\u{202e}`), so no file can forge a line,
/// move the cursor, colour the terminal or turn the text around. Borrowed
/// when nothing needs escaping. Every print of file-derived text goes
/// through here.
pub fn visible(s: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| c.is_control() || is_format_char(c) || is_line_separator(c);
    if !s.contains(hidden) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A whole document (a prompt, a report, a cell's output) as a terminal, a
/// file or a page may show it: its lines kept (line feeds, tabs, and
/// carriage returns before a line feed), every other control character,
/// every invisible formatting character and the line and paragraph
/// separators (U+2028, U+2029) written as an escape as [`visible`]
/// does, so text quoted from a chapter, a notebook or a ledger can neither
/// drive the terminal nor hide or reorder what it says.
pub fn visible_lines(s: &str) -> std::borrow::Cow<'_, str> {
    let bytes = s.as_bytes();
    let hidden = |i: usize, c: char| {
        (c.is_control()
            && c != '\n'
            && c != '\t'
            && !(c == '\r' && bytes.get(i + 1) == Some(&b'\n')))
            || is_format_char(c)
            || is_line_separator(c)
    };
    if !s.char_indices().any(|(i, c)| hidden(i, c)) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for (i, c) in s.char_indices() {
        if hidden(i, c) {
            out.push_str(&visible(c.encode_utf8(&mut [0; 4])));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_controls_become_visible_escapes() {
        assert_eq!(
            visible("a\nb\rc\td\u{1b}[31me\u{202e}f\u{85}g"),
            "a\\nb\\rc\\td\\u{1b}[31me\\u{202e}f\\u{85}g"
        );
        assert!(matches!(
            visible("Café — ok"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            visible_lines("a\r\nb\tc\rd\u{1b}e\u{200f}\0\u{7}\u{feff}\n"),
            "a\r\nb\tc\\rd\\u{1b}e\\u{200f}\\u{0}\\u{7}\\u{feff}\n"
        );
        for c in [
            '\u{61c}', '\u{200b}', '\u{202e}', '\u{2060}', '\u{2069}', '\u{feff}',
        ] {
            assert!(is_format_char(c), "{c:?}");
            assert_eq!(visible(&c.to_string()), format!("\\u{{{:x}}}", c as u32));
        }
        assert!(!is_format_char('\u{2070}') && !is_format_char('\u{200a}'));
        // Every format character and default-ignorable code point, not a
        // hand-picked few; the blank Braille pattern too.
        for c in [
            '\u{ad}',
            '\u{34f}',
            '\u{115f}',
            '\u{1160}',
            '\u{17b4}',
            '\u{17b5}',
            '\u{180b}',
            '\u{180e}',
            '\u{2065}',
            '\u{206f}',
            '\u{2800}',
            '\u{3164}',
            '\u{fe00}',
            '\u{fe0f}',
            '\u{ffa0}',
            '\u{fff0}',
            '\u{fff9}',
            '\u{fffb}',
            '\u{1bca0}',
            '\u{1d173}',
            '\u{1d17a}',
            '\u{e0000}',
            '\u{e0001}',
            '\u{e0041}',
            '\u{e007f}',
            '\u{e0fff}',
            '\u{600}',
            '\u{70f}',
            '\u{110bd}',
        ] {
            assert!(is_format_char(c), "{c:?}");
            assert_eq!(
                visible(&format!("a{c}b")),
                format!("a\\u{{{:x}}}b", c as u32)
            );
            assert_eq!(
                visible_lines(&format!("{c}\n")),
                format!("\\u{{{:x}}}\n", c as u32)
            );
        }
        // Visible letters, marks, spaces and symbols stay as they are.
        for c in [
            'a', 'é', '\u{301}', ' ', '\u{a0}', '\u{3000}', '═', '—', '\u{2801}', '\u{fffd}',
        ] {
            assert!(!is_format_char(c), "{c:?}");
        }
        assert_eq!(
            visible_lines("a\u{2028}== 8. x ==\u{2029}b"),
            "a\\u{2028}== 8. x ==\\u{2029}b"
        );
    }
}
