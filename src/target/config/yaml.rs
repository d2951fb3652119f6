//! YAML: the path is walked through tree-sitter-yaml's block and flow collections in one
//! document of the stream. Values are rendered by `yaml_value` in the local context: inline
//! in flow collections and for scalars, as blocks under keys and in sequences.
//!
//! Documents: `document_index` picks one; without it the path must exist in exactly one
//! document (creation always needs it when there are several). Anchors, aliases and tags
//! are not followed or rewritten: a path through an alias or into an anchored node (an edit
//! there would change every alias), an edit of an anchored, aliased or tagged value, and
//! creation below a tag or in a mapping with a merge key (`<<`) are `config_unsupported`.

use serde_json::Value;
use tree_sitter::{Node, Tree};

use super::flow::Flow;
use super::text::{
    alone_before, column, content_end, indent_unit, line_start, next_line, remove_lines,
    trimmed_end,
};
use super::yaml_value::{self as render, Quote};
use super::{Action, ConfigPath, Edit, Job, Segment, mismatch, missing, unsupported};
use crate::error::{Code, Error, Result};

const COMMENTS: &[&str] = &["#"];

/// One entry of a collection: the entry node (pair or item) and its value wrapper, if any.
#[derive(Clone, Copy)]
struct Entry<'t> {
    node: Node<'t>,
    value: Option<Node<'t>>,
}

/// Where a walk ended.
enum Walk<'t> {
    Found {
        value: Option<Node<'t>>,
        /// The collection holding the value, the value's entry and its index there.
        holder: Option<(Node<'t>, Entry<'t>, usize)>,
        /// The pair whose value is the holder (to keep a key that loses its last entry).
        owner: Option<Node<'t>>,
    },
    Missing {
        depth: usize,
        container: Option<Node<'t>>,
        /// An anchor, tag or merge key on the way (creation is refused).
        guarded: Option<&'static str>,
    },
}

/// The collection or scalar inside a `block_node` / `flow_node`.
fn content(wrapper: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = wrapper.walk();
    wrapper
        .named_children(&mut cursor)
        .find(|c| !matches!(c.kind(), "anchor" | "tag" | "comment"))
}

fn has_child(wrapper: Node<'_>, kind: &str) -> bool {
    let mut cursor = wrapper.walk();
    wrapper
        .named_children(&mut cursor)
        .any(|c| c.kind() == kind)
}

/// Decoded text of a key or scalar.
fn scalar_text(src: &str, node: Node<'_>) -> String {
    let inner = content(node).unwrap_or(node);
    let text = &src[inner.byte_range()];
    match inner.kind() {
        "double_quote_scalar" => serde_json::from_str(text).unwrap_or_else(|_| text.to_owned()),
        "single_quote_scalar" => text[1..text.len().saturating_sub(1)].replace("''", "'"),
        _ => text.trim().to_owned(),
    }
}

fn entries<'t>(collection: Node<'t>) -> Vec<Entry<'t>> {
    let mut cursor = collection.walk();
    let kids: Vec<Node<'t>> = collection.named_children(&mut cursor).collect();
    kids.into_iter()
        .filter_map(|n| match n.kind() {
            "block_mapping_pair" | "flow_pair" => Some(Entry {
                node: n,
                value: n.child_by_field_name("value"),
            }),
            "block_sequence_item" => {
                let mut c = n.walk();
                let value = n.named_children(&mut c).find(|v| v.kind() != "comment");
                Some(Entry { node: n, value })
            }
            "flow_node" => Some(Entry {
                node: n,
                value: Some(n),
            }),
            _ => None,
        })
        .collect()
}

fn is_mapping(n: Node<'_>) -> bool {
    matches!(n.kind(), "block_mapping" | "flow_mapping")
}

fn is_sequence(n: Node<'_>) -> bool {
    matches!(n.kind(), "block_sequence" | "flow_sequence")
}

