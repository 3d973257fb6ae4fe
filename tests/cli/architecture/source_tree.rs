//! The reader behind the architecture rules: a crate's source tree read as
//! the compiler reads it, so that a rule sees every import and nothing else.
//!
//! Each file is parsed with `syn` and reached through the `mod` declarations
//! from `lib.rs` (and `main.rs`). Items under `#[cfg(test)]` are left out
//! wherever they sit, so code after a test module counts and a test's own
//! imports do not; comments and string literals are not code (save the
//! paths serde attributes name in strings, `with = "crate::x"`). A file
//! refers to what its `use` trees, its inline paths (`crate::sys::foo()`)
//! and the paths inside its macro calls name, resolved from `crate`,
//! `super`, `self` or a name in scope, through re-exports, to the file where
//! the item is written: `use super::PipelineConfig` in `bench/engine.rs`,
//! where `bench/mod.rs` says `pub use config::PipelineConfig`, is an import
//! of `bench/config.rs`. An item written in a parent's `mod.rs` is that
//! file's, so a parent that calls into its children while they use its
//! helpers is a circle. Naming a module (`use super::pool;`) is no import by
//! itself; what the code reaches through the name is.
//!
//! Everything takes a source root, so the real `src/` and the small trees
//! the tests plant go through the same code.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::{self, Visit};

/// The library's name, which is how `main.rs` (a crate of its own) names it.
const CRATE_NAME: &str = "research_companion";

/// How deep a chain of re-exports may go before the reader gives up on it
/// (only a glob importing itself gets that far).
const MAX_HOPS: usize = 32;

/// Nodes and the nodes each one imports.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// A module path from the crate root: `["bench", "pool"]`; `[]` is lib.rs.
type ModPath = Vec<String>;

/// One module: the file it is written in and the names it binds.
#[derive(Default)]
struct Module {
    /// The file, relative to the source root (`bench/engine.rs`).
    file: String,
    /// Reached only through a `#[cfg(test)] mod`: not part of the product.
    test_only: bool,
    /// Its submodules, in their own files or inline.
    children: BTreeSet<String>,
    /// Names of the types, traits and other items a path can go through
    /// (`Config::new`) that it defines.
    types: BTreeSet<String>,
    /// Names of the functions, constants, statics and macros it defines,
    /// which end a path: `fn env` and `mod env` can live side by side.
    values: BTreeSet<String>,
    /// Names its `use` declarations bind, and the paths (as written, read
    /// from this module) they bind them to.
    imports: BTreeMap<String, Vec<Vec<String>>>,
    /// Paths of its glob imports (`use super::x::*`).
    globs: Vec<Vec<String>>,
}

/// What a path names.
#[derive(Clone, Debug, PartialEq)]
enum Target {
    /// A module itself (`use super::pool;`), which is a name, not code.
    Module(ModPath),
    /// An item defined in this module's file.
    Item(ModPath),
}

/// A path as found in a file, before it is resolved.
struct Found {
    /// The module whose scope the path is read in.
    scope: ModPath,
    line: usize,
    segments: Vec<String>,
}

/// One path a file refers to.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The file that writes it (relative to the root).
    pub file: String,
    pub line: usize,
    /// The path as written: `super::table_layout::ident`.
    pub written: String,
    /// The module path it spells out, when it starts from `crate`, `super`,
    /// `self` or a submodule: what it names before re-exports are followed.
    pub named: Option<ModPath>,
    /// The files holding what it names, re-exports followed.
    pub targets: BTreeSet<String>,
}

/// A crate's source tree, read.
pub struct SourceTree {
    root: PathBuf,
    modules: BTreeMap<ModPath, Module>,
    /// Every `.rs` file under the root (a top-level build.rs aside) and its text.
    texts: BTreeMap<String, String>,
    /// Per file: the identifiers of its code outside test items, with lines.
    idents: BTreeMap<String, Vec<(usize, String)>>,
    references: Vec<Reference>,
    /// The types the product's files define, in file and line order.
    type_definitions: Vec<TypeDefinition>,
}

/// A type a file defines: a struct, enum, union, type alias, trait or
/// trait alias, at module level or inside a function (an associated type
/// of an impl, `type Error = ...`, defines no type of its own).
#[derive(Clone, Debug, PartialEq)]
pub struct TypeDefinition {
    pub name: String,
    /// The file, relative to the root.
    pub file: String,
    pub line: usize,
}

