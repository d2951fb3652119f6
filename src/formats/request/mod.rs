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

pub mod ops;
pub mod targets;

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};
use serde_path_to_error::Segment;

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

/// Decodes the object at `at` into its derived type; a shape error (an unknown key, a value
/// of the wrong type) points at the key it is about.
pub fn decode<'v, T: Deserialize<'v>>(value: &'v Value, at: &Located) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let place = match e.path().iter().next() {
            Some(Segment::Map { key }) => at.key(key),
            Some(Segment::Seq { index }) => at.key(&index.to_string()),
            _ => at.clone(),
        };
        bad(&place, e.into_inner().to_string())
    })
}

/// The `type` of a target or operation object (which derived type decodes the rest).
#[derive(Deserialize)]
struct Tag {
    #[serde(rename = "type")]
    kind: Option<String>,
}

pub fn tag(value: &Value, at: &Located) -> Result<Option<String>> {
    decode::<Tag>(value, at).map(|t| t.kind)
}

/// The request document. Each file entry and operation stays as written here and is decoded
/// on its own, so its errors name it (`request_pointers`); its JSON is what the changeset
/// records.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestWire {
    command: Option<String>,
    file: Option<String>,
    operations: Option<Vec<Value>>,
    files: Option<Vec<Value>>,
    handle_table: Option<Map<String, Value>>,
}

/// One file entry: the document itself in the single-file shape, an item of `files` in the
/// batch shape.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryWire {
    file: Option<String>,
    operations: Option<Vec<Value>>,
    handle_table: Option<Map<String, Value>>,
}

/// One operation: a target and an operation, or the node target's fields at the top level
/// (`identity`, `kind`, …, in the order written; decoded as a node target, which refuses
/// any other key).
#[derive(Deserialize)]
struct OperationWire {
    target: Option<Value>,
    op: Option<Value>,
    #[serde(flatten)]
    node: Map<String, Value>,
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
    /// A whole-file move (`move {to}`).
    pub renames: bool,
}

/// A compiled request: the plan, and the request's own structure for the changeset.
pub struct Compiled {
    pub plan: Plan,
    pub files: Vec<FileEntry>,
    pub ops: Vec<RequestOp>,
}

