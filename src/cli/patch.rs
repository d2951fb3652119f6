//! `patch FILE …`: one target, one operation, built and applied in one call.
//!
//! Targets (exactly one family): `--find` (exact text, as `edit`), `--symbol NAME|Outer.inner`,
//! `--at <identity>`, `--at LINE:HASH` (`--end-anchor LINE:HASH` for a range),
//! `--at file-start|file-end`, `--kind K --name GLOB`. Operations (exactly one): `--replace`,
//! `--delete`, `--insert-before`, `--insert-after`, `--insert`, `--scoped-regex`. Payload: the
//! flag's value, `--text-file F` or `--stdin-text`. `--json` reads an identedit patch request.
//!
//! Config files (JSON, YAML, TOML): `--config-path PATH` with `--set-value V`,
//! `--append-value V` or `--delete`, and `--create-missing`, `--document-index N`. Values are
//! JSON text, also from `--text-file` / `--stdin-text` (verbatim, final newline included).

mod check;

use clap::Args;

use super::flags::{FindFlags, WriteFlags};

use crate::error::{Error, Result};
use crate::formats::patch_request;
use crate::plan::{ConfigAction, ConfigOp, LineAnchor, NodeOp, OpKind, Plan, Target};
use crate::report::Report;
use crate::txn::{self, journal::Recovered};
use crate::workspace::Workspace;

#[derive(Debug, Args)]
pub struct PatchArgs {
    /// File to patch, relative to the current directory.
    pub file: Option<String>,
    /// Exact text to replace (the find/replace form of `edit`).
    #[arg(long, allow_hyphen_values = true)]
    pub find: Option<String>,
    /// Structure by bare or qualified name (`Class.method`).
    #[arg(long, value_name = "NAME")]
    pub symbol: Option<String>,
    /// A node identity (16 hex), a `LINE:HASH` anchor, `file-start` or `file-end` (identedit's
    /// older `--identity` and `--anchor` are accepted for it).
    #[arg(long, value_name = "TARGET", alias = "identity", alias = "anchor")]
    pub at: Option<String>,
    /// Last line of a line range (`LINE:HASH`), with `--at LINE:HASH`.
    #[arg(long, value_name = "LINE:HASH")]
    pub end_anchor: Option<String>,
    /// Structure kind of a selector (with `--name`).
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Name glob of a selector (`*`, `?`).
    #[arg(long, value_name = "GLOB")]
    pub name: Option<String>,
    /// Replace the target (with TEXT, --text-file or --stdin-text).
    #[arg(long, num_args = 0..=1, value_name = "TEXT")]
    pub replace: Option<Option<String>>,
    /// Line targets: replace the `--at LINE:HASH` line (TEXT, --text-file or --stdin-text).
    #[arg(long, num_args = 0..=1, value_name = "TEXT")]
    pub set_line: Option<Option<String>>,
    /// Line targets: replace `--at LINE:HASH` .. `--end-anchor LINE:HASH` (empty deletes them).
    #[arg(long, num_args = 0..=1, value_name = "TEXT")]
    pub replace_range: Option<Option<String>>,
    /// Line targets: insert lines after `--at LINE:HASH`.
    #[arg(long, num_args = 0..=1, value_name = "TEXT")]
    pub insert_after_line: Option<Option<String>>,
    /// Delete the target.
    #[arg(long)]
    pub delete: bool,
    /// Insert before the target.
    #[arg(long, num_args = 0..=1, value_name = "TEXT")]
    pub insert_before: Option<Option<String>>,
    /// Insert after the target.
    #[arg(long, num_args = 0..=1, value_name = "TEXT")]
    pub insert_after: Option<Option<String>>,
    /// Insert at a file boundary (`--at file-start|file-end`).
    #[arg(long, num_args = 0..=1, value_name = "TEXT")]
    pub insert: Option<Option<String>>,
    /// A regex replaced inside the target structure only.
    #[arg(long, value_name = "PATTERN", requires = "scoped_replacement")]
    pub scoped_regex: Option<String>,
    /// Replacement of `--scoped-regex` (`$1` refers to groups; or --text-file / --stdin-text).
    #[arg(long, num_args = 0..=1, value_name = "TEXT", allow_negative_numbers = true)]
    pub scoped_replacement: Option<Option<String>>,
    /// Read the payload from this file (verbatim bytes).
    #[arg(long, value_name = "FILE", conflicts_with = "stdin_text")]
    pub text_file: Option<String>,
    /// Read the payload from stdin.
    #[arg(long)]
    pub stdin_text: bool,
    #[command(flatten)]
    pub find_flags: FindFlags,
    /// Remap a stale line anchor to the one line its hash now sits on (once, reported).
    #[arg(long)]
    pub auto_repair: bool,
    #[command(flatten)]
    pub write: WriteFlags,
    /// Never writes: list where each block of this single-file diff could apply in FILE.
    #[arg(long, value_name = "DIFF")]
    pub from_diff: Option<String>,
    /// A key path in a JSON, YAML or TOML file (`a.b`, `items[0]`, `x["a.b"]`).
    #[arg(long, value_name = "PATH")]
    pub config_path: Option<String>,
    /// With --config-path: set the value (JSON text, or --text-file / --stdin-text).
    #[arg(long, num_args = 0..=1, value_name = "JSON", allow_negative_numbers = true)]
    pub set_value: Option<Option<String>>,
    /// With --config-path: append to an existing array (JSON text).
    #[arg(long, num_args = 0..=1, value_name = "JSON", allow_negative_numbers = true)]
    pub append_value: Option<Option<String>>,
    /// With --config-path --set-value: create missing map / table keys.
    #[arg(long)]
    pub create_missing: bool,
    /// With --config-path: the YAML document (0-based) of a multi-document file.
    #[arg(long, value_name = "N")]
    pub document_index: Option<usize>,
    /// Read an identedit patch request (`{command, file, target, op}`) from stdin.
    #[arg(long)]
    pub json: bool,
    /// Add identedit's `applied` list (per file: operations applied, total, status).
    #[arg(long)]
    pub verbose: bool,
    /// Acknowledge changes to public declarations (refused under `identedit.apiGuard all`).
    #[arg(long)]
    pub allow_signature_change: bool,
}

