//! Rebasing a plan onto files that changed between the preflight and the locks (another
//! agent's edit landed in between): every region an operation touches that is still
//! byte-identical, and unique, in the current bytes is resolved again there; a region that
//! changed, or now occurs twice, refuses. Explicit preconditions (`expected_sha256`) are
//! kept as they are and refuse any change.
//!
//! - Exact-text edits and text-dialect blocks re-prove themselves: their matched text and
//!   context must be found, once, in the current bytes.
//! - Structure targets are bound to the node the preflight resolved (its identity, which
//!   covers its bytes, and its content hash), never to a name that now means other text.
//! - Line anchors are bound to the exact bytes of the anchored lines in the file as read,
//!   found again once in the current file.
//! - File boundaries, moves and config paths stay bound to the file's full bytes.

use std::collections::HashMap;

use crate::change::{EditReport, FileChange, LineSpan, Rebased};
use crate::error::{Code, Error, Result};
use crate::locate::lines::split;
use crate::plan::{LineAnchor, NodeOp, OpKind, Plan, Target};
use crate::workspace::Workspace;
use crate::workspace::path::TargetPath;

/// The plan with every operation of a file that changed since the preflight bound to what the
/// preflight resolved in `files`.
pub fn bind(ws: &Workspace, plan: &Plan, files: &[FileChange]) -> Result<Plan> {
    // Each file is compared once, however many operations it has.
    let moved: HashMap<&str, &FileChange> = files
        .iter()
        .filter(|c| {
            !c.before
                .as_ref()
                .is_some_and(|b| super::same_content(&c.path.abs, &b.bytes.get()))
        })
        .map(|c| (c.path.key.as_str(), c))
        .collect();
    let mut plan = plan.clone();
    for (i, op) in plan.ops.iter_mut().enumerate() {
        let Ok(path) = crate::workspace::path::resolve(ws, &op.path) else {
            continue;
        };
        if let Some(change) = moved.get(path.key.as_str()) {
            let report = change.edits.iter().find(|e| e.op == i);
            bind_op(&mut op.kind, change, report, &path)?;
        }
    }
    Ok(plan)
}

/// Binds one operation of a moved file (see the module documentation).
fn bind_op(
    kind: &mut OpKind,
    change: &FileChange,
    report: Option<&EditReport>,
    path: &TargetPath,
) -> Result<()> {
    let digest = change.digest_before();
    match kind {
        OpKind::Targeted {
            target,
            op: action,
            expected: expected @ None,
            repair,
        } => match target {
            Target::Lines { start, end } => {
                rebase_lines(change, report, start, end.as_mut(), path)?;
                *repair = false;
            }
            _ if target.is_structural() && movable(action) => {
                match report.and_then(|r| r.node.as_ref()) {
                    Some(node) => {
                        *target = Target::Node {
                            identity: node.identity.clone(),
                            kind: Some(node.kind.clone()),
                            expected_hash: Some(node.hash.clone()),
                            span_hint: None,
                        }
                    }
                    None => *expected = digest,
                }
            }
            _ => *expected = digest,
        },
        OpKind::Config {
            expected: expected @ None,
            ..
        } => *expected = digest,
        _ => {}
    }
    Ok(())
}

/// Operations on a structure that only depend on the structure's own bytes.
fn movable(action: &NodeOp) -> bool {
    matches!(
        action,
        NodeOp::Replace(_)
            | NodeOp::Delete
            | NodeOp::InsertBefore(_)
            | NodeOp::InsertAfter(_)
            | NodeOp::ScopedRegex { .. }
    )
}

