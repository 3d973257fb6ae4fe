//! `claims.yaml`: the chapter's checkable claims. Each names the sentence it
//! comes from, a metric (a minijinja expression over the tables, e.g.
//! `sleep.w8.ex_s / sleep.w0.ex_s`), the value the prose states, a
//! reproduction criterion, and preconditions on the environment.

use std::collections::BTreeMap;
use std::path::Path;

use minijinja::Value;
use serde::{Deserialize, Serialize};

pub use super::criteria::{Criterion, CriterionFields, Magnitude, Stated};
pub use super::metric::{METRIC_FUEL, METRIC_MEMORY};
use super::metric::{evaluate_value, names_read};
use super::notebook_reads::NotebookClaim;
use super::tables::Table;
use crate::bench::{BenchRun, Column, ProducerKind, Row, WorkerKind};
use crate::error::{Error, Result};
use crate::yaml_io;

/// Schema name of claims files.
pub const CLAIMS_SCHEMA: &str = "research_companion.claims.v1";

/// A claims file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimsFile {
    pub schema: String,
    /// `<book-id>/<chapter-id>` the claims belong to.
    pub chapter: String,
    pub claims: Vec<Claim>,
    /// Claims over what the chapter's notebook prints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notebook_claims: Vec<NotebookClaim>,
}

/// One checkable claim.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub id: String,
    /// The sentence, quoted from the chapter.
    pub quote: String,
    /// Where it appears.
    pub location: String,
    /// Expression over the tables: `<producer>.w<workers>.<column>`, with
    /// `ex/s` spelled `ex_s`.
    pub metric: String,
    /// What the prose states, checked against the chapter's own tables.
    pub stated: Stated,
    /// What a measurement must show to reproduce the claim.
    pub reproduce: Criterion,
    /// How close the measured value must be to the published one to be the
    /// same size, when the prose commits to a size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub magnitude: Option<Magnitude>,
    #[serde(default)]
    pub preconditions: Preconditions,
}

/// Conditions on the run for a claim to be comparable.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preconditions {
    /// CPUs the run must have used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_kind: Option<WorkerKind>,
}

/// The time from making the loader to its first batch, in ms, as claims
/// spell it (`sleep.w8.startup`): a run's rows with workers have it, a
/// chapter's tables do not.
pub const STARTUP: &str = "startup";
/// The CPU the workers' start cost, in ms (`sleep.w8.start_cpu`).
pub const START_CPU: &str = "start_cpu";
/// Columns a run measures and no chapter table prints: a claim over them
/// has no published value to hold its prose against.
pub const MEASURED_ONLY: [&str; 2] = [STARTUP, START_CPU];

/// Whether `metric` reads a column only a run measures.
pub fn reads_measured_only(metric: &str) -> bool {
    cells_used(metric)
        .iter()
        .any(|(_, _, column)| MEASURED_ONLY.contains(&column.as_str()))
}

/// Evaluates `metric` on a chapter's tables, or, for a metric that reads
/// a measured-only column, checks its names and gives NaN: the chapter
/// publishes no such value.
pub fn evaluate_published(metric: &str, set: &TableSet) -> std::result::Result<f64, String> {
    if reads_measured_only(metric) {
        evaluate(metric, &set.with_measured_only()).map(|_| f64::NAN)
    } else {
        evaluate(metric, set)
    }
}

/// Numbers by producer, worker count and column, for evaluating metrics:
/// `sleep.w8.ex_s`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableSet(pub BTreeMap<String, BTreeMap<String, BTreeMap<String, f64>>>);

impl TableSet {
    /// From the chapter's published tables.
    pub fn from_published(tables: &[Table]) -> Self {
        let mut set = TableSet::default();
        for t in tables {
            let Some(w) = t.column(&Column::Workers) else {
                continue;
            };
            let producer = set.0.entry(t.header.producer.ident()).or_default();
            for row in &t.rows {
                let cols = producer
                    .entry(format!("w{}", row[w].value as usize))
                    .or_default();
                for (column, cell) in t.columns.iter().zip(row) {
                    cols.insert(column.ident(), cell.value);
                }
            }
        }
        set
    }

