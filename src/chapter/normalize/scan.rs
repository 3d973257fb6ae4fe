//! The byte-level scans behind the normalizer's fast paths: where the next
//! character rules 2 and 4 may change is, whether NFC may change a stretch,
//! where NFC cannot look back, and rule 5's white-space folding.
//!
//! Each skips only bytes that reading the text character by character
//! would pass over unchanged, so each gives exactly the answer of that
//! reading; the tests hold every scan against its character-by-character
//! counterpart on generated inputs.

use std::sync::OnceLock;

use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{IsNormalized, is_nfc_quick};

/// Index of the first character rules 2 and 4 may change: `&`, a
/// zero-width character (U+200B, U+200C, U+200D, U+2060, U+FEFF) or one of
/// the singletons NFC maps to ASCII (U+037E, U+1FEF, U+212A); the length
/// when there is none. Lead bytes of these (0xCD, 0xE1, 0xE2, 0xEF) are
/// found first, then the whole character is checked, so an em dash or a
/// curly quote (0xE2 too) does not stop the copy.
pub(super) fn next_special(bytes: &[u8]) -> usize {
    let n = bytes.len();
    let mut i = 0;
    loop {
        // Near the last candidate, where prose dense with dashes and
        // references has the next one within a few words: eight bytes at
        // a time, without the set-up cost of a vector search.
        let near = (i + NEAR).min(n);
        while i < near {
            match next_candidate_near(&bytes[i..near]) {
                Some(rel) if special_at(bytes, i + rel) => return i + rel,
                Some(rel) => i += rel + 1,
                None => i = near,
            }
        }
        if i == n {
            return n;
        }
        // Farther on: the vector search of memchr, for the common lead
        // bytes first, then for the rare ones up to there.
        let a = memchr::memchr3(b'&', 0xE2, 0xEF, &bytes[i..]).map_or(n, |r| i + r);
        let b = memchr::memchr2(0xCD, 0xE1, &bytes[i..a]).map_or(a, |r| i + r);
        if b == n || special_at(bytes, b) {
            return b;
        }
        i = b + 1;
    }
}

/// How far past a candidate [`next_special`] looks word by word before it
/// turns to a vector search.
const NEAR: usize = 64;

/// Index of the first byte in `bytes` that is `&` or 0xCD or more (every
/// candidate lead byte of [`next_special`]: `&`, 0xCD, 0xE1, 0xE2, 0xEF,
/// with a few others), eight bytes at a time; the rest byte by byte.
fn next_candidate_near(bytes: &[u8]) -> Option<usize> {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let is_candidate = |b: u8| b == b'&' || b >= 0xCD;
    let mut words = bytes.chunks_exact(8);
    let mut base = 0;
    for word in words.by_ref() {
        let x = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        // Bytes equal to `&`: zero after the xor (exact for "any").
        let amp = x ^ (LOW * u64::from(b'&'));
        let has_amp = amp.wrapping_sub(LOW) & !amp & HIGH;
        // Bytes of 0xCD or more: the high bit set, and the low seven bits
        // 0x4D or more (adding 0x33 carries into the high bit).
        let low7 = x & !HIGH;
        let has_high = x & (low7 + LOW * 0x33) & HIGH;
        // The lowest bit set marks the first such byte exactly (a false
        // `&` can only show above a true one); a byte of 0xCD or more that
        // is no candidate lead, [`special_at`] turns down.
        let found = has_amp | has_high;
        if found != 0 {
            return Some(base + found.trailing_zeros() as usize / 8);
        }
        base += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| is_candidate(b))
        .map(|k| base + k)
}

/// Whether the character starting at `bytes[k]` (a candidate lead byte of
/// [`next_special`]) is one rules 2 and 4 change.
#[inline]
fn special_at(bytes: &[u8], k: usize) -> bool {
    let rest = &bytes[k + 1..];
    match bytes[k] {
        b'&' => true,
        0xCD => rest.starts_with(&[0xBE]),
        0xE1 => rest.starts_with(&[0xBF, 0xAF]),
        0xE2 => matches!(
            rest,
            [0x80, 0x8B..=0x8D, ..] | [0x81, 0xA0, ..] | [0x84, 0xAA, ..]
        ),
        0xEF => rest.starts_with(&[0xBB, 0xBF]),
        _ => false,
    }
}

