//! Everything git beyond finding the repository (which `workspace::discover` does, cheaply,
//! on the path of every edit): `repo` opens it with gix when a command needs objects or refs,
//! `ledger` writes receipt objects and refs, `index` stages, `cached` applies to the index
//! only; `clean` finds pre-images the index already names (`entries` reads those paths'
//! entries from the index file), `splices` stores a post-image as its edit, `prior` a
//! pre-image as the earlier receipt that published it; `pack` writes a large receipt's
//! objects as one pack, `loose` a small one's as loose files; `index_view` reads a whole
//! index in place for the pre-commit hook.

pub mod cached;
pub mod clean;
pub mod entries;
pub mod index;
pub mod index_view;
pub mod ledger;
pub mod loose;
pub mod pack;
pub mod prior;
pub mod repo;
pub mod splices;
