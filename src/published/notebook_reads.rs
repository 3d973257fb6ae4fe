//! Claims over what a chapter's notebook prints (`notebook_claims:` in
//! claims.yaml): each names the values it reads (a code cell by its id, and
//! how to take one number from that cell's printed text), a metric over
//! them (`nb.keep_batches`, `nb.slow_s / nb.fast_s`), the value the text
//! states, and the criterion a run must meet, as the pipeline's claims do.
//!
//! A read takes its number either with a pattern (a regular expression with
//! exactly one capture group, at most [`MAX_PATTERN_CHARS`] characters,
//! compiled under [`PATTERN_SIZE_LIMIT`], matched line by line in linear
//! time) or as the n-th number on the line that starts with a label. This
//! module holds the schema, its checks that need no run, and the metric's
//! evaluation; taking the numbers from a run is `notebook::claims`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::criteria::{Criterion, Magnitude, Stated};

/// The longest pattern a read may give, in characters.
pub const MAX_PATTERN_CHARS: usize = 200;

/// The most memory a compiled pattern may take, in bytes (the regex crate's
/// size limit): a pattern is a label and a number, not a program.
pub const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// The name under which a metric reads a claim's notebook values:
/// `nb.keep_batches`.
pub const NB: &str = "nb";

/// One claim over the chapter's notebook's printed output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotebookClaim {
    pub id: String,
    /// The sentence, quoted from the chapter's prose or from a markdown
    /// cell of its notebook.
    pub quote: String,
    /// Where it appears.
    pub location: String,
    /// The values the metric reads, by name (`keep_batches`).
    pub reads: BTreeMap<String, NotebookRead>,
    /// Expression over the values: `nb.slow_s / nb.fast_s`.
    pub metric: String,
    /// What the text states.
    pub stated: Stated,
    /// What a run of the notebook must print to reproduce the claim.
    pub reproduce: Criterion,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub magnitude: Option<Magnitude>,
}

/// How to take one number from what one code cell printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotebookRead {
    /// The code cell's id (nbformat 4.5 cell ids).
    pub cell: String,
    /// A regular expression with exactly one capture group, which takes the
    /// number; it must match exactly once in the cell's printed text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The start of the line the number is on (after leading white space);
    /// exactly one printed line may start with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// With `label`: which number on the line after the label, from 1
    /// (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<usize>,
}

/// How a read takes its number, once checked.
#[derive(Debug, Clone)]
pub enum Taker {
    Pattern(regex::Regex),
    Label { label: String, nth: usize },
}

impl NotebookRead {
    /// Checks the read's fields, without a run: exactly one of `pattern` and
    /// `label`; a pattern that compiles within its bounds and has exactly
    /// one capture group; `nth` from 1, and only with a label. The error
    /// names the field (`pattern`, `label`, `nth`, `cell`).
    pub fn taker(&self) -> Result<Taker, (&'static str, String)> {
        if self.cell.trim().is_empty() {
            return Err(("cell", "is empty; give the code cell's id".into()));
        }
        match (&self.pattern, &self.label) {
            (Some(p), None) => {
                if self.nth.is_some() {
                    return Err((
                        "nth",
                        "goes with a label, not a pattern (the pattern's capture group takes the number)".into(),
                    ));
                }
                compile(p).map(Taker::Pattern).map_err(|e| ("pattern", e))
            }
            (None, Some(l)) => {
                if l.trim().is_empty() {
                    return Err(("label", "is empty".into()));
                }
                let nth = self.nth.unwrap_or(1);
                if nth == 0 {
                    return Err(("nth", "counts from 1".into()));
                }
                Ok(Taker::Label {
                    label: l.trim().to_string(),
                    nth,
                })
            }
            (Some(_), Some(_)) => Err(("pattern", "give a pattern or a label, not both".into())),
            (None, None) => Err((
                "pattern",
                "missing: give a pattern with one capture group, or a label".into(),
            )),
        }
    }
}

/// Compiles a read's pattern within its bounds, with exactly one capture
/// group.
pub fn compile(pattern: &str) -> Result<regex::Regex, String> {
    let chars = pattern.chars().count();
    if chars > MAX_PATTERN_CHARS {
        return Err(format!(
            "is {chars} characters long; at most {MAX_PATTERN_CHARS}"
        ));
    }
    if pattern.is_empty() {
        return Err("is empty".into());
    }
    let re = regex::RegexBuilder::new(pattern)
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_SIZE_LIMIT)
        .build()
        .map_err(|e| {
            let first = e.to_string();
            let last = first
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .trim()
                .trim_start_matches("error: ")
                .to_string();
            format!("'{pattern}' is not a valid regular expression: {last}")
        })?;
    let groups = re.captures_len() - 1;
    if groups != 1 {
        return Err(format!(
            "'{pattern}' has {groups} capture groups; it needs exactly one, around the number (write other groups as (?:...))"
        ));
    }
    Ok(re)
}

