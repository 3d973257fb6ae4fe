//! Use-cases: one function per thing a user asks for (reproduce a chapter,
//! compare a run, record a run, look up runs, render a document, fetch a
//! snapshot). They take plain values and a [`Project`], return values, and
//! print nothing; `commands/` turns arguments into these calls and their
//! results into output.

pub mod bench;
pub mod changes;
pub mod chapters;
pub mod claims;
pub mod compare;
pub mod diff;
pub mod documents;
pub mod fetch;
pub mod project;
pub mod publish;
pub mod record;
pub mod reproduce;
pub mod runs;
pub mod site;
pub mod status;

pub use project::Project;
