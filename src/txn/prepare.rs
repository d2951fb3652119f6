//! Preflight: resolve every path, group operations by file, read each file once, prove every
//! precondition and compute every post-image. Writes nothing; the same function runs again
//! under the locks when a file changed in between.

use std::collections::HashMap;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use crate::change::{Action, EditReport, FileChange, LineSpan, PostImage};
use crate::error::{Code, Error, Result};
use crate::lang::gate::{self, Rules};
use crate::locate::lines::SpliceLines;
use crate::plan::splice::{self, Splice};
use crate::plan::{Digest, Op, OpKind, PathBase, Plan};
use crate::txn::resolve::{FileEdits, OpMatch, check_expected, resolve_file};
use crate::txn::{Options, moves};
use crate::workspace::Workspace;
use crate::workspace::path::{self, TargetPath};
use crate::workspace::snapshot::{self, Snapshot};

/// Changed byte ranges: in the pre-image, and where their text landed.
type ChangedRanges = Vec<(Range<usize>, Range<usize>)>;

/// From this many files on, a modified file's post-image is held as the new text of its
/// changed ranges only, and its pre-image compressed ([`FileChange::shrink`]), from the moment
/// the file is prepared: the plan's files are not all held twice, at full size, until the
/// publish. Fewer files keep whole images, so one edit does not rebuild its file for each
/// reader.
pub(super) const SHRINK_FROM: usize = 16;

/// Operations of one file, in plan order.
struct Group {
    path: TargetPath,
    ops: Vec<usize>,
}

/// Validates the whole plan against the current files.
pub fn prepare(ws: &Workspace, plan: &Plan, options: &Options) -> Result<Vec<FileChange>> {
    moves::refuse_cycles(ws, plan)?;
    let plan = &*moves::materialize(ws, plan)?;
    let groups = group(ws, plan)?;
    let mut changes = Vec::with_capacity(groups.len());
    let mut failures = Vec::new();
    let shrink = groups.len() >= SHRINK_FROM;
    let one = |g: &Group| {
        let mut changes = prepare_file(plan, g, options)
            .map(|change| super::mode::apply(plan, &g.ops, change))
            .and_then(|c| moves::split(ws, plan, &g.ops, c, options))?;
        if shrink {
            changes.iter_mut().for_each(FileChange::shrink);
        }
        Ok(changes)
    };
    let settle = |prepared: &mut Result<Vec<FileChange>>| match prepared {
        Ok(changes) => Ok(changes.iter_mut().map(FileChange::relocated).collect()),
        Err(e) => Err(std::mem::replace(e, Error::internal("settled"))),
    };
    for prepared in super::parallel::each_settled(&groups, one, settle) {
        match prepared {
            Ok(more) => changes.extend(more),
            Err(e) => failures.push(e),
        }
    }
    if let Some(error) = Error::combine(failures) {
        return Err(error);
    }
    let mut changes = moves::merge_chains(changes);
    refuse_duplicates(&changes)?;
    refuse_hard_links(plan, &groups, &changes)?;
    changes.sort_by(|a, b| a.path.rel.cmp(&b.path.rel));
    Ok(changes)
}

