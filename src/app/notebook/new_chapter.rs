//! `chapter new --notebook`: a chapter registered with its notebook, named
//! in chapter.yaml and stored as its first notebook snapshot.

use std::path::Path;

use super::{Download, NotebookSource, material, obtain, store_obtained};
use crate::app::Project;
use crate::app::chapters::{self, Created, NewChapter};
use crate::error::{Error, Result};
use crate::notebook::store::NotebookAdded;

/// `chapter new` with a notebook: the notebook is read or downloaded
/// first (a failure writes nothing), named in chapter.yaml, and stored as
/// the chapter's first notebook snapshot once the chapter exists; if that
/// fails, the new chapter is removed again.
pub fn new_chapter(
    project: &Project,
    mut new: NewChapter,
    text: &Path,
    notebook: &str,
    download: Download,
) -> Result<(Created, NotebookAdded)> {
    let source = if notebook.contains("://") {
        NotebookSource::Url(notebook.to_string())
    } else {
        NotebookSource::File(notebook.into())
    };
    let obtained = obtain(project, None, &source, None, None, download)?.ok_or_else(|| {
        Error::Other("the server answered 304 Not Modified to a first download".into())
    })?;
    new.material.push(material(notebook, &obtained));
    let key = new.key.clone();
    let book_dir = project.layout().book_dir(&key.book);
    let book_existed = book_dir.exists();
    let created = chapters::create(project, new, text)?;
    match store_obtained(project, &key, obtained) {
        Ok(added) => Ok((created, added)),
        Err(e) => {
            let _ = std::fs::remove_dir_all(project.layout().chapter_dir(&key));
            if !book_existed {
                let _ = std::fs::remove_dir(&book_dir);
            }
            Err(e)
        }
    }
}