    /// From a measured run's summary rows, in the chapter's columns.
    pub fn from_run(run: &BenchRun) -> Self {
        TableSet::from_rows(run.results.iter().map(|r| &r.summary))
    }

    /// From measured rows (one round's, or a run's summaries).
    pub fn from_rows<'a>(rows: impl IntoIterator<Item = &'a Row>) -> Self {
        let mut set = TableSet::default();
        for s in rows {
            let cols = set
                .0
                .entry(s.producer.ident())
                .or_default()
                .entry(format!("w{}", s.workers))
                .or_default();
            for column in Column::CHAPTER {
                if let Some(v) = column.measured(s) {
                    cols.insert(column.ident(), v);
                }
            }
            // The start, measured apart from the window.
            if s.workers > 0 {
                cols.insert(STARTUP.into(), s.startup_ms);
                if let Some(cpu) = s.start_cpu_ms {
                    cols.insert(START_CPU.into(), cpu);
                }
            }
        }
        set
    }

    /// The set with every row given the measured-only columns (a
    /// placeholder of 1), so a metric that reads them can be checked for
    /// its names against tables that never print them.
    fn with_measured_only(&self) -> Self {
        let mut set = self.clone();
        for cols in set.0.values_mut().flat_map(|rows| rows.values_mut()) {
            for name in MEASURED_ONLY {
                cols.entry(name.to_string()).or_insert(1.0);
            }
        }
        set
    }

    fn value(&self) -> Value {
        Value::from(minijinja::value::Serde(&self.0))
    }
}

/// Evaluates a metric over a table set. Errors say what is missing.
pub fn evaluate(metric: &str, set: &TableSet) -> std::result::Result<f64, String> {
    evaluate_value(metric, set.value(), || {
        let known: Vec<String> = set
            .0
            .iter()
            .map(|(p, rows)| {
                format!(
                    "{p}.{{{}}}",
                    rows.keys().cloned().collect::<Vec<_>>().join(",")
                )
            })
            .collect();
        let columns: Vec<String> = set
            .0
            .values()
            .flat_map(|rows| rows.values())
            .next()
            .map(|c| c.keys().cloned().collect())
            .unwrap_or_default();
        format!(
            "metric '{metric}' names a table, row or column that does not exist; tables and rows: {}; columns: {}",
            known.join(" "),
            columns.join(", ")
        )
    })
}

/// The metric with each cell it reads replaced by its value in `set`:
/// `sleep.w8.ex_s / sleep.w0.ex_s` becomes `3049 / 414`.
pub fn with_values(metric: &str, set: &TableSet) -> String {
    let mut out = String::new();
    let mut rest = metric;
    while !rest.is_empty() {
        let start = rest
            .find(|c: char| c.is_ascii_alphabetic() || c == '_')
            .unwrap_or(rest.len());
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        let token = &rest[..end];
        let parts: Vec<&str> = token.split('.').collect();
        let value = match parts.as_slice() {
            [p, w, c] => set
                .0
                .get(*p)
                .and_then(|t| t.get(*w))
                .and_then(|r| r.get(*c)),
            _ => None,
        };
        match value {
            Some(v) if v.fract() == 0.0 && v.abs() < 1e15 => out.push_str(&format!("{v:.0}")),
            Some(v) => out.push_str(&format!("{}", (v * 1000.0).round() / 1000.0)),
            None => out.push_str(token),
        }
        rest = &rest[end..];
    }
    out
}

/// The producers (tables) a metric reads.
pub fn producers_used(metric: &str) -> Vec<ProducerKind> {
    let names = names_read(metric, false);
    <ProducerKind as strum::IntoEnumIterator>::iter()
        .filter(|p| names.contains(&p.ident()))
        .collect()
}

