//! identedit's edit request (`edit --json` on stdin), compiled into a plan without reading a
//! file. Exactly one of two shapes:
//!
//! ```json
//! {"command": "edit", "file": "a.py", "handle_table": {…}?, "operations": [{"target": {…}, "op": {…}}]}
//! {"command": "edit", "files": [{"file": "a.py", "handle_table": {…}?, "operations": [ … ]}]}
//! ```
//! Targets are in `targets.rs`, operations in `ops.rs`. Unknown keys are refused everywhere.
//! Every operation keeps its place in the request (`Origin`, with the file entry as parent in
//! the batch shape), so errors point into the request (`request_pointers`).

pub mod files;
pub mod ops;
pub mod targets;

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::error::{Code, Error, Result};
use crate::plan::{Digest, Op, Origin, PathSpec, Plan};
pub use ops::Ctx;

/// The plan dialect of an edit request.
pub const DIALECT: &str = "edit_request";

/// Where the compiler is in the request: the operation (or file entry) an error belongs to,
/// and the exact place (a JSON Pointer).
#[derive(Clone, Debug)]
pub struct Located {
    pub owner: String,
    pub at: String,
    file: String,
}

impl Located {
    fn new(file: &str, owner: String) -> Self {
        Self {
            at: owner.clone(),
            owner,
            file: file.to_owned(),
        }
    }

    /// One key deeper.
    pub fn key(&self, key: &str) -> Located {
        let escaped = key.replace('~', "~0").replace('/', "~1");
        Located {
            at: format!("{}/{escaped}", self.at),
            ..self.clone()
        }
    }

    /// A place elsewhere in the same file entry (a `handle_table` entry).
    pub fn elsewhere(&self, path: String) -> Located {
        let escaped: Vec<String> = path.split('/').map(|p| p.replace('~', "~0")).collect();
        Located {
            at: format!("{}/{}", self.file, escaped.join("/")),
            ..self.clone()
        }
    }
}

/// A malformed request: the message says where, `pointer` is the exact place and
/// `request_pointers` the operation or file entry.
pub fn bad(at: &Located, message: impl Into<String>) -> Error {
    let place = if at.at.is_empty() { "/" } else { &at.at };
    Error::malformed(format!("{place}: {}", message.into()))
        .detail("pointer", at.at.as_str())
        .detail("request_pointers", vec![at.owner.clone()])
        .hint("Fix the request at `pointer`; the shapes are in README.md (JSON shapes).")
}

/// Refuses keys outside `allowed`.
pub fn keys(obj: &Map<String, Value>, allowed: &[&str], at: &Located) -> Result<()> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => {
            Err(bad(&at.key(key), format!("unknown key `{key}`"))
                .detail("allowed", allowed.to_vec()))
        }
        None => Ok(()),
    }
}

pub fn opt_str<'v>(
    obj: &'v Map<String, Value>,
    key: &str,
    at: &Located,
) -> Result<Option<&'v str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(bad(&at.key(key), format!("`{key}` must be a string"))),
    }
}

pub fn req_str<'v>(obj: &'v Map<String, Value>, key: &str, at: &Located) -> Result<&'v str> {
    opt_str(obj, key, at)?.ok_or_else(|| bad(at, format!("`{key}` is required")))
}

/// One file entry of the request.
#[derive(Clone, Debug)]
pub struct FileEntry {
    pub file: String,
    /// `/files/1` (empty in the single-file shape).
    pub pointer: String,
    /// Indices into [`Compiled::ops`].
    pub ops: Vec<usize>,
}

/// One operation of the request, in canonical form (handle references resolved).
#[derive(Clone, Debug)]
pub struct RequestOp {
    pub origin: Origin,
    pub entry: usize,
    pub target: Value,
    pub op: Value,
    pub moves: bool,
}

/// A compiled request: the plan, and the request's own structure for the changeset.
pub struct Compiled {
    pub plan: Plan,
    pub files: Vec<FileEntry>,
    pub ops: Vec<RequestOp>,
}

/// Parses an edit request (paths relative to the current directory).
pub fn parse(input: &[u8]) -> Result<Compiled> {
    let value: Value = serde_json::from_slice(input)
        .map_err(|e| Error::malformed(format!("the request is not valid JSON: {e}")))?;
    let Value::Object(doc) = value else {
        return Err(Error::malformed("the request must be a JSON object"));
    };
    let ctx = Ctx {
        base: crate::plan::PathBase::Cwd,
        repair: false,
    };
    let mut compiled = compile(&doc, ctx, DIALECT)?;
    compiled.plan.input_sha256 = Some(Digest::of(input));
    Ok(compiled)
}

