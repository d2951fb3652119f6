//! Receipts: the proof of one write, stored in git as a commit on no branch.
//!
//! A receipt commit's tree holds `receipt.json` (the [`Receipt`] below), `input` (the raw bytes
//! the plan was compiled from) and the pre- and post-images of every changed path under
//! `before/<path>` and `after/<path>` (or, costing what the edit costs, a post-image as
//! `splices/<path>` on its pre-image, a pre-image as `prior/<path>`: an earlier receipt's
//! post-image). Its parent is the previous receipt, so
//! `refs/identedit/log` is an operation log that `git log` reads; each label also gets
//! `refs/identedit/receipts/<label>`. This module owns the document; `record` writes it,
//! `store` reads it back, `verify` and `undo` act on it.

pub mod evidence;
pub mod images;
pub mod logs;
pub mod observe;
pub mod prior;
pub mod range;
pub mod record;
pub mod store;
pub mod undo;
pub mod verify;

use serde::{Deserialize, Serialize};

/// Version of the `receipt.json` document.
pub const RECEIPT_SCHEMA: &str = "identedit.receipt/1";

/// The operation log: every receipt, newest first along first parents.
pub const LOG_REF: &str = "refs/identedit/log";
/// One ref per label, pointing at the label's newest receipt.
pub const LABEL_REF_PREFIX: &str = "refs/identedit/receipts/";

/// What happened to the write a receipt records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every file was published.
    Applied,
    /// Publishing failed and every file was restored; nothing changed.
    Failed,
    /// A dry run: what would have been recorded (never stored).
    DryRun,
}

/// Whether a receipt records a plan or the reversal of an earlier receipt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Apply,
    Undo,
}

/// Where a write landed: the work tree (and, with `--stage`, also the index), or only the
/// index (`--cached`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AppliedTo {
    #[default]
    WorkTree,
    Index,
}

/// `receipt.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Receipt {
    pub schema: String,
    pub kind: Kind,
    pub status: Status,
    pub label: String,
    pub tool: Tool,
    /// The subcommand that wrote (`apply`, `patch`, `edit`, `undo`).
    pub command: String,
    #[serde(default)]
    pub applied_to: AppliedTo,
    /// The work-tree write was also staged (`--stage`).
    #[serde(default)]
    pub staged: bool,
    pub input: Input,
    /// HEAD when the plan was applied (absent on an unborn branch).
    pub head: Option<String>,
    /// RFC 3339, UTC.
    pub time: String,
    pub files: Vec<FileRecord>,
    /// Directories the write created (outermost first); undo removes them again when empty.
    #[serde(default)]
    pub created_dirs: Vec<String>,
    pub observed: Observed,
    /// API changes the caller acknowledged (`--allow-signature-change`).
    #[serde(default)]
    pub acknowledged_api_changes: Vec<serde_json::Value>,
    /// Symbols the write removed or renamed away (`remove_symbol`, and every public
    /// declaration the API guard saw disappear): `verify` looks for them in documents.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed_symbols: Vec<String>,
    /// For an undo: the receipt it reverses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<Reference>,
    /// Operations applied on bytes that changed since they were built, their regions found
    /// again unchanged: `{pointer, path, from: {start_line, end_line}, to: {…}}`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rebased: Vec<serde_json::Value>,
    /// For a failed write: the error that stopped it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Tool {
    pub fn this() -> Self {
        Self {
            name: env!("CARGO_PKG_NAME").to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// The input the plan was compiled from; its bytes are the `input` blob of the receipt tree.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Input {
    /// `source_edit_plan`, `blocks`, `codex`, `diff`, `edit_flags`, …
    pub dialect: String,
    pub sha256: String,
    pub bytes: usize,
}

/// A receipt named by its commit and label.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Reference {
    pub receipt: String,
    pub label: String,
}

