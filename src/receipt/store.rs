//! Reading receipts back: resolving a label or commit id, loading `receipt.json` and the
//! stored images, and walking the operation log.

use gix::ObjectId;

use super::{LABEL_REF_PREFIX, LOG_REF, Receipt, ref_safe_label};
use crate::error::{Code, Error, Result};
use crate::git::ledger::ref_target;
use crate::git::repo::git_error;

/// A receipt and the commit that holds it.
#[derive(Clone, Debug)]
pub struct Stored {
    pub commit: ObjectId,
    pub receipt: Receipt,
    /// The commit's first parent: the previous receipt in the log.
    pub parent: Option<ObjectId>,
}

/// Finds the receipt `name` names: a label, a full or abbreviated receipt commit id, or, when
/// absent, the newest receipt of the log.
pub fn resolve(repo: &gix::Repository, name: Option<&str>) -> Result<Stored> {
    let commit = match name {
        None => ref_target(repo, LOG_REF)?.ok_or_else(|| {
            Error::new(Code::ReceiptNotFound, "no receipt has been recorded yet")
                .hint("Receipts are written by apply, edit and patch inside a git repository.")
        })?,
        Some(name) => by_name(repo, name)?,
    };
    load(repo, commit)
}

fn by_name(repo: &gix::Repository, name: &str) -> Result<ObjectId> {
    let label_ref = format!("{LABEL_REF_PREFIX}{}", ref_safe_label(name));
    if let Some(id) = ref_target(repo, &label_ref)? {
        return Ok(id);
    }
    if let Some(id) = fetched_label(repo, name)? {
        return Ok(id);
    }
    let is_hex = name.len() >= 4 && name.bytes().all(|b| b.is_ascii_hexdigit());
    if is_hex
        && let Ok(id) = repo.rev_parse_single(name)
        && load(repo, id.detach()).is_ok()
    {
        return Ok(id.detach());
    }
    Err(Error::new(
        Code::ReceiptNotFound,
        format!("no receipt is labelled or identified by `{name}`"),
    )
    .hint("`git identedit log` lists the receipts with their labels and ids.")
    .detail("name", name))
}

/// A label fetched from another clone (`refs/identedit/remotes/<remote>/clones/<id>/receipts/`),
/// by the refs' names in order.
fn fetched_label(repo: &gix::Repository, name: &str) -> Result<Option<ObjectId>> {
    let suffix = format!("/receipts/{}", ref_safe_label(name));
    let refs = repo
        .references()
        .map_err(|e| git_error("reading refs", &e))?;
    let found = refs
        .prefixed(FETCHED_PREFIX)
        .map_err(|e| git_error("reading refs", &e))?
        .filter_map(std::result::Result::ok)
        .find(|r| r.name().as_bstr().ends_with(suffix.as_bytes()))
        .and_then(|r| r.target().try_id().map(ToOwned::to_owned));
    Ok(found)
}

/// Where `git identedit fetch` keeps other clones' receipt refs.
const FETCHED_PREFIX: &str = "refs/identedit/remotes/";

/// Loads the receipt held by `commit`.
pub fn load(repo: &gix::Repository, commit: ObjectId) -> Result<Stored> {
    let not_a_receipt = || {
        Error::new(
            Code::ReceiptNotFound,
            format!("{commit} is not an identedit receipt"),
        )
    };
    let object = repo.find_commit(commit).map_err(|_| not_a_receipt())?;
    let parent = object.parent_ids().next().map(gix::Id::detach);
    let tree = object
        .tree()
        .map_err(|e| git_error("reading a receipt", &e))?;
    let bytes = blob_at(repo, &tree, "receipt.json")?.ok_or_else(not_a_receipt)?;
    let receipt: Receipt = serde_json::from_slice(&bytes).map_err(|e| {
        Error::new(
            Code::ReceiptNotFound,
            format!("{commit}: receipt.json does not parse: {e}"),
        )
    })?;
    Ok(Stored {
        commit,
        receipt,
        parent,
    })
}

/// The bytes of the blob at `path` in `tree`, if there is one.
pub fn blob_at(
    repo: &gix::Repository,
    tree: &gix::Tree<'_>,
    path: &str,
) -> Result<Option<Vec<u8>>> {
    let entry = tree
        .lookup_entry_by_path(path)
        .map_err(|e| git_error("reading a receipt tree", &e))?;
    let Some(entry) = entry else { return Ok(None) };
    let blob = repo
        .find_blob(entry.object_id())
        .map_err(|e| git_error("reading a receipt blob", &e))?;
    Ok(Some(blob.data.clone()))
}

/// The bytes stored under `path` in the receipt `commit` (`input`; images through
/// [`before_image`] and [`after_image`]).
pub fn stored_file(
    repo: &gix::Repository,
    commit: ObjectId,
    path: &str,
) -> Result<Option<Vec<u8>>> {
    blob_at(repo, &receipt_tree(repo, commit)?, path)
}

/// The post-image `file` of the receipt `commit` published: its `after/<path>` blob, or
/// (receipts since the splice format) its pre-image with `splices/<path>` applied, checked
/// against the recorded sha256. `None` for a deleted file.
pub fn after_image(
    repo: &gix::Repository,
    commit: ObjectId,
    file: &super::FileRecord,
) -> Result<Option<Vec<u8>>> {
    checked_after(repo, commit, file, 0)
}

