//! What a command tells its caller: the JSON document (one per invocation, success or failure)
//! and the concise text a person reads. Pure functions of outcomes and errors; no I/O.

pub mod changeset;
pub mod diff;
mod files;
pub mod nearest;
pub mod range;
pub mod read;
pub mod structure;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::change::{Action, FileChange};
use crate::error::Error;
use crate::plan::Plan;
use crate::txn::Outcome;
use crate::txn::journal::Recovered;

/// Version of every JSON document printed on stdout.
pub const SCHEMA_VERSION: &str = "1.0";

/// A command's result, ready to print in either format.
#[derive(Default)]
pub struct Report {
    pub json: Map<String, Value>,
    pub text: String,
    /// Print `json` as it is, without the `{schema_version, command, ok}` envelope.
    pub raw: bool,
    /// Text for stderr in text mode (the summary, when stdout carries a diff).
    pub note: String,
    /// Exit code of a result that is not an error but not a success either (`verify`:
    /// 1 failed, 3 incomplete). `None` is 0.
    pub exit: Option<u8>,
    /// Values held in a form of their own, each printed in place of the `null` its key holds
    /// in `json` (see [`Report::splice`]).
    pub spliced: Vec<(String, Part)>,
}

/// A large value of a report, held not as a tree of JSON values but in the form it is printed
/// from.
pub enum Part {
    /// JSON text, printed as it is.
    Text(Box<RawValue>),
    /// A commit's diff: `{text, file_moves}` (see [`commit_diff`]).
    Diff(CommitDiff),
}

impl serde::Serialize for Part {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(text) => text.serialize(serializer),
            Self::Diff(diff) => diff.serialize(serializer),
        }
    }
}

impl From<Box<RawValue>> for Part {
    fn from(text: Box<RawValue>) -> Self {
        Self::Text(text)
    }
}

impl Report {
    /// A result of `json` (inside the envelope) and `text`: exit 0, no note on stderr.
    pub fn new(json: Map<String, Value>, text: String) -> Self {
        Self {
            json,
            text,
            ..Self::default()
        }
    }

    /// `json` printed as it is, without the envelope.
    #[must_use]
    pub fn raw(mut self, raw: bool) -> Self {
        self.raw = raw;
        self
    }

    /// Text for stderr in text mode.
    #[must_use]
    pub fn note(mut self, note: String) -> Self {
        self.note = note;
        self
    }

    /// The exit code of a result that is neither an error nor a success.
    #[must_use]
    pub fn exit(mut self, exit: Option<u8>) -> Self {
        self.exit = exit;
        self
    }

    /// Adds `key` to `json`, its value given as a [`Part`] (JSON text, or a diff kept per
    /// file): the key takes its place in `json` (holding `null`) and the part is printed
    /// there. A large part of a document is then not held as a tree of values.
    pub fn splice(&mut self, key: &str, part: impl Into<Part>) {
        self.json.insert(key.to_owned(), Value::Null);
        self.spliced.retain(|(k, _)| k != key);
        self.spliced.push((key.to_owned(), part.into()));
    }

    /// The value of `key`, read back from its part when it was spliced.
    pub fn value(&self, key: &str) -> Option<Value> {
        match self.spliced.iter().find(|(k, _)| k == key) {
            Some((_, part)) => serde_json::to_value(part).ok(),
            None => self.json.get(key).cloned(),
        }
    }

    /// `json` with every spliced value read back in its place.
    pub fn into_json(self) -> Map<String, Value> {
        let mut json = self.json;
        for (key, part) in self.spliced {
            if let Some(slot) = json.get_mut(&key) {
                *slot = serde_json::to_value(&part).unwrap_or(Value::Null);
            }
        }
        json
    }
}

/// `value` as JSON text, for [`Report::splice`].
fn raw_json(value: &impl serde::Serialize) -> Box<RawValue> {
    // The report's types serialize without failing: every map key is a field name.
    serde_json::value::to_raw_value(value).unwrap_or_else(|_| RawValue::NULL.to_owned())
}