/// Characters below this have their stability in a table.
const TABLED: u32 = 0x3400;

/// Whether NFC cannot look back before `c`: canonical combining class 0
/// and NFC quick check Yes (the characters below [`TABLED`] from a table
/// built once, the others asked each time).
pub(super) fn is_stable_starter(c: char) -> bool {
    let u = c as u32;
    if u >= TABLED {
        return stable_starter_slow(c);
    }
    stability_table()[u as usize / 64] >> (u % 64) & 1 == 1
}

/// One bit per character below [`TABLED`]: whether it is a stable starter.
fn stability_table() -> &'static [u64] {
    static TABLE: OnceLock<Vec<u64>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut bits = vec![0u64; (TABLED as usize).div_ceil(64)];
        for u in 0..TABLED {
            if char::from_u32(u).is_some_and(stable_starter_slow) {
                bits[u as usize / 64] |= 1 << (u % 64);
            }
        }
        bits
    })
}

fn stable_starter_slow(c: char) -> bool {
    c.is_ascii()
        || (canonical_combining_class(c) == 0
            && is_nfc_quick(std::iter::once(c)) == IsNormalized::Yes)
}

/// The start of the last character of `text` before which NFC cannot look
/// back; 0 when there is none after the start.
pub(super) fn last_stable_start(text: &str) -> usize {
    for (i, c) in text.char_indices().rev() {
        if i == 0 {
            break;
        }
        if is_stable_starter(c) {
            return i;
        }
    }
    0
}

/// Whether NFC might change `text`, looking only at its non-ASCII runs
/// (ASCII is already NFC): a run of stable starters cannot change; a run
/// with any other character is put to NFC's quick check. The characters
/// are decoded here, from the table's bits for the common ones, because
/// this runs over every byte of the text.
pub(super) fn may_need_nfc(text: &str) -> bool {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let table = stability_table();
    let mut i = 0;
    while i < n {
        let b = bytes[i];
        if b < 0xCC {
            // ASCII, or a character below U+0300 (all stable starters, as
            // a test checks), or the middle of one just read.
            i = skip_below_0xcc(bytes, i);
            continue;
        }
        let (u, len) = decode_at(bytes, i);
        let stable = if u < TABLED {
            table[u as usize / 64] >> (u % 64) & 1 == 1
        } else {
            char::from_u32(u).is_some_and(stable_starter_slow)
        };
        if stable {
            i += len;
            continue;
        }
        // A character NFC may look back from or change: the quick check
        // on its whole run of non-ASCII characters decides.
        let run_start = bytes[..i]
            .iter()
            .rposition(|&b| b < 0x80)
            .map_or(0, |k| k + 1);
        let end = bytes[i..]
            .iter()
            .position(|&b| b < 0x80)
            .map_or(n, |rel| i + rel);
        if is_nfc_quick(text[run_start..end].chars()) != IsNormalized::Yes {
            return true;
        }
        i = end;
    }
    false
}

/// Index of the first byte of 0xCC or more at or after `i` (the length
/// when there is none), eight bytes at a time.
fn skip_below_0xcc(bytes: &[u8], mut i: usize) -> usize {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(word) = bytes.get(i..i + 8) {
        let x = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        // The high bit set and the low seven bits 0x4C or more (adding
        // 0x34 carries into the high bit).
        let high = x & ((x & !HIGH) + LOW * 0x34) & HIGH;
        if high != 0 {
            return i + high.trailing_zeros() as usize / 8;
        }
        i += 8;
    }
    while i < bytes.len() && bytes[i] < 0xCC {
        i += 1;
    }
    i
}

