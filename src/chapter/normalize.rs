//! The `prose-v1` normalization and its SHA-256 fingerprint.
//!
//! Every record, staleness check and prompt keys on these fingerprints, so the
//! rules here are the contract; docs/formats.md states them word for word.
//!
//! The rules are defined as a fixed point (steps 2 to 4 repeated until the
//! text stops changing); this module reaches the same text in one pass, in
//! time proportional to the input and in bounded memory:
//! - rules 2 and 4 run left to right over a small stack: a decoded reference
//!   is read again at once (so `&amp;amp;` needs no second pass), and a
//!   reference may only be as long as [`MAX_REFERENCE_BODY`], so nothing
//!   looks further back than that;
//! - NFC cannot create a character reference or a zero-width character
//!   except through three singletons (U+037E, U+1FEF, U+212A, which it maps
//!   to ASCII `;`, `` ` `` and `K`), so those are mapped first and one NFC
//!   pass ends the loop;
//! - text is released to NFC only up to a place NFC cannot look across
//!   (before an ASCII character, or another character that starts a stable
//!   segment), and no further back than a reference still open.
//!
//! The tests check this pass against a literal implementation of the
//! fixed-point rules, streamed in tiny pieces, over generated inputs.

use std::io::Read;

use sha2::{Digest, Sha256};
use unicode_normalization::UnicodeNormalization;

pub use self::references::MAX_REFERENCE_BODY;
use self::references::decode_reference;
use self::scan::{Ends, WhitespaceFolder, last_stable_start, may_need_nfc, next_special};

use crate::text::format::hex;

mod references;
mod scan;

/// The name of the only normalization this version implements.
pub const PROSE_V1: &str = "prose-v1";

/// How many bytes are read from the input at a time.
const READ_CHUNK: usize = 1 << 20;

/// The longest stretch of text that may have to be held whole: a run of
/// characters that combine with what precedes them (NFC sees it whole), or a
/// chain of `&`s each of which a later reference could complete. Real prose
/// holds a few bytes; a longer stretch is refused rather than held in memory.
pub const MAX_UNSTABLE_RUN: usize = 4 << 20;

/// How the normalizer reads: `chunk` bytes at a time, and after each read
/// at most `held` bytes held back whole (else the text is refused). Every
/// entry point reads at [`PACE`], in memory too, so what is refused
/// depends on the text alone; tests scale both down.
#[derive(Debug, Clone, Copy)]
struct Pace {
    chunk: usize,
    held: usize,
    /// The size of the reads a read of `chunk` bytes is made of; it
    /// changes the speed, never the outcome.
    sub: usize,
}

/// The pace of every entry point.
const PACE: Pace = Pace {
    chunk: READ_CHUNK,
    held: MAX_UNSTABLE_RUN,
    sub: SUB_READ,
};

/// Characters removed by rule 4.
const ZERO_WIDTH: [char; 5] = ['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}'];

/// Why a text could not be normalized.
#[derive(Debug, thiserror::Error)]
pub enum NormalizeError {
    #[error("invalid UTF-8 at byte offset {offset}")]
    InvalidUtf8 { offset: u64 },
    #[error(
        "more than {limit} bytes of text that cannot be settled piece by piece (combining characters, or references chained into each other) end at byte offset {offset}; prose-v1 does not normalize it"
    )]
    UnstableRun { offset: u64, limit: usize },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Normalizes a whole text held in memory. The only error is
/// [`NormalizeError::UnstableRun`]. The text is read in the same pieces as
/// a stream, because where [`MAX_UNSTABLE_RUN`] is checked (after each
/// piece) decides what is refused: read whole, a text `fingerprint` refuses
/// could be stored, and `verify` could then not read it back.
pub fn normalize(text: &str) -> Result<String, NormalizeError> {
    normalize_with(text, PACE)
}

fn normalize_with(text: &str, pace: Pace) -> Result<String, NormalizeError> {
    let mut out = Vec::with_capacity(text.len());
    normalize_stream_with(text.as_bytes(), pace, |b| out.extend_from_slice(b))?;
    Ok(String::from_utf8(out).expect("normalization keeps UTF-8 valid"))
}

/// Streams `reader` through `prose-v1`, handing normalized bytes to `sink`.
/// Returns the number of input bytes read.
pub fn normalize_stream<R: Read>(
    reader: R,
    sink: impl FnMut(&[u8]),
) -> Result<u64, NormalizeError> {
    normalize_stream_with(reader, PACE, sink)
}

