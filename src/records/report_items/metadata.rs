//! A source's authors, year and venue as a ledger row gives them: in
//! columns of their own, or all in one "checked metadata" cell, as the
//! prompt's required output asks for them. "et al." ends a list that is
//! partial; it is never an author.
//!
//! A metadata cell is read in one of these shapes:
//! - labelled: `authors: Doe, J.; Roe, R. year: 2021 venue: VLDB` (labels
//!   `author(s)`, `by`, `year`, `date`, `published`, `venue`, `journal`,
//!   `conference`, `publisher`, `in`, any case, each with a colon);
//! - the authors, then a year, then the venue: `Derek G. Murray, Jiří
//!   Šimša et al. (2021). Proc. VLDB Endowment`, `Murray et al.; 2021;
//!   VLDB`, `Murray, 2021, VLDB`;
//! - with no year: the whole cell is the authors.

use super::plain::plain;

/// What a metadata cell, or the author cell, says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metadata {
    pub authors: Vec<String>,
    /// The list ended in "et al.": more authors than it names.
    pub partial: bool,
    pub year: Option<i64>,
    pub venue: Option<String>,
}

/// Whether a word is initials alone (`D.`, `D.G.`, `J.-P.`), the part of
/// a name that follows the surname after a comma.
fn initials(part: &str) -> bool {
    let words: Vec<&str> = part.split_whitespace().collect();
    !words.is_empty()
        && words.iter().all(|w| {
            w.ends_with('.')
                && w.split(['.', '-'])
                    .filter(|s| !s.is_empty())
                    .all(|s| s.chars().count() == 1 && s.chars().all(char::is_alphabetic))
        })
}

/// A name without the "et al." that ends it, and whether it had one.
fn without_et_al(name: &str) -> (&str, bool) {
    // ASCII lower case keeps every byte where it was.
    let lower = name.to_ascii_lowercase();
    for marker in ["et al.", "et. al.", "et al", "and others"] {
        if let Some(at) = lower.rfind(marker) {
            if lower[at + marker.len()..]
                .trim_matches(['.', ' '])
                .is_empty()
            {
                return (name[..at].trim_end_matches([' ', ',', ';']), true);
            }
        }
    }
    (name, false)
}

/// The authors a cell names, and whether the list is partial. With a `;`
/// the cell's commas are inside names (`Doe, J.; Roe, R.`); else names are
/// split at commas, `and` and `&`, and initials alone join the name before
/// them (`Murray, D. G., Šimša, J.`).
pub fn authors(cell: &str) -> (Vec<String>, bool) {
    let text = plain(cell);
    let mut partial = false;
    let mut names: Vec<String> = Vec::new();
    let by_semicolon = text.contains(';');
    let parts: Vec<&str> = if by_semicolon {
        text.split(';').collect()
    } else {
        text.split(',').collect()
    };
    for part in parts {
        let part = part.trim();
        let part = part.strip_prefix("and ").unwrap_or(part);
        let (part, et_al) = without_et_al(part);
        partial |= et_al;
        let pieces: Vec<&str> = if by_semicolon {
            vec![part]
        } else {
            part.split(" and ").flat_map(|p| p.split(" & ")).collect()
        };
        for piece in pieces.into_iter().map(str::trim).filter(|p| !p.is_empty()) {
            match names.last_mut() {
                Some(last) if !by_semicolon && initials(piece) && !initials(last) => {
                    last.push_str(", ");
                    last.push_str(piece);
                }
                _ => names.push(piece.to_string()),
            }
        }
    }
    (names, partial)
}

/// The year a word is, when it is one: `2021`, `(2021)`, `2021-05-03`.
fn year_of(word: &str) -> Option<i64> {
    let lower = word.to_lowercase();
    if lower.contains("://") || lower.contains("doi") || lower.contains("arxiv") {
        return None;
    }
    let w = word.trim_matches(|c: char| !c.is_alphanumeric());
    let digits: String = w.chars().take_while(char::is_ascii_digit).collect();
    let rest = &w[digits.len()..];
    let date_like = rest.is_empty()
        || ((rest.starts_with('-') || rest.starts_with('/'))
            && rest[1..]
                .chars()
                .all(|c| c.is_ascii_digit() || c == '-' || c == '/'));
    (digits.len() == 4 && date_like)
        .then(|| digits.parse().ok())
        .flatten()
        .filter(|y| (1900..=2099).contains(y))
}

