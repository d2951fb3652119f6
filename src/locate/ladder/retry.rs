//! A retried edit beside an unapplied twin: the block's search matches once, but its
//! replacement already stands somewhere else. Either the edit was applied there before (a
//! retry, and the match is a twin the author never meant) or the author copies that text to
//! the match: two readings, two places. A diff's line number decides (the nearer place);
//! without one the block is refused as ambiguous.

use crate::locate::file_text::FileText;
use crate::plan::{Block, Side};

use super::render::Body;
use super::tier::{Found, Scope, Tier, find_all};

/// How far (in lines) a retry's occurrence may stand from the line number it carries.
const NEAR: usize = 10;

/// What the block's replacement standing elsewhere means.
pub enum Reading {
    /// Apply at the match (no such occurrence, or the line number points at the match).
    Match,
    /// The line number points at the occurrence: the edit is in the file already.
    Applied,
    /// No line number: the match and the occurrence are both candidates.
    Ambiguous(Found),
}

/// How to read a single match `one` of `block` whose replacement may stand elsewhere. Only
/// edits with context and a replacement of two lines or more are read so (a bare one-line
/// replacement says too little to suspect a retry).
pub fn read(
    file: &FileText<'_>,
    block: &Block,
    one: &Found,
    body: &Body<'_>,
    scope: Scope,
) -> Reading {
    let script = body.script(Tier::TrailingWhitespace);
    let context = script.contains(&Side::Both);
    if body.new.len() < 2 || !context || script.iter().all(|s| *s == Side::Both) {
        return Reading::Match;
    }
    let apart = |o: &Found| o.first + o.len <= one.first || o.first >= one.first + one.len;
    let Some(done) = find_all(file, &body.new, scope).into_iter().find(apart) else {
        return Reading::Match;
    };
    match block.hint_line {
        None => Reading::Ambiguous(done),
        Some(hint) => {
            let distance = |f: &Found| (f.first + 1).abs_diff(hint);
            let (to_done, to_match) = (distance(&done), distance(one));
            // A retry carries the line numbers of the place it was applied at: near them.
            match (to_done < to_match, to_done <= NEAR) {
                (false, _) => Reading::Match,
                (true, true) => Reading::Applied,
                (true, false) => Reading::Ambiguous(done),
            }
        }
    }
}
