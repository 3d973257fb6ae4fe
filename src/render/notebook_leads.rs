//! The leads `claims check` finds in the chapter's notebook (a number the
//! text states that a printed line about the same words contradicts), as
//! the research prompt's section 4 and the report draft's claim audit show
//! them: unverified leads for research, never evidence, so `publish` and
//! the site never get them.

use serde::Serialize;

use crate::notebook::stated::{StatedFinding, StatedReading};

/// The open DIFFERS of a notebook run.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookLeads {
    /// The notebook run whose output was read.
    pub run_id: String,
    pub leads: Vec<NotebookLead>,
}

/// One DIFFERS: the sentence, both numbers, the cell and its line.
#[derive(Debug, Clone, Serialize)]
pub struct NotebookLead {
    pub sentence: String,
    /// `prose` or `notebook cell m-diverge`.
    pub source: String,
    pub stated: String,
    pub cell: String,
    pub printed: String,
    pub line: String,
    /// The words the sentence and the line share.
    pub words: String,
}

/// The leads among `found`: its DIFFERS that no claim quotes yet (a quoted
/// one is decided as a claim). None when there are none.
pub fn leads(run_id: &str, found: &[StatedFinding]) -> Option<NotebookLeads> {
    let leads: Vec<NotebookLead> = found
        .iter()
        .filter(|f| f.reading == StatedReading::Differs && f.claimed_by.is_none())
        .map(|f| NotebookLead {
            sentence: f.sentence.clone(),
            source: f.source.clone(),
            stated: f.stated.clone(),
            cell: f.cell.clone().unwrap_or_default(),
            printed: match &f.varies {
                Some(v) => v.in_words(),
                None => f.printed.map(|p| p.to_string()).unwrap_or_default(),
            },
            line: f.line.clone().unwrap_or_default(),
            words: f.shared_words.join(", "),
        })
        .collect();
    (!leads.is_empty()).then(|| NotebookLeads {
        run_id: run_id.to_string(),
        leads,
    })
}
