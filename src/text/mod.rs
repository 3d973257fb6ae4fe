//! Text helpers shared by every layer, one module per concern:
//! - [`read`]: reading a file whole, regular files only, at most a size,
//!   UTF-8 or an error naming the file and the byte offset;
//! - [`owned`]: files of the tool's own folders checked to be regular files
//!   that lie inside them before they are read;
//! - [`escape`]: control and invisible characters of file-derived text
//!   written as escapes before a terminal shows it;
//! - [`quote`]: quoted lines that could pass for a document's structure
//!   marked;
//! - [`redact`]: credentials and secret parameters taken out of URLs, in
//!   one URL or in free text;
//! - [`format`]: numbers, settings, lists, id prefixes and hex digests as
//!   the tool prints them;
//! - [`table`]: aligned plain-text tables.

pub mod escape;
pub mod format;
pub mod owned;
pub mod quote;
pub mod read;
pub mod redact;
pub mod table;