fn group(ws: &Workspace, plan: &Plan) -> Result<Vec<Group>> {
    let mut groups: Vec<Group> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    let mut resolved: HashMap<(&str, PathBase), TargetPath> = HashMap::new();
    let mut real_dirs = std::collections::HashSet::new();
    for (i, op) in plan.ops.iter().enumerate() {
        let cache_key = (op.path.raw.as_str(), op.path.base);
        let path = match resolved.get(&cache_key) {
            Some(path) => path.clone(),
            None => {
                let path = path::resolve_with(ws, &op.path, &mut real_dirs).map_err(|e| {
                    e.at(&op.origin.label())
                        .detail("pointer", op.origin.pointer())
                })?;
                resolved.insert(cache_key, path.clone());
                path
            }
        };
        match by_key.get(&path.key) {
            Some(&g) => groups[g].ops.push(i),
            None => {
                by_key.insert(path.key.clone(), groups.len());
                groups.push(Group { path, ops: vec![i] });
            }
        }
    }
    for g in &groups {
        let whole_file = g.ops.iter().find(|&&i| {
            matches!(
                plan.ops[i].kind,
                OpKind::Create { .. } | OpKind::Delete { .. }
            )
        });
        let others = super::mode::content_ops(plan, &g.ops);
        if let (Some(&lone), true) = (whole_file, others.len() > 1) {
            let other = others.iter().copied().find(|&i| i != lone).unwrap_or(lone);
            let why = "names the same file as";
            let rule = "a file that is created or deleted takes no other operation";
            return Err(conflict(
                plan,
                lone.min(other),
                lone.max(other),
                &g.path,
                why,
                rule,
            ));
        }
    }
    Ok(groups)
}

fn conflict(
    plan: &Plan,
    a: usize,
    b: usize,
    path: &TargetPath,
    relation: &str,
    rule: &str,
) -> Error {
    let (first, second) = (&plan.ops[a].origin, &plan.ops[b].origin);
    Error::new(
        Code::EditsOverlap,
        format!(
            "{} {relation} {} ({}): {rule}",
            second.label(),
            first.label(),
            path.rel
        ),
    )
    .detail("path", path.rel.as_str())
    .detail("edits", vec![first.pointer(), second.pointer()])
    .hint("Merge the operations into one, or split them into separate plans.")
}

fn prepare_file(plan: &Plan, g: &Group, options: &Options) -> Result<FileChange> {
    // A file's content operation decides how it is prepared, whatever the order of its mode.
    let lead = super::mode::content_ops(plan, &g.ops).first().copied();
    let first = &plan.ops[lead.unwrap_or(g.ops[0])];
    let located = |e: Error| {
        e.at(&first.origin.label())
            .detail("pointer", first.origin.pointer())
    };
    if let Some(OpKind::Restore {
        content,
        expected,
        executable,
    }) = restoring(plan, g)
    {
        return restored(g, content, *expected, *executable).map_err(located);
    }
    match &first.kind {
        OpKind::Create { content }
            if options.overwrite && snapshot::check_absent(&g.path).is_err() =>
        {
            overwritten(g, content).map_err(located)
        }
        OpKind::Create { content } => {
            snapshot::check_absent(&g.path).map_err(located)?;
            created(g, content.clone().into_bytes()).map_err(located)
        }
        OpKind::Delete { expected } => deleted(g, first, *expected).map_err(located),
        OpKind::Move { .. } | OpKind::Mode { .. }
            if !g.ops.iter().any(|&i| edits(&plan.ops[i].kind)) =>
        {
            let before = snapshot::read_any(&g.path).map_err(located)?;
            Ok(unchanged(g, before, Vec::new()))
        }
        OpKind::Block(_) if creates_file(plan, g) => {
            created(g, block_content(plan, g).into_bytes()).map_err(located)
        }
        OpKind::Edit { .. }
        | OpKind::Targeted { .. }
        | OpKind::Block(_)
        | OpKind::Move { .. }
        | OpKind::Mode { .. }
        | OpKind::Restore { .. }
        | OpKind::Config { .. }
        | OpKind::Symbol(_) => prepare_edits(plan, g, located, options),
    }
}

/// An existing file replaced whole by a `create` with `overwrite`.
fn overwritten(g: &Group, content: &str) -> Result<FileChange> {
    let before = snapshot::read_any(&g.path)?;
    let after = Arc::new(content.to_owned().into_bytes());
    let ranges = vec![(0..before.bytes.len(), 0..after.len())];
    Ok(change(
        g.path.clone(),
        Action::Modified,
        Some(before),
        Some(after),
        Vec::new(),
        Vec::new(),
        ranges,
    ))
}

