//! How claim metrics spell a table's or a column's name: one rule for the
//! producer kinds (`config`) and the chapter's columns (`table_layout`), in a
//! file of its own so that neither needs the other for it.

/// A table or column name as claim metrics spell it: `/` and `-` become `_`
/// (`ex/s` is `ex_s`, `spin-wall` is `spin_wall`).
pub fn ident(name: &str) -> String {
    name.replace("ex/s", "ex_s").replace(['-', '/'], "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slashes_and_dashes_become_underscores() {
        assert_eq!(ident("ex/s"), "ex_s");
        assert_eq!(ident("spin-wall"), "spin_wall");
        assert_eq!(ident("wait_p95"), "wait_p95");
    }
}
