//! Unified diffs of validated changes, built from the replaced byte ranges (no diff algorithm
//! runs over the whole file, so a one-line change in a 10 MB file costs a few lines of work).
//!
//! Real bytes: a `\r\n` file shows `\r\n` lines; three lines of context; `a/` and `b/` paths
//! relative to the repository root; `diff --git` headers so `git apply` accepts the output.

use std::fmt::Write as _;
use std::ops::Range;

use crate::change::{Action, FileChange};
use crate::locate::lines::SpliceLines;

const CONTEXT: usize = 3;

/// The diff of one file ("" when it does not change).
pub fn file_diff(change: &FileChange) -> String {
    let old = change.before_bytes();
    let after = change.after_bytes();
    let mut out = String::new();
    write_file_diff(&mut out, change, &old, after.as_deref().unwrap_or_default());
    out
}

/// Appends the diff of one file to `out`, given its images (`old` and `new`, empty for a
/// side that does not exist).
pub fn write_file_diff(out: &mut String, change: &FileChange, old: &[u8], new: &[u8]) {
    if change.action == Action::Unchanged {
        return;
    }
    let path = &change.path.rel;
    let mode = change
        .before
        .as_ref()
        .map_or("100644", |s| mode_of(&s.permissions));
    let _ = writeln!(out, "diff --git a/{path} b/{path}");
    let regions = match change.action {
        Action::Created => {
            let _ = write!(out, "new file mode 100644\n--- /dev/null\n+++ b/{path}\n");
            vec![(0..0, 0..new.len())]
        }
        Action::Deleted => {
            let _ = write!(
                out,
                "deleted file mode {mode}\n--- a/{path}\n+++ /dev/null\n"
            );
            vec![(0..old.len(), 0..0)]
        }
        Action::Modified | Action::Unchanged => {
            let _ = write!(out, "--- a/{path}\n+++ b/{path}\n");
            merge(
                same_line(old, &change.ranges)
                    .into_iter()
                    .map(|(o, n)| widen(old, new, o, n))
                    .collect(),
            )
        }
    };
    hunks(out, old, new, &regions);
}

