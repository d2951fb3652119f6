//! Putting files back after an interrupted or failed transaction, and telling a finished one
//! apart.
//!
//! A pre-image is renamed back into place; when the journal folder is on another filesystem
//! than the work tree (a linked worktree keeps its state under the main repository's
//! `.git/worktrees/`), the rename fails with `EXDEV` and the pre-image is copied beside its
//! target with its mode, made durable as `identedit.fsync` says and renamed over it instead.
//! A file that cannot be put back is reported as `failed` with the error and the place its
//! pre-image is kept.

use std::fs;
use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::change::Action;
use crate::txn::record::{Entry, Record, sync_dir};
use crate::workspace::failpoint;
use crate::workspace::replace::{digest_of, replace};

/// What a rollback did to one file.
#[derive(Clone, Debug, Serialize)]
pub struct Restored {
    pub path: String,
    /// `restored`, `removed`, `untouched`, `kept` (a finished transaction rolled forward),
    /// `conflict` (changed by someone else since) or `failed` (could not be put back).
    pub outcome: &'static str,
    /// Why a file could not be put back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where its pre-image is kept when it could not be put back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pre_image: Option<PathBuf>,
}

impl Restored {
    fn new(path: &str, outcome: &'static str) -> Self {
        Self {
            path: path.to_owned(),
            outcome,
            error: None,
            pre_image: None,
        }
    }
}

fn absent(path: &Path) -> bool {
    matches!(fs::symlink_metadata(path), Err(e) if e.kind() == ErrorKind::NotFound)
}

/// Whether every file of the transaction already holds its post-image (a transaction that
/// died after its last rename, before its commit point): it is rolled forward.
pub fn completed(record: &Record) -> bool {
    record.entries.iter().all(|e| match e.action {
        // A mode-only change keeps the bytes: they cannot tell it was published.
        Action::Modified if e.after == e.before => false,
        Action::Modified | Action::Created => e.after.is_some() && digest_of(&e.target) == e.after,
        Action::Deleted => absent(&e.target),
        Action::Unchanged => true,
    })
}

/// Rolls a finished transaction forward: only its temp files go.
pub fn finish(record: &Record) -> Vec<Restored> {
    for tmp in record.entries.iter().filter_map(|e| e.tmp.as_ref()) {
        let _ = failpoint::io("unlink", "rollback").and_then(|()| fs::remove_file(tmp));
    }
    record
        .entries
        .iter()
        .map(|e| Restored::new(&e.rel, "kept"))
        .collect()
}

/// Puts every file back as it was before the transaction, where it still has the state the
/// transaction left; a file changed by someone else since is left alone and reported.
pub fn undo(record: &Record) -> Vec<Restored> {
    let mut out = Vec::new();
    for entry in record.entries.iter().rev() {
        if let Some(tmp) = &entry.tmp {
            let _ = fs::remove_file(tmp);
        }
        out.push(undo_entry(entry));
    }
    for dir in record.new_dirs.iter().rev() {
        let _ = fs::remove_dir(dir);
    }
    for entry in &record.entries {
        if let Some(parent) = entry.target.parent() {
            let _ = sync_dir(parent);
        }
    }
    out.reverse();
    out
}

fn undo_entry(entry: &Entry) -> Restored {
    let current = digest_of(&entry.target);
    let backup = entry.backup.as_deref().filter(|b| b.exists());
    let put = |backup: &Path| match put_back(backup, &entry.target) {
        Ok(()) => Restored::new(&entry.rel, "restored"),
        Err(e) => Restored {
            error: Some(e.to_string()),
            pre_image: Some(backup.to_path_buf()),
            ..Restored::new(&entry.rel, "failed")
        },
    };
    let outcome = match entry.action {
        Action::Modified => {
            // Also a mode-only change (same bytes): putting the pre-image back restores its
            // mode, and is a no-op when the file was never swapped (the same inode).
            let published = current.is_some() && current == entry.after;
            match backup {
                Some(backup) if published => return put(backup),
                _ if current.is_some() && current == entry.before => "untouched",
                _ => "conflict",
            }
        }
        Action::Created => match current {
            Some(_) if current == entry.after => {
                match failpoint::io("unlink", "rollback")
                    .and_then(|()| fs::remove_file(&entry.target))
                {
                    Ok(()) => "removed",
                    Err(e) => {
                        return Restored {
                            error: Some(e.to_string()),
                            ..Restored::new(&entry.rel, "failed")
                        };
                    }
                }
            }
            None => "untouched",
            Some(_) => "conflict",
        },
        Action::Deleted => match backup {
            Some(backup) if absent(&entry.target) => return put(backup),
            _ if current.is_some() && current == entry.before => "untouched",
            _ => "conflict",
        },
        Action::Unchanged => "untouched",
    };
    Restored::new(&entry.rel, outcome)
}

/// Renames `backup` over `target`; across filesystems, copies it beside `target` (same mode),
/// makes the copy durable (`identedit.fsync`) and renames it into place, then removes `backup`.
fn put_back(backup: &Path, target: &Path) -> std::io::Result<()> {
    let renamed = failpoint::io("rename", "rollback").and_then(|()| fs::rename(backup, target));
    match renamed {
        Err(e) if e.raw_os_error() == Some(libc::EXDEV) => copy_back(backup, target),
        other => other,
    }
}

fn copy_back(backup: &Path, target: &Path) -> std::io::Result<()> {
    let tmp = target.with_file_name(format!(".identedit-restore-{}.tmp", std::process::id()));
    // The pre-image's own bits come back, not the umask's.
    let mode = fs::metadata(backup)?.permissions().mode() & 0o7777;
    replace(target, &tmp, mode, "rollback", |out| {
        std::io::copy(&mut fs::File::open(backup)?, out).map(drop)
    })?;
    fs::remove_file(backup)
}
