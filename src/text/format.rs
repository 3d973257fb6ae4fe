//! Numbers, lists and ids as the tool prints them: a figure with at most
//! three decimals (`number`), a setting as given unless that is long
//! (`setting`), a comma-separated list (`list`), the short prefix of an id
//! (`prefix`) and a digest in lowercase hex (`hex`).

/// A number as reports and pages show it: at most three decimals, trailing
/// zeros dropped (`7.365`, `0.5`, `444`).
pub fn number(x: f64) -> String {
    format!("{x:.3}")
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

/// A setting's value as a footer shows it: as given where that is short
/// (`0.42`, `5`), else in exponent form (`1e-300`, not 300 digits).
pub fn setting(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() <= 12 {
        plain
    } else {
        format!("{x:e}")
    }
}

/// The first `n` characters of `s` (all of it when shorter), for short
/// forms of ids and digests read from files a user may have edited.
pub fn prefix(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// Lowercase hex of a digest.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// Items as a comma-separated list: `0, 1, 2`.
pub fn list<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_shows_as_given_unless_that_is_long() {
        assert_eq!(setting(0.42), "0.42");
        assert_eq!(setting(5.0), "5");
        assert_eq!(setting(1e-300), "1e-300");
        assert_eq!(setting(2.5e20), "2.5e20");
    }

    #[test]
    fn prefix_never_splits_a_character() {
        assert_eq!(prefix("abcdef", 3), "abc");
        assert_eq!(prefix("ab", 3), "ab");
        assert_eq!(prefix("ééé", 2), "éé");
    }
}