/// A file deleted, when it still holds what `first` expected.
fn deleted(g: &Group, first: &Op, expected: Option<Digest>) -> Result<FileChange> {
    let before = snapshot::read_any(&g.path)?;
    check_expected(&before, expected, &g.path, first)?;
    Ok(change(
        g.path.clone(),
        Action::Deleted,
        Some(before),
        None,
        Vec::new(),
        Vec::new(),
        Vec::new(),
    ))
}

/// A file the plan leaves as it is (a move or mode change only, or edits that change nothing).
fn unchanged(g: &Group, before: Snapshot, edits: Vec<EditReport>) -> FileChange {
    let mut unchanged = change(
        g.path.clone(),
        Action::Unchanged,
        Some(before),
        None,
        edits,
        Vec::new(),
        Vec::new(),
    );
    unchanged.after_digest = unchanged.digest_before();
    unchanged
}

/// The content of a file created by blocks with empty searches: their replacements in order.
fn block_content(plan: &Plan, g: &Group) -> String {
    g.ops
        .iter()
        .filter_map(|&i| match &plan.ops[i].kind {
            OpKind::Block(block) => Some(block.replace.as_str()),
            _ => None,
        })
        .collect()
}

/// The `Restore` operation of the group, if it has one.
fn restoring<'p>(plan: &'p Plan, g: &Group) -> Option<&'p OpKind> {
    g.ops
        .iter()
        .map(|&i| &plan.ops[i].kind)
        .find(|kind| matches!(kind, OpKind::Restore { .. }))
}

/// A file put back to exact bytes: replaced when it holds `expected`, created when `expected`
/// is absent and so is the file.
fn restored(
    g: &Group,
    content: &Arc<Vec<u8>>,
    expected: Option<Digest>,
    executable: bool,
) -> Result<FileChange> {
    let Some(expected) = expected else {
        snapshot::check_absent(&g.path)?;
        let mut change = created(g, content.to_vec())?;
        if executable {
            use std::os::unix::fs::PermissionsExt;
            change.new_permissions = Some(std::fs::Permissions::from_mode(0o755));
        }
        return Ok(change);
    };
    let before = snapshot::read_any(&g.path)?;
    if before.digest != expected {
        return Err(Error::new(
            Code::EvidenceChanged,
            format!(
                "{} changed since it was published (sha256 {}, expected {})",
                g.path.rel,
                before.digest.to_hex(),
                expected.to_hex()
            ),
        )
        .detail("path", g.path.rel.as_str())
        .detail("expected_sha256", expected.to_hex())
        .detail("actual_sha256", before.digest.to_hex()));
    }
    // Described by what it changes, so that the ledger stores the restore as splices and the
    // API guard reads the regions around it.
    let pre = before.bytes.shared();
    let ranges = vec![crate::plan::splice::changed(&pre, content)];
    let action = match splice::same_bytes(&pre, content, &ranges) {
        true => Action::Unchanged,
        false => Action::Modified,
    };
    let mut change = change(
        g.path.clone(),
        action,
        Some(before),
        Some(content.clone()),
        Vec::new(),
        Vec::new(),
        ranges,
    );
    if action == Action::Modified {
        // Observed, never refused: an undo puts back bytes that were there before. The gate's
        // regions also give the API guard the declarations around the change.
        let pre = change.before.as_ref().map(|b| b.bytes.shared());
        let before = pre.as_deref().map(Vec::as_slice);
        let rules = Rules::new(false, true);
        let syntax = gate::check(
            &g.path.rel,
            before.map(|b| (b, None)),
            content,
            &change.ranges,
            rules,
        )?;
        change.syntax = Some(Box::new(syntax));
    }
    super::mode::set(&mut change, executable);
    Ok(change)
}

