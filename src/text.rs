//! Text helpers shared by every layer: reading text files strictly (UTF-8
//! or a clear error naming the file and the byte offset), short prefixes of
//! ids, hex digests, and aligned plain-text tables.

use std::path::Path;

use comfy_table::{CellAlignment, Table, presets};

use crate::error::{Error, Result};

/// The most the tool reads whole of any one file: chapter text, reports,
/// templates, the files of a record (YAML has its own limit of the same
/// size, in `yaml_io`). docs/commands.md lists it with the other limits.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Reads a whole file of at most `limit` bytes. A regular file's size is
/// checked before anything is read; anything else (a pipe, `/dev/zero`) is
/// read to one byte past the limit and no further. Past the limit the
/// error (kind `FileTooLarge`) names the size and the limit.
pub fn read_at_most(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let stated = format!("the {limit}-byte ({}) limit", mib(limit));
    let too_large = |what: String| std::io::Error::new(std::io::ErrorKind::FileTooLarge, what);
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() > limit {
        let size = meta.len();
        return Err(too_large(format!(
            "{size} bytes, more than {stated}; refusing to read it"
        )));
    }
    let mut bytes = Vec::with_capacity(if meta.is_file() {
        meta.len() as usize
    } else {
        0
    });
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(format!(
            "more than {stated}; stopped reading there"
        )));
    }
    Ok(bytes)
}

/// A size in MiB as the limits are stated: `16 MiB`.
fn mib(bytes: u64) -> String {
    format!("{} MiB", number(bytes as f64 / f64::from(1u32 << 20)))
}

/// Reads a whole file of at most [`MAX_FILE_BYTES`] that must be UTF-8.
pub fn read_utf8(path: &Path) -> Result<String> {
    let bytes = read_at_most(path, MAX_FILE_BYTES).map_err(|e| Error::io(path, e))?;
    String::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to() as u64,
    })
}

/// Checks a file the tool is about to read from one of its own folders
/// (`book-snapshots/`, `records/`, a templates folder): it must be a regular
/// file (not a FIFO or a device, which would hang or never end) and lie
/// inside `folder` once links are followed (a link out is refused, so a
/// snapshot linked to /etc/passwd is never quoted as chapter text).
pub fn check_owned(path: &Path, folder: &Path) -> Result<()> {
    let folder = folder.canonicalize().map_err(|e| Error::io(folder, e))?;
    check_owned_in(path, &folder)
}

/// [`check_owned`] with the folder already canonical (for checking many
/// files of one folder).
pub fn check_owned_in(path: &Path, folder: &Path) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(Error::invalid(
            path,
            "not a regular file; refusing to read it",
        ));
    }
    // A plain file (not a link) under a canonical folder needs no lookup.
    let is_link = std::fs::symlink_metadata(path)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(true);
    let real = if !is_link
        && path.starts_with(folder)
        && !path
            .components()
            .any(|c| c == std::path::Component::ParentDir)
    {
        path.to_path_buf()
    } else {
        path.canonicalize().map_err(|e| Error::io(path, e))?
    };
    if !real.starts_with(folder) {
        return Err(Error::invalid(
            path,
            format!(
                "leads outside {} (to {}); refusing to read it",
                folder.display(),
                real.display()
            ),
        ));
    }
    Ok(())
}

/// [`read_utf8`] for a file in one of the tool's own folders
/// ([`check_owned`] first).
pub fn read_owned(path: &Path, folder: &Path) -> Result<String> {
    check_owned(path, folder)?;
    read_utf8(path)
}

/// A number as reports and pages show it: at most three decimals, trailing
/// zeros dropped (`7.365`, `0.5`, `444`).
pub fn number(x: f64) -> String {
    format!("{x:.3}")
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

/// The first `n` characters of `s` (all of it when shorter), for short
/// forms of ids and digests read from files a user may have edited.
pub fn prefix(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// Lowercase hex of a digest.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// Items as a comma-separated list: `0, 1, 2`.
pub fn list<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Removes any user name, password or token from a URL, in both the
/// `scheme://user:secret@host/path` form (parsed by the `url` crate) and the
/// scp-like `user@host:path` form, which is not a URL and is handled by hand.
pub fn redact_url(url: &str) -> String {
    if let Ok(mut parsed) = url::Url::parse(url)
        && parsed.has_host()
    {
        // Both calls only fail for URLs that cannot have credentials.
        let _ = parsed.set_username("");
        let _ = parsed.set_password(None);
        return parsed.to_string();
    }
    // scp-like: user@host:path (no scheme). Only strip when the @ comes
    // before the first colon, so a path with @ in it is left alone.
    match (url.find('@'), url.find(':')) {
        (Some(at), Some(colon)) if at < colon && !url.contains("://") => url[at + 1..].to_string(),
        _ => url.to_string(),
    }
}

/// How a column of an [`aligned`] table is aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// Rows laid out as columns two spaces apart, without borders, one line per
/// row (header first), each line ending in a newline and no trailing spaces.
pub fn aligned(header: &[&str], rows: &[Vec<String>], align: &[Align]) -> String {
    let mut table = Table::new();
    table.load_preset(presets::NOTHING);
    table.set_header(header.to_vec());
    for row in rows {
        table.add_row(row.clone());
    }
    let last = header.len().saturating_sub(1);
    for (i, column) in table.column_iter_mut().enumerate() {
        column.set_padding((0, if i == last { 0 } else { 2 }));
        if align.get(i) == Some(&Align::Right) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = String::new();
    for line in table.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_never_splits_a_character() {
        assert_eq!(prefix("abcdef", 3), "abc");
        assert_eq!(prefix("ab", 3), "ab");
        assert_eq!(prefix("ééé", 2), "éé");
    }

    #[test]
    fn aligned_tables_put_two_spaces_between_columns() {
        let rows = vec![
            vec!["0".to_string(), "414".to_string(), "a".to_string()],
            vec!["8".to_string(), "3049".to_string(), "bb".to_string()],
        ];
        let text = aligned(
            &["workers", "ex/s", "x"],
            &rows,
            &[Align::Right, Align::Right, Align::Left],
        );
        assert_eq!(
            text,
            "workers  ex/s  x\n      0   414  a\n      8  3049  bb\n"
        );
    }
}
