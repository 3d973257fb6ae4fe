//! Evidence integrity (issue 51, class 9): a run file holds one row per
//! configuration; a record's evidence files are read only while they still
//! have the sha256 the record holds; a report's required headings count
//! only where Markdown reads them as headings.

use crate::helpers::{CHAPTER, FIXTURE_RUN, Project, fixture_record_file, stderr, stdout};

/// The fixture run file with its first result row appended again.
fn run_with_a_duplicate_row() -> String {
    let text = String::from_utf8(fixture_record_file(FIXTURE_RUN)).unwrap();
    let mut run: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let results = run["results"].as_sequence_mut().unwrap();
    let mut copy = results[0].clone();
    // The copy claims another rate, which a reader could take instead.
    copy["summary"]["ex_per_s"] = serde_yaml::Value::from(9999.0);
    results.push(copy);
    serde_yaml::to_string(&run).unwrap()
}

#[test]
fn a_run_file_with_two_rows_for_one_configuration_is_refused() {
    let p = Project::with_fixture_records();
    let run = p.write("dup.run.yaml", run_with_a_duplicate_row());
    let before = p.state();
    for args in [
        vec!["record", "06", "--run", run.to_str().unwrap()],
        vec!["diff", run.to_str().unwrap()],
    ] {
        let out = p.expect(&args).code(2).run();
        let err = out.stderr();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("dup.run.yaml"), "{err}");
        assert!(
            err.contains("a second row for producer sleep with 0 worker(s)"),
            "{err}"
        );
    }
    assert_eq!(p.state(), before, "nothing was recorded");
}

/// The stored fixture run file with one rate changed, as a hand edit
/// after recording would leave it.
fn edit_stored_run(p: &Project) -> std::path::PathBuf {
    let path = p.path(&format!("records/{CHAPTER}/{FIXTURE_RUN}"));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("ex_per_s: 437.5388754868534"));
    std::fs::write(
        &path,
        text.replacen("ex_per_s: 437.5388754868534", "ex_per_s: 1437.5", 1),
    )
    .unwrap();
    path
}

#[test]
fn a_stored_run_file_edited_after_recording_is_named_by_every_reader() {
    let p = Project::with_fixture_records();
    // Untouched, every reader reads the evidence.
    let ok = p.cmd().args(["diff", "--latest"]).output().unwrap();
    assert!(ok.status.success(), "{}", stderr(&ok));
    let ok = p.cmd().args(["status"]).output().unwrap();
    assert!(ok.status.success(), "{}", stderr(&ok));

    edit_stored_run(&p);
    let names_it = |err: &str| {
        err.contains(FIXTURE_RUN)
            && err.contains("no longer matches run ")
            && err.contains("sha256")
    };
    for args in [
        vec!["diff", "--latest"],
        vec!["report", "06"],
        vec!["publish", "06"],
    ] {
        let out = p.expect(&args).code(2).run();
        let err = out.stderr();
        assert!(names_it(&err), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    // status lists the problem and exits 1.
    let out = p.expect(["status"]).code(1).run();
    let all = format!("{}{}", out.stdout(), out.stderr());
    assert!(names_it(&all), "{all}");
    // The prompt is still written, from what the record holds, and says why.
    let out = p.cmd().args(["prompt", "06"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(names_it(&stderr(&out)), "{}", stderr(&out));
    assert!(
        !stdout(&out).contains("1437.5"),
        "the edited rate is not read"
    );
    // The site names the file on the chapter's index row, and exits 1.
    let site = p.path("site");
    let out = p
        .expect(["site", "--out", site.to_str().unwrap()])
        .code(1)
        .run();
    assert!(names_it(&out.stderr()), "{}", out.stderr());
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(names_it(&index), "{index}");
}

#[test]
fn a_stored_report_edited_after_recording_is_refused_by_publish() {
    let p = Project::with_fixture_records();
    let ok = p.cmd().args(["publish", "06"]).output().unwrap();
    assert!(ok.status.success(), "{}", stderr(&ok));
    let report = "20261101T120000-aaaaaaaaaaaa.report.md";
    let path = p.path(&format!("records/{CHAPTER}/{report}"));
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("\nA sentence added after recording.\n");
    std::fs::write(&path, text).unwrap();
    let out = p.expect(["publish", "06"]).code(2).run();
    let err = out.stderr();
    assert!(
        err.contains(report) && err.contains("no longer matches"),
        "{err}"
    );
    let out = p.expect(["status"]).code(1).run();
    let all = format!("{}{}", out.stdout(), out.stderr());
    assert!(
        all.contains(report) && all.contains("no longer matches"),
        "{all}"
    );
}

#[test]
fn report_headings_inside_a_code_fence_or_a_comment_do_not_count() {
    let p = Project::seeded();
    let full = crate::helpers::fixture_report("review-06.md");
    // The whole report inside one fence: not a single section.
    let fenced = p.write(
        "fenced.md",
        format!("# My notes\n\n```markdown\n{full}\n```\n"),
    );
    let before = p.state();
    let out = p
        .expect(["record", "06", "--report", fenced.to_str().unwrap()])
        .code(2)
        .run();
    let err = out.stderr();
    assert!(
        err.contains("fenced.md") && err.contains("none of the seven required sections"),
        "{err}"
    );
    assert_eq!(p.state(), before);
    // One heading inside an HTML comment: that section is missing.
    let commented = p.write(
        "commented.md",
        full.replace("## 4. Findings", "<!--\n## 4. Findings\n-->"),
    );
    assert_ne!(std::fs::read_to_string(&commented).unwrap(), full);
    p.expect([
        "record",
        "06",
        "--strict",
        "--report",
        commented.to_str().unwrap(),
    ])
    .code(2)
    .stderr_has("## 4. Findings")
    .run();
}
