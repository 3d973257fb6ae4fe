//! Secrets taken out of URLs before the tool writes or prints them: user
//! info and secret query or fragment parameters ([`SECRET_PARAMS`]), in one
//! URL (`redact_url`, and the serde helpers `serialize_redacted`,
//! `serialize_redacted_str`) or in free text (`redact_urls_in`,
//! `urls_with_secrets`), where `url_spans` and `url_end` say where each URL
//! starts and ends.

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
}
