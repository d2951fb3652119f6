//! Everything git. This file finds the repository that contains a directory, cheaply, on the
//! path of every edit; `repo` opens it with gix when a command needs objects or refs, and
//! `ledger` writes receipt objects and refs.
//!
//! Discovery is a walk up the directory tree looking for `.git` (a directory, or a file of the
//! form `gitdir: PATH` as in linked worktrees and submodules), honouring `GIT_DIR` and
//! `GIT_WORK_TREE` as git does for its subcommands. It reads no config and no objects, so it
//! costs a few `stat` calls on the path of every edit.

pub mod cached;
pub mod index;
pub mod ledger;
pub mod repo;

use std::path::{Path, PathBuf};

/// A repository's work tree, its (per-worktree) git directory and the directory every
/// worktree of the repository shares (`git rev-parse --git-common-dir`).
#[derive(Clone, Debug)]
pub struct Repo {
    pub workdir: PathBuf,
    pub git_dir: PathBuf,
    pub common_dir: PathBuf,
}

impl Repo {
    fn new(workdir: PathBuf, git_dir: PathBuf) -> Self {
        let common_dir = common_dir(&git_dir);
        Self {
            workdir,
            git_dir,
            common_dir,
        }
    }
}

/// The common directory of a git directory, as git finds it: `GIT_COMMON_DIR`, else the
/// `commondir` file of a linked worktree's git directory (relative to it), else itself.
fn common_dir(git_dir: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("GIT_COMMON_DIR") {
        return canonical(absolute(git_dir, Path::new(&dir)));
    }
    match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) if !text.trim_end().is_empty() => {
            canonical(absolute(git_dir, Path::new(text.trim_end())))
        }
        _ => git_dir.to_path_buf(),
    }
}

/// Finds the repository containing `cwd` (canonical), if any.
pub fn discover(cwd: &Path) -> Option<Repo> {
    if let Some(git_dir) = std::env::var_os("GIT_DIR") {
        let git_dir = absolute(cwd, Path::new(&git_dir));
        let workdir = match std::env::var_os("GIT_WORK_TREE") {
            Some(tree) => absolute(cwd, Path::new(&tree)),
            None => cwd.to_path_buf(),
        };
        return Some(Repo::new(canonical(workdir), canonical(git_dir)));
    }
    let ceilings = ceiling_dirs();
    for dir in cwd.ancestors() {
        // As git: never move up into a ceiling directory (the current one is always looked at).
        if dir != cwd && ceilings.iter().any(|c| c == dir) {
            break;
        }
        let dot_git = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        if meta.is_dir() {
            return Some(Repo::new(dir.to_path_buf(), dot_git));
        }
        if let Some(git_dir) = read_gitdir_file(&dot_git) {
            return Some(Repo::new(dir.to_path_buf(), canonical(git_dir)));
        }
    }
    None
}

/// `GIT_CEILING_DIRECTORIES`: absolute paths, `:`-separated, canonicalised; empty entries and
/// relative paths are ignored, as git ignores them.
fn ceiling_dirs() -> Vec<PathBuf> {
    let Some(value) = std::env::var_os("GIT_CEILING_DIRECTORIES") else {
        return Vec::new();
    };
    std::env::split_paths(&value)
        .filter(|p| p.is_absolute())
        .map(canonical)
        .collect()
}

/// Reads a `.git` file (`gitdir: PATH`, PATH relative to the file's directory).
fn read_gitdir_file(dot_git: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot_git).ok()?;
    let target = text.trim_end().strip_prefix("gitdir:")?.trim();
    let base = dot_git.parent()?;
    Some(absolute(base, Path::new(target)))
}

fn absolute(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

fn canonical(path: PathBuf) -> PathBuf {
    std::fs::canonicalize(&path).unwrap_or(path)
}
