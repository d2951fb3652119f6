//! Syntax providers: one registry, keyed by file extension and well-known file names, of
//! tree-sitter grammars and the node kinds each language calls named structures.
//!
//! A file with no provider still takes text and line edits; structural requests on it fail
//! with `no_provider`.

pub mod api;
pub mod cfamily;
pub mod extent;
pub mod gate;
pub mod hash;
pub mod indent;
pub mod javascript;
pub mod languages;
pub mod names;
pub mod notation;
pub mod outline;
pub mod parse;
pub mod region;
pub mod regional;
pub mod residue;
pub mod shell;
pub mod symbols;

use tree_sitter::{Language, Node};

/// How a structure's name is read from its node.
#[derive(Clone, Copy)]
pub enum NameRule {
    /// The text of the child in this field (most grammars: `name`).
    Field(&'static str),
    /// A function of the node and the source bytes (declarators, keys, headings, ...).
    Custom(NameFn),
    /// A function that names the node by the unchanged text of one node inside it, like
    /// `Field` under conditions a field cannot state: the name occurs in the structure's bytes.
    Verbatim(NameFn),
}

/// A function naming a structure node from the source bytes.
pub type NameFn = fn(Node<'_>, &[u8]) -> Option<String>;

/// A node kind that is a named structure (function, method, class, key, heading, ...).
#[derive(Clone, Copy)]
pub struct Structure {
    pub kind: &'static str,
    pub name: NameRule,
}

impl Structure {
    pub const fn new(kind: &'static str, name: NameRule) -> Self {
        Self { kind, name }
    }
}

/// One language.
pub struct Provider {
    /// Stable name (`python`, `tsx`, ...).
    pub name: &'static str,
    /// Extensions without the dot, lower case.
    pub extensions: &'static [&'static str],
    /// Whole file names (`Makefile`-style), matched exactly.
    pub file_names: &'static [&'static str],
    pub language: fn() -> Language,
    pub structures: &'static [Structure],
}

impl Provider {
    /// The rule naming nodes of `kind`, when `kind` is a named structure.
    pub fn structure(&self, kind: &str) -> Option<&Structure> {
        self.structures.iter().find(|s| s.kind == kind)
    }

    /// Whether every structure's name occurs verbatim in its bytes (all rules `Field` or
    /// `Verbatim`): then only structures whose bytes hold a name can bear it, and a symbol is
    /// found on the outline near the name's occurrences (`locate::node::find_in`).
    pub fn names_are_verbatim(&self) -> bool {
        self.structures
            .iter()
            .all(|s| !matches!(s.name, NameRule::Custom(_)))
    }
}

/// The provider of a path (root-relative or absolute), by file name first, then extension.
pub fn provider_for(path: &str) -> Option<&'static Provider> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if let Some(p) = languages::PROVIDERS
        .iter()
        .find(|p| p.file_names.contains(&name))
    {
        return Some(p);
    }
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    languages::PROVIDERS
        .iter()
        .find(|p| p.extensions.contains(&ext.as_str()))
}

/// Text of a node (lossy only for invalid UTF-8, which targets never contain).
pub fn node_text<'a>(node: Node<'_>, source: &'a [u8]) -> &'a str {
    std::str::from_utf8(&source[node.byte_range()]).unwrap_or_default()
}

/// Where a syntax error sits: 1-based line and column (in bytes), and the byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Location {
    pub line: usize,
    pub column: usize,
    pub byte: usize,
}

/// The nodes of `tree` that `stray` picks (a word the language rejects where the grammar
/// takes it: a stray closing keyword read as a command or a call): how many, and the first.
pub(crate) fn count_stray(
    tree: &tree_sitter::Tree,
    source: &[u8],
    mut stray: impl FnMut(tree_sitter::Node<'_>, &[u8]) -> bool,
) -> (usize, Option<Location>) {
    let (mut count, mut first) = (0, None);
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        if stray(node, source.get(node.byte_range()).unwrap_or_default()) {
            count += 1;
            first.get_or_insert(Location::of(node));
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    (count, first)
}

impl Location {
    /// Where `node` starts.
    pub fn of(node: tree_sitter::Node<'_>) -> Self {
        let p = node.start_position();
        Self {
            line: p.row + 1,
            column: p.column + 1,
            byte: node.start_byte(),
        }
    }

    /// The one of `a` and `b` that comes first in the file.
    pub fn earlier(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        match (a, b) {
            (Some(a), Some(b)) => Some(if b.byte < a.byte { b } else { a }),
            (a, b) => a.or(b),
        }
    }
}

/// The root's named children of `kind`, in order.
pub(crate) fn top_level<'t>(tree: &'t tree_sitter::Tree, kind: &str) -> Vec<Node<'t>> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|c| c.kind() == kind)
        .collect()
}

#[cfg(test)]
mod tests;
