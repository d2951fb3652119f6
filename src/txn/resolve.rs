//! Resolving every operation of one file against the file as read: exact text, line anchors,
//! file boundaries and structures (the file is parsed at most once, and only when a structure
//! target needs it). Produces the splices and, per operation, how it matched.

use crate::change::NodeFacts;
use crate::error::{Code, Error, Result};
use crate::lang::gate::SourceTree;
use crate::lang::provider_for;
use crate::locate::file_text::FileText;
use crate::locate::text::{self, EditContext};
use crate::locate::{anchor, ladder, node};
use crate::plan::splice::Splice;
use crate::plan::symbol::SymbolEdit;
use crate::plan::{Block, ConfigOp, Digest, NodeOp, Op, OpKind, Plan, Target};
use crate::workspace::path::TargetPath;
use crate::workspace::snapshot::Snapshot;

/// How one operation matched.
#[derive(Clone, Debug)]
pub struct OpMatch {
    pub op: usize,
    pub matched_by: &'static str,
    pub regex_replacements: Option<usize>,
    /// Line anchors remapped by `repair`: (from, to).
    pub repaired: Vec<(usize, usize)>,
    /// What a structure target resolved to (`qualified_name`), for reports.
    pub target: Option<String>,
    pub node: Option<NodeFacts>,
    /// The structure boundary an insertion beside a structure is tied to (its extent's start
    /// for `insert_before`, its end for `insert_after` and moves after it), for conflicts.
    pub anchor: Option<usize>,
}

/// Every splice of one file, how each operation matched, and the source's parse if one was
/// needed.
pub struct FileEdits {
    pub splices: Vec<Splice>,
    pub matches: Vec<OpMatch>,
    pub source: Option<SourceTree>,
    /// A structure target was used: the result must parse cleanly.
    pub structural: bool,
}

fn matched(op: usize, matched_by: &'static str) -> OpMatch {
    OpMatch {
        op,
        matched_by,
        regex_replacements: None,
        repaired: Vec::new(),
        target: None,
        node: None,
        anchor: None,
    }
}

/// Resolves operations `ops` (indices into `plan.ops`) of the file `path`, as read in `before`.
pub fn resolve_file(
    plan: &Plan,
    ops: &[usize],
    path: &TargetPath,
    before: &Snapshot,
    exact: bool,
) -> Result<FileEdits> {
    let text = before.text();
    let file = FileText::new(&text);
    let mut out = FileEdits {
        splices: Vec::new(),
        matches: Vec::new(),
        source: None,
        structural: false,
    };
    let mut failures = Vec::new();
    for &i in ops {
        if let Err(e) = resolve_op(plan, i, path, before, exact, &file, &mut out) {
            failures.push(e);
        }
    }
    crate::lang::symbols::edit::imports::coalesce(
        &mut out.splices,
        |i| matches!(&plan.ops[i].kind, OpKind::Symbol(e) if matches!(e.op, crate::plan::symbol::SymbolOp::AddUse(_))),
    );
    crate::locate::config::merge_creations(&path.rel, file.text, &mut out.splices, |i| match &plan
        .ops[i]
        .kind
    {
        OpKind::Config { config, .. } if config.create_missing => Some(config),
        _ => None,
    });
    match Error::combine(failures) {
        Some(error) => Err(error),
        None => Ok(out),
    }
}

/// One operation being resolved, and what its errors carry: its label, pointer, path and
/// input line.
struct Resolving<'a> {
    op: &'a Op,
    i: usize,
    label: String,
    path: &'a TargetPath,
    before: &'a Snapshot,
}

impl Resolving<'_> {
    /// `e` with the operation's pointer, path and input line.
    fn located(&self, e: Error) -> Error {
        let e = e
            .detail("pointer", self.op.origin.pointer())
            .detail("path", self.path.rel.as_str());
        match self.op.origin.input_line {
            Some(line) => e.detail("input_line", line),
            None => e,
        }
    }

    /// `e` prefixed with the operation's label, and located.
    fn at(&self, e: Error) -> Error {
        self.located(e.at(&self.label))
    }

    /// Refuses a file changed since the operation's evidence was read.
    fn check_expected(&self, expected: Option<Digest>) -> Result<()> {
        check_expected(self.before, expected, self.path, self.op).map_err(|e| self.at(e))
    }
}

