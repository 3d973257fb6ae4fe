//! What `claims check` finds through the chapter's notebook: the notebook
//! claims' problems (those that need no run, a cell id the current notebook
//! lacks, and, against the latest run of the current notebook, a cell that
//! printed nothing or a read that takes no single number), and the numbers
//! the prose and the notebook's markdown state held against what that run
//! printed (`notebook::stated`). A run of an earlier notebook or chapter
//! revision is said in words and never read.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use super::{current_notebook, latest_run};
use crate::app::Project;
use crate::chapter::Chapter;
use crate::error::Result;
use crate::notebook::claims::take;
use crate::notebook::run::{CellOutcome, NotebookRunFile};
use crate::notebook::stated::{self, PrintedCell, Sentence, StatedFinding, StatedReading};
use crate::notebook::{Notebook, store};
use crate::published::claims::{ClaimsFile, claim_line, notebook_claim_problems};
use crate::published::notebook_reads::NotebookClaim;
use crate::records::notebook_status::{NotebookState, notebook_status};

/// What the notebook adds to `claims check`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct NotebookCheck {
    /// The notebook run whose output was read, when one of the current
    /// notebook and chapter revision is recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Why what the notebook printed was not read, in words.
    pub notes: Vec<String>,
    /// What is wrong with the notebook claims, one line each.
    pub problems: Vec<String>,
    /// Each number the prose and the markdown state, against the output.
    pub stated: Vec<StatedFinding>,
    /// The notebook's markdown, normalized, where a notebook claim's quote
    /// may be.
    #[serde(skip)]
    pub markdown: String,
}

impl NotebookCheck {
    /// The DIFFERS no claim quotes yet.
    pub fn open_differs(&self) -> impl Iterator<Item = &StatedFinding> {
        self.stated
            .iter()
            .filter(|f| f.reading == StatedReading::Differs && f.claimed_by.is_none())
    }
}

/// Checks the chapter's notebook claims and holds the numbers `prose`
/// states against the latest run. `claims` is the claims file's path, its
/// text and what it parsed into, when the chapter has one.
pub fn check(
    project: &Project,
    chapter: &Chapter,
    prose: &str,
    claims: Option<(&Path, &str, &ClaimsFile)>,
) -> Result<NotebookCheck> {
    let mut out = NotebookCheck::default();
    let mut broken: BTreeSet<String> = BTreeSet::new();
    if let Some((path, text, file)) = claims {
        for p in notebook_claim_problems(text, file) {
            if let Some(id) = p.split('\'').nth(1) {
                broken.insert(id.to_string());
            }
            out.problems.push(format!("{}: {p}", path.display()));
        }
    }
    let has_claims = claims.is_some_and(|(_, _, f)| !f.notebook_claims.is_empty());
    let Some(stored) = store::load(project.layout(), &chapter.key)? else {
        if has_claims {
            out.notes.push("no notebook is stored for the chapter: the notebook claims' cells and what they print are not checked".into());
        }
        return Ok(out);
    };
    let (_, nb) = current_notebook(project, chapter, &stored)?;
    let (sentences, markdown) = markdown_sentences(&nb);
    out.markdown = markdown;
    if let Some((path, text, file)) = claims {
        cell_ids(
            &mut out,
            &nb,
            path,
            text,
            file,
            &broken,
            &stored.current().file,
        );
    }
    let (records, _) = project.records(chapter)?;
    let status = notebook_status(chapter, Some(&stored), &records);
    let latest = match status.as_ref().map(|s| s.state) {
        Some(NotebookState::NeverRun) | None => {
            out.notes.push(format!(
                "no notebook run is recorded: what the notebook prints is not checked yet (run `research_companion notebook run {}`)",
                chapter.key
            ));
            return Ok(out);
        }
        Some(NotebookState::Stale) => {
            let reasons = status.map(|s| s.reasons.join("; ")).unwrap_or_default();
            out.notes.push(format!(
                "the latest notebook run is stale ({reasons}): what it printed is not read as the current notebook's output; run the notebook again"
            ));
            return Ok(out);
        }
        Some(_) => latest_run(project, &records),
    };
    let Some((record, run)) = latest else {
        out.notes
            .push("the latest notebook run's file cannot be read: what the notebook prints is not checked".into());
        return Ok(out);
    };
    out.run = Some(record.run_id.to_string());
    if let Some((path, text, file)) = claims {
        outputs(&mut out, &nb, &run, path, text, file, &broken);
    }
    let mut all: Vec<Sentence> = prose_units(project, chapter, prose)
        .iter()
        .flat_map(|u| crate::published::coverage::prose_sentences(u))
        .filter(|s| stated::states_a_number(s))
        .map(|text| Sentence {
            text,
            source: "prose".into(),
            location: "prose".into(),
            section: None,
        })
        .collect();
    all.extend(sentences);
    let ids: Vec<String> = claims
        .map(|(_, _, f)| {
            f.claims
                .iter()
                .map(|c| c.id.clone())
                .chain(f.notebook_claims.iter().map(|c| c.id.clone()))
                .collect()
        })
        .unwrap_or_default();
    let outputs = printed(&nb, &run);
    out.stated = stated::hold(&all, &outputs, &ids);
    if let Some((_, _, file)) = claims {
        for f in &mut out.stated {
            let quoting: Vec<&NotebookClaim> = file
                .notebook_claims
                .iter()
                .filter(|c| {
                    crate::published::diff::find_quote(&c.quote, &f.sentence).0
                        || f.sentence.contains(c.quote.as_str())
                })
                .collect();
            // The claim that reads that number from that line, else the one
            // stating it. A claim about another number of the sentence does
            // not settle this one: it stays a lead, with its ready claim.
            let quoted = quoting
                .iter()
                .find(|c| reads_it(c, f, &outputs))
                .or_else(|| {
                    quoting.iter().find(|c| {
                        f.stated.replace(',', "").parse::<f64>().ok() == Some(c.stated.value)
                    })
                });
            if let Some(c) = quoted {
                f.claimed_by = Some(c.id.clone());
                f.ready_claim = None;
            }
        }
    }
    Ok(out)
}

