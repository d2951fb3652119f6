//! The crash journal: a durable record, written before the first file is touched, of
//! everything a transaction is about to do, so that a crash at any moment can be rolled back.
//!
//! A journal is `<state>/journal/<id>.journal`: written as `<id>.journal.tmp`, locked with
//! `flock` for the whole transaction, then renamed into place before any temp file exists.
//! Pre-images are hard links (or copies) beside it, `<id>.<n>.pre`. Before the first rename,
//! the journal file, the temp files and the journal folder are fsynced (so one folder fsync
//! makes both the journal and the pre-images durable). Removing the journal is the commit
//! point. A journal whose lock can be taken belongs to a dead process; any later invocation
//! rolls it back.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::plan::Digest;
use crate::txn::change::Action;

/// One file of a transaction, with every path the rollback needs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Entry {
    pub rel: String,
    pub target: PathBuf,
    pub tmp: Option<PathBuf>,
    pub backup: Option<PathBuf>,
    pub action: Action,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// The journal document.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    pub version: u32,
    pub id: String,
    pub pid: u32,
    /// Lock keys of the transaction's files.
    pub keys: Vec<String>,
    /// Directories created for new files, outermost first.
    pub new_dirs: Vec<PathBuf>,
    pub entries: Vec<Entry>,
}

/// What a rollback did to one file.
#[derive(Clone, Debug, Serialize)]
pub struct Restored {
    pub path: String,
    /// `restored`, `removed`, `untouched` or `conflict` (changed by someone else since).
    pub outcome: &'static str,
}

/// A transaction rolled back by a later invocation.
#[derive(Clone, Debug, Serialize)]
pub struct Recovered {
    pub journal: String,
    pub pid: u32,
    pub files: Vec<Restored>,
}

/// An open, locked journal of a running transaction.
pub struct Journal {
    pub record: Record,
    path: PathBuf,
    dir: PathBuf,
    /// The journal file, locked (flock) until the transaction ends.
    file: File,
}

/// fsyncs a directory, so the names created or removed in it are durable.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

impl Journal {
    pub fn new_id() -> String {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("{}-{nanos}", std::process::id())
    }

    /// Path of the pre-image of entry `n` of journal `id`.
    pub fn backup_path(dir: &Path, id: &str, n: usize) -> PathBuf {
        dir.join(format!("{id}.{n}.pre"))
    }

    /// Writes `record` and puts it in place; the returned journal holds its lock until it is
    /// committed or rolled back. [`Journal::sync`] makes it durable.
    pub fn begin(dir: &Path, record: Record) -> std::io::Result<Self> {
        fs::create_dir_all(dir)?;
        let tmp = dir.join(format!("{}.journal.tmp", record.id));
        let path = dir.join(format!("{}.journal", record.id));
        let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        file.lock()?;
        file.write_all(&serde_json::to_vec(&record).map_err(std::io::Error::other)?)?;
        fs::rename(&tmp, &path)?;
        Ok(Self {
            record,
            path,
            dir: dir.to_path_buf(),
            file,
        })
    }