/// The scalar value and length of the character starting at `bytes[i]`,
/// which is valid UTF-8 and not ASCII.
fn decode_at(bytes: &[u8], i: usize) -> (u32, usize) {
    let cont = |k: usize| u32::from(bytes[i + k] & 0x3F);
    let b = u32::from(bytes[i]);
    match bytes[i] {
        0xC0..=0xDF => ((b & 0x1F) << 6 | cont(1), 2),
        0xE0..=0xEF => ((b & 0x0F) << 12 | cont(1) << 6 | cont(2), 3),
        _ => ((b & 0x07) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3), 4),
    }
}

/// Rule 5 across pieces: folds every run of white space into one ASCII space
/// and trims both ends of the whole text.
#[derive(Default)]
pub(super) struct WhitespaceFolder {
    wrote_any: bool,
    space_pending: bool,
}

/// How a piece folded on its own meets the pieces around it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ends {
    /// It starts with white space.
    lead: bool,
    /// It ends with white space (after something else).
    trail: bool,
    /// It is white space only, or empty.
    blank: bool,
}

/// The bytes [`plain_prefix`] judges at a time.
const BLOCK: usize = 32;

/// The ASCII white space other than the space: tab, line feed, vertical
/// tab, form feed, carriage return.
fn is_other_ascii_space(b: u8) -> bool {
    (9..=13).contains(&b)
}

/// The ASCII members of Unicode's White_Space property.
fn is_ascii_space(b: u8) -> bool {
    b == b' ' || is_other_ascii_space(b)
}

/// Whether the bytes `a`, `b`, `c` start something the fast path of
/// [`WhitespaceFolder::push`] cannot copy: a control character that is not
/// white space, or a non-ASCII white-space character (U+0085, U+00A0,
/// U+1680, U+2000 to U+200A, U+2028, U+2029, U+202F, U+205F, U+3000: all
/// of Unicode's White_Space beyond ASCII). Everything else, em dashes,
/// curly quotes and accents included, is copied.
fn stops_the_copy(a: u8, b: u8, c: u8) -> bool {
    let control = a < 0x20 && !is_other_ascii_space(a);
    let c2 = a == 0xC2 && (b == 0x85 || b == 0xA0);
    let e1 = a == 0xE1 && b == 0x9A && c == 0x80;
    let e2 = a == 0xE2
        && ((b == 0x80 && (c <= 0x8A || c == 0xA8 || c == 0xA9 || c == 0xAF))
            || (b == 0x81 && c == 0x9F));
    let e3 = a == 0xE3 && b == 0x80 && c == 0x80;
    control | c2 | e1 | e2 | e3
}

/// The plain prefix of `bytes`: its length. Plain is every byte up to the
/// first where [`stops_the_copy`] holds or that is white space followed by
/// white space. Whole blocks of [`BLOCK`] bytes are first put to a cheaper
/// test that every byte that is not plain fails ([`suspect`]), by
/// branch-free folds the compiler turns into vector code; a block that
/// fails it is judged exactly, and the block that is not plain, and the
/// end, byte by byte.
fn plain_prefix(bytes: &[u8]) -> usize {
    let not_plain =
        |a: u8, b: u8, c: u8| stops_the_copy(a, b, c) | (is_ascii_space(a) & is_ascii_space(b));
    let mut n = 0;
    // Each block is judged with the two bytes after it, for what crosses.
    while n + BLOCK + 1 < bytes.len() {
        let block = &bytes[n..n + BLOCK + 2];
        let triples = || {
            block[..BLOCK]
                .iter()
                .zip(&block[1..=BLOCK])
                .zip(&block[2..])
        };
        if triples().fold(false, |acc, ((&a, &b), &c)| acc | suspect(a, b, c))
            && triples().fold(false, |acc, ((&a, &b), &c)| acc | not_plain(a, b, c))
        {
            break;
        }
        n += BLOCK;
    }
    // Past the end of a piece is the next piece (a character never spans
    // two, and the folder's pending space takes care of a pair across).
    let at = |k: usize| bytes.get(k).copied().unwrap_or(0);
    while n < bytes.len() {
        if not_plain(bytes[n], at(n + 1), at(n + 2)) {
            break;
        }
        n += 1;
    }
    n
}