/// Whether a JSON document is an edit request (`command: "edit"`, or the request shapes).
pub fn is_request(doc: &Map<String, Value>) -> bool {
    let batch = || {
        doc.get("files")
            .and_then(Value::as_array)
            .is_some_and(|f| f.iter().any(|e| e.get("operations").is_some()))
    };
    match doc.get("command") {
        Some(Value::String(c)) => c == "edit",
        _ => doc.contains_key("operations") || batch(),
    }
}

/// Compiles a request document in either shape.
pub fn compile(doc: &Map<String, Value>, ctx: Ctx, dialect: &'static str) -> Result<Compiled> {
    let top = Located::new("", String::new());
    keys(
        doc,
        &["command", "file", "operations", "files", "handle_table"],
        &top,
    )?;
    if let Some(command) = opt_str(doc, "command", &top)?
        && command != "edit"
    {
        return Err(bad(&top.key("command"), "`command` must be \"edit\""));
    }
    let single = doc.contains_key("file") || doc.contains_key("operations");
    let mut out = Compiled {
        plan: Plan {
            dialect,
            ..Plan::default()
        },
        files: Vec::new(),
        ops: Vec::new(),
    };
    match (single, doc.get("files")) {
        (true, Some(_)) => Err(bad(
            &top,
            "use exactly one request shape: `file` + `operations`, or `files`",
        )),
        (false, None) => Err(bad(
            &top,
            "the request needs `file` + `operations` (one file) or `files` (a batch)",
        )),
        (true, None) => entry(doc, None, &mut out, ctx, &HashMap::new()),
        (false, Some(Value::Array(list))) if !list.is_empty() => {
            let tables = tables(list);
            for (i, item) in list.iter().enumerate() {
                let at = Located::new(&format!("/files/{i}"), format!("/files/{i}"));
                let Value::Object(obj) = item else {
                    return Err(bad(&at, "a file entry must be an object"));
                };
                keys(obj, &["file", "operations", "handle_table"], &at)?;
                entry(obj, Some(i), &mut out, ctx, &tables)?;
            }
            Ok(())
        }
        (false, Some(_)) => Err(bad(&top.key("files"), "`files` must be a non-empty list")),
    }?;
    Ok(out)
}

/// The handle tables of a batch, by file as written.
fn tables(list: &[Value]) -> HashMap<String, &Map<String, Value>> {
    list.iter()
        .filter_map(|e| {
            let file = e.get("file")?.as_str()?;
            Some((ops::normal(file), e.get("handle_table")?.as_object()?))
        })
        .collect()
}

