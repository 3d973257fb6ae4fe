//! Text helpers shared by every layer:
//! - reading files: regular files only, at most a size, UTF-8 or an error
//!   naming the file and the byte offset (`open_regular`, `read_at_most`,
//!   `read_utf8`), and files of the tool's own folders checked to lie
//!   inside them (`check_owned`, `read_owned`);
//! - text printed or quoted: invisible and control characters escaped
//!   (`visible`, `visible_lines`), and quoted lines that could pass for a
//!   document's structure marked (`quoted`);
//! - URLs: credentials and secret parameters taken out, in one URL or in
//!   free text (`redact_url`, `redact_urls_in`, `url_spans`);
//! - numbers and lists as the tool prints them (`number`, `setting`,
//!   `list`), short prefixes of ids, hex digests, and aligned plain-text
//!   tables.

use std::path::Path;

use comfy_table::{CellAlignment, Table, presets};

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
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                && std::fs::symlink_metadata(path).is_ok() =>
        {
            return Err(Error::invalid(
                path,
                "a link to a file that does not exist; refusing to read it",
            ));
        }
        Err(e) => return Err(Error::io(path, e)),
    };
    if !meta.is_file() {
        return Err(Error::invalid(
            path,
            format!(
                "{}, not a regular file; refusing to read it",
                file_kind(&meta.file_type())
            ),
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

/// [`read_utf8`] for a file in one of the tool's own folders
/// ([`check_owned`] first).
pub fn read_owned(path: &Path, folder: &Path) -> Result<String> {
    check_owned(path, folder)?;
    read_utf8(path)
}

/// Whether `c` is an invisible character that can change how text around
/// it reads, or hide in it, without showing itself: every format character
/// (Unicode general category Cf: direction marks and overrides, zero-width
/// spaces and joiners, the byte order mark, interlinear annotation marks,
/// tag characters, ...), every Default_Ignorable_Code_Point (the soft
/// hyphen U+00AD, the combining grapheme joiner U+034F, the Hangul fillers
/// U+115F, U+1160, U+3164 and U+FFA0, the Khmer vowels U+17B4 and U+17B5,
/// the Mongolian selectors U+180B to U+180F, variation selectors, U+2060
/// to U+206F, U+FFF0 to U+FFF8, U+E0000 to U+E0FFF, ...), and the blank
/// Braille pattern U+2800, which shows as a space. The categories and the
/// set come from the Unicode data of `icu_properties`.
pub fn is_format_char(c: char) -> bool {
    use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory};
    use icu_properties::{CodePointMapData, CodePointSetData};
    // Nothing below the soft hyphen is a format or ignorable character.
    if c < '\u{AD}' {
        return false;
    }
    c == '\u{2800}'
        || CodePointMapData::<GeneralCategory>::new().get(c) == GeneralCategory::Format
        || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
}

/// Whether `c` breaks a line without being a control character: the
/// Unicode line and paragraph separators (U+2028, U+2029), which some
/// readers show as a new line.
fn is_line_separator(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}')
}

/// Text read from a file (a title, a note, a quote, an error naming a
/// value, a cell id) as a terminal may show it on one line: every control
/// character (line feed, carriage return, tab, NUL, BEL and escape
/// included; C1 controls too), every invisible formatting character
/// ([`is_format_char`]: U+202E, U+200B, ...) and the line and paragraph
/// separators (U+2028, U+2029) are written as an escape
/// (`\n`, `\r`, `\t`, `\u{1b}`, `\u{202e}`), so no file can forge a line,
/// move the cursor, colour the terminal or turn the text around. Borrowed
/// when nothing needs escaping. Every print of file-derived text goes
/// through here.
pub fn visible(s: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| c.is_control() || is_format_char(c) || is_line_separator(c);
    if !s.contains(hidden) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A whole document (a prompt, a report, a cell's output) as a terminal, a
/// file or a page may show it: its lines kept (line feeds, tabs, and
/// carriage returns before a line feed), every other control character,
/// every invisible formatting character and the line and paragraph
/// separators (U+2028, U+2029) written as an escape as [`visible`]
/// does, so text quoted from a chapter, a notebook or a ledger can neither
/// drive the terminal nor hide or reorder what it says.
pub fn visible_lines(s: &str) -> std::borrow::Cow<'_, str> {
    let bytes = s.as_bytes();
    let hidden = |i: usize, c: char| {
        (c.is_control()
            && c != '\n'
            && c != '\t'
            && !(c == '\r' && bytes.get(i + 1) == Some(&b'\n')))
            || is_format_char(c)
            || is_line_separator(c)
    };
    if !s.char_indices().any(|(i, c)| hidden(i, c)) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for (i, c) in s.char_indices() {
        if hidden(i, c) {
            out.push_str(&visible(c.encode_utf8(&mut [0; 4])));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The mark [`quoted`] puts before a line of quoted text that could pass
/// for the structure of the document quoting it.
pub const QUOTE_MARK: &str = "| ";

/// Whether a line, after its leading white space and invisible characters,
/// starts the way a line of a prompt's or a report's own structure does,
/// or like a look-alike of one: a section line (`=`), a Markdown heading
/// (`#`), a rule or a cell's header (`---`), a cell's first line (`>>>`), a
/// code fence (three backquotes or tildes), a table row or quoted line
/// (`|`), or two or more of the same character that is neither a letter,
/// a digit nor white space (`══`, `━━`, `≡≡`, `———`, `**`, `..`), which
/// can draw a rule or a heading of its own. Fullwidth forms (U+FF01 to
/// U+FF5E: `＝`, `＃`, `－`, `＞`) and small form variants (U+FE50 to U+FE6B:
/// `﹦`, `﹟`) are read as the ASCII character they look like
/// ([`look_alike`]). The invisible characters skipped are those
/// [`visible`] escapes, raw or as it writes them (`\u{ad}`, `\r`), so a
/// line cannot hide its start behind one.
pub fn looks_like_structure(line: &str) -> bool {
    let mut lead = significant_chars(line).map(look_alike);
    let Some(first) = lead.next() else {
        return false;
    };
    let second = lead.next();
    let third = lead.next();
    let starts = |a: char, b: char, c: char| first == a && second == Some(b) && third == Some(c);
    matches!(first, '=' | '#' | '|')
        || starts('-', '-', '-')
        || starts('>', '>', '>')
        || starts('`', '`', '`')
        || starts('~', '~', '~')
        || (second == Some(first) && !first.is_alphanumeric() && !first.is_whitespace())
}

/// The ASCII character `c` is a look-alike of, if it is a fullwidth form
/// (U+FF01 to U+FF5E, `＝` for `=`) or a small form variant (U+FE50 to
/// U+FE6B, `﹦` for `=`, `﹟` for `#`); else `c` itself.
pub fn look_alike(c: char) -> char {
    const SMALL: [char; 28] = [
        ',', ',', '.', '\u{FE53}', ';', ':', '?', '!', '-', '(', ')', '{', '}', '[', ']', '#', '&',
        '*', '+', '-', '<', '>', '=', '\u{FE67}', '\\', '$', '%', '@',
    ];
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{FE50}'..='\u{FE6B}' => SMALL[(c as u32 - 0xFE50) as usize],
        _ => c,
    }
}

/// The characters of `line` a reader sees at its start: leading white
/// space dropped, and invisible characters dropped wherever they are,
/// whether raw or escaped as [`visible`] writes them (`\u{200b}`, `\r`).
fn significant_chars(line: &str) -> impl Iterator<Item = char> + '_ {
    let hidden = |c: char| c.is_control() || is_format_char(c) || is_line_separator(c);
    let mut rest = line;
    let mut started = false;
    std::iter::from_fn(move || {
        loop {
            let c = rest.chars().next()?;
            if let Some(after) = rest.strip_prefix("\\r") {
                rest = after;
                continue;
            }
            if let Some(after) = rest.strip_prefix("\\u{") {
                if let Some((hex, tail)) = after.split_once('}') {
                    let escaped = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
                    if hex.len() <= 6 && escaped.is_some_and(hidden) {
                        rest = tail;
                        continue;
                    }
                }
            }
            rest = &rest[c.len_utf8()..];
            if hidden(c) || (!started && c.is_whitespace()) {
                continue;
            }
            started = true;
            return Some(c);
        }
    })
}

/// Text quoted from a chapter, a notebook, a report or a ledger, as a
/// prompt or a report prints it: every line that could pass for the
/// document's own structure ([`looks_like_structure`]) gets [`QUOTE_MARK`]
/// before it, so no line of quoted material can be taken for a section
/// heading, a cell's header or the end of a fence. Other lines are left as
/// they are; borrowed when no line needs the mark.
pub fn quoted(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.split('\n').any(looks_like_structure) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if looks_like_structure(line) {
            out.push_str(QUOTE_MARK);
        }
        out.push_str(line);
    }
    std::borrow::Cow::Owned(out)
}

/// A number as reports and pages show it: at most three decimals, trailing
/// zeros dropped (`7.365`, `0.5`, `444`).
pub fn number(x: f64) -> String {
    format!("{x:.3}")
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

/// A setting's value as a footer shows it: as given where that is short
/// (`0.42`, `5`), else in exponent form (`1e-300`, not 300 digits).
pub fn setting(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() <= 12 {
        plain
    } else {
        format!("{x:e}")
    }
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

/// Query (and fragment) parameters whose value is a secret, compared
/// without regard to case (docs/formats.md, "URLs and secrets"). Besides
/// these, any name ending in `token` (`access_token`, `private_token`,
/// `refresh_token`, ...) and any starting with `x-amz-` or `x-goog-` (the
/// credential, signature and session token of S3 and Cloud Storage
/// presigned URLs) is one.
pub const SECRET_PARAMS: &[&str] = &[
    "key",    // Google APIs' API key
    "apikey", // API keys under their usual names
    "api_key",
    "api-key",
    "password", // a password in the query
    "passwd",
    "pwd",
    "secret", // OAuth client secrets and the like
    "client_secret",
    "sig",       // Azure shared access signatures
    "signature", // signed URLs (CloudFront and others)
    "auth",      // basic-auth style query credentials
];

/// Whether a query parameter's name (as written, maybe percent-encoded)
/// names a secret.
fn is_secret_param(raw_name: &str) -> bool {
    let name: String = url::form_urlencoded::parse(raw_name.as_bytes())
        .next()
        .map_or_else(|| raw_name.to_string(), |(k, _)| k.into_owned())
        .to_ascii_lowercase();
    // `token%3dS` decodes to `token=S`: the name is what comes before `=`.
    let name = name.split('=').next().unwrap_or_default();
    SECRET_PARAMS.contains(&name)
        || name.ends_with("token")
        || name.starts_with("x-amz-")
        || name.starts_with("x-goog-")
}

/// `a=1&token=x&b=2` without its secret parameters; None when none is left.
fn without_secret_params(query: &str) -> Option<String> {
    // `;` separates parameters too (`?q=1;token=S`), and stays as written.
    let mut kept = String::new();
    let mut before = '&';
    for p in query.split_inclusive(['&', ';']) {
        let param = p.strip_suffix(['&', ';']).unwrap_or(p);
        if !param.is_empty() && !is_secret_param(param.split('=').next().unwrap_or_default()) {
            if !kept.is_empty() {
                kept.push(before);
            }
            kept.push_str(param);
        }
        before = p[param.len()..].chars().next().unwrap_or('&');
    }
    (!kept.is_empty()).then_some(kept)
}

/// A URL as the tool may write or print it: without a user name, password
/// or token in its user-info part, and without the secret parameters
/// ([`SECRET_PARAMS`]) of its query or of a fragment made of parameters
/// (`#access_token=...`). Both the `scheme://user:secret@host/path` form
/// (parsed by the `url` crate) and the scp-like `user@host:path` form,
/// which is not a URL, are handled. A URL with nothing to take out, and
/// anything that is not a URL (a path), comes back exactly as it was (not
/// rewritten the `url` crate's way). Every URL the tool writes or prints
/// goes through here.
pub fn redact_url(url: &str) -> String {
    if let Ok(mut parsed) = url::Url::parse(url)
        && parsed.has_host()
    {
        let untouched = parsed.to_string();
        // Both calls only fail for URLs that cannot have credentials.
        let _ = parsed.set_username("");
        let _ = parsed.set_password(None);
        if let Some(query) = parsed.query().map(str::to_string) {
            parsed.set_query(without_secret_params(&query).as_deref());
        }
        if let Some(fragment) = parsed.fragment().filter(|f| f.contains('=')) {
            let kept = without_secret_params(fragment);
            parsed.set_fragment(kept.as_deref());
        }
        return if parsed.as_str() == untouched {
            url.to_string()
        } else {
            parsed.to_string()
        };
    }
    if let Some(scheme_end) = url.find("://") {
        return redact_unparsed(url, scheme_end + 3);
    }
    // scp-like: user@host:path (no scheme). Only strip when the @ comes
    // before the first colon, so a path with @ in it is left alone.
    match (url.find('@'), url.find(':')) {
        (Some(at), Some(colon)) if at < colon && !url.contains("://") => url[at + 1..].to_string(),
        _ => url.to_string(),
    }
}

/// [`redact_url`] for text that has a scheme (`...://`) but is no URL the
/// `url` crate can read (a space in the host, a broken IPv6 address, a
/// port too large): the user info (up to the last `@` before the path)
/// and the secret parameters of the query and fragment come out by the
/// text alone, so an error that quotes the text quotes no secret.
fn redact_unparsed(url: &str, authority: usize) -> String {
    let (before_fragment, fragment) = match url.find('#') {
        Some(h) if h >= authority => (&url[..h], Some(&url[h + 1..])),
        _ => (url, None),
    };
    let (before_query, query) = match before_fragment.find('?') {
        Some(q) if q >= authority => (&before_fragment[..q], Some(&before_fragment[q + 1..])),
        _ => (before_fragment, None),
    };
    let path = before_query[authority..]
        .find('/')
        .map_or(before_query.len(), |p| authority + p);
    let host_from = before_query[authority..path]
        .rfind('@')
        .map_or(authority, |at| authority + at + 1);
    let mut out = format!(
        "{}{}",
        &before_query[..authority],
        &before_query[host_from..]
    );
    if let Some(kept) = query.and_then(without_secret_params) {
        out.push('?');
        out.push_str(&kept);
    }
    match fragment {
        Some(f) if f.contains('=') => {
            if let Some(kept) = without_secret_params(f) {
                out.push('#');
                out.push_str(&kept);
            }
        }
        Some(f) => {
            out.push('#');
            out.push_str(f);
        }
        None => {}
    }
    out
}

/// [`redact_url`] for a field that may hold a URL, as serde writes it: a
/// file or a printout never carries the secret, while the value read stays
/// whole for the one thing that needs it (`fetch`).
pub fn serialize_redacted<S: serde::Serializer>(
    value: &Option<String>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    match value {
        Some(v) => s.serialize_some(&redact_url(v)),
        None => s.serialize_none(),
    }
}

/// [`serialize_redacted`] for a field that is always there.
pub fn serialize_redacted_str<S: serde::Serializer>(
    value: &str,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&redact_url(value))
}

/// Whether `url` holds something [`redact_url`] takes out.
pub fn carries_secret(url: &str) -> bool {
    redact_url(url) != url
}

/// Free text (a report, a record file copied into the site) with every URL
/// in it through [`redact_url`]; the text comes back borrowed when it holds
/// no secret. Where a URL ends is [`url_end`]'s to say.
pub fn redact_urls_in(text: &str) -> std::borrow::Cow<'_, str> {
    match redact_whole_urls_in(text) {
        std::borrow::Cow::Borrowed(t) => redact_loose_params(t),
        std::borrow::Cow::Owned(t) => std::borrow::Cow::Owned(redact_loose_params(&t).into_owned()),
    }
}

/// The URLs [`url_spans`] finds, each through [`redact_url`].
fn redact_whole_urls_in(text: &str) -> std::borrow::Cow<'_, str> {
    let mut out = String::new();
    let mut copied = 0;
    for (start, end) in url_spans(text) {
        let url = &text[start..end];
        let safe = redact_url(url);
        if safe != url {
            out.push_str(&text[copied..start]);
            out.push_str(&safe);
            copied = end;
        }
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
}

/// Free text with the value of every secret parameter that stands after
/// `?`, `&`, `;` or `#` (`?token=S`, `&sig=S`, `;token=S`, `?token%3dS`)
/// as `<secret>`, wherever it is: in a URL [`url_spans`] did not see whole
/// (`https://exa  mple.org/?token=S`, `https://e.org/p(1)?sig=S`, where the
/// URL ends early) or in no URL at all. The value runs to white space, a
/// quote, a bracket, `&`, `;` or `#`.
fn redact_loose_params(text: &str) -> std::borrow::Cow<'_, str> {
    let mut out = String::new();
    let mut copied = 0;
    for (sep, _) in text.match_indices(['?', '&', ';', '#']) {
        let name_from = sep + 1;
        if name_from < copied {
            continue;
        }
        let rest = &text[name_from..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '%')))
            .unwrap_or(rest.len());
        let raw = &rest[..name_len];
        // `name=` or `name%3d` (an equals sign percent-encoded).
        let (name, value_from) = match raw.to_ascii_lowercase().find("%3d") {
            Some(k) => (&raw[..k], name_from + k + 3),
            None if rest[name_len..].starts_with('=') => (raw, name_from + name_len + 1),
            None => continue,
        };
        if name.is_empty() || !is_secret_param(name) {
            continue;
        }
        let value_len = text[value_from..]
            .find(|c: char| ends_url(c) || matches!(c, '&' | ';' | '#' | '(' | '['))
            .unwrap_or(text.len() - value_from);
        if value_len == 0 || text[value_from..value_from + value_len] == *"<secret>" {
            continue;
        }
        out.push_str(&text[copied..value_from]);
        out.push_str("<secret>");
        copied = value_from + value_len;
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
}

