//! What the engine decided to do to one file, proven against the bytes it read: the pre-image,
//! the post-image and a report of every edit. The engine hands these to its caller so that a
//! ledger can record them without reading a file again.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use crate::plan::Digest;
use crate::workspace::path::TargetPath;
use crate::workspace::snapshot::Snapshot;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Modified,
    Created,
    Deleted,
    /// Every edit of the file left its bytes as they were: nothing to write.
    Unchanged,
}

/// Lines an edit touched: `old` in the file as read, `new` in the result (1-based, inclusive;
/// when the new text is empty, `new_end` is `new_start - 1`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LineSpan {
    pub old_start: usize,
    pub old_end: usize,
    pub new_start: usize,
    pub new_end: usize,
}

/// What one plan operation did to its file.
#[derive(Clone, Debug)]
pub struct EditReport {
    /// Index of the operation in the plan.
    pub op: usize,
    /// JSON Pointer of the operation in its input (`/edits/0`).
    pub pointer: String,
    /// The line of the input where a block or hunk starts (text dialects).
    pub input_line: Option<usize>,
    pub matched_by: &'static str,
    pub spans: Vec<LineSpan>,
    /// Matches of a scoped regex.
    pub regex_replacements: Option<usize>,
    /// Stale line anchors remapped with `--auto-repair`: (from, to).
    pub repaired: Vec<(usize, usize)>,
    /// The qualified name of the structure a structure target resolved to.
    pub target: Option<String>,
    /// Byte ranges of the operation's splices: in the file as read, and where the new text
    /// landed in the result.
    pub byte_ranges: Vec<(Range<usize>, Range<usize>)>,
    /// The structure a structure target resolved to.
    pub node: Option<NodeFacts>,
    /// The file changed elsewhere after the edit was read and the edit's region was found
    /// again, unchanged, in the current bytes.
    pub rebased: Option<Rebased>,
}

/// Where a rebased edit's region was (lines in the file as first read) and is (lines in the
/// file it was applied to): 1-based, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rebased {
    pub from: (usize, usize),
    pub to: (usize, usize),
}

impl Rebased {
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "from": {"start_line": self.from.0, "end_line": self.from.1},
            "to": {"start_line": self.to.0, "end_line": self.to.1},
        })
    }
}

/// What a structure target resolved to, as `read` would show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeFacts {
    pub kind: String,
    pub identity: String,
    pub hash: String,
    pub span: Range<usize>,
}

/// One file's validated change.
#[derive(Clone, Debug)]
pub struct FileChange {
    pub path: TargetPath,
    pub action: Action,
    /// The file as read (absent for a created file).
    pub before: Option<Snapshot>,
    /// The bytes to publish (absent for a deleted file).
    pub after: Option<Arc<Vec<u8>>>,
    /// sha256 of `after` (of `before` when unchanged; absent when deleted).
    pub after_digest: Option<Digest>,
    pub edits: Vec<EditReport>,
    /// Every replaced byte range: in the file as read, and where its new text landed.
    pub ranges: Vec<(Range<usize>, Range<usize>)>,
    /// Directories a created file needs, outermost first.
    pub new_dirs: Vec<PathBuf>,
    /// Permissions of a file that has no pre-image (a moved file keeps its source's).
    pub new_permissions: Option<std::fs::Permissions>,
    /// What the syntax gate observed (absent for deleted and unchanged files).
    pub syntax: Option<crate::lang::gate::Checked>,
    /// The other end of a move: the source (on the destination's change) or the destination
    /// (on the source's), root-relative.
    pub moved: Option<Moved>,
}

/// One side of a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Moved {
    From(String),
    To(String),
}

impl FileChange {
    pub fn digest_before(&self) -> Option<Digest> {
        self.before.as_ref().map(|s| s.digest)
    }

    pub fn digest_after(&self) -> Option<Digest> {
        self.after_digest
    }

    /// Empties the pre-image and the post-image, once everything that reads them (the
    /// ledger, a diff) is done: the digests, the spans and the edit reports stay.
    pub fn drop_images(&mut self) {
        if let Some(before) = &mut self.before {
            before.bytes = Arc::default();
        }
        if let Some(after) = &mut self.after {
            *after = Arc::default();
        }
    }
}
