//! Git provenance for records: which repository, commit and branch the tool
//! ran in, whether the tree was dirty, and the remote with any credentials
//! removed. Outside a git repository this says so instead of failing.

use std::path::{Path, PathBuf};

use git2::{Repository, StatusOptions};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Where a record was made, as git sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GitProvenance {
    /// False when the root is not inside a git repository (or git could not
    /// read it); `note` says why.
    pub available: bool,
    /// The repository's remote URL with any credentials removed; none when
    /// it has no remote on a network. Never a local path: records travel.
    /// (Records written before this rule may hold the checkout's path.)
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::text::redact::serialize_redacted"
    )]
    pub repository: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<bool>,
    /// Written by earlier versions beside a local `repository`; now the
    /// remote is the `repository` itself.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::text::redact::serialize_redacted"
    )]
    pub remote: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Reads provenance for the repository containing `root`.
pub fn collect(root: &Path) -> GitProvenance {
    match Repository::discover(root) {
        Ok(repo) => describe(&repo).unwrap_or_else(|e| {
            unavailable(format!(
                "git could not read the repository ({:?})",
                e.class()
            ))
        }),
        // No path in the note: it is published with the record.
        Err(_) => unavailable("the project is not inside a git repository".into()),
    }
}

/// Provenance that says why git could not be read.
pub fn unavailable(note: String) -> GitProvenance {
    GitProvenance {
        available: false,
        repository: None,
        commit: None,
        branch: None,
        dirty: None,
        remote: None,
        note: Some(note),
    }
}

fn describe(repo: &Repository) -> std::result::Result<GitProvenance, git2::Error> {
    let head = repo.head().ok();
    let commit = head
        .as_ref()
        .and_then(|h| h.peel_to_commit().ok())
        .map(|c| c.id().to_string());
    let branch = head
        .as_ref()
        .filter(|h| h.is_branch())
        .and_then(|h| h.shorthand().ok().map(str::to_string));
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .include_ignored(false)
        .recurse_untracked_dirs(false);
    let dirty = !repo.statuses(Some(&mut opts))?.is_empty();
    let remote = repo
        .find_remote("origin")
        .ok()
        .or_else(|| {
            let names = repo.remotes().ok()?;
            let first = names.iter().flatten().next()?.map(str::to_string)?;
            repo.find_remote(&first).ok()
        })
        .and_then(|r| r.url().ok().and_then(network_remote));
    Ok(GitProvenance {
        available: true,
        repository: remote,
        commit,
        branch,
        dirty: Some(dirty),
        remote: None,
        note: if head.is_none() {
            Some("the repository has no commits yet".into())
        } else {
            None
        },
    })
}

/// A remote URL as a record may show it: credentials removed, and nothing
/// when the "remote" is a folder on this machine (a path, `file://`).
fn network_remote(url: &str) -> Option<String> {
    let local = url.starts_with('/')
        || url.starts_with('.')
        || url.starts_with('~')
        || url.starts_with("file:")
        || !url.contains(':');
    (!local).then(|| crate::text::redact::redact_url(url))
}

/// Checks, before anything is written, that `root` is inside a git work tree
/// a commit can go to.
pub fn check_can_commit(root: &Path) -> Result<()> {
    let repo = Repository::discover(root).map_err(|_| {
        Error::Usage(format!(
            "cannot commit: {} is not inside a git repository",
            root.display()
        ))
    })?;
    if repo.workdir().is_none() {
        return Err(Error::Usage("cannot commit: the repository is bare".into()));
    }
    Ok(())
}

