//! Parsing with a provider's grammar: one reusable parser per language per thread, error
//! counts and the first error's location.

use std::cell::RefCell;
use std::collections::HashMap;

use tree_sitter::{Node, Parser, Tree};

use crate::error::{Error, Result};
use crate::lang::Provider;

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

/// Where a syntax error sits: 1-based line and column (in bytes), and the byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Location {
    pub line: usize,
    pub column: usize,
    pub byte: usize,
}

fn location(node: Node<'_>) -> Location {
    let p = node.start_position();
    Location {
        line: p.row + 1,
        column: p.column + 1,
        byte: node.start_byte(),
    }
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
            first = Some(location(node));
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

static DEFER_FREES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

thread_local! {
    static RETIRED: RefCell<Vec<Tree>> = const { RefCell::new(Vec::new()) };
}

/// Called once by the binary: trees handed to [`retire`] are then kept until the process
/// exits instead of being freed one node at a time (a few milliseconds per large file, on the
/// path of every edit). Library callers keep the default: trees are freed as usual.
pub fn defer_frees_to_exit() {
    DEFER_FREES.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Drops a tree that is no longer needed, or keeps it for the exit (see above).
pub fn retire(tree: Tree) {
    if DEFER_FREES.load(std::sync::atomic::Ordering::Relaxed) {
        RETIRED.with(|r| r.borrow_mut().push(tree));
    } else {
        drop(tree);
    }
}

/// The syntax errors of a parsed file: the tree's error and missing nodes plus what the
/// language's own rule rejects and tree-sitter does not (Python indentation, see
/// `lang::indent`); how many, and the first one.
pub fn syntax_errors(provider: &Provider, tree: &Tree, source: &[u8]) -> (usize, Option<Location>) {
    let (mut count, mut first) = (error_count(tree), first_error(tree));
    if provider.name == "python" {
        let (extra, at) = crate::lang::indent::python_errors(tree, source);
        count += extra;
        first = match (first, at) {
            (Some(a), Some(b)) => Some(if b.byte < a.byte { b } else { a }),
            (a, b) => a.or(b),
        };
    }
    (count, first)
}