/// Whether one of the claim's reads takes the finding's printed number from
/// its printed line.
fn reads_it(c: &NotebookClaim, f: &StatedFinding, outputs: &[PrintedCell]) -> bool {
    let (Some(cell), Some(line), Some(value)) = (&f.cell, &f.line, f.printed) else {
        return false;
    };
    let Some(output) = outputs.iter().find(|p| &p.cell == cell) else {
        return false;
    };
    c.reads.values().filter(|r| &r.cell == cell).any(|r| {
        r.taker().is_ok_and(|t| {
            take(r, &t, &output.output).is_ok_and(|got| got.value == value && &got.line == line)
        })
    })
}

/// The prose in units no sentence spans: the snapshot's text cut at a
/// heading, a list or table line, a line ending in `:` and a blank line,
/// each normalized; the normalized prose whole when the text cannot be
/// read again.
fn prose_units(project: &Project, chapter: &Chapter, prose: &str) -> Vec<String> {
    let layout = project.layout();
    let path = layout.snapshot_file(&chapter.key, &chapter.state.current_snapshot);
    let Ok(raw) = crate::text::owned::read_owned(&path, &layout.snapshots_root()) else {
        return vec![prose.to_string()];
    };
    let apart = |l: &str| {
        let t = l.trim_start();
        t.is_empty()
            || t.starts_with(['#', '|', '>'])
            || t.starts_with("- ")
            || t.starts_with("* ")
            || t.starts_with("+ ")
    };
    let mut units = Vec::new();
    let mut unit = String::new();
    let lines: Vec<&str> = raw.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        unit.push_str(l);
        unit.push('\n');
        let next_apart = lines.get(i + 1).is_none_or(|n| apart(n));
        if apart(l) || next_apart || l.trim_end().ends_with(':') {
            units.push(std::mem::take(&mut unit));
        }
    }
    units.push(unit);
    units
        .iter()
        .filter_map(|u| crate::chapter::normalize::normalize(u).ok())
        .filter(|u| !u.trim().is_empty())
        .collect()
}

/// Reads naming a cell the current notebook has no code cell with.
fn cell_ids(
    out: &mut NotebookCheck,
    nb: &Notebook,
    path: &Path,
    text: &str,
    file: &ClaimsFile,
    broken: &BTreeSet<String>,
    notebook_file: &str,
) {
    out.problems.extend(
        cell_id_problems(nb, text, file, broken, notebook_file)
            .into_iter()
            .map(|p| format!("{}: {p}", path.display())),
    );
}

