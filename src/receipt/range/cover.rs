//! The coverage rule of `verify --range`, on lines (pure functions of byte slices).
//!
//! A commit changes a file from `P` (its first parent's blob) to `C` (its own); a receipt, or a
//! chain of receipts, changed the file from `B` (its pre-image) to `A` (its post-image). The
//! receipt's *regions* are the change groups of `diff(B, A)`. A region's new lines stand in
//! `C` when `diff(A, C)` pairs every one of them with consecutive lines of `C` and its
//! neighbouring lines agree with the lines around them (paired with them, both the file's edge,
//! or both paired with nothing: another change abuts); its old lines stand in
//! `P` the same way through `diff(B, P)`. The receipt *wrote* the `C` lines of its regions that
//! stand in `C` and *removed* the `P` lines of its regions that stand in `P`. A commit hunk is
//! covered when every line it removes was removed, and every line it adds was written, by
//! verified receipts.

use std::ops::Range;

use similar::{Algorithm, DiffOp, capture_diff_slices};

/// A file's lines, each with its terminator (the last one may have none).
pub fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// One change group: the lines `old` of the old side became the lines `new` of the new side
/// (0-based, end exclusive; one of them may be empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    pub old: Range<usize>,
    pub new: Range<usize>,
}

/// The change groups of `diff(old, new)`: maximal runs of lines that are not equal.
pub fn hunks(old: &[&[u8]], new: &[&[u8]]) -> Vec<Hunk> {
    let mut out: Vec<Hunk> = Vec::new();
    let mut open: Option<Hunk> = None;
    for op in capture_diff_slices(Algorithm::Myers, old, new) {
        if let DiffOp::Equal { .. } = op {
            out.extend(open.take());
            continue;
        }
        let (o, n) = (op.old_range(), op.new_range());
        open = Some(match open.take() {
            Some(h) => Hunk {
                old: h.old.start..o.end,
                new: h.new.start..n.end,
            },
            None => Hunk { old: o, new: n },
        });
    }
    out.extend(open);
    out
}

/// For each line of `from`, the line of `to` that `diff(from, to)` pairs it with.
fn pairing(from: &[&[u8]], to: &[&[u8]]) -> Vec<Option<usize>> {
    let mut map = vec![None; from.len()];
    for op in capture_diff_slices(Algorithm::Myers, from, to) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                map[old_index + k] = Some(new_index + k);
            }
        }
    }
    map
}

/// A pairing of one image's lines with another's: for each line of the first, its partner;
/// for each line of the second, whether it has one.
struct Pairs {
    of: Vec<Option<usize>>,
    taken: Vec<bool>,
}

impl Pairs {
    fn new(from: &[&[u8]], to: &[&[u8]]) -> Self {
        let of = pairing(from, to);
        let mut taken = vec![false; to.len()];
        for &j in of.iter().flatten() {
            taken[j] = true;
        }
        Self { of, taken }
    }

    /// Whether the neighbour `from` (a line of the first image, `None`: the file's edge) and
    /// `to` (of the second) agree: paired with each other, both edges, or neither paired with
    /// anything else (both changed: another change abuts the region).
    fn agree(&self, from: Option<usize>, to: Option<usize>) -> bool {
        let partner = from.map(|i| self.of.get(i).copied().flatten());
        let taken = to.map(|j| self.taken.get(j).copied().unwrap_or(false));
        match (partner, taken) {
            (Some(Some(j)), _) => Some(j) == to,
            (_, Some(true)) => false,
            _ => true,
        }
    }

    /// Where the lines `range` of the first image stand in the second: paired one by one with
    /// consecutive lines, and their neighbours agreeing.
    fn stands(&self, range: &Range<usize>, to_len: usize) -> Option<Range<usize>> {
        let first = (*self.of.get(range.start)?)?;
        for (k, i) in range.clone().enumerate() {
            if self.of.get(i).copied().flatten() != Some(first + k) {
                return None;
            }
        }
        let end = first + range.len();
        let before = self.agree(range.start.checked_sub(1), first.checked_sub(1));
        let next = |i: usize, len: usize| (i < len).then_some(i);
        let after = self.agree(next(range.end, self.of.len()), next(end, to_len));
        (before && after).then_some(first..end)
    }
}

/// What one receipt (or chain) accounts for in one commit's change of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cover {
    /// Per line of `P`: removed by the receipt.
    pub removed: Vec<bool>,
    /// Per line of `C`: written by the receipt.
    pub written: Vec<bool>,
}

impl Cover {
    /// Whether the receipt accounts for every line of `hunk`.
    pub fn covers(&self, hunk: &Hunk) -> bool {
        self.lines_of(hunk) == hunk.old.len() + hunk.new.len()
    }

    /// How many lines of `hunk` the receipt accounts for.
    pub fn lines_of(&self, hunk: &Hunk) -> usize {
        let removed = hunk.old.clone().filter(|&i| self.removed[i]).count();
        let written = hunk.new.clone().filter(|&i| self.written[i]).count();
        removed + written
    }
}

