//! The part of HEAD and of the index that a commit can change, found without walking the
//! whole tree: the index's cache-tree extension records, for each directory whose entries are
//! unchanged since the tree was last written, that tree's id and entry count. A directory whose
//! cached id equals HEAD's tree id there (and whose entry count matches) holds no staged
//! change and is skipped whole, as `git diff --cached` skips it; the others are read tree by
//! tree. What remains is two small indexes (HEAD's entries and the staged entries of the
//! directories not skipped) that the usual index diff (with rename tracking) compares.
//!
//! Without a cache-tree (or after a tool wrote the index with it invalidated) every directory
//! is read, which is what a plain tree-to-index diff costs.
//!
//! The walk reads the index through [`Entries`]: a view of the file (`git::index_view`, where
//! only the entries of the directories not skipped are ever decoded) or gix's decoded index.

use std::ops::Range;

use gix::ObjectId;
use gix::bstr::{BStr, ByteSlice};
use gix::index::State;
use gix::index::entry::{Flags, Mode, Stat};
use gix::index::extension::Tree;

use crate::error::Result;
use crate::git::index_view::IndexView;
use crate::hook::git_error;

/// The index as the walk reads it: entries by position, sorted by path, and the cache tree.
pub trait Entries {
    fn count(&self) -> usize;
    fn path(&self, i: usize) -> &BStr;
    /// The id, flags and mode of entry `i`.
    fn entry(&self, i: usize) -> (ObjectId, Flags, Mode);
    fn tree(&self) -> Option<&Tree>;
}

impl Entries for State {
    fn count(&self) -> usize {
        self.entries().len()
    }
    fn path(&self, i: usize) -> &BStr {
        self.entries()[i].path(self)
    }
    fn entry(&self, i: usize) -> (ObjectId, Flags, Mode) {
        let e = &self.entries()[i];
        (e.id, e.flags, e.mode)
    }
    fn tree(&self) -> Option<&Tree> {
        State::tree(self)
    }
}

impl Entries for IndexView {
    fn count(&self) -> usize {
        IndexView::len(self)
    }
    fn path(&self, i: usize) -> &BStr {
        IndexView::path(self, i)
    }
    fn entry(&self, i: usize) -> (ObjectId, Flags, Mode) {
        IndexView::entry(self, i)
    }
    fn tree(&self) -> Option<&Tree> {
        IndexView::tree(self)
    }
}

/// HEAD's entries and the index's entries below the directories that may differ.
pub struct Narrowed {
    pub head: State,
    pub staged: State,
}

/// Narrows `index` and the tree `head` (`None`: no commit yet) to the directories that differ.
pub fn narrow(
    repo: &gix::Repository,
    head: Option<ObjectId>,
    index: &dyn Entries,
) -> Result<Narrowed> {
    let hash = repo.object_hash();
    let mut walk = Walk {
        repo,
        index,
        head: State::new(hash),
        staged: State::new(hash),
    };
    walk.dir(b"", head, index.tree(), 0..index.count())?;
    walk.head.sort_entries();
    walk.staged.sort_entries();
    Ok(Narrowed {
        head: walk.head,
        staged: walk.staged,
    })
}

struct Walk<'a> {
    repo: &'a gix::Repository,
    index: &'a dyn Entries,
    head: State,
    staged: State,
}

/// One entry of a HEAD tree: its name, whether it is a tree, its mode and id.
type TreeEntry = (Vec<u8>, bool, Mode, ObjectId);

impl Walk<'_> {
    /// Collects the differing entries below `prefix` (empty or ending in `/`): HEAD's tree
    /// `tree` there, the cache-tree node `cache`, and the index entries `range` below it.
    fn dir(
        &mut self,
        prefix: &[u8],
        tree: Option<ObjectId>,
        cache: Option<&Tree>,
        range: Range<usize>,
    ) -> Result<()> {
        if let (Some(id), Some(node)) = (tree, cache)
            && node.id == id
            && node.num_entries.is_some_and(|n| n as usize == range.len())
        {
            return Ok(());
        }
        let entries = match tree {
            Some(id) => self.read_tree(id)?,
            None => Vec::new(),
        };
        let mut visited = vec![false; entries.len()];
        for (name, is_tree, mode, id) in &entries {
            if !is_tree {
                let path = [prefix, name].concat();
                let flags = Flags::empty();
                self.head.dangerously_push_entry(
                    Stat::default(),
                    *id,
                    flags,
                    *mode,
                    path.as_bstr(),
                );
            }
        }
        let mut i = range.start;
        while i < range.end {
            let path = self.index.path(i);
            let rest = &path[prefix.len()..];
            let Some(slash) = rest.find_byte(b'/') else {
                self.push_staged(i);
                i += 1;
                continue;
            };
            let sub = [prefix, &rest[..=slash]].concat();
            let end = i + self.group_len(&sub, i..range.end);
            let name = &rest[..slash];
            let head_sub = entries
                .iter()
                .position(|(n, is_tree, _, _)| *is_tree && n.as_slice() == name);
            let head_id = head_sub.map(|k| {
                visited[k] = true;
                entries[k].3
            });
            let child = cache.and_then(|c| c.children.iter().find(|t| t.name.as_slice() == name));
            self.dir(&sub, head_id, child, i..end)?;
            i = end;
        }
        // Directories of HEAD the index no longer has: every file there is deleted.
        for (k, (name, is_tree, _, id)) in entries.iter().enumerate() {
            if *is_tree && !visited[k] {
                let sub = [prefix, name, b"/"].concat();
                self.dir(&sub, Some(*id), None, range.end..range.end)?;
            }
        }
        Ok(())
    }

    /// How many entries from `range.start` on lie below `sub` (they are contiguous).
    /// (A binary search: the entries below `sub` come first in `range`.)
    fn group_len(&self, sub: &[u8], range: Range<usize>) -> usize {
        let (mut below, mut past) = (range.start, range.end);
        while below < past {
            let mid = below + (past - below) / 2;
            match self.index.path(mid).starts_with(sub) {
                true => below = mid + 1,
                false => past = mid,
            }
        }
        below - range.start
    }

    fn push_staged(&mut self, i: usize) {
        let (id, flags, mode) = self.index.entry(i);
        let path = self.index.path(i);
        self.staged
            .dangerously_push_entry(Stat::default(), id, flags, mode, path);
    }

    fn read_tree(&self, id: ObjectId) -> Result<Vec<TreeEntry>> {
        let tree = self
            .repo
            .find_tree(id)
            .map_err(|e| git_error(&format!("tree {id}"), e))?;
        let decoded = tree
            .decode()
            .map_err(|e| git_error(&format!("tree {id}"), e))?;
        Ok(decoded
            .entries
            .iter()
            .map(|e| {
                let name = e.filename.to_vec();
                (name, e.mode.is_tree(), Mode::from(e.mode), e.oid.to_owned())
            })
            .collect())
    }
}