impl SourceTree {
    /// Reads the crate whose `lib.rs` is in `root`.
    pub fn read(root: &Path) -> SourceTree {
        let mut tree = SourceTree {
            root: root.to_path_buf(),
            modules: BTreeMap::new(),
            texts: BTreeMap::new(),
            idents: BTreeMap::new(),
            references: Vec::new(),
            type_definitions: Vec::new(),
        };
        collect_texts(root, root, &mut tree.texts);
        let mut found = Vec::new();
        let mut todo = vec![(ModPath::new(), "lib.rs".to_string(), false)];
        if tree.texts.contains_key("main.rs") {
            todo.push((vec!["main".to_string()], "main.rs".to_string(), false));
        }
        while let Some((module, file, test_only)) = todo.pop() {
            let Some(text) = tree.texts.get(&file) else {
                panic!(
                    "{}: declared as module {} but missing",
                    root.join(&file).display(),
                    module.join("::")
                );
            };
            let parsed = syn::parse_file(text).unwrap_or_else(|e| {
                panic!(
                    "{}:{}: does not parse: {e}",
                    root.join(&file).display(),
                    e.span().start().line
                )
            });
            // A file may put itself under test with `#![cfg(test)]`.
            let test_only = test_only || is_test(&parsed.attrs);
            let mut reader = FileReader {
                modules: &mut tree.modules,
                texts: &tree.texts,
                file: file.clone(),
                dirs: vec![child_dir(&file)],
                scope: module.clone(),
                test_only,
                pending: Vec::new(),
                found: Vec::new(),
                idents: Vec::new(),
                types: Vec::new(),
            };
            reader.enter(module.clone());
            for item in &parsed.items {
                reader.visit_item(item);
            }
            todo.append(&mut reader.pending);
            tree.idents
                .insert(file.clone(), std::mem::take(&mut reader.idents));
            if !test_only {
                found.extend(reader.found.drain(..).map(|f| (file.clone(), f)));
                let types = reader.types.drain(..).map(|(name, line)| TypeDefinition {
                    name,
                    file: file.clone(),
                    line,
                });
                tree.type_definitions.extend(types);
            }
        }
        tree.references = found
            .into_iter()
            .map(|(file, f)| tree.resolve_found(file, f))
            .collect();
        tree.references
            .sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        tree.type_definitions
            .sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        tree
    }

    /// Every type the product's files define outside test items.
    pub fn type_definitions(&self) -> &[TypeDefinition] {
        &self.type_definitions
    }

