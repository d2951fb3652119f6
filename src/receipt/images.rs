//! The images a receipt stores of each changed file. A pre-image the index already names is
//! filed by that id (`git::clean`), a large one an earlier receipt published by a reference
//! to it (`receipt::prior`), others are written; a post-image is stored as its splices on the
//! pre-image when they rebuild it (`git::splices`, its blob id still recorded), else whole.
//!
//! Where each pre-image comes from is decided while the files are published ([`Placing`],
//! on another thread when reading the index or earlier receipts may take a while): a large
//! one to write is then hashed and compressed on another core too (9 MB cost about 6 ms of
//! the command's path when it was written after).

use std::collections::HashMap;

use super::prior::{self, Found};
use crate::change::{Action, FileChange};
use crate::error::Result;
use crate::git::ledger::{self, TreeFiles};
use crate::workspace::snapshot::Snapshot;

/// Blob ids of stored images, by their path in the receipt tree (`before/<path>`).
pub type Images = HashMap<String, gix::ObjectId>;

/// Where a pre-image goes into the receipt.
enum Place {
    Found(Found),
    /// Being written on another thread.
    Writing(ledger::Writing),
    /// To write on the spot.
    Write,
}

/// Where each changed file's pre-image goes, by root-relative path.
pub struct Placed(HashMap<String, Place>);

/// What deciding where a pre-image goes reads of a changed file, owned so that it can be
/// decided on another thread.
struct PreImage {
    rel: String,
    before: Snapshot,
    /// Modified where it is (not created, deleted or moved): an earlier receipt may hold it.
    in_place: bool,
}

impl PreImage {
    fn of(files: &[FileChange]) -> Vec<Self> {
        changed(files)
            .filter_map(|c| {
                Some(Self {
                    rel: c.path.rel.clone(),
                    before: c.before.clone()?,
                    in_place: c.action == Action::Modified && c.moved.is_none(),
                })
            })
            .collect()
    }
}

/// Where the pre-images go: decided, being decided on another thread, or left to the
/// receipt (no thread could be started).
pub enum Placing {
    Done(Placed),
    Deciding(std::thread::JoinHandle<Placed>),
    Later,
}

impl Placing {
    /// Starts deciding where every pre-image of `files` goes. When one is large enough for
    /// the decision to read earlier receipts (or the index), it is made on another thread,
    /// while the files are published.
    pub fn start(repo: &gix::Repository, files: &[FileChange]) -> Self {
        let pre = PreImage::of(files);
        let bytes: usize = pre.iter().map(|p| p.before.bytes.len()).sum();
        if bytes < prior::WORTH {
            return Self::Done(place(repo, &pre));
        }
        let repo = repo.clone();
        let spawned = std::thread::Builder::new().spawn(move || place(&repo, &pre));
        match spawned {
            Ok(thread) => Self::Deciding(thread),
            Err(_) => Self::Later,
        }
    }

    /// The decision (`None` when no thread made it: then the receipt decides on the spot).
    /// A publish that failed calls it too, so that no thread outlives the command's receipt.
    pub fn placed(self) -> Option<Placed> {
        match self {
            Self::Done(placed) => Some(placed),
            Self::Deciding(thread) => thread.join().ok(),
            Self::Later => None,
        }
    }
}

/// Decides where every pre-image of `pre` goes, and starts writing the large ones that
/// nothing holds yet.
fn place(repo: &gix::Repository, pre: &[PreImage]) -> Placed {
    let touched: Vec<(&str, &Snapshot)> = pre.iter().map(|p| (p.rel.as_str(), &p.before)).collect();
    let known = crate::git::clean::index_ids(repo, &touched);
    let mut recent = None;
    let mut placed = HashMap::new();
    for image in pre {
        let found = known.get(&image.rel).copied().map(Found::Blob);
        let place = match found.or_else(|| held(repo, &mut recent, image)) {
            Some(found) => Place::Found(found),
            None if image.before.bytes.len() >= ledger::Hashing::WORTH => {
                Place::Writing(ledger::Writing::start(repo, &image.before.bytes.shared()))
            }
            None => Place::Write,
        };
        placed.insert(image.rel.clone(), place);
    }
    Placed(placed)
}

/// Files the images of every changed file in `tree`, each pre-image where `placing`
/// decided (decided now when it did not). Returns the blob ids of pre-images filed by
/// reference (for `blob_before`) and of smaller post-images filed as splices (for
/// `blob_after`, hashed while their bytes are at hand).
pub fn add(
    repo: &gix::Repository,
    tree: &mut TreeFiles,
    files: &[FileChange],
    placing: Option<Placing>,
) -> Result<Images> {
    let decided = placing.and_then(Placing::placed);
    let mut placed = decided
        .unwrap_or_else(|| place(repo, &PreImage::of(files)))
        .0;
    let mut referenced = Images::new();
    // Each file's images are unpacked and rebuilt into the same two buffers.
    let (mut unpacked, mut rebuilt) = (Vec::new(), Vec::new());
    for change in changed(files) {
        let rel = &change.path.rel;
        let pre = change.before_into(&mut unpacked);
        if change.before.is_some() {
            let key = format!("before/{rel}");
            match placed.remove(rel).unwrap_or(Place::Write) {
                Place::Found(Found::Blob(id)) => tree.entries.push((key, id)),
                Place::Found(Found::Receipt { reference, blob }) => {
                    tree.add(repo, format!("prior/{rel}"), &reference)?;
                    referenced.extend(blob.map(|id| (key, id)));
                }
                Place::Writing(writing) => tree.entries.push((key, writing.id()?)),
                Place::Write => drop(tree.add(repo, key, pre)?),
            }
        }
        let Some(after) = change.after_into(pre, &mut rebuilt) else {
            continue;
        };
        let spliced = change
            .before
            .as_ref()
            .and_then(|_| crate::git::splices::encode(pre, after, &change.ranges));
        match spliced {
            Some(encoded) => {
                tree.add(repo, format!("splices/{rel}"), &encoded)?;
                // A large one is being hashed since the publish began (`large_post_images`).
                if after.len() < ledger::Hashing::WORTH {
                    let id = ledger::blob_id(repo, after);
                    referenced.extend(id.map(|id| (format!("after/{rel}"), id)));
                }
            }
            None => drop(tree.add(repo, format!("after/{rel}"), after)?),
        }
    }
    Ok(referenced)
}

fn changed(files: &[FileChange]) -> impl Iterator<Item = &FileChange> {
    files.iter().filter(|c| c.action != Action::Unchanged)
}

/// Where an earlier receipt holds `change`'s pre-image, for a large file modified in place
/// (the newest receipts are read from the first such file on, as far as each search needs).
fn held<'r>(
    repo: &'r gix::Repository,
    recent: &mut Option<prior::Recent<'r>>,
    image: &PreImage,
) -> Option<Found> {
    if !image.in_place || image.before.bytes.len() < prior::WORTH {
        return None;
    }
    let digest = image.before.digest.to_hex();
    let recent = recent.get_or_insert_with(|| prior::Recent::new(repo));
    prior::find(recent, &image.rel, &digest)
}
