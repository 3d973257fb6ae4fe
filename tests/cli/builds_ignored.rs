//! What the tool builds stays out of the book's git history: `site` with no
//! `--out` writes `build/site/`, and any output under `build/` gets the
//! folder's own `.gitignore`, so `git status` lists only the evidence
//! (snapshots, records) after a week with the tool.

use crate::helpers::{Project, fixture_report, stderr, stdout};

fn git(p: &Project, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(p.root())
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn the_tools_builds_do_not_show_in_git_status_and_the_evidence_does() {
    let p = Project::with_fixture_records();
    git(&p, &["init", "-q", "-b", "main"]);
    git(&p, &["config", "user.email", "author@example.com"]);
    git(&p, &["config", "user.name", "Author"]);
    git(&p, &["add", "."]);
    git(&p, &["commit", "-qm", "the book's evidence so far"]);
    assert_eq!(git(&p, &["status", "--porcelain"]), "");

    // The site, with no --out: under build/, with the folder's .gitignore.
    let out = p.cmd().arg("site").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(p.path("build/site/index.html").is_file());
    assert_eq!(
        std::fs::read_to_string(p.path("build/.gitignore"))
            .unwrap()
            .lines()
            .last(),
        Some("*")
    );
    // The week's drafts, as README writes them (folders made as needed).
    for args in [
        &["prompt", "06", "--out", "build/prompt-06.md"][..],
        &["report", "06", "--out", "build/drafts/review-06.md"],
        &["publish", "06", "--out", "build/06.yaml"],
    ] {
        let out = p.cmd().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    assert!(p.path("build/drafts/review-06.plot.svg").is_file());
    assert_eq!(git(&p, &["status", "--porcelain"]), "");

    // A finished review recorded is evidence: git lists the new record.
    p.write("build/review-06.md", fixture_report("review-06.md"));
    p.record(&["--report", "build/review-06.md"]);
    let status = git(&p, &["status", "--porcelain", "--untracked-files=all"]);
    let listed: Vec<&str> = status.lines().collect();
    assert_eq!(listed.len(), 2, "{status}");
    assert!(
        listed
            .iter()
            .all(|l| l.starts_with("?? records/pytorch-from-first-principles/06/")),
        "{status}"
    );
}
