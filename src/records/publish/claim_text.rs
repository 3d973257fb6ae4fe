//! What an evidence card or a gap is about, in the words a reader of the
//! book's site can use: the chapter claim a report's text names (by its id,
//! or by quoting its sentence), shown as the claim's sentence; else the
//! words the text leads with, never a marker such as UNVERIFIED. And the
//! gaps the report leaves open, one per question, each labelled by the
//! claim it is about rather than by the report section it was found in.

use std::collections::HashSet;

use super::schema::MissingEvidence;
use crate::records::report_items::{self, Gap};

/// Whether `text` names the claim `id` as a word of its own.
pub fn names_claim(text: &str, id: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    text.match_indices(id).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let mut after = text[i + id.len()..].chars();
        let next = after.next();
        let continues = match next {
            Some('.') => after.next().is_some_and(char::is_alphanumeric),
            Some(c) => part(c),
            None => false,
        };
        !before.is_some_and(part) && !continues
    })
}

/// Text as quotes are compared: lower case, straight quotes, one space.
fn folded(text: &str) -> String {
    text.to_lowercase()
        .replace(['“', '”'], "\"")
        .replace(['‘', '’'], "'")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The pieces of a quote between its elisions (`...`, `…`), each long
/// enough to mean something.
fn pieces(quote: &str) -> Vec<String> {
    folded(quote)
        .replace('…', "...")
        .split("...")
        .map(|p| p.trim().trim_matches(['"', '.', ',', ' ']).to_string())
        .filter(|p| p.chars().count() >= 3)
        .collect()
}

/// Whether the pieces all occur in `text`, in order.
fn in_order(text: &str, pieces: &[String]) -> bool {
    let mut rest = text;
    for p in pieces {
        match rest.find(p.as_str()) {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    true
}

/// Whether `text` quotes the claim whose sentence is `quote`: the sentence
/// (its pieces around any elision) is in the text, or a quoted span of the
/// text of four words or more is in the sentence.
pub fn quotes_claim(text: &str, quote: &str) -> bool {
    let whole = pieces(quote);
    let text = folded(text);
    let long = whole.iter().map(|p| p.chars().count()).sum::<usize>() >= 12;
    if long && in_order(&text, &whole) {
        return true;
    }
    let sentence = folded(quote);
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(pieces)
        .filter(|q| {
            q.iter()
                .map(|p| p.split_whitespace().count())
                .sum::<usize>()
                >= 4
        })
        .any(|q| in_order(&sentence, &q))
}

/// The chapter claims (id, sentence) `text` names by id or quotes.
pub fn claims_in<'c>(text: &str, claims: &'c [(String, String)]) -> Vec<&'c (String, String)> {
    claims
        .iter()
        .filter(|(id, quote)| names_claim(text, id) || quotes_claim(text, quote))
        .collect()
}

/// Words that mark a finding or a gap as open rather than say what it is
/// about.
const MARKERS: [&str; 5] = ["unverified", "unresolved", "unrun", "open question", "todo"];

/// `text` without the markers that open it (`UNVERIFIED: `, `**Unresolved** —`).
fn without_markers(text: &str) -> &str {
    let mut t = text.trim();
    loop {
        let lower = t.to_ascii_lowercase();
        let Some(m) = MARKERS.iter().find(|m| {
            lower.starts_with(**m) && !lower[m.len()..].starts_with(|c: char| c.is_alphanumeric())
        }) else {
            return t;
        };
        t = t[m.len()..].trim_start_matches([':', '—', '–', '-', ' ', '*', '_', '.']);
    }
}

/// What a text that names no claim is about: the words it leads with, up
/// to a colon (at most 120 characters), after any marker; else its first
/// sentence.
pub fn lead(text: &str) -> String {
    let rest = without_markers(text);
    let rest = if rest.is_empty() { text.trim() } else { rest };
    match rest.split_once(": ") {
        Some((head, _)) if head.chars().count() <= 120 && !head.trim().is_empty() => {
            head.trim().to_string()
        }
        _ => report_items::sentences(rest)
            .first()
            .map_or_else(|| rest.to_string(), |s| s.to_string()),
    }
}

/// `text` without the claim id it opens with (`sleep-speedup-7.4x: the
/// run ...` reads `The run ...`), since the item shows the claim's own
/// sentence beside it.
pub fn without_claim_id(text: &str, id: &str) -> String {
    let Some(rest) = text.trim_start().strip_prefix(id) else {
        return text.to_string();
    };
    // Only an id set off as the text's subject: `id:`, `id —`, `id - `.
    let Some(rest) = [":", "—", "–", "- "]
        .iter()
        .find_map(|m| rest.trim_start().strip_prefix(m))
    else {
        return text.to_string();
    };
    let rest = rest.trim_start();
    let mut chars = rest.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => text.to_string(),
    }
}

