//! Fetching a chapter snapshot (or its notebook) over HTTP: a blocking
//! reqwest client with timeouts, a redirect limit, redirects kept to the
//! origin asked for unless told otherwise, a body size cap, conditional
//! requests with bounded validators, and one clear error for each way it
//! can fail.

use std::io::Read;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{
    CONTENT_LENGTH, CONTENT_TYPE, ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED,
};

use crate::error::{Error, Result};

/// Redirects followed at most.
pub const MAX_REDIRECTS: usize = 5;
/// Default body size cap.
pub const DEFAULT_MAX_BYTES: u64 = 5 * 1024 * 1024;
/// The longest validator (ETag, Last-Modified) kept and sent again: real
/// ones are tens of bytes, and servers refuse request headers of a few KiB.
pub const MAX_VALIDATOR_BYTES: usize = 1024;

/// What kind of body a fetch expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BodyKind {
    /// A plain-text snapshot: a `text/*` content type other than HTML.
    #[default]
    Text,
    /// A Jupyter notebook: the same, or JSON (`application/json`,
    /// `application/*+json` such as `application/x-ipynb+json`).
    Notebook,
}

/// How to fetch.
#[derive(Debug, Clone)]
pub struct Request {
    pub url: String,
    pub connect_timeout: Duration,
    pub timeout: Duration,
    pub max_bytes: u64,
    /// Validators from the last fetch of the same URL.
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Follow a redirect to another origin (scheme, host, port); else only
    /// redirects within the origin asked for are followed.
    pub redirects_anywhere: bool,
    /// What the body must be.
    pub body: BodyKind,
}

/// What the server answered.
#[derive(Debug)]
pub enum Response {
    /// 304: unchanged since the validators were issued.
    NotModified,
    /// A text body.
    Text {
        text: String,
        etag: Option<String>,
        last_modified: Option<String>,
        final_url: String,
        /// The URL asked for (credentials removed), when redirects led
        /// elsewhere.
        redirected_from: Option<String>,
    },
}

/// Why a validator cannot be stored or sent again, if it cannot: longer
/// than [`MAX_VALIDATOR_BYTES`], or holding a byte a header value may not.
pub fn validator_problem(value: &str) -> Option<String> {
    if value.len() > MAX_VALIDATOR_BYTES {
        return Some(format!(
            "{} bytes, more than the {MAX_VALIDATOR_BYTES}-byte limit",
            value.len()
        ));
    }
    let bad = value
        .bytes()
        .find(|b| !(b.is_ascii_graphic() || *b == b' ' || *b == b'\t'));
    bad.map(|b| format!("it holds the byte 0x{b:02x}, which a header may not"))
}

/// Scheme, host and port: what a redirect must keep to stay where it was
/// asked to go.
fn same_origin(a: &reqwest::Url, b: &reqwest::Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// The User-Agent sent with every request.
pub fn user_agent() -> String {
    format!("research_companion/{}", env!("CARGO_PKG_VERSION"))
}

fn host_of(url: &str) -> String {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| url.to_string())
}

/// Performs the request, all of it (body included) within `req.timeout`:
/// the client's own timeout bounds each wait, not the whole, so the request
/// runs on a thread this one stops waiting for at the deadline.
pub fn get(req: &Request) -> Result<Response> {
    let (tx, rx) = std::sync::mpsc::channel();
    let owned = req.clone();
    std::thread::spawn(move || {
        let _ = tx.send(get_within(&owned));
    });
    rx.recv_timeout(req.timeout).unwrap_or_else(|_| {
        Err(Error::Other(format!(
            "{}: timed out after {} s (the whole request, body included)",
            crate::text::redact::redact_url(&req.url),
            req.timeout.as_secs_f64()
        )))
    })
}

