//! Name rules that a field lookup cannot express: declarators, keys, headings, selectors.

use tree_sitter::Node;

use crate::lang::node_text;

/// Follows `declarator` fields down to the identifier (C and C++ functions, pointers, arrays).
pub fn declarator(node: Node<'_>, source: &[u8]) -> Option<String> {
    let mut current = node.child_by_field_name("declarator")?;
    loop {
        match current.child_by_field_name("declarator") {
            Some(inner) => current = inner,
            None => return Some(node_text(current, source).to_owned()),
        }
    }
}