/// Each read that names a cell the notebook `nb` (stored as
/// `notebook_file`) has no code cell with, one line each (`line N: claim
/// 'id': field 'reads.x.cell' ...`, without the file), claims in `broken`
/// left out. Found before any run: `claims check` lists them, and `notebook
/// run` and `reproduce` refuse to run with one.
pub fn cell_id_problems(
    nb: &Notebook,
    text: &str,
    file: &ClaimsFile,
    broken: &BTreeSet<String>,
    notebook_file: &str,
) -> Vec<String> {
    let mut problems = Vec::new();
    for c in file
        .notebook_claims
        .iter()
        .filter(|c| !broken.contains(&c.id))
    {
        for (name, read) in &c.reads {
            let cell = nb
                .cells
                .iter()
                .find(|x| x.id.as_deref() == Some(&read.cell));
            let why = match cell {
                Some(x) if x.is_code() => continue,
                Some(x) => format!(
                    "names cell '{}', a {} cell; a read takes what a code cell printed",
                    read.cell, x.cell_type
                ),
                None => format!(
                    "names cell '{}', which the chapter's current notebook ({notebook_file}) has no code cell with",
                    read.cell
                ),
            };
            problems.push(format!(
                "line {}: claim '{}': field 'reads.{name}.cell' {why}",
                claim_line(text, &c.id, 0),
                c.id
            ));
        }
    }
    problems
}

/// Each read against what its cell printed in each kernel of the run: the
/// first way it takes no single number, one line per read.
fn outputs(
    out: &mut NotebookCheck,
    nb: &Notebook,
    run: &NotebookRunFile,
    path: &Path,
    text: &str,
    file: &ClaimsFile,
    broken: &BTreeSet<String>,
) {
    for c in file
        .notebook_claims
        .iter()
        .filter(|c| !broken.contains(&c.id))
    {
        for (name, read) in &c.reads {
            let Some(cell) = nb
                .cells
                .iter()
                .find(|x| x.is_code() && x.id.as_deref() == Some(&read.cell))
            else {
                continue;
            };
            let Ok(taker) = read.taker() else { continue };
            let problem = run.runs.iter().find_map(|k| {
                let ran = k
                    .cells
                    .iter()
                    .find(|x| x.index == cell.index && x.outcome == CellOutcome::Ok)?;
                take(read, &taker, &ran.output).err()
            });
            if let Some(e) = problem {
                let message = if e.field == "cell" {
                    format!(
                        "names cell '{}', which printed nothing in notebook run {}",
                        read.cell,
                        out.run.as_deref().unwrap_or("")
                    )
                } else {
                    e.message
                };
                out.problems.push(format!(
                    "{}: line {}: claim '{}': field 'reads.{name}.{}' {message}",
                    path.display(),
                    claim_line(text, &c.id, 0),
                    c.id,
                    e.field
                ));
            }
        }
    }
}

/// What each code cell with an id printed: in the first kernel it ran in,
/// and in every other kernel it ran in.
fn printed(nb: &Notebook, run: &NotebookRunFile) -> Vec<PrintedCell> {
    nb.cells
        .iter()
        .filter(|c| c.is_code())
        .filter_map(|c| {
            let id = c.id.clone()?;
            let mut outputs = run.runs.iter().filter_map(|k| {
                k.cells
                    .iter()
                    .find(|x| x.index == c.index && x.outcome == CellOutcome::Ok)
                    .map(|x| x.output.clone())
            });
            let output = outputs.next()?;
            Some(PrintedCell {
                cell: id,
                output,
                others: outputs.collect(),
                code: c.source.clone(),
            })
        })
        .collect()
}

/// The ids of the code cells after markdown cell `index`, up to the next
/// markdown cell: the code its sentences speak of.
fn section(nb: &Notebook, index: usize) -> Vec<String> {
    nb.cells
        .iter()
        .skip_while(|c| c.index <= index)
        .take_while(|c| c.cell_type != "markdown")
        .filter(|c| c.is_code())
        .filter_map(|c| c.id.clone())
        .collect()
}

