//! JSON and JSONC: the path is walked through tree-sitter-json's objects and arrays; the value
//! is the payload exactly as given (its whitespace included). New keys take the object's
//! colon spacing and layout, and go to their sorted place when the keys are sorted.

use tree_sitter::{Node, Tree};

use super::flow::Flow;
use super::text::{indent_at, indent_unit};
use super::{Action, ConfigPath, Edit, Job, Segment, mismatch, missing};
use crate::error::{Error, Result};

const COMMENTS: &[&str] = &["//", "/*"];

/// Where a walk ended.
enum Walk<'t> {
    /// The value, and the collection holding it with its position there.
    Found {
        value: Node<'t>,
        parent: Option<(Node<'t>, usize)>,
    },
    /// Segment `depth` does not exist in `container`, an object or an array.
    Missing { depth: usize, container: Node<'t> },
}

pub fn plan(src: &str, tree: &Tree, job: &Job<'_>) -> Result<Vec<Edit>> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let top = root
        .named_children(&mut cursor)
        .find(|n| n.kind() != "comment")
        .ok_or_else(|| missing(job.path, 0, "does not exist: the document is empty"))?;
    let raw = job.payload.as_ref().map_or("", |p| p.raw);
    match (walk(src, top, job.path)?, job.action) {
        (Walk::Found { value, .. }, Action::Set(_)) => Ok(vec![Edit::new(value.byte_range(), raw)]),
        (Walk::Found { value, .. }, Action::Append(_)) => {
            if value.kind() != "array" {
                return Err(not_array(job.path, value));
            }
            let unit = indent_unit(src);
            Ok(Flow::of(value).append(src, raw, &unit, COMMENTS))
        }
        (Walk::Found { parent, .. }, Action::Delete) => match parent {
            Some((node, i)) => Ok(Flow::of(node).delete(src, i, COMMENTS)),
            None => Err(Error::usage("the document itself cannot be deleted")),
        },
        (Walk::Missing { depth, container }, Action::Set(_)) if job.create_missing => {
            create(src, container, job.path, depth, raw)
        }
        (Walk::Missing { depth, .. }, _) => Err(missing(job.path, depth, "does not exist")),
    }
}

fn not_array(path: &ConfigPath, node: Node<'_>) -> Error {
    super::missing(
        path,
        path.0.len() - 1,
        &format!("is {}, not an array", kind_name(node)),
    )
    .detail("reason", "not_array")
}

fn kind_name(node: Node<'_>) -> &'static str {
    match node.kind() {
        "object" => "an object",
        "array" => "an array",
        "string" => "a string",
        "number" => "a number",
        "true" | "false" => "a boolean",
        _ => "null",
    }
}

/// The decoded key of a pair.
fn key_of(src: &str, pair: Node<'_>) -> Option<String> {
    let key = pair.child_by_field_name("key")?;
    serde_json::from_str(&src[key.byte_range()]).ok()
}

fn entries<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect()
}

fn walk<'t>(src: &str, top: Node<'t>, path: &ConfigPath) -> Result<Walk<'t>> {
    let mut current = top;
    let mut parent = None;
    for (depth, segment) in path.0.iter().enumerate() {
        let items = entries(current);
        let found = match (segment, current.kind()) {
            (Segment::Key(k), "object") => {
                let hits: Vec<usize> = (0..items.len())
                    .filter(|&i| key_of(src, items[i]).as_deref() == Some(k.as_str()))
                    .collect();
                if hits.len() > 1 {
                    return Err(super::duplicate(path, depth));
                }
                hits.first()
                    .and_then(|&i| Some((items[i].child_by_field_name("value")?, i)))
            }
            (Segment::Index(n), "array") => items.get(*n).map(|v| (*v, *n)),
            _ => return Err(mismatch(path, depth, kind_name(current))),
        };
        match found {
            Some((value, i)) => {
                parent = Some((current, i));
                current = value;
            }
            None => {
                return Ok(Walk::Missing {
                    depth,
                    container: current,
                });
            }
        }
    }
    Ok(Walk::Found {
        value: current,
        parent,
    })
}

/// Creates key `path[depth]` in `object`, with objects for the rest of the path.
fn create(
    src: &str,
    object: Node<'_>,
    path: &ConfigPath,
    depth: usize,
    raw: &str,
) -> Result<Vec<Edit>> {
    let mut keys = Vec::new();
    for segment in &path.0[depth..] {
        match segment {
            Segment::Key(k) => keys.push(k.as_str()),
            Segment::Index(_) => {
                return Err(missing(path, depth, "does not exist: --create-missing creates keys, never array elements; add one with the append operation (--append-value)")
                    .typed("invalid_request"));
            }
        }
    }
    if object.kind() != "object" {
        return Err(missing(path, depth, "does not exist: --create-missing creates keys, never array elements; add one with the append operation (--append-value)")
                    .typed("invalid_request"));
    }
    let flow = Flow::of(object);
    let unit = indent_unit(src);
    let pairs = entries(object);
    let colon = pairs
        .first()
        .and_then(|p| {
            let key = p.child_by_field_name("key")?;
            let value = p.child_by_field_name("value")?;
            let gap = &src[key.end_byte()..value.start_byte()];
            (!gap.contains('\n')).then(|| gap.to_owned())
        })
        .unwrap_or_else(|| ": ".into());
    let multiline =
        flow.multiline(src) || (pairs.is_empty() && src[object.byte_range()].contains('\n'));
    let indent = if multiline {
        flow.item_indent(src, &unit)
    } else {
        indent_at(src, object.start_byte()).to_owned()
    };
    let entry = nested(&keys, raw, &colon, multiline.then_some((&indent, &unit)));
    let names: Vec<String> = pairs.iter().filter_map(|p| key_of(src, *p)).collect();
    let sorted = names.len() >= 2 && names.windows(2).all(|w| w[0] <= w[1]);
    if let Some(i) = names.iter().position(|n| sorted && n.as_str() > keys[0]) {
        return Ok(flow.insert_before(src, i, &entry, &unit));
    }
    Ok(flow.append(src, &entry, &unit, COMMENTS))
}

/// `"a": {"b": value}` for keys `[a, b]`, one key per line when `layout` (indent, unit) is given.
fn nested(keys: &[&str], raw: &str, colon: &str, layout: Option<(&String, &String)>) -> String {
    let quoted = serde_json::to_string(keys[0]).unwrap_or_default();
    if keys.len() == 1 {
        return format!("{quoted}{colon}{raw}");
    }
    match layout {
        Some((indent, unit)) => {
            let inner_indent = format!("{indent}{unit}");
            let inner = nested(&keys[1..], raw, colon, Some((&inner_indent, unit)));
            format!("{quoted}{colon}{{\n{inner_indent}{inner}\n{indent}}}")
        }
        None => format!(
            "{quoted}{colon}{{{}}}",
            nested(&keys[1..], raw, colon, None)
        ),
    }
}