    /// The source root this tree was read from.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every `.rs` file under the root (relative), read or not.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.texts.keys().map(String::as_str)
    }

    /// Files under the root that no `mod` declaration reaches: the compiler
    /// never sees them, so neither do the rules.
    pub fn unread(&self) -> Vec<String> {
        let read: BTreeSet<&str> = self.modules.values().map(|m| m.file.as_str()).collect();
        self.files()
            .filter(|f| !read.contains(f))
            .map(str::to_string)
            .collect()
    }

    /// The files that are part of the product (not reached only by tests).
    pub fn product_files(&self) -> BTreeSet<String> {
        self.modules
            .values()
            .filter(|m| !m.test_only)
            .map(|m| m.file.clone())
            .collect()
    }

    /// Every path the product's files refer to, by file and line.
    pub fn references(&self) -> &[Reference] {
        &self.references
    }

    /// The identifiers of a file's code outside its test items (macro
    /// bodies and attributes included), with their lines.
    pub fn code_idents(&self, file: &str) -> &[(usize, String)] {
        self.idents.get(file).map_or(&[], Vec::as_slice)
    }

    /// The string literals anywhere in a file, its tests included, doc
    /// comments left out.
    pub fn strings(&self, file: &str) -> Vec<String> {
        let tokens: TokenStream = self.texts[file]
            .parse()
            .unwrap_or_else(|e| panic!("{file} does not tokenize: {e:?}"));
        let mut out = Vec::new();
        string_literals(tokens, &mut out);
        out
    }

    /// The top-level module a file belongs to: `bench` for
    /// `bench/pool.rs`, `lib` for lib.rs, `main` for main.rs.
    pub fn top_level_of(&self, file: &str) -> String {
        Path::new(file)
            .iter()
            .next()
            .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
            .unwrap_or_default()
    }

    /// File -> the files it imports (its own file left out).
    pub fn file_graph(&self) -> Graph {
        let mut graph: Graph = self
            .product_files()
            .into_iter()
            .map(|f| (f, BTreeSet::new()))
            .collect();
        for r in &self.references {
            for t in &r.targets {
                if *t != r.file {
                    graph.entry(r.file.clone()).or_default().insert(t.clone());
                }
            }
        }
        graph
    }

    /// Top-level module -> the top-level modules it imports: both the
    /// module a path spells out and the one its item is written in count.
    pub fn top_level_graph(&self) -> Graph {
        let mut graph: Graph = self
            .product_files()
            .iter()
            .map(|f| (self.top_level_of(f), BTreeSet::new()))
            .collect();
        for r in &self.references {
            let from = self.top_level_of(&r.file);
            let mut to: BTreeSet<String> = r.targets.iter().map(|t| self.top_level_of(t)).collect();
            if let Some(first) = r.named.as_ref().and_then(|n| n.first()) {
                to.insert(first.clone());
            }
            to.remove(&from);
            graph.entry(from).or_default().extend(to);
        }
        graph
    }

    /// The first reference (by line) by which `from` imports `to`.
    pub fn evidence(&self, from: &str, to: &str) -> Option<&Reference> {
        self.references
            .iter()
            .find(|r| r.file == from && r.targets.contains(to))
    }

    /// Resolves one path found in `file`.
    fn resolve_found(&self, file: String, f: Found) -> Reference {
        let named = self.named(&f.scope, &f.segments);
        let targets = self
            .resolve(&f.scope, &f.segments, 0)
            .into_iter()
            .filter_map(|t| match t {
                Target::Item(m) => self.modules.get(&m).map(|m| m.file.clone()),
                Target::Module(_) => None,
            })
            .collect();
        Reference {
            file,
            line: f.line,
            written: f.segments.join("::"),
            named,
            targets,
        }
    }

    /// The module path a path spells out from its anchor, if it has one.
    fn named(&self, scope: &[String], segments: &[String]) -> Option<ModPath> {
        let (base, rest) = self.anchor(scope, segments)?;
        let mut path = base;
        path.extend(rest.iter().cloned());
        Some(path)
    }

    /// Where a path starts: the module its first segment names (`crate`,
    /// `super`, `self`, the library's name, or a submodule of the scope),
    /// and the segments after it.
    fn anchor<'s>(
        &self,
        scope: &[String],
        segments: &'s [String],
    ) -> Option<(ModPath, &'s [String])> {
        let first = segments.first()?;
        match first.as_str() {
            "crate" | CRATE_NAME => Some((ModPath::new(), &segments[1..])),
            "self" => Some((scope.to_vec(), &segments[1..])),
            "super" => {
                let mut base = scope.to_vec();
                let mut rest = segments;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                Some((base, rest))
            }
            name if self
                .modules
                .get(scope)
                .is_some_and(|m| m.children.contains(name)) =>
            {
                let mut base = scope.to_vec();
                base.push(name.to_string());
                Some((base, &segments[1..]))
            }
            _ => None,
        }
    }

    /// What a path read in `scope` names; empty when it leaves the crate
    /// (`std::`, `serde::`) or names a local.
    fn resolve(&self, scope: &[String], segments: &[String], hops: usize) -> Vec<Target> {
        if hops > MAX_HOPS || segments.is_empty() {
            return Vec::new();
        }
        if let Some((base, rest)) = self.anchor(scope, segments) {
            return self.descend(Target::Module(base), rest, hops);
        }
        self.lookup(scope, &segments[0], segments.len() > 1, hops)
            .into_iter()
            .flat_map(|t| self.descend(t, &segments[1..], hops + 1))
            .collect()
    }

    /// Follows the rest of a path from what its first part named.
    fn descend(&self, from: Target, rest: &[String], hops: usize) -> Vec<Target> {
        let Target::Module(module) = from else {
            // An item's associated items and variants live in its file.
            return vec![from];
        };
        let Some(name) = rest.first() else {
            return vec![Target::Module(module)];
        };
        let found = self.lookup(&module, name, rest.len() > 1, hops + 1);
        if found.is_empty() {
            // A name the reader cannot place (an exported macro, a name a
            // build script makes): the module it is looked up in is the
            // dependency.
            return vec![Target::Item(module)];
        }
        found
            .into_iter()
            .flat_map(|t| self.descend(t, &rest[1..], hops + 1))
            .collect()
    }

    /// What `name` means inside `module`: a submodule, an item, an import
    /// (followed), or else a name one of its globs brings in. `more`: the
    /// path goes on after it, so a function or constant cannot be it.
    fn lookup(&self, module: &[String], name: &str, more: bool, hops: usize) -> Vec<Target> {
        if hops > MAX_HOPS {
            return Vec::new();
        }
        let Some(m) = self.modules.get(module) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        if m.children.contains(name) {
            let mut child = module.to_vec();
            child.push(name.to_string());
            found.push(Target::Module(child));
        }
        if m.types.contains(name) || (!more && m.values.contains(name)) {
            found.push(Target::Item(module.to_vec()));
        }
        for p in m.imports.get(name).into_iter().flatten() {
            found.extend(self.resolve(module, p, hops + 1));
        }
        if !found.is_empty() {
            return found;
        }
        m.globs
            .iter()
            .flat_map(|g| self.resolve(module, g, hops + 1))
            .filter_map(|t| match t {
                Target::Module(g) => Some(g),
                Target::Item(_) => None,
            })
            .flat_map(|g| self.lookup(&g, name, more, hops + 1))
            .collect()
    }
}

