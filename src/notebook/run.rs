//! A notebook run as a record keeps it: each fresh kernel's run, cell by
//! cell (outcome, duration, what it printed), each code cell across the
//! runs (PASS, FAIL, FLAKY with its pass rate), and the notebook's verdict.
//! The run file is the record's evidence (schema
//! `research_companion.notebook-run.v1`); [`NotebookInfo`] is what the
//! record itself says about it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::format::NotebookCell;
use crate::chapter::Fingerprint;
use crate::env::Environment;
use crate::error::Result;

/// Schema of a notebook run file.
pub const NOTEBOOK_RUN_SCHEMA: &str = "research_companion.notebook-run.v1";

/// How one code cell ended in one kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum CellOutcome {
    Ok,
    /// It raised (the exception's name and message are kept).
    Error,
    /// It ran past the cell timeout and was stopped.
    Timeout,
    /// An earlier cell failed, so it did not run.
    NotReached,
}

/// A code cell, or the notebook, across the runs of one recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
pub enum NotebookVerdict {
    /// Every code cell ran without error in every run.
    Pass,
    /// A cell failed in every run that reached it.
    Fail,
    /// A cell failed in some runs and passed in others.
    Flaky,
    /// (A cell only.) No run reached it.
    NotReached,
}

/// One code cell in one kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellRun {
    /// Position among all cells, from 0.
    pub index: usize,
    pub outcome: CellOutcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ename: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evalue: Option<String>,
    pub seconds: f64,
    /// What it printed, as text: bounded, local facts replaced.
    pub output: String,
    /// Characters of output left out to bound it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub output_left_out: usize,
    /// The line of the cell that raised, as its traceback names it (runs
    /// recorded before it was kept have none: [`CellRun::failing_line`]
    /// reads it from their output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_line: Option<FailedLine>,
}

/// The line of a cell that raised: its number in the cell, from 1, and
/// its text (redacted, scrubbed and bounded as a first line is).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailedLine {
    pub line: usize,
    pub text: String,
}

impl CellRun {
    /// The line that raised: the one the run kept, else the one the kept
    /// traceback names (`NotebookCell In[3], line 4` and its `----> 4` marker), for
    /// runs recorded before the line was kept.
    pub fn failing_line(&self) -> Option<FailedLine> {
        if self.outcome != CellOutcome::Error {
            return None;
        }
        self.failed_line
            .clone()
            .or_else(|| failed_line_in_traceback(&self.output))
    }
}

/// The first `NotebookCell In[k], line N` of a plain-text traceback, with the text
/// after its `----> N` marker (empty when the marker is not kept).
pub fn failed_line_in_traceback(output: &str) -> Option<FailedLine> {
    let at = output.find("Cell In[")?;
    let rest = &output[at..];
    let after = &rest[rest.find("], line ")? + "], line ".len()..];
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    let line: usize = digits.parse().ok().filter(|n| *n > 0)?;
    let text = rest
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("Cell In["))
        .find_map(|l| {
            let marked = l.trim_start().strip_prefix("---->")?.trim_start();
            marked.strip_prefix(digits.as_str())
        })
        .map(|t| crate::text::format::prefix(t.trim(), FIRST_LINE_CHARS).to_string())
        .unwrap_or_default();
    Some(FailedLine { line, text })
}

/// `line 4 `assert o1 == o3``: where a cell raised, for its failure words.
pub fn failing_line_words(l: &FailedLine) -> String {
    let text = crate::text::escape::visible(&l.text);
    if text.is_empty() {
        format!("line {}", l.line)
    } else {
        format!("line {} `{text}`", l.line)
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One fresh kernel's run of the notebook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelRun {
    /// The harness process, from start to exit.
    pub wall_seconds: f64,
    /// Inside it: starting the kernel.
    pub kernel_start_seconds: f64,
    /// Inside it: nbclient from starting the kernel to shutting it down.
    pub client_seconds: f64,
    pub cells: Vec<CellRun>,
}

impl KernelRun {
    /// Its cells by their position in the notebook: what a walk over the
    /// notebook's cells looks each one up in, instead of scanning this
    /// run's cells for every cell.
    pub fn cells_by_index(&self) -> std::collections::HashMap<usize, &CellRun> {
        self.cells.iter().map(|c| (c.index, c)).collect()
    }
}

/// A code cell across the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellSummary {
    pub index: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub first_line: String,
    pub has_assertions: bool,
    pub verdict: NotebookVerdict,
    /// Runs in which it ran without error.
    pub passed: usize,
    /// Runs that reached it.
    pub reached: usize,
}

