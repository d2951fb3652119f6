//! Edits of one file that share bytes: the splices of a file are ordered and refused when
//! two overlap, or, under strict conflicts, when an insertion touches a rewrite's edge; the
//! refusal names both operations in input order.

use crate::error::{Code, Error, Result};
use crate::plan::Plan;
use crate::plan::splice::{self, Splice};
use crate::txn::resolve::OpMatch;
use crate::workspace::path::TargetPath;

/// Orders the splices and refuses overlapping ones; with strict conflicts, also insertions
/// at a rewrite's edge, whether where their text lands or the boundary they are tied to.
pub fn refuse(
    plan: &Plan,
    splices: &mut [Splice],
    matches: &[OpMatch],
    path: &TargetPath,
) -> Result<()> {
    let strict = plan.strict_conflicts();
    let conflict = splice::order(splices)
        .map_err(|o| (o, "change overlapping text"))
        .and_then(|()| match strict {
            true => splice::touching(splices)
                .and_then(|()| splice::anchored(splices, &anchors(matches)))
                .map_err(|o| (o, TOUCHING)),
            false => Ok(()),
        });
    match conflict {
        Err((overlap, what)) => Err(overlap_error(plan, overlap, path, what)),
        Ok(()) => Ok(()),
    }
}

const TOUCHING: &str = "conflict: an insertion touches the edge of a rewrite";

/// Two operations that conflict, named in input order (so the message does not depend on the
/// order they were given in); the two halves of one move name their one operation.
fn overlap_error(plan: &Plan, overlap: splice::Overlap, path: &TargetPath, what: &str) -> Error {
    let (mut first, mut second) = (
        &plan.ops[overlap.first].origin,
        &plan.ops[overlap.second].origin,
    );
    if second.order() < first.order() {
        std::mem::swap(&mut first, &mut second);
    }
    let message = if first == second {
        format!(
            "{}: the move's destination lies inside or at the edge of the moved structure in {}",
            first.label(),
            path.rel
        )
    } else {
        format!(
            "{} and {} {what} in {}",
            first.label(),
            second.label(),
            path.rel
        )
    };
    let mut edits = vec![first.pointer(), second.pointer()];
    edits.dedup();
    Error::new(Code::EditsOverlap, message)
        .detail("path", path.rel.as_str())
        .detail("edits", edits)
        .hint(
            "Edits of one file all resolve against the file as read; merge the two into one edit.",
        )
}

/// The structure boundaries insertions are tied to, by operation.
fn anchors(matches: &[OpMatch]) -> Vec<(usize, usize)> {
    matches
        .iter()
        .filter_map(|m| Some((m.op, m.anchor?)))
        .collect()
}
