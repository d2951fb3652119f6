//! Durability as a setting: how far a write is made to survive a power loss.
//!
//! A killed process never needs an fsync (the page cache outlives it; the journal protocol
//! alone makes `kill -9` safe). Surviving a power loss does: `identedit.fsync` (git config,
//! or `IDENTEDIT_FSYNC` in the environment, which wins) chooses
//!
//! - `true` (`yes`, `on`, `1`): every temp file, pre-image copy, the journal and every
//!   directory whose names changed are fsynced at each step of the protocol;
//! - `batch`: nothing is fsynced one by one; at each step one `syncfs(2)` of the state
//!   folder's filesystem flushes everything at once (the work tree and the git directory
//!   on one filesystem, as usual);
//! - `false` (`no`, `off`, `0`): nothing is flushed; the kernel writes back when it will.
//!
//! An unreadable value means `true`. The default is [`DEFAULT`].

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::workspace::failpoint;

/// One of the settings above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fsync {
    Full,
    Batch,
    Off,
}

/// The setting when none is configured: `false`, as git writes work-tree files. `true` costs
/// two fsyncs per file and one per folder, about 2 ms on a one-edit write and a quarter of a
/// 100-file write's time (figures and the reason in the README's durability paragraph);
/// `batch` flushes the whole file system, which a busy machine makes slower than a few fsyncs.
pub const DEFAULT: Fsync = Fsync::Off;

static COMMON_DIR: OnceLock<PathBuf> = OnceLock::new();
static POLICY: OnceLock<Fsync> = OnceLock::new();

/// Names the git directory whose configuration holds the setting (the first call wins).
pub fn set_repo(common_dir: &Path) {
    let _ = COMMON_DIR.set(common_dir.to_path_buf());
}

/// Settles the setting from the configuration of a repository just opened (`value` is its
/// `identedit.fsync`), unless it is settled already: the write path reads it there, for free,
/// rather than loading the configuration files a second time.
pub fn configure(value: Option<&str>) {
    let _ = POLICY.get_or_init(|| from_env().or(value.map(parse)).unwrap_or(DEFAULT));
}

/// The setting, read once, at the first write that needs it: `IDENTEDIT_FSYNC`, else the
/// repository's configuration (opened with gix's defaults, which never run `git`), else
/// [`DEFAULT`].
pub fn policy() -> Fsync {
    *POLICY.get_or_init(|| {
        from_env()
            .or_else(|| {
                let repo = gix::open(COMMON_DIR.get()?).ok()?;
                let value = repo.config_snapshot().string("identedit.fsync")?;
                Some(parse(&value.to_string()))
            })
            .unwrap_or(DEFAULT)
    })
}

fn from_env() -> Option<Fsync> {
    std::env::var("IDENTEDIT_FSYNC").ok().map(|v| parse(&v))
}

fn parse(value: &str) -> Fsync {
    match value.trim().to_ascii_lowercase().as_str() {
        "batch" => Fsync::Batch,
        "false" | "no" | "off" | "0" => Fsync::Off,
        _ => Fsync::Full,
    }
}

/// fsyncs an open file under `true` (`fsync@area` can fail it).
pub fn sync_file(file: &File, area: &str) -> std::io::Result<()> {
    if policy() != Fsync::Full {
        return Ok(());
    }
    failpoint::io("fsync", area)?;
    file.sync_all()
}

/// fsyncs the file at `path` under `true`.
pub fn sync_path(path: &Path, area: &str) -> std::io::Result<()> {
    if policy() != Fsync::Full {
        return Ok(());
    }
    failpoint::io("fsync", area)?;
    File::open(path)?.sync_all()
}

/// fsyncs a directory under `true`, so the names created or removed in it are durable.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    sync_path(dir, "dir")
}

/// A step of the protocol under `batch`: one `syncfs` of the filesystem holding `dir`
/// (`fsync@batch` can fail it).
pub fn barrier(dir: &Path) -> std::io::Result<()> {
    if policy() != Fsync::Batch {
        return Ok(());
    }
    failpoint::io("fsync", "batch")?;
    rustix::fs::syncfs(File::open(dir)?).map_err(std::io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_read_as_git_reads_booleans_and_anything_else_is_full() {
        assert_eq!(parse("batch"), Fsync::Batch);
        assert_eq!(parse(" Off "), Fsync::Off);
        assert_eq!(parse("0"), Fsync::Off);
        assert_eq!(parse("true"), Fsync::Full);
        assert_eq!(parse("sometimes"), Fsync::Full);
    }
}