fn short(hex: Option<String>) -> String {
    hex.map_or_else(|| "-".to_owned(), |h| h[..12].to_owned())
}

fn file_text(change: &FileChange, dry_run: bool) -> String {
    let verb = match (change.action, dry_run) {
        (Action::Modified, false) => "modified",
        (Action::Modified, true) => "would modify",
        (Action::Created, false) => "created",
        (Action::Created, true) => "would create",
        (Action::Deleted, false) => "deleted",
        (Action::Deleted, true) => "would delete",
        (Action::Unchanged, _) => "unchanged",
    };
    let replacements: usize = change.edits.iter().map(|e| e.spans.len()).sum();
    let lines: Vec<String> = change
        .edits
        .iter()
        .flat_map(|e| &e.spans)
        .take(8)
        .map(|s| {
            if s.new_end > s.new_start {
                format!("{}-{}", s.new_start, s.new_end)
            } else {
                s.new_start.to_string()
            }
        })
        .collect();
    let what = match change.action {
        // A whole-file write (undo's restore, a move's overwrite) has no edit to count.
        Action::Modified if change.edits.is_empty() => " (whole file)".to_owned(),
        Action::Unchanged => " (already as asked: nothing to write)".to_owned(),
        Action::Modified => format!(
            " ({replacements} replacement(s), line {})",
            lines.join(", ")
        ),
        _ => String::new(),
    };
    let digests = format!(
        "{} -> {}",
        short(change.digest_before().map(|d| d.to_hex())),
        short(change.digest_after().map(|d| d.to_hex()))
    );
    let rebased: Vec<String> = change
        .edits
        .iter()
        .filter_map(|e| e.rebased)
        .map(|r| format!("{}-{} -> {}-{}", r.from.0, r.from.1, r.to.0, r.to.1))
        .collect();
    let rebased = match rebased.is_empty() {
        true => String::new(),
        false => format!(" (rebased: lines {})", rebased.join(", ")),
    };
    format!("{verb} {}{what}{rebased}  {digests}\n", change.path.rel)
}

/// The fields identedit's readers check: `changed` (the content changes), `transaction`
/// (`committed` or `dry_run`), `summary.files_modified` / `operations_applied` (also at the
/// top, with `applied_mode`: `strict`, or `repair` when an anchor was remapped), and
/// `regex_replacements` when a scoped regex ran.
fn seed_fields(json: &mut Map<String, Value>, outcome: &Outcome, files: usize, ops: usize) {
    // As identedit reports it: whether the content changes (a dry run included); whether it
    // was written is `transaction.status`.
    json.insert("changed".into(), (files > 0).into());
    json.insert("operations_applied".into(), ops.into());
    let repaired = outcome
        .files
        .iter()
        .flat_map(|c| &c.edits)
        .any(|e| !e.repaired.is_empty());
    let mode = if repaired { "repair" } else { "strict" };
    json.insert("applied_mode".into(), mode.into());
    let rebased = outcome
        .files
        .iter()
        .flat_map(|c| &c.edits)
        .any(|e| e.rebased.is_some());
    if rebased {
        json.insert("rebased".into(), true.into());
    }
    let status = if outcome.dry_run {
        "dry_run"
    } else {
        "committed"
    };
    json.insert(
        "transaction".into(),
        json!({"mode": "all_or_nothing", "status": status}),
    );
    if let Some(Value::Object(summary)) = json.get_mut("summary") {
        summary.insert("files_modified".into(), files.into());
        summary.insert("operations_applied".into(), ops.into());
        summary.insert("operations_failed".into(), 0.into());
    }
    let regex: Vec<usize> = outcome
        .files
        .iter()
        .flat_map(|c| &c.edits)
        .filter_map(|e| e.regex_replacements)
        .collect();
    if !regex.is_empty() {
        json.insert(
            "regex_replacements".into(),
            regex.iter().sum::<usize>().into(),
        );
    }
}

