//! Opening the repository with gix, only when a command needs objects or refs (recording a
//! receipt, verify, undo, log, show, staging). Honours `GIT_DIR` / `GIT_WORK_TREE` and linked
//! worktrees the way git does; a bare repository is refused.

use std::path::Path;

use crate::error::{Code, Error, Result};
use crate::workspace::Workspace;
use crate::workspace::discover::bare;

/// The repository of `ws`, or why there is none.
pub fn open(ws: &Workspace) -> Result<gix::Repository> {
    if ws.repo.is_none() {
        return Err(not_a_repository(&ws.cwd));
    }
    let repo = discover(&ws.cwd).map_err(|e| git_error("opening the repository", &e))?;
    if repo.workdir().is_none() {
        return Err(bare());
    }
    Ok(repo)
}

/// Finds the repository of `dir` as git does: `GIT_DIR` / `GIT_WORK_TREE` /
/// `GIT_INDEX_FILE` honoured, and `GIT_CEILING_DIRECTORIES` entries that do not contain
/// `dir` ignored (gix would otherwise refuse them all).
pub fn discover(dir: &Path) -> gix::Result<gix::Repository> {
    let options = gix::discover::upwards::Options {
        match_ceiling_dir_or_error: false,
        ..Default::default()
    };
    gix::ThreadSafeRepository::discover_with_environment_overrides_opts(dir, options, |o, _| o)
        .map(Into::into)
}

pub fn not_a_repository(cwd: &Path) -> Error {
    Error::new(
        Code::NotARepository,
        format!(
            "{} is not inside a git repository: there is no ledger to read or write",
            cwd.display()
        ),
    )
    .hint("Receipts, verify and undo live in git; run `git init` or work inside a repository.")
}

/// A gix failure while doing `what`.
pub fn git_error(what: &str, err: impl std::fmt::Display) -> Error {
    Error::new(Code::IoError, format!("{what}: {err}")).detail("git_error", err.to_string())
}
