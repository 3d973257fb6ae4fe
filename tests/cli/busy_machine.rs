//! A busy machine told apart from a wrong chapter: the test starts a
//! CPU-bound process of its own, pinned to the CPU the run is restricted
//! to, and checks that the run is marked disturbed, that no claim comes out
//! NOT_REPRODUCED, and that nothing downstream reads it as evidence against
//! the chapter. It asserts classes and marks, never a duration, and the hog
//! is killed however the test ends.

use std::process::{Child, Command};

use crate::helpers::{CHAPTER, Project, exclusive, stderr, stdout};

/// A CPU-bound `sh` loop, killed and reaped when dropped (a failed
/// assertion included).
struct Hog(Child);

impl Hog {
    /// Starts one on `cpu` only: spawned from a thread pinned there, whose
    /// affinity the child inherits.
    fn on(cpu: usize) -> Hog {
        std::thread::spawn(move || {
            research_companion::sys::set_affinity(&[cpu]).expect("pin the hog's thread");
            Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .expect("start the hog")
        })
        .join()
        .map(Hog)
        .expect("the hog's thread")
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The CPU a `--cpus 1` run uses: the first of this process's mask.
fn the_runs_cpu() -> usize {
    research_companion::sys::affinity().unwrap()[0]
}

#[test]
fn a_hog_on_the_runs_cpu_makes_claims_inconclusive_never_not_reproduced() {
    let _g = exclusive();
    let p = Project::seeded();
    let hog = Hog::on(the_runs_cpu());
    let hog_pid = hog.pid();
    let out = p
        .cmd()
        .args(["reproduce", "06", "--batches", "2", "--rounds", "2"])
        .args(["--budget", "1"])
        .output()
        .unwrap();
    drop(hog);
    assert!(
        !std::path::Path::new(&format!("/proc/{hog_pid}")).exists(),
        "the hog is gone"
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    let summary = text.lines().next().unwrap();
    assert!(summary.contains(" 0 NOT_REPRODUCED"), "{text}");
    assert!(!summary.contains(" 0 INCONCLUSIVE"), "{text}");
    assert!(text.contains("machine busy: other processes"), "{text}");
    assert!(
        text.contains("INCONCLUSIVE: the measurement cannot decide"),
        "the legend says what it means: {text}"
    );
    // --strict fails on it; the check itself did not.
    assert!(
        text.lines()
            .any(|l| l.contains(": INCONCLUSIVE") && l.contains("machine busy: other processes")),
        "{text}"
    );

    // The record is marked, and history shows the mark.
    let history = p.cmd().args(["history", "06"]).output().unwrap();
    assert!(
        stdout(&history).contains("disturbed: "),
        "{}",
        stdout(&history)
    );
    let status = p.cmd().args(["status", "06"]).output().unwrap();
    assert!(
        stdout(&status).contains("holds nothing against the chapter"),
        "{}",
        stdout(&status)
    );

    // The prompt and the report say the claims are undecided, not wrong.
    let prompt = p.cmd().args(["prompt", "06"]).output().unwrap();
    assert!(
        stdout(&prompt).contains("which is not evidence against the chapter"),
        "{}",
        stdout(&prompt)
    );
    let report = stdout(&p.cmd().args(["report", "06"]).output().unwrap());
    assert!(
        report.contains("nothing to change yet: the measurement could not decide"),
        "{report}"
    );
    assert!(!report.contains("qualify or correct"), "{report}");

    // publish (with a review recorded, since experiments alone are not
    // research) shows nothing contradictory and no negative finding from it.
    p.write("review.md", crate::helpers::fixture_report("review-06.md"));
    p.record(&["--report", "review.md"]);
    let published = p.cmd().args(["publish", CHAPTER]).output().unwrap();
    assert_eq!(published.status.code(), Some(0), "{}", stderr(&published));
    let v: serde_yaml::Value = serde_yaml::from_slice(&published.stdout).unwrap();
    assert_eq!(v["summary"]["contradictory"], serde_yaml::Value::from(0));
    // The review's negative finding is about a paper, never the busy run;
    // and no measurement the run could not decide is shown as support.
    let negative = serde_yaml::to_string(&v["negative_findings"]).unwrap();
    assert!(!negative.contains("experiment"), "{negative}");
    for group in ["supporting", "qualifying"] {
        let items = serde_yaml::to_string(&v["sections"]["existing_evidence"][group]).unwrap();
        assert!(!items.contains("INCONCLUSIVE"), "{group}: {items}");
    }
    let unresolved =
        serde_yaml::to_string(&v["sections"]["existing_evidence"]["unresolved"]).unwrap();
    assert!(
        unresolved.contains("it is not evidence against the chapter"),
        "{unresolved}"
    );
}

#[test]
fn strict_fails_on_an_inconclusive_claim() {
    let _g = exclusive();
    let p = Project::seeded();
    // Two quiet rounds cannot give a 95% interval: every claim is
    // INCONCLUSIVE, whatever the machine's load (one round is judged on its
    // value alone). (The same run without --strict exits 0:
    // `a_run_that_decided_nothing_never_takes_the_place_of_one_that_measured`.)
    let out = p
        .expect(UNDECIDED)
        .args(["--no-record", "--strict"])
        .code(1)
        .stderr_has("--strict: a claim is INCONCLUSIVE")
        .run();
    let text = out.stdout();
    assert!(text.contains(" 6 INCONCLUSIVE"), "{text}");
    assert!(text.contains(" 0 NOT_REPRODUCED"), "{text}");
}

/// A reproduce of chapter 06 that decides nothing: two rounds give no
/// interval (six are the fewest), and no time for more.
const UNDECIDED: [&str; 8] = [
    "reproduce",
    "06",
    "--batches",
    "1",
    "--rounds",
    "2",
    "--budget",
    "0",
];

#[test]
fn a_run_that_decided_nothing_never_takes_the_place_of_one_that_measured() {
    let _g = exclusive();
    let p = Project::seeded();
    let good = p.record_fixture_run();
    // Every claim INCONCLUSIVE, and without --strict that fails nothing.
    let out = p.expect(UNDECIDED).success().run();
    let text = out.stdout();
    assert!(text.contains(" 6 INCONCLUSIVE"), "{text}");
    assert!(text.contains(" 0 NOT_REPRODUCED"), "{text}");
    let history = stdout(&p.cmd().args(["history", "06"]).output().unwrap());
    // The history keeps it, newest first.
    let undecided = history
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_ascii_alphanumeric()))
        .find(|w| w.starts_with("pytorch-from-first-principles:06:") && *w != good)
        .unwrap_or_else(|| panic!("no second run in {history}"))
        .to_string();
    let status = stdout(&p.cmd().args(["status", "06"]).output().unwrap());
    assert!(
        status.contains(&format!("latest experiment {good}")),
        "{status}"
    );
    assert!(status.contains(" 0 inconclusive"), "{status}");
    let line = status
        .lines()
        .find(|l| l.contains("decided nothing"))
        .unwrap_or_default();
    assert!(line.contains(&undecided), "{status}");
    // diff --latest names the run it compares, and the one it passed over.
    let diff = stdout(&p.cmd().args(["diff", "--latest"]).output().unwrap());
    let mut head = diff.lines();
    assert_eq!(head.next(), Some(format!("Run {good}").as_str()), "{diff}");
    let passed = head.next().unwrap_or_default();
    assert!(
        passed.contains("1 later experiment(s) decided nothing") && passed.contains(&undecided),
        "{diff}"
    );
}
