//! Reading a file whole without hanging or running out of memory: only
//! regular files are opened (a FIFO or a device is refused, named for what
//! it is), at most a size is read ([`MAX_FILE_BYTES`] unless the caller
//! gives another limit), and text must be UTF-8 or the error names the
//! file and the byte offset (`open_regular`, `read_at_most`, `read_utf8`,
//! `file_kind`). Files of the tool's own folders are checked first by
//! [`super::owned`].

use std::path::Path;

use super::format::number;
use crate::error::{Error, Result};

/// The most the tool reads whole of any one file: chapter text, reports,
/// templates, the files of a record (YAML has its own limit of the same
/// size, in `yaml_io`). docs/commands.md lists it with the other limits.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Opens a file the user named (or one of the tool's own) for reading,
/// refusing anything that is not a regular file: a FIFO would wait for a
/// writer forever and a device (`/dev/zero`) never ends. The open itself
/// cannot wait (O_NONBLOCK, `sys::open_read_nonblocking`); the open file's
/// type is then read with `fstat`, so what is checked is what is read, and
/// a regular file is handed back with O_NONBLOCK cleared. The error (kind
/// `InvalidInput`) says what the file is: `a FIFO (named pipe), not a
/// regular file; refusing to read it`. When the open itself fails and the
/// path is there but no regular file (a socket cannot be opened at all:
/// ENXIO), the error says what it is in the same words, not the system's.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let file = match crate::sys::open_read_nonblocking(path) {
        Ok(file) => file,
        Err(e) => {
            return Err(match std::fs::metadata(path) {
                Ok(meta) if !meta.is_file() => not_regular(&meta),
                _ => e,
            });
        }
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    crate::sys::set_blocking(&file)?;
    Ok(file)
}

/// The error [`open_regular`] gives for a file that is not a regular file.
fn not_regular(meta: &std::fs::Metadata) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "{}, not a regular file; refusing to read it",
            file_kind(&meta.file_type())
        ),
    )
}

/// Reads a whole regular file ([`open_regular`]) of at most `limit` bytes.
/// Its size is checked before anything is read, and the read stops one
/// byte past the limit (a file growing while it is read). Past the limit
/// the error (kind `FileTooLarge`) names the size and the limit.
pub fn read_at_most(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let stated = format!("the {limit}-byte ({}) limit", mib(limit));
    let too_large = |what: String| std::io::Error::new(std::io::ErrorKind::FileTooLarge, what);
    let file = open_regular(path)?;
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

/// What a file that is not a regular file is, in words (`a FIFO`), from its
/// type as `stat` gives it: nothing is opened to find out.
pub fn file_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_symlink() {
        "a link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_or_a_folder_is_named_for_what_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("s");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let said = |p: &Path| open_regular(p).unwrap_err().to_string();
        assert_eq!(
            said(&socket),
            "a socket, not a regular file; refusing to read it"
        );
        assert_eq!(
            said(dir.path()),
            "a folder, not a regular file; refusing to read it"
        );
        // A missing file keeps the system's words.
        assert!(said(&dir.path().join("none")).contains("No such file"));
    }
}
