//! Opening the repository with gix, only when a command needs objects or refs (recording a
//! receipt, verify, undo, log, show, staging): the git directory `workspace::discover` found,
//! with `GIT_DIR` / `GIT_WORK_TREE` / `GIT_INDEX_FILE` honoured the way git does; a bare
//! repository is refused.

use std::path::Path;

use crate::error::{Code, Error, Result};
use crate::workspace::Workspace;
use crate::workspace::discover::{self, Repo, bare};
use crate::workspace::durable;

/// The repository of `ws`, or why there is none.
pub fn open(ws: &Workspace) -> Result<gix::Repository> {
    let Some(found) = &ws.repo else {
        return Err(not_a_repository(&ws.cwd));
    };
    let repo = open_found(found).map_err(|e| git_error("opening the repository", &e))?;
    if repo.workdir().is_none() {
        return Err(bare());
    }
    Ok(repo)
}

/// Opens with gix the repository `workspace::discover` found (never a second discovery that
/// could disagree): `GIT_DIR` / `GIT_WORK_TREE` / `GIT_INDEX_FILE` are honoured as git does.
/// The durability setting is read from the configuration it loaded.
pub fn open_found(found: &Repo) -> gix::Result<gix::Repository> {
    let repo: gix::Repository =
        gix::ThreadSafeRepository::open_with_environment_overrides(&found.git_dir, |o, _| o)?
            .into();
    let fsync = repo.config_snapshot().string("identedit.fsync");
    durable::configure(fsync.map(|v| v.to_string()).as_deref());
    Ok(repo)
}

/// The repository of `dir` (`workspace::discover`), opened with gix.
pub fn discover(dir: &Path) -> Result<gix::Repository> {
    let found = discover::discover(dir).ok_or_else(|| not_a_repository(dir))?;
    open_found(&found).map_err(|e| git_error("opening the repository", &e))
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