/// The report of an applied (or dry-run) plan.
pub fn outcome(plan: &Plan, outcome: &Outcome, with_diff: bool) -> Report {
    let (changed, unchanged): (Vec<&FileChange>, Vec<&FileChange>) = outcome
        .files
        .iter()
        .partition(|c| c.action != Action::Unchanged);
    let (edits, replacements) = counts(outcome);
    let mut report = Report::default();
    report.json.insert("dry_run".into(), outcome.dry_run.into());
    report.json.insert(
        "plan".into(),
        json!({
            "type": plan.dialect, "label": plan.label,
            "sha256": plan.input_sha256.map(|d| d.to_hex()),
        }),
    );
    report.splice("changed_files", files::files_json(&changed));
    report.splice("unchanged_files", files::files_json(&unchanged));
    let json = &mut report.json;
    json.insert(
        "summary".into(),
        json!({
            "files_changed": changed.len(), "operations": edits, "replacements": replacements,
        }),
    );
    seed_fields(json, outcome, changed.len(), edits);
    report.splice(
        "structure_changes",
        structure::structure_changes(&outcome.files),
    );
    let json = &mut report.json;
    json.insert("api_changes".into(), json!(outcome.api_changes));
    let (locations, omitted) = structure::locations(&outcome.files);
    json.insert("locations".into(), locations);
    json.insert("locations_omitted".into(), omitted.into());
    let mut text = outcome_text(outcome);
    let mut note = String::new();
    if with_diff {
        let diff: String = changed.iter().map(|c| diff::file_diff(c)).collect();
        note = std::mem::replace(&mut text, diff.clone());
        json.insert("diff".into(), diff.into());
    }
    json.insert(
        "next_action".into(),
        if outcome.dry_run { "apply" } else { "none" }.into(),
    );
    report.text = text;
    report.note(note)
}

/// The operations of an outcome (a file without edits counts once) and the replacements
/// they made.
fn counts(outcome: &Outcome) -> (usize, usize) {
    let edits = outcome.files.iter().map(|c| c.edits.len().max(1)).sum();
    let replacements = outcome
        .files
        .iter()
        .flat_map(|c| &c.edits)
        .map(|e| e.spans.len())
        .sum();
    (edits, replacements)
}

/// The text form of an outcome: each file, then each API change.
fn outcome_text(outcome: &Outcome) -> String {
    let mut text: String = outcome
        .files
        .iter()
        .map(|c| file_text(c, outcome.dry_run))
        .collect();
    for change in &outcome.api_changes {
        let how = if change.acknowledged {
            "acknowledged"
        } else {
            "reported"
        };
        text.push_str(&format!(
            "api change ({how}): {} in {}\n",
            change.describe(),
            change.path
        ));
    }
    text
}

/// identedit's `applied` list (`--verbose`): per changed file, the operations applied.
pub fn applied(report: &Report) -> Value {
    let files = report.value("changed_files");
    files
        .as_ref()
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|f| {
            let ops = f["edits"].as_array().map_or(0, Vec::len);
            json!({"file": f["path"], "operations_applied": ops, "operations_total": ops, "status": "applied"})
        })
        .collect()
}

/// identedit's view of a committed write: `diff: {text, file_moves}`, the unified diff of what
/// was actually written and the files moved (`{from, to}`). Each file's images are let go
/// once its diff is written (the rest of a report needs only their digests), and its diff is
/// kept apart, printed in turn into one JSON string: a plan of many files holds neither every
/// image and the whole diff at once, nor the diff as one block of memory that the images' freed
/// space cannot hold.
pub fn commit_diff(files: &mut [FileChange]) -> CommitDiff {
    let mut per_file = Vec::with_capacity(files.len());
    // Every file's images are unpacked, rebuilt and diffed into the same three buffers.
    let (mut unpacked, mut rebuilt, mut text) = (Vec::new(), Vec::new(), String::new());
    for change in files.iter_mut() {
        if change.action != Action::Unchanged {
            let old = change.before_into(&mut unpacked);
            let new = change.after_into(old, &mut rebuilt).unwrap_or_default();
            text.clear();
            diff::write_file_diff(&mut text, change, old, new);
            per_file.push(text.as_str().into());
        }
        change.drop_images();
    }
    let file_moves = files
        .iter()
        .filter_map(|c| match &c.moved {
            Some(crate::change::Moved::From(from)) => Some(json!({"from": from, "to": c.path.rel})),
            _ => None,
        })
        .collect();
    CommitDiff {
        per_file,
        file_moves,
    }
}