/// [`normalize_stream`] at another pace (small pieces in tests, so every
/// boundary is crossed).
fn normalize_stream_with<R: Read>(
    reader: R,
    pace: Pace,
    mut sink: impl FnMut(&[u8]),
) -> Result<u64, NormalizeError> {
    let mut ws = WhitespaceFolder::default();
    let mut out = Vec::new();
    for_each_released(reader, pace, |text| {
        let text = nfc(text);
        out.clear();
        ws.push(&text, &mut out);
        sink(&out);
        text
    })
}

/// Rules 1, 2 and 4: reads and validates UTF-8, drops a leading BOM,
/// decodes references and drops zero-width characters, and hands each
/// finished stretch of text to `each` (which applies rule 3, [`nfc`], and
/// rule 5), which hands back a buffer to reuse.
///
/// The pace's reads of `chunk` bytes are made of smaller ones of at most
/// `sub` bytes ([`SUB_READ`]), each validated and decoded at once: a buffer that
/// stays in the core's cache makes the kernel's copy several times
/// cheaper. Text is released, and the held limit checked, only where a
/// read of `chunk` bytes would have ended, so what is refused is the same
/// as reading `chunk` bytes at a time.
fn for_each_released<R: Read>(
    mut reader: R,
    pace: Pace,
    mut each: impl FnMut(String) -> String,
) -> Result<u64, NormalizeError> {
    let chunk = pace.chunk as u64;
    let mut state = Releasing {
        raw: Vec::with_capacity(pace.sub.min(pace.chunk) + 4),
        raw_offset: 0,
        at_start: true,
        decoder: Decoder::default(),
        spare: String::new(),
    };
    let mut total: u64 = 0;
    // Whether text was read since a pace's read last ended.
    let mut read_since_end = false;
    loop {
        let want = pace.sub.min((chunk - total % chunk) as usize);
        let n = read_more(&mut reader, &mut state.raw, want)?;
        total += n as u64;
        let eof = n == 0;
        if eof && read_since_end {
            // The pace's last read, a short one, ended where the input did.
            state.stage(false, true, pace, &mut each)?;
        }
        let ends_read = eof || n < want || total % chunk == 0;
        read_since_end = !ends_read;
        state.stage(eof, ends_read, pace, &mut each)?;
        if eof {
            return Ok(total);
        }
    }
}

/// How many bytes [`for_each_released`] reads at a time.
const SUB_READ: usize = 64 << 10;

/// What [`for_each_released`] holds between reads.
struct Releasing {
    /// Bytes read and not yet decoded (a character cut by a read).
    raw: Vec<u8>,
    /// Byte offset in the input of raw[0], for error messages.
    raw_offset: u64,
    at_start: bool,
    decoder: Decoder,
    spare: String,
}

impl Releasing {
    /// Decodes what was read; where a pace's read ends (`ends_read`),
    /// hands on what is settled, or refuses a held stretch over the limit.
    fn stage(
        &mut self,
        eof: bool,
        ends_read: bool,
        pace: Pace,
        each: &mut impl FnMut(String) -> String,
    ) -> Result<(), NormalizeError> {
        if self.at_start && (self.raw.len() >= 3 || eof) {
            if self.raw.starts_with(b"\xEF\xBB\xBF") {
                self.raw.drain(..3);
                self.raw_offset = 3;
            }
            self.at_start = false;
        }
        if self.at_start {
            return Ok(());
        }
        // simdutf8 rather than `std::str::from_utf8`: on text rich in
        // accents and dashes the standard check took a seventh of the run.
        let text = match simdutf8::compat::from_utf8(&self.raw) {
            Ok(s) => s,
            Err(e) if e.error_len().is_none() && !eof => {
                // A character cut by the end of the read: the rest comes next.
                simdutf8::basic::from_utf8(&self.raw[..e.valid_up_to()])
                    .expect("valid up to the cut, as just checked")
            }
            Err(e) => {
                return Err(NormalizeError::InvalidUtf8 {
                    offset: self.raw_offset + e.valid_up_to() as u64,
                });
            }
        };
        let valid = text.len();
        self.decoder.feed(text);
        self.raw.drain(..valid);
        self.raw_offset += valid as u64;
        if !ends_read {
            return Ok(());
        }
        let settled = self.decoder.settled(eof);
        if settled > 0 {
            let piece = self.decoder.take(settled, std::mem::take(&mut self.spare));
            self.spare = each(piece);
        } else if self.decoder.held() > pace.held {
            return Err(NormalizeError::UnstableRun {
                offset: self.raw_offset,
                limit: pace.held,
            });
        }
        Ok(())
    }
}

