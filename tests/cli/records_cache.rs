//! The cache of record reads (`.research-companion-cache/`): a shortcut
//! that never changes what a reader is told. A record added or edited after
//! it was cached is read again, a broken record or an edited evidence file
//! is still reported, a cache that is corrupt or cannot be written changes
//! nothing, and git never offers the cache for a commit.

use crate::helpers::{CHAPTER, Project, stderr, stdout};

const CACHE: &str = ".research-companion-cache";

/// Exit code, standard output and standard error of `args`.
fn run(p: &Project, args: &[&str]) -> (Option<i32>, String, String) {
    let out = p.cmd().args(args).output().unwrap();
    (out.status.code(), stdout(&out), stderr(&out))
}

fn record_path(p: &Project, name: &str) -> std::path::PathBuf {
    p.path(&format!("records/{CHAPTER}/{name}"))
}

#[test]
fn the_cache_is_written_beside_records_and_git_never_offers_it() {
    let p = Project::with_fixture_records();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(p.root())
            .output()
            .unwrap()
    };
    if !git(&["init", "-q", "."]).status.success() {
        eprintln!("SKIPPED: no git");
        return;
    }
    let (code, _, err) = run(&p, &["status"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        p.path(&format!(
            "{CACHE}/records-pytorch-from-first-principles-06.json"
        ))
        .is_file()
    );
    let listed =
        String::from_utf8_lossy(&git(&["status", "--porcelain", "--untracked-files=all"]).stdout)
            .into_owned();
    assert!(listed.contains("records/"), "{listed}");
    assert!(!listed.contains(CACHE), "{listed}");
}

#[test]
fn a_record_added_or_edited_after_it_was_cached_is_read_again() {
    let p = Project::with_fixture_records();
    let (_, before, _) = run(&p, &["history", "06"]);
    assert!(before.contains("7.79x"), "{before}");
    assert!(p.path(CACHE).is_dir());

    // An edit (a longer summary) to a cached record shows up.
    let record = record_path(&p, "20261102T120000-bbbbbbbbbbbb.record.yaml");
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(
        &record,
        text.replace(
            "sleep 0->8 workers 7.79x",
            "sleep 0->8 workers 6.66x, edited",
        ),
    )
    .unwrap();
    let (code, after, err) = run(&p, &["history", "06"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(after.contains("6.66x, edited"), "{after}");
    assert!(!after.contains("7.79x"), "{after}");

    // So does an edit that keeps the file's size.
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(&record, text.replace("6.66x, edited", "5.55x, edited")).unwrap();
    let (_, after, _) = run(&p, &["history", "06"]);
    assert!(after.contains("5.55x, edited"), "{after}");

    // And a record added after the cache was written.
    let report = p.write("review.md", crate::records::FULL_REPORT);
    let out = p
        .cmd()
        .args(["record", "06", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let (_, after, _) = run(&p, &["history", "06"]);
    assert_eq!(after.matches("  research  ").count(), 2, "{after}");
}

#[test]
fn a_corrupt_foreign_or_unwritable_cache_changes_nothing_a_reader_sees() {
    let p = Project::with_fixture_records();
    let uncached: Vec<_> = ["history", "status"]
        .iter()
        .map(|c| {
            let _ = std::fs::remove_dir_all(p.path(CACHE));
            run(&p, &[c])
        })
        .collect();
    let file = p.path(&format!(
        "{CACHE}/records-pytorch-from-first-principles-06.json"
    ));
    let evidence = p.path(&format!(
        "{CACHE}/evidence-pytorch-from-first-principles-06.json"
    ));
    let cached = std::fs::read(&file).unwrap();
    let corruptions: [(&str, Vec<u8>); 4] = [
        ("garbage", b"\x00\xffnot json at all".to_vec()),
        ("truncated", cached[..cached.len() / 2].to_vec()),
        (
            "another build's",
            String::from_utf8_lossy(&cached)
                .replacen("\"writer\":\"", "\"writer\":\"9.9.9 elsewhere ", 1)
                .into_bytes(),
        ),
        (
            "another schema's",
            String::from_utf8_lossy(&cached)
                .replacen("records-cache.v1", "records-cache.v0", 1)
                .into_bytes(),
        ),
    ];
    for (what, bytes) in corruptions {
        for (i, c) in ["history", "status"].iter().enumerate() {
            std::fs::write(&file, &bytes).unwrap();
            std::fs::write(&evidence, &bytes).unwrap();
            assert_eq!(run(&p, &[c]), uncached[i], "{what} cache, {c}");
        }
    }
    // A cache folder that cannot be made: slower, never an error.
    std::fs::remove_dir_all(p.path(CACHE)).unwrap();
    std::fs::write(p.path(CACHE), "a file where the cache folder would go").unwrap();
    for (i, c) in ["history", "status"].iter().enumerate() {
        assert_eq!(run(&p, &[c]), uncached[i], "unwritable cache, {c}");
    }
}

#[test]
fn a_broken_record_and_edited_evidence_are_reported_with_a_cache() {
    let p = Project::with_fixture_records();
    let (code, _, err) = run(&p, &["status"]);
    assert_eq!(code, Some(0), "{err}");

    // Evidence edited after it was checked, to the same size.
    let run_file = record_path(&p, "20261102T120000-bbbbbbbbbbbb.run.yaml");
    let text = std::fs::read_to_string(&run_file).unwrap();
    let edited = text.replacen("0.", "9.", 1);
    assert_eq!(edited.len(), text.len());
    std::fs::write(&run_file, edited).unwrap();
    for _ in 0..2 {
        let (code, out, err) = run(&p, &["status"]);
        assert_ne!(code, Some(0), "{out}");
        assert!(err.contains("unreadable evidence"), "{err}");
        assert!(err.contains("bbbbbbbbbbbb.run.yaml"), "{err}");
        assert!(err.contains("no longer matches"), "{err}");
    }
    std::fs::write(&run_file, text).unwrap();

    // A cached record broken afterwards.
    let record = record_path(&p, "20261101T120000-aaaaaaaaaaaa.record.yaml");
    std::fs::write(&record, "schema: [unclosed\n").unwrap();
    for _ in 0..2 {
        let (code, _, err) = run(&p, &["history", "06"]);
        assert_ne!(code, Some(0), "{err}");
        assert!(err.contains("unreadable record"), "{err}");
        assert!(err.contains("aaaaaaaaaaaa.record.yaml"), "{err}");
    }
}
