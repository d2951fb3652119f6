//! `hook install` and `hook uninstall`: identedit's hook scripts placed in the directory git
//! runs hooks from, chaining (never replacing) whatever hook was there, with a manifest of
//! exactly what was done so that uninstall reverses exactly that.
//!
//! The hooks directory is `core.hooksPath` (a relative value is relative to the work tree
//! root, as git resolves it for hooks), else `<common git dir>/hooks`, shared by every linked
//! worktree. An existing hook `NAME` is renamed to `NAME.identedit-chained` (bytes and mode
//! kept by the rename) and identedit's script runs it first. The manifest is
//! `<common git dir>/identedit/hooks.json` (see [`Manifest`]).

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Code, Error, Result};
use crate::plan::Digest;
use crate::workspace::replace::{digest_of, replace};

/// The hooks identedit installs.
pub const HOOKS: &[&str] = &["pre-commit", "post-commit"];
/// Suffix of a chained (pre-existing) hook.
pub const CHAINED_SUFFIX: &str = ".identedit-chained";
const MANIFEST_VERSION: u32 = 1;

/// `hooks.json`: what `hook install` did.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    pub hooks_dir: PathBuf,
    /// Whether install created `hooks_dir` (uninstall then removes it when empty).
    pub created_dir: bool,
    pub hooks: Vec<Installed>,
}

/// One installed hook script.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Installed {
    pub name: String,
    pub path: PathBuf,
    /// sha256 of the script as written: uninstall refuses to remove a script edited since.
    pub sha256: String,
    /// The hook that was there before, moved aside and run first.
    pub chained: Option<Chained>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Chained {
    pub path: PathBuf,
    pub sha256: String,
    /// Unix permission bits at install time.
    pub mode: u32,
}

/// What happened to one hook.
#[derive(Clone, Debug, Serialize)]
pub struct Action {
    pub hook: String,
    pub path: PathBuf,
    /// install: `installed`, `chained`, `updated`, `unchanged`;
    /// uninstall: `removed`, `restored`, `missing`.
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chained: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// The directory git runs hooks from, and where the manifest lives.
pub struct Location {
    pub hooks_dir: PathBuf,
    pub manifest: PathBuf,
}

/// Resolves `core.hooksPath` (relative to the work tree root) or the common dir's `hooks/`.
pub fn locate(repo: &gix::Repository) -> Result<Location> {
    let configured = repo
        .config_snapshot()
        .trusted_path("core.hooksPath")
        .map_err(|e| super::git_error("core.hooksPath", e))?;
    let base = repo.workdir().unwrap_or_else(|| repo.git_dir());
    let hooks_dir = match configured {
        Some(p) if p.is_absolute() => p,
        Some(p) => base.join(p),
        None => repo.common_dir().join("hooks"),
    };
    let manifest = repo.common_dir().join("identedit").join("hooks.json");
    Ok(Location {
        hooks_dir: absolute(&hooks_dir),
        manifest: absolute(&manifest),
    })
}

fn absolute(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The script installed as hook `name`. It runs the chained hook first, then this binary
/// (`exe`), falling back to `git-identedit` on PATH when `exe` is gone.
pub fn script(name: &str, exe: &Path) -> String {
    let run_chained = if name == "pre-commit" {
        // A failing chained pre-commit blocks the commit with its own status.
        "\"$chained\" \"$@\" || exit $?"
    } else {
        "\"$chained\" \"$@\" || status=$?"
    };
    let tail = if name == "pre-commit" {
        format!("exec \"$identedit\" hook {name} \"$@\"")
    } else {
        format!("\"$identedit\" hook {name} \"$@\" || status=$?\nexit $status")
    };
    let status = if name == "pre-commit" {
        ""
    } else {
        "status=0\n"
    };
    // A chained hook that is one of our own scripts would run itself forever: skipped.
    format!(
        "#!/bin/sh\n\
         {mark}\n\
         # `git identedit hook uninstall` removes it and puts back the hook it chains, if any.\n\
         {status}\
         chained=\"$(dirname \"$0\")/{name}{CHAINED_SUFFIX}\"\n\
         if [ -x \"$chained\" ] && ! grep -q '^{SCRIPT_MARK}' \"$chained\"; then\n    {run_chained}\nfi\n\
         identedit={exe}\n\
         if [ ! -x \"$identedit\" ]; then\n\
         \x20   identedit=\"$(command -v git-identedit)\" || {{\n\
         \x20       echo \"identedit {name} hook: git-identedit is not installed; install it or run 'git identedit hook uninstall'\" >&2\n\
         \x20       exit 1\n\
         \x20   }}\n\
         fi\n\
         {tail}\n",
        exe = sh_quote(&exe.to_string_lossy()),
        mark = mark(name),
    )
}

/// The line every script of ours starts its comment with (whatever binary path it names).
const SCRIPT_MARK: &str = "# git-identedit [a-z-]* hook, written by";

fn mark(name: &str) -> String {
    format!("# git-identedit {name} hook, written by `git identedit hook install`.")
}

/// Whether `bytes` is one of identedit's hook scripts (any version, any binary path): such a
/// hook is replaced, never chained.
pub fn is_ours(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(512)]);
    text.lines().take(3).any(|l| {
        l.strip_prefix("# git-identedit ")
            .and_then(|rest| rest.split_once(" hook, written by"))
            .is_some_and(|(name, _)| HOOKS.contains(&name))
    })
}