/// The versions a run used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Versions {
    pub python: String,
    /// The kernel's name and its language's version.
    pub kernel: String,
    pub kernel_language_version: Option<String>,
    pub ipykernel: String,
    pub nbclient: String,
    pub nbformat: String,
    pub jupyter_client: Option<String>,
    /// torch, when that Python has it installed.
    pub torch: Option<String>,
}

/// How it was run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    pub cell_timeout_seconds: u64,
    pub kernel: String,
    pub repeat: usize,
}

/// The notebook a run ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotebookRef {
    /// The stored notebook, relative to the chapter folder.
    pub file: String,
    pub fingerprint: Fingerprint,
    pub sha256: String,
}

/// The counts a run comes to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub code_cells: usize,
    /// Code cells with an `assert` statement.
    pub assertion_cells: usize,
    /// Code cells that passed in every run that reached them.
    pub passed: usize,
    pub failed: usize,
    pub flaky: usize,
    pub not_reached: usize,
    /// All runs' wall time together.
    pub wall_seconds: f64,
}

/// A notebook run file: the evidence a notebook record keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotebookRunFile {
    pub schema: String,
    pub created_at: DateTime<Utc>,
    pub tool_version: String,
    pub notebook: NotebookRef,
    /// The chapter's revision when it ran.
    pub chapter_revision: Fingerprint,
    pub settings: RunSettings,
    pub versions: Versions,
    pub environment: Environment,
    pub verdict: NotebookVerdict,
    pub totals: Totals,
    pub cells: Vec<CellSummary>,
    pub runs: Vec<KernelRun>,
    /// The chapter's notebook claims, decided from these runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<super::claim_result::NotebookClaimResult>,
}

impl NotebookRunFile {
    /// The file's YAML.
    pub fn to_yaml(&self) -> Result<String> {
        crate::yaml_io::to_string(self)
    }

    /// The output and outcome of each code cell in the last run.
    pub fn last_run(&self) -> Option<&KernelRun> {
        self.runs.last()
    }

    /// One line: the verdict and what it rests on.
    pub fn summary(&self) -> String {
        summary_line(self.verdict, &self.totals, &self.cells, &self.runs)
    }
}

/// What a notebook record says about its run (the whole run is its
/// evidence file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotebookInfo {
    /// The run file stored beside the record.
    pub file: String,
    pub sha256: String,
    /// The stored notebook that ran, relative to the chapter folder.
    pub notebook_file: String,
    pub fingerprint: Fingerprint,
    pub verdict: NotebookVerdict,
    pub summary: String,
    pub code_cells: usize,
    pub assertion_cells: usize,
    pub passed: usize,
    pub failed: usize,
    pub flaky: usize,
    pub repeat: usize,
    pub wall_seconds: f64,
    /// The chapter's notebook claims, as the run decided them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<super::claim_result::NotebookClaimResult>,
}

impl NotebookInfo {
    /// The record's part, from a run file and its bytes' digest.
    pub fn of(run: &NotebookRunFile, sha256: String) -> Self {
        NotebookInfo {
            file: String::new(),
            sha256,
            notebook_file: run.notebook.file.clone(),
            fingerprint: run.notebook.fingerprint.clone(),
            verdict: run.verdict,
            summary: run.summary(),
            code_cells: run.totals.code_cells,
            assertion_cells: run.totals.assertion_cells,
            passed: run.totals.passed,
            failed: run.totals.failed,
            flaky: run.totals.flaky,
            repeat: run.runs.len(),
            wall_seconds: run.totals.wall_seconds,
            claims: run.claims.clone(),
        }
    }
}

/// The longest exception name a record keeps, in characters (a class
/// name can be made of anything, a token included).
pub const MAX_ENAME_CHARS: usize = 500;

/// The longest first line of a cell a record keeps, in characters.
pub const FIRST_LINE_CHARS: usize = 120;

