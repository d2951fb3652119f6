//! Publishing validated changes: journal → stage → back up → fsync → rename → fsync → commit.
//!
//! New content is staged in a temp file beside its target (same directory, so the rename is
//! atomic) with the old file's permissions; created files are linked into place so an existing
//! file is never replaced. Durability against a power loss (`identedit.fsync=true`) takes
//! four rounds of fsync: the journal (before it gets its name), the temp files (in parallel),
//! then the journal folder (which also holds the pre-image links), then, after the renames,
//! the targets' folders; the commit point (removing the journal) is made durable with one
//! more folder fsync. Any failure rolls every file back and leaves no temp file; a file that
//! cannot be put back keeps its pre-image and the journal. Staging and every rename after the
//! first run on several threads for many files; the pre-images of a committed transaction are
//! removed while the caller records its receipt.

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io::{IoSlice, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::change::{Action, FileChange, PostImage};
use crate::error::{Code, Error, Result};
use crate::plan::Digest;
use crate::txn::journal::{Journal, Leftovers, Restored};
use crate::txn::record::{Entry, Record, sync_dir};
use crate::workspace::durable::{Fsync, policy};
use crate::workspace::failpoint;

/// Writes every change of `changes` (already validated under the locks), all or nothing.
/// The pre-images kept for a rollback are removed while the caller goes on; dropping what
/// this returns waits for that.
pub fn publish(
    journal_dir: &Path,
    changes: &[&FileChange],
    keys: Vec<String>,
) -> Result<Leftovers> {
    let id = Journal::new_id();
    let record = record(journal_dir, &id, changes, keys);
    let journal = Journal::begin(journal_dir, record)
        .map_err(|e| failed("writing the journal", &e, &[], journal_dir))?;
    let steps = step("journaling", failpoint::hit("after_journal"))
        .and_then(|()| write_all(&journal, changes));
    match steps {
        Ok(()) => journal.commit().map_err(|e| {
            Error::new(
                Code::ApplyFailed,
                format!("committing failed: {e}; every file holds its new content, and the next command (or `git identedit recover`) completes the transaction"),
            )
            .detail("step", "committing")
            .detail("io_error", e.to_string())
            .detail("written", "all")
            .hint("Run `git identedit recover` to complete the transaction.")
        }),
        Err((step, e)) => {
            let path = journal.path().to_path_buf();
            let restored = journal.roll_back();
            Err(failed(step, &e, &restored, &path))
        }
    }
}

/// The failure of a step, with what the rollback did to each file. When a file could not be
/// put back, the message says which and where its pre-image and the journal are kept.
fn failed(step: &str, e: &std::io::Error, restored: &[Restored], journal: &Path) -> Error {
    let stuck: Vec<&Restored> = restored.iter().filter(|r| r.outcome == "failed").collect();
    let base = Error::new(Code::ApplyFailed, format!("{step} failed: {e}"))
        .detail("step", step)
        .detail("io_error", e.to_string())
        .detail("files", serde_json::json!(restored));
    if stuck.is_empty() {
        let mut error = base;
        error.message.push_str("; every file was restored");
        return error;
    }
    let names: Vec<&str> = stuck.iter().map(|r| r.path.as_str()).collect();
    let mut error = base
        .detail("journal", journal.to_string_lossy())
        .detail("written", "partial")
        .hint("Some files could not be put back: their pre-images and the journal are kept; run `git identedit recover` once the cause is fixed.");
    error.message.push_str(&format!(
        "; {} could not be restored (pre-images kept beside the journal {})",
        names.join(", "),
        journal.display()
    ));
    error
}

fn record(journal_dir: &Path, id: &str, changes: &[&FileChange], keys: Vec<String>) -> Record {
    let entries = changes
        .iter()
        .enumerate()
        .map(|(i, c)| Entry {
            rel: c.path.rel.clone(),
            target: c.path.abs.clone(),
            tmp: c.after.as_ref().map(|_| temp_path(&c.path.abs, id)),
            backup: c
                .before
                .as_ref()
                .map(|_| Journal::backup_path(journal_dir, id, i)),
            action: c.action,
            before: c.digest_before().map(|d| d.to_hex()),
            after: c.digest_after().map(|d| d.to_hex()),
        })
        .collect();
    let new_dirs = changes
        .iter()
        .flat_map(|c| c.new_dirs.iter().cloned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    Record {
        version: 1,
        id: id.to_owned(),
        pid: std::process::id(),
        keys,
        new_dirs,
        entries,
    }
}

/// `.NAME.identedit-ID.tmp` beside the target; a long name is cut (on a character boundary)
/// so that the temp name stays within the 255 bytes a file name may have.
fn temp_path(target: &Path, id: &str) -> PathBuf {
    const NAME_MAX: usize = 255;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let suffix = format!(".identedit-{id}.tmp");
    let room = NAME_MAX.saturating_sub(suffix.len() + 1);
    let mut cut = name.len().min(room);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    target.with_file_name(format!(".{}{suffix}", &name[..cut]))
}

type StepResult = std::result::Result<(), (&'static str, std::io::Error)>;

fn step<T>(
    name: &'static str,
    result: std::io::Result<T>,
) -> std::result::Result<T, (&'static str, std::io::Error)> {
    result.map_err(|e| (name, e))
}

fn write_all(journal: &Journal, changes: &[&FileChange]) -> StepResult {
    let record = &journal.record;
    step("creating directories", create_dirs(&record.new_dirs))?;
    let pairs: Vec<(&Entry, &&FileChange)> = record.entries.iter().zip(changes).collect();
    step(
        "staging",
        in_parallel(&pairs, |(entry, change)| stage(entry, change)),
    )?;
    step("staging", failpoint::hit("after_stage"))?;
    let copies = step("backing up", back_up(record))?;
    step("backing up", failpoint::hit("after_backup"))?;
    step("syncing", make_durable(journal, &copies))?;
    if let Some((first, rest)) = record.entries.split_first() {
        step("publishing", swap(first))?;
        step("publishing", failpoint::hit("after_first_rename"))?;
        step("publishing", in_parallel(rest, swap))?;
    }
    let parents: BTreeSet<&Path> = record
        .entries
        .iter()
        .filter_map(|e| e.target.parent())
        .collect();
    let parents: Vec<&Path> = parents.into_iter().collect();
    if policy() == Fsync::Full {
        step(
            "syncing directories",
            in_parallel(&parents, |dir| sync_dir(dir)),
        )?;
    }
    step("syncing", crate::workspace::durable::barrier(journal.dir()))?;
    step("publishing", failpoint::hit("after_publish"))
}

/// Temp files, copied pre-images and the journal reach the disk together, then the journal
/// folder (the journal's name and the pre-image links) does.
fn make_durable(journal: &Journal, copies: &[PathBuf]) -> std::io::Result<()> {
    let mut files: Vec<Option<&Path>> = journal
        .record
        .entries
        .iter()
        .filter_map(|e| e.tmp.as_deref())
        .map(Some)
        .collect();
    files.extend(copies.iter().map(|p| Some(p.as_path())));
    files.push(None);
    if policy() == Fsync::Full {
        in_parallel(&files, |file| match file {
            Some(path) => crate::workspace::durable::sync_path(path, "stage"),
            None => Ok(()),
        })?;
    }
    sync_dir(journal.dir())?;
    crate::workspace::durable::barrier(journal.dir())
}

/// `work` on every item, on a few threads for many items; small transactions stay on the
/// calling thread. With fsync (`identedit.fsync=true`) most of it is waiting for the disk, and
/// up to 8 threads overlap those waits. Without, it is the kernel's work on the page cache and
/// the directories, which no more threads than cores can share: on W2 (100 files, 2 cores),
/// staging, swapping and the fsync steps that had nothing to do started 21 threads.
fn in_parallel<T: Sync>(
    items: &[T],
    work: impl Fn(&T) -> std::io::Result<()> + Sync,
) -> std::io::Result<()> {
    const PER_THREAD: usize = 16;
    const MAX_WAITING: usize = 8;
    let most = match policy() {
        Fsync::Full => MAX_WAITING,
        Fsync::Batch | Fsync::Off => super::parallel::cores(),
    };
    let threads = items.len().div_ceil(PER_THREAD).min(most);
    if threads <= 1 {
        return items.iter().try_for_each(&work);
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().try_for_each(&work)))
            .collect();
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| Err(std::io::Error::other("a publishing thread panicked")))
        })
    })
}