    /// Flushes the journal's bytes to disk (its folder is synced separately, once).
    pub fn sync(&self) -> std::io::Result<()> {
        self.file.sync_all()
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The commit point: removes the journal, then the pre-images. The removal is left to the
    /// kernel's writeback: every published file is already durable.
    pub fn commit(self) -> std::io::Result<()> {
        fs::remove_file(&self.path)?;
        remove_backups(&self.record);
        Ok(())
    }

    /// Undoes whatever part of the transaction happened, then removes the journal.
    pub fn roll_back(self) -> Vec<Restored> {
        unwind(&self.dir, &self.path, &self.record)
    }
}

fn remove_backups(record: &Record) {
    for backup in record.entries.iter().filter_map(|e| e.backup.as_ref()) {
        let _ = fs::remove_file(backup);
    }
}

fn digest_of(path: &Path) -> Option<String> {
    fs::read(path).ok().map(|bytes| Digest::of(&bytes).to_hex())
}

/// Puts every file back as it was before the transaction, where it still has the state the
/// transaction left; a file changed by someone else since is left alone and reported.
fn undo(record: &Record) -> Vec<Restored> {
    let mut out = Vec::new();
    for entry in record.entries.iter().rev() {
        if let Some(tmp) = &entry.tmp {
            let _ = fs::remove_file(tmp);
        }
        out.push(Restored {
            path: entry.rel.clone(),
            outcome: undo_entry(entry),
        });
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

fn undo_entry(entry: &Entry) -> &'static str {
    let current = digest_of(&entry.target);
    let backup = entry.backup.as_deref().filter(|b| b.exists());
    let done = |result: std::io::Result<()>, word: &'static str| {
        if result.is_ok() { word } else { "conflict" }
    };
    match entry.action {
        Action::Modified => {
            let published =
                current.is_some() && current == entry.after && entry.after != entry.before;
            match backup {
                Some(backup) if published => done(fs::rename(backup, &entry.target), "restored"),
                _ if current.is_some() && current == entry.before => "untouched",
                _ => "conflict",
            }
        }
        Action::Created => match current {
            Some(_) if current == entry.after => done(fs::remove_file(&entry.target), "removed"),
            None => "untouched",
            Some(_) => "conflict",
        },
        Action::Deleted => {
            let gone = matches!(fs::symlink_metadata(&entry.target), Err(e) if e.kind() == ErrorKind::NotFound);
            match backup {
                Some(backup) if gone => done(fs::rename(backup, &entry.target), "restored"),
                _ if current.is_some() && current == entry.before => "untouched",
                _ => "conflict",
            }
        }
        Action::Unchanged => "untouched",
    }
}

/// Opens and locks a journal whose owner is gone; `None` while its owner is alive (or when
/// another process already rolled it back).
fn claim(path: &Path, wait: bool) -> Option<(File, Record)> {
    let file = OpenOptions::new().read(true).write(true).open(path).ok()?;
    let locked = if wait {
        file.lock().is_ok()
    } else {
        !matches!(
            file.try_lock(),
            Err(TryLockError::WouldBlock | TryLockError::Error(_))
        )
    };
    if !locked || file.metadata().ok()?.nlink() == 0 {
        return None;
    }
    let record: Record = serde_json::from_slice(&fs::read(path).ok()?).ok()?;
    Some((file, record))
}

/// Undoes a transaction and removes its journal and pre-images.
fn unwind(dir: &Path, path: &Path, record: &Record) -> Vec<Restored> {
    let restored = undo(record);
    let _ = fs::remove_file(path);
    let _ = sync_dir(dir);
    remove_backups(record);
    restored
}

fn recover_one(dir: &Path, path: &Path, lock: File, record: Record) -> Recovered {
    let files = unwind(dir, path, &record);
    drop(lock);
    Recovered {
        journal: record.id,
        pid: record.pid,
        files,
    }
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    match fs::read_dir(dir) {
        Ok(items) => items.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => Vec::new(),
    }
}

/// A journal still being written (before its rename, nothing is staged yet) is only garbage
/// once it is old: its owner may not have locked it yet.
fn is_stale(path: &Path) -> bool {
    let age = fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok());
    age.is_some_and(|a| a > std::time::Duration::from_secs(60))
}

/// Rolls back every journal left by a dead process. Costs one `readdir` when there is none.
pub fn recover(dir: &Path) -> Vec<Recovered> {
    let mut out = Vec::new();
    let items = entries(dir);
    for path in &items {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.ends_with(".journal") {
            if let Some((lock, record)) = claim(path, false) {
                out.push(recover_one(dir, path, lock, record));
            }
        } else if name.ends_with(".journal.tmp") && is_stale(path) {
            let _ = fs::remove_file(path);
        } else if let Some(id) = name
            .strip_suffix(".pre")
            .and_then(|n| n.rsplit_once('.'))
            .map(|(id, _)| id)
        {
            // A pre-image whose journal is gone belongs to a committed transaction.
            let live = dir.join(format!("{id}.journal")).exists()
                || dir.join(format!("{id}.journal.tmp")).exists();
            if !live {
                let _ = fs::remove_file(path);
            }
        }
    }
    out
}

/// Called with the transaction's locks held: a journal naming one of our files belongs to a
/// process that died holding that file's lock (or is dying now); wait for it and roll it back
/// before reading the file.
pub fn settle(dir: &Path, keys: &[String]) -> Vec<Recovered> {
    let mut out = Vec::new();
    for path in entries(dir) {
        if path.extension().is_none_or(|e| e != "journal") {
            continue;
        }
        let Some(record) = fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Record>(&b).ok())
        else {
            continue;
        };
        if !record.keys.iter().any(|k| keys.contains(k)) {
            continue;
        }
        if let Some((lock, record)) = claim(&path, true) {
            out.push(recover_one(dir, &path, lock, record));
        }
    }
    out
}

/// A journal found by [`pending`].
#[derive(Clone, Debug)]
pub struct Pending {
    pub path: PathBuf,
    /// The journal's record, when it reads back.
    pub record: Option<Record>,
    /// Its owner still runs (holds the lock); otherwise the next invocation rolls it back.
    pub live: bool,
}

/// Every journal in `dir` and whether its owner still runs. Changes nothing: a dead journal
/// is left for [`recover`] (the lock is only tested, then released).
pub fn pending(dir: &Path) -> Vec<Pending> {
    let mut out = Vec::new();
    for path in entries(dir) {
        if path.extension().is_none_or(|e| e != "journal") {
            continue;
        }
        let Ok(file) = File::open(&path) else {
            continue;
        };
        let live = matches!(file.try_lock(), Err(TryLockError::WouldBlock));
        if file.metadata().is_ok_and(|m| m.nlink() == 0) {
            continue;
        }
        drop(file);
        let record = fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        out.push(Pending { path, record, live });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}
