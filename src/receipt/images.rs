//! The images a receipt stores of each changed file. A pre-image the index already names is
//! filed by that id (`git::clean`), a large one an earlier receipt published by a reference
//! to it (`receipt::prior`), others are written; a post-image is stored as its splices on the
//! pre-image when they rebuild it (`git::splices`, its blob id still recorded), else whole.
//!
//! Where each pre-image comes from is decided before the publish ([`place`]): a large one to
//! write is then hashed and compressed on another core while the files are published (9 MB
//! cost about 6 ms of the command's path when it was written after).

use std::collections::HashMap;

use super::prior::{self, Found};
use crate::change::{Action, FileChange};
use crate::error::Result;
use crate::git::ledger::{self, TreeFiles};

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

/// Decides where every pre-image of `files` goes, and starts writing the large ones that
/// nothing holds yet.
pub fn place(repo: &gix::Repository, files: &[FileChange]) -> Placed {
    let known = crate::git::clean::index_ids(repo, files);
    let mut recent = None;
    let mut placed = HashMap::new();
    for change in changed(files) {
        let Some(before) = &change.before else {
            continue;
        };
        let rel = &change.path.rel;
        let found = known.get(rel).copied().map(Found::Blob);
        let place = match found.or_else(|| held(repo, &mut recent, change)) {
            Some(found) => Place::Found(found),
            None if before.bytes.len() >= ledger::Hashing::WORTH => {
                Place::Writing(ledger::Writing::start(repo, &before.bytes))
            }
            None => Place::Write,
        };
        placed.insert(rel.clone(), place);
    }
    Placed(placed)
}

/// Files the images of every changed file in `tree`, each pre-image where `placed` says
/// (decided now when `None`). Returns the blob ids of pre-images filed by reference (for
/// `blob_before`).
pub fn add(
    repo: &gix::Repository,
    tree: &mut TreeFiles,
    files: &[FileChange],
    placed: Option<Placed>,
) -> Result<Images> {
    let mut placed = placed.unwrap_or_else(|| place(repo, files)).0;
    let mut referenced = Images::new();
    for change in changed(files) {
        let rel = &change.path.rel;
        if let Some(before) = &change.before {
            let key = format!("before/{rel}");
            match placed.remove(rel).unwrap_or(Place::Write) {
                Place::Found(Found::Blob(id)) => tree.entries.push((key, id)),
                Place::Found(Found::Receipt { reference, blob }) => {
                    tree.add(repo, format!("prior/{rel}"), &reference)?;
                    referenced.extend(blob.map(|id| (key, id)));
                }
                Place::Writing(writing) => tree.entries.push((key, writing.id()?)),
                Place::Write => drop(tree.add(repo, key, &before.bytes)?),
            }
        }
        let Some(after) = &change.after else { continue };
        let spliced = change
            .before
            .as_ref()
            .and_then(|b| crate::git::splices::encode(&b.bytes, after, &change.ranges));
        match spliced {
            Some(encoded) => drop(tree.add(repo, format!("splices/{rel}"), &encoded)?),
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
    change: &FileChange,
) -> Option<Found> {
    let before = change.before.as_ref()?;
    let in_place = change.action == Action::Modified && change.moved.is_none();
    if !in_place || before.bytes.len() < prior::WORTH {
        return None;
    }
    let digest = change.digest_before()?.to_hex();
    let recent = recent.get_or_insert_with(|| prior::Recent::new(repo));
    prior::find(recent, &change.path.rel, &digest)
}
