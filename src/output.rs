//! Writing to standard output with errors that carry a name, so a closed pipe
//! can be told apart from a real failure.

use std::io::Write;

use serde::Serialize;

use crate::error::{Error, Result};

/// Standard output, locked, with errors mapped to [`Error::Io`].
pub struct Out {
    inner: std::io::StdoutLock<'static>,
}

impl Default for Out {
    fn default() -> Self {
        Out {
            inner: std::io::stdout().lock(),
        }
    }
}

impl Out {
    /// Writes a string.
    pub fn write(&mut self, s: &str) -> Result<()> {
        self.inner
            .write_all(s.as_bytes())
            .map_err(|e| Error::io("<stdout>", e))
    }

    /// Writes raw bytes.
    pub fn bytes(&mut self, b: &[u8]) -> Result<()> {
        self.inner
            .write_all(b)
            .map_err(|e| Error::io("<stdout>", e))
    }

    /// Writes a line.
    pub fn line(&mut self, s: impl AsRef<str>) -> Result<()> {
        self.write(s.as_ref())?;
        self.write("\n")
    }

    /// Writes `value` as pretty JSON followed by a newline.
    pub fn json<T: Serialize>(&mut self, value: &T) -> Result<()> {
        let text = serde_json::to_string_pretty(value).map_err(|e| Error::Other(e.to_string()))?;
        self.line(text)
    }

    /// Writes `value` as YAML.
    pub fn yaml<T: Serialize>(&mut self, value: &T) -> Result<()> {
        let text = crate::yaml_io::to_string(value)?;
        self.write(&text)
    }

    /// Flushes.
    pub fn flush(&mut self) -> Result<()> {
        self.inner.flush().map_err(|e| Error::io("<stdout>", e))
    }
}