/// The URLs in free text that hold something [`redact_url`] takes out
/// (credentials, a secret parameter), each once, as [`redact_urls_in`]
/// finds them.
pub fn urls_with_secrets(text: &str) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    for (start, end) in url_spans(text) {
        let url = &text[start..end];
        if carries_secret(url) && !found.contains(&url) {
            found.push(url);
        }
    }
    found
}

/// Where each URL in free text starts and ends: its scheme (letters,
/// digits, `+`, `-`, `.` before `://`) to [`url_end`], in order, none
/// overlapping.
pub fn url_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut search = 0;
    while let Some(i) = text[search..].find("://").map(|i| i + search) {
        // The scheme starts after the last character that cannot be in
        // one, which may be any character, `“` or `é` too: the start is
        // after its last byte.
        let start = text[..i]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |(j, c)| j + c.len_utf8());
        let end = url_end(text, i + 3);
        search = end.max(i + 3);
        let after_last = spans.last().is_none_or(|&(_, e)| start >= e);
        if start < i && after_last {
            spans.push((start, end));
        }
    }
    spans
}

/// Whether `c` ends a URL in free text: white space, a quote (curly and
/// angle quotes too), an angle bracket, a closing parenthesis or bracket,
/// or a backquote.
fn ends_url(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '"' | '\''
                | '<'
                | '>'
                | ')'
                | ']'
                | '`'
                | '“'
                | '”'
                | '‘'
                | '’'
                | '«'
                | '»'
                | '‹'
                | '›'
        )
}