/// Rule 3 on a stretch that starts and ends where NFC cannot look across:
/// untouched when it is already NFC (checked on its non-ASCII runs only).
fn nfc(text: String) -> String {
    if may_need_nfc(&text) {
        text.nfc().collect()
    } else {
        text
    }
}

/// Rules 2 and 4, left to right, with what is not yet final held back.
#[derive(Default)]
struct Decoder {
    /// Decoded text not yet released.
    buf: String,
    /// Index in `buf` of a `&` whose body so far could still become a
    /// reference.
    open: Option<usize>,
    /// Decoded characters waiting to be read again, the next one last.
    again: Vec<char>,
}

impl Decoder {
    /// Reads more text.
    fn feed(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if self.open.is_none() {
                // Nothing is open: copy up to the next byte that may start
                // something the rules change.
                let end = i + next_special(&bytes[i..]);
                self.buf.push_str(&s[i..end]);
                i = end;
                if i == bytes.len() {
                    break;
                }
                if let Some(read) = self.whole_reference(&s[i..]) {
                    i += read;
                    continue;
                }
            }
            if let Some(amp) = self.open {
                // A reference is open: the letters and digits it may still
                // take go in at once, as `step` would take them one by one.
                let room = MAX_REFERENCE_BODY.saturating_sub(self.buf.len() - amp - 1);
                let run = bytes[i..]
                    .iter()
                    .take(room)
                    .take_while(|b| b.is_ascii_alphanumeric())
                    .count();
                if run > 0 {
                    self.buf.push_str(&s[i..i + run]);
                    i += run;
                    continue;
                }
            }
            let c = s[i..].chars().next().expect("i is a char boundary");
            i += c.len_utf8();
            self.again.push(c);
            while let Some(c) = self.again.pop() {
                self.step(c);
            }
        }
    }

    /// Reads a whole reference at the start of `s` (which starts with `&`,
    /// nothing being open) at once, when the outcome is one `step` by `step`
    /// would reach without any look back: a body of letters and digits
    /// ended by `;` that decodes to one character that cannot continue or
    /// end another reference (or to `&`, which then opens), one that does
    /// not decode, or a body ended by an ASCII character. Returns the bytes
    /// read, or None (nothing done) when the characters must go one by one.
    ///
    /// Why no look back is needed: `step` re-opens an earlier `&` after a
    /// decoded reference, but the one character taken here closes it again
    /// (it is not a letter, digit, `#` or `;`) or opens a new one (`&`).
    fn whole_reference(&mut self, s: &str) -> Option<usize> {
        let b = s.as_bytes();
        let body_len = b[1..]
            .iter()
            .take(MAX_REFERENCE_BODY)
            .enumerate()
            .take_while(|&(k, &c)| c.is_ascii_alphanumeric() || (c == b'#' && k == 0))
            .count();
        let end = 1 + body_len;
        let &after = b.get(end)?;
        if after != b';' {
            if !after.is_ascii() {
                // Possibly a zero-width character, which the body skips.
                return None;
            }
            // The reference is not one; `after` is read with nothing open.
            self.buf.push_str(&s[..end]);
            return Some(end);
        }
        match decode_reference(&s[1..end]) {
            None => self.buf.push_str(&s[..=end]),
            Some(decoded) => match decoded.single()? {
                '&' => {
                    self.buf.push('&');
                    self.open = Some(self.buf.len() - 1);
                }
                c if c.is_ascii_alphanumeric()
                    || matches!(c, '#' | ';' | '\u{037E}' | '\u{1FEF}' | '\u{212A}')
                    || ZERO_WIDTH.contains(&c) =>
                {
                    return None;
                }
                c => self.buf.push(c),
            },
        }
        Some(end + 1)
    }

    /// One character through rules 2 and 4.
    fn step(&mut self, c: char) {
        let c = match c {
            c if ZERO_WIDTH.contains(&c) => return,
            // NFC maps these singletons to ASCII whatever their context;
            // mapping them first lets one pass see the references they make.
            '\u{037E}' => ';',
            '\u{1FEF}' => '`',
            '\u{212A}' => 'K',
            c => c,
        };
        self.buf.push(c);
        let Some(amp) = self.open else {
            if c == '&' {
                self.open = Some(self.buf.len() - 1);
            }
            return;
        };
        let body_len = self.buf.len() - amp - 2;
        match c {
            '&' => self.open = Some(self.buf.len() - 1),
            ';' => match decode_reference(&self.buf[amp + 1..self.buf.len() - 1]) {
                Some(decoded) => {
                    self.buf.truncate(amp);
                    decoded.push_reversed(&mut self.again);
                    self.open = self.reopen();
                }
                None => self.open = None,
            },
            c if body_len < MAX_REFERENCE_BODY
                && (c.is_ascii_alphanumeric() || (c == '#' && body_len == 0)) => {}
            _ => self.open = None,
        }
    }

    /// After a reference was replaced: the `&` before it that is open again,
    /// if any (only the last `&` can be, and only within the length limit).
    fn reopen(&self) -> Option<usize> {
        revivable(self.buf.as_bytes(), self.buf.len())
    }

    /// Where the text that may still change starts: at the first `&` of the
    /// chain that replacing the open reference could reopen, one after the
    /// other; the whole buffer when nothing is open.
    fn unsettled_from(&self) -> usize {
        let Some(mut start) = self.open else {
            return self.buf.len();
        };
        while let Some(before) = revivable(self.buf.as_bytes(), start) {
            start = before;
        }
        start
    }

    /// Bytes held back.
    fn held(&self) -> usize {
        self.buf.len()
    }

    /// How much of the held text can no longer change: all of it at the end
    /// of input; otherwise up to the last place before the unsettled part
    /// where NFC cannot look across.
    fn settled(&self, eof: bool) -> usize {
        if eof {
            self.buf.len()
        } else {
            last_stable_start(&self.buf[..self.unsettled_from()])
        }
    }

    /// Hands on the first `n` bytes without copying them: the held buffer
    /// becomes the piece, and `spare` takes what stays held.
    fn take(&mut self, n: usize, mut spare: String) -> String {
        spare.clear();
        spare.push_str(&self.buf[n..]);
        let mut piece = std::mem::replace(&mut self.buf, spare);
        piece.truncate(n);
        // At the end everything is handed on, an open reference included.
        self.open = self.open.and_then(|a| a.checked_sub(n));
        piece
    }
}