/// Resolves one operation into `out`.
fn resolve_op(
    plan: &Plan,
    i: usize,
    path: &TargetPath,
    before: &Snapshot,
    exact: bool,
    file: &FileText<'_>,
    out: &mut FileEdits,
) -> Result<()> {
    let op = &plan.ops[i];
    let r = Resolving {
        op,
        i,
        label: op.origin.label(),
        path,
        before,
    };
    match &op.kind {
        OpKind::Edit { edit, expected } => {
            r.check_expected(*expected)?;
            let ctx = EditContext {
                path: &path.rel,
                label: &r.label,
                op: i,
                digest: before.digest,
                endings: &file.endings,
            };
            let resolved = text::resolve(edit, file.text, &ctx).map_err(|e| r.located(e))?;
            out.matches.push(matched(i, resolved.matched_by));
            out.splices.extend(resolved.splices);
        }
        OpKind::Targeted {
            target,
            op: action,
            expected,
            repair,
        } => {
            r.check_expected(*expected)?;
            action.check(target).map_err(|m| {
                r.located(Error::new(Code::PlanMalformed, format!("{}: {m}", r.label)))
            })?;
            let (splices, how) =
                targeted(out, target, action, *repair, path, file.text, i).map_err(|e| r.at(e))?;
            out.splices.extend(splices);
            out.matches.push(how);
        }
        OpKind::Block(block) => {
            let resolved =
                ladder::resolve(block, file, &path.rel, i, &r.label, before.digest, exact)
                    .map_err(|e| {
                        let earlier = Earlier {
                            file,
                            splices: &out.splices,
                            exact,
                        };
                        r.located(written_earlier(&r, plan, block, earlier, e))
                    })?;
            out.matches.push(matched(i, resolved.matched_by));
            out.splices.extend(resolved.splices);
        }
        OpKind::Symbol(edit) => resolve_symbol(&r, edit, file.text, out)?,
        OpKind::Config { config, expected } => {
            resolve_config(&r, config, *expected, file.text, out)?
        }
        OpKind::Create { .. }
        | OpKind::Delete { .. }
        | OpKind::Move { .. }
        | OpKind::Restore { .. }
        | OpKind::Mode { .. } => {}
    }
    Ok(())
}

/// A block found nowhere in the file as read that matches once the file's earlier operations
/// (`earlier`, their splices) are applied: the agent wrote it against their result, as Aider
/// applies blocks one after another. Every block here applies to the file as read, so the
/// refusal names the earlier blocks and says how to send the edit. Only on this refusal's
/// path is the file's intermediate text built.
fn written_earlier(
    r: &Resolving<'_>,
    plan: &Plan,
    block: &Block,
    ctx: Earlier<'_, '_>,
    e: Error,
) -> Error {
    let same_file = |op: &&Op| op.path.raw == r.op.path.raw && matches!(op.kind, OpKind::Block(_));
    let blocks: Vec<&Op> = plan.ops[..r.i].iter().filter(same_file).collect();
    if e.code != Code::AnchorMissing || blocks.is_empty() || ctx.splices.is_empty() {
        return e;
    }
    let mut splices = ctx.splices.to_vec();
    if crate::plan::splice::order(&mut splices).is_err() {
        return e;
    }
    let applied = crate::plan::splice::apply(ctx.file.text.as_bytes(), &splices);
    let Ok(text) = String::from_utf8(applied) else {
        return e;
    };
    let then = FileText::new(&text);
    let digest = Digest::of(b"");
    match ladder::resolve(block, &then, &r.path.rel, r.i, &r.label, digest, ctx.exact) {
        Ok(resolved) if !resolved.splices.is_empty() => {
            let labels: Vec<String> = blocks.iter().map(|op| op.origin.label()).collect();
            let pointers: Vec<String> = blocks.iter().map(|op| op.origin.pointer()).collect();
            let has = if labels.len() == 1 { "has" } else { "have" };
            e.detail("applies_after", pointers).hint(format!(
                "This block matches only once {} {has} applied, but every block applies to the file as read: merge them into one block (SEARCH the file's current lines, REPLACE with the final text), or send this block again once they have applied.",
                labels.join(", ")
            ))
        }
        _ => e,
    }
}

/// What a block's refusal is checked against: the file as read, the splices of the file's
/// operations before it, and whether only exact bytes count.
#[derive(Clone, Copy)]
struct Earlier<'a, 'f> {
    file: &'a FileText<'f>,
    splices: &'a [Splice],
    exact: bool,
}

/// A symbol edit (a structure named by its symbol): parses the file and records the symbol.
fn resolve_symbol(
    r: &Resolving<'_>,
    edit: &SymbolEdit,
    text: &str,
    out: &mut FileEdits,
) -> Result<()> {
    r.check_expected(edit.expected)?;
    out.structural = true;
    let source = source_tree(&mut out.source, r.path, text.as_bytes())?;
    let resolved = crate::lang::symbols::edit::resolve_in(edit, source, &r.path.rel, text, r.i)
        .map_err(|e| r.at(e))?;
    let mut how = matched(r.i, edit.op.name());
    how.target = Some(resolved.target);
    out.matches.push(how);
    out.splices.extend(resolved.splice);
    Ok(())
}

