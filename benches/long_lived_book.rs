//! Issue 52's bounds at the size of a long-lived book: chapter 06 with
//! 10,000 records (`generate`), and what `site`, `prompt 06`, `publish`,
//! `history 06` and `status` cost on it with the release binary, each
//! printed against its bound. Nothing is asserted: a shared machine is
//! noisy, and the numbers are for a person to read.
//!
//! - `cargo bench --bench long_lived_book`: generate into a temporary
//!   folder and measure (`--reps N` repetitions each, default 5;
//!   `--records N` records, default 10,000);
//! - `cargo bench --bench long_lived_book -- --generate DIR`: only write the
//!   project to DIR (for measuring by hand, or for other benchmarks);
//! - `cargo bench --bench long_lived_book -- --project DIR`: measure a
//!   project generated before;
//! - `RESEARCH_COMPANION_BENCH_BASELINE=PATH`: also time `history 06` and
//!   `status` with an earlier build, for a before and after.
//!
//! Each command runs under GNU time when /usr/bin/time exists, so its CPU
//! time and peak memory are printed beside the wall time: on a loaded
//! machine the CPU time is the steadier figure.

#[allow(dead_code)]
#[path = "cli/common.rs"]
mod common;
#[path = "long_lived_book/generate.rs"]
mod generate;
#[path = "long_lived_book/measure.rs"]
mod measure;

use std::path::PathBuf;

use common::{copy_tree, exe};

/// The value after `--flag`, if given.
fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let records = flag(&args, "--records").map_or(10_000, |n| n.parse().expect("--records N"));
    let reps = flag(&args, "--reps").map_or(5, |n| n.parse().expect("--reps N"));
    if let Some(dir) = flag(&args, "--generate") {
        let book = generate::generate(&PathBuf::from(dir), records);
        measure::describe(&book);
        return;
    }
    // `cargo bench` passes --bench; `cargo test` builds benches but runs none.
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = match flag(&args, "--project") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let book = generate::generate(&tmp.path().join("project"), records);
            measure::describe(&book);
            book.root
        }
    };
    measure::run(&root, tmp.path(), reps);
}
