//! Staging a published change in the index (`--stage`, as `git apply --index`): each changed
//! path gets the blob of its new bytes and the stat data of the file just written, created
//! paths are added, deleted paths removed. Only the changed paths are touched.

use std::os::unix::fs::PermissionsExt;

use gix::index::entry::{Flags, Mode, Stage, Stat};

use super::repo::git_error;
use crate::change::{Action, FileChange};
use crate::error::{Code, Error, Result};

/// Work-tree bytes as git stores them (`git add`'s clean conversion: `text`/`eol`
/// attributes, `core.autocrlf`, filters), through gix's filter pipeline.
pub struct ToGit<'repo> {
    pipeline: gix::filter::Pipeline<'repo>,
    /// The index attributes are looked up in; `None` when the caller keeps it
    /// ([`ToGit::of`], then [`ToGit::convert_in`]).
    index: Option<gix::worktree::IndexPersistedOrInMemory>,
}

impl<'repo> ToGit<'repo> {
    pub fn new(repo: &'repo gix::Repository) -> Result<Self> {
        let (pipeline, index) = repo
            .filter_pipeline(None)
            .map_err(|e| git_error("loading the attributes", &e))?;
        Ok(Self {
            pipeline,
            index: Some(index),
        })
    }

    /// The attributes of `index`, which the caller keeps and passes to [`ToGit::convert_in`].
    pub fn of(repo: &'repo gix::Repository, index: &gix::index::State) -> Result<Self> {
        use gix::worktree::stack::state::attributes::Source;
        let cache = repo
            .attributes_only(index, Source::WorktreeThenIdMapping)
            .map_err(|e| git_error("loading the attributes", &e))?;
        let pipeline = gix::filter::Pipeline::new(repo, cache.detach())
            .map_err(|e| git_error("loading the attributes", &e))?;
        Ok(Self {
            pipeline,
            index: None,
        })
    }

    /// `bytes` of the work-tree file `rel`, converted for the object database.
    pub fn convert(&mut self, rel: &str, bytes: &[u8]) -> Result<Vec<u8>> {
        match &self.index {
            Some(index) => convert(&mut self.pipeline, rel, bytes, index),
            None => Err(Error::internal("no index to look attributes up in")),
        }
    }

    /// [`ToGit::convert`], looking attributes up in `index`.
    pub fn convert_in(
        &mut self,
        rel: &str,
        bytes: &[u8],
        index: &gix::index::State,
    ) -> Result<Vec<u8>> {
        convert(&mut self.pipeline, rel, bytes, index)
    }
}

fn convert(
    pipeline: &mut gix::filter::Pipeline<'_>,
    rel: &str,
    bytes: &[u8],
    index: &gix::index::State,
) -> Result<Vec<u8>> {
    use gix::filter::plumbing::pipeline::convert::ToGitOutcome;
    use std::io::Read;
    let failed = |e: &dyn std::error::Error| git_error(&format!("converting {rel}"), e);
    let outcome = pipeline
        .convert_to_git(bytes, std::path::Path::new(rel), index)
        .map_err(|e| failed(&e))?;
    Ok(match outcome {
        ToGitOutcome::Unchanged(_) => bytes.to_vec(),
        ToGitOutcome::Buffer(converted) => converted.to_vec(),
        ToGitOutcome::Process(mut reader) => {
            let mut out = Vec::new();
            reader.read_to_end(&mut out).map_err(|e| failed(&e))?;
            out
        }
    })
}

/// `index.lock`, taken before a publish and held until the staged index replaces the index
/// (as `git apply --index` holds it): a concurrent `git add` cannot slip in between the read
/// and the write of the index, and `--stage` refuses before writing anything while another
/// process holds the lock.
pub struct IndexLock(gix::lock::File);

/// Takes `index.lock`, waiting as long as for a file lock (`IDENTEDIT_LOCK_TIMEOUT_MS`).
pub fn lock(repo: &gix::Repository) -> Result<IndexLock> {
    use gix::lock::acquire::Fail;
    let timeout = crate::workspace::lock::timeout();
    gix::lock::File::acquire_to_update_resource(
        repo.index_path(),
        Fail::AfterDurationWithBackoff(timeout),
        None,
        Default::default(),
    )
    .map(IndexLock)
    .map_err(|e| {
        Error::new(
            Code::ResourceBusy,
            format!("--stage refused: the index is locked by another process ({e})"),
        )
        .hint("Retry when the other git command has finished; remove a stale .git/index.lock only if no git process runs.")
    })
}

/// `--stage`: `index.lock` and the index read once under it, to check a plan against before
/// the publish ([`Staging::check`]) and to stage it in after ([`Staging::stage`]).
pub struct Staging {
    lock: IndexLock,
    index: gix::index::File,
}

/// Takes `index.lock` (see [`lock`]) and reads the index.
pub fn begin(repo: &gix::Repository) -> Result<Staging> {
    let lock = lock(repo)?;
    let index = match repo.open_index() {
        Ok(index) => index,
        Err(_) if !repo.index_path().exists() => gix::index::File::from_state(
            gix::index::State::new(repo.object_hash()),
            repo.index_path(),
        ),
        Err(e) => return Err(git_error("reading the index", &e)),
    };
    Ok(Staging { lock, index })
}

