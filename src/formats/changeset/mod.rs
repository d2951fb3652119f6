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
//! `report::changeset` from what the engine resolved; `apply` rebuilds them and compares.
//! This module reads a changeset back into a plan.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::error::{Code, Error, Result};
use crate::formats::request::{self, Compiled, Ctx};
use crate::plan::{Digest, PathBase};

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

pub(crate) fn tampered(message: impl Into<String>) -> Error {
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

/// The parts of a changeset `apply` compiles again: each file and its operations' `target`
/// and `op` (the rest is the record of what they did, checked by `verify`).
#[derive(Deserialize)]
struct RecordedWire {
    files: Vec<RecordedFile>,
}

#[derive(Deserialize)]
struct RecordedFile {
    #[serde(default)]
    file: Value,
    #[serde(default)]
    operations: Vec<RecordedOp>,
}

#[derive(Deserialize)]
struct RecordedOp {
    #[serde(default)]
    target: Value,
    #[serde(default)]
    op: Value,
}

/// The changeset's operations as an edit request in the batch shape, so they compile (and
/// point: `/files/0/operations/1`) as the request they were built from.
fn recorded_request(doc: &Map<String, Value>) -> Result<Value> {
    let wire = RecordedWire::deserialize(doc)
        .map_err(|e| Error::malformed(format!("a changeset needs a `files` list: {e}")))?;
    let entries: Vec<Value> = wire
        .files
        .into_iter()
        .map(|file| {
            let ops: Vec<Value> = file
                .operations
                .into_iter()
                .map(|o| json!({"target": o.target, "op": o.op}))
                .collect();
            json!({"file": file.file, "operations": ops})
        })
        .collect();
    Ok(json!({ "files": entries }))
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
    let request = recorded_request(&doc)?;
    let ctx = Ctx {
        base: PathBase::Root,
        repair,
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
