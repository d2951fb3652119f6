//! Undo: a receipt turned back into a plan that restores its pre-images, applied by the one
//! transaction engine and recorded as a receipt of kind `undo`.
//!
//! Undo runs only while every touched file still has the bytes the receipt published (or, for
//! a deleted file, is still absent); otherwise it names each drifted file and writes nothing,
//! so later work is never overwritten. Undoing an undo re-applies the original (redo).

use std::sync::Arc;

use super::store::{self, Stored};
use super::{FileRecord, Status};
use crate::change::Action;
use crate::error::{Code, Error, Result};
use crate::plan::{Digest, Op, OpKind, Origin, PathBase, PathSpec, Plan};

/// The plan that reverses `stored`, after proving nothing drifted.
pub fn plan(repo: &gix::Repository, root: &std::path::Path, stored: &Stored) -> Result<Plan> {
    let receipt = &stored.receipt;
    if receipt.status != Status::Applied {
        return Err(Error::new(
            Code::NothingToUndo,
            format!(
                "receipt {} recorded a write that failed and was rolled back: there is nothing to undo",
                receipt.label
            ),
        )
        .detail("status", "failed"));
    }
    if let Some(by) = super::verify::undone_by_later(repo, stored)? {
        return Err(Error::new(
            Code::NothingToUndo,
            format!("receipt {} was already undone by {by}", receipt.label),
        )
        .hint("`git identedit undo` of that undo re-applies it (a redo).")
        .detail("undone_by", by));
    }
    let drifted: Vec<serde_json::Value> = receipt
        .files
        .iter()
        .filter_map(|f| super::verify::digest_drift(repo, root, receipt, f))
        .collect();
    if !drifted.is_empty() {
        let names: Vec<String> = drifted
            .iter()
            .filter_map(|d| d["path"].as_str().map(str::to_owned))
            .collect();
        return Err(Error::new(
            Code::Drifted,
            format!(
                "undo would overwrite later work: {} no longer hold what receipt {} published",
                names.join(", "),
                receipt.label
            ),
        )
        .hint("Undo the later receipts first (newest first), or restore these files by hand.")
        .detail("drifted", drifted)
        .detail("receipt", stored.commit.to_string()));
    }
    let mut ops = Vec::new();
    for (index, file) in receipt.files.iter().enumerate() {
        ops.extend(reverse(repo, stored, file, index)?);
    }
    Ok(Plan {
        label: Some(format!("undo-{}", receipt.label)),
        dialect: "undo",
        input_sha256: None,
        ops,
        // Restoring recorded pre-images is a deliberate return to a known API.
        allow_signature_change: true,
    })
}

/// The operations that put one recorded path back.
fn reverse(
    repo: &gix::Repository,
    stored: &Stored,
    file: &FileRecord,
    index: usize,
) -> Result<Vec<Op>> {
    let op = |path: &str, kind: OpKind| Op {
        path: PathSpec {
            raw: path.to_owned(),
            base: PathBase::Root,
        },
        origin: Origin::new("files", index),
        kind,
    };
    let published = |f: &FileRecord| f.sha256_after.as_deref().map(Digest::parse).transpose();
    match (file.action, &file.moved_from, &file.moved_to) {
        // The source of a move onto a new path comes back by moving the destination back.
        (Action::Deleted, _, Some(to)) if destination_created(stored, to) => Ok(Vec::new()),
        (Action::Deleted, _, _) => {
            let content = before_image(repo, stored, &file.path)?;
            Ok(vec![op(
                &file.path,
                OpKind::Restore {
                    content,
                    expected: None,
                    executable: file.mode_before.as_deref() == Some("100755"),
                },
            )])
        }
        (Action::Created, Some(from), _) => {
            let content = before_image(repo, stored, from)?;
            let expected = published(file)?;
            Ok(vec![
                op(
                    &file.path,
                    OpKind::Restore {
                        content,
                        expected,
                        // The moved file keeps its mode on the way back.
                        executable: file.mode_after.as_deref() == Some("100755"),
                    },
                ),
                op(
                    &file.path,
                    OpKind::Move {
                        to: PathSpec {
                            raw: from.clone(),
                            base: PathBase::Root,
                        },
                    },
                ),
            ])
        }
        (Action::Created, None, _) => Ok(vec![op(
            &file.path,
            OpKind::Delete {
                expected: published(file)?,
            },
        )]),
        // Modified (a move with --overwrite lands here too: its source is re-created above).
        (Action::Modified | Action::Unchanged, _, _) => {
            let content = before_image(repo, stored, &file.path)?;
            let expected = published(file)?;
            Ok(vec![op(
                &file.path,
                OpKind::Restore {
                    content,
                    expected,
                    // A mode change is undone with the bytes.
                    executable: file.mode_before.as_deref() == Some("100755"),
                },
            )])
        }
    }
}

/// Removes the directories the undone write created, deepest first, where they are empty
/// now (a directory that holds anything is left alone). Each one goes through the checks of
/// every other path (no `..`, nothing absolute, nothing in `.git`, no symlinked parent out of
/// the work tree); one that fails them is left alone.
pub fn prune_dirs(ws: &crate::workspace::Workspace, stored: &Stored) {
    use crate::plan::{PathBase, PathSpec};
    for dir in stored.receipt.created_dirs.iter().rev() {
        let spec = PathSpec {
            raw: dir.clone(),
            base: PathBase::Root,
        };
        if let Ok(path) = crate::workspace::path::resolve(ws, &spec) {
            let _ = std::fs::remove_dir(ws.root.join(&path.key));
        }
    }
}

/// Whether the destination `to` of a move was created by it (not an overwritten file).
fn destination_created(stored: &Stored, to: &str) -> bool {
    stored
        .receipt
        .files
        .iter()
        .any(|f| f.path == to && f.action == Action::Created)
}

/// The receipt's pre-image of `path` (`store::before_image`), checked against the sha256 the
/// receipt recorded for it (the ledger may file the index's blob of the path: `git::clean`),
/// so undo never restores other bytes than those it replaced.
fn before_image(repo: &gix::Repository, stored: &Stored, path: &str) -> Result<Arc<Vec<u8>>> {
    let missing = |what: &str| {
        Error::new(
            Code::ReceiptNotFound,
            format!(
                "receipt {} has no {what} of {path}: it cannot be undone",
                stored.commit
            ),
        )
    };
    let bytes =
        store::before_image(repo, stored.commit, path)?.ok_or_else(|| missing("before-image"))?;
    let recorded = stored
        .receipt
        .files
        .iter()
        .find(|f| f.path == path && f.sha256_before.is_some())
        .and_then(|f| f.sha256_before.as_deref());
    match recorded {
        Some(hex) if Digest::of(&bytes).to_hex() != hex => Err(missing("intact pre-image")),
        _ => Ok(Arc::new(bytes)),
    }
}