/// The cells a metric reads: (producer, workers, column), as in
/// `spin.w8.wait_mean`.
pub fn cells_used(metric: &str) -> Vec<(ProducerKind, usize, String)> {
    let mut cells: Vec<_> = names_read(metric, true)
        .into_iter()
        .filter_map(|path| {
            let mut parts = path.splitn(3, '.');
            let (p, w, column) = (parts.next()?, parts.next()?, parts.next()?);
            let producer =
                <ProducerKind as strum::IntoEnumIterator>::iter().find(|k| k.ident() == p)?;
            let workers = w.strip_prefix('w')?.parse().ok()?;
            Some((producer, workers, column.to_string()))
        })
        .collect();
    cells.sort_by(|a, b| (a.1, &a.2).cmp(&(b.1, &b.2)));
    cells
}

/// The claims' ids and quoted sentences, without checking their metrics
/// (for telling which claims an edit of the prose touches).
pub fn quotes(path: &Path) -> Result<Vec<(String, String)>> {
    let file: ClaimsFile = yaml_io::from_str(&yaml_io::read_text(path)?, path)?;
    let notebook = file.notebook_claims.into_iter().map(|c| (c.id, c.quote));
    Ok(file
        .claims
        .into_iter()
        .map(|c| (c.id, c.quote))
        .chain(notebook)
        .collect())
}

/// The line of the `nth` claim (0 for the first) with this id in a
/// claims file's text; 0 when it is not found.
pub fn claim_line(text: &str, id: &str, nth: usize) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim_start().trim_start_matches("- ");
            l.strip_prefix("id:")
                .is_some_and(|v| v.trim().trim_matches(['\'', '"']) == id)
        })
        .nth(nth)
        .map_or(0, |(i, _)| i + 1)
}

/// What is wrong with the file's notebook claims without a run, one line
/// each (`line 12: claim 'keep-7': field 'reads.keep.pattern' ...`): an id
/// used twice (also by a pipeline claim), and what
/// [`NotebookClaim::check`] finds.
pub fn notebook_claim_problems(text: &str, file: &ClaimsFile) -> Vec<String> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for c in &file.claims {
        *seen.entry(c.id.as_str()).or_insert(0) += 1;
    }
    let mut problems = Vec::new();
    for c in &file.notebook_claims {
        let before = seen.entry(c.id.as_str()).or_insert(0);
        let nth = *before;
        *before += 1;
        let line = claim_line(text, &c.id, nth);
        if nth > 0 {
            problems.push(format!(
                "line {line}: claim '{}': the id is used twice",
                c.id
            ));
            continue;
        }
        if let Err((field, msg)) = c.check() {
            problems.push(format!(
                "line {line}: claim '{}': field '{field}' {msg}",
                c.id
            ));
        }
    }
    problems
}

