//! Use-cases: one function per thing a user asks for (reproduce a chapter,
//! diff a run with the chapter, compare two runs, record a run, look up
//! runs, publish the site data, build the HTML site, render a document,
//! fetch a snapshot, store, check and run the chapter's notebook). They
//! take plain values and a [`Project`], return values, and print nothing;
//! `commands/` turns arguments into these calls and their results into
//! output. A module is named after the command it
//! serves (`diff`, `compare`, `publish`, `site`, `status` for `status` and
//! `history`, `documents` for `prompt` and `report`); `research_record` is
//! what the research so far found, which `documents` and `publish` share.

pub mod bench;
pub mod changes;
pub mod chapters;
pub mod claims;
pub mod compare;
pub mod diff;
pub mod documents;
pub mod fetch;
pub mod notebook;
pub mod output_folder;
pub mod project;
pub mod publish;
pub mod record;
pub mod reproduce;
pub mod reproduce_notebook;
pub mod research_record;
pub mod runs;
pub mod site;
pub mod status;

pub use project::Project;