/// The `&` that text ending at `end` leaves open: the last one within the
/// reference length limit, when its body up to `end` could still become a
/// reference.
fn revivable(bytes: &[u8], end: usize) -> Option<usize> {
    let from = end.saturating_sub(MAX_REFERENCE_BODY + 1);
    let amp = from + bytes[from..end].iter().rposition(|&b| b == b'&')?;
    let open = bytes[amp + 1..end]
        .iter()
        .enumerate()
        .all(|(k, &b)| b.is_ascii_alphanumeric() || (b == b'#' && k == 0));
    open.then_some(amp)
}

/// The `prose-v1` SHA-256 of a reader, as lowercase hex. The hash runs on a
/// second thread, so a large file takes about the time of the slower half
/// rather than the sum.
pub fn fingerprint_reader<R: Read>(reader: R) -> Result<String, NormalizeError> {
    fingerprint_reader_with(reader, PACE)
}

fn fingerprint_reader_with<R: Read>(reader: R, pace: Pace) -> Result<String, NormalizeError> {
    fingerprint_pipeline(reader, pace, Folding::WhenBehind)
}

/// Which thread applies rules 3 and 5 to a released piece.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Folding {
    /// The hashing thread, unless it is behind.
    WhenBehind,
    /// Always the reading thread (so tests cover that way too).
    #[cfg(test)]
    Here,
}

