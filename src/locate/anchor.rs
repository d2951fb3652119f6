//! Line targets: `LINE:HASH` anchors checked against the current text, and the splices of
//! line operations. Each line keeps its own terminator; new lines take the terminator of the
//! line they are written beside, so a CRLF, LF or lone-CR file stays as it is.

use serde_json::json;

use crate::error::{Code, Error, Result};
use crate::lang::hash::line_hash;
use crate::locate::lines::{Line, dominant_terminator, split};
use crate::plan::splice::Splice;
use crate::plan::{LineAnchor, NodeOp};

/// A line target resolved to the lines it covers (0-based, inclusive).
pub struct Resolved {
    pub splices: Vec<Splice>,
    pub matched_by: &'static str,
    /// `(from, to)` when a stale anchor was remapped with `--auto-repair`.
    pub repaired: Vec<(usize, usize)>,
    /// For insertions and move destinations: the boundary of the lines they are tied to (the
    /// first line's start, or the last line's end before its line break), for conflicts.
    pub anchor: Option<usize>,
}

fn hash_at(text: &str, lines: &[Line], line: usize) -> Option<String> {
    let l = lines.get(line.checked_sub(1)?)?;
    Some(line_hash(&text.as_bytes()[l.start..l.content_end]))
}

/// Checks one anchor: its line, or (with `repair`) the single other line with its hash.
fn check(
    text: &str,
    lines: &[Line],
    anchor: &LineAnchor,
    repair: bool,
    path: &str,
) -> Result<(usize, Option<(usize, usize)>)> {
    let actual = hash_at(text, lines, anchor.line);
    if actual.as_deref() == Some(anchor.hash.as_str()) {
        return Ok((anchor.line - 1, None));
    }
    let remaps: Vec<usize> = (1..=lines.len())
        .filter(|&n| hash_at(text, lines, n).as_deref() == Some(anchor.hash.as_str()))
        .collect();
    if repair && remaps.len() == 1 {
        return Ok((remaps[0] - 1, Some((anchor.line, remaps[0]))));
    }
    let mismatch = json!({"anchor": anchor.display(), "line": anchor.line, "expected_hash": anchor.hash,
                          "actual_hash": actual, "remap_candidates": remaps});
    Err(Error::new(Code::PreconditionFailed, format!("line anchor {} is stale in {path}", anchor.display()))
        .detail("path", path)
        .detail("expected", json!({"line": anchor.line, "hash": anchor.hash}))
        .detail("actual", json!({"line": anchor.line, "hash": actual}))
        .detail("remaps", remaps.iter().map(|to| json!({"from": anchor.line, "to": to})).collect::<Vec<_>>())
        .detail("line_check", json!({"ok": false, "mismatches": [mismatch],
            "summary": {"total": 1, "matched": 0, "mismatched": 1,
                        "remappable": usize::from(remaps.len() == 1), "ambiguous": usize::from(remaps.len() > 1)}}))
        .hint(match remaps.len() {
            1 => "The line moved: re-read with `read --mode line`, or retry once with --auto-repair.",
            _ => "Re-read the file with `read --mode line` and use fresh anchors.",
        }))
}

/// Payload lines: one trailing terminator is dropped; `\n`, `\r\n` and `\r` separate lines.
fn payload_lines(payload: &str) -> Vec<&str> {
    let trimmed = payload
        .strip_suffix("\r\n")
        .or_else(|| payload.strip_suffix('\n'))
        .or_else(|| payload.strip_suffix('\r'))
        .unwrap_or(payload);
    split(trimmed)
        .iter()
        .map(|l| &trimmed[l.start..l.content_end])
        .collect::<Vec<_>>()
        .into_iter()
        .chain(trimmed.is_empty().then_some(""))
        .collect()
}

/// Resolves a line target and builds its splice.
pub fn resolve(
    text: &str,
    start: &LineAnchor,
    end: Option<&LineAnchor>,
    op: &NodeOp,
    repair: bool,
    path: &str,
    index: usize,
) -> Result<Resolved> {
    let lines = split(text);
    let (first, last, repaired) = covered(text, &lines, start, end, repair, path)?;
    let span = Span::new(text, lines, first, last);
    // An empty replacement of a range leaves no line behind: the lines are deleted (one line
    // replaced by nothing stays, empty).
    let op = match op {
        NodeOp::Replace(payload) if payload.is_empty() && end.is_some() => &NodeOp::Delete,
        other => other,
    };
    let (range, new) = span.splice(op)?;
    let matched_by = if repaired.is_empty() {
        "line_anchor"
    } else {
        "line_anchor_repaired"
    };
    Ok(Resolved {
        splices: vec![Splice {
            range,
            text: new,
            op: index,
        }],
        matched_by,
        repaired,
        anchor: span.tie(op),
    })
}

/// Anchors remapped by `--auto-repair`: `(from, to)` line numbers.
type Remaps = Vec<(usize, usize)>;

/// The lines from `start` to `end` (0-based, inclusive), each anchor checked, and the
/// anchors `repair` remapped (`(from, to)`).
fn covered(
    text: &str,
    lines: &[Line],
    start: &LineAnchor,
    end: Option<&LineAnchor>,
    repair: bool,
    path: &str,
) -> Result<(usize, usize, Remaps)> {
    let (first, fixed_start) = check(text, lines, start, repair, path)?;
    let (last, fixed_end) = match end {
        Some(anchor) => check(text, lines, anchor, repair, path)?,
        None => (first, None),
    };
    if last < first {
        return Err(Error::new(
            Code::PlanMalformed,
            format!(
                "the end anchor (line {}) is before the start (line {})",
                last + 1,
                first + 1
            ),
        ));
    }
    Ok((
        first,
        last,
        fixed_start.into_iter().chain(fixed_end).collect(),
    ))
}

