//! What the site may say about files: errors name them from the project
//! root, so a published site carries no folder of the author's machine.

use crate::app::Project;

/// `text` with the project root (as given and as resolved) taken out of
/// every path it names.
pub fn from_root(project: &Project, text: &str) -> String {
    let given = project.layout().root();
    [Some(given.to_path_buf()), given.canonicalize().ok()]
        .into_iter()
        .flatten()
        .filter(|r| r.is_absolute())
        .map(|r| format!("{}/", r.display()))
        .fold(text.to_string(), |t, root| t.replace(root.as_str(), ""))
}