const LABELS: [(&str, Field); 12] = [
    ("authors:", Field::Authors),
    ("author:", Field::Authors),
    ("by:", Field::Authors),
    ("year:", Field::Year),
    ("date:", Field::Year),
    ("published:", Field::Year),
    ("venue:", Field::Venue),
    ("journal:", Field::Venue),
    ("conference:", Field::Venue),
    ("publisher:", Field::Venue),
    ("published in:", Field::Venue),
    ("in:", Field::Venue),
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Field {
    Authors,
    Year,
    Venue,
}

/// The labelled parts of a cell, each with its text, when it has any.
fn labelled(text: &str) -> Vec<(Field, String)> {
    // ASCII lower case keeps every byte where it was.
    let lower = text.to_ascii_lowercase();
    let mut found: Vec<(usize, usize, Field)> = Vec::new();
    for (label, field) in LABELS {
        for (at, _) in lower.match_indices(label) {
            let starts_word = lower[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
            let inside = found.iter().any(|&(s, e, _)| at >= s && at < e);
            if starts_word && !inside {
                found.push((at, at + label.len(), field));
            }
        }
    }
    found.sort_by_key(|&(at, _, _)| at);
    found
        .iter()
        .enumerate()
        .map(|(i, &(_, end, field))| {
            let stop = found.get(i + 1).map_or(text.len(), |n| n.0);
            let value = text[end..stop].trim_matches([' ', ';', ',', '·', '|']);
            (field, value.to_string())
        })
        .collect()
}

/// The venue as the rest of a cell gives it, without the marks around it.
fn venue(text: &str) -> Option<String> {
    let v = text
        .trim_start_matches(|c: char| c.is_whitespace() || ").,;:·—–-|".contains(c))
        .trim_end_matches(|c: char| c.is_whitespace() || ".,;·|(".contains(c));
    Some(v.to_string()).filter(|v| !v.is_empty())
}

/// What one "checked metadata" cell says.
pub fn metadata(cell: &str) -> Metadata {
    let text = plain(cell);
    let parts = labelled(&text);
    if !parts.is_empty() {
        let mut m = Metadata::default();
        for (field, value) in parts {
            match field {
                Field::Authors => (m.authors, m.partial) = authors(&value),
                Field::Year => m.year = value.split_whitespace().find_map(year_of),
                Field::Venue => m.venue = venue(&value),
            }
        }
        return m;
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let Some((at, year)) = words
        .iter()
        .enumerate()
        .find_map(|(i, w)| year_of(w).map(|y| (i, y)))
    else {
        let (authors, partial) = authors(&text);
        return Metadata {
            authors,
            partial,
            ..Metadata::default()
        };
    };
    let before = words[..at].join(" ");
    let mut before = before
        .trim_end_matches(|c: char| c.is_whitespace() || ",;(·—–-|".contains(c))
        .to_string();
    // "Indyk." ends the names; "R." is an initial and keeps its stop.
    if before.ends_with('.') && before[..before.len() - 1].ends_with(char::is_lowercase) {
        before.pop();
    }
    let (authors, partial) = authors(&before);
    Metadata {
        authors,
        partial,
        year: Some(year),
        venue: venue(&words[at + 1..].join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cell_gives_authors_year_and_venue() {
        let m = metadata(
            "Derek G. Murray, Jiří Šimša, Ana Klimovic, Ihor Indyk (2021). Proc. VLDB Endowment 14(12)",
        );
        assert_eq!(
            m.authors,
            [
                "Derek G. Murray",
                "Jiří Šimša",
                "Ana Klimovic",
                "Ihor Indyk"
            ]
        );
        assert_eq!(m.year, Some(2021));
        assert_eq!(m.venue.as_deref(), Some("Proc. VLDB Endowment 14(12)"));
        assert!(!m.partial);
        let m = metadata("Murray et al.; 2021; VLDB");
        assert_eq!(
            (m.authors, m.partial, m.year, m.venue.as_deref()),
            (vec!["Murray".to_string()], true, Some(2021), Some("VLDB"))
        );
        let m = metadata("Murray, D. G., Šimša, J., et al., 2021, arXiv:2101.12127");
        assert_eq!(m.authors, ["Murray, D. G.", "Šimša, J."]);
        assert!(m.partial);
        assert_eq!(m.venue.as_deref(), Some("arXiv:2101.12127"));
        let m = metadata("authors: Doe, J.; Roe, R. · year: 2019 · venue: OSDI.");
        assert_eq!(m.authors, ["Doe, J.", "Roe, R."]);
        assert_eq!((m.year, m.venue.as_deref()), (Some(2019), Some("OSDI")));
        let m = metadata("PyTorch contributors");
        assert_eq!(
            (m.authors, m.year, m.venue),
            (vec!["PyTorch contributors".to_string()], None, None)
        );
    }

    #[test]
    fn et_al_is_no_author_and_initials_stay_with_their_name() {
        assert_eq!(
            authors("A. Lee, B. Ng and C. Wu et al."),
            (vec!["A. Lee".into(), "B. Ng".into(), "C. Wu".into()], true)
        );
        assert_eq!(authors("Doe, J.; et al."), (vec!["Doe, J.".into()], true));
        assert!(!authors("Ann Lee, Bo Ng").1);
        assert_eq!(year_of("2101.12127"), None);
        assert_eq!(year_of("(2021-05-03)."), Some(2021));
    }
}
