//! Writing receipts into git: blobs, one tree, one commit on no branch, and the refs that
//! find it again. `refs/identedit/log` moves by compare-and-swap, so two writers racing for it
//! both end up in the log (the loser re-parents its commit and tries again); every ref update
//! leaves a reflog entry.

use gix::ObjectId;
use gix::object::tree::EntryKind;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::{FullName, Target};

use super::repo::git_error;
use crate::error::Result;

/// How many times a writer re-parents its receipt when the log moved under it.
const CAS_ATTEMPTS: usize = 64;

/// The blobs of one receipt tree, by path inside the tree.
#[derive(Default)]
pub struct TreeFiles {
    pub entries: Vec<(String, ObjectId)>,
}

impl TreeFiles {
    /// Stores `bytes` (hashed once; an object already in the database is not written again)
    /// and files the blob under `path`.
    pub fn add(&mut self, repo: &gix::Repository, path: String, bytes: &[u8]) -> Result<ObjectId> {
        let id = write_blob(repo, bytes)?;
        self.entries.push((path, id));
        Ok(id)
    }
}

/// Stores `bytes` as a blob.
pub fn write_blob(repo: &gix::Repository, bytes: &[u8]) -> Result<ObjectId> {
    crate::workspace::failpoint::io("write", "ledger")
        .map_err(|e| crate::error::Error::io("writing a blob", &e))?;
    repo.write_blob(bytes)
        .map(gix::Id::detach)
        .map_err(|e| git_error("writing a blob", &e))
}

/// From this many new objects on, a receipt's objects are written as one pack
/// (`git::pack`); fewer stay loose, so that a session of small edits does not leave a pack
/// per edit for every object lookup to search.
const PACK_FROM: usize = 32;

/// Runs `build` with the repository's object writes held in memory, then stores what it
/// wrote: as one pack when there are many objects, else loose. The repository writes
/// through to disk again afterwards, whatever `build` returned.
pub fn batched<T>(
    repo: &mut gix::Repository,
    build: impl FnOnce(&gix::Repository) -> Result<T>,
) -> Result<T> {
    repo.objects.enable_object_memory();
    let built = build(repo);
    let written = repo.objects.take_object_memory();
    let value = built?;
    // Moved out of the storage, not copied: a receipt may hold a large file's bytes.
    let mut objects: Vec<crate::git::pack::Object> = written
        .map(|mut memory| std::mem::take(&mut *memory))
        .unwrap_or_default()
        .into_iter()
        .map(|(id, (kind, data))| (id, kind, data))
        .collect();
    if objects.len() < PACK_FROM {
        let mut loose = crate::git::loose::Loose::new(repo);
        for (id, kind, data) in &objects {
            loose
                .write(id, *kind, data)
                .map_err(|e| crate::error::Error::io("writing an object", &e))?;
        }
        return Ok(value);
    }
    objects.sort_by_key(|o| o.0);
    crate::git::pack::write(
        &repo.objects.store_ref().path().join("pack"),
        repo.object_hash(),
        objects,
        compression(repo),
    )
    .map_err(|e| crate::error::Error::io("writing the receipt's pack", &e))?;
    Ok(value)
}

/// The zlib level of a receipt's pack: `pack.compression`, else `core.compression`, else 1.
fn compression(repo: &gix::Repository) -> i32 {
    crate::git::loose::configured_level(repo, "pack.compression")
}

/// A blob id computed on another thread.
pub struct Hashing(std::thread::JoinHandle<Option<ObjectId>>);

impl Hashing {
    /// Below this many bytes hashing on the spot costs less than a thread.
    pub const WORTH: usize = 1 << 20;

    /// Starts computing the blob id of `bytes`.
    pub fn start(repo: &gix::Repository, bytes: &std::sync::Arc<Vec<u8>>) -> Self {
        let (kind, bytes) = (repo.object_hash(), std::sync::Arc::clone(bytes));
        Self(std::thread::spawn(move || {
            gix::objs::compute_hash(kind, gix::object::Kind::Blob, &bytes).ok()
        }))
    }

    /// The id, once computed (`None` if hashing failed).
    pub fn id(self) -> Option<ObjectId> {
        self.0.join().ok().flatten()
    }
}

/// A blob written on another thread. Dropping it waits for the thread, so no write outlives
/// the receipt that started it.
pub struct Writing(Option<std::thread::JoinHandle<Result<ObjectId>>>);

impl Writing {
    /// Starts storing `bytes` as a blob.
    pub fn start(repo: &gix::Repository, bytes: &std::sync::Arc<Vec<u8>>) -> Self {
        let (repo, bytes) = (repo.clone(), std::sync::Arc::clone(bytes));
        Self(Some(std::thread::spawn(move || write_blob(&repo, &bytes))))
    }

    /// The blob's id, once written.
    pub fn id(mut self) -> Result<ObjectId> {
        let failed = || crate::error::Error::internal("writing a blob on another thread failed");
        let thread = self.0.take().ok_or_else(failed)?;
        thread.join().unwrap_or_else(|_| Err(failed()))
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        if let Some(thread) = self.0.take() {
            drop(thread.join());
        }
    }
}

/// The blob id `bytes` would have, without writing anything.
pub fn blob_id(repo: &gix::Repository, bytes: &[u8]) -> Option<ObjectId> {
    gix::objs::compute_hash(repo.object_hash(), gix::object::Kind::Blob, bytes).ok()
}

