//! Observing the work tree around a publish, without trusting the engine.
//!
//! Cost follows the edit: the plan's own paths are `lstat`ed just before and just after the
//! publish, under the plan's locks (no directory is listed, no file read again), and every path
//! whose stat data moved (size, mtime, ctime, inode, mode) or that appeared or vanished is a
//! changed file. A plan file is what the engine published when its stat data say so: absent
//! when deleted, else present, moved since before the publish and of the published length
//! (a publish renames a new file into place, so a file left as it was keeps its stat data).

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

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

/// The root-relative paths the plan writes.
pub fn scope(files: &[FileChange]) -> Vec<String> {
    let paths: BTreeSet<String> = files
        .iter()
        .filter(|c| c.action != Action::Unchanged)
        .map(|c| c.path.rel.clone())
        .collect();
    paths.into_iter().collect()
}

/// The stat data of each path of `scope` (an absent path has no entry).
pub fn scan(root: &Path, scope: &[String]) -> Scan {
    let entries = scope
        .iter()
        .filter_map(|rel| {
            let meta = std::fs::symlink_metadata(root.join(rel)).ok()?;
            Some((rel.clone(), StatKey::of(&meta)))
        })
        .collect();
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
        .filter(|c| !holds_published(c, before, after) || !changed_files.contains(&c.path.rel))
        .map(|c| c.path.rel.clone())
        .collect();
    Observed {
        method: METHOD.to_owned(),
        scope,
        changed_files,
        extra_files,
        mismatched_files,
    }
}

/// How receipts observe now; `stat_scan` (the plan's directories listed, its files hashed
/// again) in receipts of earlier versions.
const METHOD: &str = "stat";

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
        method: METHOD.to_owned(),
        scope,
        changed_files,
        extra_files,
        mismatched_files,
    }
}

/// Whether the file's stat data after the publish are what the engine published: absent,
/// or a file of the published length that moved since before the publish.
fn holds_published(change: &FileChange, before: &Scan, after: &Scan) -> bool {
    let rel = change.path.rel.as_str();
    match (change.after_len(), after.entries.get(rel)) {
        (None, now) => now.is_none(),
        (Some(_), None) => false,
        (Some(len), Some(now)) => now.len == len as u64 && before.entries.get(rel) != Some(now),
    }
}