/// The one redaction every text that comes from a notebook run passes
/// through before a record keeps it or a reader shows it (a cell's first
/// line, its id, an exception's name and message, what a cell printed):
/// each URL without its credentials and secret parameters
/// ([`crate::text::redact::redact_urls_in`]), then every secret-like string the
/// audit finds as `<secret>` ([`super::audit::redact_secrets`]). Applying
/// it again changes nothing, so runs stored before a rule was added are
/// put through it again when they are read.
pub fn redact_run_text(text: &str) -> String {
    super::audit::redact_secrets(&without_placeholder_passwords(
        &crate::text::redact::redact_urls_in(text),
    ))
}

/// The placeholders the scrubber puts for this machine's names and
/// folders ([`super::scrub`]).
const PLACEHOLDERS: [&str; 7] = [
    "<user>",
    "<home>",
    "<host>",
    "<tmp>",
    "<workdir>",
    "<project>",
    "<python>",
];

/// `text` with the password of a URL that an earlier version scrubbed
/// before it redacted taken out: `postgresql://<user>:pw@db` (the user's
/// name replaced) and `mysql:/<home>:pw@db` (a home folder `/root`
/// replaced inside `//root:`) become `postgresql://<user>@db` and
/// `mysql:/<home>@db`, as no URL parser reads them. The password runs
/// from the `:` after the placeholder to the next `@`, with no white
/// space, quote, `/` or angle bracket between.
fn without_placeholder_passwords(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(":/<") && !text.contains("://<") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(found) = text[from..].find(":/") {
        let mut start = from + found + 2;
        from = start;
        if text[start..].starts_with("/<") {
            start += 1;
        }
        let Some(placeholder) = PLACEHOLDERS.iter().find(|p| text[start..].starts_with(**p)) else {
            continue;
        };
        let colon = start + placeholder.len();
        let Some(rest) = text[colon..].strip_prefix(':') else {
            continue;
        };
        let Some(end) = rest.find(|c: char| {
            c == '@' || c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '/' | '<' | '>')
        }) else {
            continue;
        };
        if rest[end..].starts_with('@') && end > 0 {
            out.push_str(&text[copied..colon]);
            copied = colon + 1 + end;
            from = copied;
        }
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
}

impl NotebookRunFile {
    /// The run file with every text field that came from the notebook or
    /// its run put through [`redact_run_text`]: for a run file read back,
    /// which may have been stored by a version with fewer rules.
    pub fn redacted(mut self) -> Self {
        for c in &mut self.cells {
            c.id = c.id.as_deref().map(redact_run_text);
            c.first_line = redact_run_text(&c.first_line);
        }
        for c in self.runs.iter_mut().flat_map(|r| r.cells.iter_mut()) {
            c.ename = c.ename.as_deref().map(redact_run_text);
            c.evalue = c.evalue.as_deref().map(redact_run_text);
            c.output = redact_run_text(&c.output);
            if let Some(l) = &mut c.failed_line {
                l.text = redact_run_text(&l.text);
            }
        }
        self
    }
}

impl NotebookInfo {
    /// The record's part with its summary (which quotes cell ids and
    /// exceptions) put through [`redact_run_text`], as it is read back.
    pub fn redact(&mut self) {
        self.summary = redact_run_text(&self.summary);
    }
}