pub fn run(ws: &Workspace, args: &PatchArgs) -> Result<(Report, Vec<Recovered>)> {
    check::check(args)?;
    if let Some(diff) = &args.from_diff {
        let file = args
            .file
            .as_deref()
            .ok_or_else(|| usage("--from-diff needs the FILE to search"))?;
        return Ok((super::handoff::run(ws, diff, file)?, Vec::new()));
    }
    let mut flags = args.write.clone();
    let mut verbose = args.verbose;
    let (mut plan, dry_run, input) = if args.json {
        let input = super::read_stdin("the request")?;
        let request = patch_request::parse(&input)?;
        flags.no_diff |= request.no_diff;
        verbose |= request.verbose;
        (request.plan, args.write.dry_run || request.dry_run, input)
    } else {
        (
            from_flags(ws, args)?,
            args.write.dry_run,
            super::command_line(),
        )
    };
    plan.allow_signature_change |= args.allow_signature_change;
    let options = txn::Options {
        dry_run,
        ..args.write.options()
    };
    let (mut report, recovered) =
        super::write::run(ws, "patch", &plan, input, options, &flags).map_err(stale_line_type)?;
    if verbose {
        let applied = crate::report::applied(&report);
        report.json.insert("applied".into(), applied);
    }
    Ok((report, recovered))
}

/// A stale line anchor in `patch` is an `invalid_request` carrying `line_check` (as identedit
/// reports it); `edit` and `apply` keep `precondition_failed`.
fn stale_line_type(error: Error) -> Error {
    if error.code == crate::error::Code::PreconditionFailed
        && error.details.contains_key("line_check")
    {
        error.typed("invalid_request")
    } else {
        error
    }
}