fn fingerprint_pipeline<R: Read>(
    reader: R,
    pace: Pace,
    folding: Folding,
) -> Result<String, NormalizeError> {
    // Rules 1, 2 and 4 run here; rules 3 and 5 on whichever thread is free
    // (the hashing thread, or this one when the hashing thread is behind:
    // dense references weigh on this side, plain prose on the hash), and
    // the hash on the second thread, in order. Buffers come back empty, so
    // the same few serve the whole file.
    let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Piece>(2);
    let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::scope(|scope| {
        let hashing = scope.spawn(move || {
            let mut hasher = Sha256::new();
            let mut ws = WhitespaceFolder::default();
            let mut out = Vec::new();
            for piece in full_rx {
                let mut spent = match piece {
                    Piece::Released(text) => {
                        let text = nfc(text);
                        // In slices, so what the folder writes is still in
                        // the cache when it is hashed.
                        let mut rest = text.as_str();
                        while !rest.is_empty() {
                            let mut cut = SUB_READ.min(rest.len());
                            while !rest.is_char_boundary(cut) {
                                cut += 1;
                            }
                            out.clear();
                            ws.push(&rest[..cut], &mut out);
                            hasher.update(&out);
                            rest = &rest[cut..];
                        }
                        text.into_bytes()
                    }
                    Piece::Folded(folded, ends) => {
                        if ws.join(ends) {
                            hasher.update(b" ");
                        }
                        hasher.update(&folded);
                        folded
                    }
                };
                spent.clear();
                let _ = empty_tx.send(spent);
            }
            hex(&hasher.finalize())
        });
        let spare = || {
            let empty = empty_rx.try_recv().unwrap_or_default();
            String::from_utf8(empty).expect("an empty buffer")
        };
        // A send fails only if the hashing thread is gone, which it is not
        // until the channel closes.
        let read = for_each_released(reader, pace, |text| {
            let text = if folding == Folding::WhenBehind {
                match full_tx.try_send(Piece::Released(text)) {
                    Err(std::sync::mpsc::TrySendError::Full(Piece::Released(text))) => text,
                    _ => return spare(),
                }
            } else {
                text
            };
            let text = nfc(text);
            let mut folded = spare().into_bytes();
            let ends = WhitespaceFolder::fold_alone(&text, &mut folded);
            let _ = full_tx.send(Piece::Folded(folded, ends));
            let mut text = text;
            text.clear();
            text
        });
        drop(full_tx);
        let digest = hashing.join().expect("the hashing thread does not panic");
        read.map(|_| digest)
    })
}

/// What goes to the hashing thread: a released stretch of text, or one
/// already through rules 3 and 5 (folded on its own).
enum Piece {
    Released(String),
    Folded(Vec<u8>, Ends),
}

/// The `prose-v1` SHA-256 of a text held in memory; refused as
/// [`normalize`] refuses it.
pub fn fingerprint_str(text: &str) -> Result<String, NormalizeError> {
    fingerprint_str_with(text, PACE)
}

