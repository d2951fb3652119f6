//! Targets of an edit request (`target: {"type": …}`), each kind a derived type refusing
//! unknown keys: `node` (the default when `type` is omitted), `symbol`, `selector`,
//! `handle_ref` (through the file's `handle_table`), `line`, `file_start` / `file_end`, and
//! `file` (whole-file moves only). `config_path` targets are the config layer's
//! (`formats::op_wire`).
//!
//! Each target also comes back as canonical JSON: a `handle_ref` is replaced by the table
//! entry it names, so a changeset needs no handle table.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value, json};

use super::{Located, bad, decode, tag};
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

/// `{"type"?: "node", "identity", "kind"?, "expected_old_hash"?, "span_hint"?}`; also a
/// `handle_table` entry, and the node fields given at an operation's top level.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeWire {
    #[serde(rename = "type")]
    _tag: Option<IgnoredAny>,
    identity: Option<String>,
    kind: Option<String>,
    expected_old_hash: Option<String>,
    /// `{"start": N, "end": M}`, checked as a whole (one message for every bad shape).
    span_hint: Option<Value>,
}

#[derive(Deserialize)]
struct SpanWire {
    start: usize,
    end: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SymbolWire {
    #[serde(rename = "type")]
    _tag: Option<IgnoredAny>,
    name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SelectorWire {
    #[serde(rename = "type")]
    _tag: Option<IgnoredAny>,
    kind: Option<String>,
    name: Option<String>,
    name_pattern: Option<String>,
    exclude_kinds: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HandleRefWire {
    #[serde(rename = "type")]
    _tag: Option<IgnoredAny>,
    #[serde(rename = "ref")]
    name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineWire {
    #[serde(rename = "type")]
    _tag: Option<IgnoredAny>,
    anchor: Option<String>,
    end_anchor: Option<String>,
}

/// `file_start`, `file_end` and `file`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoundaryWire {
    #[serde(rename = "type")]
    _tag: Option<IgnoredAny>,
    expected_file_hash: Option<String>,
}

/// Every target type a request may name besides `config_path` (the config layer's).
pub const TYPES: &[&str] = &[
    "node",
    "symbol",
    "selector",
    "handle_ref",
    "line",
    "file_start",
    "file_end",
    "file",
];

fn required<T>(value: Option<T>, key: &str, at: &Located) -> Result<T> {
    value.ok_or_else(|| bad(at, format!("`{key}` is required")))
}

/// Compiles the target object at `at` (a pointer like `/operations/0/target`).
pub fn compile(
    value: &Value,
    table: Option<&Map<String, Value>>,
    at: &Located,
) -> Result<TargetSpec> {
    if !value.is_object() {
        return Err(bad(at, "`target` must be an object"));
    }
    let spec = |target: Target| TargetSpec {
        target: Some(target),
        file_hash: None,
        whole_file: false,
        json: value.clone(),
    };
    match tag(value, at)?.as_deref().unwrap_or("node") {
        "node" => node(decode(value, at)?, at).map(spec),
        "symbol" => {
            let wire: SymbolWire = decode(value, at)?;
            Ok(spec(Target::Symbol(required(wire.name, "name", at)?)))
        }
        "selector" => selector(decode(value, at)?, at).map(spec),
        "handle_ref" => handle(decode(value, at)?, table, at),
        "line" => line(decode(value, at)?, at).map(spec),
        kind @ ("file_start" | "file_end" | "file") => boundary(kind, value, at),
        other => Err(bad(
            &at.key("type"),
            format!("unknown target type `{other}` ({})", TYPES.join(", ")),
        )),
    }
}

/// The node fields of an operation given at its top level instead of in `target`, as a
/// `node` target (in the order they were written).
pub fn inline_node(fields: Map<String, Value>) -> Option<Value> {
    (!fields.is_empty()).then(|| {
        let mut node = Map::new();
        node.insert("type".into(), json!("node"));
        node.extend(fields);
        Value::Object(node)
    })
}

/// Refuses a key no node target has, and a node field of the wrong type.
pub fn check_node_keys(value: &Value, at: &Located) -> Result<()> {
    decode::<NodeWire>(value, at).map(drop)
}

fn hex16(value: Option<String>, key: &str, at: &Located) -> Result<Option<String>> {
    let Some(h) = value else {
        return Ok(None);
    };
    let h = h.trim().to_ascii_lowercase();
    if h.len() != 16 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad(
            &at.key(key),
            format!("`{key}` must be 16 hex digits (as `read --json` prints it)"),
        ));
    }
    Ok(Some(h))
}

fn span_hint(value: Option<Value>, at: &Located) -> Result<Option<(usize, usize)>> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(span) => match SpanWire::deserialize(&span) {
            Ok(SpanWire { start, end }) if start <= end => Ok(Some((start, end))),
            _ => Err(bad(
                &at.key("span_hint"),
                "`span_hint` must be {\"start\": N, \"end\": M} with start ≤ end",
            )),
        },
    }
}

fn node(wire: NodeWire, at: &Located) -> Result<Target> {
    let identity = hex16(wire.identity, "identity", at)?
        .ok_or_else(|| bad(at, "`identity` is required for a node target"))?;
    let span_hint = span_hint(wire.span_hint, at)?;
    Ok(Target::Node {
        identity,
        kind: wire.kind,
        expected_hash: hex16(wire.expected_old_hash, "expected_old_hash", at)?,
        span_hint,
    })
}

fn selector(wire: SelectorWire, at: &Located) -> Result<Target> {
    let name = match (wire.name, wire.name_pattern) {
        (Some(_), Some(_)) => return Err(bad(at, "give `name` or `name_pattern`, not both")),
        (name, pattern) => name.or(pattern),
    };
    Ok(Target::Selector {
        kind: required(wire.kind, "kind", at)?,
        name,
        exclude_kinds: wire.exclude_kinds.unwrap_or_default(),
    })
}

fn line(wire: LineWire, at: &Located) -> Result<Target> {
    let anchor = |text: Option<String>, key: &str| -> Result<Option<LineAnchor>> {
        text.map(|a| LineAnchor::parse(&a).map_err(|m| bad(&at.key(key), m)))
            .transpose()
    };
    let start = anchor(wire.anchor, "anchor")?.ok_or_else(|| bad(at, "`anchor` is required"))?;
    Ok(Target::Lines {
        start,
        end: anchor(wire.end_anchor, "end_anchor")?,
    })
}

fn boundary(kind: &str, value: &Value, at: &Located) -> Result<TargetSpec> {
    let wire: BoundaryWire = decode(value, at)?;
    let file_hash = wire
        .expected_file_hash
        .map(|h| Digest::parse(&h).map_err(|e| bad(&at.key("expected_file_hash"), e.message)))
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

/// A `handle_ref`: the entry of the file's `handle_table` it names, compiled as a node target.
fn handle(
    wire: HandleRefWire,
    table: Option<&Map<String, Value>>,
    at: &Located,
) -> Result<TargetSpec> {
    let name = required(wire.name, "ref", at)?;
    let entry = table.and_then(|t| t.get(&name)).ok_or_else(|| {
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
    let target = node(decode(entry, &table_at)?, &table_at)?;
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