/// A test every byte `a` (followed by `b`, `c`) that is not plain fails:
/// both white space or controls, a control other than white space, or the
/// start of white space beyond ASCII (U+0085 and U+00A0, a character led
/// by 0xE1 or 0xE3, one led by 0xE2 other than U+2010 to U+201F, the
/// dashes and curly quotes of ordinary prose, which are judged exactly
/// only when something else is suspect).
fn suspect(a: u8, b: u8, c: u8) -> bool {
    let dash_or_quote = (b == 0x80) & ((c & 0xF0) == 0x90);
    ((a <= b' ') & (b <= b' '))
        | ((a < b' ') & !is_other_ascii_space(a))
        | ((a == 0xC2) & ((b == 0x85) | (b == 0xA0)))
        | (a == 0xE1)
        | (a == 0xE3)
        | ((a == 0xE2) & !dash_or_quote)
}

impl WhitespaceFolder {
    pub(super) fn push(&mut self, text: &str, out: &mut Vec<u8>) {
        let bytes = text.as_bytes();
        out.reserve(bytes.len() + 1);
        let mut i = 0;
        while i < bytes.len() {
            // Fast path: a stretch that starts with no white space and
            // holds only single white-space bytes is copied whole, each
            // of them as a space (a trailing one only sets the pending
            // space). It ends where a character starts.
            if !is_ascii_space(bytes[i]) {
                let n = plain_prefix(&bytes[i..]);
                if n > 0 {
                    self.emit_pending(out);
                    // A select rather than a branch, so the copy runs as
                    // vector code.
                    out.extend(
                        bytes[i..i + n].iter().map(
                            |&b| {
                                if is_other_ascii_space(b) { b' ' } else { b }
                            },
                        ),
                    );
                    if out.last() == Some(&b' ') {
                        out.pop();
                        self.space_pending = true;
                    }
                    i += n;
                    continue;
                }
            }
            // Slow path: one character.
            let b = bytes[i];
            if b < 0x80 {
                if is_ascii_space(b) {
                    self.space_pending = true;
                } else {
                    self.emit_pending(out);
                    out.push(b);
                }
                i += 1;
                continue;
            }
            let c = text[i..].chars().next().expect("i is a char boundary");
            let len = c.len_utf8();
            if c.is_whitespace() {
                self.space_pending = true;
            } else {
                self.emit_pending(out);
                out.extend_from_slice(&bytes[i..i + len]);
            }
            i += len;
        }
    }

    /// Folds `text` into `out` as if it were the whole text, and says how
    /// its ends join the text around it ([`WhitespaceFolder::join`]): so
    /// pieces can be folded on any thread, in any order, and hashed in
    /// order.
    pub(super) fn fold_alone(text: &str, out: &mut Vec<u8>) -> Ends {
        let mut alone = WhitespaceFolder::default();
        alone.push(text, out);
        Ends {
            lead: text.starts_with(char::is_whitespace),
            trail: alone.space_pending,
            blank: !alone.wrote_any,
        }
    }

    /// Takes a piece [`WhitespaceFolder::fold_alone`] folded as the next
    /// one: whether a space goes before its folded text. The folder is
    /// left as if the piece had been pushed.
    pub(super) fn join(&mut self, ends: Ends) -> bool {
        if ends.blank {
            // White space only (or nothing): at most a space to come.
            self.space_pending |= ends.lead;
            return false;
        }
        let space = (self.space_pending || ends.lead) && self.wrote_any;
        self.wrote_any = true;
        self.space_pending = ends.trail;
        space
    }

    #[inline]
    fn emit_pending(&mut self, out: &mut Vec<u8>) {
        if self.space_pending && self.wrote_any {
            out.push(b' ');
        }
        self.space_pending = false;
        self.wrote_any = true;
    }
}