fn describe(n: Option<Node<'_>>) -> &'static str {
    match n.map(|n| n.kind()) {
        Some("block_mapping" | "flow_mapping") => "a mapping",
        Some("block_sequence" | "flow_sequence") => "a sequence",
        None => "null",
        _ => "a scalar",
    }
}

fn key_of(src: &str, entry: &Entry<'_>) -> Option<String> {
    let key = entry.node.child_by_field_name("key")?;
    Some(scalar_text(src, key))
}

/// Walks `path` from the document's top node.
fn walk<'t>(src: &str, top: Option<Node<'t>>, path: &ConfigPath) -> Result<Walk<'t>> {
    let mut wrapper = top;
    let mut holder = None;
    let mut owner = None;
    let mut guarded = None;
    for (depth, segment) in path.0.iter().enumerate() {
        if let Some(w) = wrapper {
            if has_child(w, "anchor") && depth > 0 {
                return Err(unsupported(
                    path,
                    format!(
                        "`{}` carries an anchor: an edit inside it changes every alias of it",
                        path.prefix(depth)
                    ),
                ));
            }
            if has_child(w, "tag") {
                guarded = Some("a tag");
            }
        }
        if wrapper.is_none() && depth == 0 {
            // An empty document: keys can be created at its end.
            return Ok(Walk::Missing {
                depth,
                container: None,
                guarded,
            });
        }
        let node = wrapper.and_then(content);
        if node.is_some_and(|n| n.kind() == "alias") {
            return Err(unsupported(
                path,
                format!(
                    "`{}` is an alias; aliases are not followed",
                    path.prefix(depth)
                ),
            ));
        }
        let Some(collection) = node.filter(|n| is_mapping(*n) || is_sequence(*n)) else {
            return Err(mismatch(path, depth, describe(node)));
        };
        let list = entries(collection);
        let hit = match segment {
            Segment::Key(k) if is_mapping(collection) => {
                if list.iter().any(|e| key_of(src, e).as_deref() == Some("<<")) {
                    guarded = Some("a merge key (`<<`)");
                }
                let mut hits = (0..list.len())
                    .filter(|&i| key_of(src, &list[i]).as_deref() == Some(k.as_str()));
                let first = hits.next();
                if hits.next().is_some() {
                    return Err(super::duplicate(path, depth));
                }
                first
            }
            Segment::Index(n) if is_sequence(collection) => (*n < list.len()).then_some(*n),
            _ => return Err(mismatch(path, depth, describe(Some(collection)))),
        };
        let Some(i) = hit else {
            return Ok(Walk::Missing {
                depth,
                container: Some(collection),
                guarded,
            });
        };
        owner = holder.and_then(|(_, e, _): (Node<'t>, Entry<'t>, usize)| {
            (e.node.kind() == "block_mapping_pair").then_some(e.node)
        });
        holder = Some((collection, list[i], i));
        wrapper = list[i].value;
    }
    Ok(Walk::Found {
        value: wrapper,
        holder,
        owner,
    })
}

/// The top nodes of the stream's documents (`None` for an empty document).
fn documents<'t>(tree: &'t Tree) -> Vec<Option<Node<'t>>> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let docs: Vec<Node<'t>> = root
        .named_children(&mut cursor)
        .filter(|n| n.kind() == "document")
        .collect();
    docs.into_iter()
        .map(|d| {
            let mut c = d.walk();
            d.named_children(&mut c)
                .find(|n| matches!(n.kind(), "block_node" | "flow_node"))
        })
        .collect()
}

