//! Evidence from the ledger that a stale `LINE:HASH` anchor was read from a version of its file
//! that another recorded write replaced since: a receipt's pre- or post-image of the file has
//! the anchored line, with that hash, at that line. Only the newest receipts are looked at, and
//! only when an anchor is stale.

use crate::lang::hash::line_hash;
use crate::locate::lines::split;
use crate::plan::LineAnchor;
use crate::workspace::Workspace;

/// How many of the newest receipts are searched.
const DEPTH: usize = 64;

/// Whether a recorded version of `rel` holds `anchor` (its line, with its hash).
pub fn recorded(ws: &Workspace, rel: &str, anchor: &LineAnchor) -> bool {
    let Ok(repo) = crate::git::repo::open(ws) else {
        return false;
    };
    let Ok(log) = super::store::log(&repo, DEPTH) else {
        return false;
    };
    let holds = |bytes: &[u8]| hash_of_line(bytes, anchor.line).as_deref() == Some(&*anchor.hash);
    log.iter().any(|s| {
        s.receipt
            .files
            .iter()
            .filter(|f| f.path == rel)
            .any(|file| {
                let before = || super::store::before_image(&repo, s.commit, rel);
                let after = || super::store::stored_after(&repo, s.commit, file);
                before().ok().flatten().is_some_and(|b| holds(&b))
                    || after()
                        .ok()
                        .and_then(super::store::Image::bytes)
                        .is_some_and(|a| holds(&a))
            })
    })
}

/// The hash of line `n` (1-based) of `bytes`, as `read --mode line` shows it.
pub fn hash_of_line(bytes: &[u8], n: usize) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    let line = split(text).get(n.checked_sub(1)?).copied()?;
    Some(line_hash(&bytes[line.start..line.content_end]))
}
