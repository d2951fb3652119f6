//! Per-file exclusive locks, taken in one stable order so two runs never deadlock.
//!
//! Each file key (its canonical root-relative path) maps to a lock file in the state folder,
//! locked with `flock(2)` through `std::fs::File::lock`. Lock files are never removed, so a
//! lock's inode is stable; the kernel releases locks when a process dies.
//!
//! A busy lock is waited for (queued on, polling with backoff) for the time [`timeout`]
//! resolves: `--wait SECONDS`, else `IDENTEDIT_LOCK_TIMEOUT_MS`, else `git config
//! identedit.wait` (seconds), else 10 s. The configuration is only read when a lock is busy.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::{Code, Error, Result};
use crate::plan::Digest;

/// Held locks; dropping the set releases them.
#[derive(Debug)]
pub struct LockSet {
    _files: Vec<File>,
}

const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// Reads the `identedit.wait` setting of the repository at a root (given by the caller, which
/// knows how to read git config; this layer does not).
pub type WaitSetting = fn(&Path) -> Option<String>;

/// What the invocation said about waiting: `--wait`, and the repository whose
/// `identedit.wait` applies otherwise.
struct Patience {
    explicit: Option<Duration>,
    repo_root: Option<PathBuf>,
    setting: Option<WaitSetting>,
    resolved: Option<Duration>,
}

static PATIENCE: Mutex<Patience> = Mutex::new(Patience {
    explicit: None,
    repo_root: None,
    setting: None,
    resolved: None,
});

/// Sets this invocation's `--wait`, the repository whose config is read otherwise and how.
pub fn configure(explicit: Option<Duration>, repo_root: Option<PathBuf>, setting: WaitSetting) {
    if let Ok(mut p) = PATIENCE.lock() {
        *p = Patience {
            explicit,
            repo_root,
            setting: Some(setting),
            resolved: None,
        };
    }
}

/// `SECONDS` of `--wait` and `identedit.wait`: a non-negative decimal number (`0`, `2.5`).
pub fn parse_seconds(text: &str) -> std::result::Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("`{text}` is not a number of seconds (e.g. 0, 2.5, 30)"))
}

/// How long to wait for a busy lock: `--wait`, `IDENTEDIT_LOCK_TIMEOUT_MS`,
/// `identedit.wait`, else 10 s.
pub fn timeout() -> Duration {
    let Ok(mut p) = PATIENCE.lock() else {
        return Duration::from_millis(DEFAULT_TIMEOUT_MS);
    };
    if let Some(d) = p.explicit.or(p.resolved) {
        return d;
    }
    let env = std::env::var("IDENTEDIT_LOCK_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis);
    let resolved = env
        .or_else(|| parse_seconds(&p.setting?(p.repo_root.as_deref()?)?).ok())
        .unwrap_or(Duration::from_millis(DEFAULT_TIMEOUT_MS));
    p.resolved = Some(resolved);
    resolved
}

/// `<hash>.lock` for a work-tree file; other lock users (the ledger) put a prefix before the
/// hash, so that no file path, whatever its name, shares their lock.
fn lock_name(prefix: &str, key: &str) -> String {
    let hex = Digest::of(key.as_bytes()).to_hex();
    format!("{prefix}{}.lock", &hex[..32])
}

/// Locks every file key, in sorted order of their lock names, waiting at most `timeout()` in
/// all (asked only when a lock is busy).
pub fn acquire(dir: &Path, keys: &[&str], timeout: fn() -> Duration) -> Result<LockSet> {
    acquire_in(dir, "", keys, timeout)
}

/// The ledger's turn on `log_ref`: a lock of its own namespace in the same folder.
pub fn acquire_ledger(dir: &Path, log_ref: &str, timeout: fn() -> Duration) -> Result<LockSet> {
    acquire_in(dir, "ledger-", &[log_ref], timeout)
}

fn acquire_in(
    dir: &Path,
    prefix: &str,
    keys: &[&str],
    timeout: fn() -> Duration,
) -> Result<LockSet> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("creating the lock folder", &e))?;
    let mut names: Vec<(String, &str)> = keys.iter().map(|k| (lock_name(prefix, k), *k)).collect();
    names.sort();
    names.dedup_by(|a, b| a.0 == b.0);
    let start = Instant::now();
    let mut deadline = None;
    let mut files = Vec::with_capacity(names.len());
    for (name, key) in names {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(&name))
            .map_err(|e| Error::io("opening a lock file", &e))?;
        wait_for(&file, &mut || {
            *deadline.get_or_insert_with(|| start + timeout())
        })
        .map_err(|busy| busy.detail("path", key))?;
        files.push(file);
    }
    Ok(LockSet { _files: files })
}

fn wait_for(file: &File, deadline: &mut dyn FnMut() -> Instant) -> Result<()> {
    let mut pause = Duration::from_micros(200);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(TryLockError::WouldBlock) if Instant::now() < deadline() => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(TryLockError::WouldBlock) => {
                return Err(Error::new(
                    Code::ResourceBusy,
                    "another process holds the lock of a file in the plan",
                )
                .hint("Retry in a moment, or queue longer with --wait SECONDS (or `git config identedit.wait SECONDS`)."));
            }
            Err(TryLockError::Error(e)) => return Err(Error::io("locking a file", &e)),
        }
    }
}
