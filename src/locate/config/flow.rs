//! Bracketed collections with comma separators (JSON objects and arrays, YAML flow
//! collections, TOML arrays and inline tables): deleting an item with its comma, appending
//! and inserting items in the collection's own layout (one per line or inline).

use std::ops::Range;

use tree_sitter::Node;

use super::Edit;
use super::text::{alone_before, content_end, indent_at, line_start, remove_lines, trivia_after};

/// A collection as its bytes show it.
pub struct Flow {
    /// Byte of the opening bracket.
    pub open: usize,
    /// Byte of the closing bracket.
    pub close: usize,
    pub items: Vec<Range<usize>>,
    /// The comma after each item, if any.
    pub commas: Vec<Option<usize>>,
}

impl Flow {
    /// Reads a collection node: its first and last children are the brackets, named children
    /// other than comments are items, `,` tokens follow items.
    pub fn of(node: Node<'_>) -> Self {
        let mut flow = Flow {
            open: node.start_byte(),
            close: node.end_byte().saturating_sub(1),
            items: Vec::new(),
            commas: Vec::new(),
        };
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.kind() == "," {
                if let Some(last) = flow.commas.last_mut() {
                    *last = Some(child.start_byte());
                }
            } else if child.is_named() && child.kind() != "comment" {
                flow.items.push(child.byte_range());
                flow.commas.push(None);
            }
        }
        flow
    }

    /// Items sit on lines of their own.
    pub fn multiline(&self, src: &str) -> bool {
        let end = self.items.first().map_or(self.close, |r| r.start);
        src[self.open..end].contains('\n')
    }

    /// Indentation of the items' lines (`unit` deeper than the bracket's line when empty).
    pub fn item_indent(&self, src: &str, unit: &str) -> String {
        match self.items.first() {
            Some(first) if alone_before(src, first.start) => indent_at(src, first.start).to_owned(),
            _ => format!("{}{unit}", indent_at(src, self.open)),
        }
    }

    /// What goes between a comma and the next item.
    fn separator(&self, src: &str, unit: &str) -> String {
        let n = self.items.len();
        if let Some(comma) = n.checked_sub(2).and_then(|i| self.commas[i]) {
            let gap = &src[comma + 1..self.items[n - 1].start];
            if gap.trim().is_empty() {
                return gap.to_owned();
            }
        }
        if self.multiline(src) {
            format!("\n{}", self.item_indent(src, unit))
        } else {
            " ".into()
        }
    }

    /// Removes item `i` and one comma next to it; whole lines when the item has its own.
    pub fn delete(&self, src: &str, i: usize, comments: &[&str]) -> Vec<Edit> {
        let item = self.items[i].clone();
        let comma = self.commas[i];
        let n = self.items.len();
        let last = i + 1 == n || (i + 2 == n && comma.is_none());
        let own_line = alone_before(src, item.start)
            && trivia_after(src, comma.map_or(item.end, |c| c + 1), comments);
        let prev_comma = if i > 0 { self.commas[i - 1] } else { None };
        if own_line {
            let lines = remove_lines(src, item.start, item.end, last && comma.is_none());
            let mut edits = vec![Edit::new(lines, "")];
            if let (None, Some(c)) = (comma, prev_comma) {
                edits.push(Edit::new(c..c + 1, ""));
            }
            return edits;
        }
        match (comma, prev_comma) {
            (Some(c), _) => {
                let rest = &src[c + 1..content_end(src, c + 1)];
                let spaces = rest.len() - rest.trim_start().len();
                vec![Edit::new(item.start..c + 1 + spaces, "")]
            }
            (None, Some(p)) => vec![Edit::new(p..item.end, "")],
            (None, None) => {
                let rest = &src[item.end..self.close];
                let spaces = if rest.trim().is_empty() {
                    rest.len()
                } else {
                    0
                };
                vec![Edit::new(item.start..item.end + spaces, "")]
            }
        }
    }

    /// Adds `text` as the last item.
    pub fn append(&self, src: &str, text: &str, unit: &str, comments: &[&str]) -> Vec<Edit> {
        let Some(last) = self.items.last() else {
            return self.fill_empty(src, text, unit);
        };
        let sep = self.separator(src, unit);
        if let Some(Some(comma)) = self.commas.last() {
            return vec![Edit::insert(comma + 1, format!("{sep}{text},"))];
        }
        let line_end = content_end(src, last.end);
        let rest = src[last.end..line_end.min(self.close.max(last.end))].trim_start();
        let commented = line_end <= self.close && comments.iter().any(|c| rest.starts_with(c));
        if commented && self.multiline(src) {
            return vec![
                Edit::insert(last.end, ","),
                Edit::insert(line_end, format!("{sep}{text}")),
            ];
        }
        vec![Edit::insert(last.end, format!(",{sep}{text}"))]
    }

    /// Adds `text` before item `i`.
    pub fn insert_before(&self, src: &str, i: usize, text: &str, unit: &str) -> Vec<Edit> {
        let at = self.items[i].start;
        let sep = match i.checked_sub(1).and_then(|p| self.commas[p]) {
            Some(comma) if src[comma + 1..at].trim().is_empty() => src[comma + 1..at].to_owned(),
            _ if self.multiline(src) => format!("\n{}", self.item_indent(src, unit)),
            _ => " ".into(),
        };
        if sep.contains('\n') && alone_before(src, at) {
            let indent = indent_at(src, at).to_owned();
            let start = line_start(src, at) + indent.len();
            return vec![Edit::insert(start, format!("{text},\n{indent}"))];
        }
        vec![Edit::insert(at, format!("{text},{sep}"))]
    }

    /// The first item of an empty collection.
    fn fill_empty(&self, src: &str, text: &str, unit: &str) -> Vec<Edit> {
        let inner = self.open + 1..self.close;
        let gap = &src[inner.clone()];
        if gap.contains('\n') {
            let indent = self.item_indent(src, unit);
            return vec![Edit::insert(self.open + 1, format!("\n{indent}{text}"))];
        }
        if gap.is_empty() {
            return vec![Edit::insert(self.open + 1, text)];
        }
        vec![Edit::new(inner, format!(" {text} "))]
    }
}
