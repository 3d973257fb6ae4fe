//! The `prose-v1` normalization and its SHA-256 fingerprint.
//!
//! Every record, staleness check and prompt keys on these fingerprints, so the
//! rules here are the contract; README.md states them word for word. The
//! implementation streams: input is cut into pieces at places where no rule can
//! look across the cut, so memory stays bounded whatever the file size.

use std::borrow::Cow;
use std::io::Read;

use sha2::{Digest, Sha256};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

use crate::text::hex;

/// The name of the only normalization this version implements.
pub const PROSE_V1: &str = "prose-v1";

/// How many bytes are read from the input at a time.
const READ_CHUNK: usize = 1 << 20;

/// Characters removed by rule 4.
const ZERO_WIDTH: [char; 5] = ['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}'];

/// Why a text could not be normalized.
#[derive(Debug, thiserror::Error)]
pub enum NormalizeError {
    #[error("invalid UTF-8 at byte offset {offset}")]
    InvalidUtf8 { offset: u64 },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Normalizes a whole text held in memory.
pub fn normalize(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    let mut ws = WhitespaceFolder::default();
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    ws.push(&normalize_piece(text), &mut out);
    String::from_utf8(out).expect("normalization keeps UTF-8 valid")
}

/// Streams `reader` through `prose-v1`, handing normalized bytes to `sink`.
/// Returns the number of input bytes read.
pub fn normalize_stream<R: Read>(
    reader: R,
    mut sink: impl FnMut(&[u8]),
) -> Result<u64, NormalizeError> {
    let mut out: Vec<u8> = Vec::with_capacity(READ_CHUNK * 2);
    let mut ws = WhitespaceFolder::default();
    for_each_piece(reader, |piece| {
        out.clear();
        ws.push(&piece, &mut out);
        sink(&out);
    })
}

/// Rules 1 to 4, piece by piece: validates UTF-8, drops a leading BOM, and
/// hands each piece, cut where no rule looks across, to `each`.
fn for_each_piece<R: Read>(
    mut reader: R,
    mut each: impl FnMut(Cow<'_, str>),
) -> Result<u64, NormalizeError> {
    let mut pending: Vec<u8> = Vec::with_capacity(READ_CHUNK * 2);
    // Byte offset in the input of pending[0], for error messages.
    let mut pending_offset: u64 = 0;
    let mut total: u64 = 0;
    let mut at_start = true;
    loop {
        let old_len = pending.len();
        pending.resize(old_len + READ_CHUNK, 0);
        let n = read_full(&mut reader, &mut pending[old_len..])?;
        pending.truncate(old_len + n);
        let eof = n == 0;
        total += n as u64;
        if at_start && (pending.len() >= 3 || eof) {
            if pending.starts_with(b"\xEF\xBB\xBF") {
                pending.drain(..3);
                pending_offset = 3;
            }
            at_start = false;
        }
        if at_start {
            continue;
        }
        let valid = match std::str::from_utf8(&pending) {
            Ok(s) => s.len(),
            Err(e) if e.error_len().is_none() && !eof => e.valid_up_to(),
            Err(e) => {
                return Err(NormalizeError::InvalidUtf8 {
                    offset: pending_offset + e.valid_up_to() as u64,
                });
            }
        };
        let cut = if eof {
            valid
        } else {
            safe_cut(&pending[..valid])
        };
        if cut > 0 {
            // Checked just above: the prefix up to `valid` is UTF-8 and `cut`
            // lies on an ASCII byte, so it is a character boundary.
            let piece = std::str::from_utf8(&pending[..cut]).expect("validated above");
            each(normalize_piece(piece));
            pending.drain(..cut);
            pending_offset += cut as u64;
        }
        if eof {
            return Ok(total);
        }
    }
}

/// The `prose-v1` SHA-256 of a reader, as lowercase hex. Rule 5 and the hash
/// run on a second thread, so a large file takes about the time of the slower
/// half rather than the sum.
pub fn fingerprint_reader<R: Read>(reader: R) -> Result<String, NormalizeError> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<String>(2);
    std::thread::scope(|scope| {
        let hashing = scope.spawn(move || {
            let mut hasher = Sha256::new();
            let mut ws = WhitespaceFolder::default();
            let mut out = Vec::with_capacity(READ_CHUNK * 2);
            for piece in rx {
                out.clear();
                ws.push(&piece, &mut out);
                hasher.update(&out);
            }
            hex(&hasher.finalize())
        });
        // A send fails only if the hashing thread is gone, which it is not
        // until the channel closes.
        let read = for_each_piece(reader, |piece| {
            let _ = tx.send(piece.into_owned());
        });
        drop(tx);
        let digest = hashing.join().expect("the hashing thread does not panic");
        read.map(|_| digest)
    })
}

/// The `prose-v1` SHA-256 of a text held in memory.
pub fn fingerprint_str(text: &str) -> String {
    hex(&Sha256::digest(normalize(text).as_bytes()))
}

/// The SHA-256 of bytes as they are.
pub fn sha256_reader<R: Read>(mut reader: R) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            return Ok(hex(&hasher.finalize()));
        }
        hasher.update(&buf[..n]);
    }
}

