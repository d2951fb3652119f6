//! The outline of a parsed file: its named structures with kind, name, qualified name
//! (`Outer.inner`, the chain of enclosing named structures), span, identity and content hash.
//! Anonymous nodes are not listed, so the outline of a large file stays readable.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::lang::{NameRule, Provider, hash, node_text};

/// One named structure.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Item {
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    /// Byte range in the file.
    #[serde(skip)]
    pub span: Range<usize>,
    pub start_line: usize,
    pub end_line: usize,
    pub identity: String,
    pub hash: String,
    /// Number of enclosing named structures.
    pub depth: usize,
}

/// The name of `node` when its kind is a named structure of `provider`.
pub fn name_of(provider: &Provider, node: Node<'_>, source: &[u8]) -> Option<String> {
    let structure = provider.structure(node.kind())?;
    let name = match structure.name {
        NameRule::Field(field) => node
            .child_by_field_name(field)
            .map(|n| node_text(n, source).to_owned()),
        NameRule::Custom(f) => f(node, source),
    }?;
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_owned())
}

/// Last line a node covers (a node ending at the start of a line does not cover that line).
pub fn end_line(node: Node<'_>) -> usize {
    let (start, end) = (node.start_position(), node.end_position());
    if end.column == 0 && end.row > start.row {
        end.row
    } else {
        end.row + 1
    }
}

/// Every named structure, in document order.
pub fn outline(provider: &Provider, tree: &Tree, source: &[u8]) -> Vec<Item> {
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
        if let Some(name) = name_of(provider, node, source) {
            let qualified = match scope.last() {
                Some((_, outer)) => format!("{outer}.{name}"),
                None => name.clone(),
            };
            let text = &source[node.byte_range()];
            items.push(Item {
                kind: node.kind().to_owned(),
                identity: hash::identity(node.kind(), &qualified, text),
                hash: hash::content_hash(text),
                name,
                span: node.byte_range(),
                start_line: node.start_position().row + 1,
                end_line: end_line(node),
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