#[cfg(test)]
mod tests {
    //! Each scan against the simple reading it stands for, on generated
    //! text rich in the bytes the scans single out.

    use super::*;
    use proptest::prelude::*;

    /// The characters rules 2 and 4 change, one by one.
    fn next_special_simple(text: &str) -> usize {
        const SPECIAL: [char; 9] = [
            '&', '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{037E}',
            '\u{1FEF}', '\u{212A}',
        ];
        text.char_indices()
            .find(|(_, c)| SPECIAL.contains(c))
            .map_or(text.len(), |(i, _)| i)
    }

    /// Rule 5 on a whole text: split on white space, joined by one space.
    fn fold_simple(text: &str) -> String {
        text.split(char::is_whitespace)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Folds `text` given to the folder in pieces of about `chunk` bytes
    /// (cut at character boundaries).
    fn fold_fast(text: &str, chunk: usize) -> String {
        let mut ws = WhitespaceFolder::default();
        let mut out = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let mut cut = chunk.min(rest.len());
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            ws.push(&rest[..cut], &mut out);
            rest = &rest[cut..];
        }
        String::from_utf8(out).unwrap()
    }

    /// Characters whose bytes the scans look at: every lead byte they
    /// single out, with the characters that share it and those that do
    /// not, white space of every kind, and ASCII.
    const CHARS: &[&str] = &[
        "a",
        "b",
        " ",
        "  ",
        "\t",
        "\n",
        "\r",
        "\x0B",
        "\x0C",
        "\x01",
        "&",
        ";",
        "#",
        "\u{0085}",
        "\u{00A0}",
        "\u{00E9}",
        "\u{00C2}",
        "\u{1680}",
        "\u{1FEF}",
        "\u{1FEE}",
        "\u{1E9E}",
        "\u{2000}",
        "\u{2001}",
        "\u{200A}",
        "\u{200B}",
        "\u{200C}",
        "\u{200D}",
        "\u{200E}",
        "\u{2014}",
        "\u{2019}",
        "\u{201C}",
        "\u{2028}",
        "\u{2029}",
        "\u{202F}",
        "\u{205F}",
        "\u{2060}",
        "\u{2061}",
        "\u{212A}",
        "\u{212B}",
        "\u{3000}",
        "\u{3001}",
        "\u{037E}",
        "\u{037D}",
        "\u{0301}",
        "\u{0308}",
        "\u{0B47}",
        "\u{0B3E}",
        "\u{FEFF}",
        "\u{FEFE}",
        "\u{FFFD}",
        "\u{1F600}",
        "\u{AC00}",
        "\u{1100}",
        "\u{1161}",
        "\u{0344}",
        "\u{0958}",
        "\u{F900}",
        "\u{2ADC}",
    ];

