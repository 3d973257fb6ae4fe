//! Portable records: a record names no folder of the machine
//! that made it, its environment id means "same machine kind", and records
//! made elsewhere list and render the same in any checkout.

use std::path::{Path, PathBuf};

use crate::helpers::{
    FIXTURE_RUN, Project, exclusive as lock, files_under, fixture_record_file, stderr, stdout,
};

/// Every file under `dir` as text, with its path.
fn texts(dir: &Path) -> Vec<(PathBuf, String)> {
    files_under(dir)
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            (f, text)
        })
        .collect()
}

fn git_init(root: &Path, remote: &str) {
    let repo = git2::Repository::init(root).unwrap();
    repo.remote("origin", remote).unwrap();
}

#[test]
fn a_record_names_no_folder_of_the_machine_that_made_it() {
    let _g = lock();
    let p = Project::seeded();
    // The checkout's remote is a folder on this machine: not published.
    let elsewhere = tempfile::tempdir().unwrap();
    git_init(p.root(), &elsewhere.path().display().to_string());
    // A run file outside the project, a report inside it.
    let run = elsewhere.path().join("measured.run.yaml");
    std::fs::write(&run, fixture_record_file(FIXTURE_RUN)).unwrap();
    // A draft still is a review report: it has at least one section.
    let report = p.write(
        "drafts/review.md",
        "## 1. Context and provenance\n\nTo be written.\n",
    );
    p.record(&["--run", run.to_str().unwrap()]);
    p.record(&["--report", report.to_str().unwrap(), "--draft"]);
    let out = p
        .cmd()
        .args([
            "bench",
            "--batches",
            "2",
            "--workers",
            "0,2",
            "--cost-ms",
            "0.05",
            "--record",
            "--not-comparable",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    let written = texts(&p.path("records"));
    assert_eq!(
        written
            .iter()
            .filter(|(f, _)| f.to_string_lossy().ends_with(".record.yaml"))
            .count(),
        3
    );
    let canonical = |d: &Path| d.canonicalize().unwrap().display().to_string();
    let forbidden = [
        p.root().display().to_string(),
        canonical(p.root()),
        elsewhere.path().display().to_string(),
        canonical(elsewhere.path()),
        std::env::temp_dir().display().to_string(),
    ];
    for (file, text) in &written {
        for f in &forbidden {
            assert!(!text.contains(f.as_str()), "{} holds {f}", file.display());
        }
    }
    let all: String = written.iter().map(|(_, t)| t.as_str()).collect();
    assert!(all.contains("source: measured.run.yaml\n"), "{all}");
    assert!(all.contains("source: drafts/review.md\n"), "{all}");
    assert!(
        !all.contains("repository:"),
        "a local remote is not published"
    );
    assert!(all.contains("env_id: env-v2:"));
}

#[test]
fn a_network_remote_is_kept_without_its_credentials() {
    let _g = lock();
    let p = Project::seeded();
    git_init(
        p.root(),
        "https://ann:ghp_secret@example.com/books/first-principles.git",
    );
    p.record_fixture_run();
    let all: String = texts(&p.path("records"))
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert!(
        all.contains("repository: https://example.com/books/first-principles.git\n"),
        "{all}"
    );
    assert!(!all.contains("ghp_secret"));
    assert!(!all.contains("remote:"), "the remote is the repository now");
}

/// Rewrites a record as if another machine kind had made it.
fn from_another_machine(record: &Path, cpus: usize, model: &str, id: &str) {
    let text = std::fs::read_to_string(record).unwrap();
    let mut doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let env = &mut doc["environment"];
    env["env_id"] = format!("env-v2:{id}").into();
    env["identity"]["logical_cpus"] = (cpus as u64).into();
    env["identity"]["cpu_model"] = model.into();
    std::fs::write(record, serde_yaml::to_string(&doc).unwrap()).unwrap();
}

#[test]
fn records_from_three_machines_read_the_same_in_another_checkout() {
    let _g = lock();
    let a = Project::seeded();
    let run = a.write("r.run.yaml", fixture_record_file(FIXTURE_RUN));
    let ids: Vec<String> = (0..3)
        .map(|_| a.record(&["--run", run.to_str().unwrap()]))
        .collect();
    let dir = a.path("records/pytorch-from-first-principles/06");
    let record_of = |id: &str| {
        let stamp = id.split(':').skip(2).collect::<Vec<_>>().join("-");
        dir.join(format!("{stamp}.record.yaml"))
    };
    for id in &ids {
        crate::helpers::as_todays_measurement(&record_of(id));
    }
    from_another_machine(&record_of(&ids[1]), 8, "AMD EPYC 7B13", &"b".repeat(64));
    from_another_machine(
        &record_of(&ids[2]),
        4,
        "Apple M2 (virtualized)",
        &"c".repeat(64),
    );

    // A fresh checkout elsewhere: the same snapshots, the records copied.
    let b = Project::seeded();
    let to = b.path("records/pytorch-from-first-principles/06");
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    let show = |p: &Project, args: &[&str]| {
        let out = p.cmd().args(args).output().unwrap();
        assert_ne!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    for args in [
        &["history", "06"][..],
        &["status", "06"],
        &["report", "06"],
        &["publish", "06"],
    ] {
        let (here, there) = (show(&a, args), show(&b, args));
        assert_eq!(
            here, there,
            "{args:?} reads differently in another checkout"
        );
        if args[0] != "publish" {
            for env in ["env-v2:bbbbbbbbbbbb", "env-v2:cccccccccccc"] {
                assert!(
                    there.contains(env),
                    "{args:?} does not show {env}:\n{there}"
                );
            }
        }
    }
    let history = show(&b, &["history", "06"]);
    for id in &ids {
        assert!(history.contains(id.as_str()), "{history}");
    }
}