/// The lines of `P` the receipt `B → A` removed and the lines of `C` it wrote (see the module
/// documentation). When `B` is `P` and `A` is `C`, the receipt made the whole change.
pub fn cover(p: &[&[u8]], c: &[&[u8]], b: &[&[u8]], a: &[&[u8]]) -> Cover {
    if p == b && c == a {
        return Cover {
            removed: vec![true; p.len()],
            written: vec![true; c.len()],
        };
    }
    let mut out = Cover {
        removed: vec![false; p.len()],
        written: vec![false; c.len()],
    };
    let (p_of_b, c_of_a) = (Pairs::new(b, p), Pairs::new(a, c));
    for region in hunks(b, a) {
        if let Some(span) = nonempty(&region.old).and_then(|r| p_of_b.stands(r, p.len())) {
            out.removed[span].fill(true);
        }
        if let Some(span) = nonempty(&region.new).and_then(|r| c_of_a.stands(r, c.len())) {
            out.written[span].fill(true);
        }
    }
    out
}

fn nonempty(range: &Range<usize>) -> Option<&Range<usize>> {
    (!range.is_empty()).then_some(range)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(p: &str, c: &str, b: &str, a: &str) -> Vec<bool> {
        let (p, c, b, a) = (
            lines(p.as_bytes()),
            lines(c.as_bytes()),
            lines(b.as_bytes()),
            lines(a.as_bytes()),
        );
        let cover = cover(&p, &c, &b, &a);
        hunks(&p, &c).iter().map(|h| cover.covers(h)).collect()
    }

    #[test]
    fn hunks_are_runs_of_changed_lines() {
        let (p, c) = (lines(b"a\nb\nc\nd\n"), lines(b"a\nB\nc\nD\nE\n"));
        assert_eq!(
            hunks(&p, &c),
            vec![
                Hunk {
                    old: 1..2,
                    new: 1..2
                },
                Hunk {
                    old: 3..4,
                    new: 3..5
                }
            ]
        );
    }

    #[test]
    fn the_receipt_alone_covers_everything() {
        assert_eq!(
            covered("a\nb\nc\n", "a\nB\nc\n", "a\nb\nc\n", "a\nB\nc\n"),
            [true]
        );
    }

    #[test]
    fn a_later_hand_edit_elsewhere_is_not_covered() {
        let (p, a) = ("1\n2\n3\n4\n5\n6\n", "1\nTWO\n3\n4\n5\n6\n");
        let c = "1\nTWO\n3\n4\nFIVE\n6\n";
        assert_eq!(covered(p, c, p, a), [true, false]);
    }

    #[test]
    fn an_earlier_hand_edit_elsewhere_is_not_covered() {
        let p = "1\n2\n3\n4\n5\n6\n";
        let (b, c) = ("1\n2\n3\n4\nFIVE\n6\n", "1\nTWO\n3\n4\nFIVE\n6\n");
        assert_eq!(covered(p, c, b, c), [true, false]);
    }

    #[test]
    fn a_hand_change_inside_the_receipts_region_is_not_covered() {
        let p = "1\n2\n3\n";
        // By hand 2 → x, then the receipt x → y: the removal of 2 was not the receipt's.
        assert_eq!(covered(p, "1\ny\n3\n", "1\nx\n3\n", "1\ny\n3\n"), [false]);
        // The receipt wrote two lines, one was changed by hand afterwards.
        assert_eq!(covered(p, "1\nY\nz\n3\n", p, "1\nY\nZ\n3\n"), [false]);
    }

    #[test]
    fn a_region_must_stand_between_its_neighbours() {
        // The receipt inserted a blank line after `a`; the commit inserts one after `b`.
        let (p, a) = ("a\nb\nc\n", "a\n\nb\nc\n");
        assert_eq!(covered(p, "a\nb\n\nc\n", p, a), [false]);
        assert_eq!(covered(p, a, p, a), [true]);
    }

    #[test]
    fn a_change_next_to_the_region_does_not_hide_it() {
        // The receipt changed b; c was changed by hand afterwards: the hunk b,c holds a line
        // the receipt wrote and one it did not.
        let (p, a) = ("a\nb\nc\nd\n", "a\nB\nc\nd\n");
        let (pl, cl) = (lines(p.as_bytes()), lines(b"a\nB\nC\nd\n"));
        let got = cover(&pl, &cl, &pl, &lines(a.as_bytes()));
        assert_eq!(got.written, [false, true, false, false]);
        assert_eq!(got.removed, [false, true, false, false]);
        assert_eq!(covered(p, "a\nB\nC\nd\n", p, a), [false]);
    }

    #[test]
    fn deletions_and_whole_files() {
        assert_eq!(
            covered("a\nb\nc\n", "a\nc\n", "a\nb\nc\n", "a\nc\n"),
            [true]
        );
        assert_eq!(covered("", "new\nfile\n", "", "new\nfile\n"), [true]);
        assert_eq!(covered("old\n", "", "old\n", ""), [true]);
        // A final newline is a change of its own.
        assert_eq!(covered("a\nb", "a\nb\n", "a\nb", "a\nB\n"), [false]);
    }
}
