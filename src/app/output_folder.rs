//! Where the HTML site and the site data may be written: never into
//! the tool's own stores or the project's sources. A target inside, equal
//! to, or holding `book-snapshots/`, `records/`, `templates/`, `src/` or
//! `.git` of the project root is refused before anything is written, with
//! the folder named. Both paths are compared as the file system resolves
//! them (links followed, `..` and `.` taken), also when the target, or part
//! of it, does not exist yet, and through a link whose target does not
//! exist yet.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};
use crate::layout::Layout;

/// The project root's folders no output may be written into or over.
pub const PROTECTED: [&str; 5] = ["book-snapshots", "records", "templates", "src", ".git"];

/// The most links [`resolve`] follows by hand for one path (the kernel's
/// own limit, past which it gives ELOOP).
const MAX_LINKS: usize = 40;

/// `path` as the file system would resolve it once written: absolute, with
/// every existing part's links followed and `.`/`..` taken, and the parts
/// that do not exist yet appended as they are. A link whose target does
/// not exist yet (a dangling link) is followed too, to where writing
/// through it would create that target.
pub fn resolve(path: &Path) -> Result<PathBuf> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| Error::io(Path::new("."), e))?
            .join(path)
    };
    let mut out = PathBuf::new();
    // The parts still to take, the next one last.
    let mut pending: Vec<OsString> = Vec::new();
    push_parts(&mut pending, &mut out, &absolute);
    let mut links = 0;
    while let Some(name) = pending.pop() {
        if name == ".." {
            out.pop();
            continue;
        }
        out.push(&name);
        // An existing part (a link among them) is taken as the file
        // system resolves it; a missing one stays as written.
        if let Ok(real) = out.canonicalize() {
            out = real;
        } else if let Ok(target) = std::fs::read_link(&out) {
            links += 1;
            if links > MAX_LINKS {
                return Err(Error::invalid(
                    path,
                    format!("leads through more than {MAX_LINKS} links (a loop of links?)"),
                ));
            }
            out.pop();
            push_parts(&mut pending, &mut out, &target);
        }
    }
    Ok(out)
}

/// Puts `path`'s parts on `pending` (to be taken first, in order), `..` as
/// itself and `.` left out; an absolute `path` starts `out` again from the
/// root.
fn push_parts(pending: &mut Vec<OsString>, out: &mut PathBuf, path: &Path) {
    let mut parts = Vec::new();
    for part in path.components() {
        match part {
            Component::Prefix(_) | Component::RootDir => {
                *out = PathBuf::from(part.as_os_str());
                parts.clear();
            }
            Component::CurDir => {}
            Component::ParentDir => parts.push(OsString::from("..")),
            Component::Normal(name) => parts.push(name.to_os_string()),
        }
    }
    pending.extend(parts.into_iter().rev());
}

/// Refuses `target` (`what` says which output, as the command names it) when it
/// is one of the project's [`PROTECTED`] folders, lies inside one, or holds
/// one.
pub fn check(layout: &Layout, target: &Path, what: &str) -> Result<()> {
    let resolved = resolve(target)?;
    let root = resolve(layout.root())?;
    for name in PROTECTED {
        let store = resolve(&root.join(name))?;
        let relation = if resolved == store {
            "is"
        } else if resolved.starts_with(&store) {
            "is inside"
        } else if store.starts_with(&resolved) {
            "holds"
        } else {
            continue;
        };
        return Err(Error::invalid(
            target,
            format!(
                "{relation} the project's {name}/ folder ({}); {what} never writes into the tool's own stores or sources, give a path outside them",
                store.display()
            ),
        ));
    }
    Ok(())
}

/// What `build/.gitignore` holds: everything in the folder, itself too.
pub const BUILD_GITIGNORE: &str = "# Written by research_companion: what it builds (the site, drafts, plots,\n# run files not recorded) is never the book's evidence, so git ignores it all.\n*\n";

/// Makes ready a folder for an output at `target`: when `target` lies in
/// the project's `build/` folder, that folder and the target's parent are
/// created, and `build/.gitignore` (`*`) is written unless it exists, so
/// git ignores whatever the tool builds there. Elsewhere nothing is done.
pub fn prepare(layout: &Layout, target: &Path) -> Result<()> {
    let build = layout.build_dir();
    let resolved = resolve(target)?;
    if !resolved.starts_with(resolve(&build)?) {
        return Ok(());
    }
    std::fs::create_dir_all(&build).map_err(|e| Error::io(&build, e))?;
    let ignore = build.join(".gitignore");
    if std::fs::symlink_metadata(&ignore).is_err() {
        match crate::atomic::write_new(&ignore, BUILD_GITIGNORE.as_bytes()) {
            Ok(()) | Err(Error::WouldOverwrite { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    if let Some(parent) = resolved.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_in_over_or_through_a_link_into_a_store_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join("records/b/c")).unwrap();
        std::fs::create_dir_all(root.join("book-snapshots")).unwrap();
        std::os::unix::fs::symlink(root.join("records"), dir.path().join("link")).unwrap();
        let layout = Layout::new(root.clone());
        let refused = |p: PathBuf| check(&layout, &p, "the site").unwrap_err().to_string();
        assert!(refused(root.join("records")).contains("is the project's records/"));
        assert!(refused(root.join("records/b/new")).contains("is inside the project's records/"));
        assert!(refused(root.clone()).contains("holds the project's book-snapshots/"));
        assert!(refused(dir.path().join("link/new/site")).contains("records/"));
        // A dangling link, absolute or relative, leads where it would create
        // its target; a chain of them too.
        std::os::unix::fs::symlink(root.join("records/b/new"), dir.path().join("dangling"))
            .unwrap();
        assert!(refused(dir.path().join("dangling")).contains("inside the project's records/"));
        std::os::unix::fs::symlink("project/templates/x", dir.path().join("relative")).unwrap();
        std::os::unix::fs::symlink("relative/y", dir.path().join("chain")).unwrap();
        assert!(refused(dir.path().join("chain/z")).contains("templates/"));
        std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
        assert!(refused(dir.path().join("loop")).contains("more than 40 links"));
        assert!(refused(root.join("x/../book-snapshots/s")).contains("book-snapshots/"));
        // A store that does not exist yet is protected all the same.
        assert!(refused(root.join("templates/site")).contains("templates/"));
        check(&layout, &root.join("site"), "the site").unwrap();
        check(&layout, &dir.path().join("elsewhere"), "the site").unwrap();
    }
}
