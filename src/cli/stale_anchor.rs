//! A `LINE:HASH` anchor that went stale because another recorded write landed since it was
//! read is rebased: when the ledger holds the version it was read from (the anchored line with
//! that hash at that line, `receipt::evidence`) and the current file has that line exactly
//! once, the plan is run once more with the anchor moved there, and the move is reported and
//! recorded as `rebased`. Without such evidence a stale anchor keeps its contract
//! (`precondition_failed` with the remap; `--auto-repair` opts in).

use serde_json::{Value, json};

use crate::error::{Code, Error};
use crate::plan::{LineAnchor, OpKind, Plan, Target};
use crate::receipt::evidence;
use crate::workspace::Workspace;
use crate::workspace::path;

/// The plan with its stale anchors on `error`'s file moved, and what moved, when every stale
/// anchor there has the ledger's evidence and one place to go.
pub fn rebase(ws: &Workspace, plan: &Plan, error: &Error) -> Option<(Plan, Vec<Value>)> {
    if error.code != Code::PreconditionFailed || !error.details.contains_key("line_check") {
        return None;
    }
    let rel = error.details.get("path")?.as_str()?.to_owned();
    let key = plan
        .ops
        .iter()
        .find_map(|op| path::resolve(ws, &op.path).ok().filter(|p| p.rel == rel))?
        .key;
    // The write that made the current bytes records its receipt before it lets go of the
    // file's lock: one turn on the lock, and the version it replaced is in the ledger.
    let lock = ws.lock_key(&key);
    let _turn =
        crate::workspace::lock::acquire(&ws.lock_dir(), &[&lock], crate::workspace::lock::timeout)
            .ok()?;
    let now = std::fs::read(ws.root.join(&rel)).ok()?;
    let mut plan = plan.clone();
    let mut moved = Vec::new();
    for op in &mut plan.ops {
        if !path::resolve(ws, &op.path).is_ok_and(|p| p.rel == rel) {
            continue;
        }
        let pointer = op.origin.pointer();
        let OpKind::Targeted {
            target: Target::Lines { start, end },
            repair: repair @ false,
            expected: None,
            ..
        } = &mut op.kind
        else {
            continue;
        };
        let from = (start.line, end.as_ref().map_or(start.line, |e| e.line));
        let new_start = moved_to(ws, &rel, &now, start)?;
        let new_end = match end {
            Some(e) => moved_to(ws, &rel, &now, e)?,
            None => new_start,
        };
        if (new_start, new_end) != from {
            *repair = true;
            moved.push(json!({"pointer": pointer, "path": rel,
                "from": {"start_line": from.0, "end_line": from.1},
                "to": {"start_line": new_start, "end_line": new_end}}));
        }
    }
    (!moved.is_empty()).then_some((plan, moved))
}

/// Where an anchor's line is now: its own line when it still holds, else the one line with its
/// hash, if the ledger shows the anchor was read from an earlier version; `None` refuses.
fn moved_to(ws: &Workspace, rel: &str, now: &[u8], anchor: &LineAnchor) -> Option<usize> {
    if evidence::hash_of_line(now, anchor.line).as_deref() == Some(&*anchor.hash) {
        return Some(anchor.line);
    }
    let count = std::str::from_utf8(now).ok()?.lines().count() + 1;
    let places: Vec<usize> = (1..=count)
        .filter(|&n| evidence::hash_of_line(now, n).as_deref() == Some(&*anchor.hash))
        .collect();
    match places.as_slice() {
        [one] if evidence::recorded(ws, rel, anchor) => Some(*one),
        _ => None,
    }
}
