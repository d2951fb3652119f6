//! Turning a path the caller wrote into a checked path inside the workspace.
//!
//! `..` is resolved lexically and an absolute path inside the root is taken as root-relative
//! (as git does). Refused with `path_refused`: empty paths, absolute paths outside the root, anything under `.git/` (or the plain-directory state folder), paths that leave the
//! root, and parents that are symlinks leaving
//! the root. The final component is checked when the file is read or created.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::error::{Code, Error, Result};
use crate::plan::{PathBase, PathSpec};
use crate::workspace::{PLAIN_STATE_DIR, Workspace};

/// A checked path inside the workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetPath {
    /// Normalised root-relative path, `/`-separated: how the path is reported.
    pub rel: String,
    /// Absolute path used for I/O.
    pub abs: PathBuf,
    /// Root-relative path with in-root symlinked parents resolved: two spellings of one file
    /// share one key (and so one lock).
    pub key: String,
}

fn refused(spec: &PathSpec, reason: &'static str, why: &str) -> Error {
    Error::new(
        Code::PathRefused,
        format!("path `{}` is refused: {why}", spec.raw),
    )
    .detail("path", spec.raw.as_str())
    .detail("reason", reason)
}

/// Resolves and checks a path from a plan or the command line.
pub fn resolve(ws: &Workspace, spec: &PathSpec) -> Result<TargetPath> {
    resolve_with(ws, spec, &mut HashSet::new())
}

/// [`resolve`], remembering directories already seen to be real (not symlinked) directories,
/// so a plan of many files in few folders checks each folder once.
pub fn resolve_with(
    ws: &Workspace,
    spec: &PathSpec,
    real_dirs: &mut HashSet<PathBuf>,
) -> Result<TargetPath> {
    check_shape(spec)?;
    let inside = inside_root(ws, spec)?;
    let prefix = match (spec.base, inside) {
        (_, Some(_)) | (PathBase::Root, None) => String::new(),
        (PathBase::Cwd, None) => ws.cwd_prefix().ok_or_else(|| {
            refused(
                spec,
                "outside_root",
                "the current directory is outside the work tree",
            )
        })?,
    };
    let parts = components(spec, &prefix, inside.unwrap_or(&spec.raw))?;
    check_components(ws, spec, &parts)?;
    let rel = parts.join("/");
    let abs = ws.root.join(&rel);
    let key = canonical_key(ws, spec, &parts, real_dirs)?.unwrap_or_else(|| rel.clone());
    Ok(TargetPath { rel, abs, key })
}

/// Refuses what cannot name a file whatever the root: an empty path, a NUL, a directory.
fn check_shape(spec: &PathSpec) -> Result<()> {
    let raw = spec.raw.as_str();
    if raw.is_empty() || raw.contains('\0') {
        return Err(refused(spec, "empty", "a file path is required"));
    }
    if raw.ends_with('/') || raw.ends_with("/.") || raw == "." {
        return Err(refused(
            spec,
            "directory",
            "it names a directory; give a file path",
        ));
    }
    Ok(())
}

/// An absolute path inside the root, as the root-relative rest (as git takes one); `None` for
/// a relative path. An absolute path outside the root is refused, or missing if nothing is
/// there at all.
fn inside_root<'a>(ws: &Workspace, spec: &'a PathSpec) -> Result<Option<&'a str>> {
    let raw = spec.raw.as_str();
    let root = ws.root.to_string_lossy();
    let inside = raw
        .strip_prefix(root.as_ref())
        .and_then(|rest| rest.strip_prefix('/'));
    let absolute = raw.starts_with('/') || raw.starts_with('\\');
    if !absolute || inside.is_some() {
        return Ok(inside);
    }
    // A file that does not exist anywhere is missing, wherever it was meant to be.
    if std::fs::symlink_metadata(raw).is_err() {
        return Err(
            Error::new(Code::InputNotFound, format!("{raw} does not exist")).detail("path", raw),
        );
    }
    Err(refused(
        spec,
        "absolute",
        "an absolute path outside the repository; name a file inside it",
    ))
}

/// The normalised components of `prefix` joined with `raw`: `.` dropped and `..` resolved
/// lexically, as git resolves it in a path; only leaving the root, or naming it, is refused.
fn components<'a>(spec: &PathSpec, prefix: &'a str, raw: &'a str) -> Result<Vec<&'a str>> {
    let mut parts: Vec<&str> = prefix.split('/').filter(|p| !p.is_empty()).collect();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.pop().is_none() => {
                return Err(refused(
                    spec,
                    "outside_root",
                    "`..` leads out of the repository",
                ));
            }
            ".." => {}
            part => parts.push(part),
        }
    }
    if parts.is_empty() {
        return Err(refused(
            spec,
            "empty",
            "the path names the root directory, not a file",
        ));
    }
    Ok(parts)
}

/// `.git` in any spelling git itself refuses: any case, with HFS+ ignorable code points
/// (`.g\u{200c}it`), or as NTFS would read it (`GIT~1`, `.git.`, `.git::$INDEX_ALLOCATION`).
fn is_git_lookalike(part: &str) -> bool {
    use gix::validate::path::component;
    let options = component::Options {
        protect_windows: false,
        protect_hfs: true,
        protect_ntfs: true,
    };
    matches!(
        gix::validate::path::component(part.into(), None, options),
        Err(component::Error::DotGitDir)
    )
}

