//! The changeset `edit --json` prints, built from the engine's dry run of a compiled edit
//! request, and what `apply` proves about one beyond the engine's own checks: every preview
//! rebuilt on the current files and compared with the recorded one (`preview.rs`). Reading a
//! changeset back into a plan is `formats::changeset`.

pub mod preview;

use serde_json::{Value, json};

use crate::change::FileChange;
use crate::error::{Code, Error, Result};
use crate::formats::changeset::{Loaded, TYPE, VERSION, canonical_digest, tampered};
use crate::formats::request::{self, Compiled};
use crate::plan::{PathBase, PathSpec};
use crate::txn::Outcome;
use crate::workspace::Workspace;
use crate::workspace::path;

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
    let facts = preview::Facts::new(&outcome.files);
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
pub fn verify(loaded: &Loaded, files: &[FileChange]) -> Result<Verified> {
    let facts = preview::Facts::new(files);
    let unchanged = loaded.doc.get("files_read") == Some(&facts.files_read());
    let mut verified = Verified {
        refreshed: Vec::new(),
        repaired: Vec::new(),
        rebased: Vec::new(),
    };
    for (i, entry) in loaded.compiled.files.iter().enumerate() {
        for (j, &k) in entry.ops.iter().enumerate() {
            let op = &loaded.compiled.ops[k];
            let pointer = op.origin.pointer();
            let recorded = &loaded.doc["files"][i]["operations"][j];
            let fresh = facts.preview(&pointer, op.moves, &recorded["op"], &entry.file);
            let seen = Seen {
                pointer: pointer.clone(),
                label: op.origin.label(),
                path: &entry.file,
                recorded,
                fresh,
            };
            judge(loaded, unchanged, seen, &mut verified).map_err(|e| {
                e.detail("request_pointers", vec![pointer.clone()])
                    .detail("pointer", pointer.as_str())
            })?;
        }
    }
    // Anchors looked for again without `--repair` were rebased, not repaired.
    if loaded.repair {
        verified.repaired = facts.repaired();
    }
    Ok(verified)
}

/// One operation of a changeset as recorded and as the dry run on the current files saw it.
struct Seen<'a> {
    pointer: String,
    label: String,
    path: &'a str,
    recorded: &'a Value,
    fresh: Value,
}

/// Whether one operation's recorded preview stands (noting a rebase or a refresh), else why not.
fn judge(loaded: &Loaded, unchanged: bool, seen: Seen<'_>, verified: &mut Verified) -> Result<()> {
    let Seen {
        pointer,
        label,
        path,
        recorded,
        fresh,
    } = seen;
    match preview::compare(&recorded["preview"], &fresh) {
        preview::Comparison::Same if unchanged => {}
        // The file changed elsewhere but not this operation's text: it stands as built.
        preview::Comparison::Same => {
            let lines = preview_lines(&fresh);
            verified
                .rebased
                .push(json!({"pointer": pointer, "path": path, "from": lines, "to": lines}));
        }
        preview::Comparison::Moved if !unchanged => {
            verified
                .rebased
                .push(json!({"pointer": pointer, "path": path,
                                         "from": preview_lines(&recorded["preview"]),
                                         "to": preview_lines(&fresh)}));
            verified.refreshed.push(pointer);
        }
        // `--repair` refreshes a line range whose anchors still hold (possibly remapped) from
        // the current content: only the text written must agree.
        preview::Comparison::Different
            if !unchanged
                && loaded.repair
                && recorded["target"]["type"] == "line"
                && preview::same_intent(&recorded["preview"], &fresh) =>
        {
            verified.refreshed.push(pointer);
        }
        preview::Comparison::Different if !unchanged => {
            return Err(Error::new(
                Code::PreconditionFailed,
                format!("{label}: the text this operation captured when the changeset was built has changed"),
            )
            .detail("recorded_preview", recorded["preview"].clone())
            .detail("current_preview", fresh)
            .hint("Re-read the file and rebuild the changeset with `edit --json`."));
        }
        _ => {
            return Err(tampered(format!(
                "{label}: the preview does not match what the operation does on the unchanged files"
            ))
            .detail("recorded_preview", recorded["preview"].clone())
            .detail("current_preview", fresh));
        }
    }
    Ok(())
}
