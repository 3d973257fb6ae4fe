//! All YAML reading and writing goes through here, so that `serde_yaml`
//! (deprecated upstream, chosen by the user) could be swapped in one place.

use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

/// Parses `text` (read from `path`) as `T`. The error names the file, the
/// field path, and the line and column.
pub fn from_str<T: DeserializeOwned>(text: &str, path: &Path) -> Result<T> {
    let de = serde_yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|err| {
        let field = err.path().to_string();
        let inner = err.into_inner();
        let location = inner
            .location()
            .map(|l| format!("line {}, column {}: ", l.line(), l.column()))
            .unwrap_or_default();
        // serde_yaml appends " at line L column C" itself; keep one copy.
        let mut message = inner.to_string();
        if let Some(i) = message.find(" at line ") {
            message.truncate(i);
        }
        // serde_yaml may also start with the field path; keep one copy.
        if let Some(rest) = message.strip_prefix(&format!("{field}: ")) {
            message = rest.to_string();
        }
        let field = if field == "." {
            String::new()
        } else {
            format!("field '{field}': ")
        };
        Error::Yaml {
            path: path.to_path_buf(),
            message: format!("{location}{field}{message}"),
        }
    })
}

/// Reads and parses a YAML file.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let text = crate::text::read_utf8(path)?;
    from_str(&text, path)
}

/// Serializes `value` as YAML text.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_yaml::to_string(value).map_err(|e| Error::Other(format!("cannot write YAML: {e}")))
}
