//! Finding the repository that contains a directory, cheaply, on the path of every edit: a
//! walk up the directory tree looking for `.git` (a directory, or a file of the form
//! `gitdir: PATH` as in linked worktrees and submodules), honouring `GIT_DIR` and
//! `GIT_WORK_TREE` as git does for its subcommands, and the repository's `core.worktree`. It
//! reads no objects and of the config only the repository's own file, so it costs a few
//! `stat` calls and one small read. This is the one discovery: `git::repo` opens with gix
//! the git directory found here.

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
            None => core_worktree(&git_dir).unwrap_or_else(|| cwd.to_path_buf()),
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
        let git_dir = match meta.is_dir() {
            true => dot_git,
            false => match read_gitdir_file(&dot_git) {
                Some(git_dir) => canonical(git_dir),
                None => continue,
            },
        };
        let workdir = core_worktree(&git_dir).map_or_else(|| dir.to_path_buf(), canonical);
        return Some(Repo { workdir, git_dir });
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

/// `core.worktree` of the repository's own config file (relative to the git directory), as
/// git reads it for a repository found by discovery or named by `GIT_DIR`.
fn core_worktree(git_dir: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(git_dir.join("config")).ok()?;
    let mut in_core = false;
    let mut found = None;
    for line in text.lines().map(str::trim) {
        if let Some(section) = line.strip_prefix('[') {
            let name = section.split([']', ' ', '"']).next().unwrap_or_default();
            in_core = name.eq_ignore_ascii_case("core");
        } else if let Some((key, value)) = line.split_once('=')
            && in_core
            && key.trim().eq_ignore_ascii_case("worktree")
        {
            // The last setting wins, as in git.
            found = Some(value.trim().trim_matches('"').to_owned());
        }
    }
    Some(absolute(git_dir, Path::new(&found?)))
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
