//! Moves (renames): the source is read and edited once, like any edited file, then published
//! as two changes of the one transaction: the source deleted, and the destination created (or,
//! with `--overwrite`, replaced) with the edited bytes and the source's permissions.
//!
//! Chains (`a → b`, `b → c`) are computed from the pre-images, so their order does not
//! matter: `b` becomes one change carrying `a`'s bytes. Cycles are refused. Structure moves
//! (`NodeOp::MoveIn`) get their bytes here, before any file is resolved.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use crate::change::{Action, FileChange, Moved, PostImage};
use crate::error::{Code, Error, Result};
use crate::lang::gate::SourceTree;
use crate::plan::{Digest, NodeOp, OpKind, PathSpec, Plan, Target};
use crate::txn::Options;
use crate::workspace::Workspace;
use crate::workspace::path::{self, TargetPath};
use crate::workspace::snapshot;

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
    let chained = std::fs::symlink_metadata(&dest.abs).is_ok() && moves_away(ws, plan, &dest.key);
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
    let content = change.after_arc().unwrap_or_else(|| before.bytes.shared());
    let digest = change.after_digest.unwrap_or(before.digest);
    let mut destination = arrive(&dest, (content, digest), &change, chained, options)
        .map_err(|e| no_replace_hint(plan, e))
        .map_err(located)?;
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
    chained: bool,
    options: &Options,
) -> Result<FileChange> {
    let mut change = FileChange {
        path: dest.clone(),
        action: Action::Created,
        before: None,
        after: Some(PostImage::Whole(content)),
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
            change.new_dirs = crate::workspace::path::missing_dirs(dest)?;
            Ok(change)
        }
        // The destination moves away itself: `merge_chains` joins the two changes.
        Err(e) if e.code == Code::TargetExists && chained => Ok(change),
        Err(e) if e.code == Code::TargetExists && options.overwrite => {
            change.before = Some(snapshot::read_any(dest)?);
            change.action = Action::Modified;
            change.ranges = vec![(
                0..change.before.as_ref().map_or(0, |b| b.bytes.len()),
                0..change.after_len().unwrap_or(0),
            )];
            Ok(change)
        }
        Err(e) => {
            Err(e.hint("Move to a free path, or pass --overwrite to replace the destination."))
        }
    }
}

/// Edit requests and their changesets never replace a file (`--overwrite` does not apply to
/// them): the hint of an existing destination says what does.
fn no_replace_hint(plan: &Plan, e: Error) -> Error {
    if e.code != Code::TargetExists || !plan.strict_conflicts() {
        return e;
    }
    e.hint(
        "Moves of an edit request never replace a file (--overwrite does not apply): move to a \
         free path, or move the existing file away in the same request (a chain a → b, b → c).",
    )
}

/// Whether the plan moves the file with this key away (the start of a chain).
fn moves_away(ws: &Workspace, plan: &Plan, key: &str) -> bool {
    plan.ops
        .iter()
        .filter(|op| matches!(op.kind, OpKind::Move { .. }))
        .any(|op| path::resolve(ws, &op.path).is_ok_and(|p| p.key == key))
}

/// Refuses two moves onto one path and a cycle of moves (`a → b → a`: every file in it would
/// need to exist twice).
pub fn refuse_cycles(ws: &Workspace, plan: &Plan) -> Result<()> {
    let mut next: HashMap<String, (String, usize)> = HashMap::new();
    let mut arrivals: HashMap<String, usize> = HashMap::new();
    for (i, op) in plan.ops.iter().enumerate() {
        if let OpKind::Move { to } = &op.kind {
            let (Ok(from), Ok(to)) = (path::resolve(ws, &op.path), path::resolve(ws, to)) else {
                continue;
            };
            if let Some(first) = arrivals.insert(to.key.clone(), i) {
                return Err(graph_error(
                    plan,
                    vec![first, i],
                    &format!("move two files onto {}", to.rel),
                ));
            }
            next.insert(from.key, (to.key, i));
        }
    }
    let mut starts: Vec<&String> = next.keys().collect();
    starts.sort();
    for start in starts {
        let mut seen = vec![];
        let mut at = start;
        while let Some((to, i)) = next.get(at) {
            seen.push(*i);
            if to == start {
                return Err(graph_error(plan, seen, "form a cycle"));
            }
            if seen.len() > next.len() {
                break;
            }
            at = to;
        }
    }
    Ok(())
}

