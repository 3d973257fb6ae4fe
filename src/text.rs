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
