//! Finding the repository that contains a directory, cheaply, on the path of every edit: a
//! walk up the directory tree looking for `.git` (a directory, or a file of the form
//! `gitdir: PATH` as in linked worktrees and submodules), honouring `GIT_DIR` and
//! `GIT_WORK_TREE` as git does for its subcommands. It reads no config and no objects, so it
//! costs a few `stat` calls. Opening the repository with gix is `git::repo`.

use std::path::{Path, PathBuf};

use crate::error::{Code, Error};

/// A repository's work tree and its (per-worktree) git directory.
#[derive(Clone, Debug)]
pub struct Repo {
    pub workdir: PathBuf,
    pub git_dir: PathBuf,
}

/// Finds the repository containing `cwd` (canonical), if any.
pub fn discover(cwd: &Path) -> Option<Repo> {
    if let Some(git_dir) = std::env::var_os("GIT_DIR") {
        let git_dir = absolute(cwd, Path::new(&git_dir));
        let workdir = match std::env::var_os("GIT_WORK_TREE") {
            Some(tree) => absolute(cwd, Path::new(&tree)),
            None => cwd.to_path_buf(),
        };
        return Some(Repo {
            workdir: canonical(workdir),
            git_dir: canonical(git_dir),
        });
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
            return Some(Repo {
                workdir: dir.to_path_buf(),
                git_dir: dot_git,
            });
        }
        if let Some(git_dir) = read_gitdir_file(&dot_git) {
            return Some(Repo {
                workdir: dir.to_path_buf(),
                git_dir: canonical(git_dir),
            });
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

/// Whether `dir` looks like a bare repository's git directory (`HEAD`, `objects/`, `refs/`).
pub fn is_bare_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
}

/// The refusal of a bare repository.
pub fn bare() -> Error {
    Error::new(
        Code::BareRepository,
        "this is a bare repository: it has no work tree for identedit to edit",
    )
    .hint("Run the command inside a clone or a linked worktree (`git worktree add`).")
}