fn graph_error(plan: &Plan, mut ops: Vec<usize>, what: &str) -> Error {
    ops.sort_unstable();
    let pointers: Vec<String> = ops.iter().map(|&i| plan.ops[i].origin.pointer()).collect();
    Error::malformed(format!("the moves {} {what}", pointers.join(", ")))
        .detail("edits", pointers)
        .hint("Give every file its own free destination; break a cycle by moving one file to a free path in a separate plan.")
}

/// Joins the deletion of a file moved away and the creation of the file moved onto its path
/// (a chain) into one change of that path.
pub fn merge_chains(changes: Vec<FileChange>) -> Vec<FileChange> {
    let mut out: Vec<FileChange> = Vec::with_capacity(changes.len());
    let mut at: HashMap<String, usize> = HashMap::new();
    for change in changes {
        let Some(&i) = at.get(&change.path.key) else {
            at.insert(change.path.key.clone(), out.len());
            out.push(change);
            continue;
        };
        let (deleted, created) = match (out[i].action, change.action) {
            (Action::Deleted, Action::Created) => (out[i].clone(), change),
            (Action::Created, Action::Deleted) => (change, out[i].clone()),
            _ => {
                out.push(change);
                continue;
            }
        };
        let old_len = deleted.before.as_ref().map_or(0, |b| b.bytes.len());
        let new_len = created.after_len().unwrap_or(0);
        out[i] = FileChange {
            action: Action::Modified,
            before: deleted.before,
            ranges: vec![(0..old_len, 0..new_len)],
            new_dirs: Vec::new(),
            new_permissions: None,
            ..created
        };
    }
    out
}

/// Reads the bytes of every structure the plan moves from its file as it is now, and binds
/// the removal in that file (`MoveOut`) to the same bytes through its expected digest.
pub fn materialize<'p>(ws: &Workspace, plan: &'p Plan) -> Result<Cow<'p, Plan>> {
    let pending = |kind: &OpKind| matches!(kind, OpKind::Targeted { op: NodeOp::MoveIn(m), .. } if m.moved.is_none());
    if !plan.ops.iter().any(|op| pending(&op.kind)) {
        return Ok(Cow::Borrowed(plan));
    }
    let mut plan = plan.clone();
    let mut sources: HashMap<String, Source> = HashMap::new();
    for op in &mut plan.ops {
        let origin = op.origin.clone();
        let OpKind::Targeted {
            op: NodeOp::MoveIn(m),
            ..
        } = &mut op.kind
        else {
            continue;
        };
        let located = |e: Error| e.at(&origin.label()).detail("pointer", origin.pointer());
        let from = path::resolve(ws, &m.from).map_err(located)?;
        if !sources.contains_key(&from.key) {
            let source = Source::read(&from).map_err(located)?;
            sources.insert(from.key.clone(), source);
        }
        let source = sources
            .get(&from.key)
            .ok_or_else(|| Error::internal("a move's source was read"))?;
        m.moved = Some(source.bytes(&from, &m.source).map_err(located)?);
    }
    for op in &mut plan.ops {
        if let OpKind::Targeted {
            op: NodeOp::MoveOut,
            expected: expected @ None,
            ..
        } = &mut op.kind
            && let Ok(p) = path::resolve(ws, &op.path)
        {
            *expected = sources.get(&p.key).map(|s| s.digest);
        }
    }
    for source in sources.into_values() {
        crate::lang::parse::retire(source.parsed.tree);
    }
    Ok(Cow::Owned(plan))
}

/// A file structures are moved out of, read and parsed once.
struct Source {
    text: String,
    digest: Digest,
    parsed: SourceTree,
}

impl Source {
    fn read(from: &TargetPath) -> Result<Self> {
        let before = snapshot::read_text(from)?;
        let provider = crate::lang::provider_for(&from.rel).ok_or_else(|| {
            Error::new(
                Code::NoProvider,
                format!(
                    "{} has no syntax provider: structures cannot be moved out of it",
                    from.rel
                ),
            )
            .detail("path", from.rel.as_str())
        })?;
        let parsed = SourceTree::parse(provider, &before.bytes.get())?;
        parsed.addressable(&from.rel, "moved")?;
        Ok(Self {
            text: before.text().into_owned(),
            digest: before.digest,
            parsed,
        })
    }

    /// The bytes of the structure `target` names (its extent: with the attributes, comments
    /// and `export` that belong to it).
    fn bytes(&self, from: &TargetPath, target: &Target) -> Result<String> {
        let text = self.text.as_str();
        let (item, _) = crate::locate::node::find_in(&self.parsed, target, text, &from.rel)?;
        let extent = item.extent(&self.parsed.tree, text.as_bytes());
        Ok(text[extent].to_owned())
    }
}