/// Each code cell across `runs`, the totals, and the notebook's verdict:
/// FAIL when a cell failed in every run that reached it, else FLAKY when
/// one failed in some, else PASS. Each cell's first line is redacted
/// ([`redact_run_text`]), then put through `scrub` (the machine's facts
/// replaced, as in the run's outputs), then cut to [`FIRST_LINE_CHARS`].
pub fn summarize(
    cells: &[NotebookCell],
    runs: &[KernelRun],
    scrub: &dyn Fn(&str) -> String,
) -> (Vec<CellSummary>, Totals, NotebookVerdict) {
    let mut totals = Totals {
        wall_seconds: runs.iter().map(|r| r.wall_seconds).sum(),
        ..Totals::default()
    };
    let mut summaries = Vec::new();
    let indexed: Vec<_> = runs.iter().map(KernelRun::cells_by_index).collect();
    for cell in cells.iter().filter(|c| c.is_code()) {
        let outcomes: Vec<CellOutcome> = indexed
            .iter()
            .filter_map(|r| r.get(&cell.index).copied())
            .map(|c| c.outcome)
            .collect();
        let reached = outcomes
            .iter()
            .filter(|o| **o != CellOutcome::NotReached)
            .count();
        let passed = outcomes.iter().filter(|o| **o == CellOutcome::Ok).count();
        let verdict = match (reached, passed) {
            (0, _) => NotebookVerdict::NotReached,
            (r, p) if r == p => NotebookVerdict::Pass,
            (_, 0) => NotebookVerdict::Fail,
            _ => NotebookVerdict::Flaky,
        };
        totals.code_cells += 1;
        totals.assertion_cells += usize::from(cell.has_assertions());
        match verdict {
            NotebookVerdict::Pass => totals.passed += 1,
            NotebookVerdict::Fail => totals.failed += 1,
            NotebookVerdict::Flaky => totals.flaky += 1,
            NotebookVerdict::NotReached => totals.not_reached += 1,
        }
        summaries.push(CellSummary {
            index: cell.index,
            id: cell.id.as_deref().map(redact_run_text),
            // Redacted whole, then cut: a secret cut short is no longer
            // found. Redacted before it is scrubbed: a user's name replaced
            // inside a URL would hide the URL's password.
            first_line: crate::text::format::prefix(
                &scrub(&redact_run_text(cell.first_line())),
                FIRST_LINE_CHARS,
            )
            .to_string(),
            has_assertions: cell.has_assertions(),
            verdict,
            passed,
            reached,
        });
    }
    let verdict = if totals.failed > 0 || totals.not_reached > 0 {
        NotebookVerdict::Fail
    } else if totals.flaky > 0 {
        NotebookVerdict::Flaky
    } else {
        NotebookVerdict::Pass
    };
    (summaries, totals, verdict)
}

/// How a cell is named in one line: its id, else its position.
pub fn cell_name(index: usize, id: Option<&str>) -> String {
    id.map_or_else(
        || format!("cell #{index}"),
        |id| crate::text::escape::visible(id).into_owned(),
    )
}

/// One line: `PASS: 7 of 7 code cells passed (3 with assertions), 1 fresh
/// kernel, 8.1 s`, with the failing or flaky cells named.
pub fn summary_line(
    verdict: NotebookVerdict,
    t: &Totals,
    cells: &[CellSummary],
    runs: &[KernelRun],
) -> String {
    let kernels = match runs.len() {
        1 => "1 fresh kernel".to_string(),
        n => format!("{n} fresh kernels"),
    };
    let mut line = format!(
        "{verdict}: {} of {} code cells passed ({} with assertions), {kernels}, {:.1} s",
        t.passed, t.code_cells, t.assertion_cells, t.wall_seconds
    );
    let indexed: Vec<_> = runs.iter().map(KernelRun::cells_by_index).collect();
    for c in cells {
        let name = cell_name(c.index, c.id.as_deref());
        match c.verdict {
            NotebookVerdict::Flaky => line.push_str(&format!(
                "; {name} FLAKY, passed {} of {} runs",
                c.passed, c.reached
            )),
            NotebookVerdict::Fail => {
                let why = indexed
                    .iter()
                    .rev()
                    .filter_map(|r| r.get(&c.index).copied())
                    .find(|x| x.outcome != CellOutcome::Ok && x.outcome != CellOutcome::NotReached)
                    .map(failure_words)
                    .unwrap_or_default();
                line.push_str(&format!("; {name} FAIL ({why})"));
            }
            _ => {}
        }
    }
    if t.not_reached > 0 {
        line.push_str(&format!("; {} not reached", t.not_reached));
    }
    line
}

