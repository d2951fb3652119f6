//! The outline of a parsed file: its named structures with kind, name, qualified name
//! (`Outer.inner`, the chain of enclosing named structures), span, identity and content hash.
//! Anonymous nodes are not listed, so the outline of a large file stays readable.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::lang::extent::{extent, trimmed_end};
use crate::lang::{NameRule, Provider, Structure, hash, node_text};

/// One named structure.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Item {
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    /// Byte range of the node (without trailing whitespace): what a replacement covers.
    #[serde(skip)]
    pub span: Range<usize>,
    /// The span widened over what belongs to the structure (`export`, attributes, comments
    /// directly above, a closing `;` or `,`): what a deletion removes and insertions go beside.
    #[serde(skip)]
    pub extent: Range<usize>,
    pub start_line: usize,
    pub end_line: usize,
    pub identity: String,
    pub hash: String,
    /// Number of enclosing named structures.
    pub depth: usize,
}

/// The name of `node` under the naming rule of its structure kind.
fn name_of(structure: &Structure, node: Node<'_>, source: &[u8]) -> Option<String> {
    let name = match structure.name {
        NameRule::Field(field) => node
            .child_by_field_name(field)
            .map(|n| node_text(n, source).to_owned()),
        NameRule::Custom(f) => f(node, source),
    }?;
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_owned())
}

/// The structure rule of every node kind of the tree's language, indexed by kind id.
fn kind_table<'p>(provider: &'p Provider, tree: &Tree) -> Vec<Option<&'p Structure>> {
    let language = tree.language();
    let mut table = vec![None; language.node_kind_count().max(1)];
    for structure in provider.structures {
        let id = usize::from(language.id_for_node_kind(structure.kind, true));
        if id != 0 && id < table.len() {
            table[id] = Some(structure);
        }
    }
    table
}

/// Last line of a structure whose bytes end at `end` (1-based).
fn end_line(node: Node<'_>, end: usize, source: &[u8]) -> usize {
    let trimmed_breaks = source[end..node.end_byte()]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let last = node.end_position();
    let row = last.row - trimmed_breaks;
    if trimmed_breaks == 0 && last.column == 0 && last.row > node.start_position().row {
        row
    } else {
        row + 1
    }
}

/// Every named structure, in document order.
pub fn outline(provider: &Provider, tree: &Tree, source: &[u8]) -> Vec<Item> {
    let table = kind_table(provider, tree);
    let mut items = Vec::new();
    let mut scope: Vec<(usize, String)> = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        while scope
            .last()
            .is_some_and(|(end, _)| node.start_byte() >= *end)
        {
            scope.pop();
        }
        let structure = table.get(usize::from(node.kind_id())).copied().flatten();
        if let Some(name) = structure.and_then(|s| name_of(s, node, source)) {
            let qualified = match scope.last() {
                Some((_, outer)) => format!("{outer}.{name}"),
                None => name.clone(),
            };
            let end = trimmed_end(node, source);
            let text = &source[node.start_byte()..end];
            items.push(Item {
                kind: node.kind().to_owned(),
                identity: hash::identity(node.kind(), &qualified, text),
                hash: hash::content_hash(text),
                name,
                span: node.start_byte()..end,
                extent: extent(node, source),
                start_line: node.start_position().row + 1,
                end_line: end_line(node, end, source),
                depth: scope.len(),
                qualified_name: qualified.clone(),
            });
            scope.push((node.end_byte(), qualified));
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
    items
}