/// What a gap about no claim is labelled.
const NO_CLAIM: &str = "The chapter as a whole";

/// A gap as the site lists it, and the id of the claim it is labelled by.
fn labelled<'c>(g: &Gap, claims: &'c [(String, String)]) -> (MissingEvidence, Option<&'c str>) {
    let key = report_items::claim_key(&g.claim);
    let by_key = claims.iter().find(|(id, _)| id.to_lowercase() == key);
    let named = || {
        let label = (!g.from_heading).then_some(g.claim.as_str());
        label
            .into_iter()
            .chain([g.gap.as_str()])
            .find_map(|t| claims_in(t, claims).first().copied())
    };
    if let Some((id, quote)) = by_key.or_else(named) {
        let gap = without_claim_id(&g.gap, id);
        return (
            MissingEvidence {
                claim: quote.clone(),
                gap,
            },
            Some(id.as_str()),
        );
    }
    if !g.from_heading {
        let gap = MissingEvidence {
            claim: g.claim.clone(),
            gap: g.gap.clone(),
        };
        return (gap, None);
    }
    // A sentence of the report's prose: what it leads with, if anything.
    let rest = without_markers(&g.gap);
    let gap = match rest.split_once(": ") {
        Some((head, tail)) if head.chars().count() <= 120 && !tail.trim().is_empty() => {
            MissingEvidence {
                claim: head.trim().to_string(),
                gap: tail.trim().to_string(),
            }
        }
        _ => MissingEvidence {
            claim: NO_CLAIM.into(),
            gap: g.gap.clone(),
        },
    };
    (gap, None)
}

/// Words that say little about which question a gap asks.
const STOP: [&str; 24] = [
    "a",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "by",
    "for",
    "from",
    "if",
    "in",
    "is",
    "it",
    "of",
    "on",
    "or",
    "the",
    "these",
    "this",
    "to",
    "unverified",
    "whether",
];

/// The words of `text` that say what a gap asks.
fn words(text: &str) -> HashSet<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty() && !STOP.contains(w))
        .map(str::to_string)
        .collect()
}

/// Whether two sets of words ask the same question: three in four of
/// their words shared.
fn same_question(a: &HashSet<String>, b: &HashSet<String>) -> bool {
    let shared = a.intersection(b).count();
    let all = a.union(b).count();
    all > 0 && shared * 4 >= all * 3
}

/// A gap as it is compared with the others.
struct Listed {
    gap: MissingEvidence,
    /// Whether its label is a claim of the chapter.
    is_claim: bool,
    /// The words of the gap (without its claim's id), and of the gap with
    /// its label (none for [`NO_CLAIM`]).
    asks: HashSet<String>,
    with_label: HashSet<String>,
}

impl Listed {
    fn new(gap: MissingEvidence, claim_id: Option<&str>) -> Self {
        let label = if gap.claim == NO_CLAIM {
            ""
        } else {
            &gap.claim
        };
        let with_label = words(&format!("{label} {}", gap.gap));
        let id = words(claim_id.unwrap_or_default());
        Listed {
            asks: words(&gap.gap).difference(&id).cloned().collect(),
            with_label,
            gap,
            is_claim: claim_id.is_some(),
        }
    }

    /// Whether `other` asks what this asks: under the same label, the
    /// same words; under labels of which at most one is a claim (the same
    /// question in the report's context and in its findings), the same
    /// words with the labels. Two claims' gaps are never one.
    fn same(&self, other: &Listed) -> bool {
        let (a, b) = (&self.gap, &other.gap);
        if a.claim == b.claim {
            a.gap == b.gap || same_question(&self.asks, &other.asks)
        } else {
            !(self.is_claim && other.is_claim) && same_question(&self.with_label, &other.with_label)
        }
    }
}