/// Commits `files` (absolute paths inside the repository's work tree) on top
/// of HEAD, and stages them, leaving anything else staged as it was.
/// Returns the new commit id.
pub fn commit_files(root: &Path, files: &[PathBuf], message: &str) -> Result<String> {
    let repo = Repository::discover(root).map_err(|_| {
        Error::Usage(format!(
            "cannot commit: {} is not inside a git repository",
            root.display()
        ))
    })?;
    let git_err = |e: git2::Error| Error::Other(format!("cannot commit: {}", e.message()));
    let workdir = repo
        .workdir()
        .ok_or_else(|| Error::Usage("cannot commit: the repository is bare".into()))?
        .canonicalize()
        .map_err(|e| Error::io(root, e))?;
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    // The new tree is HEAD's tree plus these files only.
    let mut tree_index = git2::Index::new().map_err(git_err)?;
    if let Some(p) = &parent {
        tree_index
            .read_tree(&p.tree().map_err(git_err)?)
            .map_err(git_err)?;
    }
    let mut repo_index = repo.index().map_err(git_err)?;
    for file in files {
        let abs = file.canonicalize().map_err(|e| Error::io(file, e))?;
        let rel = abs.strip_prefix(&workdir).map_err(|_| {
            Error::Usage(format!(
                "cannot commit: {} is outside the repository",
                file.display()
            ))
        })?;
        let bytes = crate::text::read::read_at_most(&abs, crate::text::read::MAX_FILE_BYTES)
            .map_err(|e| Error::io(&abs, e))?;
        let id = repo.blob(&bytes).map_err(git_err)?;
        let path = rel.to_string_lossy().replace('\\', "/").into_bytes();
        let entry = git2::IndexEntry {
            ctime: git2::IndexTime::new(0, 0),
            mtime: git2::IndexTime::new(0, 0),
            dev: 0,
            ino: 0,
            mode: 0o100644,
            uid: 0,
            gid: 0,
            file_size: bytes.len() as u32,
            id,
            flags: path.len().min(0xfff) as u16,
            flags_extended: 0,
            path,
        };
        tree_index.add(&entry).map_err(git_err)?;
        repo_index.add_path(rel).map_err(git_err)?;
    }
    let tree_id = tree_index.write_tree_to(&repo).map_err(git_err)?;
    let tree = repo.find_tree(tree_id).map_err(git_err)?;
    let sig = repo
        .signature()
        .or_else(|_| git2::Signature::now("research_companion", "research_companion@localhost"))
        .map_err(git_err)?;
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    let id = repo
        .commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
        .map_err(git_err)?;
    repo_index.write().map_err(git_err)?;
    Ok(id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_removed_from_remote_urls() {
        assert_eq!(
            crate::text::redact::redact_url("https://user:ghp_secret@github.com/o/r.git"),
            "https://github.com/o/r.git"
        );
        assert_eq!(
            crate::text::redact::redact_url("https://token@github.com/o/r"),
            "https://github.com/o/r"
        );
        assert_eq!(
            crate::text::redact::redact_url("ssh://git@example.com:22/o/r"),
            "ssh://example.com:22/o/r"
        );
        assert_eq!(
            crate::text::redact::redact_url("git@github.com:o/r.git"),
            "github.com:o/r.git"
        );
        assert_eq!(
            crate::text::redact::redact_url("https://github.com/o/r"),
            "https://github.com/o/r"
        );
        assert_eq!(
            crate::text::redact::redact_url("/srv/git/r.git"),
            "/srv/git/r.git"
        );
    }

    #[test]
    fn only_network_remotes_are_kept() {
        assert_eq!(
            network_remote("https://user:tok@github.com/o/r.git").as_deref(),
            Some("https://github.com/o/r.git")
        );
        assert_eq!(
            network_remote("git@github.com:o/r.git").as_deref(),
            Some("github.com:o/r.git")
        );
        for local in [
            "/home/ann/book",
            "file:///home/ann/book",
            "../book",
            "~/book",
            "book",
        ] {
            assert_eq!(network_remote(local), None, "{local}");
        }
    }

    #[test]
    fn outside_a_repository_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let p = collect(dir.path());
        assert!(!p.available);
        assert!(p.note.unwrap().contains("not inside a git repository"));
    }
}
