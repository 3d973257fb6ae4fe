//! Source ids that stay the same from one research run to the next, so the
//! book's site, the prompt and the report draft can say "the same paper".
//!
//! A source is keyed by the first of these its ledger row gives:
//! - its DOI, lower case (`doi:10.1145/3458817.3476209`); arXiv's own DOIs
//!   (`10.48550/arXiv.<id>`) count as the arXiv id;
//! - its arXiv id without the version (`arxiv:2101.12127`);
//! - its URL, normalized: scheme dropped, host in lower case without
//!   `www.`, no fragment, no trailing `/`, query kept
//!   (`url:pytorch.org/docs/stable/data.html`);
//! - its title, normalized: lower case, letters and digits only, one space
//!   between words (`title:tf data a machine learning ...`).
//!
//! The id is `src-` and the first 12 hex digits of the SHA-256 of that key.

use sha2::{Digest, Sha256};

use super::report_items::LedgerRow;

/// What a source is known by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceKey {
    Doi(String),
    Arxiv(String),
    Url(String),
    Title(String),
}

impl std::fmt::Display for SourceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SourceKey::Doi(d) => write!(f, "doi:{d}"),
            SourceKey::Arxiv(a) => write!(f, "arxiv:{a}"),
            SourceKey::Url(u) => write!(f, "url:{u}"),
            SourceKey::Title(t) => write!(f, "title:{t}"),
        }
    }
}

/// An arXiv id without its version (`2101.12127v2` -> `2101.12127`).
fn unversioned(id: &str) -> String {
    match id.rfind('v') {
        Some(i) if i + 1 < id.len() && id[i + 1..].chars().all(|c| c.is_ascii_digit()) => {
            id[..i].to_lowercase()
        }
        _ => id.to_lowercase(),
    }
}

/// A URL as the key compares it.
fn normalized_url(url: &str) -> String {
    match url::Url::parse(url.trim()) {
        Ok(u) => {
            let host = u.host_str().unwrap_or_default().to_lowercase();
            let host = host.strip_prefix("www.").unwrap_or(&host);
            let path = u.path().trim_end_matches('/');
            match u.query() {
                Some(q) if !q.is_empty() => format!("{host}{path}?{q}"),
                _ => format!("{host}{path}"),
            }
        }
        Err(_) => url.trim().trim_end_matches('/').to_lowercase(),
    }
}

/// A title as the key compares it.
fn normalized_title(title: &str) -> String {
    title
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the row's source is known by.
pub fn source_key(row: &LedgerRow) -> SourceKey {
    if let Some(doi) = &row.doi {
        let doi = doi.to_lowercase();
        return match doi.strip_prefix("10.48550/arxiv.") {
            Some(arxiv) => SourceKey::Arxiv(unversioned(arxiv)),
            None => SourceKey::Doi(doi),
        };
    }
    if let Some(arxiv) = &row.arxiv {
        return SourceKey::Arxiv(unversioned(arxiv));
    }
    if let Some(url) = &row.url {
        return SourceKey::Url(normalized_url(url));
    }
    SourceKey::Title(normalized_title(&row.title))
}

/// The row's source id: `src-` and 12 hex digits.
pub fn source_id(row: &LedgerRow) -> String {
    let digest = Sha256::digest(source_key(row).to_string().as_bytes());
    format!(
        "src-{}",
        crate::text::format::prefix(&crate::text::format::hex(&digest), 12)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(title: &str, url: Option<&str>, arxiv: Option<&str>, doi: Option<&str>) -> LedgerRow {
        LedgerRow {
            title: title.into(),
            authors: Vec::new(),
            authors_partial: false,
            year: None,
            venue: None,
            status: None,
            url: url.map(str::to_string),
            arxiv: arxiv.map(str::to_string),
            doi: doi.map(str::to_string),
            bears_on: None,
            limitations: None,
        }
    }

    #[test]
    fn the_key_is_the_doi_else_the_arxiv_id_else_the_url_else_the_title() {
        let paper = row(
            "tf.data",
            Some("https://arxiv.org/abs/2101.12127v2"),
            Some("2101.12127v2"),
            None,
        );
        assert_eq!(source_key(&paper).to_string(), "arxiv:2101.12127");
        let with_doi = row("x", None, Some("2101.12127"), Some("10.1145/ABC"));
        assert_eq!(source_key(&with_doi).to_string(), "doi:10.1145/abc");
        let arxiv_doi = row("x", None, None, Some("10.48550/arXiv.2101.12127"));
        assert_eq!(source_key(&arxiv_doi), source_key(&paper));
        let page = row(
            "Docs",
            Some("https://www.PyTorch.org/docs/stable/data.html/#x"),
            None,
            None,
        );
        assert_eq!(
            source_key(&page).to_string(),
            "url:pytorch.org/docs/stable/data.html"
        );
        let titled = row("  The CFS  Scheduler, design! ", None, None, None);
        assert_eq!(
            source_key(&titled).to_string(),
            "title:the cfs scheduler design"
        );
    }

    #[test]
    fn the_same_source_gets_the_same_id_however_it_is_written() {
        let a = row(
            "tf.data (abstract)",
            Some("https://arxiv.org/abs/2101.12127"),
            Some("2101.12127"),
            None,
        );
        let b = row(
            "tf.data: A Machine Learning Data Processing Framework",
            None,
            Some("2101.12127v3"),
            None,
        );
        assert_eq!(source_id(&a), source_id(&b));
        assert!(source_id(&a).starts_with("src-") && source_id(&a).len() == 16);
        let c = row(
            "Docs",
            Some("http://pytorch.org/docs/stable/data.html"),
            None,
            None,
        );
        let d = row(
            "Other title",
            Some("https://pytorch.org/docs/stable/data.html/"),
            None,
            None,
        );
        assert_eq!(source_id(&c), source_id(&d));
        assert_ne!(source_id(&a), source_id(&c));
    }
}
