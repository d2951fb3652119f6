//! The syntax layer's part of a success document: `structure_changes` (what the gate observed
//! per file) and `locations` (the pre-edit positions that were checked).

use serde_json::{Value, json};

use crate::change::{Action, FileChange};

/// Most locations listed; the rest are counted in `locations_omitted`.
pub const MAX_LOCATIONS: usize = 16;
/// Most names listed per change list of a file; the rest are counted.
const MAX_NAMES: usize = 32;

fn capped<T: serde::Serialize>(list: &[T]) -> (Value, usize) {
    let shown: Vec<&T> = list.iter().take(MAX_NAMES).collect();
    (json!(shown), list.len().saturating_sub(MAX_NAMES))
}

/// One entry per file of the plan: `checked` with what appeared, disappeared or changed count;
/// `unavailable` when nothing could be observed (no provider, a deleted or unchanged file);
/// `out_of_scope` when the file is too large for the gate.
pub fn structure_changes(files: &[FileChange]) -> Value {
    files
        .iter()
        .map(|c| match (&c.syntax, c.action) {
            (Some(s), _) => {
                let (appeared, a) = capped(&s.appeared);
                let (disappeared, d) = capped(&s.disappeared);
                let (count_changed, n) = capped(&s.count_changed);
                json!({"path": c.path.rel, "status": s.status, "reason": s.reason, "language": s.language,
                       "scope": s.scope, "errors_before": s.errors_before, "errors_after": s.errors_after,
                       "appeared": appeared, "disappeared": disappeared, "count_changed": count_changed,
                       "omitted": a + d + n})
            }
            (None, action) => {
                let why = if action == Action::Deleted { "deleted" } else { "unchanged" };
                json!({"path": c.path.rel, "status": "unavailable", "reason": why})
            }
        })
        .collect()
}

/// The checked positions, in the files as read: up to [`MAX_LOCATIONS`], and how many more.
/// Only the shown ones are built: a plan of thousands of edits counts the rest.
pub fn locations(files: &[FileChange]) -> (Value, usize) {
    let all = files.iter().flat_map(|c| {
        c.edits
            .iter()
            .flat_map(move |e| e.spans.iter().map(move |s| (c, e, s)))
    });
    let total = all.clone().count();
    let shown = all.take(MAX_LOCATIONS).map(|(c, e, s)| {
        json!({"path": c.path.rel, "pointer": e.pointer, "start_line": s.old_start,
               "end_line": s.old_end, "target": e.target})
    });
    (
        Value::Array(shown.collect()),
        total.saturating_sub(MAX_LOCATIONS),
    )
}
