//! Pre-images git already stores: a touched file whose stat data match its index entry is
//! the blob the index names (git hashed it and nothing moved it since), so the ledger files
//! that id instead of hashing and writing the bytes again.
//!
//! Reading the index costs in proportion to the repository (`entries` reads only the touched
//! paths' entries, but walks the ones before them), hashing in proportion to the file; a
//! byte of index walked costs a fraction of a byte hashed (SHA-1 with collision detection),
//! so the index is read when it is at most [`INDEX_PER_BYTE`] times the touched pre-images.
//! An entry counts as clean when its stat data (size, mtime, ctime, device, inode; git's
//! 32-bit fields) equal the file's as it was read, the file's times were settled when read,
//! and the blob's size is the file's (a clean conversion that changes bytes, CRLF or a
//! filter, changes the size). A racy entry (modified no earlier than the index was written)
//! is trusted only when the file's blob id is the entry's, as git compares a racy entry's
//! content: hashing costs less than looking for the bytes in earlier receipts and storing
//! them again. `undo` checks the restored bytes against the receipt's sha256 anyway.

use std::collections::HashMap;

use gix::ObjectId;

use super::entries;
use crate::workspace::snapshot::Snapshot;

/// How many bytes of index are worth walking per byte of pre-image it may spare hashing.
const INDEX_PER_BYTE: u64 = 8;

/// Blob ids of the pre-images `touched` (root-relative path, snapshot as read) that are
/// clean against the index, by path.
pub fn index_ids(
    repo: &gix::Repository,
    touched: &[(&str, &Snapshot)],
) -> HashMap<String, ObjectId> {
    let bytes: u64 = touched.iter().map(|(_, b)| b.bytes.len() as u64).sum();
    let worth =
        std::fs::metadata(repo.index_path()).is_ok_and(|m| m.len() <= INDEX_PER_BYTE * bytes);
    if !worth {
        return HashMap::new();
    }
    let paths: Vec<&str> = touched.iter().map(|(rel, _)| *rel).collect();
    let Some((entries, written)) = entries::find(&repo.index_path(), repo.object_hash(), &paths)
    else {
        return HashMap::new();
    };
    // Nothing the loop keeps is allocated inside it (the ids go into a vector sized up front,
    // compressed pre-images are unpacked into one buffer): reading a loose object's header
    // allocates a decompressor each time, and a key allocated after each one, in the hole it
    // left, made the next one take fresh memory (W4, 1,000 loose objects: 10 MiB).
    let mut unpacked = Vec::new();
    let mut clean = Vec::with_capacity(touched.len());
    for &(rel, before) in touched {
        let Some(entry) = entries.get(rel) else {
            continue;
        };
        let unmoved = before.stamp.settled(before.read_at) && stat_matches(&entry.stat, before);
        let same = match racy(&entry.stat, written) {
            // git compares a racy entry's content: so do we, by its blob id.
            true => {
                unmoved
                    && super::ledger::blob_id(repo, before.bytes.get_into(&mut unpacked))
                        == Some(entry.id)
            }
            false => {
                unmoved
                    && repo
                        .find_header(entry.id)
                        .is_ok_and(|h| h.size() == before.bytes.len() as u64)
            }
        };
        if same {
            clean.push((rel, entry.id));
        }
    }
    clean
        .into_iter()
        .map(|(rel, id)| (rel.to_owned(), id))
        .collect()
}

/// git's comparison of an entry's stat data with the file's, on its 32-bit fields
/// (nanoseconds only where the index recorded them).
fn stat_matches(stat: &gix::index::entry::Stat, before: &Snapshot) -> bool {
    let s = before.stamp.fields();
    let low = |v: u64| v as u32;
    let time = |t: &gix::index::entry::stat::Time, (secs, nsecs): (i64, i64)| {
        t.secs == secs as u32 && (t.nsecs == 0 || t.nsecs == nsecs as u32)
    };
    stat.size == low(s.size)
        && s.size == before.bytes.len() as u64
        && stat.ino == low(s.ino)
        && stat.dev == low(s.dev)
        && time(&stat.mtime, s.mtime)
        && time(&stat.ctime, s.ctime)
}

/// An entry written in the same second as (or after) the index itself may describe a file
/// that changed again within that second: git re-reads such entries, so do we.
fn racy(stat: &gix::index::entry::Stat, index_written: i64) -> bool {
    i64::from(stat.mtime.secs) >= index_written
}
