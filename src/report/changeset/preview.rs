//! Previews: what each operation of a changeset resolved to, taken from the engine's dry run
//! (byte ranges in the file as read and in the result), and their comparison at `apply`.
//!
//! One splice: `{old_hash, old_len, new_text, matched_span: {start, end, start_line,
//! end_line}}` (bytes are offsets in the file as read, lines 1-based). A structure move:
//! `{move: {from: splice + file, to: splice + file}}`; a file move: `{move: {from, to}}`.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::change::{EditReport, FileChange, NodeFacts};
use crate::lang::hash::content_hash;

/// The dry run's facts, by operation pointer and by file.
pub struct Facts<'o> {
    files: &'o [FileChange],
    by_pointer: HashMap<&'o str, Vec<(&'o FileChange, &'o EditReport)>>,
}

impl<'o> Facts<'o> {
    pub fn new(files: &'o [FileChange]) -> Self {
        let mut by_pointer: HashMap<&str, Vec<_>> = HashMap::new();
        for change in files {
            for report in &change.edits {
                by_pointer
                    .entry(report.pointer.as_str())
                    .or_default()
                    .push((change, report));
            }
        }
        Self { files, by_pointer }
    }

    /// sha256 of the file with this key as the engine read it.
    pub fn sha256(&self, key: &str) -> Option<String> {
        self.files
            .iter()
            .find(|c| c.path.key == key && c.before.is_some())
            .and_then(|c| c.digest_before())
            .map(|d| d.to_hex())
    }

    /// Every file the engine read, root-relative path → sha256.
    pub fn files_read(&self) -> Value {
        let read: Map<String, Value> = self
            .files
            .iter()
            .filter_map(|c| Some((c.path.rel.clone(), json!(c.digest_before()?.to_hex()))))
            .collect();
        Value::Object(read)
    }

    /// The structure the operation's target resolved to in the file `key`.
    pub fn node(&self, pointer: &str, key: &str) -> Option<NodeFacts> {
        self.by_pointer
            .get(pointer)?
            .iter()
            .filter(|(c, _)| c.path.key == key)
            .find_map(|(_, r)| r.node.as_deref().cloned())
    }

    /// Every stale line anchor the engine remapped (`apply --repair`).
    pub fn repaired(&self) -> Vec<Value> {
        let mut out: Vec<Value> = self
            .files
            .iter()
            .flat_map(|c| &c.edits)
            .flat_map(|r| {
                r.repaired.iter().map(
                    |(from, to)| json!({"pointer": r.pointer, "from_line": from, "to_line": to}),
                )
            })
            .collect();
        out.sort_by_key(|v| v.to_string());
        out
    }

    /// The preview of the operation at `pointer`.
    pub fn preview(&self, pointer: &str, moves: bool, op: &Value, file: &str) -> Value {
        if op.get("type").and_then(Value::as_str) == Some("move") {
            return json!({"move": {"from": file, "to": op.get("to")}});
        }
        let splices: Vec<Value> = self
            .by_pointer
            .get(pointer)
            .into_iter()
            .flatten()
            .flat_map(|(c, r)| splices(c, r))
            .collect();
        if moves {
            let is_from = |s: &&Value| s["old_len"].as_u64().is_some_and(|n| n > 0);
            let from = splices.iter().find(is_from);
            let to = splices.iter().find(|s| !is_from(s));
            return json!({"move": {"from": from, "to": to}});
        }
        match <[Value; 1]>::try_from(splices) {
            Ok([mut one]) => {
                if let Some(obj) = one.as_object_mut() {
                    obj.shift_remove("file");
                }
                one
            }
            Err(all) => json!({"splices": all}),
        }
    }
}

fn splices(change: &FileChange, report: &EditReport) -> Vec<Value> {
    let Some(before) = &change.before else {
        return Vec::new();
    };
    let pre = before.bytes.get();
    let after = change.after_bytes();
    let after = after.as_deref().unwrap_or(&pre);
    report
        .byte_ranges
        .iter()
        .enumerate()
        .map(|(k, (old, new))| {
            let lines = report.spans.get(k);
            let old_bytes = pre.get(old.clone()).unwrap_or_default();
            let new_bytes = after.get(new.clone()).unwrap_or_default();
            json!({
                "file": change.path.rel,
                "old_hash": content_hash(old_bytes),
                "old_len": old_bytes.len(),
                "new_text": String::from_utf8_lossy(new_bytes),
                "matched_span": {"start": old.start, "end": old.end,
                                 "start_line": lines.map(|l| l.old_start),
                                 "end_line": lines.map(|l| l.old_end)},
            })
        })
        .collect()
}

/// How a recorded preview compares with the one rebuilt on the current files.
#[derive(Debug, PartialEq, Eq)]
pub enum Comparison {
    Same,
    /// Only positions differ (the file changed elsewhere, or `--repair` moved an anchor).
    Moved,
    /// Captured text or new text differ.
    Different,
}

fn without_spans(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "matched_span")
                .map(|(k, v)| (k.clone(), without_spans(v)))
                .collect(),
        ),
        Value::Array(list) => Value::Array(list.iter().map(without_spans).collect()),
        other => other.clone(),
    }
}

/// The preview without what the current content decides (positions and the captured text):
/// what `--repair` keeps of a line range whose inner lines changed.
fn intent(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "matched_span" | "old_hash" | "old_len"))
                .map(|(k, v)| (k.clone(), intent(v)))
                .collect(),
        ),
        Value::Array(list) => Value::Array(list.iter().map(intent).collect()),
        other => other.clone(),
    }
}

/// Whether two previews write the same text, whatever they captured.
pub fn same_intent(recorded: &Value, fresh: &Value) -> bool {
    intent(recorded) == intent(fresh)
}

pub fn compare(recorded: &Value, fresh: &Value) -> Comparison {
    if recorded == fresh {
        Comparison::Same
    } else if without_spans(recorded) == without_spans(fresh) {
        Comparison::Moved
    } else {
        Comparison::Different
    }
}