/// Every `.rs` file under `dir`, by its path relative to `root`; a build
/// script at the root is not part of the crate.
fn collect_texts(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_texts(root, &p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = relative(root, &p);
            if rel != "build.rs" {
                out.insert(rel, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
}

/// `p` relative to `root`, with `/` between parts.
fn relative(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap()
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The folder a file's `mod x;` declarations look in: beside lib.rs,
/// main.rs and mod.rs, in a folder named after any other file.
fn child_dir(file: &str) -> String {
    let path = Path::new(file);
    let parent = path
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = path.file_stem().unwrap().to_string_lossy();
    if ["lib", "main", "mod"].contains(&stem.as_ref()) {
        parent
    } else if parent.is_empty() {
        stem.into_owned()
    } else {
        format!("{parent}/{stem}")
    }
}

/// Whether attributes put an item under test only: `#[cfg(test)]` or
/// `#[cfg(all(.., test, ..))]`.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let syn::Meta::List(list) = &a.meta else {
            return false;
        };
        if !list.path.is_ident("cfg") {
            return false;
        }
        let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
        match tokens.as_slice() {
            [TokenTree::Ident(i)] => i == "test",
            [TokenTree::Ident(all), TokenTree::Group(g)] if all == "all" => g
                .stream()
                .into_iter()
                .any(|t| matches!(&t, TokenTree::Ident(i) if i == "test")),
            _ => false,
        }
    })
}

/// The name an item defines in its module, and whether it is a value (a
/// function, constant, static or macro) rather than something a path can
/// go through.
fn item_name(item: &syn::Item) -> Option<(String, bool)> {
    let (ident, value) = match item {
        syn::Item::Const(i) => (&i.ident, true),
        syn::Item::Enum(i) => (&i.ident, false),
        syn::Item::ExternCrate(i) => (i.rename.as_ref().map_or(&i.ident, |(_, r)| r), false),
        syn::Item::Fn(i) => (&i.sig.ident, true),
        syn::Item::Macro(i) => (i.ident.as_ref()?, true),
        syn::Item::Static(i) => (&i.ident, true),
        syn::Item::Struct(i) => (&i.ident, false),
        syn::Item::Trait(i) => (&i.ident, false),
        syn::Item::TraitAlias(i) => (&i.ident, false),
        syn::Item::Type(i) => (&i.ident, false),
        syn::Item::Union(i) => (&i.ident, false),
        _ => return None,
    };
    Some((ident.to_string(), value))
}

/// The name of the type an item defines, if it defines one.
fn type_defined(item: &syn::Item) -> Option<&syn::Ident> {
    match item {
        syn::Item::Enum(i) => Some(&i.ident),
        syn::Item::Struct(i) => Some(&i.ident),
        syn::Item::Trait(i) => Some(&i.ident),
        syn::Item::TraitAlias(i) => Some(&i.ident),
        syn::Item::Type(i) => Some(&i.ident),
        syn::Item::Union(i) => Some(&i.ident),
        _ => None,
    }
}

