//! The crash journal: a record, written before the first file is touched, of everything a
//! transaction is about to do, so that a crash at any moment can be rolled back.
//!
//! A journal is `<state>/journal/<id>.journal`: written as `<id>.journal.tmp`, locked with
//! `flock` for the whole transaction, then renamed into place before any temp file exists.
//! Pre-images are hard links (or copies) beside it, `<id>.<n>.pre`. Under
//! `identedit.fsync=true`, before the first rename, the journal file, the temp files and the
//! journal folder are fsynced (so one folder fsync makes both the journal and the pre-images
//! durable against a power loss; a killed process needs none of it). Removing the journal is
//! the commit point. A journal whose lock can be taken belongs to a dead process; any later
//! invocation rolls it back.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::txn::record::{Record, sync_dir};
use crate::txn::restore;
pub use crate::txn::restore::Restored;
use crate::workspace::failpoint;

/// A transaction settled by a later invocation.
#[derive(Clone, Debug, Serialize)]
pub struct Recovered {
    pub journal: String,
    pub pid: u32,
    /// `back` (rolled back), `forward` (every file already held its post-image: the
    /// transaction is completed), `incomplete` (some file could not be put back: the journal
    /// and the pre-images stay) or `quarantined` (the journal does not read back).
    pub direction: &'static str,
    pub files: Vec<Restored>,
    /// Where a journal that does not read back (and its pre-images) were moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quarantine: Option<PathBuf>,
}

/// An open, locked journal of a running transaction.
pub struct Journal {
    pub record: Record,
    path: PathBuf,
    dir: PathBuf,
    /// The journal file, locked (flock) until the transaction ends.
    _file: File,
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