/// The diff between two stored images (`None`: the file did not exist on that side), as one
/// region from the first to the last differing byte.
pub fn unified(old_path: &str, new_path: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> String {
    let (old_bytes, new_bytes) = (old.unwrap_or_default(), new.unwrap_or_default());
    if old == new {
        return String::new();
    }
    let mut out = format!("diff --git a/{old_path} b/{new_path}\n");
    // As git does: a NUL byte in the first 8000 bytes makes an image binary.
    let binary = |bytes: &[u8]| bytes[..bytes.len().min(8000)].contains(&0);
    if binary(old_bytes) || binary(new_bytes) {
        let from = old.map_or("/dev/null".to_owned(), |_| format!("a/{old_path}"));
        let to = new.map_or("/dev/null".to_owned(), |_| format!("b/{new_path}"));
        let _ = writeln!(out, "Binary files {from} and {to} differ");
        return out;
    }
    match (old, new) {
        (None, _) => {
            let _ = write!(
                out,
                "new file mode 100644\n--- /dev/null\n+++ b/{new_path}\n"
            );
        }
        (_, None) => {
            let _ = write!(
                out,
                "deleted file mode 100644\n--- a/{old_path}\n+++ /dev/null\n"
            );
        }
        _ => {
            if old_path != new_path {
                let _ = write!(out, "rename from {old_path}\nrename to {new_path}\n");
            }
            let _ = write!(out, "--- a/{old_path}\n+++ b/{new_path}\n");
        }
    }
    let prefix = old_bytes
        .iter()
        .zip(new_bytes)
        .take_while(|(a, b)| a == b)
        .count();
    let room = old_bytes.len().min(new_bytes.len()) - prefix;
    let suffix = old_bytes
        .iter()
        .rev()
        .zip(new_bytes.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let region = if old.is_none() || new.is_none() {
        (0..old_bytes.len(), 0..new_bytes.len())
    } else {
        widen(
            old_bytes,
            new_bytes,
            prefix..old_bytes.len() - suffix,
            prefix..new_bytes.len() - suffix,
        )
    };
    hunks(&mut out, old_bytes, new_bytes, &[region]);
    out
}

fn mode_of(permissions: &std::fs::Permissions) -> &'static str {
    use std::os::unix::fs::PermissionsExt;
    if permissions.mode() & 0o111 != 0 {
        "100755"
    } else {
        "100644"
    }
}

/// Extends a replaced range to whole lines in both texts (the bytes around it are shared).
fn widen(old: &[u8], new: &[u8], o: Range<usize>, n: Range<usize>) -> (Range<usize>, Range<usize>) {
    let back = old[..o.start]
        .iter()
        .rev()
        .take_while(|&&b| b != b'\n')
        .count();
    let (mut oe, mut ne) = (o.end, n.end);
    let at_boundary =
        |text: &[u8], end: usize| end == text.len() || (end > 0 && text[end - 1] == b'\n');
    let empty_region = o.start - back == oe && n.start - back == ne;
    while !(empty_region || at_boundary(old, oe) && at_boundary(new, ne)) {
        let step = old[oe..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(old.len() - oe, |p| p + 1);
        oe += step;
        ne += step;
    }
    (o.start - back..oe, n.start - back..ne)
}

/// Joins replaced ranges that share a line of the old text (widening one alone would walk
/// over the other as if its bytes were unchanged). The bytes between two ranges are the same
/// on both sides, so the joined range covers both in each text.
fn same_line(
    old: &[u8],
    ranges: &[(Range<usize>, Range<usize>)],
) -> Vec<(Range<usize>, Range<usize>)> {
    let mut sorted = ranges.to_vec();
    sorted.sort_by_key(|r| r.0.start);
    let mut out: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    for (o, n) in sorted {
        match out.last_mut() {
            Some(last) if o.start >= last.0.end && !old[last.0.end..o.start].contains(&b'\n') => {
                last.0.end = o.end;
                last.1.end = n.end;
            }
            _ => out.push((o, n)),
        }
    }
    out
}

/// Joins regions that touch or share lines.
fn merge(mut regions: Vec<(Range<usize>, Range<usize>)>) -> Vec<(Range<usize>, Range<usize>)> {
    regions.sort_by_key(|r| r.0.start);
    let mut out: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    for (o, n) in regions {
        match out.last_mut() {
            Some(last) if o.start <= last.0.end => {
                last.0.end = last.0.end.max(o.end);
                last.1.end = last.1.end.max(n.end);
            }
            _ => out.push((o, n)),
        }
    }
    out
}

/// One changed block: its first line numbers and its lines (each with its terminator).
struct Block<'a> {
    old_line: usize,
    new_line: usize,
    removed: Vec<&'a [u8]>,
    added: Vec<&'a [u8]>,
    before: Vec<&'a [u8]>,
    after: Vec<&'a [u8]>,
}

fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

fn hunks(out: &mut String, old: &[u8], new: &[u8], regions: &[(Range<usize>, Range<usize>)]) {
    // Regions ascend and the bytes between them are the same in both versions.
    let mut numbers = SpliceLines::new(old, new);
    let mut blocks = Vec::new();
    for (o, n) in regions {
        let span = numbers.span(o, n);
        let (mut removed, mut added) = (lines(&old[o.clone()]), lines(&new[n.clone()]));
        let same_head = removed
            .iter()
            .zip(&added)
            .take_while(|(a, b)| a == b)
            .count();
        removed.drain(..same_head);
        added.drain(..same_head);
        let same_tail = removed
            .iter()
            .rev()
            .zip(added.iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        removed.truncate(removed.len() - same_tail);
        added.truncate(added.len() - same_tail);
        if removed.is_empty() && added.is_empty() {
            continue;
        }
        let old_line = span.old_start + same_head;
        let new_line = span.new_start + same_head;
        // Context is read around the region only (never the whole file's lines).
        let line_iter = |bytes| <[u8]>::split_inclusive(bytes, |&b| b == b'\n');
        let head = line_iter(&old[o.clone()]).take(same_head);
        let tail: Vec<&[u8]> = line_iter(&old[o.clone()]).rev().take(same_tail).collect();
        let mut before: Vec<&[u8]> = line_iter(&old[..o.start]).rev().take(CONTEXT).collect();
        before.reverse();
        before.extend(head);
        let before = before.split_off(before.len().saturating_sub(CONTEXT));
        let mut after: Vec<&[u8]> = tail.into_iter().rev().collect();
        after.extend(line_iter(&old[o.end..]).take(CONTEXT));
        after.truncate(CONTEXT);
        blocks.push(Block {
            old_line,
            new_line,
            removed,
            added,
            before,
            after,
        });
    }
    for group in group_blocks(&blocks) {
        write_hunk(out, group);
    }
}

/// Blocks whose context would touch are printed as one hunk.
fn group_blocks<'b, 'a>(blocks: &'b [Block<'a>]) -> Vec<&'b [Block<'a>]> {
    let mut groups = Vec::new();
    let mut start = 0;
    for i in 1..=blocks.len() {
        let split = i == blocks.len() || {
            let prev = &blocks[i - 1];
            blocks[i].old_line > prev.old_line + prev.removed.len() + 2 * CONTEXT
        };
        if split {
            groups.push(&blocks[start..i]);
            start = i;
        }
    }
    groups
}

