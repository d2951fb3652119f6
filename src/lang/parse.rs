//! Parsing with a provider's grammar: one reusable parser per language per thread, error
//! counts and the first error's location.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::{InputEdit, Node, Parser, Point, Tree};

use crate::error::{Error, Result};
use crate::lang::{Location, Provider};

thread_local! {
    static PARSERS: RefCell<HashMap<&'static str, Parser>> = RefCell::new(HashMap::new());
}

/// Parses `source` (optionally reusing an edited `old` tree for an incremental parse).
pub fn parse(provider: &'static Provider, source: &[u8], old: Option<&Tree>) -> Result<Tree> {
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        if !parsers.contains_key(provider.name) {
            let mut parser = Parser::new();
            parser.set_language(&(provider.language)()).map_err(|e| {
                Error::internal(format!("the {} grammar does not load: {e}", provider.name))
            })?;
            parsers.insert(provider.name, parser);
        }
        let parser = parsers
            .get_mut(provider.name)
            .ok_or_else(|| Error::internal("parser cache"))?;
        parser
            .parse(source, old)
            .ok_or_else(|| Error::internal(format!("the {} parser gave no tree", provider.name)))
    })
}

/// Number of error and missing nodes in the tree.
pub fn error_count(tree: &Tree) -> usize {
    if !tree.root_node().has_error() {
        return 0;
    }
    let mut count = 0;
    visit_errors(tree.root_node(), &mut |_| count += 1);
    count
}

/// The first error or missing node, in document order.
pub fn first_error(tree: &Tree) -> Option<Location> {
    let mut first = None;
    visit_errors(tree.root_node(), &mut |node| {
        if first.is_none() {
            first = Some(Location::of(node));
        }
    });
    first
}

fn visit_errors(node: Node<'_>, found: &mut impl FnMut(Node<'_>)) {
    if node.is_error() || node.is_missing() {
        found(node);
        if node.is_missing() {
            return;
        }
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.has_error() || child.is_missing() {
            visit_errors(child, found);
        }
    }
}

/// How many bytes of source the trees kept for the exit may cover, besides one tree of any
/// size (the single-edit path's file, retired after the small trees of its regions); past it
/// a command frees as it goes, so that memory follows the largest file, not the sum of all.
const DEFER_LIMIT: usize = 64 << 10;

thread_local! {
    /// Whether this thread leaves retired trees to the exit (see [`defer_frees_to_exit`]).
    static DEFER_FREES: Cell<bool> = const { Cell::new(false) };
    /// The bytes of source the trees this thread kept cover within the limit, and whether the
    /// one tree beyond it is taken.
    static KEPT: Cell<(usize, bool)> = const { Cell::new((0, false)) };
}

/// Called once by the one-shot binary's main thread (not the MCP server, which lives on):
/// trees that thread hands to [`retire`] are then left to the process's exit instead of being
/// freed one node at a time (a millisecond or more per large file, on the path of every
/// edit), up to [`DEFER_LIMIT`]. Other threads (the workers of a many-file plan, whose trees
/// would add up) and library callers keep the default: trees are freed as usual.
pub fn defer_frees_to_exit() {
    DEFER_FREES.with(|defer| defer.set(true));
}

/// Drops a tree that is no longer needed, or leaves it to the exit (see above). A kept tree is
/// forgotten, not stored: a thread-local store is dropped at exit by the thread's destructors,
/// which would free every node after all.
pub fn retire(tree: Tree) {
    if !DEFER_FREES.with(Cell::get) {
        return drop(tree);
    }
    let len = tree.root_node().end_byte();
    let keep = KEPT.with(|kept| {
        let (bytes, beyond) = kept.get();
        let now = match bytes + len <= DEFER_LIMIT {
            true => (bytes + len, beyond),
            false if !beyond => (bytes, true),
            false => return false,
        };
        kept.set(now);
        true
    });
    match keep {
        true => std::mem::forget(tree),
        false => drop(tree),
    }
}

/// The syntax errors of a parsed file: the tree's error and missing nodes plus what the
/// language's own rule rejects and tree-sitter does not: Python indentation (`lang::indent`),
/// C and C++'s top-level blocks and statement keywords as types (`lang::cfamily`);
/// for TOML, the spec's parser (`toml_edit`: a key defined twice, a bad value), counted as one
/// error when the tree has none. How many, and the first one.
pub fn syntax_errors(provider: &Provider, tree: &Tree, source: &[u8]) -> (usize, Option<Location>) {
    let (count, first) = grammar_errors(provider, tree, source);
    let (extra, at) = layout_errors(provider, tree, source);
    (count + extra, Location::earlier(first, at))
}

