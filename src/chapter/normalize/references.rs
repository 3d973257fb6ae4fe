//! Rule 2's references: which bodies (between `&` and `;`) stand for
//! which characters.

use std::sync::OnceLock;

/// The longest reference body (between `&` and `;`) rule 2 decodes, in bytes;
/// a longer one is left as it is. docs/formats.md states the same limit.
pub const MAX_REFERENCE_BODY: usize = 39;

/// The named references, keyed with FNV-1a: the names are short and
/// chosen by no attacker able to collide them into slowness (at most
/// 2,231 fixed keys), and SipHash showed in profiles of entity-dense text.
type References =
    std::collections::HashMap<&'static str, &'static str, std::hash::BuildHasherDefault<Fnv1a>>;

/// FNV-1a, 64 bits.
struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The characters a named reference stands for, from the HTML standard's
/// complete table (`&fjlig;` is "fj", two code points).
fn named_references() -> &'static References {
    static TABLE: OnceLock<References> = OnceLock::new();
    TABLE.get_or_init(|| {
        entities::ENTITIES
            .iter()
            .filter_map(|e| {
                let name = e.entity.strip_prefix('&')?.strip_suffix(';')?;
                Some((name, e.characters))
            })
            .collect()
    })
}

/// The named references prose uses most, matched without hashing (the
/// same characters as the table's, as a test checks).
fn common_reference(name: &str) -> Option<&'static str> {
    Some(match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => "\u{00A0}",
        "mdash" => "\u{2014}",
        "ndash" => "\u{2013}",
        "lsquo" => "\u{2018}",
        "rsquo" => "\u{2019}",
        "ldquo" => "\u{201C}",
        "rdquo" => "\u{201D}",
        "hellip" => "\u{2026}",
        "eacute" => "\u{00E9}",
        _ => return None,
    })
}

/// Rule 2 for one reference body (between `&` and `;`): the characters it
/// stands for, or None when it is not a reference to a character (the text
/// then stays as it is). Numeric references follow the HTML standard's
/// parse: any number of digits, a value that is a Unicode scalar, and no C0
/// control other than tab, line feed, form feed and carriage return.
pub(super) fn decode_reference(body: &str) -> Option<Decoded> {
    if body.is_empty() || body.len() > MAX_REFERENCE_BODY {
        return None;
    }
    let number = match body.as_bytes() {
        [b'#', b'x' | b'X', hex @ ..] => {
            if hex.is_empty() || !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            u32::from_str_radix(&body[2..], 16).ok()?
        }
        [b'#', dec @ ..] => {
            if dec.is_empty() || !dec.iter().all(u8::is_ascii_digit) {
                return None;
            }
            body[1..].parse::<u32>().ok()?
        }
        name => {
            if !name.iter().all(u8::is_ascii_alphanumeric) {
                return None;
            }
            return common_reference(body)
                .or_else(|| named_references().get(body).copied())
                .map(Decoded::Chars);
        }
    };
    let c = char::from_u32(number)?;
    match c {
        '\t' | '\n' | '\u{000C}' | '\r' => {}
        '\0'..='\u{001F}' => return None,
        _ => {}
    }
    Some(Decoded::Char(c))
}

/// What a reference stands for: one character (a numeric reference), or
/// the characters of a named one (most are one, a few two).
#[derive(Debug, Clone, Copy)]
pub(super) enum Decoded {
    Char(char),
    Chars(&'static str),
}

impl Decoded {
    /// The character it stands for, when it is exactly one.
    pub(super) fn single(self) -> Option<char> {
        match self {
            Decoded::Char(c) => Some(c),
            Decoded::Chars(s) => {
                let mut chars = s.chars();
                let c = chars.next()?;
                chars.next().is_none().then_some(c)
            }
        }
    }

    /// Pushes its characters in reverse order (to be popped in order).
    pub(super) fn push_reversed(self, stack: &mut Vec<char>) {
        match self {
            Decoded::Char(c) => stack.push(c),
            Decoded::Chars(s) => stack.extend(s.chars().rev()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_references_stand_for_what_the_table_says() {
        let mut common = 0;
        for (name, characters) in named_references() {
            if let Some(c) = common_reference(name) {
                assert_eq!(c, *characters, "&{name};");
                common += 1;
            }
        }
        assert_eq!(common, 14, "every common name is in the table");
    }
}