fn edits(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::Edit { .. }
            | OpKind::Targeted { .. }
            | OpKind::Block(_)
            | OpKind::Config { .. }
            | OpKind::Symbol(_)
    )
}

/// Two changes of one path (a move onto a file the plan also edits, two moves to one place).
fn refuse_duplicates(changes: &[FileChange]) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    match changes.iter().find(|c| !seen.insert(c.path.key.as_str())) {
        Some(c) => Err(Error::new(
            Code::EditsOverlap,
            format!(
                "{} is written twice by the plan (a move onto a file it also changes?)",
                c.path.rel
            ),
        )
        .detail("path", c.path.rel.as_str())
        .hint("Split the plan, or move to a path nothing else in the plan touches.")),
        None => Ok(()),
    }
}

/// A new file: observed by the gate, not refused (the gate's rule is that edits must not add
/// errors, and the seed's own `creates` example carries placeholder content).
fn created(g: &Group, content: Vec<u8>) -> Result<FileChange> {
    let new_dirs = path::missing_dirs(&g.path)?;
    let after = Arc::new(content);
    let whole = [(0..0, 0..after.len())];
    let syntax = gate::check(&g.path.rel, None, &after, &whole, Rules::new(false, true))?;
    let mut created = change(
        g.path.clone(),
        Action::Created,
        None,
        Some(after),
        Vec::new(),
        new_dirs,
        Vec::new(),
    );
    created.syntax = Some(Box::new(syntax));
    Ok(created)
}

/// Blocks with an empty search on a file that does not exist create it (Aider's convention).
fn creates_file(plan: &Plan, g: &Group) -> bool {
    let all_empty = g.ops.iter().all(|&i| matches!(&plan.ops[i].kind, OpKind::Block(b) if b.search.is_empty() && b.anchors.is_empty()));
    all_empty && snapshot::check_absent(&g.path).is_ok()
}

/// One file's change; `ranges` are the changed byte ranges (in the pre-image, and where their
/// text landed), and the post-image's digest is hashed on from the pre-image's marks at the
/// first of them (both versions agree up to there).
fn change(
    path: TargetPath,
    action: Action,
    before: Option<Snapshot>,
    after: Option<Arc<Vec<u8>>>,
    edits: Vec<EditReport>,
    new_dirs: Vec<PathBuf>,
    ranges: ChangedRanges,
) -> FileChange {
    let shared = ranges.first().map_or(0, |r| r.0.start);
    let after_digest = match (&after, &before) {
        (Some(bytes), Some(b)) => Some(b.marks.digest_of(&b.bytes.get(), bytes, shared)),
        (Some(bytes), None) => Some(Digest::of(bytes)),
        (None, _) => None,
    };
    FileChange {
        path,
        action,
        before,
        after: after.map(PostImage::Whole),
        after_digest,
        edits,
        ranges,
        new_dirs,
        new_permissions: None,
        syntax: None,
        moved: None,
    }
}

fn prepare_edits(
    plan: &Plan,
    g: &Group,
    located: impl Fn(Error) -> Error,
    options: &Options,
) -> Result<FileChange> {
    let before = snapshot::read_text(&g.path).map_err(located)?;
    let FileEdits {
        mut splices,
        matches,
        source,
        structural,
    } = resolve_file(plan, &g.ops, &g.path, &before, options.exact)?;
    super::overlap::refuse(plan, &mut splices, &matches, &g.path)?;
    let pre = before.bytes.shared();
    let after = splice::apply(&pre, &splices);
    let edits = reports(plan, &matches, &splices, &pre, &after);
    let ranges = splice::changed_ranges(&pre, &splices);
    if splice::same_bytes(&pre, &after, &ranges) {
        return Ok(unchanged(g, before, edits));
    }
    config_result(plan, g, &after)?;
    // Building only (`edit --json`): the final parse of files with structure targets is the
    // commit's; files with text edits only keep the gate's rule.
    let deferred = structural && options.build_only;
    let rules = Rules::new(
        structural && !deferred,
        options.allow_syntax_errors || deferred,
    );
    let syntax = gate::check(
        &g.path.rel,
        Some((&pre, source.as_ref())),
        &after,
        &ranges,
        rules,
    )?;
    if let Some(parsed) = source {
        crate::lang::parse::retire(parsed.tree);
    }
    let mut modified = change(
        g.path.clone(),
        Action::Modified,
        Some(before),
        Some(Arc::new(after)),
        edits,
        Vec::new(),
        ranges,
    );
    modified.syntax = Some(Box::new(syntax));
    Ok(modified)
}