/// A config edit (a key path in JSON, TOML or YAML), recorded by its path.
fn resolve_config(
    r: &Resolving<'_>,
    config: &ConfigOp,
    expected: Option<Digest>,
    text: &str,
    out: &mut FileEdits,
) -> Result<()> {
    r.check_expected(expected)?;
    let splices =
        crate::locate::config::splices(&r.path.rel, text, config, r.i).map_err(|e| r.at(e))?;
    // The config layer parses its result itself (JSONC tolerantly): the gate only
    // must not see new errors in files tree-sitter reads with errors (trailing commas).
    out.structural |= !crate::locate::config::tolerant(&r.path.rel);
    let mut how = matched(r.i, "config_path");
    how.target = Some(config.path.clone());
    out.matches.push(how);
    out.splices.extend(splices);
    Ok(())
}

/// Resolves a line, file-boundary or structure target.
fn targeted(
    out: &mut FileEdits,
    target: &Target,
    action: &NodeOp,
    repair: bool,
    path: &TargetPath,
    text: &str,
    i: usize,
) -> Result<(Vec<Splice>, OpMatch)> {
    match target {
        Target::Lines { start, end } => {
            let r = anchor::resolve(text, start, end.as_ref(), action, repair, &path.rel, i)?;
            let mut how = matched(i, r.matched_by);
            how.repaired = r.repaired;
            how.anchor = r.anchor;
            Ok((r.splices, how))
        }
        Target::FileStart | Target::FileEnd => file_boundary(target, action, text, i),
        _ => structure(out, target, action, path, text, i),
    }
}

/// An insertion (or a move) at the file's start, after any byte-order mark, or at its end.
fn file_boundary(
    target: &Target,
    action: &NodeOp,
    text: &str,
    i: usize,
) -> Result<(Vec<Splice>, OpMatch)> {
    let payload = match action {
        NodeOp::Insert(payload) => payload.clone(),
        NodeOp::MoveIn(m) => node::moved_text(m)?,
        _ => {
            return Err(Error::new(
                Code::PlanMalformed,
                "file boundaries take `insert`",
            ));
        }
    };
    let at = match target {
        Target::FileStart if text.starts_with('\u{feff}') => 3,
        Target::FileStart => 0,
        _ => text.len(),
    };
    let name = if at == text.len() && at > 0 {
        "file_end"
    } else {
        "file_start"
    };
    Ok((
        vec![Splice {
            range: at..at,
            text: payload,
            op: i,
        }],
        matched(i, name),
    ))
}

/// A structure target: parses the file, finds the structure and records what it resolved to.
fn structure(
    out: &mut FileEdits,
    target: &Target,
    action: &NodeOp,
    path: &TargetPath,
    text: &str,
    i: usize,
) -> Result<(Vec<Splice>, OpMatch)> {
    out.structural = true;
    let source = source_tree(&mut out.source, path, text.as_bytes())?;
    let (item, how_found) = node::find_in(source, target, text, &path.rel)?;
    let extent = item.extent(&source.tree, text.as_bytes());
    let (splice, regex_replacements) = node::splice(&item, extent.clone(), action, text, i)?;
    let mut how = matched(i, how_found);
    how.anchor = match action {
        NodeOp::InsertBefore(_) => Some(extent.start),
        NodeOp::InsertAfter(_) => Some(extent.end),
        NodeOp::MoveIn(m) => Some(if m.after { extent.end } else { extent.start }),
        _ => None,
    };
    how.regex_replacements = regex_replacements;
    how.target = Some(item.qualified_name.clone());
    how.node = Some(NodeFacts {
        kind: item.kind.clone(),
        identity: item.identity(text.as_bytes()),
        hash: item.hash(text.as_bytes()),
        span: item.span.clone(),
    });
    Ok((vec![splice], how))
}

/// The file's parse, made on first use; a source that does not parse refuses structure targets.
fn source_tree<'s>(
    slot: &'s mut Option<SourceTree>,
    path: &TargetPath,
    source: &[u8],
) -> Result<&'s SourceTree> {
    if slot.is_none() {
        let provider = provider_for(&path.rel).ok_or_else(|| {
            Error::new(
                Code::NoProvider,
                format!(
                    "{} has no syntax provider: structure targets need one",
                    path.rel
                ),
            )
            .detail("path", path.rel.as_str())
            .hint("Use a LINE:HASH anchor (`read --mode line`) or an exact find/replace instead.")
        })?;
        let parsed = SourceTree::parse(provider, source)?;
        parsed.addressable(&path.rel, "addressed")?;
        *slot = Some(parsed);
    }
    slot.as_ref().ok_or_else(|| Error::internal("source tree"))
}

pub fn check_expected(
    before: &Snapshot,
    expected: Option<Digest>,
    path: &TargetPath,
    op: &Op,
) -> Result<()> {
    match expected {
        Some(want) if want != before.digest => Err(Error::new(
            Code::EvidenceChanged,
            format!(
                "{} changed since it was read: its sha256 is {}, the plan expected {}",
                path.rel, before.digest, want
            ),
        )
        .detail("path", path.rel.as_str())
        .detail("expected_sha256", want.to_hex())
        .detail("actual_sha256", before.digest.to_hex())
        .detail("pointer", op.origin.pointer())
        .hint("Re-read the file and rebuild the edit against its current content.")),
        _ => Ok(()),
    }
}
