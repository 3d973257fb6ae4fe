//! Validated identifiers: book and chapter ids, the chapter key they make,
//! and run ids. An id reaches a path only through these types, so a hostile
//! or mistyped id can never name a file outside the project.
//!
//! This module is a leaf: it imports nothing of the crate, so every layer can
//! use it. Its errors are its own ([`IdError`]); `error.rs` wraps them.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Why a text is not a valid id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// A book or chapter id that could not be a single path component.
    #[error("invalid id '{id}': {reason}")]
    Component { id: String, reason: String },
    /// A run id that does not have the site's shape.
    #[error("invalid run id '{id}': {reason}")]
    Run { id: String, reason: &'static str },
}

/// A book or chapter id: a single path component of ASCII lowercase
/// letters, digits, `-`, `_` and `.` (not `.` or `..` alone, and no `..`
/// inside). Nothing else, so two ids that look alike are the same id: no
/// confusable letters from other scripts (Cyrillic `о` for `o`), no
/// invisible or bidirectional characters (U+200B, U+202E), no fullwidth
/// forms, no accents in either normal form, no upper case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Id(String);

impl Id {
    /// Checks `raw` and wraps it. The error names the first character that
    /// is not allowed (by its code point, so an invisible one shows) and
    /// says what is.
    pub fn parse(raw: &str) -> Result<Self, IdError> {
        let reason = if raw.is_empty() {
            Some("it is empty".to_string())
        } else if raw.contains('/') || raw.contains('\\') {
            Some("it contains a path separator".to_string())
        } else if raw.contains("..") || raw == "." {
            Some("it contains '..' or is '.'".to_string())
        } else {
            raw.chars()
                .enumerate()
                .find(|(_, c)| !is_id_char(*c))
                .map(|(i, c)| refused_char(i, c))
        };
        match reason {
            Some(reason) => Err(IdError::Component {
                id: raw.escape_debug().to_string(),
                reason,
            }),
            None => Ok(Id(raw.to_string())),
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What an id is made of (docs/commands.md, "Naming a chapter").
pub const ID_CHARS: &str = "ASCII lowercase letters a-z, digits 0-9, '-', '_' and '.'";

/// Whether `c` may appear in a book or chapter id.
fn is_id_char(c: char) -> bool {
    matches!(c, 'a'..='z' | '0'..='9' | '-' | '_' | '.')
}

/// Why the character at (0-based) position `at` is refused.
fn refused_char(at: usize, c: char) -> String {
    let what = if c.is_ascii_uppercase() {
        format!("the uppercase letter '{c}'")
    } else if c.is_ascii_graphic() || c == ' ' {
        format!("'{c}'")
    } else {
        // Code point only: the character itself may be invisible, turn the
        // text around (U+202E) or look like an ASCII letter.
        format!("U+{:04X}", c as u32)
    };
    format!(
        "character {} is {what}; ids are {ID_CHARS}{}",
        at + 1,
        if c.is_ascii_uppercase() {
            " (ids are lowercase)"
        } else {
            ""
        }
    )
}

impl TryFrom<String> for Id {
    type Error = IdError;
    fn try_from(raw: String) -> Result<Self, IdError> {
        Id::parse(&raw)
    }
}

impl From<Id> for String {
    fn from(id: Id) -> String {
        id.0
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A chapter's place in the registry: `<book-id>/<chapter-id>`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChapterKey {
    pub book: Id,
    pub chapter: Id,
}

impl ChapterKey {
    /// Parses `<book-id>/<chapter-id>`; None when there is no `/`.
    pub fn parse(text: &str) -> Option<Result<Self, IdError>> {
        let (book, chapter) = text.split_once('/')?;
        Some(Id::parse(book).and_then(|book| {
            Ok(ChapterKey {
                book,
                chapter: Id::parse(chapter)?,
            })
        }))
    }
}

impl fmt::Display for ChapterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.book, self.chapter)
    }
}

/// A run id in the site's shape: `<book-id>:<chapter-id>:<UTC
/// YYYYMMDDTHHMMSS>:<12 lowercase hex>`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RunId {
    /// The chapter the run belongs to.
    pub chapter: ChapterKey,
    /// `YYYYMMDDTHHMMSS`, UTC.
    stamp: String,
    /// 12 lowercase hex digits.
    hex: String,
}

/// The time format of a run id's third part.
const STAMP_FORMAT: &str = "%Y%m%dT%H%M%S";

