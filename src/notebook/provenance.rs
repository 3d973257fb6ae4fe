//! Where a stored notebook came from, so that every statement about a
//! notebook or a run of it says which one: the published notebook only
//! when it was downloaded from the URL chapter.yaml gives for the chapter's
//! notebook and its fingerprint is that of the latest download from there;
//! otherwise a local copy (from the file it was read from), an earlier
//! download of the published notebook, or a notebook downloaded from
//! elsewhere.

use serde::Serialize;

use super::store::{NotebookEntry, ObtainedBy, StoredNotebooks};

/// Where a stored notebook came from, judged against chapter.yaml.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NotebookProvenance {
    /// Downloaded from the chapter's published URL, with the fingerprint
    /// of the latest download from there.
    Published { url: String },
    /// Downloaded from the chapter's published URL, but a later download
    /// from there had another fingerprint.
    EarlierPublished { url: String },
    /// Read from a file: `source` is what notebooks.yaml says of it.
    LocalCopy { source: String },
    /// Downloaded from a URL other than the one chapter.yaml gives.
    OtherUrl { source: String },
    /// The file is not listed in notebooks.yaml.
    Unlisted,
}

impl NotebookProvenance {
    /// Whether this is the notebook as published.
    pub fn is_published(&self) -> bool {
        matches!(self, NotebookProvenance::Published { .. })
    }

    /// A few words: `published`, `local copy of 06-fail.ipynb`, ...
    pub fn short(&self) -> String {
        match self {
            NotebookProvenance::Published { .. } => "published".into(),
            NotebookProvenance::EarlierPublished { .. } => {
                "an earlier download of the published notebook".into()
            }
            NotebookProvenance::LocalCopy { source } => format!("local copy of {source}"),
            NotebookProvenance::OtherUrl { source } => {
                format!("downloaded from {source}, not the chapter's published URL")
            }
            NotebookProvenance::Unlisted => "not listed in notebooks.yaml".into(),
        }
    }

    /// The notebook as the subject of a sentence: `the published
    /// notebook`, `a local copy of 06-fail.ipynb (not the published
    /// notebook)`.
    pub fn described(&self) -> String {
        match self {
            NotebookProvenance::Published { .. } => "the published notebook".into(),
            NotebookProvenance::EarlierPublished { .. } => {
                "an earlier download of the published notebook (not the one published now)".into()
            }
            NotebookProvenance::LocalCopy { source } => {
                format!("a local copy of {source} (not the published notebook)")
            }
            NotebookProvenance::OtherUrl { source } => {
                format!("a notebook downloaded from {source} (not the published notebook)")
            }
            NotebookProvenance::Unlisted => "a notebook not listed in notebooks.yaml".into(),
        }
    }

    /// A stored notebook's file with its provenance:
    /// `notebooks/0002-7a95b5a156a0.ipynb (local copy of 06-fail.ipynb)`.
    pub fn label(&self, file: &str) -> String {
        format!("{file} ({})", self.short())
    }
}

/// Whether `e` was downloaded from `url` (chapter.yaml's notebook URL, or
/// the GitHub file a Colab or GitHub page's URL downloads).
fn downloaded_from(e: &NotebookEntry, url: &str) -> bool {
    if e.obtained_by == Some(ObtainedBy::File) || !e.source.contains("://") {
        return false;
    }
    let same = |a: &str, b: &str| a.trim_end_matches('/') == b.trim_end_matches('/');
    let shown = crate::text::redact::redact_url(url);
    same(&e.source, &shown)
        || super::source::download_url(url)
            .is_ok_and(|d| same(&e.source, &crate::text::redact::redact_url(&d)))
}

/// Where the stored notebook `file` came from; `published_url` is the URL
/// of chapter.yaml's notebook entry, when it has one.
pub fn provenance(
    state: &StoredNotebooks,
    published_url: Option<&str>,
    file: &str,
) -> NotebookProvenance {
    let Some(entry) = state.entry(file) else {
        return NotebookProvenance::Unlisted;
    };
    let url = published_url.filter(|u| u.contains("://"));
    if let Some(url) = url
        && downloaded_from(entry, url)
    {
        // The latest download from the published URL is what is published
        // as far as this project knows.
        let latest = state
            .notebooks
            .iter()
            .rev()
            .find(|e| downloaded_from(e, url));
        let shown = crate::text::redact::redact_url(url);
        return if latest.is_some_and(|l| l.fingerprint == entry.fingerprint) {
            NotebookProvenance::Published { url: shown }
        } else {
            NotebookProvenance::EarlierPublished { url: shown }
        };
    }
    if entry.obtained_by == Some(ObtainedBy::Download)
        || (entry.obtained_by.is_none() && entry.source.contains("://"))
    {
        NotebookProvenance::OtherUrl {
            source: entry.source.clone(),
        }
    } else {
        NotebookProvenance::LocalCopy {
            source: entry.source.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chapter::Fingerprint;

    fn entry(n: usize, hex: char, source: &str, by: Option<ObtainedBy>) -> NotebookEntry {
        NotebookEntry {
            file: format!("notebooks/000{n}-x.ipynb"),
            fingerprint: Fingerprint {
                algorithm: "sha256".into(),
                normalization: crate::notebook::NB_V1.into(),
                value: hex.to_string().repeat(64),
            },
            sha256: "0".repeat(64),
            captured_at: chrono::DateTime::UNIX_EPOCH,
            source: source.into(),
            bytes: 1,
            cells: 1,
            code_cells: 1,
            obtained_by: by,
        }
    }

    const COLAB: &str = "https://colab.research.google.com/github/o/r/blob/main/n/06.ipynb";
    const RAW: &str = "https://raw.githubusercontent.com/o/r/main/n/06.ipynb";

    #[test]
    fn only_the_latest_download_of_the_published_url_is_published() {
        let d = Some(ObtainedBy::Download);
        let state = StoredNotebooks {
            schema: crate::notebook::store::NOTEBOOKS_SCHEMA.into(),
            current_notebook: "notebooks/0005-x.ipynb".into(),
            notebooks: vec![
                // Stored before `obtained_by` was kept, from the Colab URL.
                entry(1, 'a', COLAB, None),
                entry(2, 'b', "06-fail.ipynb", Some(ObtainedBy::File)),
                // A file said (with --source) to be the Colab notebook.
                entry(3, 'c', COLAB, Some(ObtainedBy::File)),
                entry(4, 'd', "https://example.org/other.ipynb", d),
                // Downloaded again, from the GitHub file the Colab URL names.
                entry(5, 'e', RAW, d),
            ],
            fetch: Default::default(),
        };
        let of = |n: usize| provenance(&state, Some(COLAB), &format!("notebooks/000{n}-x.ipynb"));
        assert!(of(5).is_published());
        assert_eq!(
            of(1),
            NotebookProvenance::EarlierPublished { url: COLAB.into() }
        );
        assert_eq!(of(2).short(), "local copy of 06-fail.ipynb");
        assert_eq!(of(3).short(), format!("local copy of {COLAB}"));
        assert!(
            of(4)
                .short()
                .starts_with("downloaded from https://example.org/")
        );
        assert_eq!(of(9), NotebookProvenance::Unlisted);
        // Without a published URL nothing is published.
        assert!(!provenance(&state, None, "notebooks/0005-x.ipynb").is_published());
        assert_eq!(
            of(2).label("notebooks/0002-x.ipynb"),
            "notebooks/0002-x.ipynb (local copy of 06-fail.ipynb)"
        );
    }
}
