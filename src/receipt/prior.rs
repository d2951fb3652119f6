//! Pre-images the ledger holds already as an earlier receipt's post-image: the second edit of
//! a file is the common case (an agent edits one file again and again), and its pre-image is
//! the first edit's post-image, which the ledger stored as splices, not as a blob. Writing it
//! whole again would cost what the file costs (2.2 MB of zlib output, about 25 ms, for a 9 MB
//! file); instead the receipt tree files `prior/<path>`, a blob naming that receipt
//! (`git::prior`).
//!
//! Reading it (`store::before_image`) loads that receipt and rebuilds its post-image of the
//! path, checked against its `sha256_after`. The earlier receipt is an ancestor of the new one
//! on `refs/identedit/log` (it is found there), so `git gc` keeps it. `depth` counts the
//! receipts a reader passes through to reach a whole blob; past [`MAX_DEPTH`] the pre-image is
//! written whole again, so reading costs at most that many rebuilds.

use gix::ObjectId;

use super::store;
use super::{FileRecord, LOG_REF};
use crate::git::ledger::ref_target;
use crate::git::prior::{MAX_DEPTH, decode, encode};

/// Below this size a pre-image is written whole: the blob costs less than reading receipts.
pub const WORTH: usize = 128 << 10;

/// How many of the newest receipts are searched for the one that wrote the pre-image.
const SEARCH: usize = 8;

/// Where the ledger already holds a pre-image.
#[derive(Debug, PartialEq, Eq)]
pub enum Found {
    /// A blob: the earlier receipt stored its post-image whole.
    Blob(ObjectId),
    /// The earlier receipt holds splices: the reference to file as `prior/<path>`, and the
    /// pre-image's blob id as that receipt recorded it.
    Receipt {
        reference: Vec<u8>,
        blob: Option<ObjectId>,
    },
}

/// The newest receipts of the log, read once per command for all its files.
pub fn recent(repo: &gix::Repository) -> Vec<store::Stored> {
    let mut out = Vec::new();
    let mut next = ref_target(repo, LOG_REF).ok().flatten();
    while let Some(commit) = next.filter(|_| out.len() < SEARCH) {
        let Ok(stored) = store::load(repo, commit) else {
            break;
        };
        next = stored.parent;
        out.push(stored);
    }
    out
}

/// The newest of `recent` whose post-image of `rel` has the sha256 `digest`, and how its
/// image is held; `None` when there is none or its chain is already long.
pub fn find(
    repo: &gix::Repository,
    recent: &[store::Stored],
    rel: &str,
    digest: &str,
) -> Option<Found> {
    let (stored, record) = recent
        .iter()
        .find_map(|s| Some((s, s.receipt.files.iter().find(|f| writes(f, rel))?)))?;
    (record.sha256_after.as_deref() == Some(digest))
        .then(|| held(repo, stored.commit, record))
        .flatten()
}

/// Whether `record` published a post-image at `rel` in place (not moved there).
fn writes(record: &FileRecord, rel: &str) -> bool {
    record.path == rel && record.moved_from.is_none() && record.sha256_after.is_some()
}

fn held(repo: &gix::Repository, commit: ObjectId, record: &FileRecord) -> Option<Found> {
    let tree = repo.find_commit(commit).ok()?.tree().ok()?;
    let entry = |path: String| tree.lookup_entry_by_path(path).ok().flatten();
    if let Some(whole) = entry(format!("after/{}", record.path)) {
        return Some(Found::Blob(whole.object_id()));
    }
    entry(format!("splices/{}", record.path))?;
    let depth = if entry(format!("before/{}", record.path)).is_some() {
        0
    } else {
        let reference = entry(format!("prior/{}", record.path))?;
        let bytes = repo.find_blob(reference.object_id()).ok()?;
        decode(&bytes.data)?.1
    };
    let blob = record
        .blob_after
        .as_deref()
        .and_then(|hex| ObjectId::from_hex(hex.as_bytes()).ok());
    (depth < MAX_DEPTH).then(|| Found::Receipt {
        reference: encode(commit, depth + 1),
        blob,
    })
}
