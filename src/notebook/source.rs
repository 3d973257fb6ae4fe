//! Where a notebook is downloaded from: a Colab or GitHub page that shows a
//! notebook kept on GitHub names the file, whose raw download URL is built
//! here; any other http(s) URL is fetched as it is.

use url::Url;

/// The URL that downloads the notebook a page shows: a Colab URL
/// `https://colab.research.google.com/github/OWNER/REPO/blob/REF/PATH` or a
/// GitHub one `https://github.com/OWNER/REPO/blob/REF/PATH` becomes
/// `https://raw.githubusercontent.com/OWNER/REPO/REF/PATH`; anything else is
/// returned as given. A Colab notebook kept in Google Drive has no public
/// file to download, and is refused with what to do instead.
pub fn download_url(given: &str) -> Result<String, String> {
    let url = Url::parse(given).map_err(|e| format!("invalid URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("only http and https URLs are downloaded".into());
    }
    let segments: Vec<&str> = url
        .path_segments()
        .map(|s| s.filter(|p| !p.is_empty()).collect())
        .unwrap_or_default();
    let on_github = match (url.host_str(), segments.as_slice()) {
        (Some("colab.research.google.com"), ["github", rest @ ..]) => Some(rest),
        (Some("colab.research.google.com"), ["drive", ..]) => {
            return Err(
                "a Colab notebook kept in Google Drive has no public file to download; \
                 download it from Colab (File, Download, .ipynb) and add that file"
                    .into(),
            );
        }
        (Some("github.com" | "www.github.com"), rest) => Some(rest),
        _ => None,
    };
    match on_github {
        Some([owner, repo, "blob", reference, path @ ..]) if !path.is_empty() => Ok(format!(
            "https://raw.githubusercontent.com/{owner}/{repo}/{reference}/{}",
            path.join("/")
        )),
        Some(_) => {
            Err("a GitHub or Colab URL must name a file: .../OWNER/REPO/blob/REF/PATH.ipynb".into())
        }
        None => Ok(given.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colab_and_github_pages_become_the_files_raw_url() {
        let raw = "https://raw.githubusercontent.com/ernanhughes/programmer.ie.notebooks/main/notebooks/pytorch-from-first-principles/06-chapter.ipynb";
        for page in [
            "https://colab.research.google.com/github/ernanhughes/programmer.ie.notebooks/blob/main/notebooks/pytorch-from-first-principles/06-chapter.ipynb",
            "https://github.com/ernanhughes/programmer.ie.notebooks/blob/main/notebooks/pytorch-from-first-principles/06-chapter.ipynb",
        ] {
            assert_eq!(download_url(page).unwrap(), raw, "{page}");
        }
        let other = "http://127.0.0.1:8080/06.ipynb?x=1";
        assert_eq!(download_url(other).unwrap(), other);
    }

    #[test]
    fn what_cannot_be_downloaded_says_why() {
        for (url, says) in [
            (
                "https://colab.research.google.com/drive/1abc",
                "Google Drive",
            ),
            (
                "https://github.com/o/r/tree/main/notebooks",
                "must name a file",
            ),
            (
                "https://colab.research.google.com/github/o/r/blob/main",
                "must name a file",
            ),
            ("ftp://example.org/n.ipynb", "only http and https"),
            ("not a url", "invalid URL"),
        ] {
            let e = download_url(url).unwrap_err();
            assert!(e.contains(says), "{url}: {e}");
        }
    }
}
