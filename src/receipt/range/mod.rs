//! `verify --range A..B`: which changes of a range of commits were made under verified
//! receipts and which came by hand.
//!
//! Every commit of `A..B` (oldest first) is compared with its first parent; each changed file
//! is split into hunks (`cover::hunks`), and each hunk is matched against the receipts that
//! changed that file, from every log the repository holds (`ledger`), one at a time and as
//! chains (a receipt whose pre-image is the previous one's post-image, as when one commit holds
//! several edits of a file). The rule is `cover`'s. A receipt that would account for a hunk but
//! does not verify (its input or images are not what `receipt.json` says) covers nothing and is
//! reported. Cost follows the range: the commits' tree diffs, the changed blobs, and one tree
//! lookup per receipt of the logs (only receipts of changed files are read further).

pub mod cover;
pub mod ledger;
mod units;

use std::collections::BTreeSet;

use gix::ObjectId;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::repo::git_error;
use units::Unit;

/// What a range's commits changed and who made each change.
#[derive(Debug, Serialize)]
pub struct Provenance {
    pub range: String,
    pub base: String,
    pub head: String,
    pub commits: Vec<CommitProvenance>,
    /// Receipts that claim a region of the range but do not verify.
    pub failed_receipts: Vec<FailedReceipt>,
}

#[derive(Debug, Serialize)]
pub struct CommitProvenance {
    pub commit: String,
    pub subject: String,
    pub files: Vec<FileProvenance>,
}

#[derive(Debug, Serialize)]
pub struct FileProvenance {
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub change: &'static str,
    /// Hunks made under verified receipts, and by hand.
    pub covered: usize,
    pub by_hand: usize,
    pub hunks: Vec<HunkProvenance>,
}

/// Lines of one side of a hunk, as a unified diff's header counts them: `start` is 1-based,
/// and for `count` 0 it is the line after which the change stands.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Lines {
    pub start: usize,
    pub count: usize,
}

