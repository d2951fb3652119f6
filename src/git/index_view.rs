//! The index file read in place, for the pre-commit hook. Decoding a 100,000-file index the
//! way `gix::index::File` does (every entry copied into a table, every path into a buffer,
//! all of it freed again at the end) costs more than all of `git diff --cached`. This view maps
//! the file, notes where each entry starts and decodes the cache tree; an entry's path, id,
//! flags and mode are read from the mapped bytes only when the caller asks for that entry.
//!
//! Versions 2 and 3 of a whole index only. Version 4 (each path a suffix of the one before), a
//! split index (`link`), a sparse one (`sdir`, or a directory entry) and any other extension
//! git calls required are left to gix: [`IndexView::open`] returns `None` and the caller
//! decodes the file as before. The trailing checksum is not verified (git checks it in `fsck`).

use std::path::Path;

use gix::ObjectId;
use gix::bstr::BStr;
use gix::index::entry::{Flags, Mode};
use gix::index::extension::Tree;

/// The mapped index, the offset of each entry, and its cache tree.
pub struct IndexView {
    bytes: memmap2::Mmap,
    hash: gix::hash::Kind,
    starts: Vec<u32>,
    tree: Option<Tree>,
}

const FLAG_EXTENDED: u16 = 0x4000;
const NAME_MASK: u16 = 0x0fff;
/// Bytes before the id: ctime, mtime, dev, ino, mode, uid, gid, size (32-bit words).
const STAT_LEN: usize = 40;
const MODE_AT: usize = 24;
const TYPE_MASK: u32 = 0o170_000;
const DIRECTORY: u32 = 0o040_000;

