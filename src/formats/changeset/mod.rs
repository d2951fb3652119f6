//! The changeset: what `edit --json` builds from an edit request without writing, and what
//! `apply` re-proves and commits.
//!
//! ```json
//! {"type": "identedit_changeset", "changeset_version": "1",
//!  "request_sha256": "…", "transaction": {"mode": "all_or_nothing"},
//!  "files_read": {"a.py": "<sha256 of the bytes it was built on>"},
//!  "files": [{"file": "a.py", "sha256": "…",
//!             "operations": [{"request_pointer": "/operations/0", "target": {…}, "op": {…},
//!                             "preconditions": {…}, "preview": {…}}]}],
//!  "digest": "<sha256 over the canonical document without `digest`>"}
//! ```
//! Paths are root-relative; `handle_ref`, `symbol` and `selector` targets are recorded as the
//! node they resolved to (the original in `request_target`). Previews are built by
//! `preview.rs` from what the engine resolved; `apply` rebuilds them and compares.

pub mod preview;

use serde_json::{Map, Value, json};

use crate::error::{Code, Error, Result};
use crate::formats::request::{self, Compiled, Ctx};
use crate::plan::{Digest, PathBase, PathSpec};
use crate::txn::Outcome;
use crate::workspace::Workspace;
use crate::workspace::path;

pub const TYPE: &str = "identedit_changeset";
pub const VERSION: &str = "1";
/// The plan dialect of a compiled changeset.
pub const DIALECT: &str = "changeset";

/// What a JSON input of `apply` is.
pub enum Kind {
    Changeset(Map<String, Value>),
    /// A changeset shape without our type, digest and previews (another tool's).
    Foreign,
    Request,
    Other,
}

/// Tells a changeset (also wrapped as `{"command": "apply", "changeset": …}`) and an edit
/// request apart from other JSON.
pub fn classify(input: &[u8]) -> Kind {
    let Ok(Value::Object(mut doc)) = serde_json::from_slice::<Value>(input) else {
        return Kind::Other;
    };
    if doc.get("command").and_then(Value::as_str) == Some("apply")
        && let Some(Value::Object(inner)) = doc.shift_remove("changeset")
    {
        doc = inner;
    }
    let foreign = doc.contains_key("transaction") && doc.contains_key("files");
    if doc.get("type").and_then(Value::as_str) == Some(TYPE) {
        Kind::Changeset(doc)
    } else if foreign && !doc.contains_key("type") {
        Kind::Foreign
    } else if request::is_request(&doc) {
        Kind::Request
    } else {
        Kind::Other
    }
}

/// sha256 of a JSON value with every object's keys sorted (so reformatting keeps it).
pub fn canonical_digest(value: &Value) -> Digest {
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    write(&map[k], out);
                }
                out.push('}');
            }
            Value::Array(list) => {
                out.push('[');
                for (i, item) in list.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut text = String::new();
    write(value, &mut text);
    Digest::of(text.as_bytes())
}

fn rel(ws: &Workspace, raw: &str, base: PathBase) -> Result<path::TargetPath> {
    path::resolve(
        ws,
        &PathSpec {
            raw: raw.to_owned(),
            base,
        },
    )
}

/// Builds the changeset of a compiled request from the engine's dry run of its plan.
pub fn build(
    ws: &Workspace,
    compiled: &Compiled,
    outcome: &Outcome,
    base: PathBase,
) -> Result<Value> {
    let facts = preview::Facts::new(outcome);
    let mut files = Vec::with_capacity(compiled.files.len());
    for entry in &compiled.files {
        let path = rel(ws, &entry.file, base)?;
        let sha256 = facts.sha256(&path.key);
        let mut operations = Vec::with_capacity(entry.ops.len());
        for &i in &entry.ops {
            let op_json = root_relative(ws, &compiled.ops[i].op, base)?;
            operations.push(record(
                &compiled.ops[i],
                op_json,
                &path,
                sha256.as_deref(),
                &facts,
            ));
        }
        files.push(json!({"file": path.rel, "sha256": sha256, "operations": operations}));
    }
    let mut doc = json!({
        "type": TYPE, "changeset_version": VERSION,
        "request_sha256": compiled.plan.input_sha256.map(|d| d.to_hex()),
        "transaction": {"mode": "all_or_nothing"},
        "files_read": facts.files_read(),
        "files": files,
    });
    // The acknowledgement of API changes given to `edit` travels with the changeset (under
    // its digest), so `apply` honours it without repeating it.
    if compiled.plan.allow_signature_change {
        doc["allow_signature_change"] = json!(true);
    }
    doc["digest"] = json!(canonical_digest(&doc).to_hex());
    Ok(doc)
}