/// `line 4 `assert x == 2`: AssertionError: x is not two` (the line that
/// raised, when the traceback names it), or `timed out`.
pub fn failure_words(c: &CellRun) -> String {
    let words: String = match c.outcome {
        CellOutcome::Timeout => "timed out".into(),
        CellOutcome::Error => {
            let name = c.ename.as_deref().unwrap_or("error");
            match c.evalue.as_deref().filter(|v| !v.is_empty()) {
                Some(v) => format!("{name}: {}", crate::text::format::prefix(v, 160)),
                None => name.to_string(),
            }
        }
        CellOutcome::Ok => "ok".into(),
        CellOutcome::NotReached => "not reached".into(),
    };
    let words = match c.failing_line() {
        Some(l) => format!("{}: {words}", failing_line_words(&l)),
        None => words,
    };
    // One line, whatever the exception's name and message hold.
    crate::text::escape::visible(&words).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells() -> Vec<NotebookCell> {
        let cell = |index, kind: &str, source: &str| NotebookCell {
            index,
            cell_type: kind.into(),
            id: Some(format!("c{index}")),
            source: source.into(),
            outputs: Vec::new(),
            tags: Vec::new(),
        };
        vec![
            cell(0, "markdown", "# t"),
            cell(1, "code", "x = 1"),
            cell(2, "code", "assert x"),
            cell(3, "code", "print(x)"),
        ]
    }

    fn run(outcomes: [CellOutcome; 3]) -> KernelRun {
        KernelRun {
            wall_seconds: 2.0,
            kernel_start_seconds: 1.0,
            client_seconds: 1.5,
            cells: outcomes
                .iter()
                .enumerate()
                .map(|(i, &outcome)| CellRun {
                    index: i + 1,
                    outcome,
                    ename: (outcome == CellOutcome::Error).then(|| "AssertionError".into()),
                    evalue: None,
                    seconds: 0.1,
                    output: String::new(),
                    output_left_out: 0,
                    failed_line: None,
                })
                .collect(),
        }
    }

    use CellOutcome::{Error as E, NotReached as N, Ok as O, Timeout as T};

    #[test]
    fn a_password_left_in_a_url_scrubbed_before_redaction_is_taken_out_when_read() {
        for (stored, read) in [
            (
                "postgresql://<user>:S3cr3tPwA@db/app",
                "postgresql://<user>@db/app",
            ),
            (
                "x mysql:/<home>:S3cr3tPw@db:3306/app y",
                "x mysql:/<home>@db:3306/app y",
            ),
            (
                "see <home>:/<tmp> and a:/<user>: b@c",
                "see <home>:/<tmp> and a:/<user>: b@c",
            ),
            ("file:///<home>/x", "file:///<home>/x"),
        ] {
            assert_eq!(redact_run_text(stored), read, "{stored}");
            assert_eq!(redact_run_text(read), read, "{read}");
        }
    }

    fn same(s: &str) -> String {
        s.to_string()
    }

    #[test]
    fn a_first_line_is_redacted_then_scrubbed_as_outputs_are() {
        let facts = crate::notebook::scrub::LocalFacts {
            home: Some("/home/alice".into()),
            users: vec!["alice".into()],
            ..Default::default()
        };
        let scrubber = crate::notebook::scrub::Scrubber::new(&facts);
        let mut cells = cells();
        cells[1].source = "# /home/alice/secret/x and postgresql://alice:S3cr3tPwA@db/app".into();
        let (summaries, _, _) = summarize(&cells, &[run([O, O, O])], &|s| scrubber.scrub(s));
        assert_eq!(
            summaries[0].first_line,
            "# <home>/secret/x and postgresql://db/app"
        );
    }

    #[test]
    fn every_cell_passing_in_every_run_is_a_pass() {
        let (cells, t, v) = summarize(&cells(), &[run([O, O, O]), run([O, O, O])], &same);
        assert_eq!(v, NotebookVerdict::Pass);
        assert_eq!((t.code_cells, t.assertion_cells, t.passed), (3, 1, 3));
        assert_eq!(t.wall_seconds, 4.0);
        assert!(cells.iter().all(|c| (c.passed, c.reached) == (2, 2)));
        assert_eq!(
            summary_line(v, &t, &cells, &[]),
            "PASS: 3 of 3 code cells passed (1 with assertions), 0 fresh kernels, 4.0 s"
        );
    }

    #[test]
    fn a_cell_that_always_fails_fails_the_notebook_and_leaves_the_rest_unreached() {
        let runs = [run([O, E, N])];
        let (cells, t, v) = summarize(&cells(), &runs, &same);
        assert_eq!(v, NotebookVerdict::Fail);
        assert_eq!((t.passed, t.failed, t.not_reached), (1, 1, 1));
        assert_eq!(cells[2].verdict, NotebookVerdict::NotReached);
        assert_eq!(
            summary_line(v, &t, &cells, &runs),
            "FAIL: 1 of 3 code cells passed (1 with assertions), 1 fresh kernel, 2.0 s; c2 FAIL (AssertionError); 1 not reached"
        );
    }

    #[test]
    fn a_cell_that_fails_in_some_runs_only_is_flaky_with_its_pass_rate() {
        let runs = [run([O, E, N]), run([O, O, O]), run([O, O, O])];
        let (cells, t, v) = summarize(&cells(), &runs, &same);
        assert_eq!(v, NotebookVerdict::Flaky);
        assert_eq!((cells[1].passed, cells[1].reached), (2, 3));
        // The cell after it passed every time it ran.
        assert_eq!(cells[2].verdict, NotebookVerdict::Pass);
        assert!(summary_line(v, &t, &cells, &runs).ends_with("; c2 FLAKY, passed 2 of 3 runs"));
    }

    #[test]
    fn a_run_recorded_before_the_line_was_kept_reads_it_from_its_traceback() {
        let mut k = run([O, E, N]);
        k.cells[1].output = "-----\nAssertionError        Traceback (most recent call last)\n\
            Cell In[2], line 4\n      1 assert o1 == o2\n      3 # x\n----> 4 assert o1 == o3\n\n\
            Cell In[1], line 2, in f()\n----> 2 raise\n\nAssertionError: \n"
            .into();
        assert_eq!(
            failure_words(&k.cells[1]),
            "line 4 `assert o1 == o3`: AssertionError"
        );
        // A line kept by the run wins; a traceback that names none leaves
        // the words as they were.
        k.cells[1].failed_line = Some(FailedLine {
            line: 5,
            text: "assert o1 == o4".into(),
        });
        assert!(failure_words(&k.cells[1]).starts_with("line 5 `assert o1 == o4`: "));
        k.cells[1].failed_line = None;
        k.cells[1].output = "AssertionError: \n".into();
        assert_eq!(failure_words(&k.cells[1]), "AssertionError");
    }

    #[test]
    fn a_timeout_is_a_failure_that_says_so() {
        let runs = [run([O, T, N])];
        let (cells, t, v) = summarize(&cells(), &runs, &same);
        assert_eq!(v, NotebookVerdict::Fail);
        assert!(summary_line(v, &t, &cells, &runs).contains("c2 FAIL (timed out)"));
    }

    #[test]
    fn every_text_of_a_run_read_back_is_redacted_again_and_twice_is_once() {
        let token = "hf_Zq81mBv0TrPk22LsXeQw93NbVc41MxYz";
        let mut k = run([O, E, N]);
        k.cells[1].ename = Some(token.into());
        k.cells[1].evalue = Some(format!("see https://h/x?token={token}"));
        k.cells[0].output = "{'MY_DB_PASSWORD': 'Tr0ub4dor&3xyz!Q'}".into();
        let (mut cells, totals, verdict) = summarize(&cells(), std::slice::from_ref(&k), &same);
        cells[0].first_line = format!("HF_TOKEN = '{token}'");
        cells[1].id = Some(token.into());
        let stored = NotebookRunFile {
            schema: NOTEBOOK_RUN_SCHEMA.into(),
            created_at: Utc::now(),
            tool_version: "0".into(),
            notebook: NotebookRef {
                file: "n.ipynb".into(),
                fingerprint: Fingerprint::prose_v1("0".repeat(64)),
                sha256: "0".repeat(64),
            },
            chapter_revision: Fingerprint::prose_v1("0".repeat(64)),
            settings: RunSettings {
                cell_timeout_seconds: 1,
                kernel: "python3".into(),
                repeat: 1,
            },
            versions: Versions {
                python: "3".into(),
                kernel: "python3".into(),
                kernel_language_version: None,
                ipykernel: "6".into(),
                nbclient: "0".into(),
                nbformat: "5".into(),
                jupyter_client: None,
                torch: None,
            },
            environment: crate::env::collect(),
            verdict,
            totals,
            cells,
            runs: vec![k],
            claims: Vec::new(),
        };
        let yaml = stored.clone().redacted().to_yaml().unwrap();
        for secret in [token, "Tr0ub4dor&3xyz!Q"] {
            assert!(!yaml.contains(secret), "{yaml}");
        }
        assert!(yaml.contains("HF_TOKEN = '<secret>'"), "{yaml}");
        assert!(yaml.contains("see https://h/x"), "{yaml}");
        let once = stored.redacted();
        assert_eq!(once.clone().redacted(), once);
        let mut info = NotebookInfo::of(&once, String::new());
        assert!(
            info.summary
                .contains("<secret> FAIL (<secret>: see https://h/x)"),
            "{}",
            info.summary
        );
        info.summary = format!("FAIL; {token} FAIL");
        info.redact();
        assert_eq!(info.summary, "FAIL; <secret> FAIL");
    }
}
