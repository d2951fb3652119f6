//! Observing the work tree around a publish, without trusting the engine.
//!
//! The cheapest observation that still catches a racing writer: the directories that hold the
//! plan's files are listed (one `readdir` and one `lstat` per entry) just before and just after
//! the publish, under the plan's locks, and every entry whose stat data moved (size, mtime,
//! ctime, inode, mode) or that appeared or vanished is a changed file. The plan's own files are
//! then hashed again from disk and compared with what the engine says it published. The cost
//! grows with the size of those directories, never with the repository.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::Observed;
use crate::change::{Action, FileChange};
use crate::plan::Digest;

/// The stat data that changes whenever a file's bytes or identity do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct StatKey {
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    mode: u32,
}

impl StatKey {
    fn of(meta: &std::fs::Metadata) -> Self {
        Self {
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
            mode: meta.mode(),
        }
    }
}

/// One listing of the scanned directories: relative file path → stat data.
#[derive(Debug, Default)]
pub struct Scan {
    entries: BTreeMap<String, StatKey>,
}

impl Scan {
    /// Every file whose stat data differs from `before`, or that appeared or vanished, sorted.
    fn moved_since(&self, before: &Scan) -> Vec<String> {
        let paths: BTreeSet<&String> = before.entries.keys().chain(self.entries.keys()).collect();
        paths
            .into_iter()
            .filter(|p| before.entries.get(*p) != self.entries.get(*p))
            .cloned()
            .collect()
    }
}

/// The directories (relative to the root, `/`-separated) a plan's files live in.
pub fn scope(files: &[FileChange]) -> Vec<String> {
    let dirs: BTreeSet<String> = files
        .iter()
        .filter(|c| c.action != Action::Unchanged)
        .map(|c| match c.path.rel.rsplit_once('/') {
            Some((dir, _)) => dir.to_owned(),
            None => String::new(),
        })
        .collect();
    dirs.into_iter().collect()
}

/// Lists the files (not directories) directly inside each directory of `scope`.
pub fn scan(root: &Path, scope: &[String]) -> Scan {
    let mut entries = BTreeMap::new();
    for dir in scope {
        let abs: PathBuf = if dir.is_empty() {
            root.to_path_buf()
        } else {
            root.join(dir)
        };
        let Ok(listing) = std::fs::read_dir(&abs) else {
            continue;
        };
        for entry in listing.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            let name = entry.file_name().to_string_lossy().into_owned();
            // Directories, and the staging files of identedit transactions (ours and
            // concurrent ones), are not changes of the work tree.
            if meta.is_dir() || name.contains(".identedit-") {
                continue;
            }
            let rel = if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            };
            entries.insert(rel, StatKey::of(&meta));
        }
    }
    Scan { entries }
}

/// What changed between two scans, checked against what the engine published.
pub fn compare(scope: Vec<String>, before: &Scan, after: &Scan, files: &[FileChange]) -> Observed {
    let changed_files = after.moved_since(before);
    let planned: BTreeSet<&str> = files
        .iter()
        .filter(|c| c.action != Action::Unchanged)
        .map(|c| c.path.rel.as_str())
        .collect();
    let extra_files = changed_files
        .iter()
        .filter(|p| !planned.contains(p.as_str()))
        .cloned()
        .collect();
    let mismatched_files = files
        .iter()
        .filter(|c| c.action != Action::Unchanged)
        .filter(|c| !holds_published(c) || !changed_files.contains(&c.path.rel))
        .map(|c| c.path.rel.clone())
        .collect();
    Observed {
        method: "stat_scan".to_owned(),
        scope,
        changed_files,
        extra_files,
        mismatched_files,
    }
}

/// What changed across a publish that failed and was rolled back: a plan file whose bytes
/// (or absence) are back to its pre-image is not a change, whatever its stat data says (the
/// rollback renamed it back); anything else that moved is.
pub fn compare_rolled_back(
    scope: Vec<String>,
    before: &Scan,
    after: &Scan,
    files: &[FileChange],
) -> Observed {
    let restored = |rel: &str| {
        files
            .iter()
            .find(|c| c.path.rel == rel)
            .map(|c| match &c.before {
                Some(snapshot) => std::fs::read(&c.path.abs)
                    .is_ok_and(|bytes| Digest::of(&bytes) == snapshot.digest),
                None => std::fs::symlink_metadata(&c.path.abs).is_err(),
            })
    };
    let changed_files: Vec<String> = after
        .moved_since(before)
        .into_iter()
        .filter(|p| restored(p) != Some(true))
        .collect();
    let (mismatched_files, extra_files) = changed_files
        .iter()
        .cloned()
        .partition(|p| restored(p).is_some());
    Observed {
        method: "stat_scan".to_owned(),
        scope,
        changed_files,
        extra_files,
        mismatched_files,
    }
}

/// Whether the file on disk is what the engine published: the post-image's digest, or absent.
fn holds_published(change: &FileChange) -> bool {
    let abs = &change.path.abs;
    match change.after_digest {
        None => std::fs::symlink_metadata(abs).is_err(),
        Some(expected) => std::fs::read(abs).is_ok_and(|bytes| Digest::of(&bytes) == expected),
    }
}