/// The lines a target covers, and the terminator new lines take (the first line's, or the
/// file's dominant one when it has none).
struct Span<'t> {
    text: &'t str,
    lines: Vec<Line>,
    first: usize,
    last: usize,
    own: &'t str,
}

impl<'t> Span<'t> {
    fn new(text: &'t str, mut lines: Vec<Line>, first: usize, last: usize) -> Self {
        // A byte order mark belongs to the file, not to line 1: edits of line 1 start after it.
        if let Some(first_line) = lines.first_mut().filter(|_| text.starts_with('\u{feff}')) {
            first_line.start = 3;
        }
        let own = match &text[lines[first].content_end..lines[first].end] {
            "" => dominant_terminator(text),
            term => term,
        };
        Self {
            text,
            lines,
            first,
            last,
            own,
        }
    }

    fn term(&self, i: usize) -> &'t str {
        &self.text[self.lines[i].content_end..self.lines[i].end]
    }

    fn join(&self, payload: &str) -> String {
        payload_lines(payload).join(self.own)
    }

    /// The range `op` replaces and its new text.
    fn splice(&self, op: &NodeOp) -> Result<(std::ops::Range<usize>, String)> {
        let (first, last, own) = (&self.lines[self.first], &self.lines[self.last], self.own);
        let last_term = self.term(self.last);
        Ok(match op {
            NodeOp::Replace(payload) => (first.start..last.end, self.join(payload) + last_term),
            NodeOp::Delete if last_term.is_empty() && self.first > 0 => (
                self.lines[self.first - 1].content_end..last.end,
                String::new(),
            ),
            NodeOp::Delete => (first.start..last.end, String::new()),
            NodeOp::InsertBefore(payload) => (first.start..first.start, self.join(payload) + own),
            NodeOp::InsertAfter(payload) if last_term.is_empty() => {
                (last.end..last.end, format!("{own}{}", self.join(payload)))
            }
            NodeOp::InsertAfter(payload) => (last.end..last.end, self.join(payload) + own),
            NodeOp::MoveIn(m) => {
                let point = if m.after { last.end } else { first.start };
                (point..point, crate::locate::node::moved_text(m)?)
            }
            other => {
                return Err(Error::new(
                    Code::PlanMalformed,
                    format!("`{}` does not apply to lines", other.name()),
                ));
            }
        })
    }

    /// For insertions and move destinations: the boundary of the lines they are tied to.
    fn tie(&self, op: &NodeOp) -> Option<usize> {
        let (first, last) = (&self.lines[self.first], &self.lines[self.last]);
        match op {
            NodeOp::InsertBefore(_) => Some(first.start),
            NodeOp::MoveIn(m) if !m.after => Some(first.start),
            NodeOp::InsertAfter(_) | NodeOp::MoveIn(_) => Some(last.content_end),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor(text: &str, line: usize) -> LineAnchor {
        let l = split(text)[line - 1];
        LineAnchor {
            line,
            hash: line_hash(&text.as_bytes()[l.start..l.content_end]),
        }
    }

    fn run(text: &str, line: usize, end: Option<usize>, op: NodeOp) -> String {
        let start = anchor(text, line);
        let end = end.map(|e| anchor(text, e));
        let r = resolve(text, &start, end.as_ref(), &op, false, "f", 0).expect("resolves");
        String::from_utf8(crate::plan::splice::apply(text.as_bytes(), &r.splices)).expect("utf8")
    }

    #[test]
    fn line_operations_keep_each_terminator() {
        assert_eq!(
            run("a\r\nb\r\nc\r\n", 2, None, NodeOp::Replace("x\ny\n".into())),
            "a\r\nx\r\ny\r\nc\r\n"
        );
        assert_eq!(
            run("a\nb\nc", 3, None, NodeOp::Replace("z".into())),
            "a\nb\nz"
        );
        assert_eq!(run("a\nb\nc", 3, None, NodeOp::Delete), "a\nb");
        assert_eq!(run("a\nb\nc\n", 1, Some(2), NodeOp::Delete), "c\n");
        assert_eq!(
            run("a\rb\r", 1, None, NodeOp::InsertAfter("n".into())),
            "a\rn\rb\r"
        );
        assert_eq!(
            run("a\nb", 2, None, NodeOp::InsertAfter("n".into())),
            "a\nb\nn"
        );
        assert_eq!(
            run(
                "\u{feff}a\nb\n",
                1,
                None,
                NodeOp::InsertBefore("top".into())
            ),
            "\u{feff}top\na\nb\n"
        );
        let bom = "\u{feff}a\nb\n";
        assert_eq!(
            run(bom, 1, None, NodeOp::Replace("x".into())),
            "\u{feff}x\nb\n"
        );
        assert_eq!(run(bom, 1, None, NodeOp::Delete), "\u{feff}b\n");
        assert_eq!(run("\u{feff}a", 1, None, NodeOp::Delete), "\u{feff}");
    }

    #[test]
    fn stale_anchor_offers_a_remap_and_repairs_once() {
        let text = "x\na\nb\n";
        let stale = LineAnchor {
            line: 1,
            hash: line_hash(b"a"),
        };
        let err = resolve(text, &stale, None, &NodeOp::Delete, false, "f", 0)
            .err()
            .expect("stale");
        assert_eq!(err.code, Code::PreconditionFailed);
        assert_eq!(err.details["remaps"][0]["to"], 2);
        let fixed = resolve(text, &stale, None, &NodeOp::Delete, true, "f", 0).expect("repaired");
        assert_eq!(fixed.repaired, vec![(1, 2)]);
    }
}
