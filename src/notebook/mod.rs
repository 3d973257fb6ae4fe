//! The chapter's Jupyter notebook as evidence: stored snapshots of it
//! (`store`, numbered and never edited, like the text's), what it says and
//! does fingerprinted by `nb-v1` (`fingerprint`), read and checked against
//! the nbformat v4 essentials (`format`), audited without running
//! (`audit`), run in a fresh kernel through the nbclient harness this crate
//! ships (`harness`) with nothing it started or wrote outliving it
//! (`contain`), what it printed made fit to travel (`scrub`), the run as a
//! record keeps it (`run`), and the chapter's notebook claims decided from
//! what a run printed (`claims`, their results in `claim_result`). Where a Colab or GitHub page's
//! notebook is downloaded from is `source`; where a stored one came from
//! (the published notebook or a local copy), `provenance`. The numbers a
//! chapter states held against what a run printed: `stated`.
//!
//! This module knows nothing of records: `records` holds a run's
//! [`run::NotebookInfo`], and the use-cases put the two together.

pub mod audit;
pub mod claim_result;
pub mod claims;
pub mod contain;
pub mod fingerprint;
pub mod format;
pub mod harness;
pub mod provenance;
pub mod run;
pub mod scrub;
pub mod source;
pub mod stated;
pub mod store;

pub use fingerprint::NB_V1;
pub use format::{Notebook, NotebookCell};
pub use run::{NotebookInfo, NotebookRunFile, NotebookVerdict};
pub use store::{NotebookEntry, StoredNotebooks};