/// The report's gaps as the site lists them: one per question, labelled by
/// the claim it is about. A gap the report writes twice (in its context and
/// again in its findings) is listed once, under the claim if either names
/// one, else under the words it leads with.
pub fn missing_evidence(gaps: &[Gap], claims: &[(String, String)]) -> Vec<MissingEvidence> {
    let mut out: Vec<Listed> = Vec::new();
    for g in gaps {
        let (gap, claim_id) = labelled(g, claims);
        let new = Listed::new(gap, claim_id);
        match out.iter_mut().find(|o| o.same(&new)) {
            // The label that says most: a claim, else a lead, else none.
            Some(o)
                if (new.is_claim && !o.is_claim)
                    || (o.gap.claim == NO_CLAIM && new.gap.claim != NO_CLAIM) =>
            {
                *o = new;
            }
            Some(_) => {}
            None => out.push(new),
        }
    }
    out.into_iter().map(|l| l.gap).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_is_named_only_as_a_word_of_its_own() {
        assert!(names_claim("- spin-454-vs-449: flat", "spin-454-vs-449"));
        assert!(names_claim(
            "as sleep-speedup-7.4x says.",
            "sleep-speedup-7.4x"
        ));
        assert!(!names_claim("spin-454-vs-4490", "spin-454-vs-449"));
        assert!(!names_claim("x-spin-454-vs-449", "spin-454-vs-449"));
        assert!(!names_claim("sleep-speedup-7.4x.y", "sleep-speedup-7.4x"));
    }

    #[test]
    fn a_claim_is_quoted_around_its_elisions() {
        let q = "In the second table, wait_mean ... fell from 62.8 ms to 28.1 ms.";
        assert!(quotes_claim(
            "Whether \"wait_mean ... fell from 62.8 ms\" holds on the DataLoader",
            q
        ));
        assert!(quotes_claim(
            "UNVERIFIED: in the second table, wait_mean for spin fell from 62.8 ms to 28.1 ms.",
            q
        ));
        assert!(!quotes_claim("the \"fell from\" part", q));
    }

    #[test]
    fn a_lead_is_never_a_marker() {
        assert_eq!(
            lead("UNVERIFIED: pin_memory on one CPU: whether it moves anything."),
            "pin_memory on one CPU"
        );
        assert_eq!(
            lead("UNVERIFIED — whether it moves anything. Nothing says."),
            "whether it moves anything."
        );
        assert_eq!(
            without_claim_id("sleep-speedup-7.4x: the run scales", "sleep-speedup-7.4x"),
            "The run scales"
        );
        assert_eq!(
            without_claim_id("sleep-speedup-7.4xy: a", "sleep-speedup-7.4x"),
            "sleep-speedup-7.4xy: a"
        );
        assert_eq!(without_claim_id("a, b: both", "a"), "a, b: both");
    }

    #[test]
    fn a_question_asked_twice_is_one_gap_under_its_claim() {
        let gap = |claim: &str, gap: &str, from_heading| Gap {
            claim: claim.into(),
            gap: gap.into(),
            from_heading,
        };
        let claims = [("c1".to_string(), "C one holds.".to_string())];
        let gaps = [
            gap(
                "1. Context and provenance",
                "UNVERIFIED: whether pin_memory on one CPU moves these numbers.",
                true,
            ),
            gap(
                "4. Findings",
                "pin_memory on one CPU: whether it moves any of these numbers is UNVERIFIED.",
                true,
            ),
            gap("c1: \"C one holds.\"", "UNVERIFIED on 8 cores", false),
            gap("4. Findings", "c1 on 8 cores is UNVERIFIED.", true),
        ];
        let out = missing_evidence(&gaps, &claims);
        let shown: Vec<(&str, &str)> = out
            .iter()
            .map(|g| (g.claim.as_str(), g.gap.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "pin_memory on one CPU",
                    "whether it moves any of these numbers is UNVERIFIED."
                ),
                ("C one holds.", "UNVERIFIED on 8 cores"),
            ]
        );
    }
}