impl Lines {
    fn of(range: &std::ops::Range<usize>) -> Self {
        let start = if range.is_empty() {
            range.start
        } else {
            range.start + 1
        };
        Self {
            start,
            count: range.len(),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct HunkProvenance {
    pub old: Lines,
    pub new: Lines,
    /// The label of the receipt that made this change, `null` when it came by hand.
    pub covered_by: Option<String>,
    /// Every receipt the coverage rests on, oldest first.
    pub receipts: Vec<ReceiptRef>,
    /// Receipts that would account for lines of this hunk but do not verify.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unverified: Vec<ReceiptRef>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ReceiptRef {
    pub label: String,
    pub receipt: String,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct FailedReceipt {
    pub label: String,
    pub receipt: String,
    pub path: String,
    pub problems: Vec<String>,
}

/// One changed file of one commit: the blob before and after (`None`: absent).
struct Changed {
    path: String,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
}

/// The provenance of every change in `range` (`A..B`).
pub fn provenance(repo: &gix::Repository, range: &str) -> Result<Provenance> {
    let (base, head) = parse_range(repo, range)?;
    let commits = walk(repo, base, head)?;
    let mut changes = Vec::with_capacity(commits.len());
    for &commit in &commits {
        changes.push(changed_files(repo, commit)?);
    }
    let paths: BTreeSet<String> = changes.iter().flatten().map(|c| c.path.clone()).collect();
    let receipts = ledger::receipts_for(repo, &paths)?;
    let mut units = units::Builder::new(repo, &receipts);
    let mut failed = Vec::new();
    let mut out = Vec::with_capacity(commits.len());
    for (commit, files) in commits.iter().zip(changes) {
        let mut reports = Vec::with_capacity(files.len());
        for file in files {
            reports.push(file_provenance(repo, &file, &mut units, &mut failed)?);
        }
        out.push(CommitProvenance {
            commit: commit.to_string(),
            subject: subject(repo, *commit)?,
            files: reports,
        });
    }
    Ok(Provenance {
        range: range.to_owned(),
        base: base.to_string(),
        head: head.to_string(),
        commits: out,
        failed_receipts: failed,
    })
}

fn parse_range(repo: &gix::Repository, range: &str) -> Result<(ObjectId, ObjectId)> {
    let Some((a, b)) = range.split_once("..").filter(|(_, b)| !b.starts_with('.')) else {
        return Err(Error::usage(format!(
            "`{range}` is not a range: give it as A..B (for example origin/main..HEAD)"
        )));
    };
    let resolve = |name: &str| -> Result<ObjectId> {
        let name = if name.is_empty() { "HEAD" } else { name };
        repo.rev_parse_single(name)
            .ok()
            .and_then(|id| id.object().ok()?.peel_to_commit().ok())
            .map(|c| c.id)
            .ok_or_else(|| {
                Error::usage(format!("`{name}` does not name a commit"))
                    .hint("Fetch the base first (`git fetch origin`, or fetch-depth: 0 in CI).")
            })
    };
    Ok((resolve(a)?, resolve(b)?))
}

/// The commits of `base..head`, oldest first.
fn walk(repo: &gix::Repository, base: ObjectId, head: ObjectId) -> Result<Vec<ObjectId>> {
    let walk = repo
        .rev_walk([head])
        .with_hidden([base])
        .sorting(gix::revision::walk::Sorting::TopoOrder)
        .all()
        .map_err(|e| git_error("walking the range", &e))?;
    let mut out = Vec::new();
    for info in walk {
        out.push(info.map_err(|e| git_error("walking the range", &e))?.id);
    }
    out.reverse();
    Ok(out)
}

fn subject(repo: &gix::Repository, commit: ObjectId) -> Result<String> {
    let object = repo
        .find_commit(commit)
        .map_err(|e| git_error("reading a commit", &e))?;
    let message = object
        .message_raw()
        .map_err(|e| git_error("reading a commit", &e))?;
    let text = String::from_utf8_lossy(message);
    Ok(text.lines().next().unwrap_or_default().to_owned())
}

/// The files `commit` changed against its first parent (renames as a deletion and an addition).
fn changed_files(repo: &gix::Repository, commit: ObjectId) -> Result<Vec<Changed>> {
    let failed = |e: &dyn std::fmt::Display| git_error("diffing a commit", e);
    let object = repo.find_commit(commit).map_err(|e| failed(&e))?;
    let tree = object.tree().map_err(|e| failed(&e))?;
    let parent_tree = match object.parent_ids().next() {
        Some(parent) => Some(
            repo.find_commit(parent)
                .and_then(|p| p.tree())
                .map_err(|e| failed(&e))?,
        ),
        None => None,
    };
    let mut options = gix::diff::Options::default();
    options.track_path().track_rewrites(None);
    let diff = repo
        .diff_tree_to_tree(parent_tree.as_ref(), &tree, options)
        .map_err(|e| failed(&e))?;
    let mut out = Vec::new();
    for change in diff {
        use gix::object::tree::diff::ChangeDetached as C;
        let file = |mode: gix::object::tree::EntryMode| mode.is_blob_or_symlink();
        let (path, old, new) = match change {
            C::Addition {
                location,
                entry_mode,
                id,
                ..
            } if file(entry_mode) => (location, None, Some(id)),
            C::Deletion {
                location,
                entry_mode,
                id,
                ..
            } if file(entry_mode) => (location, Some(id), None),
            C::Modification {
                location,
                previous_entry_mode,
                previous_id,
                entry_mode,
                id,
            } if file(entry_mode) || file(previous_entry_mode) => {
                let old = file(previous_entry_mode).then_some(previous_id);
                (location, old, file(entry_mode).then_some(id))
            }
            _ => continue,
        };
        out.push(Changed {
            path: path.to_string(),
            old,
            new,
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn blob(repo: &gix::Repository, id: Option<ObjectId>) -> Result<Vec<u8>> {
    match id {
        Some(id) => repo
            .find_blob(id)
            .map(|b| b.data.clone())
            .map_err(|e| git_error("reading a blob", &e)),
        None => Ok(Vec::new()),
    }
}

/// Every hunk judged against `units`.
fn judge_all(
    units: &[Unit],
    (p, c): (&[&[u8]], &[&[u8]]),
    hunks: &[cover::Hunk],
) -> Vec<units::Judged> {
    let covers: Vec<cover::Cover> = units
        .iter()
        .map(|u| cover::cover(p, c, &cover::lines(&u.before), &cover::lines(&u.after)))
        .collect();
    hunks
        .iter()
        .map(|h| units::judge(units, &covers, h))
        .collect()
}

/// The hunks of one commit's change of one file, each with the receipts that made it: judged
/// against the receipts alone, then, for hunks none of them covers, against their chains too.
fn file_provenance(
    repo: &gix::Repository,
    file: &Changed,
    units: &mut units::Builder<'_>,
    failed: &mut Vec<FailedReceipt>,
) -> Result<FileProvenance> {
    let (old, new) = (blob(repo, file.old)?, blob(repo, file.new)?);
    let (p, c) = (cover::lines(&old), cover::lines(&new));
    let hunks = cover::hunks(&p, &c);
    let singles = units.units(&file.path, false)?;
    let count = singles.len();
    let mut judged = judge_all(singles, (&p, &c), &hunks);
    if judged.iter().any(|j| j.covered_by.is_none()) {
        let all = units.units(&file.path, true)?;
        if all.len() > count {
            let again = judge_all(all, (&p, &c), &hunks);
            for (j, a) in judged.iter_mut().zip(again) {
                if j.covered_by.is_none() {
                    *j = a;
                }
            }
        }
    }
    let mut out = Vec::with_capacity(hunks.len());
    for (hunk, judged) in hunks.iter().zip(judged) {
        for f in judged.failed {
            if !failed.contains(&f) {
                failed.push(f);
            }
        }
        out.push(HunkProvenance {
            old: Lines::of(&hunk.old),
            new: Lines::of(&hunk.new),
            covered_by: judged.covered_by,
            receipts: judged.receipts,
            unverified: judged.unverified,
        });
    }
    let change = match (file.old, file.new) {
        (None, _) => "added",
        (_, None) => "deleted",
        _ => "modified",
    };
    let covered = out.iter().filter(|h| h.covered_by.is_some()).count();
    Ok(FileProvenance {
        path: file.path.clone(),
        change,
        covered,
        by_hand: out.len() - covered,
        hunks: out,
    })
}
