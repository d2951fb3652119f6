//! Operations of an edit request (`op: {"type": …}`) and what each becomes in the plan: one
//! targeted operation, the two halves of a structure move (`MoveOut` in the source file,
//! `MoveIn` in the destination), or a whole-file move.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::targets::{self, TargetSpec};
use super::{Located, bad, keys, opt_str, req_str};
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
}

fn text<'v>(obj: &'v Map<String, Value>, at: &Located) -> Result<&'v str> {
    match (opt_str(obj, "new_text", at)?, opt_str(obj, "text", at)?) {
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
    let Value::Object(obj) = value else {
        return Err(bad(at, "`op` must be an object"));
    };
    let kind = req_str(obj, "type", at)?;
    let single = |op: NodeOp| -> Result<CompiledOp> {
        let Some(t) = target.target.clone() else {
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
        Ok(CompiledOp {
            kinds: vec![(file.to_owned(), kind)],
            target: target.json.clone(),
            op: value.clone(),
            moves: false,
        })
    };
    match kind {
        "replace" | "set_line" | "replace_lines" | "replace_range" => {
            keys(obj, &["type", "new_text"], at)?;
            single(NodeOp::Replace(text(obj, at)?.to_owned()))
        }
        "delete" => {
            keys(obj, &["type"], at)?;
            single(NodeOp::Delete)
        }
        "insert_before" => {
            keys(obj, &["type", "new_text", "text"], at)?;
            single(NodeOp::InsertBefore(text(obj, at)?.to_owned()))
        }
        "insert_after" | "insert_after_line" | "line_insert_after" => {
            keys(obj, &["type", "new_text", "text"], at)?;
            single(NodeOp::InsertAfter(text(obj, at)?.to_owned()))
        }
        "insert" => {
            keys(obj, &["type", "new_text", "text"], at)?;
            single(NodeOp::Insert(text(obj, at)?.to_owned()))
        }
        "scoped_regex" => {
            keys(obj, &["type", "pattern", "replacement"], at)?;
            let pattern = req_str(obj, "pattern", at)?.to_owned();
            regex::Regex::new(&pattern)
                .map_err(|e| bad(&at.key("pattern"), format!("invalid regex: {e}")))?;
            single(NodeOp::ScopedRegex {
                pattern,
                replacement: req_str(obj, "replacement", at)?.to_owned(),
            })
        }
        "move_before" | "move_after" | "move_to_before" | "move_to_after" => {
            structure_move(obj, kind, target, file, handles, at, ctx)
        }
        "move" => {
            keys(obj, &["type", "to"], at)?;
            file_move(obj, target, file, at, ctx)
        }
        other => Err(bad(&at.key("type"), format!("unknown operation `{other}`"))),
    }
}

/// A config operation (`target: {"type": "config_path", …}`), checked by the config layer.
pub fn config(target: &Value, op: &Value, file: &str, at: &Located) -> Result<CompiledOp> {
    let kind = crate::locate::config::wire::op_kind(target, op).map_err(|e| {
        let message = format!("{}: {}", at.at, e.message);
        crate::error::Error { message, ..e }
            .detail("pointer", at.at.as_str())
            .detail("request_pointers", vec![at.owner.clone()])
    })?;
    Ok(CompiledOp {
        kinds: vec![(file.to_owned(), kind)],
        target: target.clone(),
        op: op.clone(),
        moves: false,
    })
}

/// `move {to}` on a `file` target: a rename that never replaces a file (chains excepted).
fn file_move(
    obj: &Map<String, Value>,
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
    let to = req_str(obj, "to", at)?.to_owned();
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
        op: Value::Object(obj.clone()),
        moves: true,
    })
}

/// Moves a structure before or after a destination, in its own file or (`move_to_*`) in
/// `destination_file`: the exact bytes of the structure, with the literal `prefix` / `suffix`.
fn structure_move(
    obj: &Map<String, Value>,
    kind: &str,
    source: TargetSpec,
    file: &str,
    handles: Handles<'_>,
    at: &Located,
    ctx: Ctx,
) -> Result<CompiledOp> {
    let cross = kind.starts_with("move_to_");
    let mut allowed = vec!["type", "destination", "prefix", "suffix"];
    if cross {
        allowed.push("destination_file");
    }
    keys(obj, &allowed, at)?;
    let source_target = match &source.target {
        Some(t) if t.is_structural() => t.clone(),
        _ => {
            return Err(bad(
                at,
                "a move takes a structure (node, symbol, selector, handle_ref) as its target",
            ));
        }
    };
    let dest_file = if cross {
        let dest = req_str(obj, "destination_file", at)?;
        if normal(dest) == normal(file) {
            return Err(bad(
                &at.key("destination_file"),
                "`move_to_*` moves to another file; use move_before / move_after within a file",
            ));
        }
        dest.to_owned()
    } else {
        file.to_owned()
    };
    let dest_value = obj
        .get("destination")
        .ok_or_else(|| bad(at, "`destination` is required"))?;
    // A cross-file destination's handle_ref names the destination file's table.
    let dest_table = match cross {
        true => handles.by_file.get(&normal(&dest_file)).copied(),
        false => handles.own,
    };
    let dest = targets::compile(dest_value, dest_table, &at.key("destination"))?;
    let dest_target = match &dest.target {
        Some(Target::Lines { end: Some(_), .. }) | None => {
            return Err(bad(
                &at.key("destination"),
                "a move's destination is a structure, a line (no end_anchor), file_start or file_end",
            ));
        }
        Some(t) => t.clone(),
    };
    let literal = |key: &str| opt_str(obj, key, at).map(|v| v.unwrap_or_default().to_owned());
    let move_in = MoveIn {
        from: PathSpec {
            raw: file.to_owned(),
            base: ctx.base,
        },
        source: source_target.clone(),
        after: kind.ends_with("_after"),
        prefix: literal("prefix")?,
        suffix: literal("suffix")?,
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
    let mut op = obj.clone();
    op.insert("destination".into(), dest.json);
    Ok(CompiledOp {
        kinds: vec![(file.to_owned(), out), (dest_file, into)],
        target: source.json,
        op: Value::Object(op),
        moves: true,
    })
}

/// A path as written, without `./` segments (only to catch `move_to_*` onto its own file
/// early; the engine compares canonical paths).
pub fn normal(path: &str) -> String {
    path.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// The node target given at an operation's top level, when `target` is absent.
pub fn target_value(op: &Map<String, Value>) -> Option<Value> {
    op.get("target")
        .cloned()
        .or_else(|| targets::inline_node(op))
}
