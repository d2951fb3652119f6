//! Resolved edits: byte-range replacements on one file's content, and the pure functions that
//! order, check and apply them. Every front-end's edit becomes splices before anything is written.

use std::ops::Range;

/// Replace `range` of the original bytes with `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Splice {
    pub range: Range<usize>,
    pub text: String,
    /// Index of the plan operation this splice belongs to (for reports and conflicts).
    pub op: usize,
}

/// Two splices that touch the same bytes, by their operation indices.
#[derive(Debug, PartialEq, Eq)]
pub struct Overlap {
    pub first: usize,
    pub second: usize,
}

/// Sorts splices by position (ties by operation, so the pair reported does not depend on the
/// order the splices arrive in) and refuses overlaps. Two splices overlap when their ranges share
/// a byte, or when both are insertions (empty ranges) at the same point; adjacent ranges do not.
pub fn order(splices: &mut [Splice]) -> Result<(), Overlap> {
    splices.sort_by_key(|s| (s.range.start, s.range.end, s.op));
    for pair in splices.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let shares_bytes = b.range.start < a.range.end;
        let same_insert_point =
            a.range.is_empty() && b.range.is_empty() && a.range.start == b.range.start;
        if shares_bytes || same_insert_point {
            return Err(Overlap {
                first: a.op.min(b.op),
                second: a.op.max(b.op),
            });
        }
    }
    Ok(())
}

/// The stricter rule of identedit's edit requests, on splices already [`order`]ed: an
/// insertion may not sit at the start or end of a rewrite (a non-empty range), because which
/// side of the rewritten text it lands on would depend on the order of the operations.
pub fn touching(splices: &[Splice]) -> Result<(), Overlap> {
    for (i, insert) in splices.iter().enumerate() {
        if !insert.range.is_empty() {
            continue;
        }
        let at = insert.range.start;
        let neighbours = splices[i.saturating_sub(2)..splices.len().min(i + 3)].iter();
        if let Some(rewrite) = neighbours
            .filter(|s| !s.range.is_empty() && s.op != insert.op)
            .find(|s| s.range.start == at || s.range.end == at)
        {
            return Err(Overlap {
                first: insert.op.min(rewrite.op),
                second: insert.op.max(rewrite.op),
            });
        }
    }
    Ok(())
}

/// The same rule for insertions beside a structure or lines, by the boundary they are tied to
/// (`anchors`: operation, boundary) rather than by where the inserted text lands (after the
/// line break when the structure has its own lines): a rewrite by another operation that
/// reaches the boundary (replace, delete or regex of that structure, or the source half of a
/// move whose destination is one of its own lines) conflicts with it. Reported for the first boundary in the file, so not by input order.
pub fn anchored(splices: &[Splice], anchors: &[(usize, usize)]) -> Result<(), Overlap> {
    let mut anchors = anchors.to_vec();
    anchors.sort_by_key(|&(op, at)| (at, op));
    for (op, at) in anchors {
        if let Some(rewrite) = splices
            .iter()
            .filter(|s| !s.range.is_empty() && s.op != op)
            .find(|s| s.range.start <= at && at <= s.range.end)
        {
            return Err(Overlap {
                first: op.min(rewrite.op),
                second: op.max(rewrite.op),
            });
        }
    }
    Ok(())
}

/// Applies ordered, non-overlapping splices to `original`.
pub fn apply(original: &[u8], splices: &[Splice]) -> Vec<u8> {
    let grown: usize = splices.iter().map(|s| s.text.len()).sum();
    let mut out = crate::alloc::buffer(original.len() + grown);
    let mut cursor = 0;
    for splice in splices {
        out.extend_from_slice(&original[cursor..splice.range.start]);
        out.extend_from_slice(splice.text.as_bytes());
        cursor = splice.range.end;
    }
    out.extend_from_slice(&original[cursor..]);
    out
}

/// Where each splice's text landed in the output of [`apply`].
pub fn output_ranges(splices: &[Splice]) -> Vec<Range<usize>> {
    let mut shift: isize = 0;
    splices
        .iter()
        .map(|s| {
            let start = s.range.start.saturating_add_signed(shift);
            shift += s.text.len() as isize - s.range.len() as isize;
            start..start + s.text.len()
        })
        .collect()
}