/// The sentences of the notebook's markdown cells that state numbers
/// (headings on their own, fenced code left out), and all its markdown,
/// normalized, for finding a quote.
fn markdown_sentences(nb: &Notebook) -> (Vec<Sentence>, String) {
    let mut out = Vec::new();
    let mut all = Vec::new();
    let mut heading: Option<String> = None;
    for cell in nb.cells.iter().filter(|c| c.cell_type == "markdown") {
        let source = match &cell.id {
            Some(id) => format!("notebook cell {id}"),
            None => format!("notebook cell {}", cell.index + 1),
        };
        let mut units: Vec<(bool, String)> = Vec::new();
        let mut paragraph = String::new();
        let mut fenced = false;
        for line in cell.source.lines() {
            let t = line.trim();
            if t.starts_with("```") {
                fenced = !fenced;
                continue;
            }
            if fenced {
                continue;
            }
            if t.is_empty() || t.starts_with('#') {
                units.push((false, std::mem::take(&mut paragraph)));
                if t.starts_with('#') {
                    units.push((true, heading_text(t)));
                }
            } else {
                paragraph.push_str(t);
                paragraph.push(' ');
            }
        }
        units.push((false, paragraph));
        for (is_heading, unit) in units {
            let Ok(text) = crate::chapter::normalize::normalize(&unit) else {
                continue;
            };
            if text.trim().is_empty() {
                continue;
            }
            if is_heading {
                heading = Some(text.clone());
            }
            all.push(text.clone());
            let location = heading
                .as_ref()
                .map_or_else(|| source.clone(), |h| format!("notebook, {h}"));
            for s in crate::published::diff::sentences(&text) {
                if s.split_whitespace().count() >= 3 && stated::states_a_number(s) {
                    out.push(Sentence {
                        text: s.to_string(),
                        source: source.clone(),
                        location: location.clone(),
                        section: Some(section(nb, cell.index)),
                    });
                }
            }
        }
    }
    (out, all.join(" "))
}

/// The leads `claims check` would give for the chapter: the numbers its
/// text states that the latest run of its current notebook printed
/// otherwise, on a line about the same words, and no claim quotes yet.
/// None when there are none, or when they cannot be found (no notebook, no
/// current run, an unreadable file): a lead is never needed, so its
/// absence fails nothing.
pub fn leads(
    project: &Project,
    chapter: &Chapter,
) -> Option<crate::render::notebook_leads::NotebookLeads> {
    let prose =
        crate::published::read_prose(project.layout(), chapter, &chapter.state.current_snapshot)
            .ok()?;
    let path = project.layout().claims_file(&chapter.key);
    let claims = path.is_file().then(|| {
        let text = crate::yaml_io::read_text(&path).ok()?;
        let file: ClaimsFile = crate::yaml_io::from_str_finite(&text, &path).ok()?;
        Some((text, file))
    });
    let claims = claims.flatten();
    let found = check(
        project,
        chapter,
        &prose,
        claims
            .as_ref()
            .map(|(t, f)| (path.as_path(), t.as_str(), f)),
    )
    .ok()?;
    crate::render::notebook_leads::leads(found.run.as_deref()?, &found.stated)
}

/// A markdown heading's words, without its `#` marks and its section
/// number (`## 3. Workers` is `Workers`): a section number is no figure.
fn heading_text(line: &str) -> String {
    let t = line.trim_start_matches('#').trim();
    let number_end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ')'))
        .unwrap_or(t.len());
    let number = &t[..number_end];
    if t.starts_with(|c: char| c.is_ascii_digit())
        && number.contains(['.', ')'])
        && t[number_end..].starts_with(' ')
    {
        t[number_end..].trim().to_string()
    } else {
        t.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::heading_text;

    #[test]
    fn a_heading_loses_its_marks_and_its_section_number() {
        assert_eq!(
            heading_text("## 3. Workers change delivery"),
            "Workers change delivery"
        );
        assert_eq!(heading_text("### 2.1 The 7 batches"), "The 7 batches");
        assert_eq!(heading_text("# 10 layers deep"), "10 layers deep");
        assert_eq!(heading_text("## Without scaling"), "Without scaling");
    }
}
