//! `hook post-commit`: attaches the receipts applied since the previous commit to the new
//! commit as a note under `refs/notes/identedit` (gix's native notes API, which handles
//! fan-out trees), so `git log --notes=identedit` shows which checked edits a commit contains.
//!
//! The note has one line per receipt, oldest first: `<receipt commit id> <label> <status>`.
//! Only the receipts that are part of the commit are attached: for a path the commit changed,
//! the newest unnoted receipt naming it published exactly the committed blob (that receipt and
//! the older ones of the path are attached); receipts that published nothing (failed writes)
//! go with the next commit. Receipts of files not committed yet stay for a later commit.
//! The range is claimed first by moving `refs/identedit/noted` over the oldest receipts that
//! are all settled (compare-and-swap, with a reflog entry), so two hooks never attach the same
//! receipts twice.

use gix::ObjectId;
use gix::refs::Target;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};

use crate::error::{Code, Error, Result};
use crate::hook::git_error;
use crate::hook::published::{self, NOTED_REF, Receipt};

/// The notes ref the receipts are attached under.
pub const NOTES_REF: &str = "refs/notes/identedit";

/// What post-commit attached.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Attached {
    pub commit: String,
    pub notes_ref: &'static str,
    pub receipts: Vec<String>,
    /// The committed paths the attached receipts wrote.
    pub paths: Vec<String>,
    /// Receipts of files this commit does not contain, left for a later commit.
    pub pending: usize,
    pub note: String,
}

/// The blob at `path` in `tree` (`None`: absent).
fn entry(tree: &gix::Tree<'_>, path: &str) -> Result<Option<ObjectId>> {
    let found = tree
        .lookup_entry_by_path(path)
        .map_err(|e| git_error("reading a commit tree", e))?;
    Ok(found.map(|e| e.object_id()))
}

/// Which receipts (newest first, as `receipts`) are part of HEAD, and the committed paths.
fn part_of_head(repo: &gix::Repository, receipts: &[Receipt]) -> Result<(Vec<bool>, Vec<String>)> {
    let head = repo.head_commit().map_err(|e| git_error("HEAD", e))?;
    let tree = head.tree().map_err(|e| git_error("HEAD's tree", e))?;
    let parent = match head.parent_ids().next() {
        Some(id) => Some(
            repo.find_commit(id)
                .and_then(|c| c.tree())
                .map_err(|e| git_error("HEAD's parent", e))?,
        ),
        None => None,
    };
    let mut part: Vec<bool> = receipts.iter().map(|r| r.files.is_empty()).collect();
    let mut paths = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (i, r) in receipts.iter().enumerate() {
        for (path, published) in &r.files {
            // The newest receipt naming a path decides for it and every older one.
            if !seen.insert(path.clone()) {
                continue;
            }
            let committed = entry(&tree, path)?;
            let before = match &parent {
                Some(p) => entry(p, path)?,
                None => None,
            };
            if committed == *published && committed != before {
                paths.push(path.clone());
                for (j, older) in receipts.iter().enumerate().skip(i) {
                    if older.files.iter().any(|(p, _)| p == path) {
                        part[j] = true;
                    }
                }
            }
        }
    }
    paths.sort();
    Ok((part, paths))
}

/// One note line.
pub fn line(r: &Receipt) -> String {
    format!("{} {} {}", r.id, r.label, r.status)
}

/// Gives the notes commit and the reflog an identity when the configuration gix reads has
/// none: `git -c user.name=… commit` passes it in a way gix does not read, so the note is
/// signed as the commit it annotates.
fn ensure_identity(repo: &mut gix::Repository) -> Result<()> {
    if repo.committer().is_some() && repo.author().is_some() {
        return Ok(());
    }
    let head = repo.head_commit().map_err(|e| git_error("HEAD", e))?;
    let sig = head
        .committer()
        .map_err(|e| git_error("HEAD's committer", e))?;
    let (name, email) = (sig.name.to_owned(), sig.email.to_owned());
    drop(head);
    let mut config = repo.config_snapshot_mut();
    for (key, value) in [("user.name", name), ("user.email", email)] {
        config
            .set_raw_value(key, value.as_slice())
            .map_err(|e| git_error(key, e))?;
    }
    config.commit().map_err(|e| git_error("identity", e))?;
    Ok(())
}

