//! Reading text files strictly: UTF-8 or a clear error naming the file and
//! the byte offset where it stops being UTF-8.

use std::path::Path;

use crate::error::{Error, Result};

/// Reads a whole file that must be UTF-8.
pub fn read_utf8(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    String::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to() as u64,
    })
}

/// The first `n` characters of `s` (all of it when shorter), for short
/// forms of ids and digests read from files a user may have edited.
pub fn prefix(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

#[cfg(test)]
mod tests {
    use super::prefix;

    #[test]
    fn prefix_never_splits_a_character() {
        assert_eq!(prefix("abcdef", 3), "abc");
        assert_eq!(prefix("ab", 3), "ab");
        assert_eq!(prefix("ééé", 2), "éé");
    }
}
