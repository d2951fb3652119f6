//! Operations of an edit request (`op: {"type": …}`), each kind a derived type refusing
//! unknown keys, and what each becomes in the plan: one targeted operation, the two halves
//! of a structure move (`MoveOut` in the source file, `MoveIn` in the destination), or a
//! whole-file move.

use std::collections::HashMap;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};

use super::targets::{self, TargetSpec};
use super::{Located, bad, decode, tag};
use crate::error::Result;
use crate::plan::{MoveIn, NodeOp, OpKind, PathBase, PathSpec, Target};

/// How the compiled operations of one request read paths, and whether line anchors may be
/// remapped (`apply --repair`).
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    pub base: PathBase,
    pub repair: bool,
}

/// The handle tables an operation may use: its own file's, and (for a cross-file move's
/// destination) those of the request's other file entries, by path as written.
#[derive(Clone, Copy)]
pub struct Handles<'d> {
    pub own: Option<&'d Map<String, Value>>,
    pub by_file: &'d HashMap<String, &'d Map<String, Value>>,
}

/// One request operation, compiled: plan operations (file, kind) and its canonical JSON.
pub struct CompiledOp {
    pub kinds: Vec<(String, OpKind)>,
    pub target: Value,
    pub op: Value,
    /// A structure or whole-file move (its preview is `{move: {from, to}}`).
    pub moves: bool,
    /// A whole-file move (`move {to}`), which takes its file entry alone.
    pub renames: bool,
}

/// Every operation type a request may name (targeted edits, then the moves).
pub const OPERATIONS: &[&str] = &[
    "replace",
    "set_line",
    "replace_lines",
    "replace_range",
    "delete",
    "insert_before",
    "insert_after",
    "insert_after_line",
    "line_insert_after",
    "insert",
    "scoped_regex",
    "move_before",
    "move_after",
    "move_to_before",
    "move_to_after",
    "move",
];

impl CompiledOp {
    /// One plan operation on `file` that moves nothing.
    fn edit(file: &str, kind: OpKind, target: Value, op: Value) -> Self {
        Self {
            kinds: vec![(file.to_owned(), kind)],
            target,
            op,
            moves: false,
            renames: false,
        }
    }
}

/// `replace`, `set_line`, `replace_lines`, `replace_range`: `new_text` only.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplaceWire {
    #[serde(rename = "type")]
    _tag: Option<IgnoredAny>,
    new_text: Option<String>,
}

/// The insertions: `new_text`, or `text` as identedit's older spelling.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InsertWire {
    #[serde(rename = "type")]
    _tag: Option<IgnoredAny>,
    new_text: Option<String>,
    text: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DeleteWire {
    #[serde(rename = "type")]
    _tag: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegexWire {
    #[serde(rename = "type")]
    _tag: Option<IgnoredAny>,
    pattern: Option<String>,
    replacement: Option<String>,
}

/// `move_before` / `move_after` (in the file) and `move_to_before` / `move_to_after`
/// (into `destination_file`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveWire {
    #[serde(rename = "type")]
    _tag: Option<IgnoredAny>,
    destination: Option<Value>,
    destination_file: Option<String>,
    prefix: Option<String>,
    suffix: Option<String>,
}

/// `move {to}` on a `file` target.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RenameWire {
    #[serde(rename = "type")]
    _tag: Option<IgnoredAny>,
    to: Option<String>,
}

fn text(wire: InsertWire, at: &Located) -> Result<String> {
    match (wire.new_text, wire.text) {
        (Some(_), Some(_)) => Err(bad(at, "give `new_text` or `text`, not both")),
        (Some(t), None) | (None, Some(t)) => Ok(t),
        (None, None) => Err(bad(at, "`new_text` is required")),
    }
}