/// One operation as the changeset records it: its target bound to what it resolved to, the
/// preconditions and the preview.
fn record(
    op: &request::RequestOp,
    op_json: Value,
    path: &path::TargetPath,
    sha256: Option<&str>,
    facts: &preview::Facts<'_>,
) -> Value {
    let pointer = op.origin.pointer();
    let mut target = op.target.clone();
    let mut recorded = json!({"request_pointer": pointer});
    let node = facts.node(&pointer, &path.key);
    let kind = target
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("node")
        .to_owned();
    if let (Some(n), true) = (&node, matches!(kind.as_str(), "symbol" | "selector")) {
        recorded["request_target"] = target.clone();
        target = json!({"type": "node", "identity": n.identity, "kind": n.kind,
                        "expected_old_hash": n.hash,
                        "span_hint": {"start": n.span.start, "end": n.span.end}});
    }
    // File boundaries, whole files and config paths are bound to the file's full bytes:
    // a config plan is only valid on the source it was built on (`--repair` cannot help).
    if matches!(
        kind.as_str(),
        "file_start" | "file_end" | "file" | "config_path"
    ) && target.get("expected_file_hash").is_none()
    {
        target["expected_file_hash"] = json!(sha256);
    }
    let mut pre = json!({"file_sha256": sha256});
    if let Some(n) = node {
        pre["node"] = json!({"identity": n.identity, "kind": n.kind, "expected_old_hash": n.hash});
    }
    let anchors: Vec<&Value> = ["anchor", "end_anchor"]
        .iter()
        .filter_map(|k| target.get(*k))
        .collect();
    if !anchors.is_empty() {
        pre["line_anchors"] = json!(anchors);
    }
    let preview = facts.preview(&pointer, op.moves, &op_json, &path.rel);
    recorded["target"] = target;
    recorded["op"] = op_json;
    recorded["preconditions"] = pre;
    recorded["preview"] = preview;
    recorded
}

/// `destination_file` and a file move's `to`, made root-relative.
fn root_relative(ws: &Workspace, op: &Value, base: PathBase) -> Result<Value> {
    let mut op = op.clone();
    for key in ["destination_file", "to"] {
        if let Some(raw) = op.get(key).and_then(Value::as_str) {
            let p = rel(ws, raw, base)?;
            op[key] = json!(p.rel);
        }
    }
    Ok(op)
}

fn tampered(message: impl Into<String>) -> Error {
    Error::new(Code::ChangesetTampered, message)
        .hint("Rebuild the changeset with `edit --json` from the original request; never edit it by hand.")
}

/// A changeset as read by `apply`: its document and its operations compiled into a plan.
pub struct Loaded {
    pub doc: Map<String, Value>,
    pub compiled: Compiled,
    /// `apply --repair`: line ranges are taken from the current content.
    pub repair: bool,
}

/// Checks a changeset's version and digest and compiles its operations (paths from the
/// workspace root; `repair` lets stale line anchors move to their one new line).
pub fn load(mut doc: Map<String, Value>, input: &[u8], repair: bool) -> Result<Loaded> {
    if doc.get("changeset_version").and_then(Value::as_str) != Some(VERSION) {
        return Err(Error::new(
            Code::PlanUnsupported,
            format!("only changeset_version \"{VERSION}\" is executable by this build"),
        )
        .hint("Rebuild the changeset with this build's `edit --json`."));
    }
    let Some(Value::String(digest)) = doc.shift_remove("digest") else {
        return Err(tampered("the changeset has no `digest`"));
    };
    let actual = canonical_digest(&Value::Object(doc.clone())).to_hex();
    if actual != digest {
        return Err(tampered("the changeset's digest does not match its content: it was modified after `edit --json` built it")
            .detail("expected_digest", digest)
            .detail("actual_digest", actual));
    }
    let files = match doc.get("files") {
        Some(Value::Array(files)) => files,
        _ => return Err(Error::malformed("a changeset needs a `files` list")),
    };
    let mut entries = Vec::with_capacity(files.len());
    for file in files {
        let ops: Vec<Value> = file
            .get("operations")
            .and_then(Value::as_array)
            .map(|ops| {
                ops.iter()
                    .map(|o| json!({"target": o["target"], "op": o["op"]}))
                    .collect()
            })
            .unwrap_or_default();
        entries.push(
            json!({"file": file.get("file").cloned().unwrap_or(Value::Null), "operations": ops}),
        );
    }
    let mut request = Map::new();
    request.insert("files".into(), Value::Array(entries));
    // A stale line anchor is always looked for again (on its one line with that hash, never
    // among several): when the file changed elsewhere since it was built, the recorded
    // preview (the captured text) then decides whether the operation is rebased or refused.
    let ctx = Ctx {
        base: PathBase::Root,
        repair: true,
    };
    let mut compiled = request::compile(&request, ctx, DIALECT)?;
    compiled.plan.input_sha256 = Some(Digest::of(input));
    compiled.plan.allow_signature_change =
        doc.get("allow_signature_change") == Some(&Value::Bool(true));
    Ok(Loaded {
        doc,
        compiled,
        repair,
    })
}

