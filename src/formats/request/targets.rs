//! Targets of an edit request (`target: {"type": …}`), checked key by key: `node` (the default
//! when `type` is omitted), `symbol`, `selector`, `handle_ref` (through the file's
//! `handle_table`), `line`, `file_start` / `file_end`, and `file` (whole-file moves only).
//!
//! Each target also comes back as canonical JSON: a `handle_ref` is replaced by the table
//! entry it names, so a changeset needs no handle table.

use serde_json::{Map, Value, json};

use super::{Located, bad, keys, opt_str, req_str};
use crate::error::Result;
use crate::plan::{Digest, LineAnchor, Target};

/// A compiled target: the plan's target, the file precondition it carries, and its JSON.
#[derive(Clone, Debug)]
pub struct TargetSpec {
    pub target: Option<Target>,
    /// `expected_file_hash` (a sha256 of the whole file).
    pub file_hash: Option<Digest>,
    /// A whole-file target (`type: "file"`): only a `move` may use it.
    pub whole_file: bool,
    pub json: Value,
}

const NODE_KEYS: &[&str] = &["type", "identity", "kind", "expected_old_hash", "span_hint"];

/// Compiles the target object at `at` (a pointer like `/operations/0/target`).
pub fn compile(
    value: &Value,
    table: Option<&Map<String, Value>>,
    at: &Located,
) -> Result<TargetSpec> {
    let Value::Object(obj) = value else {
        return Err(bad(at, "`target` must be an object"));
    };
    let kind = opt_str(obj, "type", at)?.unwrap_or("node");
    let spec = |target: Target| TargetSpec {
        target: Some(target),
        file_hash: None,
        whole_file: false,
        json: value.clone(),
    };
    match kind {
        "node" => {
            keys(obj, NODE_KEYS, at)?;
            node(obj, at).map(spec)
        }
        "symbol" => {
            keys(obj, &["type", "name"], at)?;
            Ok(spec(Target::Symbol(req_str(obj, "name", at)?.to_owned())))
        }
        "selector" => {
            keys(
                obj,
                &["type", "kind", "name", "name_pattern", "exclude_kinds"],
                at,
            )?;
            selector(obj, at).map(spec)
        }
        "handle_ref" => {
            keys(obj, &["type", "ref"], at)?;
            handle(obj, table, at)
        }
        "line" => {
            keys(obj, &["type", "anchor", "end_anchor"], at)?;
            let anchor = |key: &str| -> Result<Option<LineAnchor>> {
                opt_str(obj, key, at)?
                    .map(|a| LineAnchor::parse(a).map_err(|m| bad(&at.key(key), m)))
                    .transpose()
            };
            let start = anchor("anchor")?.ok_or_else(|| bad(at, "`anchor` is required"))?;
            Ok(spec(Target::Lines {
                start,
                end: anchor("end_anchor")?,
            }))
        }
        "file_start" | "file_end" | "file" => {
            keys(obj, &["type", "expected_file_hash"], at)?;
            let file_hash = opt_str(obj, "expected_file_hash", at)?
                .map(|h| {
                    Digest::parse(h).map_err(|e| bad(&at.key("expected_file_hash"), e.message))
                })
                .transpose()?;
            let target = match kind {
                "file_start" => Some(Target::FileStart),
                "file_end" => Some(Target::FileEnd),
                _ => None,
            };
            Ok(TargetSpec {
                target,
                file_hash,
                whole_file: kind == "file",
                json: value.clone(),
            })
        }
        other => Err(bad(
            &at.key("type"),
            format!(
                "unknown target type `{other}` (node, symbol, selector, handle_ref, line, file_start, file_end, file)"
            ),
        )),
    }
}

/// The node fields of an operation given at its top level instead of in `target`.
pub fn inline_node(op: &Map<String, Value>) -> Option<Value> {
    let fields: Map<String, Value> = op
        .iter()
        .filter(|(k, _)| NODE_KEYS[1..].contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (!fields.is_empty()).then(|| {
        let mut node = Map::new();
        node.insert("type".into(), json!("node"));
        node.extend(fields);
        Value::Object(node)
    })
}

fn hex16(obj: &Map<String, Value>, key: &str, at: &Located) -> Result<Option<String>> {
    match opt_str(obj, key, at)? {
        Some(h) => {
            let h = h.trim().to_ascii_lowercase();
            if h.len() != 16 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad(
                    &at.key(key),
                    format!("`{key}` must be 16 hex digits (as `read --json` prints it)"),
                ));
            }
            Ok(Some(h))
        }
        None => Ok(None),
    }
}

fn node(obj: &Map<String, Value>, at: &Located) -> Result<Target> {
    let identity = hex16(obj, "identity", at)?
        .ok_or_else(|| bad(at, "`identity` is required for a node target"))?;
    let span_hint = match obj.get("span_hint") {
        None | Some(Value::Null) => None,
        Some(span) => {
            let field = |k: &str| {
                span.get(k)
                    .and_then(Value::as_u64)
                    .and_then(|n| usize::try_from(n).ok())
            };
            match (field("start"), field("end")) {
                (Some(start), Some(end)) if start <= end => Some((start, end)),
                _ => {
                    return Err(bad(
                        &at.key("span_hint"),
                        "`span_hint` must be {\"start\": N, \"end\": M} with start ≤ end",
                    ));
                }
            }
        }
    };
    Ok(Target::Node {
        identity,
        kind: opt_str(obj, "kind", at)?.map(str::to_owned),
        expected_hash: hex16(obj, "expected_old_hash", at)?,
        span_hint,
    })
}

fn selector(obj: &Map<String, Value>, at: &Located) -> Result<Target> {
    let exclude_kinds = match obj.get("exclude_kinds") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .map(|k| k.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                bad(
                    &at.key("exclude_kinds"),
                    "`exclude_kinds` must be a list of strings",
                )
            })?,
        Some(_) => {
            return Err(bad(
                &at.key("exclude_kinds"),
                "`exclude_kinds` must be a list of strings",
            ));
        }
    };
    let name = match (opt_str(obj, "name", at)?, opt_str(obj, "name_pattern", at)?) {
        (Some(_), Some(_)) => return Err(bad(at, "give `name` or `name_pattern`, not both")),
        (name, pattern) => name.or(pattern).map(str::to_owned),
    };
    Ok(Target::Selector {
        kind: req_str(obj, "kind", at)?.to_owned(),
        name,
        exclude_kinds,
    })
}

/// A `handle_ref`: the entry of the file's `handle_table` it names, compiled as a node target.
fn handle(
    obj: &Map<String, Value>,
    table: Option<&Map<String, Value>>,
    at: &Located,
) -> Result<TargetSpec> {
    let name = req_str(obj, "ref", at)?;
    let entry = table.and_then(|t| t.get(name)).ok_or_else(|| {
        bad(
            &at.key("ref"),
            format!("`{name}` is not in the file's handle_table"),
        )
    })?;
    let Value::Object(fields) = entry else {
        return Err(bad(
            at,
            format!("handle_table entry `{name}` must be an object"),
        ));
    };
    let table_at = at.elsewhere(format!("handle_table/{name}"));
    keys(fields, NODE_KEYS, &table_at)?;
    let target = node(fields, &table_at)?;
    let mut json = Map::new();
    json.insert("type".into(), json!("node"));
    json.extend(
        fields
            .iter()
            .filter(|(k, _)| *k != "type")
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    Ok(TargetSpec {
        target: Some(target),
        file_hash: None,
        whole_file: false,
        json: Value::Object(json),
    })
}