/// The splices that turn the output of [`apply`] back into `original`.
pub fn invert(original: &[u8], splices: &[Splice]) -> Vec<Splice> {
    let mut out: Vec<Splice> = Vec::with_capacity(splices.len());
    for (s, range) in splices.iter().zip(output_ranges(splices)) {
        let old = String::from_utf8_lossy(&original[s.range.clone()]);
        match out.last_mut() {
            // Adjacent splices land next to each other: undo them as one, so that two
            // deletions side by side do not become two insertions at one point.
            Some(prev) if prev.range.end == range.start => {
                prev.range.end = range.end;
                prev.text.push_str(&old);
            }
            _ => out.push(Splice {
                range,
                text: old.into_owned(),
                op: s.op,
            }),
        }
    }
    out
}

/// How many leading bytes `a` and `b` share (compared a page at a time).
pub fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const PAGE: usize = 4096;
    let pages = a.chunks(PAGE).zip(b.chunks(PAGE));
    let same = (pages.take_while(|(x, y)| x == y).count() * PAGE).min(a.len().min(b.len()));
    same + a[same..]
        .iter()
        .zip(&b[same..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many trailing bytes `a` and `b` share (compared a page at a time from the end).
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const PAGE: usize = 4096;
    let pages = a.rchunks(PAGE).zip(b.rchunks(PAGE));
    let same = (pages.take_while(|(x, y)| x == y).count() * PAGE).min(a.len().min(b.len()));
    let (a, b) = (&a[..a.len() - same], &b[..b.len() - same]);
    let tail = a.iter().rev().zip(b.iter().rev());
    same + tail.take_while(|(x, y)| x == y).count()
}

/// The one range of `before` that `after` replaces, and where its text lands in `after`: the
/// bytes between their common prefix and common suffix (a whole-content rewrite, an undo's
/// restore, described by what it changes). Both ends fall on UTF-8 character boundaries.
pub fn changed(before: &[u8], after: &[u8]) -> (Range<usize>, Range<usize>) {
    let inside_char = |bytes: &[u8], at: usize| bytes.get(at).is_some_and(|b| b & 0xC0 == 0x80);
    let mut prefix = common_prefix(before, after);
    while prefix > 0 && (inside_char(before, prefix) || inside_char(after, prefix)) {
        prefix -= 1;
    }
    let room = before.len().min(after.len()) - prefix;
    let mut suffix = common_suffix(&before[prefix..], &after[prefix..]).min(room);
    let ends = |suffix: usize| (before.len() - suffix, after.len() - suffix);
    while suffix > 0 && {
        let (b, a) = ends(suffix);
        inside_char(before, b) || inside_char(after, a)
    } {
        suffix -= 1;
    }
    let (b, a) = ends(suffix);
    (prefix..b, prefix..a)
}

/// What each splice (in order) really changes: its range of `original` and where its text
/// lands in the output, narrowed to the bytes that differ. A splice that writes context
/// back as it was (a diff hunk's unchanged lines) changes only what lies between; one that
/// changes nothing is left out. The gate, the API guard and the receipt work on these.
pub fn changed_ranges(original: &[u8], splices: &[Splice]) -> Vec<(Range<usize>, Range<usize>)> {
    splices
        .iter()
        .zip(output_ranges(splices))
        .filter_map(|(s, out)| {
            let (old, new) = changed(&original[s.range.clone()], s.text.as_bytes());
            let at = (s.range.start, out.start);
            let moved = (
                old.start + at.0..old.end + at.0,
                new.start + at.1..new.end + at.1,
            );
            (!old.is_empty() || !new.is_empty()).then_some(moved)
        })
        .collect()
}

/// Whether `after`, made from `before` by splices whose changed ranges are `ranges` (see
/// [`changed_ranges`]), holds the same bytes. Before the first range and after the last one
/// both are the same by construction, so only the stretch between them is compared (edits
/// that cancel out there leave the bytes unchanged too).
pub fn same_bytes(before: &[u8], after: &[u8], ranges: &[(Range<usize>, Range<usize>)]) -> bool {
    let (Some(first), Some(last)) = (ranges.first(), ranges.last()) else {
        return true;
    };
    let stretch = first.0.start..last.0.end;
    before.len() == after.len() && before[stretch.clone()] == after[stretch]
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn splice(range: Range<usize>, text: &str, op: usize) -> Splice {
        Splice {
            range,
            text: text.into(),
            op,
        }
    }

    #[test]
    fn refuses_shared_bytes_and_double_inserts_but_not_neighbours() {
        let mut ok = vec![
            splice(3..5, "x", 1),
            splice(0..3, "y", 0),
            splice(5..5, "z", 2),
        ];
        assert_eq!(order(&mut ok), Ok(()));
        assert_eq!(apply(b"abcdefg", &ok), b"yxzfg");
        let mut bad = vec![splice(0..3, "y", 0), splice(2..4, "x", 1)];
        assert_eq!(
            order(&mut bad),
            Err(Overlap {
                first: 0,
                second: 1
            })
        );
        let mut inserts = vec![splice(2..2, "a", 4), splice(2..2, "b", 1)];
        assert_eq!(
            order(&mut inserts),
            Err(Overlap {
                first: 1,
                second: 4
            })
        );
    }

    #[test]
    fn strict_rule_refuses_an_insert_at_a_rewrite_edge() {
        let mut edge = vec![splice(3..5, "x", 0), splice(5..5, "z", 1)];
        assert_eq!(order(&mut edge), Ok(()));
        let refused = Err(Overlap {
            first: 0,
            second: 1,
        });
        assert_eq!(touching(&edge), refused);
        let mut start = vec![splice(3..3, "z", 1), splice(3..5, "x", 0)];
        assert_eq!(order(&mut start), Ok(()));
        assert_eq!(touching(&start), refused);
        let mut apart = vec![splice(2..2, "z", 1), splice(3..5, "x", 0)];
        assert_eq!(order(&mut apart), Ok(()));
        assert_eq!(touching(&apart), Ok(()));
    }

    #[test]
    fn an_insert_beside_a_rewritten_structure_conflicts() {
        // `insert_after` of a structure on its own lines lands after the line break (26), but
        // is tied to the structure's end (25), which a replace of 0..25 reaches.
        let splices = vec![splice(0..25, "x", 0), splice(26..26, "# c\n", 1)];
        assert_eq!(touching(&splices), Ok(()));
        let refused = Err(Overlap {
            first: 0,
            second: 1,
        });
        assert_eq!(anchored(&splices, &[(1, 25)]), refused);
        assert_eq!(anchored(&splices, &[(1, 0)]), refused);
        assert_eq!(anchored(&splices, &[(1, 26)]), Ok(()));
        assert_eq!(anchored(&splices, &[(0, 25)]), Ok(()), "its own rewrite");
    }

    fn edits_strategy() -> impl Strategy<Value = (String, Vec<Splice>)> {
        (
            "[a-c\\r\\n\u{e9}]{0,40}",
            prop::collection::vec((0usize..48, 0usize..6, "[x-z\\n]{0,5}"), 0..6),
        )
            .prop_map(|(text, raw)| {
                let mut splices: Vec<Splice> = Vec::new();
                let mut taken = vec![false; text.len() + 1];
                for (i, (start, len, new)) in raw.into_iter().enumerate() {
                    let start = start.min(text.len());
                    let end = (start + len).min(text.len());
                    let on_boundaries = text.is_char_boundary(start) && text.is_char_boundary(end);
                    if !on_boundaries || end == start || taken[start..end].iter().any(|t| *t) {
                        continue;
                    }
                    taken[start..end].iter_mut().for_each(|t| *t = true);
                    splices.push(splice(start..end, &new, i));
                }
                (text, splices)
            })
    }

    #[test]
    fn identical_versions_share_every_byte() {
        let text = vec![7u8; 5000];
        assert_eq!(common_prefix(&text, &text), 5000);
        assert_eq!(changed(&text, &text), (5000..5000, 5000..5000));
        assert_eq!(changed(b"abcabc", b"abc"), (3..6, 3..3));
    }

    #[test]
    fn changed_ranges_leave_out_the_context_a_splice_writes_back() {
        let original = "a\nb\nc\nd\n";
        let splices = [splice(0..4, "a\nb\n", 0), splice(4..8, "c\nX\nd\n", 1)];
        // The first writes back what was there; the second inserts one line after `c`.
        assert_eq!(
            changed_ranges(original.as_bytes(), &splices),
            [(6..6, 6..8)]
        );
        // Ends fall between characters: `é` and `è` share their first byte.
        let (old, new) = changed("é".as_bytes(), "è".as_bytes());
        assert_eq!((old, new), (0..2, 0..2));
    }

    proptest! {
        /// Which conflict is reported depends on positions, never on the order the
        /// operations were given in.
        #[test]
        fn conflicts_do_not_depend_on_operation_order(
            raw in prop::collection::vec((0usize..12, 0usize..3), 1..6),
            seed in any::<u64>(),
        ) {
            let splices: Vec<Splice> = raw
                .iter()
                .enumerate()
                .map(|(i, &(start, len))| splice(start..start + len, "x", i))
                .collect();
            let verdict = |mut list: Vec<Splice>| order(&mut list).and_then(|()| touching(&list));
            let mut shuffled = splices.clone();
            let n = shuffled.len();
            for i in 0..n {
                let j = (seed.wrapping_mul(i as u64 + 7) % n as u64) as usize;
                shuffled.swap(i, j);
            }
            let mut reversed = splices.clone();
            reversed.reverse();
            prop_assert_eq!(verdict(splices.clone()), verdict(shuffled));
            prop_assert_eq!(verdict(splices), verdict(reversed));
        }

        /// `same_bytes` says whether the splices' result equals the input, also when edits
        /// cancel each other out.
        #[test]
        fn same_bytes_is_comparing_the_whole_result(
            text in "[ab]{0,12}",
            raw in prop::collection::vec((0usize..14, 0usize..3, "[ab]{0,3}"), 0..4),
        ) {
            let mut splices: Vec<Splice> = Vec::new();
            let mut at = 0;
            for (i, (skip, len, new)) in raw.into_iter().enumerate() {
                let start = (at + skip % 4).min(text.len());
                let end = (start + len).min(text.len());
                splices.push(splice(start..end, &new, i));
                at = end;
            }
            prop_assume!(order(&mut splices).is_ok());
            let after = apply(text.as_bytes(), &splices);
            let ranges = changed_ranges(text.as_bytes(), &splices);
            prop_assert_eq!(same_bytes(text.as_bytes(), &after, &ranges), after == text.as_bytes());
        }

        #[test]
        fn applying_then_inverting_reproduces_the_input((text, mut splices) in edits_strategy()) {
            prop_assert!(order(&mut splices).is_ok());
            let edited = apply(text.as_bytes(), &splices);
            for (s, range) in splices.iter().zip(output_ranges(&splices)) {
                prop_assert_eq!(&edited[range], s.text.as_bytes());
            }
            let mut back = invert(text.as_bytes(), &splices);
            prop_assert!(order(&mut back).is_ok());
            prop_assert_eq!(apply(&edited, &back), text.as_bytes());
        }

        /// The changed range is the smallest one outside of which both versions agree.
        #[test]
        fn the_changed_range_rebuilds_the_new_version(
            before in proptest::collection::vec(0u8..3, 0..9000),
            cut in 0usize..9000, len in 0usize..50,
            text in proptest::collection::vec(0u8..3, 0..50),
        ) {
            let start = cut.min(before.len());
            let end = (start + len).min(before.len());
            let after = [&before[..start], &text[..], &before[end..]].concat();
            let (old, new) = changed(&before, &after);
            prop_assert_eq!(&before[..old.start], &after[..new.start]);
            prop_assert_eq!(&before[old.end..], &after[new.end..]);
            prop_assert!(old.len() <= end - start);
            let rebuilt = [&before[..old.start], &after[new.clone()], &before[old.end..]].concat();
            prop_assert_eq!(rebuilt, after);
        }
    }
}
