//! Writing YAML: a value set in its context (scalar, flow or block), an item appended to a
//! sequence, an entry deleted with its lines, and a key created in the mapping's layout. The
//! walk that finds the nodes is in `yaml`.

use serde_json::Value;
use tree_sitter::Node;

use super::super::flow::Flow;
use super::super::text::{
    alone_before, column, content_end, line_start, next_line, remove_lines, trimmed_end,
};
use super::super::yaml_value::{self as render, Quote};
use super::{COMMENTS, Entry, content, entries, is_mapping, key_of};
use super::{ConfigPath, Edit, Segment, missing};
use crate::error::Result;

/// The quote style of a scalar value.
fn quote_of(value: Option<Node<'_>>) -> Quote {
    match value.and_then(content).map(|n| n.kind()) {
        Some("double_quote_scalar") => Quote::Double,
        Some("single_quote_scalar") => Quote::Single,
        _ => Quote::Plain,
    }
}

/// The colon ending a pair's key.
fn colon_end(entry: Node<'_>) -> Option<usize> {
    let mut cursor = entry.walk();
    let colon = entry.children(&mut cursor).find(|c| c.kind() == ":");
    colon.map(|c| c.end_byte())
}

pub(super) fn set(
    src: &str,
    old: Option<Node<'_>>,
    holder: Option<(Node<'_>, Entry<'_>, usize)>,
    value: &Value,
    unit: &str,
) -> Vec<Edit> {
    let in_flow = holder.is_some_and(|(c, _, _)| c.kind().starts_with("flow"));
    let entry = holder.map(|(_, e, _)| e.node);
    let pair_colon = entry
        .filter(|e| e.kind() == "block_mapping_pair")
        .and_then(colon_end);
    let Some(old) = old else {
        // `key:` with no value: the value goes after the colon.
        let at = entry
            .and_then(colon_end)
            .or(entry.map(|e| e.end_byte()))
            .unwrap_or(0);
        let key_column = entry.map_or(0, |e| column(src, e.start_byte()));
        let indent = format!("{}{unit}", " ".repeat(key_column));
        let text = if in_flow {
            format!(" {}", render::flow(value, Quote::Plain, true))
        } else if render::is_block(value) {
            format!("\n{indent}{}", render::block(value, &indent, unit))
        } else {
            format!(" {}", render::scalar(value, Quote::Plain, &indent))
        };
        return vec![keep_trailing_comment(src, Edit::insert(at, text))];
    };
    set_value(src, old, entry, pair_colon, in_flow, value, unit)
        .into_iter()
        .map(|e| keep_trailing_comment(src, e))
        .collect()
}

/// The edit replacing the existing value `old`.
fn set_value(
    src: &str,
    old: Node<'_>,
    entry: Option<Node<'_>>,
    pair_colon: Option<usize>,
    in_flow: bool,
    value: &Value,
    unit: &str,
) -> Vec<Edit> {
    let old_is_block = old.kind() == "block_node"
        && content(old).is_some_and(|n| matches!(n.kind(), "block_mapping" | "block_sequence"));
    let range = old.start_byte()..trimmed_end(src, old.end_byte());
    if in_flow || !render::is_block(value) {
        let text = if in_flow {
            render::flow(value, quote_of(Some(old)), true)
        } else {
            let indent = content_indent(src, old, entry, unit);
            render::scalar(value, quote_of(Some(old)), &indent)
        };
        return match pair_colon {
            Some(colon) if old_is_block => vec![Edit::new(colon..range.end, format!(" {text}"))],
            _ => vec![Edit::new(range, text)],
        };
    }
    match pair_colon {
        Some(colon) if !old_is_block => {
            let key_column = entry.map_or(0, |e| column(src, e.start_byte()));
            let indent = format!("{}{unit}", " ".repeat(key_column));
            let text = format!("\n{indent}{}", render::block(value, &indent, unit));
            vec![Edit::new(colon..range.end, text)]
        }
        _ => {
            let indent = " ".repeat(column(src, range.start));
            vec![Edit::new(range, render::block(value, &indent, unit))]
        }
    }
}

/// A value replaced by several lines while a comment follows it on its line: the comment
/// moves to the end of the first new line (`key: |-  # note`, `key:  # note`), where it
/// stays a comment instead of becoming the end of the last line.
fn keep_trailing_comment(src: &str, edit: Edit) -> Edit {
    let Some((first, rest)) = edit.text.split_once('\n') else {
        return edit;
    };
    let line_end = content_end(src, edit.range.end);
    let after = &src[edit.range.end..line_end];
    let comment = after.trim_start();
    if !comment.starts_with('#') {
        return edit;
    }
    let gap = &after[..after.len() - comment.len()];
    let gap = if gap.is_empty() { " " } else { gap };
    let first = first.trim_end();
    Edit::new(
        edit.range.start..line_end,
        format!("{first}{gap}{comment}\n{rest}"),
    )
}

/// Where the lines of a literal block scalar go: those of the block scalar replaced, else one
/// unit deeper than the key or the `-`.
fn content_indent(src: &str, old: Node<'_>, entry: Option<Node<'_>>, unit: &str) -> String {
    if content(old).is_some_and(|n| n.kind() == "block_scalar") {
        let mut at = next_line(src, old.start_byte());
        while at < old.end_byte() {
            let line = &src[at..content_end(src, at)];
            if !line.trim().is_empty() {
                let body = line.trim_start_matches(' ');
                return " ".repeat(line.len() - body.len());
            }
            at = next_line(src, at);
        }
    }
    let column = entry.map_or(0, |e| column(src, e.start_byte()));
    format!("{}{unit}", " ".repeat(column))
}