fn read_full<R: Read>(reader: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Where the valid prefix `text` may be cut so that no rule looks across the
/// cut: just before an ASCII byte that cannot belong to a character reference
/// (references use only `&`, `#`, `;` and ASCII letters and digits). ASCII
/// characters never combine with what precedes them under NFC, and a zero-width
/// character removed next to the cut cannot join a reference across it.
/// Returns 0 when no such place exists yet (the caller reads more).
fn safe_cut(text: &[u8]) -> usize {
    const LOOK_BACK: usize = 1 << 16;
    let start = text.len().saturating_sub(LOOK_BACK);
    let found = text[start..]
        .iter()
        .rposition(|&b| b.is_ascii() && !(b.is_ascii_alphanumeric() || b"&#;".contains(&b)));
    match found {
        Some(i) if start + i > 0 => start + i,
        // A pathological run with no space or punctuation: wait for more input
        // up to a bound, then cut before any ASCII byte so memory stays bounded.
        _ if text.len() > 8 * READ_CHUNK => text.iter().rposition(|b| b.is_ascii()).unwrap_or(0),
        _ => 0,
    }
}

/// Rules 2 to 4 on one piece, repeated until the piece stops changing so that
/// normalizing twice gives the same text as normalizing once.
fn normalize_piece(piece: &str) -> Cow<'_, str> {
    let mut text: Cow<'_, str> = Cow::Borrowed(piece);
    loop {
        let mut changed = false;
        if let Some(decoded) = decode_references(&text) {
            text = Cow::Owned(decoded);
            changed = true;
        }
        if !text.is_ascii() {
            let (needs_nfc, has_zero_width) = scan_non_ascii(&text);
            if needs_nfc {
                let nfc: String = text.nfc().collect();
                if nfc != text {
                    text = Cow::Owned(nfc);
                    changed = true;
                }
            }
            if has_zero_width {
                text = Cow::Owned(text.chars().filter(|c| !ZERO_WIDTH.contains(c)).collect());
                changed = true;
            }
        }
        if !changed {
            return text;
        }
    }
}

/// Rule 2: replaces each character reference (`&name;`, `&#digits;`,
/// `&#xhex;`) that names a character; anything else stays as it is. Returns
/// `None` when nothing was replaced.
fn decode_references(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut from = 0;
    while let Some(rel) = memchr::memchr(b'&', &bytes[from..]) {
        let amp = from + rel;
        from = amp + 1;
        let Some(len) = reference_len(&bytes[amp..]) else {
            continue;
        };
        let token = &text[amp..amp + len];
        let decoded = html_escape::decode_html_entities(token);
        if decoded == token {
            continue;
        }
        let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
        o.push_str(&text[copied..amp]);
        o.push_str(&decoded);
        copied = amp + len;
        from = copied;
    }
    out.map(|mut o| {
        o.push_str(&text[copied..]);
        o
    })
}

/// Length of the reference-shaped token at the start of `s` (which starts with
/// `&`), through its `;`, if it has that shape.
fn reference_len(s: &[u8]) -> Option<usize> {
    const MAX: usize = 40;
    let body = s.iter().skip(1).take(MAX).position(|&b| b == b';')?;
    let name = &s[1..1 + body];
    let ok = match name {
        [b'#', b'x' | b'X', hex @ ..] => !hex.is_empty() && hex.iter().all(u8::is_ascii_hexdigit),
        [b'#', dec @ ..] => !dec.is_empty() && dec.iter().all(u8::is_ascii_digit),
        _ => !name.is_empty() && name.iter().all(u8::is_ascii_alphanumeric),
    };
    ok.then_some(body + 2)
}

/// Looks only at the non-ASCII runs of `text` (ASCII is already NFC and has no
/// zero-width characters): whether NFC might change it, and whether it holds a
/// character rule 4 removes.
fn scan_non_ascii(text: &str) -> (bool, bool) {
    let bytes = text.as_bytes();
    let (mut needs_nfc, mut has_zero_width) = (false, false);
    let mut i = 0;
    while i < bytes.len() {
        match next_non_ascii(&bytes[i..]) {
            None => break,
            Some(rel) => i += rel,
        }
        let end = bytes[i..]
            .iter()
            .position(|&b| b < 0x80)
            .map_or(bytes.len(), |rel| i + rel);
        let run = &text[i..end];
        has_zero_width |= run.contains(ZERO_WIDTH);
        needs_nfc |= is_nfc_quick(run.chars()) != IsNormalized::Yes;
        if needs_nfc && has_zero_width {
            break;
        }
        i = end;
    }
    (needs_nfc, has_zero_width)
}

/// Index of the first non-ASCII byte, checking 16 bytes at a time.
fn next_non_ascii(bytes: &[u8]) -> Option<usize> {
    let mut base = 0;
    for chunk in bytes.chunks(16) {
        if !chunk.is_ascii() {
            return chunk.iter().position(|&b| b >= 0x80).map(|i| base + i);
        }
        base += chunk.len();
    }
    None
}

