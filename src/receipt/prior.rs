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

/// The newest receipts of the log, read once per command for all its files, and only as far
/// as a search needs: the receipt that wrote a path is usually the newest one.
pub struct Recent<'r> {
    repo: &'r gix::Repository,
    read: Vec<store::Stored>,
    /// The next older receipt to read; `None` once the log's start or a non-receipt is met.
    next: Option<ObjectId>,
}

impl<'r> Recent<'r> {
    /// Reads nothing yet but the log's tip.
    pub fn new(repo: &'r gix::Repository) -> Self {
        let next = ref_target(repo, LOG_REF).ok().flatten();
        Recent {
            repo,
            read: Vec::new(),
            next,
        }
    }

    /// The `i`th newest receipt (reading it now if it is the next), within [`SEARCH`].
    fn get(&mut self, i: usize) -> Option<&store::Stored> {
        if i == self.read.len() && i < SEARCH {
            let stored = store::load(self.repo, self.next.take()?).ok()?;
            self.next = stored.parent;
            self.read.push(stored);
        }
        self.read.get(i)
    }

    /// The newest receipt that published a post-image at `rel` in place, and its record.
    fn writer(&mut self, rel: &str) -> Option<(ObjectId, &FileRecord)> {
        let mut i = 0;
        while !self.get(i)?.receipt.files.iter().any(|f| writes(f, rel)) {
            i += 1;
        }
        let stored = &self.read[i];
        let record = stored.receipt.files.iter().find(|f| writes(f, rel))?;
        Some((stored.commit, record))
    }
}

/// The newest receipt of `recent` that wrote `rel`, when its post-image has the sha256
/// `digest`, and how its image is held; `None` when there is none or its chain is already
/// long.
pub fn find(recent: &mut Recent<'_>, rel: &str, digest: &str) -> Option<Found> {
    let repo = recent.repo;
    let (commit, record) = recent.writer(rel)?;
    (record.sha256_after.as_deref() == Some(digest))
        .then(|| held(repo, commit, record))
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