fn usage(message: impl Into<String>) -> Error {
    super::usage_error(message)
}

/// The payload of an operation: its inline value, `--text-file` or `--stdin-text`.
fn payload(
    ws: &Workspace,
    args: &PatchArgs,
    inline: &Option<String>,
    flag: &str,
) -> Result<String> {
    let sources = usize::from(inline.is_some())
        + usize::from(args.text_file.is_some())
        + usize::from(args.stdin_text);
    if sources != 1 {
        return Err(usage(format!(
            "{flag} needs exactly one payload: a value, --text-file FILE or --stdin-text"
        )));
    }
    if let Some(text) = inline {
        return Ok(text.clone());
    }
    let bytes = match &args.text_file {
        Some(file) => std::fs::read(ws.cwd.join(file))
            .map_err(|e| Error::io(&format!("--text-file {file}"), &e))?,
        None => super::read_stdin("--stdin-text")?,
    };
    String::from_utf8(bytes).map_err(|_| {
        Error::new(
            crate::error::Code::FileUnsupported,
            format!("the payload of {flag} is not valid UTF-8"),
        )
        .detail("reason", "not_utf8")
    })
}

fn operation(ws: &Workspace, args: &PatchArgs) -> Result<NodeOp> {
    let mut ops = Vec::new();
    if let Some(v) = &args.replace {
        ops.push(NodeOp::Replace(payload(ws, args, v, "--replace")?));
    }
    if let Some(v) = &args.set_line {
        ops.push(NodeOp::Replace(payload(ws, args, v, "--set-line")?));
    }
    if let Some(v) = &args.replace_range {
        ops.push(NodeOp::Replace(payload(ws, args, v, "--replace-range")?));
    }
    if let Some(v) = &args.insert_after_line {
        ops.push(NodeOp::InsertAfter(payload(
            ws,
            args,
            v,
            "--insert-after-line",
        )?));
    }
    if args.delete {
        ops.push(NodeOp::Delete);
    }
    if let Some(v) = &args.insert_before {
        ops.push(NodeOp::InsertBefore(payload(
            ws,
            args,
            v,
            "--insert-before",
        )?));
    }
    if let Some(v) = &args.insert_after {
        ops.push(NodeOp::InsertAfter(payload(ws, args, v, "--insert-after")?));
    }
    if let Some(v) = &args.insert {
        ops.push(NodeOp::Insert(payload(ws, args, v, "--insert")?));
    }
    if let (Some(pattern), Some(v)) = (&args.scoped_regex, &args.scoped_replacement) {
        ops.push(NodeOp::ScopedRegex {
            pattern: pattern.clone(),
            replacement: payload(ws, args, v, "--scoped-replacement")?,
        });
    }
    match ops.len() {
        1 => Ok(ops.remove(0)),
        0 => Err(usage(
            "give one operation: --replace, --delete, --insert-before, --insert-after, --insert or --scoped-regex",
        )),
        _ => Err(usage("give exactly one operation per patch")),
    }
}

/// `--at`: a node identity, a line anchor or a file boundary.
fn at_target(value: &str, end: Option<&String>) -> Result<Target> {
    let is_identity = value.len() == 16 && value.bytes().all(|b| b.is_ascii_hexdigit());
    if end.is_some() && (is_identity || !value.contains(':')) {
        return Err(usage("--end-anchor goes with --at LINE:HASH"));
    }
    match value.to_ascii_lowercase().as_str() {
        "file-start" | "file_start" => return Ok(Target::FileStart),
        "file-end" | "file_end" => return Ok(Target::FileEnd),
        _ => {}
    }
    if is_identity {
        let identity = value.to_ascii_lowercase();
        return Ok(Target::Node {
            identity,
            kind: None,
            expected_hash: None,
            span_hint: None,
        });
    }
    let start = LineAnchor::parse(value).map_err(usage)?;
    let end = end
        .map(|e| LineAnchor::parse(e))
        .transpose()
        .map_err(usage)?;
    Ok(Target::Lines { start, end })
}