/// Parses an edit request (paths relative to the current directory).
pub fn parse(input: &[u8]) -> Result<Compiled> {
    let doc: Value = serde_json::from_slice(input)
        .map_err(|e| Error::malformed(format!("the request is not valid JSON: {e}")))?;
    if !doc.is_object() {
        return Err(Error::malformed("the request must be a JSON object"));
    }
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

/// Compiles a request document (a JSON object) in either shape.
pub fn compile(doc: &Value, ctx: Ctx, dialect: &'static str) -> Result<Compiled> {
    let top = Located::new("", String::new());
    let wire: RequestWire = decode(doc, &top)?;
    if wire.command.as_deref().is_some_and(|c| c != "edit") {
        return Err(bad(&top.key("command"), "`command` must be \"edit\""));
    }
    let mut out = Compiled {
        plan: Plan {
            dialect,
            ..Plan::default()
        },
        files: Vec::new(),
        ops: Vec::new(),
    };
    let single = wire.file.is_some() || wire.operations.is_some();
    match (single, wire.files) {
        (true, Some(_)) => Err(bad(
            &top,
            "use exactly one request shape: `file` + `operations`, or `files`",
        )),
        (false, None) => Err(bad(
            &top,
            "the request needs `file` + `operations` (one file) or `files` (a batch)",
        )),
        (true, None) => {
            let entry = EntryWire {
                file: wire.file,
                operations: wire.operations,
                handle_table: wire.handle_table,
            };
            compile_entry(&entry, None, &mut out, ctx, &HashMap::new())
        }
        (false, Some(list)) if list.is_empty() => {
            Err(bad(&top.key("files"), "`files` must be a non-empty list"))
        }
        (false, Some(list)) => batch(&list, &mut out, ctx),
    }?;
    Ok(out)
}

/// The file entries of the batch shape.
fn batch(list: &[Value], out: &mut Compiled, ctx: Ctx) -> Result<()> {
    let entries = list
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = Located::new(&format!("/files/{i}"), format!("/files/{i}"));
            match item.is_object() {
                true => decode::<EntryWire>(item, &at),
                false => Err(bad(&at, "a file entry must be an object")),
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let tables = tables(&entries);
    for (i, entry) in entries.iter().enumerate() {
        compile_entry(entry, Some(i), out, ctx, &tables)?;
    }
    Ok(())
}

/// The handle tables of a batch, by file as written.
fn tables(entries: &[EntryWire]) -> HashMap<String, &Map<String, Value>> {
    entries
        .iter()
        .filter_map(|e| Some((ops::normal(e.file.as_deref()?), e.handle_table.as_ref()?)))
        .collect()
}

/// One file entry (the whole document in the single-file shape; `index` in the batch shape).
fn compile_entry(
    wire: &EntryWire,
    index: Option<usize>,
    out: &mut Compiled,
    ctx: Ctx,
    tables: &HashMap<String, &Map<String, Value>>,
) -> Result<()> {
    let pointer = index.map(|i| format!("/files/{i}")).unwrap_or_default();
    let at = Located::new(&pointer, pointer.clone());
    let file = wire
        .file
        .clone()
        .ok_or_else(|| bad(&at, "`file` is required"))?;
    let list = wire
        .operations
        .as_ref()
        .ok_or_else(|| bad(&at.key("operations"), "`operations` must be a list"))?;
    let handles = ops::Handles {
        own: wire.handle_table.as_ref(),
        by_file: tables,
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
        let compiled = operation(item, &file, handles, &op_at, ctx)?;
        record(out, &mut entry, origin, compiled, ctx.base);
    }
    lone_renames(out, &entry, &at)?;
    out.files.push(entry);
    Ok(())
}

/// identedit's patch request: one `target` and one `op` at the top of a document, compiled
/// as the one operation of an edit request on `file` (its errors point at `/target`, `/op`).
pub fn single_operation(
    target: Value,
    op: Value,
    file: &str,
    ctx: Ctx,
) -> Result<Vec<(String, crate::plan::OpKind)>> {
    let item = Value::Object(Map::from_iter([
        ("target".into(), target),
        ("op".into(), op),
    ]));
    let handles = ops::Handles {
        own: None,
        by_file: &HashMap::new(),
    };
    let at = Located::new("", String::new());
    Ok(operation(&item, file, handles, &at, ctx)?.kinds)
}

/// One operation of a file entry (at `at`), compiled.
fn operation(
    item: &Value,
    file: &str,
    handles: ops::Handles<'_>,
    at: &Located,
    ctx: Ctx,
) -> Result<ops::CompiledOp> {
    if !item.is_object() {
        return Err(bad(at, "an operation must be an object"));
    }
    let wire: OperationWire = decode(item, at)?;
    // A node given at the top level is checked where it was written.
    let (target, target_at) = match (wire.target, targets::inline_node(wire.node)) {
        (Some(_), Some(node)) => {
            targets::check_node_keys(&node, at)?;
            return Err(bad(
                at,
                "give the node in `target` or at the top level, not both",
            ));
        }
        (Some(target), None) => (target, at.key("target")),
        (None, Some(node)) => (node, at.clone()),
        (None, None) => return Err(bad(at, "`target` is required")),
    };
    let op = wire.op.ok_or_else(|| bad(at, "`op` is required"))?;
    if crate::formats::op_wire::is_config_target(&target) {
        return ops::config(&target, &op, file, at);
    }
    let target = targets::compile(&target, handles.own, &target_at)?;
    ops::compile(&op, target, file, handles, &at.key("op"), ctx)
}

/// Adds a compiled operation to the plan and to its file entry.
fn record(
    out: &mut Compiled,
    entry: &mut FileEntry,
    origin: Origin,
    compiled: ops::CompiledOp,
    base: crate::plan::PathBase,
) {
    for (path, kind) in compiled.kinds {
        out.plan.ops.push(Op {
            path: PathSpec { raw: path, base },
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
        renames: compiled.renames,
    });
}

/// A file that is moved takes no other operation.
fn lone_renames(out: &Compiled, entry: &FileEntry, at: &Located) -> Result<()> {
    let renamed = entry.ops.iter().any(|&k| out.ops[k].renames);
    if !renamed || entry.ops.len() < 2 {
        return Ok(());
    }
    let pointers: Vec<String> = entry
        .ops
        .iter()
        .map(|&k| out.ops[k].origin.pointer())
        .collect();
    Err(bad(
        at,
        "a file that is moved takes no other operation: edit it in another request",
    )
    .detail("request_pointers", pointers))
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
