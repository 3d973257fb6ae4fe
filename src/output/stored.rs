//! A record just stored, as `bench --record` and `record` print it.

use super::Out;
use crate::app::record::Stored;
use crate::error::Result;

/// Prints where a record was stored and what it holds.
pub fn print_stored(out: &mut Out, stored: &Stored) -> Result<()> {
    let record = &stored.record;
    out.line(format!("recorded {} ({})", record.run_id, record.kind))?;
    out.line(format!("  file:     {}", stored.path.display()))?;
    out.line(format!(
        "  revision: {} ({}, {})",
        record.revision.fingerprint, record.revision.snapshot, record.revision.scope
    ))?;
    if let Some(r) = &record.report {
        out.line(format!(
            "  report:   {} of 7 sections, {} claims audited, {} source-ledger rows, {} UNVERIFIED, {} UNRUN",
            r.check.sections_present.len(),
            r.check.claim_audit_rows,
            r.check.source_ledger_rows,
            r.check.unverified_markers,
            r.check.unrun_markers
        ))?;
    }
    if let Some(e) = &record.experiment {
        out.line(format!(
            "  result:   {}",
            crate::text::escape::visible(&e.summary)
        ))?;
    }
    if !record.git.available {
        out.line(format!(
            "  git:      {}",
            record.git.note.as_deref().unwrap_or("not available")
        ))?;
    }
    Ok(())
}
