//! YAML: the path is walked through tree-sitter-yaml's block and flow collections in one
//! document of the stream. Values are rendered by `yaml_value` in the local context: inline
//! in flow collections and for scalars, as blocks under keys and in sequences.
//!
//! The writers are in `yaml/edit.rs`.
//!
//! Documents: `document_index` picks one; without it the path must exist in exactly one
//! document (creation always needs it when there are several). Anchors, aliases and tags
//! are not followed or rewritten: a path through an alias or into an anchored node (an edit
//! there would change every alias), an edit of an anchored, aliased or tagged value, and
//! creation below a tag or in a mapping with a merge key (`<<`) are `config_unsupported`.

mod edit;

use serde_json::Value;
use tree_sitter::{Node, Tree};

use super::text::indent_unit;
use super::{Action, ConfigPath, Edit, Job, Segment, mismatch, missing, unsupported};
use crate::error::{Code, Error, Result};
use edit::{append, create, delete, set};

pub(super) const COMMENTS: &[&str] = &["#"];

/// One entry of a collection: the entry node (pair or item) and its value wrapper, if any.
#[derive(Clone, Copy)]
pub(super) struct Entry<'t> {
    pub node: Node<'t>,
    pub value: Option<Node<'t>>,
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
    /// Segment `depth` is a key of a null value (`key:` alone, `~`, `null`): creation turns
    /// that value into a mapping.
    Null {
        depth: usize,
        value: Option<Node<'t>>,
        holder: Option<(Node<'t>, Entry<'t>, usize)>,
        guarded: Option<&'static str>,
    },
}

/// The collection or scalar inside a `block_node` / `flow_node`.
pub(super) fn content(wrapper: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = wrapper.walk();
    wrapper
        .named_children(&mut cursor)
        .find(|c| !matches!(c.kind(), "anchor" | "tag" | "comment"))
}

pub(super) fn has_child(wrapper: Node<'_>, kind: &str) -> bool {
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

pub(super) fn entries<'t>(collection: Node<'t>) -> Vec<Entry<'t>> {
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

pub(super) fn is_mapping(n: Node<'_>) -> bool {
    matches!(n.kind(), "block_mapping" | "flow_mapping")
}