pub(super) fn append(src: &str, seq: Node<'_>, value: &Value, unit: &str) -> Vec<Edit> {
    if seq.kind() == "flow_sequence" {
        let text = render::flow(value, Quote::Plain, true);
        return Flow::of(seq).append(src, &text, unit, COMMENTS);
    }
    let items = entries(seq);
    let Some(last) = items.last() else {
        return Vec::new();
    };
    let dash = last.node.start_byte();
    let indent = " ".repeat(column(src, dash));
    let item = if render::is_block(value) {
        render::block(value, &format!("{indent}  "), unit)
    } else {
        render::scalar(value, Quote::Plain, &format!("{indent}  "))
    };
    let at = content_end(src, trimmed_end(src, last.node.end_byte()));
    vec![Edit::insert(at, format!("\n{indent}- {item}"))]
}

pub(super) fn delete(
    src: &str,
    collection: Node<'_>,
    i: usize,
    owner: Option<Node<'_>>,
) -> Vec<Edit> {
    if collection.kind().starts_with("flow") {
        return Flow::of(collection).delete(src, i, COMMENTS);
    }
    let list = entries(collection);
    let entry = list[i].node;
    let empty = if is_mapping(collection) { "{}" } else { "[]" };
    if !alone_before(src, entry.start_byte()) {
        return match list.get(i + 1) {
            Some(next) => vec![Edit::new(entry.start_byte()..next.node.start_byte(), "")],
            None => vec![Edit::new(
                entry.start_byte()..trimmed_end(src, entry.end_byte()),
                empty,
            )],
        };
    }
    let last = i + 1 == list.len();
    let lines = remove_lines(src, entry.start_byte(), entry.end_byte(), last);
    let mut edits = vec![Edit::new(lines, "")];
    if let (1, Some(colon)) = (list.len(), owner.and_then(colon_end)) {
        edits.push(Edit::insert(colon, format!(" {empty}")));
    }
    edits
}

pub(super) fn create(
    src: &str,
    container: Option<Node<'_>>,
    path: &ConfigPath,
    depth: usize,
    value: &Value,
    unit: &str,
) -> Result<Vec<Edit>> {
    let mut keys = Vec::new();
    for segment in &path.0[depth..] {
        let Segment::Key(k) = segment else {
            return Err(missing(path, depth, "does not exist")
                .hint("--create-missing creates keys, never sequence elements."));
        };
        keys.push(k.clone());
    }
    let mut nested = value.clone();
    for k in keys[1..].iter().rev() {
        let mut map = serde_json::Map::new();
        map.insert(k.clone(), nested);
        nested = Value::Object(map);
    }
    if container.is_none() && depth == 0 {
        return Ok(vec![empty_document(src, &keys[0], &nested, unit)]);
    }
    let mapping = container.filter(|n| is_mapping(*n)).ok_or_else(|| {
        missing(path, depth, "does not exist")
            .hint("--create-missing creates keys, never sequence elements.")
    })?;
    let key = render::key(&keys[0]);
    if mapping.kind() == "flow_mapping" {
        let text = format!("{key}: {}", render::flow(&nested, Quote::Plain, true));
        return Ok(Flow::of(mapping).append(src, &text, unit, COMMENTS));
    }
    let list = entries(mapping);
    let first = list
        .first()
        .map_or(mapping.start_byte(), |e| e.node.start_byte());
    let indent = " ".repeat(column(src, first));
    let text = if render::is_block(&nested) {
        let inner = format!("{indent}{unit}");
        format!("{key}:\n{inner}{}", render::block(&nested, &inner, unit))
    } else {
        let inner = format!("{indent}{unit}");
        format!("{key}: {}", render::scalar(&nested, Quote::Plain, &inner))
    };
    let names: Vec<String> = list.iter().filter_map(|e| key_of(src, e)).collect();
    let sorted = names.len() >= 2 && names.windows(2).all(|w| w[0] <= w[1]);
    let before = names
        .iter()
        .position(|n| sorted && n.as_str() > keys[0].as_str());
    if let Some(next) = before
        .map(|i| list[i].node)
        .filter(|n| alone_before(src, n.start_byte()))
    {
        let start = line_start(src, next.start_byte()) + indent.len();
        return Ok(vec![Edit::insert(start, format!("{text}\n{indent}"))]);
    }
    let Some(last) = list.last() else {
        return Ok(Vec::new());
    };
    let at = content_end(src, trimmed_end(src, last.node.end_byte()));
    Ok(vec![Edit::insert(at, format!("\n{indent}{text}"))])
}

/// The first key of an empty document (a file of comments, or nothing), at its end.
fn empty_document(src: &str, key: &str, value: &Value, unit: &str) -> Edit {
    let mut map = serde_json::Map::new();
    map.insert(key.to_owned(), value.clone());
    let lead = if src.is_empty() || src.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    let text = render::block(&Value::Object(map), "", unit);
    Edit::insert(src.len(), format!("{lead}{text}\n"))
}
