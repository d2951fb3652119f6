//! `hook post-commit`: attaches the receipts applied since the previous commit to the new
//! commit as a note under `refs/notes/identedit` (gix's native notes API, which handles
//! fan-out trees), so `git log --notes=identedit` shows which checked edits a commit contains.
//!
//! The note has one line per receipt, oldest first: `<receipt commit id> <label> <status>`.
//! The range is claimed first by moving `refs/identedit/noted` to the log's tip with a
//! compare-and-swap (and a reflog entry), so two hooks never attach the same receipts twice.

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
    pub note: String,
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

/// Attaches the unnoted receipts to HEAD; `None` when there are none.
pub fn post_commit(repo: &mut gix::Repository) -> Result<Option<Attached>> {
    let log = published::unnoted(repo)?;
    let Some(tip) = log.tip.filter(|_| !log.receipts.is_empty()) else {
        return Ok(None);
    };
    let head = repo.head_id().map_err(|e| git_error("HEAD", e))?.detach();
    let lines: Vec<String> = log.receipts.iter().rev().map(line).collect();
    ensure_identity(repo)?;
    let claimed = move_noted(
        repo,
        log.noted,
        Some(tip),
        "identedit: receipts attached to a commit",
    );
    if let Err(e) = claimed {
        // Lost the compare-and-swap only when the ref no longer holds what was read.
        if crate::git::ledger::ref_target(repo, NOTED_REF)? != log.noted {
            return Err(Error::new(
                Code::HookConflict,
                format!("{NOTED_REF} moved while attaching receipts (another hook ran)"),
            )
            .detail("git_error", e.message));
        }
        return Err(e);
    }
    let note = match write_note(repo, head, &lines) {
        Ok(note) => note,
        Err(e) => {
            let _ = move_noted(
                repo,
                Some(tip),
                log.noted,
                "identedit: note failed, receipts released",
            );
            return Err(e);
        }
    };
    Ok(Some(Attached {
        commit: head.to_string(),
        notes_ref: NOTES_REF,
        receipts: log
            .receipts
            .iter()
            .rev()
            .map(|r| r.id.to_string())
            .collect(),
        note,
    }))
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
