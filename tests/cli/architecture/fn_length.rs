//! No function in `src/commands/` is over 60 lines, from `fn` to its closing
//! brace: a command turns its arguments into a request, asks `app/` and
//! renders the answer; a longer one holds logic that belongs below it
//! (docs/architecture.md).

use std::path::Path;

use syn::visit::{self, Visit};

/// The most lines a function of `src/commands/` may span.
pub const MOST_LINES: usize = 60;

/// Functions allowed to be longer for now, each with its reason.
pub const LONGER_ALLOWED: &[(&str, &str)] = &[
    (
        "src/commands/bench.rs::run",
        "its flag checks and the both-engines orchestration move to one resolve step in app/ (issue 54, part 2)",
    ),
    (
        "src/commands/reproduce.rs::run",
        "as bench's run: one resolve step in app/ (issue 54, part 2)",
    ),
];

struct Lengths<'a> {
    file: &'a str,
    out: Vec<(String, usize)>,
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("test")
            || (a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"))
    })
}

impl Lengths<'_> {
    fn add(&mut self, name: &syn::Ident, sig: &syn::Signature, block: &syn::Block) {
        let start = sig.fn_token.span.start().line;
        let end = block.brace_token.span.close().end().line;
        self.out
            .push((format!("{}::{name}", self.file), end - start + 1));
    }
}

impl<'ast> Visit<'ast> for Lengths<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_test(&m.attrs) {
            visit::visit_item_mod(self, m);
        }
    }
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test(&f.attrs) {
            self.add(&f.sig.ident, &f.sig, &f.block);
            visit::visit_item_fn(self, f);
        }
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test(&f.attrs) {
            self.add(&f.sig.ident, &f.sig, &f.block);
            visit::visit_impl_item_fn(self, f);
        }
    }
}

/// Each function of the Rust files in `dir` (named `<file>::<fn>` with
/// the file as `shown` plus its path below `dir`) longer than `most` lines.
pub fn too_long(dir: &Path, shown: &str, most: usize) -> Vec<(String, usize)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let rel = f.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
        let name = format!("{shown}/{rel}");
        let parsed = syn::parse_file(&std::fs::read_to_string(&f).unwrap())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut v = Lengths {
            file: &name,
            out: Vec::new(),
        };
        v.visit_file(&parsed);
        out.extend(v.out.into_iter().filter(|(_, n)| *n > most));
    }
    out
}

#[test]
fn no_function_in_commands_is_over_60_lines() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/commands");
    let long: Vec<String> = too_long(&dir, "src/commands", MOST_LINES)
        .into_iter()
        .filter(|(name, _)| !LONGER_ALLOWED.iter().any(|(n, _)| n == name))
        .map(|(name, n)| format!("{name}: {n} lines"))
        .collect();
    assert!(
        long.is_empty(),
        "functions in src/commands/ over {MOST_LINES} lines (move their logic to app/):\n{}",
        long.join("\n")
    );
    // An exemption that is no longer needed goes.
    let still_long: Vec<String> = too_long(&dir, "src/commands", MOST_LINES)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    for (name, why) in LONGER_ALLOWED {
        assert!(
            still_long.contains(&name.to_string()),
            "{name} is no longer over {MOST_LINES} lines: take it off LONGER_ALLOWED ({why})"
        );
    }
}

#[test]
fn a_planted_long_function_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let body = "    let x = 1;\n".repeat(60);
    std::fs::write(
        dir.path().join("long.rs"),
        format!(
            "/// A doc line does not count.\nfn long() {{\n{body}}}\n\nfn short() {{\n    let y = 2;\n}}\n\n#[cfg(test)]\nmod tests {{\n    fn also_long() {{\n{body}    }}\n}}\n"
        ),
    )
    .unwrap();
    assert_eq!(
        too_long(dir.path(), "planted", 60),
        vec![("planted/long.rs::long".to_string(), 62)]
    );
}
