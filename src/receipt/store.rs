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

/// The bytes stored under `path` in the receipt `commit` (`input`, `before/<p>`, `after/<p>`).
pub fn stored_file(
    repo: &gix::Repository,
    commit: ObjectId,
    path: &str,
) -> Result<Option<Vec<u8>>> {
    let tree = repo
        .find_commit(commit)
        .and_then(|c| c.tree())
        .map_err(|e| git_error("reading a receipt", &e))?;
    blob_at(repo, &tree, path)
}

/// The post-image `file` of the receipt `commit` published: its `after/<path>` blob, or
/// (receipts since the splice format) its pre-image with `splices/<path>` applied, checked
/// against the recorded sha256. `None` for a deleted file.
pub fn after_image(
    repo: &gix::Repository,
    commit: ObjectId,
    file: &super::FileRecord,
) -> Result<Option<Vec<u8>>> {
    let broken = || {
        Error::new(
            Code::ReceiptNotFound,
            format!(
                "receipt {commit}: the post-image of {} does not rebuild",
                file.path
            ),
        )
    };
    match stored_after(repo, commit, file)? {
        Image::Absent => Ok(None),
        Image::Whole(bytes) => Ok(Some(bytes)),
        Image::Rebuilt(after) => {
            let digest = crate::plan::Digest::of(&after).to_hex();
            match file.sha256_after.as_deref() == Some(digest.as_str()) {
                true => Ok(Some(after)),
                false => Err(broken()),
            }
        }
        Image::Broken => Err(broken()),
    }
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
    let tree = repo
        .find_commit(commit)
        .and_then(|c| c.tree())
        .map_err(|e| git_error("reading a receipt", &e))?;
    if let Some(whole) = blob_at(repo, &tree, &format!("after/{}", file.path))? {
        return Ok(Image::Whole(whole));
    }
    let Some(encoded) = blob_at(repo, &tree, &format!("splices/{}", file.path))? else {
        return Ok(Image::Absent);
    };
    let before_path = file.moved_from.as_deref().unwrap_or(&file.path);
    let Some(before) = blob_at(repo, &tree, &format!("before/{before_path}"))? else {
        return Ok(Image::Broken);
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