/// The document the job addresses, and the walk in it.
fn choose<'t>(src: &str, tree: &'t Tree, job: &Job<'_>) -> Result<Walk<'t>> {
    let docs = documents(tree);
    if let Some(i) = job.document_index {
        let top = docs.get(i).ok_or_else(|| {
            Error::new(
                Code::TargetMissing,
                format!(
                    "--document-index {i}: the file has {} document(s)",
                    docs.len()
                ),
            )
            .detail("documents", docs.len())
            .hint("Documents count from 0.")
        })?;
        if top.is_none() && i + 1 < docs.len() {
            return Err(unsupported(
                job.path,
                format!(
                    "document {i} is empty and not the last one; give it a first key with a line edit"
                ),
            ));
        }
        return walk(src, *top, job.path);
    }
    if docs.len() <= 1 {
        return walk(src, docs.first().copied().flatten(), job.path);
    }
    let mut found = Vec::new();
    let mut first_miss = None;
    for (i, top) in docs.iter().enumerate() {
        match walk(src, *top, job.path) {
            Ok(w @ Walk::Found { .. }) => found.push((i, w)),
            Ok(Walk::Missing { depth, .. }) => {
                first_miss.get_or_insert_with(|| missing(job.path, depth, "does not exist"));
            }
            Err(e) => {
                first_miss.get_or_insert(e);
            }
        }
    }
    match found.len() {
        1 => Ok(found.remove(0).1),
        0 if job.create_missing => Err(Error::usage(format!(
            "the file has {} YAML documents: creating `{}` needs --document-index N",
            docs.len(),
            job.path
        ))
        .detail("documents", docs.len())),
        0 => Err(first_miss
            .unwrap_or_else(|| missing(job.path, 0, "does not exist"))
            .detail("documents", docs.len())
            .hint("The path exists in no document; pass --document-index N to pick one.")),
        _ => {
            let which: Vec<usize> = found.iter().map(|(i, _)| *i).collect();
            Err(Error::new(
                Code::AmbiguousTarget,
                format!(
                    "config path `{}` exists in documents {which:?}: pass --document-index N",
                    job.path
                ),
            )
            .detail("documents_with_path", which)
            .hint("Documents count from 0."))
        }
    }
}

pub fn plan(src: &str, tree: &Tree, job: &Job<'_>) -> Result<Vec<Edit>> {
    let walk = choose(src, tree, job)?;
    let value = job.payload.as_ref().map(|p| &p.value);
    let unit = indent_unit(src);
    match (walk, job.action) {
        (
            Walk::Found {
                value: old, holder, ..
            },
            Action::Set(_),
        ) => {
            refuse_special(job.path, old, "set")?;
            Ok(set(src, old, holder, value.unwrap_or(&Value::Null), &unit))
        }
        (Walk::Found { value: old, .. }, Action::Append(_)) => {
            refuse_special(job.path, old, "append to")?;
            let seq = old.and_then(content).filter(|n| is_sequence(*n));
            let seq = seq.ok_or_else(|| {
                missing(
                    job.path,
                    job.path.0.len() - 1,
                    &format!("is {}, not a sequence", describe(old.and_then(content))),
                )
                .detail("reason", "not_array")
            })?;
            Ok(append(src, seq, value.unwrap_or(&Value::Null), &unit))
        }
        (
            Walk::Found {
                value: old,
                holder,
                owner,
            },
            Action::Delete,
        ) => {
            refuse_special(job.path, old, "delete")?;
            let (collection, _, i) =
                holder.ok_or_else(|| Error::usage("the document itself cannot be deleted"))?;
            Ok(delete(src, collection, i, owner))
        }
        (
            Walk::Missing {
                depth,
                container,
                guarded,
            },
            Action::Set(_),
        ) if job.create_missing => {
            if let Some(why) = guarded {
                return Err(unsupported(
                    job.path,
                    format!("creation below {why} is not supported"),
                ));
            }
            create(
                src,
                container,
                job.path,
                depth,
                value.unwrap_or(&Value::Null),
                &unit,
            )
        }
        (Walk::Missing { depth, .. }, _) => Err(missing(job.path, depth, "does not exist")),
    }
}

/// Aliases, anchors and tags are left to line edits.
fn refuse_special(path: &ConfigPath, value: Option<Node<'_>>, what: &str) -> Result<()> {
    let Some(w) = value else { return Ok(()) };
    let why = if content(w).is_some_and(|n| n.kind() == "alias") {
        "is an alias"
    } else if has_child(w, "anchor") {
        "carries an anchor (aliases elsewhere share it)"
    } else if has_child(w, "tag") {
        "carries a tag"
    } else {
        return Ok(());
    };
    Err(unsupported(
        path,
        format!("the value {why}; cannot {what} it"),
    ))
}

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

fn set(
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
        return vec![Edit::insert(at, text)];
    };
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

fn append(src: &str, seq: Node<'_>, value: &Value, unit: &str) -> Vec<Edit> {
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

fn delete(src: &str, collection: Node<'_>, i: usize, owner: Option<Node<'_>>) -> Vec<Edit> {
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

fn create(
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