/// One changed path: what it was before and what was published.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct FileRecord {
    pub path: String,
    /// `modified`, `created` or `deleted`.
    pub action: crate::change::Action,
    /// For a file that was moved: where it came from (on the created side) or went (on the
    /// deleted side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<String>,
    pub mode_before: Option<String>,
    pub mode_after: Option<String>,
    pub sha256_before: Option<String>,
    pub sha256_after: Option<String>,
    pub blob_before: Option<String>,
    pub blob_after: Option<String>,
}

/// What the ledger saw change in the work tree around the publish, independently of what the
/// engine says it wrote.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Observed {
    /// How: `stat` (the stat data of the plan's paths before and after the publish, under
    /// the locks), `stat_scan` (receipts of earlier versions: the plan's directories listed, its
    /// files hashed again), `index`, or `none` (dry runs).
    pub method: String,
    /// What the observation covered, relative to the root: the plan's paths (`stat`), the
    /// directories listed (`stat_scan`, `""` is the root).
    pub scope: Vec<String>,
    /// Every file whose bytes or presence changed, sorted.
    pub changed_files: Vec<String>,
    /// Changed files the plan did not name (another writer raced the publish).
    pub extra_files: Vec<String>,
    /// Plan files whose observed state is not what the engine published.
    pub mismatched_files: Vec<String>,
}

impl Receipt {
    /// The bytes `path` holds now where this receipt wrote (work tree or index); `None` when
    /// absent or unreadable.
    pub fn current_bytes(
        &self,
        repo: &gix::Repository,
        root: &std::path::Path,
        path: &str,
    ) -> Option<Vec<u8>> {
        match self.applied_to {
            AppliedTo::WorkTree => std::fs::read(root.join(path)).ok(),
            AppliedTo::Index => crate::git::cached::index_bytes(repo, path).ok().flatten(),
        }
    }

    /// Whether `path` exists where this receipt wrote.
    pub fn exists(&self, repo: &gix::Repository, root: &std::path::Path, path: &str) -> bool {
        match self.applied_to {
            AppliedTo::WorkTree => root.join(path).symlink_metadata().is_ok(),
            AppliedTo::Index => self.current_bytes(repo, root, path).is_some(),
        }
    }

    /// The paths the plan changed, sorted.
    pub fn planned_paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self.files.iter().map(|f| f.path.clone()).collect();
        paths.sort();
        paths
    }
}

/// A label as one ref name component, injectively: ASCII letters, digits, `-` and `_` are
/// kept, a `.` is kept after one of those (not first, not doubled, not in a final `.lock`),
/// every other byte becomes `%XX`. Two labels never share a ref.
pub fn ref_safe_label(label: &str) -> String {
    if label.is_empty() {
        return "%00".to_owned();
    }
    let bytes = label.as_bytes();
    let mut out = String::with_capacity(label.len());
    for (i, &b) in bytes.iter().enumerate() {
        let plain = b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
        let dot_ok = b == b'.'
            && i > 0
            && i + 1 < bytes.len()
            && (bytes[i - 1].is_ascii_alphanumeric() || matches!(bytes[i - 1], b'-' | b'_'))
            && !label[i..].eq_ignore_ascii_case(".lock");
        if plain || dot_ok {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_become_valid_ref_components() {
        assert_eq!(ref_safe_label("plan-0123abcd"), "plan-0123abcd");
        assert_eq!(
            ref_safe_label("fix: the bug/now"),
            "fix%3A%20the%20bug%2Fnow"
        );
        assert_eq!(ref_safe_label("..x..y.lock"), "%2E%2Ex.%2Ey%2Elock");
        assert_eq!(ref_safe_label("release.v2"), "release.v2");
        assert_ne!(ref_safe_label("feat/x y"), ref_safe_label("feat-x-y"));
        assert_eq!(ref_safe_label(""), "%00");
        for label in ["a b", "a%20b", "a.b", "a%2Eb", "x/y", "x%2Fy"] {
            let name = format!("refs/identedit/receipts/{}", ref_safe_label(label));
            assert!(
                gix::refs::FullName::try_from(name.as_str()).is_ok(),
                "{name}"
            );
        }
    }
}
