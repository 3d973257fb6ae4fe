//! research_companion: keep a technical book's chapter claims backed by
//! evidence that can be re-checked.
//!
//! Three layers; imports only point down (docs/architecture.md):
//! - the command line: `cli` (clap types), `commands` (one file per
//!   subcommand), `output` (printing, formats); `main.rs` maps outcomes to
//!   exit codes;
//! - use-cases: `app`, one function per thing a user asks for, taking and
//!   returning plain values, printing nothing;
//! - capabilities: `chapter` (registry, snapshots, prose-v1), `bench` (the
//!   pipeline engine), `published` (the chapter's tables, claims, diff and
//!   the verdicts), `records` (the record store, status, the site data
//!   `publish` writes), `render` (templates), `notebook` (the chapter's
//!   Jupyter notebook: snapshots, nb-v1, its audit and its runs),
//!   `fetch` (HTTP), `env` (environment fingerprint), `provenance` (git),
//!   `bounded_child` (a child process run within bounds);
//! - foundations every layer uses: `ids` (a leaf), `layout` (every path),
//!   `error`, `atomic` (the one way files are written), `yaml_io` (the one
//!   place YAML is read and written), `text`, and `sys` (the only `unsafe`).

pub mod app;
pub mod atomic;
pub mod bench;
pub mod bounded_child;
pub mod chapter;
pub mod cli;
pub mod commands;
pub mod env;
pub mod error;
pub mod fetch;
pub mod ids;
pub mod layout;
pub mod notebook;
pub mod output;
pub mod provenance;
pub mod published;
pub mod records;
pub mod render;
pub mod sys;
pub mod text;
pub mod yaml_io;

// Last, so that a reader (or the architecture test) cutting a file at its
// first `#[cfg(test)]` still sees every module above.
#[cfg(test)]
mod testing;

pub use error::{Error, Result};

/// Counts what a thread under a memory limit allocates (`sys`).
#[global_allocator]
static ALLOCATOR: sys::LimitedAlloc = sys::LimitedAlloc;