    /// Writes `record`, makes it durable and only then puts it in place (so a journal under
    /// its final name always reads back whole); the returned journal holds its lock until it
    /// is committed or rolled back.
    pub fn begin(dir: &Path, record: Record) -> std::io::Result<Self> {
        failpoint::io("mkdir", "journal")?;
        fs::create_dir_all(dir)?;
        let tmp = dir.join(format!("{}.journal.tmp", record.id));
        let path = dir.join(format!("{}.journal", record.id));
        let written = (|| -> std::io::Result<File> {
            failpoint::io("write", "journal")?;
            let file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
            file.lock()?;
            // Written through a buffer: the record of a plan of many files is a megabyte,
            // which a document built first would hold (and grow) on the heap.
            let mut out = std::io::BufWriter::with_capacity(1 << 16, &file);
            serde_json::to_writer(&mut out, &record).map_err(std::io::Error::other)?;
            out.flush()?;
            drop(out);
            crate::workspace::durable::sync_file(&file, "journal")?;
            failpoint::io("rename", "journal")?;
            fs::rename(&tmp, &path)?;
            Ok(file)
        })();
        let file = written.inspect_err(|_| {
            let _ = fs::remove_file(&tmp);
        })?;
        Ok(Self {
            record,
            path,
            dir: dir.to_path_buf(),
            _file: file,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The commit point: removes the journal and makes the removal durable (so that after a
    /// power loss the journal cannot come back and roll back a reported write). The
    /// pre-images, garbage from then on, are removed on another thread ([`Leftovers`]).
    pub fn commit(self) -> std::io::Result<Leftovers> {
        failpoint::io("unlink", "commit")?;
        fs::remove_file(&self.path)?;
        sync_dir(&self.dir)?;
        crate::workspace::durable::barrier(&self.dir)?;
        Ok(Leftovers::remove(backups(&self.record)))
    }

    /// Undoes whatever part of the transaction happened, then removes the journal; when a
    /// file could not be put back, the journal and the pre-images stay for `recover`.
    pub fn roll_back(self) -> Vec<Restored> {
        unwind(&self.dir, &self.path, &self.record)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn backups(record: &Record) -> Vec<PathBuf> {
    record
        .entries
        .iter()
        .filter_map(|e| e.backup.clone())
        .collect()
}

fn remove_backups(record: &Record) {
    remove_all(&backups(record));
}

/// Removes `paths`, shared over the cores when there are many: unlinking the last link of a
/// replaced file frees its blocks, which costs more than the rename that replaced it.
fn remove_all(paths: &[PathBuf]) {
    crate::txn::parallel::each(paths, |p| drop(fs::remove_file(p)));
}

/// The pre-images of a committed transaction, being removed on another thread while the
/// command goes on (its receipt is recorded meanwhile). Dropping it waits for the removal.
/// A process killed before it ends leaves them to [`recover`], for which a pre-image
/// without its journal is garbage.
pub struct Leftovers(Option<std::thread::JoinHandle<()>>);

impl Leftovers {
    fn remove(paths: Vec<PathBuf>) -> Self {
        if paths.is_empty() {
            return Self(None);
        }
        let spawned = std::thread::Builder::new().spawn({
            let paths = paths.clone();
            move || remove_all(&paths)
        });
        match spawned {
            Ok(thread) => Self(Some(thread)),
            Err(_) => {
                remove_all(&paths);
                Self(None)
            }
        }
    }
}

impl Drop for Leftovers {
    fn drop(&mut self) {
        if let Some(thread) = self.0.take() {
            let _ = thread.join();
        }
    }
}

/// A journal found on the way in.
enum Claim {
    /// Its owner is gone and it reads back: ours to settle.
    Dead(File, Record),
    /// Its owner is gone and it does not read back.
    Torn(File),
}

/// Opens and locks a journal whose owner is gone; `None` while its owner is alive (or when
/// another process already settled it).
fn claim(path: &Path, wait: bool) -> Option<Claim> {
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
    match serde_json::from_slice::<Record>(&fs::read(path).ok()?) {
        Ok(record) => Some(Claim::Dead(file, record)),
        Err(_) => Some(Claim::Torn(file)),
    }
}

/// Undoes a transaction and removes its journal and pre-images, unless a file could not be
/// put back: then both stay, for the next attempt.
fn unwind(dir: &Path, path: &Path, record: &Record) -> Vec<Restored> {
    let restored = restore::undo(record);
    if restored.iter().all(|r| r.outcome != "failed") {
        retire(dir, path, record);
    }
    restored
}

fn retire(dir: &Path, path: &Path, record: &Record) {
    let _ = fs::remove_file(path);
    let _ = sync_dir(dir);
    remove_backups(record);
}

fn settle_claim(dir: &Path, path: &Path, claim: Claim) -> Recovered {
    match claim {
        Claim::Dead(lock, record) => {
            let (direction, files) = if restore::completed(&record) {
                let files = restore::finish(&record);
                retire(dir, path, &record);
                ("forward", files)
            } else {
                let files = unwind(dir, path, &record);
                let stuck = files.iter().any(|f| f.outcome == "failed");
                (if stuck { "incomplete" } else { "back" }, files)
            };
            drop(lock);
            Recovered {
                journal: record.id,
                pid: record.pid,
                direction,
                files,
                quarantine: None,
            }
        }
        Claim::Torn(lock) => {
            let recovered = quarantine(dir, path);
            drop(lock);
            recovered
        }
    }
}

/// Moves a journal that does not read back, and the pre-images of its id, into
/// `<journal>/quarantine/`, where nothing rolls them back or deletes them.
fn quarantine(dir: &Path, path: &Path) -> Recovered {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let id = name.trim_end_matches(".journal").to_owned();
    let place = dir.join("quarantine");
    let _ = fs::create_dir_all(&place);
    let _ = fs::rename(path, place.join(&name));
    for item in entries(dir) {
        let item_name = item.file_name().map(|n| n.to_string_lossy().into_owned());
        if item_name
            .as_deref()
            .is_some_and(|n| n.starts_with(&format!("{id}.")) && n.ends_with(".pre"))
        {
            let _ = fs::rename(&item, place.join(item_name.unwrap_or_default()));
        }
    }
    let _ = sync_dir(&place);
    let _ = sync_dir(dir);
    Recovered {
        pid: id
            .split('-')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or(0),
        journal: id,
        direction: "quarantined",
        files: Vec::new(),
        quarantine: Some(place),
    }
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    match fs::read_dir(dir) {
        Ok(items) => items.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => Vec::new(),
    }
}

/// A journal still being written (before its rename, nothing is staged yet) is garbage once
/// its owner (the pid its name starts with) is gone, or, where that cannot be told, once it is
/// old: its owner may not have locked it yet.
fn is_stale(path: &Path) -> bool {
    let age = fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok());
    if age.is_some_and(|a| a > std::time::Duration::from_secs(60)) {
        return true;
    }
    let pid = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split('-').next())
        .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    let proc_fs = Path::new("/proc/self").exists();
    let unlocked = File::open(path).is_ok_and(|f| f.try_lock().is_ok());
    proc_fs && unlocked && pid.is_some_and(|p| !Path::new("/proc").join(p).exists())
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
            if let Some(claim) = claim(path, false) {
                out.push(settle_claim(dir, path, claim));
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
        if let Some(claim) = claim(&path, true) {
            out.push(settle_claim(dir, &path, claim));
        }
    }
    out
}

/// The journals (and pre-images) [`recover`] moved aside because they did not read back.
pub fn quarantined(dir: &Path) -> Vec<PathBuf> {
    let mut out = entries(&dir.join("quarantine"));
    out.sort();
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