/// Attaches the unnoted receipts that are part of HEAD; `None` when there are none.
pub fn post_commit(repo: &mut gix::Repository) -> Result<Option<Attached>> {
    let log = published::unnoted(repo)?;
    if log.tip.is_none() || log.receipts.is_empty() {
        return Ok(None);
    }
    let pick = Selection::of(repo, &log)?;
    let attached: Vec<&Receipt> = log
        .receipts
        .iter()
        .zip(&pick.part)
        .filter_map(|(r, p)| p.then_some(r))
        .collect();
    if attached.is_empty() {
        return Ok(None);
    }
    let head = repo.head_id().map_err(|e| git_error("HEAD", e))?.detach();
    let lines: Vec<String> = attached.iter().rev().map(|r| line(r)).collect();
    ensure_identity(repo)?;
    if pick.noted != log.noted {
        claim(repo, log.noted, pick.noted)?;
    }
    let marks = mark_attached(repo, &log.receipts, &pick);
    let note = match marks.and_then(|()| write_note(repo, head, &lines)) {
        Ok(note) => note,
        Err(e) => {
            if pick.noted != log.noted {
                let _ = move_noted(
                    repo,
                    pick.noted,
                    log.noted,
                    "identedit: note failed, receipts released",
                );
            }
            return Err(e);
        }
    };
    Ok(Some(Attached {
        commit: head.to_string(),
        notes_ref: NOTES_REF,
        receipts: attached.iter().rev().map(|r| r.id.to_string()).collect(),
        paths: pick.paths,
        pending: pick.waiting,
        note,
    }))
}

/// Which unnoted receipts (newest first) HEAD takes, and where `noted` moves.
struct Selection {
    /// Part of HEAD and not attached before.
    part: Vec<bool>,
    /// Attached to an earlier commit while an older receipt still waited.
    earlier: Vec<bool>,
    /// How many of the oldest receipts are settled (attached now or before).
    settled: usize,
    /// Where `refs/identedit/noted` moves: the newest settled receipt of that run.
    noted: Option<ObjectId>,
    paths: Vec<String>,
    /// Receipts neither attached now nor before.
    waiting: usize,
}

impl Selection {
    fn of(repo: &gix::Repository, log: &published::Unnoted) -> Result<Self> {
        let earlier = attached_earlier(repo, &log.receipts)?;
        let (mut part, paths) = part_of_head(repo, &log.receipts)?;
        for (p, e) in part.iter_mut().zip(&earlier) {
            *p &= !e;
        }
        let done: Vec<bool> = part.iter().zip(&earlier).map(|(p, e)| *p || *e).collect();
        let settled = done.iter().rev().take_while(|d| **d).count();
        let noted = match settled {
            0 => log.noted,
            n => Some(log.receipts[log.receipts.len() - n].id),
        };
        Ok(Self {
            waiting: done.iter().filter(|d| !**d).count(),
            part,
            earlier,
            settled,
            noted,
            paths,
        })
    }
}

/// Receipts attached to an earlier commit while an older one still waited.
const ATTACHED_PREFIX: &str = "refs/identedit/attached/";

fn attached_earlier(repo: &gix::Repository, receipts: &[Receipt]) -> Result<Vec<bool>> {
    receipts
        .iter()
        .map(|r| {
            Ok(
                crate::git::ledger::ref_target(repo, &format!("{ATTACHED_PREFIX}{}", r.id))?
                    .is_some(),
            )
        })
        .collect()
}