/// What `apply` proved about a changeset beyond the engine's own checks.
pub struct Verified {
    /// Operations whose previews moved (the file changed elsewhere, or an anchor was
    /// repaired): their positions were refreshed from the current content.
    pub refreshed: Vec<String>,
    /// Stale line anchors remapped by `--repair`.
    pub repaired: Vec<Value>,
    /// Operations whose files changed since the changeset was built while the text they
    /// capture did not: `{pointer, from: {start_line, end_line}, to: {…}}`.
    pub rebased: Vec<Value>,
}

/// The lines a preview's splices cover in the file they were resolved on.
fn preview_lines(preview: &Value) -> Value {
    let spans: Vec<&Value> = match preview.get("splices").and_then(Value::as_array) {
        Some(list) => list.iter().map(|s| &s["matched_span"]).collect(),
        None => vec![&preview["matched_span"]],
    };
    let first = spans.iter().filter_map(|s| s["start_line"].as_u64()).min();
    let last = spans.iter().filter_map(|s| s["end_line"].as_u64()).max();
    json!({"start_line": first, "end_line": last})
}

/// Rebuilds every preview on the current files (the engine's dry run of the changeset's plan)
/// and compares it with the recorded one. When every file still has the bytes the changeset
/// was built on, previews must be identical; otherwise the captured text and the new text
/// must be, and positions are refreshed; with `--repair`, a line range may also have captured
/// other text (its inner lines changed) as long as it writes the same.
pub fn verify(loaded: &Loaded, outcome: &Outcome) -> Result<Verified> {
    let facts = preview::Facts::new(outcome);
    let unchanged = loaded.doc.get("files_read") == Some(&facts.files_read());
    let mut refreshed = Vec::new();
    let mut rebased = Vec::new();
    for (i, entry) in loaded.compiled.files.iter().enumerate() {
        for (j, &k) in entry.ops.iter().enumerate() {
            let op = &loaded.compiled.ops[k];
            let pointer = op.origin.pointer();
            let recorded = &loaded.doc["files"][i]["operations"][j];
            let fresh = facts.preview(&pointer, op.moves, &recorded["op"], &entry.file);
            let at = |e: Error| {
                e.detail("request_pointers", vec![pointer.clone()])
                    .detail("pointer", pointer.as_str())
            };
            match preview::compare(&recorded["preview"], &fresh) {
                // The file changed elsewhere but not this operation's text: it stands as built.
                preview::Comparison::Same if !unchanged => {
                    let lines = preview_lines(&fresh);
                    rebased.push(json!({"pointer": pointer, "path": entry.file,
                                        "from": lines, "to": lines}));
                }
                preview::Comparison::Same => {}
                preview::Comparison::Moved if !unchanged => {
                    rebased.push(json!({"pointer": pointer, "path": entry.file,
                                        "from": preview_lines(&recorded["preview"]),
                                        "to": preview_lines(&fresh)}));
                    refreshed.push(pointer.clone())
                }
                // `--repair` refreshes a line range whose anchors still hold (possibly
                // remapped) from the current content: only the text written must agree.
                preview::Comparison::Different
                    if !unchanged
                        && loaded.repair
                        && recorded["target"]["type"] == "line"
                        && preview::same_intent(&recorded["preview"], &fresh) =>
                {
                    refreshed.push(pointer.clone())
                }
                preview::Comparison::Different if !unchanged => {
                    return Err(at(Error::new(
                        Code::PreconditionFailed,
                        format!("{}: the text this operation captured when the changeset was built has changed", op.origin.label()),
                    )
                    .detail("recorded_preview", recorded["preview"].clone())
                    .detail("current_preview", fresh)
                    .hint("Re-read the file and rebuild the changeset with `edit --json`.")));
                }
                _ => {
                    return Err(at(tampered(format!(
                        "{}: the preview does not match what the operation does on the unchanged files",
                        op.origin.label()
                    ))
                    .detail("recorded_preview", recorded["preview"].clone())
                    .detail("current_preview", fresh)));
                }
            }
        }
    }
    // Anchors looked for again without `--repair` were rebased, not repaired.
    let repaired = match loaded.repair {
        true => facts.repaired(),
        false => Vec::new(),
    };
    Ok(Verified {
        refreshed,
        repaired,
        rebased,
    })
}