/// Compiles the operation `value` on `target` in `file`.
pub fn compile(
    value: &Value,
    target: TargetSpec,
    file: &str,
    handles: Handles<'_>,
    at: &Located,
    ctx: Ctx,
) -> Result<CompiledOp> {
    if !value.is_object() {
        return Err(bad(at, "`op` must be an object"));
    }
    let kind = tag(value, at)?.ok_or_else(|| bad(at, "`type` is required"))?;
    match kind.as_str() {
        "move_before" | "move_after" | "move_to_before" | "move_to_after" => {
            structure_move(value, &kind, target, file, handles, at, ctx)
        }
        "move" => file_move(decode(value, at)?, value, target, file, at, ctx),
        _ => {
            let op = node_op(&kind, value, at)?;
            targeted(op, &kind, value, target, file, at, ctx)
        }
    }
}

/// The edit of a targeted operation (every kind but the moves).
fn node_op(kind: &str, value: &Value, at: &Located) -> Result<NodeOp> {
    Ok(match kind {
        "replace" | "set_line" | "replace_lines" | "replace_range" => {
            let wire: ReplaceWire = decode(value, at)?;
            NodeOp::Replace(
                wire.new_text
                    .ok_or_else(|| bad(at, "`new_text` is required"))?,
            )
        }
        "delete" => {
            decode::<DeleteWire>(value, at)?;
            NodeOp::Delete
        }
        "insert_before" => NodeOp::InsertBefore(text(decode(value, at)?, at)?),
        "insert_after" | "insert_after_line" | "line_insert_after" => {
            NodeOp::InsertAfter(text(decode(value, at)?, at)?)
        }
        "insert" => NodeOp::Insert(text(decode(value, at)?, at)?),
        "scoped_regex" => {
            let wire: RegexWire = decode(value, at)?;
            let pattern = wire
                .pattern
                .ok_or_else(|| bad(at, "`pattern` is required"))?;
            regex::Regex::new(&pattern)
                .map_err(|e| bad(&at.key("pattern"), format!("invalid regex: {e}")))?;
            let replacement = wire
                .replacement
                .ok_or_else(|| bad(at, "`replacement` is required"))?;
            NodeOp::ScopedRegex {
                pattern,
                replacement,
            }
        }
        other => return Err(bad(&at.key("type"), format!("unknown operation `{other}`"))),
    })
}

/// One targeted plan operation: `op` (named `kind` in the request) on the target.
fn targeted(
    op: NodeOp,
    kind: &str,
    value: &Value,
    target: TargetSpec,
    file: &str,
    at: &Located,
    ctx: Ctx,
) -> Result<CompiledOp> {
    let Some(t) = target.target else {
        return Err(bad(at, "a `file` target takes only `move`"));
    };
    op.check(&t).map_err(|m| bad(at, m))?;
    crate::plan::check_line_op(kind, &t).map_err(|m| bad(at, m))?;
    let kind = OpKind::Targeted {
        target: t,
        op,
        expected: target.file_hash,
        repair: ctx.repair,
    };
    Ok(CompiledOp::edit(file, kind, target.json, value.clone()))
}

/// A config operation (`target: {"type": "config_path", …}`), checked by the config layer.
pub fn config(target: &Value, op: &Value, file: &str, at: &Located) -> Result<CompiledOp> {
    let kind = crate::formats::op_wire::op_kind(target, op).map_err(|e| {
        let message = format!("{}: {}", at.at, e.message);
        crate::error::Error { message, ..e }
            .detail("pointer", at.at.as_str())
            .detail("request_pointers", vec![at.owner.clone()])
    })?;
    Ok(CompiledOp::edit(file, kind, target.clone(), op.clone()))
}

/// `move {to}` on a `file` target: a rename that never replaces a file (chains excepted).
fn file_move(
    wire: RenameWire,
    value: &Value,
    target: TargetSpec,
    file: &str,
    at: &Located,
    ctx: Ctx,
) -> Result<CompiledOp> {
    if !target.whole_file {
        return Err(bad(
            at,
            "`move` needs a `file` target; move structures with move_before / move_after / move_to_before / move_to_after",
        ));
    }
    let to = wire.to.ok_or_else(|| bad(at, "`to` is required"))?;
    let mut kinds = vec![(
        file.to_owned(),
        OpKind::Move {
            to: PathSpec {
                raw: to,
                base: ctx.base,
            },
        },
    )];
    if let Some(hash) = target.file_hash {
        // The file precondition rides on a zero-byte insertion at the file's start.
        kinds.push((
            file.to_owned(),
            OpKind::Targeted {
                target: Target::FileStart,
                op: NodeOp::Insert(String::new()),
                expected: Some(hash),
                repair: false,
            },
        ));
    }
    Ok(CompiledOp {
        kinds,
        target: target.json,
        op: value.clone(),
        moves: true,
        renames: true,
    })
}

