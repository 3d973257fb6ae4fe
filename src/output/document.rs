//! A rendered document (`prompt`, `report`) written to a file, never over
//! one, or to standard output; as text, or as JSON with what its template
//! was given.

use std::path::Path;

use serde::Serialize;

use super::{Format, Out, wrote};
use crate::error::{Error, Result};

/// A rendered document with what its template was given (`--format json`).
#[derive(Serialize)]
pub struct DocView<'a> {
    pub text: &'a str,
    pub context: &'a serde_json::Value,
}

/// Writes a document to `to` (never over a file) or to standard output: as
/// JSON with its context when `format` is JSON, else as its text.
pub fn emit_document(
    out: &mut Out,
    to: Option<&Path>,
    doc: DocView<'_>,
    format: Format,
    what: &str,
) -> Result<()> {
    let text = if format == Format::Json {
        let mut s = serde_json::to_string_pretty(&doc)
            .map_err(|e| Error::Other(format!("cannot write JSON: {e}")))?;
        s.push('\n');
        s
    } else {
        doc.text.to_string()
    };
    match to {
        Some(path) => {
            crate::atomic::write_new(path, text.as_bytes())?;
            wrote(path, what);
            Ok(())
        }
        // A file gets the document as rendered; a terminal, nothing that
        // could drive it.
        None => out.write(&crate::text::escape::visible_lines(&text)),
    }
}