pub(super) fn is_sequence(n: Node<'_>) -> bool {
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

pub(super) fn key_of(src: &str, entry: &Entry<'_>) -> Option<String> {
    let key = entry.node.child_by_field_name("key")?;
    Some(scalar_text(src, key))
}

/// A plain `~` / `null` scalar.
fn is_null(src: &str, n: Node<'_>) -> bool {
    n.kind() == "plain_scalar"
        && matches!(src[n.byte_range()].trim(), "~" | "null" | "Null" | "NULL")
}

/// `value` under the keys `path[depth..]` (all keys: arrays never grow).
fn nested(path: &ConfigPath, depth: usize, value: &Value) -> Result<Value> {
    let mut out = value.clone();
    for (at, segment) in path.0.iter().enumerate().skip(depth).rev() {
        let Segment::Key(k) = segment else {
            return Err(missing(path, at, "does not exist")
                .hint("--create-missing creates keys, never sequence elements."));
        };
        let mut map = serde_json::Map::new();
        map.insert(k.clone(), out);
        out = Value::Object(map);
    }
    Ok(out)
}

/// Walks `path` from the document's top node.
fn walk<'t>(src: &str, top: Option<Node<'t>>, path: &ConfigPath) -> Result<Walk<'t>> {
    let mut wrapper = top;
    let mut holder = None;
    let mut owner = None;
    let mut guarded = None;
    for (depth, segment) in path.0.iter().enumerate() {
        if let Some(w) = wrapper {
            guard(w, path, depth, &mut guarded)?;
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
        let null = node.is_none_or(|n| is_null(src, n));
        if null && depth > 0 && matches!(segment, Segment::Key(_)) {
            return Ok(Walk::Null {
                depth,
                value: wrapper,
                holder,
                guarded,
            });
        }
        let Some(collection) = node.filter(|n| is_mapping(*n) || is_sequence(*n)) else {
            return Err(mismatch(path, depth, describe(node)));
        };
        let list = entries(collection);
        let Some(i) = find(src, collection, &list, (path, depth), &mut guarded)? else {
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

/// Refuses a node below the top that carries an anchor (an edit inside it would change
/// every alias of it); a tag guards the edit.
fn guard(
    wrapper: Node<'_>,
    path: &ConfigPath,
    depth: usize,
    guarded: &mut Option<&'static str>,
) -> Result<()> {
    if has_child(wrapper, "anchor") && depth > 0 {
        return Err(unsupported(
            path,
            format!(
                "`{}` carries an anchor: an edit inside it changes every alias of it",
                path.prefix(depth)
            ),
        ));
    }
    if has_child(wrapper, "tag") {
        *guarded = Some("a tag");
    }
    Ok(())
}

/// The entry of `collection` that segment `depth` of `path` names (`None`: there is none); a
/// key named twice is refused, and a merge key guards the edit.
fn find(
    src: &str,
    collection: Node<'_>,
    list: &[Entry<'_>],
    (path, depth): (&ConfigPath, usize),
    guarded: &mut Option<&'static str>,
) -> Result<Option<usize>> {
    match &path.0[depth] {
        Segment::Key(k) if is_mapping(collection) => {
            if list.iter().any(|e| key_of(src, e).as_deref() == Some("<<")) {
                *guarded = Some("a merge key (`<<`)");
            }
            let mut hits =
                (0..list.len()).filter(|&i| key_of(src, &list[i]).as_deref() == Some(k.as_str()));
            let first = hits.next();
            if hits.next().is_some() {
                return Err(super::duplicate(path, depth));
            }
            Ok(first)
        }
        Segment::Index(n) if is_sequence(collection) => Ok((*n < list.len()).then_some(*n)),
        _ => Err(mismatch(path, depth, describe(Some(collection)))),
    }
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
    match job.document_index {
        Some(i) => by_index(src, &docs, i, job),
        None if docs.len() <= 1 => walk(src, docs.first().copied().flatten(), job.path),
        None => across(src, &docs, job),
    }
}

/// The walk in document `i`, as `--document-index` names it.
fn by_index<'t>(src: &str, docs: &[Option<Node<'t>>], i: usize, job: &Job<'_>) -> Result<Walk<'t>> {
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
    walk(src, *top, job.path)
}

/// The one document of several where the path exists; none or two are refused.
fn across<'t>(src: &str, docs: &[Option<Node<'t>>], job: &Job<'_>) -> Result<Walk<'t>> {
    let mut found = Vec::new();
    let mut first_miss = None;
    for (i, top) in docs.iter().enumerate() {
        match walk(src, *top, job.path) {
            Ok(w @ Walk::Found { .. }) => found.push((i, w)),
            Ok(Walk::Missing { depth, .. } | Walk::Null { depth, .. }) => {
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
            let seq = sequence(job.path, old)?;
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
            creatable(job.path, guarded)?;
            create(
                src,
                container,
                job.path,
                depth,
                value.unwrap_or(&Value::Null),
                &unit,
            )
        }
        (
            Walk::Null {
                depth,
                value: old,
                holder,
                guarded,
            },
            Action::Set(_),
        ) if job.create_missing => {
            creatable(job.path, guarded)?;
            refuse_special(job.path, old, "create keys in")?;
            let value = nested(job.path, depth, value.unwrap_or(&Value::Null))?;
            Ok(set(src, old, holder, &value, &unit))
        }
        (Walk::Null { depth, .. }, _) => Err(mismatch(job.path, depth, "null")
            .hint("Use --create-missing with --set-value to make it a mapping.")),
        (Walk::Missing { depth, .. }, _) => Err(missing(job.path, depth, "does not exist")),
    }
}

/// The sequence an `append` adds to.
fn sequence<'t>(path: &ConfigPath, value: Option<Node<'t>>) -> Result<Node<'t>> {
    let node = value.and_then(content);
    node.filter(|n| is_sequence(*n)).ok_or_else(|| {
        missing(
            path,
            path.0.len() - 1,
            &format!("is {}, not a sequence", describe(node)),
        )
        .detail("reason", "not_array")
    })
}

/// Refuses creating keys below a tag or a merge key.
fn creatable(path: &ConfigPath, guarded: Option<&'static str>) -> Result<()> {
    match guarded {
        Some(why) => Err(unsupported(
            path,
            format!("creation below {why} is not supported"),
        )),
        None => Ok(()),
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
