//! The `changed_files` and `unchanged_files` entries of an outcome's document, serialized
//! straight to JSON text from the engine's reports. A plan of 5,000 edits would otherwise
//! build a tree of about 60,000 JSON values (9 MB on W4) at the very end of the command, the
//! moment its memory peaks; as text they are 1 MB.

use serde::Serialize;
use serde_json::value::RawValue;

use crate::change::{Action, EditReport, FileChange, LineSpan, Rebased};

/// One file: where, what happened, the digests either side and each edit.
#[derive(Serialize)]
struct FileJson<'a> {
    path: &'a str,
    action: Action,
    sha256_before: Option<String>,
    sha256_after: Option<String>,
    edits: Vec<EditJson<'a>>,
}

/// One operation of the plan, as it landed.
#[derive(Serialize)]
struct EditJson<'a> {
    pointer: &'a str,
    matched_by: &'a str,
    replacements: usize,
    lines: &'a [LineSpan],
    #[serde(skip_serializing_if = "Option::is_none")]
    target: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    regex_replacements: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    auto_repaired: Vec<Repaired>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rebased: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rebased_lines: Option<Rebased>,
}

#[derive(Serialize)]
struct Repaired {
    from: usize,
    to: usize,
}

impl<'a> FileJson<'a> {
    fn of(change: &'a FileChange) -> Self {
        Self {
            path: &change.path.rel,
            action: change.action,
            sha256_before: change.digest_before().map(|d| d.to_hex()),
            sha256_after: change.digest_after().map(|d| d.to_hex()),
            edits: change.edits.iter().map(EditJson::of).collect(),
        }
    }
}

impl<'a> EditJson<'a> {
    fn of(edit: &'a EditReport) -> Self {
        Self {
            pointer: &edit.pointer,
            matched_by: edit.matched_by,
            replacements: edit.spans.len(),
            lines: &edit.spans,
            target: edit.target.as_deref(),
            input_line: edit.input_line,
            regex_replacements: edit.regex_replacements,
            auto_repaired: edit
                .repaired
                .iter()
                .map(|&(from, to)| Repaired { from, to })
                .collect(),
            rebased: edit.rebased.map(|_| true),
            rebased_lines: edit.rebased,
        }
    }
}

/// The JSON array of `files`, one object per file, as text.
pub fn files_json(files: &[&FileChange]) -> Box<RawValue> {
    let entries: Vec<FileJson> = files.iter().map(|c| FileJson::of(c)).collect();
    super::raw_json(&entries)
}
