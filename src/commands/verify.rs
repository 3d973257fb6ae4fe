//! `verify`: integrity of every stored snapshot, currency of the current one.

use super::Context;
use super::chapters::{currency_phrase, integrity_word};
use crate::chapter::{self, Currency, Registry};
use crate::cli::{ListFormat, VerifyArgs};
use crate::error::{EXIT_CHECK_FAILED, EXIT_OK, Result};

pub fn run(ctx: &mut Context, args: VerifyArgs) -> Result<u8> {
    let registry = Registry::open(&ctx.layout)?;
    let keys = if args.ids.is_empty() {
        registry.require_keys()?.to_vec()
    } else {
        args.ids
            .iter()
            .map(|id| registry.resolve(id))
            .collect::<Result<Vec<_>>>()?
    };
    let mut checks = Vec::new();
    for key in &keys {
        let ch = registry.load(key)?;
        checks.push(chapter::verify(&ctx.layout, &ch));
    }
    let altered = checks.iter().any(|c| !c.intact());
    let not_current = checks.iter().any(|c| c.currency != Currency::Matches);
    let failed = altered || (args.strict && not_current);
    match args.format {
        ListFormat::Json => ctx.out.json(&checks)?,
        ListFormat::Yaml => ctx.out.yaml(&checks)?,
        ListFormat::Text => {
            for c in &checks {
                ctx.out.line(format!("{}  {}", c.chapter, c.title))?;
                for s in &c.snapshots {
                    let mut line = format!(
                        "  {:<10} {}  {}{}",
                        integrity_word(s.integrity),
                        s.file,
                        s.scope,
                        if s.current { ", current" } else { "" }
                    );
                    if let Some(actual) = s.actual.as_ref().filter(|a| **a != s.expected) {
                        line.push_str(&format!(
                            "\n             manifest prose-v1:{}\n             file     prose-v1:{actual}",
                            s.expected
                        ));
                    }
                    if let Some(p) = &s.problem {
                        line.push_str(&format!("\n             {p}"));
                    }
                    ctx.out.line(line)?;
                }
                ctx.out.line(format!(
                    "  current snapshot: {}",
                    currency_phrase(c.currency)
                ))?;
                let why = match c.currency {
                    Currency::Matches => None,
                    Currency::ExcerptCannotMatch => Some(
                        "the published fingerprint covers the complete chapter; store the full text \
                         with `snapshot add --complete` (or `fetch`) to check currency",
                    ),
                    Currency::Differs => Some(
                        "either the chapter changed since it was published, or the site normalizes \
                         differently from prose-v1 (its rules are not published)",
                    ),
                };
                if let Some(why) = why {
                    ctx.out.line(format!("    {why}"))?;
                }
                ctx.out
                    .line(format!("    published sha256 {}", c.published_fingerprint))?;
            }
            let verdict = if altered {
                "FAILED: a stored snapshot no longer matches its manifest"
            } else if failed {
                "FAILED (--strict): a current snapshot differs from the published fingerprint"
            } else {
                "ok: every stored snapshot is intact"
            };
            ctx.out.line(verdict)?;
        }
    }
    Ok(if failed { EXIT_CHECK_FAILED } else { EXIT_OK })
}