/// Where a URL in free text whose authority starts at `from` (just after
/// its `://`) ends, as a ledger's URL cell would hold it whole: at the
/// first character that [`ends_url`], except that a bracketed host
/// (`https://[::1]:8080/x`) runs to its closing `]`, and a host split by
/// one space (`http://exa mple.org/?token=S`) runs on through the next
/// word when the part before the space is still the host (no `/`, `?` or
/// `#` yet) and the next word is the rest of a host (a `.` in it) going
/// on into a path, query or fragment, and no URL of its own (prose such
/// as `http://example.org and/or` is left alone). Such a URL is one no parser reads, and
/// [`redact_url`] takes its secrets out by the text alone.
pub fn url_end(text: &str, from: usize) -> usize {
    let rest = &text[from..];
    let word_end = |at: usize| {
        let mut in_host = true;
        let mut bracket = false;
        for (j, c) in text[at..].char_indices() {
            match c {
                '/' | '?' | '#' if !bracket => in_host = false,
                '[' if in_host => bracket = true,
                ']' if bracket => {
                    bracket = false;
                    continue;
                }
                _ => {}
            }
            // Inside a bracketed host only white space ends it.
            if ends_url(c) && (!bracket || c.is_whitespace()) {
                return at + j;
            }
        }
        text.len()
    };
    let end = word_end(from);
    let host = &text[from..end];
    let split = text[end..].starts_with(' ')
        && !host.is_empty()
        && !host.contains(['/', '?', '#'])
        && !rest.starts_with('[');
    if split {
        let next = end + 1;
        let next_end = word_end(next);
        let word = &text[next..next_end];
        let host_rest = word.find(['/', '?', '#']).map(|k| &word[..k]);
        let continues = word.starts_with(|c: char| c.is_ascii_alphanumeric())
            && !word.contains("://")
            && host_rest.is_some_and(|h| h.contains('.'));
        if continues {
            return next_end;
        }
    }
    end
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
    fn any_character_may_stand_before_a_url() {
        // A curly quote, an accented letter, an arrow or a fullwidth letter
        // right before the scheme: the scheme starts after it.
        for (text, kept) in [
            ("see “https://u:pw@e.org/”", "see “https://e.org/”"),
            ("éhttps://e.org/?token=S1", "éhttps://e.org/"),
            ("→https://e.org/x", "→https://e.org/x"),
            ("ｈttps://e.org/x", "ｈttps://e.org/x"),
            ("ä://e", "ä://e"),
        ] {
            assert_eq!(redact_urls_in(text), kept, "{text}");
            let _ = urls_with_secrets(text);
        }
    }

    #[test]
    fn a_secret_parameter_goes_wherever_the_url_around_it_ends() {
        for (text, kept) in [
            (
                "https://exa  mple.org/?token=SECRETH8 x",
                "https://exa  mple.org/?token=<secret> x",
            ),
            (
                "https://example.org/path(1)?sig=SECRETK11 x",
                "https://example.org/path(1)?sig=<secret> x",
            ),
            ("https://e.org/?q=1;token=SECRETJ10", "https://e.org/?q=1"),
            ("https://e.org/?token%3dSECRETM13&a=1", "https://e.org/?a=1"),
            (
                "not a url ?token%3dS2 &api_key=S3;x",
                "not a url ?token%3d<secret> &api_key=<secret>;x",
            ),
        ] {
            assert_eq!(redact_urls_in(text), kept, "{text}");
        }
        // Words that are no secret parameter stay as they are.
        let plain = "a?b=1&tokens=2 & key = value; x#section";
        assert!(matches!(
            redact_urls_in(plain),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            redact_url("https://e.org/?a=1;b=2&c=3"),
            "https://e.org/?a=1;b=2&c=3"
        );
        assert_eq!(
            redact_url("https://e.org/?a=1;sig=2&c=3"),
            "https://e.org/?a=1&c=3"
        );
    }

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

    #[test]
    fn a_setting_shows_as_given_unless_that_is_long() {
        assert_eq!(setting(0.42), "0.42");
        assert_eq!(setting(5.0), "5");
        assert_eq!(setting(1e-300), "1e-300");
        assert_eq!(setting(2.5e20), "2.5e20");
    }

    #[test]
    fn a_url_the_url_crate_cannot_read_loses_its_secrets_too() {
        for (given, shown) in [
            (
                "https://carol:pw888@exa mple.com/?token=secret",
                "https://exa mple.com/",
            ),
            (
                "http://carol:pw888@[::1/x?token=secret&a=1",
                "http://[::1/x?a=1",
            ),
            (
                "https://u:p@host:99999/ch.txt?sig=abc#frag",
                "https://host:99999/ch.txt#frag",
            ),
            ("https://host:99999/a@b/c", "https://host:99999/a@b/c"),
            ("ftp://x y/#access_token=t", "ftp://x y/"),
        ] {
            assert_eq!(redact_url(given), shown, "{given}");
        }
    }

    #[test]
    fn secrets_leave_urls_in_user_info_query_and_fragment() {
        for (url, safe) in [
            ("https://carol:pw888@example.com/", "https://example.com/"),
            (
                "https://gitlab.com/o/r.git?private_token=glpat-1",
                "https://gitlab.com/o/r.git",
            ),
            ("https://h/x?a=1&access_token=s3&b=2", "https://h/x?a=1&b=2"),
            ("https://h/x?Token=s", "https://h/x"),
            ("https://h/x?api%5Fkey=s&page=2", "https://h/x?page=2"),
            (
                "https://b.s3.amazonaws.com/k?X-Amz-Credential=AK&X-Amz-Signature=ab&X-Amz-Expires=60",
                "https://b.s3.amazonaws.com/k",
            ),
            (
                "https://h/cb#access_token=s&state=1",
                "https://h/cb#state=1",
            ),
            ("https://h/page#section-2", "https://h/page#section-2"),
            ("https://h/x?sig=abc&sv=2020", "https://h/x?sv=2020"),
            ("git@github.com:o/r.git", "github.com:o/r.git"),
            ("/srv/git/r.git", "/srv/git/r.git"),
            ("https://h/x?q=rust+lang", "https://h/x?q=rust+lang"),
            // Nothing taken out: exactly as written, not normalized.
            ("https://example.com", "https://example.com"),
            (
                "https://b\u{fc}cher.example/",
                "https://b\u{fc}cher.example/",
            ),
        ] {
            assert_eq!(redact_url(url), safe, "{url}");
        }
    }

    #[test]
    fn every_url_in_free_text_is_redacted_and_the_rest_left_alone() {
        let text = "see [a](https://u:p@h/x?token=t) and <https://h/y?key=k>, not https://h/z";
        assert_eq!(
            redact_urls_in(text),
            "see [a](https://h/x) and <https://h/y>, not https://h/z"
        );
        assert!(matches!(
            redact_urls_in("plain https://example.org/a/b text"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            redact_urls_in("repository: https://gitlab.com/o/r.git?access_token=x\n"),
            "repository: https://gitlab.com/o/r.git\n"
        );
    }

    #[test]
    fn a_url_in_text_ends_where_a_ledger_cell_would_end_it() {
        for (text, shown) in [
            (
                "| https://[::1]:8080/x?token=S&a=1 |",
                "| https://[::1]:8080/x?a=1 |",
            ),
            (
                "| http://exa mple.org/?token=S |",
                "| http://exa mple.org/ |",
            ),
            (
                "[ref](http://exa mple.org/p?key=S) and (see https://[fe80::1]/?sig=S)",
                "[ref](http://exa mple.org/p) and (see https://[fe80::1]/)",
            ),
            // Two URLs a space apart stay two URLs.
            (
                "http://a.org https://b.org/?token=S",
                "http://a.org https://b.org/",
            ),
            // A bracket after the host still ends the URL.
            ("[https://h/x?token=S]", "[https://h/x]"),
        ] {
            assert_eq!(redact_urls_in(text), shown, "{text}");
        }
        // Prose after a bare host is not taken into it.
        let prose = "see http://example.org and/or the docs";
        assert_eq!(url_end(prose, 11), "see http://example.org".len());
        assert!(matches!(
            redact_urls_in(prose),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn controls_and_bidi_controls_become_visible_escapes() {
        assert_eq!(
            visible("a\nb\rc\td\u{1b}[31me\u{202e}f\u{85}g"),
            "a\\nb\\rc\\td\\u{1b}[31me\\u{202e}f\\u{85}g"
        );
        assert!(matches!(
            visible("Café — ok"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            visible_lines("a\r\nb\tc\rd\u{1b}e\u{200f}\0\u{7}\u{feff}\n"),
            "a\r\nb\tc\\rd\\u{1b}e\\u{200f}\\u{0}\\u{7}\\u{feff}\n"
        );
        for c in [
            '\u{61c}', '\u{200b}', '\u{202e}', '\u{2060}', '\u{2069}', '\u{feff}',
        ] {
            assert!(is_format_char(c), "{c:?}");
            assert_eq!(visible(&c.to_string()), format!("\\u{{{:x}}}", c as u32));
        }
        assert!(!is_format_char('\u{2070}') && !is_format_char('\u{200a}'));
        // Every format character and default-ignorable code point, not a
        // hand-picked few; the blank Braille pattern too.
        for c in [
            '\u{ad}',
            '\u{34f}',
            '\u{115f}',
            '\u{1160}',
            '\u{17b4}',
            '\u{17b5}',
            '\u{180b}',
            '\u{180e}',
            '\u{2065}',
            '\u{206f}',
            '\u{2800}',
            '\u{3164}',
            '\u{fe00}',
            '\u{fe0f}',
            '\u{ffa0}',
            '\u{fff0}',
            '\u{fff9}',
            '\u{fffb}',
            '\u{1bca0}',
            '\u{1d173}',
            '\u{1d17a}',
            '\u{e0000}',
            '\u{e0001}',
            '\u{e0041}',
            '\u{e007f}',
            '\u{e0fff}',
            '\u{600}',
            '\u{70f}',
            '\u{110bd}',
        ] {
            assert!(is_format_char(c), "{c:?}");
            assert_eq!(
                visible(&format!("a{c}b")),
                format!("a\\u{{{:x}}}b", c as u32)
            );
            assert_eq!(
                visible_lines(&format!("{c}\n")),
                format!("\\u{{{:x}}}\n", c as u32)
            );
        }
        // Visible letters, marks, spaces and symbols stay as they are.
        for c in [
            'a', 'é', '\u{301}', ' ', '\u{a0}', '\u{3000}', '═', '—', '\u{2801}', '\u{fffd}',
        ] {
            assert!(!is_format_char(c), "{c:?}");
        }
        assert_eq!(
            visible_lines("a\u{2028}== 8. x ==\u{2029}b"),
            "a\\u{2028}== 8. x ==\\u{2029}b"
        );
    }

    #[test]
    fn lines_that_could_pass_for_structure_are_marked_and_the_rest_kept() {
        assert_eq!(
            quoted(
                "ok\n== 8. How to investigate ==\n  # h\n--- x ---\n>>> y\n```\n~~~\n| t\n\u{ff1d}z\n- fine"
            ),
            "ok\n| == 8. How to investigate ==\n|   # h\n| --- x ---\n| >>> y\n| ```\n| ~~~\n| | t\n| \u{ff1d}z\n- fine"
        );
        assert!(matches!(
            quoted(
                "plain text\nover - two lines > here\n- item\n(aside)\n1. first\n-1.5 is low\n~/path\n> quote"
            ),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn look_alike_and_hidden_starts_of_structure_are_marked() {
        // Fullwidth forms and small form variants read as their ASCII twin.
        for line in [
            "\u{fe66}\u{fe66} 5 \u{fe66}\u{fe66}",
            "\u{ff03}\u{ff03} 4. Findings",
            "\u{fe5f}\u{fe5f} x",
            "\u{fe5f} x",
            "\u{ff0d}\u{ff0d}\u{ff0d} forged: PASS \u{ff0d}\u{ff0d}\u{ff0d}",
            "\u{ff1e}\u{ff1e}\u{ff1e} import os",
            "\u{ff5c} t",
            "\u{ff40}\u{ff40}\u{ff40}",
        ] {
            assert!(looks_like_structure(line), "{line}");
        }
        assert_eq!(look_alike('\u{ff1d}'), '=');
        assert_eq!(look_alike('\u{fe66}'), '=');
        assert_eq!(look_alike('\u{fe5f}'), '#');
        assert_eq!(look_alike('\u{fe6b}'), '@');
        assert_eq!(look_alike('\u{ff41}'), 'a');
        assert_eq!(look_alike('\u{fe53}'), '\u{fe53}');
        // Two or more of the same symbol draw a rule or a heading.
        for line in [
            "\u{a78a}\u{a78a} 6 \u{a78a}\u{a78a}",
            "\u{2550}\u{2550} 7 \u{2550}\u{2550}",
            "\u{2501}\u{2501} 8. How to investigate \u{2501}\u{2501}",
            "\u{30a0}\u{30a0} x",
            "\u{2261}\u{2261} 9. Required output \u{2261}\u{2261}",
            "\u{2014}\u{2014}\u{2014} x \u{2014}\u{2014}\u{2014}",
            "-- x",
            "**bold**",
            "  ..",
        ] {
            assert!(looks_like_structure(line), "{line}");
        }
        // Invisible characters before or inside the start do not hide it,
        // raw or as `visible` escapes them; other escapes are text.
        for line in [
            "\u{ad}== 3. X ==",
            "\u{e0001}\u{e0041} # x",
            " \u{3164}\u{2800} >>> y",
            "\u{2550}\u{200b}\u{2550} x",
            "\\u{ad}== 3. X ==",
            "\\u{e0001}\\u{200b}\\r# x",
        ] {
            assert!(looks_like_structure(line), "{line}");
            assert!(looks_like_structure(&visible(line)), "{line}");
        }
        for line in [
            "\\u{41}== x",
            "\\u{zz}==",
            "\\",
            "a== x",
            "\u{ad}",
            "",
            "  ",
            "- item",
            "(a) b",
            "1. one",
            "\u{2014} a dash",
        ] {
            assert!(!looks_like_structure(line), "{line:?}");
        }
        assert_eq!(
            quoted(&visible_lines(
                "a\n\u{ad}== 3. X ==\n\u{2261}\u{2261} 9 \u{2261}\u{2261}"
            )),
            "a\n| \\u{ad}== 3. X ==\n| \u{2261}\u{2261} 9 \u{2261}\u{2261}"
        );
    }

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
