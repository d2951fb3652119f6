//! `--cached`: apply a plan to the index only, leaving the work tree alone (as
//! `git apply --cached`).
//!
//! The one engine still does the work: the index versions of the plan's paths are written to
//! a private scratch tree under the state directory, the plan runs there with every check it
//! always has, and the results go back into the index as blobs (with zeroed stat data, so git
//! re-reads the work-tree file instead of trusting it). The scratch tree is removed on every
//! path out.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use gix::index::entry::{Mode, Stage, Stat};

use super::repo::git_error;
use crate::change::{Action, FileChange};
use crate::error::{Error, Result};
use crate::plan::{OpKind, Plan};
use crate::workspace::Workspace;
use crate::workspace::path;

/// A private copy of the index versions of a plan's files; removed when dropped.
pub struct Scratch {
    pub ws: Workspace,
    dir: PathBuf,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Writes the index version of every path `plan` names into a scratch tree that mirrors the
/// repository's layout, and returns a workspace rooted there.
pub fn materialize(ws: &Workspace, repo: &gix::Repository, plan: &Plan) -> Result<Scratch> {
    let index = repo
        .open_index()
        .map_err(|e| git_error("reading the index", &e))?;
    let dir = ws
        .state_dir
        .join(format!("cached-{}-{}", std::process::id(), nanos()));
    let scratch = Scratch {
        ws: Workspace {
            root: dir.join("tree"),
            cwd: dir.join("tree").join(ws.cwd_prefix().unwrap_or_default()),
            state_dir: dir.join("state"),
            repo: None,
        },
        dir,
    };
    std::fs::create_dir_all(&scratch.ws.cwd)
        .map_err(|e| Error::io("creating the scratch tree", &e))?;
    let specs = plan.ops.iter().flat_map(|op| {
        let to = match &op.kind {
            OpKind::Move { to } => Some(to),
            _ => None,
        };
        std::iter::once(&op.path).chain(to)
    });
    for spec in specs {
        let rel = path::resolve(ws, spec)?.rel;
        let Some(entry) = index.entry_by_path_and_stage(rel.as_str().into(), Stage::Unconflicted)
        else {
            continue;
        };
        let blob = repo
            .find_blob(entry.id)
            .map_err(|e| git_error(&format!("reading the index version of {rel}"), &e))?;
        let target = scratch.ws.root.join(&rel);
        write_file(&target, &blob.data, entry.mode == Mode::FILE_EXECUTABLE)?;
    }
    Ok(scratch)
}

fn write_file(target: &Path, bytes: &[u8], executable: bool) -> Result<()> {
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io("creating the scratch tree", &e))?;
    }
    std::fs::write(target, bytes).map_err(|e| Error::io("writing the scratch tree", &e))?;
    if executable {
        let _ = std::fs::set_permissions(target, std::fs::Permissions::from_mode(0o755));
    }
    Ok(())
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// Writes the engine's results into the index: new blobs for written paths, entries removed
/// for deleted ones. Returns the paths whose index entry changed.
pub fn write_back(repo: &gix::Repository, files: &[FileChange]) -> Result<Vec<String>> {
    let mut index = repo
        .open_index()
        .map_err(|e| git_error("reading the index", &e))?;
    let written: Vec<&FileChange> = files
        .iter()
        .filter(|c| c.action != Action::Unchanged)
        .collect();
    // Zeroed stat data: git re-reads the work-tree file instead of trusting the entry.
    // The engine worked on index versions: its results are already in git's form.
    super::index::put(repo, &mut index, &written, None, |_| Ok(Stat::default()))?;
    index
        .write(gix::index::write::Options::default(), Default::default())
        .map_err(|e| git_error("writing the index", &e))?;
    Ok(written.iter().map(|c| c.path.rel.clone()).collect())
}

/// The index version of `rel`, if the index has one.
pub fn index_bytes(repo: &gix::Repository, rel: &str) -> Result<Option<Vec<u8>>> {
    let index = repo
        .index_or_empty()
        .map_err(|e| git_error("reading the index", &e))?;
    let Some(entry) = index.entry_by_path_and_stage(rel.into(), Stage::Unconflicted) else {
        return Ok(None);
    };
    let blob = repo
        .find_blob(entry.id)
        .map_err(|e| git_error(&format!("reading the index version of {rel}"), &e))?;
    Ok(Some(blob.data.clone()))
}
