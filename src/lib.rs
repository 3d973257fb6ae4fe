//! research_companion: keep a technical book's chapter claims backed by
//! evidence that can be re-checked.
//!
//! The binary is glue over this library: `chapter` (registry, snapshots,
//! normalized fingerprints), `layout` (every on-disk path), `atomic` (the one
//! way files are written) and `yaml_io` (the one place YAML is read and written).

pub mod atomic;
pub mod bench;
pub mod chapter;
pub mod cli;
pub mod commands;
pub mod env;
pub mod error;
pub mod fetch;
pub mod layout;
pub mod output;
pub mod provenance;
pub mod published;
pub mod records;
pub mod render;
pub mod sys;
pub mod text;
pub mod yaml_io;

pub use error::{Error, Result};