    /// Mostly words and single white space, so stretches long enough for
    /// the fast paths come up, with the characters above in between.
    fn prose() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            8 => "[a-zé]{1,10}".prop_map(String::from),
            3 => proptest::sample::select(&[" ", " ", "\n", "\t", "\r\n", "  ", " \n"][..])
                .prop_map(String::from),
            1 => proptest::sample::select(CHARS).prop_map(String::from),
        ];
        proptest::collection::vec(piece, 0..120).prop_map(|v| v.concat())
    }

    fn texts() -> impl Strategy<Value = String> {
        prop_oneof![
            prose(),
            proptest::collection::vec(proptest::sample::select(CHARS), 0..120)
                .prop_map(|v| v.concat()),
            "\\PC{0,120}".prop_map(String::from),
            any::<String>(),
        ]
    }

    #[test]
    fn the_stability_table_agrees_with_the_property_for_every_tabled_character() {
        for u in 0..TABLED {
            if let Some(c) = char::from_u32(u) {
                assert_eq!(is_stable_starter(c), stable_starter_slow(c), "U+{u:04X}");
            }
        }
    }

    #[test]
    fn every_byte_that_is_not_plain_is_suspect() {
        // Every character up to U+3000 (the last white space), each before
        // a few others: where the exact test stops the copy, the cheap one
        // does too.
        let mut chars: Vec<char> = ('\0'..='\u{3000}').collect();
        chars.extend(['\u{FEFF}', '\u{1F600}']);
        for &c in &chars {
            for d in ['a', ' ', '\n', '\u{0301}', '\u{2014}'] {
                let s = format!("{c}{d}");
                let b = s.as_bytes();
                let at = |k: usize| b.get(k).copied().unwrap_or(0);
                let exact = stops_the_copy(b[0], at(1), at(2))
                    | (is_ascii_space(b[0]) & is_ascii_space(at(1)));
                assert!(!exact || suspect(b[0], at(1), at(2)), "{s:?}");
            }
        }
    }

    #[test]
    fn every_character_below_u0300_is_a_stable_starter() {
        // may_need_nfc passes over their bytes (all below 0xCC) unread.
        let unstable: Vec<char> = ('\0'..'\u{0300}')
            .filter(|&c| !stable_starter_slow(c))
            .collect();
        assert!(unstable.is_empty(), "not stable starters: {unstable:?}");
    }

    #[test]
    fn the_copy_stops_at_exactly_the_white_space_beyond_ascii() {
        for c in (0x80..=0x10FFFFu32).filter_map(char::from_u32) {
            let mut buf = [0u8; 4];
            let b = c.encode_utf8(&mut buf).as_bytes();
            let at = |k: usize| b.get(k).copied().unwrap_or(0);
            assert_eq!(
                stops_the_copy(b[0], at(1), at(2)),
                c.is_whitespace(),
                "{c:?}"
            );
        }
    }

    #[test]
    fn every_lead_byte_case_is_told_apart() {
        for c in CHARS.iter().flat_map(|s| s.chars()) {
            let text = format!("xy{c}z");
            assert_eq!(
                next_special(text.as_bytes()),
                next_special_simple(&text),
                "{c:?}"
            );
            assert_eq!(fold_fast(&text, 64), fold_simple(&text), "{c:?}");
        }
    }

    proptest! {
        #[test]
        fn next_special_finds_what_a_reading_by_character_finds(s in texts()) {
            prop_assert_eq!(next_special(s.as_bytes()), next_special_simple(&s));
        }

        #[test]
        fn may_need_nfc_agrees_with_the_quick_check(s in texts()) {
            prop_assert_eq!(may_need_nfc(&s), is_nfc_quick(s.chars()) != IsNormalized::Yes);
        }

        #[test]
        fn last_stable_start_agrees_with_the_property(s in texts()) {
            let simple = s
                .char_indices()
                .rev()
                .find(|&(i, c)| i > 0 && stable_starter_slow(c))
                .map_or(0, |(i, _)| i);
            prop_assert_eq!(last_stable_start(&s), simple);
        }

        #[test]
        fn folding_in_pieces_equals_split_and_join(s in texts(), chunk in 1usize..40) {
            prop_assert_eq!(fold_fast(&s, chunk), fold_simple(&s));
        }

        #[test]
        fn pieces_folded_alone_and_joined_equal_split_and_join(
            s in texts(),
            chunk in 1usize..40,
            alone in proptest::collection::vec(any::<bool>(), 64),
        ) {
            let mut ws = WhitespaceFolder::default();
            let mut out = Vec::new();
            let mut rest = s.as_str();
            let mut k = 0;
            while !rest.is_empty() {
                let mut cut = chunk.min(rest.len());
                while !rest.is_char_boundary(cut) {
                    cut += 1;
                }
                if alone[k % alone.len()] {
                    let mut folded = Vec::new();
                    let ends = WhitespaceFolder::fold_alone(&rest[..cut], &mut folded);
                    if ws.join(ends) {
                        out.push(b' ');
                    }
                    out.extend_from_slice(&folded);
                } else {
                    ws.push(&rest[..cut], &mut out);
                }
                rest = &rest[cut..];
                k += 1;
            }
            prop_assert_eq!(String::from_utf8(out).unwrap(), fold_simple(&s));
        }
    }
}
