//! What a commit is about to record: the index diffed against HEAD's tree (no work tree scan,
//! and only the directories the cache-tree does not show unchanged: [`crate::hook::narrow`]),
//! the staged blobs, and the `identedit-allow-residue` attribute read from the staged
//! `.gitattributes` files. The index is read in place ([`IndexView`]) where it can be, and
//! what the checks keep of it is only the entries they can ask about.

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::diff::index::ChangeRef;
use gix::index::State;
use gix::index::entry::Mode;

use crate::error::Result;
use crate::git::index_view::IndexView;
use crate::hook::git_error;
use crate::hook::narrow::Entries;

/// The attribute that exempts a path from the residue check.
pub const ALLOW_RESIDUE: &str = "identedit-allow-residue";

/// One staged regular file (added, modified or renamed; deletions are not listed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Staged {
    /// Root-relative, `/`-separated.
    pub path: String,
    /// The blob in the index: what the commit will contain.
    pub blob: ObjectId,
    /// The blob it replaces in HEAD (its rename source for a rename), `None` for a new file.
    pub base: Option<ObjectId>,
}

fn is_file(mode: Mode) -> bool {
    mode == Mode::FILE || mode == Mode::FILE_EXECUTABLE
}

/// What a commit is about to record, and the index entries it is judged with.
pub struct Staging {
    /// Every staged regular file, in index order.
    pub changes: Vec<Staged>,
    /// The index entries of the directories that differ from HEAD: all that the checks read
    /// of the index. Attributes are looked up for staged paths only, whose every directory is
    /// among them with the `.gitattributes` it holds; a conversion's CRLF check asks for the
    /// converted path's own entry.
    pub index: State,
}

/// Reads the index and what it stages.
pub fn read(repo: &gix::Repository) -> Result<Staging> {
    let index = read_index(repo)?;
    let entries: &dyn Entries = match &index {
        Index::View(view) => view,
        Index::Decoded(state) => state.as_ref(),
    };
    let (changes, staged) = changes(repo, entries)?;
    Ok(Staging {
        changes,
        index: staged,
    })
}

/// Every staged regular file, in index order, and the index entries of the directories that
/// may differ from HEAD.
fn changes(repo: &gix::Repository, index: &dyn Entries) -> Result<(Vec<Staged>, State)> {
    let head_tree = repo
        .head_tree_id_or_empty()
        .map_err(|e| git_error("HEAD's tree", e))?
        .detach();
    let narrowed = crate::hook::narrow::narrow(repo, Some(head_tree), index)?;
    let mut out = Vec::new();
    // Renames need a deleted path; without one, skip the rename tracker (its set-up reads the
    // whole index once more for attributes).
    let mut resource_cache = if has_deletion(&narrowed.head, &narrowed.staged) {
        Some(
            repo.diff_resource_cache_for_tree_diff()
                .map_err(|e| git_error("preparing rename detection", e))?,
        )
    } else {
        None
    };
    let rewrites = resource_cache
        .as_mut()
        .map(|cache| gix::diff::index::RewriteOptions {
            resource_cache: cache,
            find: repo,
            rewrites: gix::diff::Rewrites::default(),
        });
    let mut search = gix::pathspec::Search::from_specs(None, None, std::path::Path::new(""))
        .map_err(|e| git_error("an empty pathspec", e))?;
    let on_change = |change: ChangeRef<'_, '_>| {
        out.extend(staged_of(change));
        Ok(gix::diff::index::Action::Continue(()))
    };
    let no_attributes = &mut |_: &gix::bstr::BStr, _, _, _: &mut _| false;
    gix::diff::index(
        &narrowed.head,
        &narrowed.staged,
        on_change,
        rewrites,
        &mut search,
        no_attributes,
    )
    .map_err(|e| git_error("comparing the index with HEAD", e))?;
    Ok((out, narrowed.staged))
}

/// Whether a path of HEAD's (narrowed) tree is missing from the (narrowed) index: only then
/// can a change be a rename.
fn has_deletion(head: &gix::index::State, staged: &gix::index::State) -> bool {
    head.entries()
        .iter()
        .any(|e| staged.entry_index_by_path(e.path(head)).is_err())
}

