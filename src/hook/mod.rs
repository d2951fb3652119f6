//! Git hooks: installing identedit's `pre-commit` and `post-commit` beside (never over) the
//! hooks a repository already has, the pre-commit checks of what is staged, and the
//! post-commit note that lists the receipts a commit contains.
//!
//! These commands open a full `gix::Repository` (config, index, objects); the edit commands
//! never do, they only need [`crate::workspace::discover`].

pub mod install;
pub mod note;
pub mod precommit;
pub mod published;
pub mod residue;
pub mod staged;

use std::path::Path;

use crate::error::{Code, Error, Result};

/// Opens the repository of `cwd` as git would for a hook: `GIT_DIR`, `GIT_WORK_TREE` and
/// `GIT_INDEX_FILE` (set by `git commit -a` and `git commit PATH`) are honoured.
pub fn open(cwd: &Path) -> Result<gix::Repository> {
    crate::git::repo::discover(cwd).map_err(|e| {
        Error::new(Code::Usage, "`git identedit hook` needs a git repository")
            .hint("Run it inside a git repository (or set GIT_DIR).")
            .detail("git_error", e.message)
    })
}

pub(crate) use crate::git::repo::git_error;