impl RunId {
    /// Parses and checks a run id.
    pub fn parse(s: &str) -> Result<Self, IdError> {
        let bad = |reason: &'static str| IdError::Run {
            id: s.escape_debug().to_string(),
            reason,
        };
        let mut parts = s.rsplitn(4, ':');
        let (Some(hex), Some(stamp), Some(chapter), Some(book)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad(
                "expected <book-id>:<chapter-id>:<YYYYMMDDTHHMMSS>:<12 hex>",
            ));
        };
        if hex.len() != 12 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(bad("the last part must be 12 lowercase hex digits"));
        }
        if chrono::NaiveDateTime::parse_from_str(stamp, STAMP_FORMAT).is_err() {
            return Err(bad("the third part must be a UTC time YYYYMMDDTHHMMSS"));
        }
        Ok(RunId {
            chapter: ChapterKey {
                book: Id::parse(book)?,
                chapter: Id::parse(chapter)?,
            },
            stamp: stamp.into(),
            hex: hex.into(),
        })
    }

    /// The id for a chapter, a time and a content hash (at least 12 hex
    /// digits; the first 12 are kept).
    pub fn new(chapter: &ChapterKey, at: DateTime<Utc>, content_sha256: &str) -> Self {
        RunId {
            chapter: chapter.clone(),
            stamp: at.format(STAMP_FORMAT).to_string(),
            hex: content_sha256.chars().take(12).collect(),
        }
    }

    /// File-name stem: `<stamp>-<hex>`.
    pub fn stem(&self) -> String {
        format!("{}-{}", self.stamp, self.hex)
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}:{}",
            self.chapter.book, self.chapter.chapter, self.stamp, self.hex
        )
    }
}

impl TryFrom<String> for RunId {
    type Error = IdError;
    fn try_from(s: String) -> Result<Self, IdError> {
        RunId::parse(&s)
    }
}

impl From<RunId> for String {
    fn from(r: RunId) -> String {
        r.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_ids_that_could_escape_a_folder() {
        for bad in [
            "", ".", "..", "a/b", "a\\b", "../x", "x..y", "a\nb", "a\u{7f}",
        ] {
            assert!(Id::parse(bad).is_err(), "{bad:?}");
        }
        for good in [
            "06",
            "pytorch-from-first-principles",
            "ch.6",
            "06-chapter",
            "a_b",
        ] {
            assert!(Id::parse(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn ids_are_ascii_and_the_error_names_the_character_by_code_point() {
        for (bad, named) in [
            ("systems-n\u{43e}tes", "character 10 is U+043E"),
            ("ab\u{202e}c", "character 3 is U+202E"),
            ("a\u{200b}b", "character 2 is U+200B"),
            ("\u{ff53}ystems", "character 1 is U+FF53"),
            ("cafe\u{301}", "character 5 is U+0301"),
            ("caf\u{e9}", "character 4 is U+00E9"),
            ("Systems-Notes", "character 1 is the uppercase letter 'S'"),
            ("a b", "character 2 is ' '"),
            ("a:b", "character 2 is ':'"),
            ("a\tb", "character 2 is U+0009"),
        ] {
            let err = Id::parse(bad).unwrap_err().to_string();
            assert!(err.contains(named), "{bad:?}: {err}");
            assert!(err.contains(ID_CHARS), "{err}");
            assert!(
                !err.contains('\u{202e}') && !err.contains('\u{200b}'),
                "{err:?}"
            );
        }
        assert!(
            Id::parse("Systems")
                .unwrap_err()
                .to_string()
                .contains("ids are lowercase")
        );
    }

    #[test]
    fn run_ids_round_trip_and_carry_their_chapter() {
        let text = "pytorch-from-first-principles:06:20261130T102523:b7cc08571789";
        let id = RunId::parse(text).unwrap();
        assert_eq!(id.to_string(), text);
        assert_eq!(id.chapter.to_string(), "pytorch-from-first-principles/06");
        assert_eq!(id.stem(), "20261130T102523-b7cc08571789");
        // A book id may not hold a colon's worth of path tricks either.
        assert!(RunId::parse("../x:06:20261130T102523:b7cc08571789").is_err());
    }

    #[test]
    fn malformed_run_ids_say_which_part_is_wrong() {
        for (bad, why) in [
            ("b:06:20261130T102523", "expected <book-id>"),
            ("b:06:20261130T102523:B7CC08571789", "12 lowercase hex"),
            ("b:06:20261130T102523:b7cc0857178", "12 lowercase hex"),
            ("b:06:2026-11-30:b7cc08571789", "UTC time"),
            ("b:06:20261330T102523:b7cc08571789", "UTC time"),
        ] {
            let err = RunId::parse(bad).unwrap_err().to_string();
            assert!(err.contains(why), "{bad}: {err}");
            assert!(err.starts_with("invalid run id"), "{err}");
        }
    }

    #[test]
    fn a_new_run_id_takes_the_time_and_twelve_hex_digits() {
        let key = ChapterKey::parse("book/07").unwrap().unwrap();
        let at = DateTime::parse_from_rfc3339("2026-11-30T10:25:23.9Z")
            .unwrap()
            .with_timezone(&Utc);
        let id = RunId::new(&key, at, &"ab".repeat(32));
        assert_eq!(id.to_string(), "book:07:20261130T102523:abababababab");
        assert_eq!(RunId::parse(&id.to_string()).unwrap(), id);
    }
}