fn check_components(ws: &Workspace, spec: &PathSpec, parts: &[&str]) -> Result<()> {
    if parts.iter().any(|p| is_git_lookalike(p)) {
        return Err(refused(spec, "git_dir", "paths into .git/ are not allowed"));
    }
    if ws.repo.is_none() && parts[0] == PLAIN_STATE_DIR {
        return Err(refused(
            spec,
            "state_dir",
            "the tool's own state folder is not editable",
        ));
    }
    Ok(())
}

/// Walks the parents; a symlinked parent must stay inside the root. Returns the canonical key
/// when a parent was a symlink.
fn canonical_key(
    ws: &Workspace,
    spec: &PathSpec,
    parts: &[&str],
    real_dirs: &mut HashSet<PathBuf>,
) -> Result<Option<String>> {
    let (name, parents) = parts.split_last().unwrap_or((&"", &[]));
    let mut current = ws.root.clone();
    let mut resolved = false;
    for part in parents {
        current.push(part);
        if real_dirs.contains(&current) {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&current) else {
            break;
        };
        if !meta.file_type().is_symlink() {
            if meta.is_dir() {
                real_dirs.insert(current.clone());
            }
            continue;
        }
        let target = std::fs::canonicalize(&current).map_err(|_| {
            refused(
                spec,
                "symlinked_parent",
                "a parent directory is a dangling symlink",
            )
        })?;
        if !ws.contains(&target) {
            return Err(refused(
                spec,
                "symlinked_parent",
                "a parent directory is a symlink leaving the repository",
            ));
        }
        current = target;
        resolved = true;
    }
    if !resolved {
        return Ok(None);
    }
    let rel = relative(&ws.root, &current.join(name)).ok_or_else(|| {
        refused(
            spec,
            "symlinked_parent",
            "a parent directory is not valid UTF-8",
        )
    })?;
    let canonical_parts: Vec<&str> = rel.split('/').collect();
    check_components(ws, spec, &canonical_parts)?;
    Ok(Some(rel))
}

fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.iter().map(|p| p.to_str()).collect();
    Some(parts?.join("/"))
}

/// Ancestors of a file to create that do not exist yet, outermost first. The nearest existing
/// one must be a directory.
pub fn missing_dirs(path: &TargetPath) -> Result<Vec<PathBuf>> {
    let mut dirs = Vec::new();
    let mut current = path.abs.parent();
    while let Some(dir) = current {
        match std::fs::symlink_metadata(dir) {
            Ok(meta) if meta.is_dir() || std::fs::metadata(dir).is_ok_and(|m| m.is_dir()) => break,
            Ok(_) => {
                return Err(Error::new(
                    Code::FileUnsupported,
                    format!(
                        "{} cannot be created: a parent is not a directory",
                        path.rel
                    ),
                )
                .detail("path", path.rel.as_str())
                .detail("reason", "parent_not_directory"));
            }
            Err(_) => dirs.push(dir.to_path_buf()),
        }
        current = dir.parent();
    }
    dirs.reverse();
    Ok(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> Workspace {
        Workspace {
            root: PathBuf::from("/nonexistent/root"),
            cwd: PathBuf::from("/nonexistent/root/sub"),
            state_dir: PathBuf::from("/nonexistent/root/.git/identedit"),
            repo: None,
        }
    }

    fn check(raw: &str, base: PathBase) -> std::result::Result<String, String> {
        let spec = PathSpec {
            raw: raw.into(),
            base,
        };
        resolve(&ws(), &spec)
            .map(|t| t.rel)
            .map_err(|e| e.details["reason"].to_string())
    }

    #[test]
    fn normalises_and_refuses() {
        assert_eq!(
            check("a/./b//c.txt", PathBase::Root),
            Ok("a/b/c.txt".into())
        );
        assert_eq!(check("c.txt", PathBase::Cwd), Ok("sub/c.txt".into()));
        assert_eq!(
            check("/etc/passwd", PathBase::Root),
            Err("\"absolute\"".into())
        );
        assert_eq!(check("a/../b", PathBase::Root), Ok("b".into()));
        assert_eq!(
            check("/nonexistent/root/sub/../c.txt", PathBase::Cwd),
            Ok("c.txt".into())
        );
        let missing = PathSpec {
            raw: "/nonexistent/rootless/c.txt".into(),
            base: PathBase::Cwd,
        };
        let err = resolve(&ws(), &missing).expect_err("outside the root");
        assert_eq!(err.code, Code::InputNotFound);
        assert_eq!(check("../c.txt", PathBase::Cwd), Ok("c.txt".into()));
        assert_eq!(
            check("../b", PathBase::Root),
            Err("\"outside_root\"".into())
        );
        assert_eq!(
            check("../../c.txt", PathBase::Cwd),
            Err("\"outside_root\"".into())
        );
        assert_eq!(
            check(".git/config", PathBase::Root),
            Err("\"git_dir\"".into())
        );
        assert_eq!(
            check("x/.GIT/config", PathBase::Root),
            Err("\"git_dir\"".into())
        );
        assert_eq!(
            check(".identedit/x", PathBase::Root),
            Err("\"state_dir\"".into())
        );
        assert_eq!(check("", PathBase::Root), Err("\"empty\"".into()));
        assert_eq!(check(".", PathBase::Root), Err("\"directory\"".into()));
        assert_eq!(check("a/b/", PathBase::Root), Err("\"directory\"".into()));
    }
}