/// Marks the receipts attached now that `noted` does not pass, and drops the marks it passes.
fn mark_attached(repo: &gix::Repository, receipts: &[Receipt], pick: &Selection) -> Result<()> {
    let passed = receipts.len() - pick.settled;
    for (i, r) in receipts.iter().enumerate() {
        let name = format!("{ATTACHED_PREFIX}{}", r.id);
        let change = match (i >= passed, pick.part[i], pick.earlier[i]) {
            (true, _, true) => Some(ref_change(None, PreviousValue::Any)),
            (false, true, false) => Some(ref_change(Some(r.id), PreviousValue::MustNotExist)),
            _ => None,
        };
        if let Some(change) = change {
            let name = name
                .as_str()
                .try_into()
                .map_err(|e| Error::internal(format!("{name}: {e}")))?;
            repo.edit_reference(RefEdit {
                change,
                name,
                deref: false,
            })
            .map_err(|e| git_error(ATTACHED_PREFIX, e))?;
        }
    }
    Ok(())
}

fn ref_change(new: Option<ObjectId>, expected: PreviousValue) -> Change {
    match new {
        Some(id) => Change::Update {
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog: false,
                message: "identedit: attached before an older receipt".into(),
            },
            expected,
            new: Target::Object(id),
        },
        None => Change::Delete {
            expected,
            log: RefLog::AndReference,
        },
    }
}

/// Moves `refs/identedit/noted` from what was read to `new`; a lost compare-and-swap is
/// `hook_conflict`.
fn claim(repo: &gix::Repository, old: Option<ObjectId>, new: Option<ObjectId>) -> Result<()> {
    let claimed = move_noted(repo, old, new, "identedit: receipts attached to a commit");
    if let Err(e) = claimed {
        // Lost the compare-and-swap only when the ref no longer holds what was read.
        if crate::git::ledger::ref_target(repo, NOTED_REF)? != old {
            return Err(Error::new(
                Code::HookConflict,
                format!("{NOTED_REF} moved while attaching receipts (another hook ran)"),
            )
            .detail("git_error", e.message));
        }
        return Err(e);
    }
    Ok(())
}

/// Appends `lines` to HEAD's note (a re-run after `git commit --amend` or by hand keeps the
/// lines already there).
fn write_note(repo: &gix::Repository, head: ObjectId, lines: &[String]) -> Result<String> {
    let mut notes = repo
        .notes()
        .and_then(|n| n.with_refs([NOTES_REF]))
        .map_err(|e| git_error("opening notes", e))?
        .with_commit_message(format!(
            "identedit: receipts of {}",
            head.to_hex_with_len(12)
        ));
    let mut text = notes
        .get(head)
        .map_err(|e| git_error("reading the note", e))?
        .first()
        .map(|n| String::from_utf8_lossy(&n.blob.data).into_owned())
        .unwrap_or_default();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    notes
        .replace(NOTES_REF, head, text.as_bytes())
        .map_err(|e| git_error("writing the note", e))?;
    Ok(text)
}

/// Moves `refs/identedit/noted` from `old` to `new` (absent for `None`), compare-and-swap.
fn move_noted(
    repo: &gix::Repository,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    message: &str,
) -> Result<()> {
    let expected = match old {
        Some(id) => PreviousValue::MustExistAndMatch(Target::Object(id)),
        None => PreviousValue::MustNotExist,
    };
    let log = LogChange {
        mode: RefLog::AndReference,
        force_create_reflog: true,
        message: message.into(),
    };
    let change = match new {
        Some(id) => Change::Update {
            log,
            expected,
            new: Target::Object(id),
        },
        None => Change::Delete {
            expected,
            log: RefLog::AndReference,
        },
    };
    let name = NOTED_REF
        .try_into()
        .map_err(|e| Error::internal(format!("{NOTED_REF}: {e}")))?;
    repo.edit_reference(RefEdit {
        change,
        name,
        deref: false,
    })
    .map_err(|e| git_error(NOTED_REF, e))?;
    Ok(())
}