/// The errors of the layout rule alone: Python's indentation (`lang::indent`), which reads
/// every token of the file; none for other languages.
pub fn layout_errors(provider: &Provider, tree: &Tree, source: &[u8]) -> (usize, Option<Location>) {
    match provider.name {
        "python" => crate::lang::indent::python_errors(tree, source),
        _ => (0, None),
    }
}

/// [`syntax_errors`] but the layout rule: the tree's errors and the rules that look at the
/// top level or at a few node kinds.
pub fn grammar_errors(
    provider: &Provider,
    tree: &Tree,
    source: &[u8],
) -> (usize, Option<Location>) {
    let (mut count, mut first) = match provider.name {
        "rust" | "c" | "cpp" => errors_outside(tree, source, provider.name),
        _ => (error_count(tree), first_error(tree)),
    };
    if provider.name == "ruby" {
        let (extra, at) = ruby_stray_keywords(tree, source);
        count += extra;
        first = first.or(at);
    }
    if provider.name == "bash" {
        let (extra, at) = crate::lang::shell::stray_closers(tree, source);
        count += extra;
        first = first.or(at);
    }
    if provider.name == "javascript" {
        let (extra, at) = crate::lang::javascript::early_errors(tree, source);
        count += extra;
        first = first.or(at);
    }
    if matches!(provider.name, "c" | "cpp") {
        let (extra, at) = crate::lang::cfamily::errors(tree, source);
        count += extra;
        first = first.or(at);
    }
    if provider.name == "java" {
        let (extra, at) = java_packages(tree);
        count += extra;
        first = first.or(at);
    }
    if provider.name == "go" {
        let (extra, at) = go_top_level(tree);
        count += extra;
        first = first.or(at);
    }
    if provider.name == "toml"
        && count == 0
        && let Some(at) = toml_error(source)
    {
        return (1, Some(at));
    }
    (count, first)
}

/// What the languages' whole-scope rules count (JavaScript's bindings, Java's package
/// declarations), which a region may hold only part of: a region whose list changes with
/// the edit is decided on the whole file (`lang::regional`).
pub fn scope_facts(provider: &Provider, tree: &Tree, source: &[u8]) -> Vec<String> {
    match provider.name {
        "javascript" => crate::lang::javascript::bindings(tree, source),
        "java" => crate::lang::top_level(tree, "package_declaration")
            .iter()
            .map(|_| "package".to_owned())
            .collect(),
        _ => Vec::new(),
    }
}

/// Errors the grammar reports where the compiler does not: inside a Rust `macro_rules!`
/// (whose rules are token trees: `rustc` only checks that the delimiters balance, and an
/// unbalanced one is an error outside the definition too), and C's null directive (a `#`
/// alone on its line).
fn errors_outside(tree: &Tree, source: &[u8], language: &str) -> (usize, Option<Location>) {
    let (mut count, mut first) = (0, None);
    let ignored = |node: Node<'_>| {
        let text = source.get(node.byte_range()).unwrap_or_default();
        if language != "rust" {
            return text.trim_ascii() == b"#" && alone_on_its_line(source, node.byte_range());
        }
        let mut up = node.parent();
        while let Some(n) = up {
            if n.kind() == "macro_definition" {
                return balanced(source.get(n.byte_range()).unwrap_or_default());
            }
            up = n.parent();
        }
        false
    };
    visit_errors(tree.root_node(), &mut |node| {
        if !ignored(node) {
            count += 1;
            first.get_or_insert(Location::of(node));
        }
    });
    (count, first)
}

/// Java's compilation unit holds at most one package declaration (tree-sitter-java takes
/// any number).
fn java_packages(tree: &Tree) -> (usize, Option<Location>) {
    let packages = crate::lang::top_level(tree, "package_declaration");
    let extra = packages.get(1..).unwrap_or_default();
    (extra.len(), extra.first().map(|n| Location::of(*n)))
}

/// Go's source file rule, which tree-sitter-go's recovery does not enforce: one package
/// clause, first, then declarations only (a statement at top level is an error).
fn go_top_level(tree: &Tree) -> (usize, Option<Location>) {
    const DECLARATIONS: &[&str] = &[
        "package_clause",
        "import_declaration",
        "function_declaration",
        "method_declaration",
        "type_declaration",
        "const_declaration",
        "var_declaration",
        "comment",
        "ERROR",
    ];
    let root = tree.root_node();
    let mut cursor = root.walk();
    let mut code = root
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment");
    let (mut count, mut first) = (0, None);
    let head = code.next();
    if head.is_none_or(|h| h.kind() != "package_clause") {
        count += 1;
        first = Some(head.map_or(Location::of(root), Location::of));
    }
    for node in code.filter(|c| !DECLARATIONS.contains(&c.kind()) || c.kind() == "package_clause") {
        count += 1;
        first.get_or_insert(Location::of(node));
    }
    (count, first)
}