fn create_dirs(dirs: &[PathBuf]) -> std::io::Result<()> {
    for dir in dirs {
        failpoint::io("mkdir", "stage")?;
        match fs::create_dir(dir) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

fn stage(entry: &Entry, change: &FileChange) -> std::io::Result<()> {
    let Some(tmp) = &entry.tmp else {
        return Ok(());
    };
    UNPACKED.with_borrow_mut(|buffer| {
        let staged = stage_with(tmp, change, buffer);
        // A buffer of a megabyte or more is mapped on its own, so freeing it leaves no hole;
        // keeping it would hold it for the life of a thread that may serve many commands.
        if buffer.capacity() >= 1 << 20 {
            *buffer = Vec::new();
        }
        staged
    })
}

thread_local! {
    /// A staging thread's buffer for compressed pre-images, reused from file to file: a fresh
    /// buffer per file can leave freed holes of every size in the thread's heap.
    static UNPACKED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn stage_with(tmp: &Path, change: &FileChange, buffer: &mut Vec<u8>) -> std::io::Result<()> {
    let pieced = matches!(change.after, Some(PostImage::Spliced(_)));
    let before = match pieced {
        true => change.before_into(buffer),
        false => &[][..],
    };
    let Some(segments) = change.after_segments(before) else {
        return Ok(());
    };
    // Bytes put together from pieces (and a compressed pre-image) are written only when they
    // are exactly the bytes proven.
    if pieced && Some(Digest::of_parts(&segments)) != change.after_digest {
        return Err(std::io::Error::other(format!(
            "the new content put together for {} is not the content proven",
            change.path.rel
        )));
    }
    let mode = change
        .new_permissions
        .as_ref()
        .or(change.before.as_ref().map(|b| &b.permissions))
        .map(|p| p.mode() & 0o7777);
    // Created with the final mode (the umask can only take bits away), and given exactly that
    // mode before any byte is written: the new content is never more readable than the file.
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode.unwrap_or(0o666))
        .open(tmp)?;
    if let Some(mode) = mode {
        file.set_permissions(fs::Permissions::from_mode(mode))?;
    }
    failpoint::io("write", "stage")?;
    write_segments(&mut file, &segments)
}

/// Writes `segments` one after the other, in as few `writev` calls as the kernel allows.
fn write_segments(file: &mut fs::File, segments: &[&[u8]]) -> std::io::Result<()> {
    let mut slices: Vec<IoSlice<'_>> = segments
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| IoSlice::new(s))
        .collect();
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        match file.write_vectored(rest) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut rest, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Keeps every pre-image alive beside the journal: a hard link, or a copy across devices.
/// Returns the copies, which need their own fsync.
fn back_up(record: &Record) -> std::io::Result<Vec<PathBuf>> {
    let mut copies = Vec::new();
    for entry in &record.entries {
        let Some(backup) = &entry.backup else {
            continue;
        };
        failpoint::io("link", "backup")?;
        if fs::hard_link(&entry.target, backup).is_err() {
            failpoint::io("write", "backup")?;
            fs::copy(&entry.target, backup)?;
            copies.push(backup.clone());
        }
    }
    Ok(copies)
}

fn swap(entry: &Entry) -> std::io::Result<()> {
    match (entry.action, &entry.tmp) {
        (Action::Modified, Some(tmp)) => {
            failpoint::io("rename", "publish")?;
            fs::rename(tmp, &entry.target)
        }
        (Action::Created, Some(tmp)) => {
            failpoint::io("link", "publish")?;
            fs::hard_link(tmp, &entry.target)?;
            failpoint::io("unlink", "publish")?;
            fs::remove_file(tmp)
        }
        (Action::Deleted, _) => {
            failpoint::io("unlink", "publish")?;
            fs::remove_file(&entry.target)
        }
        _ => Ok(()),
    }
}