/// Writes the tree of `files` (intermediate trees created).
pub fn write_tree(repo: &gix::Repository, files: &TreeFiles) -> Result<ObjectId> {
    let empty = ObjectId::empty_tree(repo.object_hash());
    let mut editor = repo
        .edit_tree(empty)
        .map_err(|e| git_error("building the receipt tree", &e))?;
    for (path, id) in &files.entries {
        let id = *id;
        editor
            .upsert(path.as_str(), EntryKind::Blob, id)
            .map_err(|e| git_error("building the receipt tree", &e))?;
    }
    editor
        .write()
        .map(gix::Id::detach)
        .map_err(|e| git_error("writing the receipt tree", &e))
}

/// The identity receipts and reflog entries are written as: `GIT_COMMITTER_NAME` /
/// `GIT_COMMITTER_EMAIL`, else `user.name` / `user.email`, else `git identedit
/// <identedit@localhost>`; the time is UTC (no time-zone database is read on the write path).
pub fn signature(repo: &gix::Repository) -> gix::actor::Signature {
    let config = repo.config_snapshot();
    let pick = |env: &str, key: &str, fallback: &str| {
        std::env::var(env)
            .ok()
            .filter(|v| !v.is_empty())
            .or_else(|| config.string(key).map(|v| v.to_string()))
            .unwrap_or_else(|| fallback.to_owned())
    };
    gix::actor::Signature {
        name: pick("GIT_COMMITTER_NAME", "user.name", "git identedit").into(),
        email: pick("GIT_COMMITTER_EMAIL", "user.email", "identedit@localhost").into(),
        time: gix::date::Time::now_utc(),
    }
}

/// The commit a ref points at, if the ref exists.
pub fn ref_target(repo: &gix::Repository, name: &str) -> Result<Option<ObjectId>> {
    let found = repo
        .try_find_reference(name)
        .map_err(|e| git_error(&format!("reading {name}"), &e))?;
    Ok(found.and_then(|r| r.target().try_id().map(ToOwned::to_owned)))
}

/// Commits `tree` on top of the tip of `log_ref` and moves `log_ref` to it by compare-and-swap,
/// re-parenting on conflict; `label_ref` is pointed at the same commit in the same ref
/// transaction (both names are checked before anything is written). Returns the new commit.
pub fn append(
    repo: &mut gix::Repository,
    log_ref: &str,
    label_ref: &str,
    tree: ObjectId,
    message: &str,
) -> Result<ObjectId> {
    let full = |name: &str| {
        FullName::try_from(name).map_err(|e| git_error(&format!("the ref name {name}"), &e))
    };
    let (log_name, label_name) = (full(log_ref)?, full(label_ref)?);
    let sig = signature(repo);
    // Writers of this repository (every worktree shares the log) take turns, so the
    // compare-and-swap below normally succeeds at once and no orphaned receipt commit is left;
    // the CAS still guards against writers that do not take the lock.
    let locks = repo.common_dir().join("identedit").join("locks");
    let _turn =
        crate::workspace::lock::acquire_ledger(&locks, log_ref, crate::workspace::lock::timeout)?;
    let mut last_error = None;
    for _ in 0..CAS_ATTEMPTS {
        let tip = ref_target(repo, log_ref)?;
        let commit = gix::objs::Commit {
            tree,
            parents: tip.into_iter().collect(),
            author: sig.clone(),
            committer: sig.clone(),
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        let id = write_commit(repo, &commit)?;
        let expected = match tip {
            Some(old) => PreviousValue::MustExistAndMatch(Target::Object(old)),
            None => PreviousValue::MustNotExist,
        };
        let edits = [
            (log_name.clone(), expected),
            (label_name.clone(), PreviousValue::Any),
        ];
        match set_refs(repo, &edits, id, message) {
            Ok(()) => return Ok(id),
            Err(e) => last_error = Some(e),
        }
    }
    Err(last_error.unwrap_or_else(|| crate::error::Error::internal("the receipt log kept moving")))
}

/// Stores `commit` loose (see `git::loose`).
fn write_commit(repo: &gix::Repository, commit: &gix::objs::Commit) -> Result<ObjectId> {
    use gix::objs::WriteTo as _;
    let mut bytes = Vec::new();
    commit
        .write_to(&mut bytes)
        .map_err(|e| crate::error::Error::io("encoding the receipt commit", &e))?;
    let id = gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Commit, &bytes)
        .map_err(|e| git_error("hashing the receipt commit", &e))?;
    crate::git::loose::Loose::new(repo)
        .write(&id, gix::objs::Kind::Commit, &bytes)
        .map_err(|e| crate::error::Error::io("writing the receipt commit", &e))?;
    Ok(id)
}

/// Points every named ref at `id` (each with a reflog entry, each only if its current value is
/// as expected) in one ref transaction: all move or none does.
fn set_refs(
    repo: &gix::Repository,
    refs: &[(FullName, PreviousValue)],
    id: ObjectId,
    message: &str,
) -> Result<()> {
    let subject = message.lines().next().unwrap_or("identedit");
    let mut edits = Vec::with_capacity(refs.len());
    for (name, expected) in refs {
        edits.push(RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: true,
                    message: format!("identedit: {subject}").into(),
                },
                expected: expected.clone(),
                new: Target::Object(id),
            },
            name: name.clone(),
            deref: false,
        });
    }
    crate::workspace::failpoint::io("rename", "ledger")
        .map_err(|e| crate::error::Error::io("updating the receipt refs", &e))?;
    let sig = signature(repo);
    let mut time = gix::date::parse::TimeBuf::default();
    let names: Vec<String> = refs.iter().map(|(n, _)| n.as_bstr().to_string()).collect();
    repo.edit_references_as(edits, Some(sig.to_ref(&mut time)))
        .map(drop)
        .map_err(|e| git_error(&format!("updating {}", names.join(" and ")), &e))
}
