//! The workspace an invocation works in: its root, the caller's directory inside it, and the
//! private state directory (locks, crash journal); with the paths checked inside it
//! ([`path`]), the files read from it ([`snapshot`]) and opened beneath it ([`open`]).
//!
//! Inside a git repository the root is the work tree and state lives in
//! `<git-dir>/identedit/` (locks in `<git-common-dir>/identedit/locks`, shared by every worktree);
//! elsewhere the root is the current directory and state lives in the
//! per-user state directory (`$XDG_STATE_HOME/git-identedit/dirs/<hash of the root>/`, by
//! default under `~/.local/state`), never in the user's folder.

pub mod as_read;
pub mod discover;
pub mod durable;
pub mod failpoint;
pub mod image;
pub mod lock;
pub mod open;
pub mod path;
pub mod replace;
pub mod snapshot;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use discover::Repo;

/// The state folder earlier versions kept in a plain (non-git) directory; paths into it stay
/// refused, so a leftover journal is never edited as a file.
pub const PLAIN_STATE_DIR: &str = ".identedit";

/// Where the state of a plain directory lives: one folder per root under the per-user state
/// directory (`$XDG_STATE_HOME`, else `~/.local/state`; the temp directory when neither
/// exists), named by the sha256 of the root's path.
pub fn plain_state_dir(root: &Path) -> PathBuf {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let base = std::env::var_os("XDG_STATE_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".local/state"))
        })
        .unwrap_or_else(std::env::temp_dir);
    let key = crate::plan::Digest::of(root.as_os_str().as_encoded_bytes()).to_hex();
    base.join("git-identedit").join("dirs").join(&key[..16])
}

#[derive(Clone, Debug)]
pub struct Workspace {
    /// Canonical root; every path the tool touches lies below it.
    pub root: PathBuf,
    /// Canonical current directory, relative to which command-line paths are read.
    pub cwd: PathBuf,
    /// Where locks and the crash journal live.
    pub state_dir: PathBuf,
    /// The repository, when there is one.
    pub repo: Option<Repo>,
}

impl Workspace {
    /// Discovers the workspace of the current directory.
    pub fn discover() -> Result<Self> {
        let cwd = std::env::current_dir()
            .and_then(std::fs::canonicalize)
            .map_err(|e| Error::io("the current directory", &e))?;
        let ws = Self::at(cwd);
        if ws.repo.is_none() && ws.cwd.ancestors().any(discover::is_bare_git_dir) {
            return Err(discover::bare());
        }
        Ok(ws)
    }

    /// The workspace of a canonical directory.
    pub fn at(cwd: PathBuf) -> Self {
        match discover::discover(&cwd) {
            Some(repo) => {
                durable::set_repo(&repo.common_dir);
                Self {
                    root: repo.workdir.clone(),
                    state_dir: repo.git_dir.join("identedit"),
                    cwd,
                    repo: Some(repo),
                }
            }
            None => Self {
                root: cwd.clone(),
                state_dir: plain_state_dir(&cwd),
                cwd,
                repo: None,
            },
        }
    }

    /// [`Workspace::at`] for unit tests in a temp directory: the state stays inside it (in
    /// the old `.identedit/` folder, which the tool never edits), not in the user's state dir.
    #[cfg(test)]
    pub fn scratch(cwd: PathBuf) -> Self {
        let mut ws = Self::at(cwd);
        if ws.repo.is_none() {
            ws.state_dir = ws.root.join(PLAIN_STATE_DIR);
        }
        ws
    }

    /// The current directory relative to the root (`""` at the root), `/`-separated.
    pub fn cwd_prefix(&self) -> Option<String> {
        let rel = self.cwd.strip_prefix(&self.root).ok()?;
        let parts: Option<Vec<&str>> = rel.iter().map(|p| p.to_str()).collect();
        Some(parts?.join("/"))
    }

    /// Whether `path` (canonical) lies at or below the root.
    pub fn contains(&self, path: &Path) -> bool {
        path.starts_with(&self.root)
    }

    pub fn journal_dir(&self) -> PathBuf {
        self.state_dir.join("journal")
    }

    /// Locks live in the directory every worktree of the repository shares, so that agents in
    /// different worktrees take turns on what they share (files are keyed by their real path,
    /// see [`Workspace::lock_key`]); journals stay per worktree (the worktree's git directory
    /// lies inside the common one).
    pub fn lock_dir(&self) -> PathBuf {
        match &self.repo {
            Some(repo) => repo.common_dir.join("identedit").join("locks"),
            None => self.state_dir.join("locks"),
        }
    }

    /// The lock key of a file by its canonical root-relative key: its real path, so the same
    /// relative path in two worktrees is two files and one file is one lock however reached.
    pub fn lock_key(&self, key: &str) -> String {
        self.root.join(key).to_string_lossy().into_owned()
    }
}