fn conflict(message: String, path: &Path) -> Error {
    Error::new(Code::HookConflict, message).detail("path", path.to_string_lossy().into_owned())
}

fn io(what: &Path, e: std::io::Error) -> Error {
    Error::io(&what.to_string_lossy(), &e)
}

pub fn read_manifest(path: &Path) -> Result<Option<Manifest>> {
    match fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            conflict(
                format!("{} is not a hook manifest: {e}", path.display()),
                path,
            )
            .hint("Remove it and run `git identedit hook install` again.")
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path, e)),
    }
}

/// Writes `bytes` to `path` whole or not at all, with `mode` (a temp file left by an
/// interrupted install is replaced).
fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    let tmp = path.with_extension("identedit-tmp");
    let _ = fs::remove_file(&tmp);
    replace(path, &tmp, mode, "hook", |f| f.write_all(bytes)).map_err(|e| io(path, e))
}

fn exists(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// What install will do to one hook, decided before anything is written.
enum Step {
    Write { chain: bool, action: &'static str },
    Keep,
}

fn plan_one(name: &str, path: &Path, script: &str, known: Option<&Installed>) -> Result<Step> {
    let chained = chained_path(path);
    if !exists(path) {
        if exists(&chained) && known.and_then(|k| k.chained.as_ref()).is_none() {
            return Err(conflict(
                format!(
                    "{} exists but {name} does not; move it away first",
                    chained.display()
                ),
                &chained,
            ));
        }
        return Ok(Step::Write {
            chain: false,
            action: "installed",
        });
    }
    // A dangling symlink reads as empty: it is someone else's hook all the same.
    let current = fs::read(path).unwrap_or_default();
    if current == script.as_bytes() {
        return Ok(Step::Keep);
    }
    let ours =
        known.is_some_and(|k| k.sha256 == Digest::of(&current).to_hex()) || is_ours(&current);
    if ours {
        return Ok(Step::Write {
            chain: false,
            action: "updated",
        });
    }
    if exists(&chained) {
        return Err(conflict(
            format!(
                "{} is not identedit's and {} is taken; cannot chain a second hook",
                path.display(),
                chained.display()
            ),
            path,
        )
        .hint("Merge the two hooks by hand, or uninstall first."));
    }
    Ok(Step::Write {
        chain: true,
        action: "chained",
    })
}

pub fn chained_path(hook: &Path) -> PathBuf {
    let mut name = hook.as_os_str().to_owned();
    name.push(CHAINED_SUFFIX);
    PathBuf::from(name)
}

/// Installs both hooks; idempotent. Refuses (changing nothing) on any conflict.
pub fn install(loc: &Location, exe: &Path) -> Result<Vec<Action>> {
    let old = read_manifest(&loc.manifest)?;
    if let Some(m) = old.as_ref().filter(|m| m.hooks_dir != loc.hooks_dir) {
        return Err(conflict(
            format!(
                "identedit's hooks are installed in {}, not in {} (core.hooksPath changed?)",
                m.hooks_dir.display(),
                loc.hooks_dir.display()
            ),
            &m.hooks_dir,
        )
        .hint("Run `git identedit hook uninstall` first (it removes them from where they are), then install again."));
    }
    let known = |name: &str| {
        old.as_ref()
            .and_then(|m| m.hooks.iter().find(|h| h.name == name))
    };
    let mut steps = Vec::new();
    for name in HOOKS {
        let path = loc.hooks_dir.join(name);
        let text = script(name, exe);
        steps.push((
            name,
            path.clone(),
            plan_one(name, &path, &text, known(name))?,
            text,
        ));
    }
    let created_dir = old.as_ref().is_some_and(|m| m.created_dir) || !loc.hooks_dir.is_dir();
    fs::create_dir_all(&loc.hooks_dir).map_err(|e| io(&loc.hooks_dir, e))?;
    let mut manifest = Manifest {
        version: MANIFEST_VERSION,
        hooks_dir: loc.hooks_dir.clone(),
        created_dir,
        hooks: Vec::new(),
    };
    let mut actions = Vec::new();
    let mut steps = steps.into_iter();
    while let Some((name, path, step, text)) = steps.next() {
        match apply(name, path, step, &text, known(name)) {
            Ok((action, installed)) => {
                actions.push(action);
                manifest.hooks.push(installed);
            }
            Err(e) => {
                // Record what is in place (done, and untouched but installed before), so
                // uninstall can still reverse it.
                manifest
                    .hooks
                    .extend(steps.filter_map(|(n, ..)| known(n).cloned()));
                if let Some(k) = known(name) {
                    manifest.hooks.push(k.clone());
                }
                let _ = save_manifest(&loc.manifest, &manifest);
                return Err(e);
            }
        }
    }
    save_manifest(&loc.manifest, &manifest)?;
    Ok(actions)
}

/// Carries out one planned step: moves a foreign hook aside and writes the script.
fn apply(
    name: &str,
    path: PathBuf,
    step: Step,
    text: &str,
    known: Option<&Installed>,
) -> Result<(Action, Installed)> {
    let mut chained = match known {
        Some(k) => k.chained.clone(),
        None => adopt(&path),
    };
    let action = match step {
        Step::Keep => "unchanged",
        Step::Write { chain, action } => {
            if chain {
                chained = Some(move_aside(&path)?);
            }
            if let Err(e) = write_atomic(&path, text.as_bytes(), 0o755) {
                if let Some(c) = chained.as_ref().filter(|_| chain) {
                    let _ = fs::rename(&c.path, &path);
                }
                return Err(e);
            }
            action
        }
    };
    let action = Action {
        hook: name.to_owned(),
        path: path.clone(),
        action,
        chained: chained.as_ref().map(|c| c.path.clone()),
        warning: None,
    };
    let installed = Installed {
        name: name.to_owned(),
        path,
        sha256: Digest::of(text.as_bytes()).to_hex(),
        chained,
    };
    Ok((action, installed))
}

/// A chained hook found beside an identical script with no manifest entry (a lost manifest):
/// recorded as it is now, so uninstall still puts it back.
fn adopt(hook: &Path) -> Option<Chained> {
    let path = chained_path(hook);
    let meta = fs::symlink_metadata(&path).ok()?;
    Some(Chained {
        sha256: digest_of(&path).unwrap_or_default(),
        mode: meta.permissions().mode() & 0o7777,
        path,
    })
}

fn move_aside(path: &Path) -> Result<Chained> {
    let meta = fs::symlink_metadata(path).map_err(|e| io(path, e))?;
    let sha256 = digest_of(path).unwrap_or_default();
    let target = chained_path(path);
    fs::rename(path, &target).map_err(|e| io(path, e))?;
    Ok(Chained {
        path: target,
        sha256,
        mode: meta.permissions().mode() & 0o7777,
    })
}

fn save_manifest(path: &Path, manifest: &Manifest) -> Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    let mut bytes =
        serde_json::to_vec_pretty(manifest).map_err(|e| Error::internal(e.to_string()))?;
    bytes.push(b'\n');
    write_atomic(path, &bytes, 0o644)
}

/// Reverses what the manifest records. Refuses (changing nothing) when an installed script
/// was edited since; a missing script or chained hook is reported, not fatal.
pub fn uninstall(loc: &Location) -> Result<Vec<Action>> {
    let Some(manifest) = read_manifest(&loc.manifest)? else {
        return Ok(Vec::new());
    };
    for hook in &manifest.hooks {
        match digest_of(&hook.path) {
            Some(sha) if sha != hook.sha256 => {
                return Err(conflict(
                    format!(
                        "{} was changed since `hook install`; not removing it",
                        hook.path.display()
                    ),
                    &hook.path,
                )
                .hint(match &hook.chained {
                    Some(c) => format!(
                        "Edit it by hand; the original hook is {}.",
                        c.path.display()
                    ),
                    None => "Remove it by hand if it is no longer wanted.".to_owned(),
                }));
            }
            _ => {}
        }
    }
    let mut actions = Vec::new();
    for hook in &manifest.hooks {
        actions.push(uninstall_one(hook)?);
    }
    fs::remove_file(&loc.manifest).map_err(|e| io(&loc.manifest, e))?;
    if manifest.created_dir {
        let _ = fs::remove_dir(&manifest.hooks_dir);
    }
    Ok(actions)
}

fn uninstall_one(hook: &Installed) -> Result<Action> {
    let present = exists(&hook.path);
    if present {
        fs::remove_file(&hook.path).map_err(|e| io(&hook.path, e))?;
    }
    let mut action = Action {
        hook: hook.name.clone(),
        path: hook.path.clone(),
        action: if present { "removed" } else { "missing" },
        chained: None,
        warning: None,
    };
    if let Some(chained) = &hook.chained {
        if exists(&chained.path) {
            if digest_of(&chained.path).is_some_and(|d| d != chained.sha256) {
                action.warning = Some(format!(
                    "{} changed since install; restored as it is now",
                    chained.path.display()
                ));
            }
            fs::rename(&chained.path, &hook.path).map_err(|e| io(&chained.path, e))?;
            action.action = "restored";
            action.chained = Some(chained.path.clone());
        } else {
            action.warning = Some(format!(
                "the chained hook {} is gone; nothing to restore",
                chained.path.display()
            ));
        }
    }
    Ok(action)
}

#[cfg(test)]
mod tests;
