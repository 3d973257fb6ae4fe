//! `fingerprint`: sha256sum-style lines for prose-v1 (or raw) fingerprints.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::chapter::normalize::{self, PROSE_V1};
use crate::chapter::normalize_error;
use crate::cli::FingerprintArgs;
use crate::error::{Error, Outcome, Result};
use crate::output::Out;

/// `fingerprint`
pub fn run(out: &mut Out, args: FingerprintArgs) -> Result<Outcome> {
    let files = if args.files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.files
    };
    for file in &files {
        let name = file.display().to_string();
        let reader = open(file)?;
        if args.show_normalized {
            let mut failed = None;
            normalize::normalize_stream(reader, |bytes| {
                if failed.is_none() {
                    failed = out.bytes(bytes).err();
                }
            })
            .map_err(|e| normalize_error(file, e))?;
            if let Some(e) = failed {
                return Err(e);
            }
            out.line("")?;
        } else if args.raw {
            let hex = normalize::sha256_reader(reader).map_err(|e| Error::io(file, e))?;
            out.line(format!("{hex}  {name}"))?;
        } else {
            let hex =
                normalize::fingerprint_reader(reader).map_err(|e| normalize_error(file, e))?;
            out.line(format!("{PROSE_V1}:{hex}  {name}"))?;
        }
    }
    Ok(Outcome::Ok)
}

fn open(file: &Path) -> Result<Box<dyn Read>> {
    if file.as_os_str() == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    // A named file must be a regular one (a FIFO would wait for a writer,
    // a device never ends); `-` streams standard input, whatever it is.
    let f = crate::text::read::open_regular(file).map_err(|e| Error::io(file, e))?;
    Ok(Box::new(f))
}