/// One file entry (the whole document in the single-file shape; `index` in the batch shape).
fn entry(
    obj: &Map<String, Value>,
    index: Option<usize>,
    out: &mut Compiled,
    ctx: Ctx,
    tables: &HashMap<String, &Map<String, Value>>,
) -> Result<()> {
    let pointer = index.map(|i| format!("/files/{i}")).unwrap_or_default();
    let at = Located::new(&pointer, pointer.clone());
    let file = req_str(obj, "file", &at)?.to_owned();
    let table = match obj.get("handle_table") {
        None | Some(Value::Null) => None,
        Some(Value::Object(t)) => Some(t),
        Some(_) => {
            return Err(bad(
                &at.key("handle_table"),
                "`handle_table` must be an object",
            ));
        }
    };
    let list = match obj.get("operations") {
        Some(Value::Array(list)) => list,
        _ => return Err(bad(&at.key("operations"), "`operations` must be a list")),
    };
    let mut entry = FileEntry {
        file: file.clone(),
        pointer: pointer.clone(),
        ops: Vec::new(),
    };
    for (j, item) in list.iter().enumerate() {
        let origin = Origin {
            parent: index.map(|i| ("files", i)),
            ..Origin::new("operations", j)
        };
        let op_at = Located::new(&pointer, origin.pointer());
        let Value::Object(op_obj) = item else {
            return Err(bad(&op_at, "an operation must be an object"));
        };
        keys(
            op_obj,
            &[
                "target",
                "op",
                "identity",
                "kind",
                "expected_old_hash",
                "span_hint",
            ],
            &op_at,
        )?;
        if op_obj.contains_key("target") && op_obj.len() > 2 {
            return Err(bad(
                &op_at,
                "give the node in `target` or at the top level, not both",
            ));
        }
        let target_value =
            ops::target_value(op_obj).ok_or_else(|| bad(&op_at, "`target` is required"))?;
        let op_value = op_obj
            .get("op")
            .ok_or_else(|| bad(&op_at, "`op` is required"))?;
        let compiled = if crate::locate::config::wire::is_config_target(&target_value) {
            ops::config(&target_value, op_value, &file, &op_at)?
        } else {
            let target = targets::compile(&target_value, table, &op_at.key("target"))?;
            let handles = ops::Handles {
                own: table,
                by_file: tables,
            };
            ops::compile(op_value, target, &file, handles, &op_at.key("op"), ctx)?
        };
        for (path, kind) in compiled.kinds {
            out.plan.ops.push(Op {
                path: PathSpec {
                    raw: path,
                    base: ctx.base,
                },
                origin: origin.clone(),
                kind,
            });
        }
        entry.ops.push(out.ops.len());
        out.ops.push(RequestOp {
            origin,
            entry: out.files.len(),
            target: compiled.target,
            op: compiled.op,
            moves: compiled.moves,
        });
    }
    let renames = entry.ops.iter().filter(|&&k| is_file_move(&out.ops[k]));
    if renames.count() > 0 && entry.ops.len() > 1 {
        let pointers: Vec<String> = entry
            .ops
            .iter()
            .map(|&k| out.ops[k].origin.pointer())
            .collect();
        return Err(bad(
            &at,
            "a file that is moved takes no other operation: edit it in another request",
        )
        .detail("request_pointers", pointers));
    }
    out.files.push(entry);
    Ok(())
}

fn is_file_move(op: &RequestOp) -> bool {
    op.op.get("type").and_then(Value::as_str) == Some("move")
}

/// Adds `request_pointers` to an engine error from the pointers it carries (`pointer`, the
/// two of a conflict in `edits`, every failure's), and turns a stale line anchor into
/// `invalid_request` (its `line_check` stays a structured field).
pub fn pointed(mut error: Error) -> Error {
    let mut pointers: Vec<String> = Vec::new();
    let mut add = |v: Option<&Value>| {
        if let Some(p) = v.and_then(Value::as_str)
            && !pointers.iter().any(|q| q == p)
        {
            pointers.push(p.to_owned());
        }
    };
    add(error.details.get("pointer"));
    if let Some(Value::Array(list)) = error.details.get("edits") {
        list.iter().for_each(|p| add(Some(p)));
    }
    if let Some(Value::Array(list)) = error.details.get("failures") {
        list.iter().for_each(|f| add(f.get("pointer")));
    }
    if !pointers.is_empty() && !error.details.contains_key("request_pointers") {
        error = error.detail("request_pointers", pointers);
    }
    if error.code == Code::PreconditionFailed && error.details.contains_key("line_check") {
        if let Some(all) = combined_line_check(&error) {
            error.details.insert("line_check".into(), all);
        }
        error.code = Code::InvalidRequest;
        error.hint = Some(
            "Inspect `line_check` (mismatches, remap_candidates), refresh the anchors with `read --mode line` and rebuild once; a changeset whose lines only moved applies with `apply --repair`.".into(),
        );
    }
    error
}

/// One `line_check` for every stale anchor of a combined failure (each failure carries its
/// own): all mismatches, and the summary counted over them.
fn combined_line_check(error: &Error) -> Option<Value> {
    let Some(Value::Array(failures)) = error.details.get("failures") else {
        return None;
    };
    let mismatches: Vec<Value> = failures
        .iter()
        .filter_map(|f| f.get("line_check")?.get("mismatches")?.as_array().cloned())
        .flatten()
        .collect();
    let candidates = |m: &Value| m["remap_candidates"].as_array().map_or(0, Vec::len);
    let remappable = mismatches.iter().filter(|m| candidates(m) == 1).count();
    let ambiguous = mismatches.iter().filter(|m| candidates(m) > 1).count();
    Some(serde_json::json!({"ok": false, "mismatches": mismatches,
        "summary": {"total": mismatches.len(), "matched": 0, "mismatched": mismatches.len(),
                    "remappable": remappable, "ambiguous": ambiguous}}))
}

#[cfg(test)]
mod tests;