/// Moves a line target's anchors to where the anchored lines' exact bytes now are.
fn rebase_lines(
    change: &FileChange,
    report: Option<&EditReport>,
    start: &mut LineAnchor,
    end: Option<&mut LineAnchor>,
    path: &TargetPath,
) -> Result<()> {
    let Some(before) = &change.before else {
        return Ok(());
    };
    let moved = |line: usize| {
        report
            .and_then(|r| r.repaired.iter().find(|(from, _)| *from == line))
            .map_or(line, |(_, to)| *to)
    };
    let first = moved(start.line);
    let last = end.as_ref().map_or(first, |e| moved(e.line));
    let bytes = before.bytes.get();
    let Ok(old) = std::str::from_utf8(&bytes) else {
        return Ok(());
    };
    let old_lines = split(old);
    let range = first.checked_sub(1).zip(last.max(first).checked_sub(1));
    let Some((Some(a), Some(b))) = range.map(|(a, b)| (old_lines.get(a), old_lines.get(b))) else {
        return Ok(());
    };
    let region = &old[a.start..b.end];
    let now = std::fs::read_to_string(&path.abs).map_err(|e| Error::io("re-reading a file", &e))?;
    let places = occurrences(&now, region);
    match places.as_slice() {
        [line] => {
            start.line = *line;
            if let Some(e) = end {
                e.line = line + (last - first);
            }
            Ok(())
        }
        [] => Err(Error::new(
            Code::EvidenceChanged,
            format!(
                "{}: lines {first}-{last} changed since they were read (another edit landed)",
                path.rel
            ),
        )
        .detail("path", path.rel.as_str())
        .detail("lines", serde_json::json!({"start": first, "end": last}))
        .hint("Re-read the lines with `read --mode line` and use fresh anchors.")),
        many => Err(Error::new(
            Code::AmbiguousTarget,
            format!(
                "{}: lines {first}-{last} as read now occur {} times (lines {}): not rebased",
                path.rel,
                many.len(),
                many.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .detail("path", path.rel.as_str())
        .detail(
            "candidates",
            many.iter()
                .map(|l| serde_json::json!({"line": l}))
                .collect::<Vec<_>>(),
        )
        .hint("Re-read the lines with `read --mode line` and use fresh anchors.")),
    }
}

/// The 1-based lines where `region` (whole lines) starts in `text`; a region ending without a
/// line break must end at a line's end.
fn occurrences(text: &str, region: &str) -> Vec<usize> {
    let open_end = !region.ends_with(['\n', '\r']);
    split(text)
        .iter()
        .enumerate()
        .filter(|(_, l)| text[l.start..].starts_with(region))
        .filter(|(_, l)| {
            let end = l.start + region.len();
            !open_end || matches!(text.as_bytes().get(end), None | Some(b'\n' | b'\r'))
        })
        .map(|(n, _)| n + 1)
        .collect()
}

/// Marks every edit of a file whose bytes changed since the preflight as rebased, with the
/// lines it touched in the file as first read and in the file as it is now.
pub fn mark(proven: &[FileChange], files: &mut [FileChange]) -> Result<()> {
    let first: HashMap<&str, &FileChange> =
        proven.iter().map(|c| (c.path.key.as_str(), c)).collect();
    for change in files {
        let Some(old) = first.get(change.path.key.as_str()) else {
            continue;
        };
        if old.digest_before() == change.digest_before() {
            continue;
        }
        let (was_bytes, now_bytes) = (pre_image(old), pre_image(change));
        for k in 0..change.edits.len() {
            let edit = &change.edits[k];
            let Some(was) = old.edits.iter().find(|e| e.op == edit.op) else {
                continue;
            };
            same_regions((&was_bytes, was), (&now_bytes, edit), &change.path.rel)?;
            if let (Some(from), Some(to)) = (lines(was), lines(edit)) {
                change.edits[k].rebased = Some(Rebased { from, to });
            }
        }
    }
    Ok(())
}

/// A file's pre-image (empty for a created file), unpacked once for all its edits.
fn pre_image(change: &FileChange) -> std::sync::Arc<Vec<u8>> {
    change
        .before
        .as_ref()
        .map(|b| b.bytes.shared())
        .unwrap_or_default()
}

/// The bytes an edit replaces, in the pre-image `bytes` it was resolved on.
fn replaced<'c>(bytes: &'c [u8], edit: &EditReport) -> Vec<&'c [u8]> {
    edit.byte_ranges
        .iter()
        .map(|(old, _)| bytes.get(old.clone()).unwrap_or_default())
        .collect()
}

/// Whatever found an operation again (a name, an anchor, a tolerant match), it replaces only
/// text it replaced when it was proven: a symbol edit whose body another agent changed, or a
/// structure whose comments did, is refused rather than overwritten.
fn same_regions(
    (was_bytes, was): (&[u8], &EditReport),
    (now_bytes, edit): (&[u8], &EditReport),
    path: &str,
) -> Result<()> {
    let (before, after) = (replaced(was_bytes, was), replaced(now_bytes, edit));
    let same = match before.len() == after.len() {
        true => before == after,
        // `all` occurrences: as many as there are now, each the text proven.
        false => after.iter().all(|a| before.contains(a)),
    };
    if same {
        return Ok(());
    }
    Err(Error::new(
        Code::EvidenceChanged,
        format!(
            "{}: the text {} replaces changed since it was read (another edit landed)",
            path, edit.pointer
        ),
    )
    .detail("path", path)
    .detail("pointer", edit.pointer.as_str())
    .hint("Re-read the file and rebuild the edit against its current content."))
}

/// The lines an edit touched in the file it was resolved on: (first, last), 1-based.
fn lines(edit: &EditReport) -> Option<(usize, usize)> {
    let start = edit.spans.iter().map(|s| s.old_start).min()?;
    let end = edit.spans.iter().map(|s| s.old_end).max()?;
    Some((start, end.max(start)))
}

/// A diff hunk found away from the line its header names (the file changed since the diff was
/// made): rebased from the hunk's lines as written to the lines it matched.
pub fn hinted(kind: &OpKind, spans: &[LineSpan]) -> Option<Rebased> {
    use crate::plan::Side;
    let OpKind::Block(block) = kind else {
        return None;
    };
    let hint = block.hint_line?;
    let first = spans.first()?;
    let before = block
        .script
        .iter()
        .take_while(|s| **s == Side::Both)
        .count();
    let old_len = block.script.iter().filter(|s| **s != Side::New).count();
    let start = first.old_start.checked_sub(before)?;
    if block.script.is_empty() || start == hint || old_len == 0 {
        return None;
    }
    Some(Rebased {
        from: (hint, hint + old_len - 1),
        to: (start, start + old_len - 1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Block, Side};

    #[test]
    fn a_region_is_found_only_at_line_starts_and_whole_at_its_end() {
        let text = "xa\nb\na\nb\na\nbc\n";
        assert_eq!(occurrences(text, "a\nb\n"), vec![3]);
        assert_eq!(occurrences(text, "a\nb"), vec![3]);
        assert_eq!(occurrences("a\r\nb\r\na\nb\n", "a\nb\n"), vec![3]);
        assert_eq!(occurrences("q\nq\n", "q\n"), vec![1, 2]);
        assert!(occurrences("abc\n", "ab").is_empty());
    }

    #[test]
    fn a_hunk_is_rebased_only_away_from_its_header_line() {
        let block = |hint| {
            OpKind::Block(Block {
                hint_line: Some(hint),
                script: vec![Side::Both, Side::Old, Side::New, Side::Both],
                ..Block::default()
            })
        };
        let span = |line| LineSpan {
            old_start: line,
            old_end: line,
            new_start: line,
            new_end: line,
        };
        assert_eq!(hinted(&block(2), &[span(3)]), None);
        assert_eq!(
            hinted(&block(2), &[span(5)]),
            Some(Rebased {
                from: (2, 4),
                to: (4, 6)
            })
        );
    }
}