/// Several config operations of one file are checked one by one; their combined result must
/// parse too (TOML: no key defined twice).
fn config_result(plan: &Plan, g: &Group, after: &[u8]) -> Result<()> {
    let configs = g
        .ops
        .iter()
        .filter(|&&i| matches!(plan.ops[i].kind, OpKind::Config { .. }));
    let format = crate::locate::config::Format::of(&g.path.rel);
    let (2.., Some(format)) = (configs.count(), format) else {
        return Ok(());
    };
    match std::str::from_utf8(after) {
        Ok(text) => crate::locate::config::check_result(format, text)
            .map_err(|e| e.detail("path", g.path.rel.as_str())),
        Err(_) => Ok(()),
    }
}

/// Line spans of every splice, grouped by the operation that produced it.
fn reports(
    plan: &Plan,
    matched: &[OpMatch],
    splices: &[Splice],
    old: &[u8],
    new: &[u8],
) -> Vec<EditReport> {
    let mut lines = SpliceLines::new(old, new);
    let mut spans: HashMap<usize, Vec<LineSpan>> = HashMap::new();
    let mut byte_ranges: HashMap<usize, Vec<_>> = HashMap::new();
    for (s, out) in splices.iter().zip(splice::output_ranges(splices)) {
        byte_ranges
            .entry(s.op)
            .or_default()
            .push((s.range.clone(), out.clone()));
        let span = lines.span(&s.range, &out);
        spans.entry(s.op).or_default().push(LineSpan {
            old_start: span.old_start,
            old_end: span.old_end,
            new_start: span.new_start,
            new_end: span.new_end,
        });
    }
    matched
        .iter()
        .map(|m| (m, spans.remove(&m.op).unwrap_or_default()))
        .map(|(m, spans)| EditReport {
            op: m.op,
            pointer: plan.ops[m.op].origin.pointer(),
            input_line: plan.ops[m.op].origin.input_line,
            matched_by: m.matched_by,
            rebased: super::rebase::hinted(&plan.ops[m.op].kind, &spans),
            spans,
            regex_replacements: m.regex_replacements,
            repaired: m.repaired.clone(),
            target: m.target.clone(),
            byte_ranges: byte_ranges.remove(&m.op).unwrap_or_default(),
            node: m.node.clone().map(Box::new),
        })
        .collect()
}

/// Two different paths of the plan naming one file through a hard link are refused. Changes
/// are matched to their groups by path (a move makes two changes of one group).
fn refuse_hard_links(plan: &Plan, groups: &[Group], changes: &[FileChange]) -> Result<()> {
    let group_of: HashMap<&str, &Group> = groups.iter().map(|g| (g.path.key.as_str(), g)).collect();
    let mut seen: HashMap<(u64, u64), &Group> = HashMap::new();
    for c in changes {
        let (Some(before), Some(g)) = (&c.before, group_of.get(c.path.key.as_str())) else {
            continue;
        };
        if let Some(other) = seen.insert(before.stamp.file_id(), g) {
            let (a, b) = (other.ops[0], g.ops[0]);
            let rule = "one file is changed through one path";
            return Err(conflict(
                plan,
                a.min(b),
                a.max(b),
                &c.path,
                "names a hard link of the file of",
                rule,
            ));
        }
    }
    Ok(())
}