/// A commit's unified diff, one file's text at a time, and the files it moved.
pub struct CommitDiff {
    per_file: Vec<Box<str>>,
    file_moves: Vec<Value>,
}

impl serde::Serialize for CommitDiff {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("text", &Joined(&self.per_file))?;
        map.serialize_entry("file_moves", &self.file_moves)?;
        map.end()
    }
}

/// Texts printed one after the other as one JSON string (`collect_str` writes each as it
/// comes, escaped, without joining them first).
struct Joined<'a>(&'a [Box<str>]);

impl std::fmt::Display for Joined<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|text| f.write_str(text))
    }
}

impl serde::Serialize for Joined<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The `error` object of a failure document.
pub fn error_json(error: &Error) -> Value {
    let mut doc = json!({
        "code": error.code.as_str(),
        "type": error.type_name(),
        "message": error.message,
        "suggestion": error.effective_hint(),
        "next_action": error.code.next_action(),
        "hint": error.effective_hint(),
        "details": error.details,
    });
    // identedit's readers branch on these at the top of `error`.
    for key in [
        "stage",
        "location",
        "candidates",
        "candidate_summary",
        "line_check",
        "request_pointers",
    ] {
        if let (Some(value), Some(obj)) = (error.details.get(key), doc.as_object_mut()) {
            obj.insert(key.to_owned(), value.clone());
        }
    }
    doc
}

/// The human form of a failure.
pub fn error_text(error: &Error) -> String {
    format!(
        "error[{}]: {}\n{}hint: {}\n",
        error.code.as_str(),
        error.message,
        nearest::lines(&error.details),
        error.effective_hint()
    )
}

/// Rolled-back transactions found on the way in, as JSON and as text lines.
pub fn recovered(recovered: &[Recovered]) -> (Value, String) {
    let text = recovered
        .iter()
        .map(|r| {
            let files: Vec<String> = r
                .files
                .iter()
                .map(|f| format!("{} {}", f.outcome, f.path))
                .collect();
            let what = match r.direction {
                "forward" => "completed",
                "incomplete" => "could not fully roll back",
                "quarantined" => "quarantined the unreadable journal of",
                _ => "rolled back",
            };
            let place = r
                .quarantine
                .as_ref()
                .map(|q| format!(" (moved to {})", q.display()))
                .unwrap_or_default();
            format!(
                "recovered an interrupted transaction (pid {}): {what}{place}: {}\n",
                r.pid,
                files.join(", ")
            )
        })
        .collect();
    (json!(recovered), text)
}

#[cfg(test)]
mod tests {
    use super::{CommitDiff, Part, Report};
    use serde_json::json;

    /// A diff kept one file at a time prints, and reads back, as the one string it joins to:
    /// escapes included, across the files' boundaries.
    #[test]
    fn a_diff_kept_per_file_prints_as_one_string() {
        let per_file = [
            "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-\"é\"\n",
            "+\t\\\u{1}\n",
            "",
        ];
        let diff = || CommitDiff {
            per_file: per_file.iter().map(|&t| t.into()).collect(),
            file_moves: vec![json!({"from": "a", "to": "b"})],
        };
        let expected = json!({"text": per_file.concat(), "file_moves": [{"from": "a", "to": "b"}]});
        let printed = serde_json::to_string(&Part::Diff(diff())).expect("serializes");
        assert_eq!(
            printed,
            serde_json::to_string(&expected).expect("serializes")
        );
        let mut report = Report::default();
        report.splice("diff", Part::Diff(diff()));
        assert_eq!(report.value("diff"), Some(expected.clone()));
        assert_eq!(report.into_json().get("diff"), Some(&expected));
    }
}