/// `--config-path` with its action; no other target or operation may be given.
fn config_kind(
    ws: &Workspace,
    args: &PatchArgs,
    path: &str,
    expected: Option<crate::plan::Digest>,
) -> Result<OpKind> {
    let others = args.find.is_some()
        || args.symbol.is_some()
        || args.at.is_some()
        || args.kind.is_some()
        || args.replace.is_some()
        || args.insert_before.is_some()
        || args.insert_after.is_some()
        || args.insert.is_some()
        || args.scoped_regex.is_some();
    if others {
        return Err(usage(
            "--config-path is a target of its own: use --set-value, --append-value or --delete",
        ));
    }
    let mut actions = Vec::new();
    if let Some(v) = &args.set_value {
        actions.push(ConfigAction::Set(payload(ws, args, v, "--set-value")?));
    }
    if let Some(v) = &args.append_value {
        actions.push(ConfigAction::Append(payload(
            ws,
            args,
            v,
            "--append-value",
        )?));
    }
    if args.delete {
        actions.push(ConfigAction::Delete);
    }
    if actions.len() != 1 {
        return Err(usage(
            "--config-path takes exactly one of --set-value, --append-value or --delete",
        ));
    }
    let config = ConfigOp {
        path: path.to_owned(),
        action: actions.remove(0),
        create_missing: args.create_missing,
        document_index: args.document_index,
    };
    crate::locate::config::op_kind(config, expected)
}

fn target(args: &PatchArgs) -> Result<Target> {
    let families = usize::from(args.symbol.is_some())
        + usize::from(args.at.is_some())
        + usize::from(args.kind.is_some());
    if families != 1 {
        return Err(usage(
            "give exactly one target: --find, --symbol, --at, or --kind with --name",
        ));
    }
    if args.name.is_some() && args.kind.is_none() {
        return Err(usage("--name goes with --kind"));
    }
    if let Some(symbol) = &args.symbol {
        return Ok(Target::Symbol(symbol.clone()));
    }
    if let Some(kind) = &args.kind {
        return Ok(Target::Selector {
            kind: kind.clone(),
            name: args.name.clone(),
            exclude_kinds: Vec::new(),
        });
    }
    at_target(
        args.at.as_deref().unwrap_or_default(),
        args.end_anchor.as_ref(),
    )
}

fn from_flags(ws: &Workspace, args: &PatchArgs) -> Result<Plan> {
    let file = args.file.clone().ok_or_else(|| usage("FILE is required"))?;
    let expected = args.find_flags.expected()?;
    let config_flags = args.set_value.is_some()
        || args.append_value.is_some()
        || args.create_missing
        || args.document_index.is_some();
    if config_flags && args.config_path.is_none() {
        return Err(usage(
            "--set-value, --append-value, --create-missing and --document-index go with --config-path",
        ));
    }
    let kind = if let Some(config_path) = &args.config_path {
        config_kind(ws, args, config_path, expected)?
    } else if let Some(find) = &args.find {
        if args.symbol.is_some() || args.at.is_some() || args.kind.is_some() {
            return Err(usage(
                "--find is a target of its own; drop --symbol, --at and --kind",
            ));
        }
        let replace = payload(
            ws,
            args,
            args.replace.as_ref().unwrap_or(&None),
            "--replace",
        )?;
        args.find_flags.edit(find.clone(), replace)?
    } else {
        let target = target(args)?;
        let op = operation(ws, args)?;
        op.check(&target).map_err(usage)?;
        OpKind::Targeted {
            target,
            op,
            expected,
            repair: args.auto_repair,
        }
    };
    Ok(Plan::single("patch_flags", file, "operations", kind))
}