impl NotebookClaim {
    /// Checks the claim without a run: its reads, and that its metric reads
    /// only `nb.<name>` for names it declares and evaluates when each is 1.
    /// The error is `(field, message)`, the field as written in YAML
    /// (`reads.slow_s.pattern`, `metric`).
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.reads.is_empty() {
            return Err((
                "reads".into(),
                "is empty; name at least one value the metric reads".into(),
            ));
        }
        for (name, read) in &self.reads {
            if !is_identifier(name) {
                return Err((
                    format!("reads.{name}"),
                    "is not a name a metric can use (letters, digits and _, not starting with a digit)".into(),
                ));
            }
            read.taker()
                .map_err(|(field, e)| (format!("reads.{name}.{field}"), e))?;
        }
        let ones: BTreeMap<String, f64> = self.reads.keys().map(|k| (k.clone(), 1.0)).collect();
        evaluate(&self.metric, &ones).map_err(|e| ("metric".to_string(), e))?;
        if self.stated.tolerance.is_nan() || self.stated.tolerance < 0.0 {
            return Err((
                "stated.tolerance".into(),
                format!("must be >= 0, got {}", self.stated.tolerance),
            ));
        }
        if let Some(m) = self.magnitude
            && (m.within.is_nan() || m.within <= 1.0)
        {
            return Err((
                "magnitude.within".into(),
                format!("must be above 1 (a ratio band), got {}", m.within),
            ));
        }
        Ok(())
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Evaluates a notebook claim's metric over its values (`nb.<name>`).
/// Errors say which name is missing or why the result is no number.
pub fn evaluate(metric: &str, values: &BTreeMap<String, f64>) -> Result<f64, String> {
    let names = super::metric::names_read(metric, false);
    if let Some(other) = names.iter().find(|n| n.as_str() != NB) {
        return Err(format!(
            "metric '{metric}' reads '{other}'; a notebook claim's metric reads only {NB}.<name> for the names under reads"
        ));
    }
    let known = values.keys().cloned().collect::<Vec<_>>().join(", ");
    let mut paths: Vec<String> = super::metric::names_read(metric, true)
        .into_iter()
        .collect();
    paths.sort();
    if let Some(missing) = paths.iter().find_map(|p| {
        let name = p.strip_prefix(NB)?.strip_prefix('.')?;
        let name = name.split('.').next().unwrap_or(name);
        (!values.contains_key(name)).then_some(name)
    }) {
        return Err(format!(
            "metric '{metric}' names {NB}.{missing}, a value that is not under reads; reads: {known}"
        ));
    }
    let mut context = BTreeMap::new();
    context.insert(NB.to_string(), values.clone());
    super::metric::evaluate_value(
        metric,
        minijinja::Value::from(minijinja::value::Serde(&context)),
        || format!("metric '{metric}' names a value that is not under reads; reads: {known}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pattern: Option<&str>, label: Option<&str>, nth: Option<usize>) -> NotebookRead {
        NotebookRead {
            cell: "c1".into(),
            pattern: pattern.map(str::to_string),
            label: label.map(str::to_string),
            nth,
        }
    }

    #[test]
    fn a_pattern_needs_exactly_one_capture_group() {
        assert!(read(Some(r"slow: ([0-9.]+)s"), None, None).taker().is_ok());
        let (field, e) = read(Some(r"slow: ([0-9.]+)s (\d+)"), None, None)
            .taker()
            .unwrap_err();
        assert_eq!(field, "pattern");
        assert!(e.contains("2 capture groups"), "{e}");
        let (_, e) = read(Some(r"slow: [0-9.]+"), None, None)
            .taker()
            .unwrap_err();
        assert!(e.contains("0 capture groups"), "{e}");
        let (_, e) = read(Some(r"slow: ([0-9.]+"), None, None)
            .taker()
            .unwrap_err();
        assert!(e.contains("not a valid regular expression"), "{e}");
    }

    #[test]
    fn a_pattern_is_bounded_in_length_and_size() {
        let long = format!("({})", "a".repeat(300));
        let (_, e) = read(Some(&long), None, None).taker().unwrap_err();
        assert!(e.contains("at most 200"), "{e}");
        let (_, e) = read(Some(r"(\w{1000}){1000}"), None, None)
            .taker()
            .unwrap_err();
        assert!(e.contains("not a valid regular expression"), "{e}");
    }

    #[test]
    fn a_read_gives_a_pattern_or_a_label() {
        assert_eq!(read(None, None, None).taker().unwrap_err().0, "pattern");
        assert_eq!(
            read(Some("(1)"), Some("x"), None).taker().unwrap_err().0,
            "pattern"
        );
        assert_eq!(read(None, Some("x"), Some(0)).taker().unwrap_err().0, "nth");
        assert_eq!(
            read(Some("(1)"), None, Some(2)).taker().unwrap_err().0,
            "nth"
        );
    }

    #[test]
    fn a_metric_reads_only_its_declared_values() {
        let values: BTreeMap<String, f64> =
            [("slow_s".to_string(), 0.4), ("fast_s".to_string(), 0.01)].into();
        let x = evaluate("nb.slow_s / nb.fast_s", &values).unwrap();
        assert!((x - 40.0).abs() < 1e-9);
        let e = evaluate("nb.slow / nb.fast_s", &values).unwrap_err();
        assert!(e.contains("not under reads"), "{e}");
        let e = evaluate("nb.y", &values).unwrap_err();
        assert!(
            e.contains("names nb.y, a value that is not under reads; reads: fast_s, slow_s"),
            "{e}"
        );
        let e = evaluate("sleep.w8.ex_s / nb.fast_s", &values).unwrap_err();
        assert!(e.contains("reads 'sleep'"), "{e}");
    }
}
