//! The `nb-v1` fingerprint: what a notebook says and does (its cells' types
//! and sources, in order), not what running it left behind (outputs,
//! execution counts), nor ids or metadata, so a notebook saved after a run
//! keeps its fingerprint. docs/formats.md gives the bytes hashed.

use sha2::{Digest, Sha256};

use super::format::Notebook;
use crate::chapter::Fingerprint;
use crate::text::format::hex;

/// The name of the rules, stored beside every notebook fingerprint.
pub const NB_V1: &str = "nb-v1";

/// A source with its line endings made `\n`: `\r\n` first, then any `\r`
/// left on its own.
pub fn normalize_source(source: &str) -> String {
    source.replace("\r\n", "\n").replace('\r', "\n")
}

/// The bytes `nb-v1` hashes: for each cell in order, its `cell_type`, a
/// line feed, the length in bytes of its normalized source in decimal, a
/// line feed, the normalized source, a line feed.
pub fn hashed_bytes(nb: &Notebook) -> Vec<u8> {
    let mut bytes = Vec::new();
    for c in &nb.cells {
        let source = normalize_source(&c.source);
        bytes.extend_from_slice(c.cell_type.as_bytes());
        bytes.push(b'\n');
        bytes.extend_from_slice(source.len().to_string().as_bytes());
        bytes.push(b'\n');
        bytes.extend_from_slice(source.as_bytes());
        bytes.push(b'\n');
    }
    bytes
}

/// The notebook's `nb-v1` fingerprint.
pub fn fingerprint(nb: &Notebook) -> Fingerprint {
    Fingerprint {
        algorithm: "sha256".into(),
        normalization: NB_V1.into(),
        value: hex(&Sha256::digest(hashed_bytes(nb))),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;
    use crate::notebook::format::parse;

    fn read(doc: &Value) -> Notebook {
        parse(doc.to_string().as_bytes(), Path::new("p.ipynb")).unwrap()
    }

    #[test]
    fn the_hashed_bytes_are_type_length_and_source_per_cell() {
        let nb = read(
            &json!({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
                {"cell_type": "markdown", "metadata": {}, "source": ["# T\r\n", "é"]},
                {"cell_type": "code", "metadata": {}, "source": "", "outputs": [], "execution_count": null}
            ]}),
        );
        assert_eq!(
            hashed_bytes(&nb),
            "markdown\n6\n# T\né\ncode\n0\n\n".as_bytes()
        );
        assert_eq!(
            fingerprint(&nb).value,
            hex(&Sha256::digest(b"markdown\n6\n# T\n\xc3\xa9\ncode\n0\n\n"))
        );
    }

    #[test]
    fn the_length_keeps_cells_apart() {
        // Without it, these two would hash the same bytes.
        let one = read(&json!({"nbformat": 4, "cells": [
            {"cell_type": "code", "source": "a\ncode\n1\nb"}]}));
        let two = read(&json!({"nbformat": 4, "cells": [
            {"cell_type": "code", "source": "a"}, {"cell_type": "code", "source": "b"}]}));
        assert_ne!(fingerprint(&one), fingerprint(&two));
    }

    /// A notebook document from cell types and sources, each source split
    /// into lines as Jupyter saves it, with `extra` (outputs, counts, ids,
    /// metadata) laid on every cell and the notebook.
    fn document(cells: &[(String, String)], extra: u32) -> Value {
        let cells: Vec<Value> = cells
            .iter()
            .enumerate()
            .map(|(i, (kind, source))| {
                let lines: Vec<&str> = source.split_inclusive('\n').collect();
                let mut c = json!({"cell_type": kind, "source": lines, "metadata": {}});
                if extra > 0 {
                    c["id"] = json!(format!("id-{extra}-{i}"));
                    c["metadata"] = json!({"tags": [format!("t{extra}")], "collapsed": extra % 2 == 0});
                    if kind == "code" {
                        c["execution_count"] = json!(extra + i as u32);
                        c["outputs"] = json!([{"output_type": "stream", "name": "stdout", "text": format!("{extra}\n")}]);
                    }
                }
                c
            })
            .collect();
        json!({"nbformat": 4, "nbformat_minor": 4 + extra % 2, "metadata": {"run": extra}, "cells": cells})
    }

    fn cells() -> impl Strategy<Value = Vec<(String, String)>> {
        let kind = prop_oneof![Just("code"), Just("markdown"), Just("raw")].prop_map(String::from);
        let source = proptest::collection::vec(
            prop_oneof![
                Just("x".to_string()),
                Just("\n".into()),
                Just("\r\n".into()),
                Just("é".into()),
                Just(" ".into()),
                Just("assert".into())
            ],
            0..12,
        )
        .prop_map(|parts| parts.concat());
        proptest::collection::vec((kind, source), 0..6)
    }

    proptest! {
        #[test]
        fn outputs_counts_ids_and_metadata_keep_the_fingerprint(cells in cells(), extra in 1u32..1000) {
            let bare = fingerprint(&read(&document(&cells, 0)));
            prop_assert_eq!(&bare, &fingerprint(&read(&document(&cells, extra))));
            // Line endings written the other way keep it too.
            let unix: Vec<(String, String)> = cells.iter().map(|(k, s)| (k.clone(), normalize_source(s))).collect();
            prop_assert_eq!(&bare, &fingerprint(&read(&document(&unix, extra))));
        }

        #[test]
        fn a_changed_source_or_type_changes_the_fingerprint(cells in cells(), at in any::<proptest::sample::Index>(), what in 0..3u8) {
            prop_assume!(!cells.is_empty());
            let i = at.index(cells.len());
            let mut changed = cells.clone();
            match what {
                0 => changed[i].1.push('y'),
                1 => changed[i].0 = if changed[i].0 == "code" { "raw".into() } else { "code".into() },
                _ => { changed.swap(i, (i + 1) % cells.len()); prop_assume!(changed != cells); }
            }
            let changed_normalized: Vec<(String, String)> = changed.iter().map(|(k, s)| (k.clone(), normalize_source(s))).collect();
            let cells_normalized: Vec<(String, String)> = cells.iter().map(|(k, s)| (k.clone(), normalize_source(s))).collect();
            prop_assume!(changed_normalized != cells_normalized);
            prop_assert_ne!(fingerprint(&read(&document(&cells, 0))), fingerprint(&read(&document(&changed, 0))));
        }
    }
}