impl Staging {
    /// [`check_matches`] on the index read under the lock.
    pub fn check(&self, repo: &gix::Repository, files: &[FileChange]) -> Result<()> {
        let mut to_git = ToGit::of(repo, &self.index)?;
        mismatches(repo, &self.index, &mut to_git, files)
    }

    /// Stages every written file of `files` and puts the new index in place.
    pub fn stage(self, repo: &gix::Repository, files: &[FileChange]) -> Result<()> {
        let Self { lock, mut index } = self;
        let written: Vec<&FileChange> = files
            .iter()
            .filter(|c| c.action != Action::Unchanged)
            .collect();
        let mut to_git = ToGit::of(repo, &index)?;
        put(repo, &mut index, &written, Some(&mut to_git), |change| {
            let meta = gix::index::fs::Metadata::from_path_no_follow(&change.path.abs)
                .map_err(|e| Error::io(&format!("staging {}", change.path.rel), &e))?;
            Ok(Stat::from_fs(&meta).unwrap_or_default())
        })?;
        let mut out = std::io::BufWriter::new(lock.0);
        index
            .write_to(&mut out, gix::index::write::Options::default())
            .map_err(|e| git_error("writing the index", &e))?;
        let lock = out
            .into_inner()
            .map_err(|e| Error::io("writing the index", e.error()))?;
        crate::workspace::failpoint::io("rename", "index")
            .map_err(|e| Error::io("writing the index", &e))?;
        lock.commit()
            .map(drop)
            .map_err(|e| Error::io("putting the new index in place", &e.error))
    }
}

/// Refuses, as `git apply --index` does, a plan whose files do not match the index: a file to
/// change or delete must be in the index with exactly its current bytes (no unstaged work
/// would be staged along), and a file to create must not be in the index.
pub fn check_matches(repo: &gix::Repository, files: &[FileChange]) -> Result<()> {
    let index = repo
        .index_or_empty()
        .map_err(|e| git_error("reading the index", &e))?;
    let mut to_git = ToGit::of(repo, &index)?;
    mismatches(repo, &index, &mut to_git, files)
}

fn mismatches(
    repo: &gix::Repository,
    index: &gix::index::File,
    to_git: &mut ToGit<'_>,
    files: &[FileChange],
) -> Result<()> {
    let mut problems = Vec::new();
    for change in files.iter().filter(|c| c.action != Action::Unchanged) {
        let rel = change.path.rel.as_str();
        let entry = index.entry_by_path_and_stage(rel.into(), Stage::Unconflicted);
        let problem = match (&change.before, entry) {
            (Some(_), None) => Some("is not in the index"),
            (Some(before), Some(entry))
                if super::ledger::blob_id(
                    repo,
                    &to_git.convert_in(rel, &before.bytes.get(), index)?,
                ) != Some(entry.id) =>
            {
                Some("does not match the index (it has unstaged changes)")
            }
            (None, Some(_)) => Some("already exists in the index"),
            _ => None,
        };
        if let Some(problem) = problem {
            problems.push(serde_json::json!({"path": rel, "problem": problem}));
        }
    }
    let Some(first) = problems.first() else {
        return Ok(());
    };
    Err(Error::new(
        Code::IndexMismatch,
        format!(
            "--stage refused: {} {}",
            first["path"].as_str().unwrap_or_default(),
            first["problem"].as_str().unwrap_or_default()
        ),
    )
    .hint("Stage or stash those changes first, or run without --stage.")
    .detail("files", problems))
}

/// Puts `written` into `index`: entries of deleted paths removed, the others given the blob
/// of their new bytes, their mode and `stat(change)`.
pub(crate) fn put(
    repo: &gix::Repository,
    index: &mut gix::index::File,
    written: &[&FileChange],
    mut to_git: Option<&mut ToGit<'_>>,
    stat: impl Fn(&FileChange) -> Result<Stat>,
) -> Result<()> {
    let deleted: std::collections::HashSet<&str> = written
        .iter()
        .filter(|c| c.action == Action::Deleted)
        .map(|c| c.path.rel.as_str())
        .collect();
    index.remove_entries(|_, path, _| deleted.contains(path.to_string().as_str()));
    // Blobs first (attributes are looked up in the index as read), then the entries.
    let mut ids = Vec::with_capacity(written.len());
    for change in written.iter().filter(|c| c.action != Action::Deleted) {
        let Some(after) = change.after_bytes() else {
            continue;
        };
        let id = match to_git.as_deref_mut() {
            Some(to_git) => super::ledger::write_blob(
                repo,
                &to_git.convert_in(&change.path.rel, &after, index)?,
            )?,
            None => super::ledger::write_blob(repo, &after)?,
        };
        ids.push((*change, id));
    }
    for (change, id) in ids {
        let stat = stat(change)?;
        let executable = change
            .new_permissions
            .as_ref()
            .or(change.before.as_ref().map(|b| &b.permissions))
            .is_some_and(|p| p.mode() & 0o111 != 0);
        let mode = if executable {
            Mode::FILE_EXECUTABLE
        } else {
            Mode::FILE
        };
        let rel: &gix::bstr::BStr = change.path.rel.as_str().into();
        match index.entry_mut_by_path_and_stage(rel, Stage::Unconflicted) {
            Some(entry) => {
                entry.id = id;
                entry.stat = stat;
                entry.mode = mode;
            }
            None => {
                index.dangerously_push_entry(stat, id, Flags::empty(), mode, rel);
                index.sort_entries();
            }
        }
    }
    Ok(())
}