fn get_within(req: &Request) -> Result<Response> {
    let shown = crate::text::redact::redact_url(&req.url);
    let url = reqwest::Url::parse(&req.url)
        .map_err(|e| Error::Usage(format!("invalid URL '{shown}': {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::Usage(format!(
            "invalid URL '{shown}': only http and https are fetched"
        )));
    }
    let client = reqwest::blocking::Client::builder()
        .user_agent(user_agent())
        .connect_timeout(req.connect_timeout)
        .timeout(req.timeout)
        .redirect(redirect_policy(req.redirects_anywhere))
        .build()
        .map_err(|e| Error::Other(format!("cannot set up the HTTP client: {e}")))?;
    let mut builder = client.get(url.clone());
    if let Some(etag) = &req.etag {
        builder = builder.header(IF_NONE_MATCH, etag);
    }
    if let Some(lm) = &req.last_modified {
        builder = builder.header(IF_MODIFIED_SINCE, lm);
    }
    let response = builder.send().map_err(|e| describe(e, &shown, req))?;
    let status = response.status();
    let final_url = crate::text::redact::redact_url(response.url().as_str());
    if status == StatusCode::NOT_MODIFIED {
        return Ok(Response::NotModified);
    }
    if status.is_redirection()
        && let Some(to) = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|l| response.url().join(l).ok())
        && !same_origin(response.url(), &to)
    {
        // The policy stopped here: the redirect leaves the origin.
        return Err(Error::CrossOriginRedirect {
            from: final_url,
            to: crate::text::redact::redact_url(to.as_str()),
        });
    }
    if !status.is_success() {
        return Err(Error::Other(format!("HTTP {status} from {final_url}")));
    }
    let header = |name| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let content_type = header(CONTENT_TYPE).unwrap_or_default();
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if mime == "text/html" || mime == "application/xhtml+xml" {
        return Err(Error::Other(format!(
            "{final_url} sent HTML ({content_type}) where a plain-text snapshot was expected"
        )));
    }
    let json =
        mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"));
    let accepted = mime.starts_with("text/") || (req.body == BodyKind::Notebook && json);
    if !accepted {
        let shown = if content_type.is_empty() {
            "no Content-Type".to_string()
        } else {
            content_type.clone()
        };
        return Err(Error::Other(format!("{final_url} sent {shown}, not text")));
    }
    if let Some(len) = header(CONTENT_LENGTH).and_then(|l| l.parse::<u64>().ok())
        && len > req.max_bytes
    {
        return Err(too_big(&final_url, req.max_bytes));
    }
    let (etag, last_modified) = (header(ETAG), header(LAST_MODIFIED));
    let mut body = Vec::new();
    response
        .take(req.max_bytes + 1)
        .read_to_end(&mut body)
        .map_err(|e| Error::Other(format!("reading the body from {final_url}: {e}")))?;
    if body.len() as u64 > req.max_bytes {
        return Err(too_big(&final_url, req.max_bytes));
    }
    let text = String::from_utf8(body).map_err(|e| {
        Error::Other(format!(
            "{final_url}: the body is not valid UTF-8 at byte offset {}",
            e.utf8_error().valid_up_to()
        ))
    })?;
    if looks_like_markup(&text) {
        return Err(Error::Other(format!(
            "{final_url} sent an HTML page where a plain-text snapshot was expected"
        )));
    }
    if text.trim().is_empty() {
        return Err(Error::Other(format!(
            "{final_url} sent an empty body where a snapshot was expected"
        )));
    }
    let redirected_from = (response_url_differs(&url, &final_url)).then_some(shown);
    Ok(Response::Text {
        text,
        etag,
        last_modified,
        final_url,
        redirected_from,
    })
}

fn response_url_differs(asked: &reqwest::Url, final_shown: &str) -> bool {
    crate::text::redact::redact_url(asked.as_str()) != final_shown
}

/// At most [`MAX_REDIRECTS`] redirects, and only within the origin of the
/// first URL unless `anywhere`; a redirect it will not follow is returned
/// as the answer, which [`get`] turns into an error naming both ends.
fn redirect_policy(anywhere: bool) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error("too many redirects");
        }
        let leaves = attempt
            .previous()
            .first()
            .is_some_and(|first| !same_origin(first, attempt.url()));
        if leaves && !anywhere {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}

fn too_big(url: &str, max: u64) -> Error {
    Error::TooLarge {
        what: format!("{url}: the body"),
        limit: max,
    }
}

/// Whether a body is markup rather than prose: after a byte-order mark,
/// white space, comments and an XML declaration, its first element or
/// doctype decides (`<html>x</html>`, `<!-- c --><html>`, `<head>`), however
/// short the body.
pub fn looks_like_markup(text: &str) -> bool {
    let mut rest = text.trim_start_matches('\u{FEFF}');
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("<!--") {
            match after.find("-->") {
                Some(end) => rest = &after[end + 3..],
                None => return true,
            }
        } else if let Some(after) = rest.strip_prefix("<?") {
            match after.find("?>") {
                Some(end) => rest = &after[end + 2..],
                None => return true,
            }
        } else {
            break;
        }
    }
    let mut chars = rest.chars();
    match (chars.next(), chars.next()) {
        (Some('<'), Some(c)) if c.is_ascii_alphabetic() => true,
        (Some('<'), Some('!')) => rest
            .get(..9)
            .is_some_and(|h| h.eq_ignore_ascii_case("<!doctype")),
        _ => false,
    }
}

fn describe(e: reqwest::Error, url: &str, req: &Request) -> Error {
    // reqwest names the URL in its messages, credentials and all.
    let e = e.without_url();
    let msg = if e.is_redirect() {
        format!("{url}: too many redirects or a redirect loop (more than {MAX_REDIRECTS})")
    } else if e.is_timeout() {
        format!(
            "{url}: timed out (connect {} s, total {} s)",
            req.connect_timeout.as_secs_f64(),
            req.timeout.as_secs_f64()
        )
    } else if e.is_connect() {
        format!(
            "could not connect to {} for {url}: the host cannot be reached (is the machine offline?)",
            host_of(url)
        )
    } else {
        let mut s = format!("{url}: {e}");
        let mut source = std::error::Error::source(&e);
        while let Some(inner) = source {
            s.push_str(&format!(": {inner}"));
            source = inner.source();
        }
        s
    };
    Error::Other(msg)
}
