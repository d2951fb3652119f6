//! Per-file exclusive locks, taken in one stable order so two runs never deadlock.
//!
//! Each file key (its canonical root-relative path) maps to a lock file in the state folder,
//! locked with `flock(2)` through `std::fs::File::lock`. Lock files are never removed, so a
//! lock's inode is stable; the kernel releases locks when a process dies.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::error::{Code, Error, Result};
use crate::plan::Digest;

/// Held locks; dropping the set releases them.
#[derive(Debug)]
pub struct LockSet {
    _files: Vec<File>,
}

const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// How long to wait for a busy lock (`IDENTEDIT_LOCK_TIMEOUT_MS`, default 10 s).
pub fn timeout() -> Duration {
    let ms = std::env::var("IDENTEDIT_LOCK_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok());
    Duration::from_millis(ms.unwrap_or(DEFAULT_TIMEOUT_MS))
}

/// `<hash>.lock` for a work-tree file; other lock users (the ledger) put a prefix before the
/// hash, so that no file path, whatever its name, shares their lock.
fn lock_name(prefix: &str, key: &str) -> String {
    let hex = Digest::of(key.as_bytes()).to_hex();
    format!("{prefix}{}.lock", &hex[..32])
}

/// Locks every file key, in sorted order of their lock names, waiting at most `timeout` in all.
pub fn acquire(dir: &Path, keys: &[&str], timeout: Duration) -> Result<LockSet> {
    acquire_in(dir, "", keys, timeout)
}

/// The ledger's turn on `log_ref`: a lock of its own namespace in the same folder.
pub fn acquire_ledger(dir: &Path, log_ref: &str, timeout: Duration) -> Result<LockSet> {
    acquire_in(dir, "ledger-", &[log_ref], timeout)
}

fn acquire_in(dir: &Path, prefix: &str, keys: &[&str], timeout: Duration) -> Result<LockSet> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("creating the lock folder", &e))?;
    let mut names: Vec<(String, &str)> = keys.iter().map(|k| (lock_name(prefix, k), *k)).collect();
    names.sort();
    names.dedup_by(|a, b| a.0 == b.0);
    let deadline = Instant::now() + timeout;
    let mut files = Vec::with_capacity(names.len());
    for (name, key) in names {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(&name))
            .map_err(|e| Error::io("opening a lock file", &e))?;
        wait_for(&file, deadline).map_err(|busy| busy.detail("path", key))?;
        files.push(file);
    }
    Ok(LockSet { _files: files })
}

fn wait_for(file: &File, deadline: Instant) -> Result<()> {
    let mut pause = Duration::from_micros(200);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(TryLockError::WouldBlock) => {
                return Err(Error::new(
                    Code::ResourceBusy,
                    "another process holds the lock of a file in the plan",
                )
                .hint("Retry in a moment; raise IDENTEDIT_LOCK_TIMEOUT_MS to wait longer."));
            }
            Err(TryLockError::Error(e)) => return Err(Error::io("locking a file", &e)),
        }
    }
}
