//! A ready claim as the YAML an author pastes under `notebook_claims:`: a
//! list item at column 0, small maps in flow style, as docs/formats.md
//! writes claims.

use crate::published::criteria::Criterion;
use crate::published::notebook_reads::NotebookClaim;

/// A string as YAML that reads back as it: plain when it is a name
/// (`final-loss-12.5`, `nb.final_loss`), else in single quotes (a quote
/// inside doubled), valid in a flow map too.
fn quoted(s: &str) -> String {
    let name = s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && !["true", "false", "yes", "no", "null", "on", "off", "y", "n"]
            .contains(&s.to_lowercase().as_str());
    if name {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

/// The claim's lines, the first `- id: ...`.
pub fn ready_claim_lines(c: &NotebookClaim) -> Vec<String> {
    let mut out = vec![
        format!("- id: {}", quoted(&c.id)),
        format!("  quote: {}", quoted(&c.quote)),
        format!("  location: {}", quoted(&c.location)),
        "  reads:".to_string(),
    ];
    for (name, r) in &c.reads {
        let mut fields = vec![format!("cell: {}", quoted(&r.cell))];
        if let Some(p) = &r.pattern {
            fields.push(format!("pattern: {}", quoted(p)));
        }
        if let Some(l) = &r.label {
            fields.push(format!("label: {}", quoted(l)));
        }
        if let Some(n) = r.nth {
            fields.push(format!("nth: {n}"));
        }
        out.push(format!("    {name}: {{{}}}", fields.join(", ")));
    }
    out.push(format!("  metric: {}", quoted(&c.metric)));
    out.push(format!(
        "  stated: {{value: {}, tolerance: {}}}",
        c.stated.value, c.stated.tolerance
    ));
    out.push(format!(
        "  reproduce: {{{}}}",
        match c.reproduce {
            Criterion::AtLeast(v) => format!("at_least: {v}"),
            Criterion::AtMost(v) => format!("at_most: {v}"),
            Criterion::Between([a, b]) => format!("between: [{a}, {b}]"),
        }
    ));
    if let Some(m) = &c.magnitude {
        if let Ok(text) = serde_json::to_string(m) {
            out.push(format!("  magnitude: {text}"));
        }
    }
    out
}
