//! What the chapter says, made checkable: its published tables (`tables`),
//! their internal consistency (`audit`), its numeric claims (`claims`, each
//! a `metric` held to its `criteria`) and the sentences with numbers no
//! claim checks (`coverage`), its notebook claims' schema (`notebook_reads`),
//! and the comparison with a measured run (`diff`, `render`, `plot`), claim
//! by claim (`verdict`), over the run's rounds (`claim_rounds`, with the
//! interval's arithmetic in `interval`, and two runs' shift over rounds in
//! `shift`), whether a run can be compared at all (`comparability`), and a
//! claim's measurement said in words (`in_words`).

pub mod audit;
pub mod claim_rounds;
pub mod claims;
pub mod comparability;
pub mod coverage;
pub mod criteria;
pub mod diff;
pub mod in_words;
pub mod interval;
pub mod metric;
pub mod notebook_reads;
pub mod plot;
pub mod render;
pub mod shift;
pub mod tables;
pub mod verdict;

use crate::chapter::Chapter;
use crate::error::Result;
use crate::layout::Layout;

/// The published tables of one snapshot file of a chapter.
pub fn read_tables(
    layout: &Layout,
    chapter: &Chapter,
    snapshot_file: &str,
) -> Result<tables::Parsed> {
    let path = layout.snapshot_file(&chapter.key, snapshot_file);
    let text = crate::text::owned::read_owned(&path, &layout.snapshots_root())?;
    Ok(tables::parse(&text))
}

/// The normalized prose of one snapshot file of a chapter, where claims'
/// quotes are looked up.
pub fn read_prose(layout: &Layout, chapter: &Chapter, snapshot_file: &str) -> Result<String> {
    let path = layout.snapshot_file(&chapter.key, snapshot_file);
    let text = crate::text::owned::read_owned(&path, &layout.snapshots_root())?;
    crate::chapter::normalize::normalize(&text)
        .map_err(|e| crate::chapter::normalize_error(&path, e))
}

/// The chapter's claims, checked against its tables; None when the chapter
/// has no claims.yaml.
pub fn read_claims(
    layout: &Layout,
    chapter: &Chapter,
    parsed: &tables::Parsed,
) -> Result<Option<claims::ClaimsFile>> {
    let path = layout.claims_file(&chapter.key);
    if !path.exists() {
        return Ok(None);
    }
    crate::text::owned::check_owned(&path, &layout.snapshots_root())?;
    let set = claims::TableSet::from_published(&parsed.tables);
    let file = claims::load(&path, &set)?;
    if file.chapter != chapter.key.to_string() {
        return Err(crate::error::Error::invalid(
            &path,
            format!(
                "field 'chapter': says '{}', but the file belongs to {}",
                file.chapter, chapter.key
            ),
        ));
    }
    Ok(Some(file))
}