/// Rule 5 across pieces: folds every run of white space into one ASCII space
/// and trims both ends of the whole text.
#[derive(Default)]
struct WhitespaceFolder {
    wrote_any: bool,
    space_pending: bool,
}

/// The ASCII members of Unicode's White_Space property.
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

impl WhitespaceFolder {
    fn push(&mut self, text: &str, out: &mut Vec<u8>) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let start = i;
            while i < bytes.len() && bytes[i] < 0x80 && !is_ascii_space(bytes[i]) {
                i += 1;
            }
            if i > start {
                self.emit_pending(out);
                out.extend_from_slice(&bytes[start..i]);
            }
            let Some(&b) = bytes.get(i) else { break };
            if b < 0x80 {
                self.space_pending = true;
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
    use super::*;
    use proptest::prelude::*;

    fn fp(s: &str) -> String {
        fingerprint_str(s)
    }

    #[test]
    fn equivalent_spellings_share_a_fingerprint() {
        let base = "The step\u{2019}s own slowness is what stopped it from waiting.";
        let same = [
            "The step&rsquo;s own slowness is what stopped it from waiting.",
            "The step&#8217;s own slowness is what stopped it from waiting.",
            "The step&#x2019;s own slowness is what stopped it from waiting.",
            "The step\u{2019}s own\r\nslowness is what\r\nstopped it from waiting.",
            "The step\u{2019}s own\nslowness is what\n   stopped it from waiting.\n\n",
            "  The step\u{2019}s\u{00A0}own slowness is what stopped it from waiting.\t",
            "\u{FEFF}The step\u{2019}s own slow\u{200B}ness is what stopped it from waiting.",
            "The step\u{2019}s own slowness is what stopped it from waiting.\u{2028}",
        ];
        for s in same {
            assert_eq!(fp(s), fp(base), "{s:?}");
        }
    }

    #[test]
    fn nfd_and_nfc_share_a_fingerprint() {
        assert_eq!(
            fp("caf\u{00E9} na\u{00EF}ve"),
            fp("cafe\u{0301} nai\u{0308}ve")
        );
    }

    #[test]
    fn changed_words_and_punctuation_change_the_fingerprint() {
        let base = fp("It moved. The work column rose from 7.8 ms to 43.2 ms.");
        for changed in [
            "It moved. The work column rose from 7.8 ms to 43.3 ms.",
            "It moved; The work column rose from 7.8 ms to 43.2 ms.",
            "It moved. The work column rose from 7.8 ms to 43.2 ms",
            "It moved. The Work column rose from 7.8 ms to 43.2 ms.",
            "It moved. The work column fell from 7.8 ms to 43.2 ms.",
            "It moved.The work column rose from 7.8 ms to 43.2 ms.",
        ] {
            assert_ne!(fp(changed), base, "{changed:?}");
        }
    }

    #[test]
    fn rules_apply_in_order() {
        assert_eq!(normalize("  a&nbsp;&nbsp;b\r\n\tc  "), "a b c");
        assert_eq!(normalize("&amp;rsquo;"), "\u{2019}");
        assert_eq!(normalize("x&#8203;y"), "xy");
        assert_eq!(normalize(""), "");
        assert_eq!(normalize(" \n\t "), "");
    }

    #[test]
    fn stream_reports_invalid_utf8_offset() {
        let bytes = b"hello \xff world".to_vec();
        match normalize_stream(&bytes[..], |_| {}) {
            Err(NormalizeError::InvalidUtf8 { offset }) => assert_eq!(offset, 6),
            other => panic!("{other:?}"),
        }
        // After a BOM the offset still counts from the start of the file.
        let bytes = b"\xEF\xBB\xBFab\xC3".to_vec();
        match normalize_stream(&bytes[..], |_| {}) {
            Err(NormalizeError::InvalidUtf8 { offset }) => assert_eq!(offset, 5),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn streaming_matches_whole_text_across_many_pieces() {
        // Long enough to be cut into several pieces, with references, combining
        // marks and white space runs near every boundary.
        let unit = "caf&eacute; e\u{0301}\u{200D} &rsquo;x&amp;   \r\n\u{00A0}";
        let text = unit.repeat(READ_CHUNK / unit.len() * 3 + 7);
        let mut streamed = Vec::new();
        normalize_stream(text.as_bytes(), |b| streamed.extend_from_slice(b)).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), normalize(&text));
    }

    proptest! {
        #[test]
        fn normalization_is_idempotent(s in "(\\PC|[ \\t\\r\\n\u{00A0}\u{200B}\u{200D}\u{0301}]|&(amp|rsquo|nbsp|#8217|#x200B);?){0,64}") {
            let once = normalize(&s);
            prop_assert_eq!(normalize(&once), once.clone());
        }

        #[test]
        fn streaming_equals_in_memory(s in "(\\PC|\\s|&(amp|lt|#233);){0,200}") {
            let mut streamed = Vec::new();
            normalize_stream(s.as_bytes(), |b| streamed.extend_from_slice(b)).unwrap();
            prop_assert_eq!(String::from_utf8(streamed).unwrap(), normalize(&s));
        }
    }
}
