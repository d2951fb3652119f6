//! What belongs to a structure beyond its node, so that deleting it or inserting beside it
//! leaves nothing dangling: the `export` that wraps it, the `const` of a lone declarator, the
//! attributes and comments on the lines directly above it, and the `;` or `,` that ends it.
//! A replacement still covers only the node itself.

use std::ops::Range;

use tree_sitter::Node;

/// Sibling kinds that belong to the declaration right below them.
const ATTACHED: &[&str] = &[
    "attribute_item",
    "line_comment",
    "block_comment",
    "comment",
    "decorator",
];

/// The end of a node without trailing whitespace (some grammars let a node run into the
/// indentation of the next line).
pub fn trimmed_end(node: Node<'_>, source: &[u8]) -> usize {
    let (start, mut end) = (node.start_byte(), node.end_byte());
    while end > start && source[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}

/// The node that carries `node` as its only declaration (`export …`, `const x = …;`).
fn outermost(node: Node<'_>) -> Node<'_> {
    let mut outer = node;
    while let Some(parent) = outer.parent() {
        let wraps = match parent.kind() {
            "export_statement" => parent.child_by_field_name("declaration") == Some(outer),
            "lexical_declaration" | "variable_declaration" => {
                outer.kind() == "variable_declarator" && parent.named_child_count() == 1
            }
            _ => false,
        };
        if !wraps {
            break;
        }
        outer = parent;
    }
    outer
}

/// Whether only whitespace, with at most one line break, lies in `gap`.
fn adjacent(gap: &[u8]) -> bool {
    gap.iter().all(u8::is_ascii_whitespace) && gap.iter().filter(|&&b| b == b'\n').count() <= 1
}

/// Whether the node starts its line.
fn starts_line(node: Node<'_>, source: &[u8]) -> bool {
    let before = &source[..node.start_byte()];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |i| i + 1);
    before[line_start..]
        .iter()
        .all(|&b| b == b' ' || b == b'\t')
}

/// The structure's extent: its outermost carrier, widened over attached leading siblings and
/// a terminating `;` or separating `,`.
pub fn extent(node: Node<'_>, source: &[u8]) -> Range<usize> {
    let outer = outermost(node);
    let mut start = outer.start_byte();
    let mut end = trimmed_end(outer, source);
    let mut took_leading = false;
    let mut prev = outer.prev_sibling();
    while let Some(p) = prev.filter(|p| ATTACHED.contains(&p.kind())) {
        if !adjacent(&source[p.end_byte()..start]) || !starts_line(p, source) {
            break;
        }
        start = p.start_byte();
        took_leading = true;
        prev = p.prev_sibling();
    }
    match outer.next_sibling() {
        Some(next)
            if matches!(next.kind(), ";" | ",")
                && !source[end..next.start_byte()].contains(&b'\n') =>
        {
            end = next.end_byte();
        }
        _ => {
            if let Some(comma) = outer
                .prev_sibling()
                .filter(|p| p.kind() == "," && !took_leading)
            {
                start = comma.start_byte();
            }
        }
    }
    start..end
}