fn fingerprint_str_with(text: &str, pace: Pace) -> Result<String, NormalizeError> {
    Ok(hex(&Sha256::digest(normalize_with(text, pace)?.as_bytes())))
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

/// Appends up to `chunk` bytes from `reader` to `buf` (fewer only at the
/// end of input); returns how many.
fn read_more<R: Read>(reader: &mut R, buf: &mut Vec<u8>, chunk: usize) -> std::io::Result<usize> {
    reader.take(chunk as u64).read_to_end(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fp(s: &str) -> String {
        fingerprint_str(s).unwrap()
    }

    /// The in-memory normalization of a text these tests know it accepts.
    fn normalize(s: &str) -> String {
        super::normalize(s).unwrap()
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

    /// The rules as docs/formats.md states them, implemented literally: steps 2 to 4
    /// repeated over the whole text until it stops changing, then step 5. The
    /// one-pass streaming implementation must agree with it on every input.
    fn fixed_point(text: &str) -> String {
        fn decode_all(text: &str) -> String {
            let bytes = text.as_bytes();
            let mut out = String::new();
            let (mut copied, mut at) = (0, 0);
            while let Some(rel) = bytes[at..].iter().position(|&b| b == b'&') {
                let amp = at + rel;
                at = amp + 1;
                let window = &bytes[amp + 1..bytes.len().min(amp + 2 + MAX_REFERENCE_BODY)];
                let Some(semi) = window.iter().position(|&b| b == b';') else {
                    continue;
                };
                let Some(decoded) = decode_reference(&text[amp + 1..amp + 1 + semi]) else {
                    continue;
                };
                out.push_str(&text[copied..amp]);
                let mut chars = Vec::new();
                decoded.push_reversed(&mut chars);
                out.extend(chars.iter().rev());
                copied = amp + 2 + semi;
                at = copied;
            }
            out.push_str(&text[copied..]);
            out
        }
        let mut t = text.strip_prefix('\u{FEFF}').unwrap_or(text).to_string();
        loop {
            let next: String = decode_all(&t).nfc().collect();
            let next: String = next.chars().filter(|c| !ZERO_WIDTH.contains(c)).collect();
            if next == t {
                break;
            }
            t = next;
        }
        t.split(char::is_whitespace)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The entry points' pace, reading `chunk` bytes at a time.
    fn in_pieces(chunk: usize) -> Pace {
        Pace { chunk, ..PACE }
    }

    fn streamed(text: &str, chunk: usize) -> String {
        let mut out = Vec::new();
        normalize_stream_with(text.as_bytes(), in_pieces(chunk), |b| {
            out.extend_from_slice(b)
        })
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Pieces that interact under the rules: reference parts, references that
    /// decode to reference parts, zero-width characters, combining marks,
    /// the singletons NFC maps to ASCII, starters that compose, white space.
    const PIECES: &[&str] = &[
        "&", "amp", ";", "#", "x", "1", "3", "8", "a", "m", "p", "lt", "fjlig", "nvlt", "e", "K",
        "\u{0301}", "\u{0308}", "\u{0323}", "\u{200B}", "\u{200D}", "\u{FEFF}", "\u{037E}",
        "\u{212A}", "\u{1FEF}", " ", "\n", "\u{00A0}", "\u{00E9}", "#38", "#x26", "#59", "#x200B",
        "#769", "#12354", "\u{0B47}", "\u{0B3E}", "\u{1100}", "\u{1161}", "\u{11A8}", "&amp;",
        "&#38;", "rsquo", "&#0;", "#1114112",
    ];

    fn pieces() -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(PIECES), 0..80).prop_map(|v| v.concat())
    }

    #[test]
    fn the_one_pass_equals_the_fixed_point_on_known_hard_cases() {
        for text in [
            "&amp;amp;amp;lt;",
            "&a&#109;p;",
            "&am\u{200B}p;x",
            "&amp\u{037E}",
            "&#38;#38;#38;#59;",
            "e&#769;&#x200B;\u{0301}",
            "&&amp;amp;",
            "&a&amp;;",
            "\u{212A}&#x4B;&#8490;",
            "\u{1100}&#x200D;\u{1161}\u{11A8}",
            "&fjlig;ord &nvlt; &NotEqualTilde; &ThickSpace;",
            // A reference that decodes to what ends or goes on with the
            // one before it.
            "&lt&#59; &gt&semi; &l&#116;; &#x26&#x3B;",
            "x&a &b&#x2019;c &d&#x200B;e; &f&#8490;g;",
        ] {
            let want = fixed_point(text);
            assert_eq!(normalize(text), want, "{text:?}");
            for chunk in 1..8 {
                assert_eq!(streamed(text, chunk), want, "{text:?} in pieces of {chunk}");
            }
        }
    }

    #[test]
    fn nested_references_unwind_in_one_pass() {
        let text = format!("&{}lt;", "amp;".repeat(10_000));
        assert_eq!(normalize(&text), "<");
    }

    #[test]
    fn every_two_code_point_reference_decodes_to_both() {
        let doubles: Vec<&entities::Entity> = entities::ENTITIES
            .iter()
            .filter(|e| e.entity.ends_with(';'))
            .filter(|e| matches!(e.codepoints, entities::Codepoints::Double(..)))
            .collect();
        assert_eq!(doubles.len(), 93, "the HTML standard has 93");
        for e in doubles {
            let first = e.characters.chars().next().unwrap().to_string();
            let got = normalize(&format!("x{}y", e.entity));
            assert_eq!(
                got,
                normalize(&format!("x{}y", e.characters)),
                "{}",
                e.entity
            );
            // Two white-space characters fold into one space anyway.
            if !e.characters.chars().all(char::is_whitespace) {
                assert_ne!(
                    got,
                    normalize(&format!("x{first}y")),
                    "{} kept both",
                    e.entity
                );
            }
        }
        assert_ne!(fp("&fjlig;ord"), fp("ford"));
        assert_eq!(fp("&fjlig;ord"), fp("fjord"));
    }

    #[test]
    fn references_longer_than_the_limit_stay_as_they_are() {
        // The body is `#`, then zeros, then `65`: 39 bytes decode, 40 do not.
        let at_limit = format!("&#{}65;", "0".repeat(MAX_REFERENCE_BODY - 3));
        assert_eq!(normalize(&at_limit), "A");
        let over = format!("&#{}65;", "0".repeat(MAX_REFERENCE_BODY - 2));
        assert_eq!(normalize(&over), over);
        assert_eq!(streamed(&over, 3), over);
    }

    #[test]
    fn large_inputs_without_a_space_stream_like_they_normalize() {
        // No space or punctuation anywhere: the old streaming cut inside a
        // reference once 8 MiB had gone by. Small pieces cross every boundary.
        let text = "&#12354;".repeat(40_000);
        let want = "\u{3042}".repeat(40_000);
        assert_eq!(normalize(&text), want);
        for chunk in [5, 7, 4096] {
            assert_eq!(streamed(&text, chunk), want, "pieces of {chunk}");
        }
        let accents = "e\u{0301}".repeat(50_000);
        assert_eq!(streamed(&accents, 3), "\u{00E9}".repeat(50_000));
    }

    #[test]
    fn an_endless_run_of_combining_marks_is_refused_not_held() {
        let marks = "\u{0301}".repeat(MAX_UNSTABLE_RUN / 2 + 1024);
        let err = normalize_stream_with(format!("e{marks}").as_bytes(), in_pieces(1 << 16), |_| {})
            .unwrap_err()
            .to_string();
        assert!(err.contains("combining characters"), "{err}");
        assert!(err.contains("cannot be settled"), "{err}");
    }

    #[test]
    fn a_long_run_after_prose_is_refused_in_memory_as_streamed() {
        // The run starts after text that settles, so read whole it could
        // have been released with the prose before the limit was checked:
        // `snapshot add` then stored what `verify` cannot read back.
        let text = format!(
            "hello a{} b",
            "\u{0301}".repeat((MAX_UNSTABLE_RUN + READ_CHUNK * 3 / 2) / 2)
        );
        assert!(matches!(
            super::normalize(&text),
            Err(NormalizeError::UnstableRun { .. })
        ));
        assert!(fingerprint_str(&text).is_err());
        assert!(fingerprint_reader(text.as_bytes()).is_err());
    }

    /// Every entry point on one input, read at `pace`: none panics, they
    /// accept or refuse it alike, and those that accept it agree on its
    /// normalized text and fingerprint.
    fn entry_points_agree(bytes: &[u8], pace: Pace) -> Result<(), TestCaseError> {
        let mut out = Vec::new();
        let streamed =
            normalize_stream_with(bytes, pace, |b| out.extend_from_slice(b)).map(|_| out);
        let read = fingerprint_reader_with(bytes, pace);
        let folded_here = fingerprint_pipeline(bytes, pace, Folding::Here);
        prop_assert_eq!(
            format!("{:?}", read.as_ref().map_err(ToString::to_string)),
            format!("{:?}", folded_here.map_err(|e| e.to_string()))
        );
        prop_assert_eq!(sha256_reader(bytes).unwrap(), hex(&Sha256::digest(bytes)));
        let Ok(text) = std::str::from_utf8(bytes) else {
            let invalid =
                |e: Option<&NormalizeError>| matches!(e, Some(NormalizeError::InvalidUtf8 { .. }));
            prop_assert!(invalid(streamed.as_ref().err()), "streamed: {:?}", streamed);
            prop_assert!(invalid(read.as_ref().err()), "fingerprinted: {:?}", read);
            return Ok(());
        };
        let in_memory = normalize_with(text, pace);
        let fingerprint = fingerprint_str_with(text, pace);
        match (&streamed, &in_memory) {
            (Ok(s), Ok(m)) => prop_assert_eq!(s.as_slice(), m.as_bytes()),
            (Err(NormalizeError::UnstableRun { .. }), Err(NormalizeError::UnstableRun { .. })) => {}
            other => prop_assert!(false, "streamed and in memory differ: {:?}", other),
        }
        prop_assert_eq!(fingerprint.ok(), read.ok());
        Ok(())
    }

    /// A pace scaled down from the entry points' (pieces of 64 bytes, at
    /// most 256 held), so generated texts reach the limit.
    const SMALL: Pace = Pace {
        chunk: 64,
        held: 256,
        sub: 64,
    };

    /// Text with a run of one piece long enough to reach the `SMALL` limit
    /// of what is held whole, after prose that moves where the run starts
    /// against the places the limit is checked.
    fn long_runs() -> impl Strategy<Value = String> {
        let unit = proptest::sample::select(vec![
            "\u{0301}",
            "&a",
            "&#x3",
            "\u{0B3E}",
            "a\u{0301}",
            "&amp;",
            "\u{200B}",
        ]);
        (0usize..(3 * SMALL.chunk), unit, -2.0f64..2.0, pieces()).prop_map(
            |(prefix, unit, over, tail)| {
                let len = SMALL.held as f64 + over * SMALL.chunk as f64;
                let n = (len / unit.len() as f64).max(0.0) as usize;
                format!("{}a{}{tail}", "word ".repeat(prefix / 5), unit.repeat(n))
            },
        )
    }

    proptest! {
        #[test]
        fn no_input_panics_an_entry_point(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            entry_points_agree(&bytes, PACE)?;
            entry_points_agree(&bytes, SMALL)?;
        }

        #[test]
        fn no_text_panics_an_entry_point(s in prop_oneof![pieces(), "\\PC{0,300}".prop_map(String::from)]) {
            entry_points_agree(s.as_bytes(), PACE)?;
            entry_points_agree(s.as_bytes(), SMALL)?;
        }

        #[test]
        fn no_long_run_panics_an_entry_point(s in long_runs()) {
            entry_points_agree(s.as_bytes(), SMALL)?;
        }
    }

    /// What a text gives at `pace`: the normalized text, or the refusal.
    fn outcome(bytes: &[u8], pace: Pace) -> String {
        let mut out = Vec::new();
        match normalize_stream_with(bytes, pace, |b| out.extend_from_slice(b)) {
            Ok(_) => String::from_utf8(out).unwrap(),
            Err(e) => format!("refused: {e}"),
        }
    }

    proptest! {
        #[test]
        fn reads_smaller_than_the_pace_change_nothing(
            s in prop_oneof![long_runs(), pieces()],
            sub in 1usize..=SMALL.chunk,
            bom in any::<bool>(),
        ) {
            let text = if bom { format!("\u{FEFF}{s}") } else { s };
            let small = Pace { sub, ..SMALL };
            prop_assert_eq!(outcome(text.as_bytes(), small), outcome(text.as_bytes(), SMALL));
        }
    }

    #[test]
    fn a_text_ending_where_a_small_read_does_is_checked_as_a_short_pace_read() {
        // 296 bytes: the last pace read (64 bytes each) is a short one of
        // 40, made of five full reads of 8; the run held at its end (295
        // bytes) is over the limit, and only a check there refuses it.
        let text = format!("ab{}", "\u{0301}".repeat(147));
        let small = Pace { sub: 8, ..SMALL };
        assert!(outcome(text.as_bytes(), SMALL).starts_with("refused"));
        assert_eq!(
            outcome(text.as_bytes(), small),
            outcome(text.as_bytes(), SMALL)
        );
    }

    #[test]
    fn long_runs_reach_the_limit_both_ways() {
        // The generator is only worth running if it makes texts on both
        // sides of the limit.
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let (mut refused, mut accepted) = (0, 0);
        for _ in 0..200 {
            let s = long_runs().new_tree(&mut runner).unwrap().current();
            match normalize_with(&s, SMALL) {
                Ok(_) => accepted += 1,
                Err(_) => refused += 1,
            }
        }
        assert!(
            refused > 20 && accepted > 20,
            "{refused} refused, {accepted} accepted"
        );
    }

    proptest! {
        #[test]
        fn normalization_is_idempotent(s in "(\\PC|[ \\t\\r\\n\u{00A0}\u{200B}\u{200D}\u{0301}]|&(amp|rsquo|nbsp|#8217|#x200B);?){0,64}") {
            let once = normalize(&s);
            prop_assert_eq!(normalize(&once), once.clone());
        }

        #[test]
        fn streaming_equals_in_memory(s in "(\\PC|\\s|&(amp|lt|#233);){0,200}", chunk in 1usize..9) {
            prop_assert_eq!(streamed(&s, chunk), normalize(&s));
        }

        #[test]
        fn white_space_folds_like_split_and_join(s in "([a-z.]{0,9}( |  |\n|\t|\r\n|\u{00A0}|\u{2028})?){0,40}", chunk in 1usize..20) {
            let want = s.split(char::is_whitespace).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
            prop_assert_eq!(normalize(&s), want.clone());
            prop_assert_eq!(streamed(&s, chunk), want);
        }

        #[test]
        fn one_pass_in_any_pieces_equals_the_fixed_point(s in pieces(), chunk in 1usize..12) {
            let want = fixed_point(&s);
            prop_assert_eq!(normalize(&s), want.clone());
            prop_assert_eq!(streamed(&s, chunk), want);
        }
    }
}
