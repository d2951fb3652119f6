//! Opening the repository with gix, only when a command needs objects or refs (recording a
//! receipt, verify, undo, log, show, staging). Honours `GIT_DIR` / `GIT_WORK_TREE` and linked
//! worktrees the way git does; a bare repository is refused.

use std::path::Path;

use crate::error::{Code, Error, Result};
use crate::workspace::Workspace;

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

pub fn bare() -> Error {
    Error::new(
        Code::BareRepository,
        "this is a bare repository: it has no work tree for identedit to edit",
    )
    .hint("Run the command inside a clone or a linked worktree (`git worktree add`).")
}

/// A gix failure while doing `what`.
pub fn git_error(what: &str, err: impl std::fmt::Display) -> Error {
    Error::new(Code::IoError, format!("{what}: {err}")).detail("git_error", err.to_string())
}

/// Whether `dir` looks like a bare repository's git directory (`HEAD`, `objects/`, `refs/`).
pub fn is_bare_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
}