/// Moves a structure before or after a destination, in its own file or (`move_to_*`) in
/// `destination_file`: the exact bytes of the structure, with the literal `prefix` / `suffix`.
fn structure_move(
    value: &Value,
    kind: &str,
    source: TargetSpec,
    file: &str,
    handles: Handles<'_>,
    at: &Located,
    ctx: Ctx,
) -> Result<CompiledOp> {
    let wire: MoveWire = decode(value, at)?;
    let source_target = structure(&source, at)?;
    let dest_file = destination_file(wire.destination_file, kind, file, at)?;
    let dest_value = wire
        .destination
        .ok_or_else(|| bad(at, "`destination` is required"))?;
    // A cross-file destination's handle_ref names the destination file's table.
    let dest_table = match kind.starts_with("move_to_") {
        true => handles.by_file.get(&normal(&dest_file)).copied(),
        false => handles.own,
    };
    let (dest, dest_target) = destination(&dest_value, dest_table, &at.key("destination"))?;
    let move_in = MoveIn {
        from: PathSpec {
            raw: file.to_owned(),
            base: ctx.base,
        },
        source: source_target.clone(),
        after: kind.ends_with("_after"),
        prefix: wire.prefix.unwrap_or_default(),
        suffix: wire.suffix.unwrap_or_default(),
        moved: None,
    };
    let out = OpKind::Targeted {
        target: source_target,
        op: NodeOp::MoveOut,
        expected: source.file_hash,
        repair: false,
    };
    let into = OpKind::Targeted {
        target: dest_target,
        op: NodeOp::MoveIn(Box::new(move_in)),
        expected: dest.file_hash,
        repair: ctx.repair,
    };
    let mut op = value.clone();
    op["destination"] = dest.json;
    Ok(CompiledOp {
        kinds: vec![(file.to_owned(), out), (dest_file, into)],
        target: source.json,
        op,
        moves: true,
        renames: false,
    })
}

/// The structure a move takes out of its file.
fn structure(source: &TargetSpec, at: &Located) -> Result<Target> {
    match &source.target {
        Some(t) if t.is_structural() => Ok(t.clone()),
        _ => Err(bad(
            at,
            "a move takes a structure (node, symbol, selector, handle_ref) as its target",
        )),
    }
}

/// The file a move writes into: its own for `move_before` / `move_after`, another one
/// (`destination_file`) for `move_to_*`.
fn destination_file(given: Option<String>, kind: &str, file: &str, at: &Located) -> Result<String> {
    let key = "destination_file";
    if !kind.starts_with("move_to_") {
        return match given {
            Some(_) => Err(bad(
                &at.key(key),
                format!("unknown key `{key}`: only move_to_before / move_to_after take it"),
            )),
            None => Ok(file.to_owned()),
        };
    }
    let dest = given.ok_or_else(|| bad(at, format!("`{key}` is required")))?;
    if normal(&dest) == normal(file) {
        return Err(bad(
            &at.key(key),
            "`move_to_*` moves to another file; use move_before / move_after within a file",
        ));
    }
    Ok(dest)
}

/// A move's destination: a structure, a line (no end_anchor), file_start or file_end.
fn destination(
    value: &Value,
    table: Option<&Map<String, Value>>,
    at: &Located,
) -> Result<(TargetSpec, Target)> {
    let dest = targets::compile(value, table, at)?;
    match &dest.target {
        Some(Target::Lines { end: Some(_), .. }) | None => Err(bad(
            at,
            "a move's destination is a structure, a line (no end_anchor), file_start or file_end",
        )),
        Some(t) => {
            let t = t.clone();
            Ok((dest, t))
        }
    }
}

/// A path as written, without `./` segments (only to catch `move_to_*` onto its own file
/// early; the engine compares canonical paths).
pub fn normal(path: &str) -> String {
    path.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}
