//! Moves (renames): the source is read and edited once, like any edited file, then published
//! as two changes of the one transaction: the source deleted, and the destination created (or,
//! with `--overwrite`, replaced) with the edited bytes and the source's permissions.

use std::sync::Arc;

use crate::error::{Code, Error, Result};
use crate::plan::{Digest, OpKind, PathSpec, Plan};
use crate::target::path::{self, TargetPath};
use crate::target::snapshot;
use crate::target::workspace::Workspace;
use crate::txn::Options;
use crate::txn::change::{Action, FileChange, Moved};

/// The destination of the group's move, if it has one.
pub fn destination<'p>(plan: &'p Plan, ops: &[usize]) -> Option<(usize, &'p PathSpec)> {
    ops.iter().find_map(|&i| match &plan.ops[i].kind {
        OpKind::Move { to } => Some((i, to)),
        _ => None,
    })
}

/// Turns the change of a moved file into its deletion and its destination's creation.
pub fn split(
    ws: &Workspace,
    plan: &Plan,
    ops: &[usize],
    change: FileChange,
    options: &Options,
) -> Result<Vec<FileChange>> {
    let Some((index, to)) = destination(plan, ops) else {
        return Ok(vec![change]);
    };
    let origin = &plan.ops[index].origin;
    let located = |e: Error| e.at(&origin.label()).detail("pointer", origin.pointer());
    let dest = path::resolve(ws, to).map_err(located)?;
    if dest.key == change.path.key {
        return Err(located(Error::malformed(format!(
            "{} is moved onto itself",
            change.path.rel
        ))));
    }
    let before = change
        .before
        .clone()
        .ok_or_else(|| Error::internal("a moved file has a pre-image"))?;
    let content = change.after.clone().unwrap_or_else(|| before.bytes.clone());
    let digest = change.after_digest.unwrap_or(before.digest);
    let mut destination = arrive(&dest, (content, digest), &change, options).map_err(located)?;
    destination.moved = Some(Moved::From(change.path.rel.clone()));
    let source = FileChange {
        action: Action::Deleted,
        moved: Some(Moved::To(dest.rel.clone())),
        after: None,
        after_digest: None,
        ranges: Vec::new(),
        syntax: None,
        ..change
    };
    Ok(vec![source, destination])
}

/// The destination's change: a creation, or with `--overwrite` the replacement of a file.
fn arrive(
    dest: &TargetPath,
    (content, digest): (Arc<Vec<u8>>, Digest),
    source: &FileChange,
    options: &Options,
) -> Result<FileChange> {
    let mut change = FileChange {
        path: dest.clone(),
        action: Action::Created,
        before: None,
        after: Some(content),
        after_digest: Some(digest),
        edits: Vec::new(),
        ranges: Vec::new(),
        new_dirs: Vec::new(),
        new_permissions: source.before.as_ref().map(|b| b.permissions.clone()),
        syntax: source.syntax.clone(),
        moved: None,
    };
    match snapshot::check_absent(dest) {
        Ok(()) => {
            change.new_dirs = crate::txn::prepare::missing_dirs(dest)?;
            Ok(change)
        }
        Err(e) if e.code == Code::TargetExists && options.overwrite => {
            change.before = Some(snapshot::read_any(dest)?);
            change.action = Action::Modified;
            change.ranges = vec![(
                0..change.before.as_ref().map_or(0, |b| b.bytes.len()),
                0..change.after.as_ref().map_or(0, |a| a.len()),
            )];
            Ok(change)
        }
        Err(e) => {
            Err(e.hint("Move to a free path, or pass --overwrite to replace the destination."))
        }
    }
}