/// Reads and checks a claims file against the chapter's published tables:
/// every metric must evaluate on them. Errors name the file, line and claim.
pub fn load(path: &Path, published: &TableSet) -> Result<ClaimsFile> {
    let text = yaml_io::read_text(path)?;
    let file: ClaimsFile = yaml_io::from_str_finite(&text, path)?;
    if file.schema != CLAIMS_SCHEMA {
        return Err(Error::invalid(
            path,
            format!(
                "field 'schema': expected '{CLAIMS_SCHEMA}', found '{}'",
                file.schema
            ),
        ));
    }
    let line_of = |id: &str, nth: usize| claim_line(&text, id, nth);
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for c in &file.claims {
        let nth = *seen
            .entry(c.id.as_str())
            .and_modify(|n| *n += 1)
            .or_insert(0);
        let at = |msg: String| {
            Error::invalid(
                path,
                format!("line {}: claim '{}': {msg}", line_of(&c.id, nth), c.id),
            )
        };
        if nth > 0 {
            return Err(at("the id is used twice".into()));
        }
        if let Some(m) = c.magnitude
            && (m.within.is_nan() || m.within <= 1.0)
        {
            return Err(at(format!(
                "magnitude.within must be above 1 (a ratio band), got {}",
                m.within
            )));
        }
        if c.stated.tolerance.is_nan() || c.stated.tolerance < 0.0 {
            return Err(at(format!(
                "stated.tolerance must be >= 0, got {}",
                c.stated.tolerance
            )));
        }
        evaluate_published(&c.metric, published).map_err(at)?;
    }
    if let Some(first) = notebook_claim_problems(&text, &file).into_iter().next() {
        return Err(Error::invalid(path, first));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::chapter06_tables;

    fn published() -> TableSet {
        TableSet::from_published(&chapter06_tables())
    }

    #[test]
    fn the_start_is_a_metric_of_runs_and_not_of_the_chapters_tables() {
        let set = published();
        assert!(evaluate("sleep.w8.startup", &set).is_err());
        assert!(
            evaluate_published("sleep.w8.startup", &set)
                .unwrap()
                .is_nan()
        );
        assert!(
            evaluate_published("sleep.w8.startp", &set).is_err(),
            "names still checked"
        );
        let mut run = crate::testing::run_like(&chapter06_tables(), 1);
        for r in &mut run.results {
            r.summary.startup_ms = 400.0 + r.workers as f64;
            r.summary.start_cpu_ms = Some(30.0);
        }
        let measured = TableSet::from_run(&run);
        assert_eq!(evaluate("sleep.w8.startup", &measured), Ok(408.0));
        assert_eq!(evaluate("spin.w4.start_cpu", &measured), Ok(30.0));
        assert!(
            evaluate("sleep.w0.startup", &measured).is_err(),
            "no workers, no start"
        );
    }

    #[test]
    fn metrics_read_tables_by_producer_worker_count_and_column() {
        let set = published();
        assert_eq!(evaluate("sleep.w8.ex_s", &set), Ok(3049.0));
        let x = evaluate("spin.w8.wait_mean / spin.w0.wait_mean", &set).unwrap();
        assert!((x - 28.1 / 62.8).abs() < 1e-12);
        assert_eq!(
            producers_used("spin.w8.work / sleep.w0.work"),
            vec![ProducerKind::Sleep, ProducerKind::Spin]
        );
        assert_eq!(producers_used("not an expression ("), vec![]);
    }

    #[test]
    fn a_metric_that_cannot_be_a_number_says_why() {
        let set = published();
        let err = evaluate("sleep.w16.ex_s", &set).unwrap_err();
        assert!(
            err.contains("names a table, row or column that does not exist"),
            "{err}"
        );
        assert!(err.contains("sleep.{w0,w1,w2,w4,w8}"), "{err}");
        assert!(err.contains("columns: ex_s, wait_frac"), "{err}");
        let err = evaluate("sleep.w8.wrk / sleep.w0.ex_s", &set).unwrap_err();
        assert!(
            err.contains("names a table, row or column that does not exist"),
            "{err}"
        );
        let err = evaluate("sleep.w8.ex_s / 0", &set).unwrap_err();
        assert!(
            err.contains("cannot be evaluated") && err.contains("3049.0 / 0"),
            "{err}"
        );
        assert!(!err.contains("does not exist"), "{err}");
        let err = evaluate("'text'", &set).unwrap_err();
        assert!(err.contains("is not a number"), "{err}");
        let err = evaluate("sleep.w8.ex_s +", &set).unwrap_err();
        assert!(err.starts_with("cannot parse metric"), "{err}");
    }

    #[test]
    fn a_metric_that_builds_large_values_is_stopped_at_its_memory_limit() {
        let set = published();
        // Folded while compiling (no fuel then), and built by `join` while
        // evaluating: each reached gigabytes.
        for metric in [
            r#"((["x"] * 50000000) ~ "")|length"#,
            r#"(["x" * 6000000] * 300)|join|length"#,
        ] {
            let err = evaluate(metric, &set).unwrap_err();
            assert!(
                err.contains("memory limit (16777216 bytes, 16 MiB)"),
                "{err}"
            );
        }
        assert_eq!(evaluate("sleep.w8.ex_s", &set), Ok(3049.0));
    }

    #[test]
    fn a_metric_shows_the_values_it_reads() {
        let set = published();
        assert_eq!(
            with_values("sleep.w8.ex_s / sleep.w0.ex_s", &set),
            "3049 / 414"
        );
        assert_eq!(
            with_values("spin.w0.wait_frac - spin.w8.wait_frac", &set),
            "0.89 - 0.39"
        );
    }

    #[test]
    fn criteria_take_exactly_one_bound() {
        let parse = |y: &str| serde_yaml::from_str::<Criterion>(y).map_err(|e| e.to_string());
        assert_eq!(parse("{at_least: 5}"), Ok(Criterion::AtLeast(5.0)));
        assert_eq!(
            parse("{between: [1, 2]}"),
            Ok(Criterion::Between([1.0, 2.0]))
        );
        assert!(
            parse("{between: [2, 1]}")
                .unwrap_err()
                .contains("2 is above 1")
        );
        assert!(
            parse("{at_least: 1, at_most: 2}")
                .unwrap_err()
                .contains("exactly one")
        );
        assert!(parse("{}").unwrap_err().contains("exactly one"));
        assert!(Criterion::Between([0.95, 1.05]).holds(1.0));
        assert!(!Criterion::AtMost(0.75).holds(0.76));
        assert_eq!(Criterion::AtLeast(3.0).to_string(), ">= 3");
    }

    fn load_text(text: &str) -> std::result::Result<ClaimsFile, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claims.yaml");
        std::fs::write(&path, text).unwrap();
        load(&path, &published()).map_err(|e| e.to_string())
    }

    const ONE: &str = "schema: research_companion.claims.v1
chapter: b/06
claims:
- id: a
  quote: q
  location: l
  metric: sleep.w8.ex_s / sleep.w0.ex_s
  stated: {value: 7.4, tolerance: 0.05}
  reproduce: {at_least: 5.0}
";

    #[test]
    fn a_claims_file_is_checked_against_the_tables_with_line_numbers() {
        assert_eq!(load_text(ONE).unwrap().claims.len(), 1);
        let twice = format!("{ONE}{}", &ONE[ONE.find("- id").unwrap()..]);
        let err = load_text(&twice).unwrap_err();
        assert!(
            err.contains("line 10: claim 'a': the id is used twice"),
            "{err}"
        );
        let err = load_text(&ONE.replace("tolerance: 0.05", "tolerance: -1")).unwrap_err();
        assert!(
            err.contains("line 4: claim 'a': stated.tolerance must be >= 0"),
            "{err}"
        );
        let err = load_text(&ONE.replace("sleep.w0", "slep.w0")).unwrap_err();
        assert!(err.contains("claim 'a': metric"), "{err}");
        let err = load_text(&ONE.replace("claims.v1", "claims.v9")).unwrap_err();
        assert!(
            err.contains("field 'schema': expected 'research_companion.claims.v1'"),
            "{err}"
        );
        let err = load_text(&ONE.replace("location: l", "where: l")).unwrap_err();
        assert!(err.contains("unknown field `where`"), "{err}");
    }
}

#[cfg(test)]
mod limits {
    use super::*;

    #[test]
    fn a_metric_cannot_loop_or_allocate_without_bound() {
        let set = TableSet::from_published(&crate::testing::chapter06_tables());
        for metric in [
            "range(100000) | map('string') | join | length",
            "(range(100000) | list) | length * 0 + sleep.w8.ex_s",
            "('x' * 1000000000) | length",
        ] {
            let start = std::time::Instant::now();
            let err = evaluate(metric, &set).unwrap_err();
            assert!(start.elapsed().as_secs() < 30, "{metric}");
            assert!(err.contains("ran out of fuel"), "{metric}: {err}");
        }
    }
}
