//! Validated identifiers. An id reaches a path only through these types, so a
//! hostile or mistyped id can never name a file outside the project.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A book or chapter id: a single path component with no `/`, `\`, `..` or
/// control characters.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Id(String);

impl Id {
    /// Checks `raw` and wraps it.
    pub fn parse(raw: &str) -> Result<Self> {
        let reason = if raw.is_empty() {
            Some("it is empty")
        } else if raw.contains('/') || raw.contains('\\') {
            Some("it contains a path separator")
        } else if raw.contains("..") || raw == "." {
            Some("it contains '..' or is '.'")
        } else if raw.chars().any(char::is_control) {
            Some("it contains a control character")
        } else {
            None
        };
        match reason {
            Some(reason) => Err(Error::InvalidId {
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

impl TryFrom<String> for Id {
    type Error = String;
    fn try_from(raw: String) -> std::result::Result<Self, String> {
        Id::parse(&raw).map_err(|e| e.to_string())
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

impl fmt::Display for ChapterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.book, self.chapter)
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
        for good in ["06", "pytorch-from-first-principles", "ch.6", "06-chapter"] {
            assert!(Id::parse(good).is_ok(), "{good:?}");
        }
    }
}
