//! The syntax layer's part of a success document: `structure_changes` (what the gate observed
//! per file) and `locations` (the pre-edit positions that were checked).

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::change::{Action, FileChange};
use crate::lang::gate::Named;

/// Most locations listed; the rest are counted in `locations_omitted`.
pub const MAX_LOCATIONS: usize = 16;
/// Most names listed per change list of a file; the rest are counted.
const MAX_NAMES: usize = 32;

/// What the gate observed about one file, as `structure_changes` lists it.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Observed<'a> {
    Checked {
        path: &'a str,
        status: &'a str,
        reason: Option<&'a str>,
        language: Option<&'a str>,
        scope: &'a str,
        errors_before: Option<usize>,
        errors_after: Option<usize>,
        appeared: &'a [Named],
        disappeared: &'a [Named],
        count_changed: &'a [Named],
        omitted: usize,
    },
    Unavailable {
        path: &'a str,
        status: &'a str,
        reason: &'a str,
    },
}

/// The first [`MAX_NAMES`] of a list, and how many more there are.
fn capped(list: &[Named]) -> (&[Named], usize) {
    let shown = list.len().min(MAX_NAMES);
    (&list[..shown], list.len() - shown)
}

impl<'a> Observed<'a> {
    fn of(change: &'a FileChange) -> Self {
        let path = change.path.rel.as_str();
        let Some(s) = &change.syntax else {
            let why = match change.action {
                Action::Deleted => "deleted",
                _ => "unchanged",
            };
            return Self::Unavailable {
                path,
                status: "unavailable",
                reason: why,
            };
        };
        let (appeared, a) = capped(&s.appeared);
        let (disappeared, d) = capped(&s.disappeared);
        let (count_changed, n) = capped(&s.count_changed);
        Self::Checked {
            path,
            status: s.status,
            reason: s.reason,
            language: s.language,
            scope: s.scope,
            errors_before: s.errors_before,
            errors_after: s.errors_after,
            appeared,
            disappeared,
            count_changed,
            omitted: a + d + n,
        }
    }
}

/// One entry per file of the plan, as JSON text: `checked` with what appeared, disappeared or
/// changed count; `unavailable` when nothing could be observed (no provider, a deleted or
/// unchanged file); `out_of_scope` when the file is too large for the gate. (Text, not a tree
/// of values: a plan of 1,000 files would build one at the command's peak.)
pub fn structure_changes(files: &[FileChange]) -> Box<RawValue> {
    let entries: Vec<Observed> = files.iter().map(Observed::of).collect();
    super::raw_json(&entries)
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