/// Ruby's block keywords where no block is open: tree-sitter-ruby reads a stray `end` (an
/// edit that dropped a `def` or doubled an `end`) as a method call named `end`, which Ruby's
/// parser rejects. A method named so after `.`, `&.` or `::`, or in `def`, is not counted.
fn ruby_stray_keywords(tree: &Tree, source: &[u8]) -> (usize, Option<Location>) {
    const KEYWORDS: &[&[u8]] = &[
        b"end", b"else", b"elsif", b"ensure", b"rescue", b"then", b"when",
    ];
    crate::lang::count_stray(tree, source, |node, text| {
        node.kind() == "identifier" && KEYWORDS.contains(&text) && !ruby_method_name(node)
    })
}

fn ruby_method_name(node: Node<'_>) -> bool {
    let after_dot = node
        .prev_sibling()
        .is_some_and(|p| matches!(p.kind(), "." | "&." | "::"));
    let declared = node
        .parent()
        .is_some_and(|p| matches!(p.kind(), "method" | "singleton_method" | "alias" | "undef"));
    after_dot || declared
}

/// Whether `range` is all its line holds but blanks (a null directive, not a stray `#`).
fn alone_on_its_line(source: &[u8], range: std::ops::Range<usize>) -> bool {
    let start = source[..range.start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = source[range.end..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(source.len(), |i| range.end + i);
    source[start..end].trim_ascii() == source[range].trim_ascii()
}

/// Whether the brackets of a token tree pair up (string and char literals are skipped).
fn balanced(text: &[u8]) -> bool {
    let mut stack = Vec::new();
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
            }
            open @ (b'(' | b'[' | b'{') => stack.push(open),
            close @ (b')' | b']' | b'}') => {
                let want = match close {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if stack.pop() != Some(want) {
                    return false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    stack.is_empty()
}

/// Where `toml_edit` refuses a TOML document, if it does.
fn toml_error(source: &[u8]) -> Option<Location> {
    let text = std::str::from_utf8(source).ok()?;
    let error = text.parse::<toml_edit::DocumentMut>().err()?;
    let byte = error.span().map_or(0, |s| s.start).min(source.len());
    let line_start = source[..byte]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    Some(Location {
        line: source[..byte].iter().filter(|&&b| b == b'\n').count() + 1,
        column: byte - line_start + 1,
        byte,
    })
}

/// The row/column of every byte offset in `offsets` (ascending), counting rows by `\n`.
fn points(text: &[u8], offsets: &[usize]) -> Vec<Point> {
    let (mut row, mut line_start, mut pos) = (0, 0, 0);
    offsets
        .iter()
        .map(|&at| {
            for (i, &b) in text[pos..at].iter().enumerate() {
                if b == b'\n' {
                    row += 1;
                    line_start = pos + i + 1;
                }
            }
            pos = at;
            Point {
                row,
                column: at - line_start,
            }
        })
        .collect()
}

/// The source tree with every splice applied as an edit, ready for an incremental parse.
pub fn edited(
    tree: &Tree,
    before: &[u8],
    after: &[u8],
    ranges: &[(Range<usize>, Range<usize>)],
) -> Tree {
    let mut tree = tree.clone();
    let offsets: Vec<usize> = ranges.iter().flat_map(|(o, _)| [o.start, o.end]).collect();
    let pts = points(before, &offsets);
    for (i, (old, new)) in ranges.iter().enumerate().rev() {
        let (start, old_end) = (pts[2 * i], pts[2 * i + 1]);
        let inserted = &after[new.clone()];
        let new_end = match inserted.iter().rposition(|&b| b == b'\n') {
            Some(last) => Point {
                row: start.row + inserted.iter().filter(|&&b| b == b'\n').count(),
                column: inserted.len() - last - 1,
            },
            None => Point {
                row: start.row,
                column: start.column + inserted.len(),
            },
        };
        tree.edit(&InputEdit {
            start_byte: old.start,
            old_end_byte: old.end,
            new_end_byte: old.start + inserted.len(),
            start_position: start,
            old_end_position: old_end,
            new_end_position: new_end,
        });
    }
    tree
}