fn range_label(start: usize, count: usize) -> String {
    match count {
        1 => start.to_string(),
        0 => format!("{},0", start.saturating_sub(1)),
        _ => format!("{start},{count}"),
    }
}

fn write_hunk(out: &mut String, group: &[Block<'_>]) {
    let (Some(first), Some(last)) = (group.first(), group.last()) else {
        return;
    };
    let mut body: Vec<(char, &[u8])> = first.before.iter().map(|l| (' ', *l)).collect();
    for (i, block) in group.iter().enumerate() {
        if i > 0 {
            let prev = &group[i - 1];
            let gap = block.old_line - (prev.old_line + prev.removed.len());
            let shared: Vec<&[u8]> = prev
                .after
                .iter()
                .copied()
                .chain(block.before.iter().copied())
                .collect();
            body.extend(
                gap_lines(prev, block, gap, &shared)
                    .into_iter()
                    .map(|l| (' ', l)),
            );
        }
        body.extend(block.removed.iter().map(|l| ('-', *l)));
        body.extend(block.added.iter().map(|l| ('+', *l)));
    }
    body.extend(last.after.iter().map(|l| (' ', *l)));
    let old_count = body.iter().filter(|(c, _)| *c != '+').count();
    let new_count = body.iter().filter(|(c, _)| *c != '-').count();
    let old_start = first.old_line - first.before.len();
    let new_start = first.new_line - first.before.len();
    let old_label = range_label(old_start, old_count);
    let new_label = range_label(new_start, new_count);
    let _ = writeln!(out, "@@ -{old_label} +{new_label} @@");
    for (mark, line) in body {
        out.push(mark);
        out.push_str(&String::from_utf8_lossy(line));
        if !line.ends_with(b"\n") {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

/// The unchanged lines between two blocks of one hunk (at most 2 × context of them).
fn gap_lines<'a>(
    prev: &Block<'a>,
    _next: &Block<'a>,
    gap: usize,
    shared: &[&'a [u8]],
) -> Vec<&'a [u8]> {
    if gap <= prev.after.len() {
        return prev.after[..gap].to_vec();
    }
    let from_next = gap - prev.after.len();
    let mut out = prev.after.clone();
    out.extend(
        shared[shared.len() - from_next.min(shared.len())..]
            .iter()
            .copied(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_replacements_on_one_line_make_one_region() {
        let (old, new) = (b"foo X foo\nz\n".as_slice(), b"Y X Y\nz\n".as_slice());
        let ranges = [(0..3, 0..1), (6..9, 4..5)];
        let regions: Vec<_> = same_line(old, &ranges)
            .into_iter()
            .map(|(o, n)| widen(old, new, o, n))
            .collect();
        assert_eq!(regions, vec![(0..10, 0..6)]);
        let mut out = String::new();
        hunks(&mut out, old, new, &regions);
        assert_eq!(out, "@@ -1,2 +1,2 @@\n-foo X foo\n+Y X Y\n z\n");
    }

    #[test]
    fn context_is_three_lines_each_side_and_unchanged_edges_of_a_region_count_as_context() {
        let old: String = (1..=9).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l5\n", "five\n");
        // The region spans l4..l6, of which only l5 changed.
        let at = old.find("l4").expect("l4");
        let end = old.find("l7").expect("l7");
        let regions = [(at..end, at..end + 2)];
        let mut out = String::new();
        hunks(&mut out, old.as_bytes(), new.as_bytes(), &regions);
        assert_eq!(
            out,
            "@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+five\n l6\n l7\n l8\n"
        );
    }
}