fn checked_after(
    repo: &gix::Repository,
    commit: ObjectId,
    file: &super::FileRecord,
    depth: usize,
) -> Result<Option<Vec<u8>>> {
    match after_at(repo, commit, file, depth)? {
        Image::Absent => Ok(None),
        Image::Whole(bytes) => Ok(Some(bytes)),
        Image::Rebuilt(after) if digest_is(&after, file.sha256_after.as_deref()) => Ok(Some(after)),
        Image::Rebuilt(_) | Image::Broken => Err(unreadable(commit, "post-image", &file.path)),
    }
}

fn digest_is(bytes: &[u8], hex: Option<&str>) -> bool {
    hex == Some(crate::plan::Digest::of(bytes).to_hex().as_str())
}

fn unreadable(commit: ObjectId, what: &str, path: &str) -> Error {
    Error::new(
        Code::ReceiptNotFound,
        format!("receipt {commit}: the {what} of {path} does not rebuild"),
    )
}

/// The pre-image of `path` the receipt `commit` holds: its `before/<path>` blob, or the
/// post-image of the earlier receipt its `prior/<path>` names (`git::prior`), rebuilt and
/// checked. `None` when it holds neither (a created file).
pub fn before_image(
    repo: &gix::Repository,
    commit: ObjectId,
    path: &str,
) -> Result<Option<Vec<u8>>> {
    before_at(repo, commit, path, 0)
}

fn before_at(
    repo: &gix::Repository,
    commit: ObjectId,
    path: &str,
    depth: usize,
) -> Result<Option<Vec<u8>>> {
    let tree = receipt_tree(repo, commit)?;
    if let Some(whole) = blob_at(repo, &tree, &format!("before/{path}"))? {
        return Ok(Some(whole));
    }
    let Some(reference) = blob_at(repo, &tree, &format!("prior/{path}"))? else {
        return Ok(None);
    };
    let broken = || unreadable(commit, "pre-image", path);
    let (prior, _) = crate::git::prior::decode(&reference).ok_or_else(broken)?;
    if depth >= 2 * crate::git::prior::MAX_DEPTH {
        return Err(broken());
    }
    let earlier = load(repo, prior)?;
    let record = earlier
        .receipt
        .files
        .iter()
        .find(|f| f.path == path && f.moved_from.is_none() && f.sha256_after.is_some())
        .ok_or_else(broken)?;
    checked_after(repo, prior, record, depth + 1)?
        .map(Some)
        .ok_or_else(broken)
}

fn receipt_tree(repo: &gix::Repository, commit: ObjectId) -> Result<gix::Tree<'_>> {
    repo.find_commit(commit)
        .and_then(|c| c.tree())
        .map_err(|e| git_error("reading a receipt", &e))
}

/// A post-image as a receipt stores it.
pub enum Image {
    /// Neither `after/<path>` nor `splices/<path>` (a deleted file).
    Absent,
    /// `after/<path>`.
    Whole(Vec<u8>),
    /// `splices/<path>` applied to the pre-image, not yet checked against `sha256_after`.
    Rebuilt(Vec<u8>),
    /// `splices/<path>` that do not read or do not fit the pre-image (or no pre-image).
    Broken,
}

impl Image {
    /// The bytes, whole or rebuilt (unchecked).
    pub fn bytes(self) -> Option<Vec<u8>> {
        match self {
            Self::Whole(bytes) | Self::Rebuilt(bytes) => Some(bytes),
            Self::Absent | Self::Broken => None,
        }
    }
}

/// The post-image of `file` as the receipt `commit` stores it, unchecked.
pub fn stored_after(
    repo: &gix::Repository,
    commit: ObjectId,
    file: &super::FileRecord,
) -> Result<Image> {
    after_at(repo, commit, file, 0)
}

fn after_at(
    repo: &gix::Repository,
    commit: ObjectId,
    file: &super::FileRecord,
    depth: usize,
) -> Result<Image> {
    let tree = receipt_tree(repo, commit)?;
    if let Some(whole) = blob_at(repo, &tree, &format!("after/{}", file.path))? {
        return Ok(Image::Whole(whole));
    }
    let Some(encoded) = blob_at(repo, &tree, &format!("splices/{}", file.path))? else {
        return Ok(Image::Absent);
    };
    let before_path = file.moved_from.as_deref().unwrap_or(&file.path);
    let before = match before_at(repo, commit, before_path, depth) {
        Ok(Some(before)) => before,
        Ok(None) => return Ok(Image::Broken),
        Err(e) if e.code == Code::ReceiptNotFound => return Ok(Image::Broken),
        Err(e) => return Err(e),
    };
    Ok(crate::git::splices::rebuild(&before, &encoded).map_or(Image::Broken, Image::Rebuilt))
}

/// The log, newest first, at most `limit` receipts.
pub fn log(repo: &gix::Repository, limit: usize) -> Result<Vec<Stored>> {
    let mut out = Vec::new();
    let mut next = ref_target(repo, LOG_REF)?;
    while let Some(commit) = next {
        if out.len() >= limit {
            break;
        }
        let stored = load(repo, commit)?;
        next = stored.parent;
        out.push(stored);
    }
    Ok(out)
}