impl IndexView {
    /// The index at `path`, or `None` when it is missing, malformed, or of a kind this view
    /// leaves to gix.
    pub fn open(path: &Path, hash: gix::hash::Kind) -> Option<Self> {
        let file = std::fs::File::open(path).ok()?;
        let bytes = map(&file)?;
        let (starts, tree) = layout(&bytes, hash)?;
        Some(Self {
            bytes,
            hash,
            starts,
            tree,
        })
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The cache tree, when the index has one.
    pub fn tree(&self) -> Option<&Tree> {
        self.tree.as_ref()
    }

    /// The path of entry `i` (root-relative, `/`-separated).
    pub fn path(&self, i: usize) -> &BStr {
        let at = self.starts[i] as usize;
        let (head, len) = name_at(&self.bytes, at, self.hash.len_in_bytes())
            .expect("entries were measured when the view was made");
        self.bytes[at + head..at + head + len].into()
    }

    /// The id, flags (as gix holds them in memory) and mode of entry `i`.
    pub fn entry(&self, i: usize) -> (ObjectId, Flags, Mode) {
        let at = self.starts[i] as usize;
        let hash_len = self.hash.len_in_bytes();
        let id = ObjectId::from_bytes_or_panic(&self.bytes[at + STAT_LEN..][..hash_len]);
        let flags = u16_at(&self.bytes, at + STAT_LEN + hash_len).unwrap_or(0);
        let extended = match flags & FLAG_EXTENDED {
            0 => 0,
            _ => u16_at(&self.bytes, at + STAT_LEN + hash_len + 2).unwrap_or(0),
        };
        let flags = u32::from(flags) | u32::from(extended) << 16;
        let flags = Flags::from_bits_retain(flags) - Flags::PATH_LEN;
        let mode = Mode::from_bits_truncate(u32_at(&self.bytes, at + MODE_AT).unwrap_or(0));
        (id, flags, mode)
    }
}

/// Maps `file` read-only.
#[allow(unsafe_code)]
fn map(file: &std::fs::File) -> Option<memmap2::Mmap> {
    // SAFETY: git and gix never write into an index file: they write `index.lock` and rename
    // it over the index, so the inode mapped here keeps its bytes while the view lives. (A
    // tool truncating the index in place would make a read fault, as it would for git, which
    // maps the index too.)
    unsafe { memmap2::Mmap::map(file) }.ok()
}

/// Where each entry starts, and the cache tree; `None` for what the view does not read.
fn layout(bytes: &[u8], hash: gix::hash::Kind) -> Option<(Vec<u32>, Option<Tree>)> {
    let version = u32_at(bytes, 4)?;
    if bytes.get(..4)? != b"DIRC" || !(2..=3).contains(&version) {
        return None;
    }
    let count = usize::try_from(u32_at(bytes, 8)?).ok()?;
    let hash_len = hash.len_in_bytes();
    let mut starts = Vec::with_capacity(count.min(bytes.len() / (STAT_LEN + hash_len + 8)));
    let mut at = 12;
    for _ in 0..count {
        starts.push(u32::try_from(at).ok()?);
        let (head, len) = name_at(bytes, at, hash_len)?;
        let extended = u16_at(bytes, at + STAT_LEN + hash_len)? & FLAG_EXTENDED != 0;
        if (extended && version == 2) || u32_at(bytes, at + MODE_AT)? & TYPE_MASK == DIRECTORY {
            return None;
        }
        at += (head + len + 8) & !7;
    }
    let tree = extensions(bytes, at, hash)?;
    Some((starts, tree))
}

/// Reads the extensions from `at` to the trailing checksum: the cache tree, if any. `None`
/// when one is required (its signature starts with a lowercase letter: `link`, `sdir`, ...).
fn extensions(bytes: &[u8], mut at: usize, hash: gix::hash::Kind) -> Option<Option<Tree>> {
    let end = bytes.len().checked_sub(hash.len_in_bytes())?;
    let mut tree = None;
    while at < end {
        let signature = bytes.get(at..at + 4)?;
        let size = usize::try_from(u32_at(bytes, at + 4)?).ok()?;
        let data = bytes.get(at + 8..(at + 8).checked_add(size)?)?;
        if signature == b"TREE" {
            tree = Some(gix::index::extension::tree::decode(data, hash, None)?);
        } else if signature[0].is_ascii_lowercase() {
            return None;
        }
        at += 8 + size;
    }
    (at == end).then_some(tree)
}

/// The entry at `at`: the length of its header (stat data, id, flags) and of its path. The
/// path's length is in the flags, or it ends at a NUL when it is 4095 bytes or longer.
fn name_at(bytes: &[u8], at: usize, hash_len: usize) -> Option<(usize, usize)> {
    let flags = u16_at(bytes, at + STAT_LEN + hash_len)?;
    let head = STAT_LEN + hash_len + 2 + if flags & FLAG_EXTENDED != 0 { 2 } else { 0 };
    let rest = bytes.get(at + head..)?;
    let len = match flags & NAME_MASK {
        NAME_MASK => rest.iter().position(|&b| b == 0)?,
        short => usize::from(short),
    };
    // The path is followed by at least one NUL (the padding).
    (rest.get(len) == Some(&0)).then_some((head, len))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Whatever follows a header, the layout is refused or every entry it lists has a
        /// path inside the bytes.
        #[test]
        fn a_layout_is_refused_or_its_entries_are_inside(
            version in 2u8..=3,
            count in 0u8..8,
            rest in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..800),
        ) {
            let mut bytes = b"DIRC\0\0\0".to_vec();
            bytes.extend([version, 0, 0, 0, count]);
            bytes.extend(rest);
            if let Some((starts, _)) = layout(&bytes, gix::hash::Kind::Sha1) {
                for at in starts {
                    proptest::prop_assert!(name_at(&bytes, at as usize, 20).is_some());
                }
            }
        }
    }

    /// One version-2 entry: its path ends at the NUL the padding starts with.
    #[test]
    fn an_entry_is_measured_to_its_padding() {
        let mut bytes = b"DIRC\0\0\0\x02\0\0\0\x01".to_vec();
        bytes.extend([0u8; 24]);
        bytes.extend(0o100_644u32.to_be_bytes());
        bytes.extend([0u8; 12 + 20]);
        bytes.extend([0, 3]);
        bytes.extend(b"a/b\0\0\0\0\0\0\0");
        bytes.extend([0u8; 20]);
        let (starts, tree) = layout(&bytes, gix::hash::Kind::Sha1).expect("one entry");
        assert_eq!((starts, tree), (vec![12], None));
        assert_eq!(name_at(&bytes, 12, 20), Some((62, 3)));
        bytes[12 + 62 + 3] = b'x';
        assert!(
            layout(&bytes, gix::hash::Kind::Sha1).is_none(),
            "no NUL after the path"
        );
    }
}