/// The staged file one change of the index against HEAD records, if it records one: an
/// addition, a content modification or a rename of a regular file.
fn staged_of(change: ChangeRef<'_, '_>) -> Option<Staged> {
    let (location, blob, base) = match change {
        ChangeRef::Addition {
            location,
            entry_mode,
            id,
            ..
        } => is_file(entry_mode).then(|| (location, id.into_owned(), None))?,
        ChangeRef::Modification {
            location,
            entry_mode,
            id,
            previous_id,
            previous_entry_mode,
            ..
        } => {
            // A mode change alone stages no new content.
            let changed = id != previous_id;
            let base = is_file(previous_entry_mode).then(|| previous_id.into_owned());
            (is_file(entry_mode) && changed).then(|| (location, id.into_owned(), base))?
        }
        ChangeRef::Rewrite {
            location,
            entry_mode,
            id,
            source_id,
            source_entry_mode,
            ..
        } => {
            let base = is_file(source_entry_mode).then(|| source_id.into_owned());
            is_file(entry_mode).then(|| (location, id.into_owned(), base))?
        }
        ChangeRef::Deletion { .. } => return None,
    };
    Some(Staged {
        path: location.to_str_lossy().into_owned(),
        blob,
        base,
    })
}

/// The index as the hook reads it.
enum Index {
    View(IndexView),
    Decoded(Box<State>),
}

/// The index as git reads it for a commit: in place when [`IndexView`] reads its kind, else
/// decoded by gix. Its trailing checksum is not verified (git checks it only in `fsck`;
/// hashing it is most of the cost of decoding a 100,000-file index). A missing index (an
/// unborn branch) is empty.
fn read_index(repo: &gix::Repository) -> Result<Index> {
    let path = repo.index_path();
    let hash = repo.object_hash();
    if let Some(view) = IndexView::open(&path, hash) {
        return Ok(Index::View(view));
    }
    match gix::index::File::at(&path, hash, true, Default::default()) {
        Ok(file) => Ok(Index::Decoded(Box::new(file.into_parts().0))),
        Err(_) if !path.exists() => Ok(Index::Decoded(Box::new(State::new(hash)))),
        Err(e) => Err(git_error("reading the index", e)),
    }
}

/// Reads a blob's bytes.
pub fn blob(repo: &gix::Repository, id: ObjectId) -> Result<Vec<u8>> {
    repo.find_blob(id)
        .map(|mut b| b.take_data())
        .map_err(|e| git_error(&format!("blob {id}"), e))
}

/// Answers "does this path carry `identedit-allow-residue`?" from the `.gitattributes` files
/// as staged in the index (plus `info/attributes` and the global attributes file).
pub struct Attributes<'repo> {
    stack: gix::AttributeStack<'repo>,
    outcome: gix::attrs::search::Outcome,
}

impl<'repo> Attributes<'repo> {
    pub fn new(repo: &'repo gix::Repository, index: &State) -> Result<Self> {
        let stack = repo
            .attributes_only(
                index,
                gix::worktree::stack::state::attributes::Source::IdMapping,
            )
            .map_err(|e| git_error("reading .gitattributes", e))?;
        let outcome = stack.selected_attribute_matches([ALLOW_RESIDUE]);
        Ok(Self { stack, outcome })
    }

    /// Whether the attribute is set (`attr`, or `attr=true`) for `path`.
    pub fn allows_residue(&mut self, path: &str) -> Result<bool> {
        let platform = self
            .stack
            .at_entry(path, Some(Mode::FILE))
            .map_err(|e| git_error(&format!(".gitattributes for {path}"), e))?;
        self.outcome.reset();
        platform.matching_attributes(&mut self.outcome);
        Ok(self
            .outcome
            .iter_selected()
            .any(|m| match m.assignment.state {
                gix::attrs::StateRef::Set => true,
                gix::attrs::StateRef::Value(v) => v.as_bstr() == "true",
                _ => false,
            }))
    }
}