/// What one leaf of a `use` tree binds.
#[derive(Debug, PartialEq)]
pub enum UseLeaf {
    /// `name` bound to the path.
    Name(String, Vec<String>),
    /// Everything public in the module the path names.
    Glob(Vec<String>),
}

/// The leaves of a `use` tree, with their full paths:
/// `crate::{a::{b, c}, d}` is `crate::a::b`, `crate::a::c` and `crate::d`;
/// `self` in a group names the module the group is in.
pub fn use_leaves(tree: &syn::UseTree) -> Vec<(UseLeaf, usize)> {
    fn walk(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(UseLeaf, usize)>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                walk(&p.tree, prefix, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let line = n.ident.span().start().line;
                if n.ident == "self" {
                    if let Some(last) = prefix.last() {
                        out.push((UseLeaf::Name(last.clone(), prefix.clone()), line));
                    }
                } else {
                    let mut path = prefix.clone();
                    path.push(n.ident.to_string());
                    out.push((UseLeaf::Name(n.ident.to_string(), path), line));
                }
            }
            syn::UseTree::Rename(r) => {
                let line = r.ident.span().start().line;
                let mut path = prefix.clone();
                if r.ident != "self" {
                    path.push(r.ident.to_string());
                }
                if r.rename != "_" {
                    out.push((UseLeaf::Name(r.rename.to_string(), path), line));
                } else {
                    // `use x as _`: no name, still an import.
                    out.push((UseLeaf::Name(String::new(), path), line));
                }
            }
            syn::UseTree::Glob(g) => {
                out.push((
                    UseLeaf::Glob(prefix.clone()),
                    g.star_token.span.start().line,
                ));
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    walk(t, prefix, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(tree, &mut Vec::new(), &mut out);
    out
}

/// Reads one file: the modules it declares and the names they bind, the
/// paths its code refers to, and its identifiers, test items left out.
struct FileReader<'t> {
    modules: &'t mut BTreeMap<ModPath, Module>,
    /// Every file of the tree, to tell `x.rs` from `x/mod.rs`.
    texts: &'t BTreeMap<String, String>,
    file: String,
    /// Where `mod x;` looks, for the module being read and its parents.
    dirs: Vec<String>,
    /// The module being read (an inline `mod` pushes onto it).
    scope: ModPath,
    test_only: bool,
    /// Files its `mod x;` declarations bring in: (module, file, test only).
    pending: Vec<(ModPath, String, bool)>,
    found: Vec<Found>,
    idents: Vec<(usize, String)>,
    /// The types it defines outside test items, with their lines.
    types: Vec<(String, usize)>,
}

impl FileReader<'_> {
    fn enter(&mut self, module: ModPath) {
        let file = self.file.clone();
        let test_only = self.test_only;
        let m = self.modules.entry(module).or_default();
        m.file = file;
        m.test_only = test_only;
    }

    fn module(&mut self) -> &mut Module {
        self.modules.get_mut(&self.scope).unwrap()
    }

    fn found(&mut self, segments: Vec<String>, line: usize) {
        if segments.is_empty() {
            return;
        }
        self.found.push(Found {
            scope: self.scope.clone(),
            line,
            segments,
        });
    }

    /// The file a `mod name;` declaration reads: `name.rs`, or else
    /// `name/mod.rs`.
    fn declared_file(&self, name: &str) -> String {
        let dir = self.dirs.last().unwrap();
        let join = |f: String| {
            if dir.is_empty() {
                f
            } else {
                format!("{dir}/{f}")
            }
        };
        let flat = join(format!("{name}.rs"));
        if self.texts.contains_key(&flat) {
            flat
        } else {
            join(format!("{name}/mod.rs"))
        }
    }

    /// Paths and names inside a token stream no parser looked into (a macro
    /// call's arguments, an attribute's list): every `a::b::c` chain not
    /// after `.` (a field or method) or `$` (`$crate`), and every ident.
    fn scan_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let is_sep = |i: usize| {
            matches!((tokens.get(i), tokens.get(i + 1)),
                (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':')
        };
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(g) => {
                    self.scan_tokens(g.stream());
                    i += 1;
                }
                TokenTree::Ident(first) => {
                    let line = first.span().start().line;
                    let mut segments = vec![first.to_string()];
                    self.idents.push((line, first.to_string()));
                    let mut j = i + 1;
                    while is_sep(j) {
                        let Some(TokenTree::Ident(next)) = tokens.get(j + 2) else {
                            break;
                        };
                        self.idents
                            .push((next.span().start().line, next.to_string()));
                        segments.push(next.to_string());
                        j += 3;
                    }
                    let after = |c: char| {
                        i > 0 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == c)
                    };
                    // `::std::x` starts outside the crate.
                    let after_sep = i >= 2 && is_sep(i - 2);
                    if !after('.') && !after('$') && !after_sep {
                        self.found(segments, line);
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }
}

impl<'ast> Visit<'ast> for FileReader<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Const(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::ExternCrate(i) => &i.attrs,
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::ForeignMod(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Macro(i) => &i.attrs,
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Static(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Trait(i) => &i.attrs,
            syn::Item::TraitAlias(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            syn::Item::Union(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            _ => &[],
        };
        if is_test(attrs) {
            // A test module in its own file is read (so every file is
            // accounted for) but is no part of the product.
            if let syn::Item::Mod(m) = item {
                if m.content.is_none() {
                    let mut module = self.scope.clone();
                    module.push(m.ident.to_string());
                    let file = self.declared_file(&m.ident.to_string());
                    self.pending.push((module, file, true));
                }
            }
            return;
        }
        if let Some(ident) = type_defined(item) {
            self.types
                .push((ident.to_string(), ident.span().start().line));
        }
        if let Some((name, value)) = item_name(item) {
            let m = self.module();
            if value { &mut m.values } else { &mut m.types }.insert(name);
        }
        visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let name = m.ident.to_string();
        self.module().children.insert(name.clone());
        let mut module = self.scope.clone();
        module.push(name.clone());
        match &m.content {
            None => {
                let file = self.declared_file(&name);
                self.pending.push((module, file, self.test_only));
            }
            Some((_, items)) => {
                let dir = format!("{}/{name}", self.dirs.last().unwrap())
                    .trim_start_matches('/')
                    .to_string();
                let outer = std::mem::replace(&mut self.scope, module.clone());
                self.dirs.push(dir);
                self.enter(module);
                for a in &m.attrs {
                    self.visit_attribute(a);
                }
                for item in items {
                    self.visit_item(item);
                }
                self.dirs.pop();
                self.scope = outer;
            }
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let leading_colon = u.leading_colon.is_some();
        for (leaf, line) in use_leaves(&u.tree) {
            match leaf {
                UseLeaf::Name(name, path) => {
                    if leading_colon {
                        continue;
                    }
                    if !name.is_empty() {
                        self.module()
                            .imports
                            .entry(name)
                            .or_default()
                            .push(path.clone());
                    }
                    self.found(path, line);
                }
                UseLeaf::Glob(path) => {
                    if leading_colon {
                        continue;
                    }
                    self.module().globs.push(path.clone());
                    self.found(path, line);
                }
            }
        }
        // Its identifiers count as code (`use clap::Parser` mentions clap).
        visit::visit_item_use(self, u);
    }

    fn visit_impl_item(&mut self, i: &'ast syn::ImplItem) {
        let attrs = match i {
            syn::ImplItem::Const(i) => &i.attrs,
            syn::ImplItem::Fn(i) => &i.attrs,
            syn::ImplItem::Type(i) => &i.attrs,
            syn::ImplItem::Macro(i) => &i.attrs,
            _ => return visit::visit_impl_item(self, i),
        };
        if !is_test(attrs) {
            visit::visit_impl_item(self, i);
        }
    }

    fn visit_trait_item(&mut self, i: &'ast syn::TraitItem) {
        let attrs = match i {
            syn::TraitItem::Const(i) => &i.attrs,
            syn::TraitItem::Fn(i) => &i.attrs,
            syn::TraitItem::Type(i) => &i.attrs,
            syn::TraitItem::Macro(i) => &i.attrs,
            _ => return visit::visit_trait_item(self, i),
        };
        if !is_test(attrs) {
            visit::visit_trait_item(self, i);
        }
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if !is_test(&l.attrs) {
            visit::visit_local(self, l);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() {
            let segments = p.segments.iter().map(|s| s.ident.to_string()).collect();
            let line = p
                .segments
                .first()
                .map_or(0, |s| s.ident.span().start().line);
            self.found(segments, line);
        }
        visit::visit_path(self, p);
    }

    fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
        self.idents.push((i.span().start().line, i.to_string()));
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
        self.scan_tokens(m.tokens.clone());
    }

    fn visit_meta_list(&mut self, m: &'ast syn::MetaList) {
        self.visit_path(&m.path);
        self.scan_tokens(m.tokens.clone());
        self.scan_path_strings(m.tokens.clone());
    }
}

/// Attribute keys whose string value is a path the attribute calls:
/// serde's `with = "crate::x"`, `default = "..."` and their kin.
const PATH_VALUED_KEYS: [&str; 6] = [
    "with",
    "serialize_with",
    "deserialize_with",
    "default",
    "skip_serializing_if",
    "getter",
];

impl FileReader<'_> {
    /// Paths written as strings in an attribute (`with = "crate::x::y"`):
    /// code, though quoted.
    fn scan_path_strings(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        for w in tokens.windows(3) {
            let (TokenTree::Ident(key), TokenTree::Punct(eq), TokenTree::Literal(lit)) =
                (&w[0], &w[1], &w[2])
            else {
                continue;
            };
            if eq.as_char() != '=' || !PATH_VALUED_KEYS.contains(&key.to_string().as_str()) {
                continue;
            }
            let syn::Lit::Str(s) = syn::Lit::new(lit.clone()) else {
                continue;
            };
            if let Ok(path) = syn::parse_str::<syn::Path>(&s.value()) {
                let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
                self.found(segments, lit.span().start().line);
            }
        }
        for t in tokens {
            if let TokenTree::Group(g) = t {
                self.scan_path_strings(g.stream());
            }
        }
    }
}

/// String literals in a token stream, attributes of doc comments aside.
fn string_literals(tokens: TokenStream, out: &mut Vec<String>) {
    let mut after_hash = false;
    for t in tokens {
        match t {
            TokenTree::Group(g) => {
                let is_doc = after_hash
                    && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "doc");
                if !is_doc {
                    string_literals(g.stream(), out);
                }
                after_hash = false;
            }
            TokenTree::Punct(p) => {
                // `#` or `#!` before an attribute's brackets.
                after_hash = p.as_char() == '#' || (after_hash && p.as_char() == '!');
            }
            TokenTree::Literal(l) => {
                match syn::Lit::new(l) {
                    syn::Lit::Str(s) => out.push(s.value()),
                    syn::Lit::ByteStr(s) => {
                        out.push(String::from_utf8_lossy(&s.value()).into_owned())
                    }
                    _ => {}
                }
                after_hash = false;
            }
            TokenTree::Ident(_) => after_hash = false,
        }
    }
}

/// Every circle's members (strongly connected components of two or more),
/// each sorted, in the order of their first member.
pub fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(n) = todo.pop() {
            for m in graph.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    todo.push(m.clone());
                }
            }
        }
        seen
    };
    let mut found: Vec<Vec<String>> = Vec::new();
    for node in graph.keys() {
        let component: Vec<String> = reach(node)
            .into_iter()
            .filter(|m| reach(m).contains(node))
            .collect();
        if component.len() > 1 && !found.contains(&component) {
            found.push(component);
        }
    }
    found
}

/// One shortest way round a circle, from its first member back to it:
/// `[a, b, c, a]`.
pub fn cycle_path(graph: &Graph, members: &[String]) -> Vec<String> {
    let start = &members[0];
    let inside: BTreeSet<&String> = members.iter().collect();
    let mut came_from: BTreeMap<String, String> = BTreeMap::new();
    let mut todo = VecDeque::from([start.clone()]);
    while let Some(n) = todo.pop_front() {
        for m in graph.get(&n).into_iter().flatten() {
            if !inside.contains(m) {
                continue;
            }
            if m == start {
                let mut path = vec![start.clone()];
                let mut at = n.clone();
                while at != *start {
                    path.push(at.clone());
                    at = came_from[&at].clone();
                }
                path.push(start.clone());
                path.reverse();
                return path;
            }
            if !came_from.contains_key(m) {
                came_from.insert(m.clone(), n.clone());
                todo.push_back(m.clone());
            }
        }
    }
    members.to_vec()
}
