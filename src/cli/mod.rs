//! The command line: clap definitions, dispatch (one line per command) and the shared
//! options. Each subcommand lives in its own file and returns a [`Report`] or an [`Error`].

pub mod apply;
pub mod edit;
pub mod flags;
pub mod handoff;
pub mod hook;
pub mod info;
pub mod log;
pub mod output;
pub mod patch;
pub mod pipeline;
pub mod read;
pub mod recover;
pub mod show;
pub mod symbol_flags;
pub mod undo;
pub mod verify;
pub mod write;

use clap::{Parser, Subcommand, ValueEnum};

use crate::error::{Error, Result};
use crate::report::Report;
use crate::target::workspace::Workspace;
use crate::txn::journal;

/// Precise, provable, reversible source edits for coding agents.
#[derive(Debug, Parser)]
#[command(name = "git-identedit", bin_name = "git identedit", version, about)]
pub struct Cli {
    /// Output format: `json` (one document on stdout) or `text`. Default: text on a terminal,
    /// JSON otherwise.
    #[arg(long, global = true, value_enum)]
    pub format: Option<Format>,
    /// Colour of text output: accepted on every command for the tools that pass it (as in
    /// `apply --dry-run --diff --color never`); output is never coloured.
    #[arg(long, global = true, value_enum, value_name = "WHEN")]
    pub color: Option<Color>,
    #[command(subcommand)]
    pub command: Command,
}

/// `--color` values (all print plain text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Json,
    Text,
    /// `apply` only: the input is a source_edit_plan (the same as `--dialect plan`).
    Plan,
    /// `apply` only: the input is SEARCH/REPLACE blocks (`--dialect blocks`).
    Blocks,
    /// `apply` only: the input is a Codex patch (`--dialect codex`).
    Codex,
    /// `apply` only: the input is a unified diff (`--dialect diff`).
    Diff,
}

impl Format {
    /// The input dialect a `--format` value names, when it names one.
    pub fn dialect(self) -> Option<crate::formats::Dialect> {
        use crate::formats::Dialect;
        match self {
            Format::Plan => Some(Dialect::Plan),
            Format::Blocks => Some(Dialect::Blocks),
            Format::Codex => Some(Dialect::Codex),
            Format::Diff => Some(Dialect::Diff),
            Format::Json | Format::Text => None,
        }
    }
}

/// Parsed once per process, so the size difference between variants does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// One exact find/replace (agent-edit's direct edit), a symbol edit (--symbol …), or with
    /// --json an edit request compiled into a changeset (never writes).
    Edit(edit::EditArgs),
    /// Change one target: text (--find), a structure (--symbol, --at ID, --kind/--name), lines
    /// (--at LINE:HASH), a file boundary (--at file-start|file-end) or a config value
    /// (--config-path).
    Patch(patch::PatchArgs),
    /// Show a file's structures, one structure with context, or its lines with anchors.
    Read(read::ReadArgs),
    /// Apply a source_edit_plan, SEARCH/REPLACE blocks, a Codex patch, a unified diff, an edit
    /// list or a changeset, from a file or `-` (stdin), all or nothing.
    Apply(apply::ApplyArgs),
    /// Re-prove a receipt (default: the newest): exit 0 passed, 1 failed, 3 incomplete.
    Verify(verify::VerifyArgs),
    /// Restore a receipt's pre-images (default: the newest), unless a file drifted since.
    Undo(undo::UndoArgs),
    /// List the receipts of the operation log, newest first.
    Log(log::LogArgs),
    /// Show one receipt and its diff.
    Show(show::ShowArgs),
    /// Print the JSON Schema of the plan.
    Schema,
    /// List what this build can execute.
    Capabilities,
    /// Print prompt-ready operating instructions for a coding agent.
    Instructions,
    /// Git hooks: install, uninstall, and the pre-commit / post-commit checks they run.
    Hook(hook::HookArgs),
    /// Show and settle interrupted transactions (rolled back, rolled forward when finished,
    /// unreadable journals quarantined); `--dry-run` only shows them.
    Recover(recover::RecoverArgs),
}

impl Command {
    pub fn name(&self) -> &'static str {
        match self {
            Command::Edit(_) => "edit",
            Command::Patch(_) => "patch",
            Command::Read(_) => "read",
            Command::Apply(_) => "apply",
            Command::Verify(_) => "verify",
            Command::Undo(_) => "undo",
            Command::Log(_) => "log",
            Command::Show(_) => "show",
            Command::Schema => "schema",
            Command::Capabilities => "capabilities",
            Command::Instructions => "instructions",
            Command::Hook(_) => "hook",
            Command::Recover(_) => "recover",
        }
    }

    /// Whether text is this command's natural output when no format is asked for: `read` (as
    /// identedit prints it) and any `--diff` (a diff is text).
    pub fn prefers_text(&self) -> bool {
        match self {
            Command::Read(_) => true,
            Command::Edit(a) => a.write.diff,
            Command::Patch(a) => a.write.diff,
            Command::Apply(a) => a.write.diff,
            Command::Undo(a) => a.write.diff,
            Command::Hook(_) => true,
            _ => false,
        }
    }

    /// Whether the command asked for JSON itself (`--json`).
    pub fn wants_json(&self) -> bool {
        match self {
            Command::Edit(a) => a.json,
            Command::Patch(a) => a.json,
            Command::Read(a) => a.json,
            Command::Log(a) => a.json,
            Command::Apply(a) => a.json,
            _ => false,
        }
    }
}

/// Runs a parsed command: recovers interrupted transactions first, then dispatches.
pub fn run(cli: &Cli, format: Format) -> (Result<Report>, Vec<journal::Recovered>) {
    let ws = match Workspace::discover() {
        Ok(ws) => ws,
        Err(e) => return (Err(e), Vec::new()),
    };
    // A hook must not roll back a half-written transaction under a running `git commit`: the
    // pre-commit check reports it instead.
    let mut recovered = match cli.command {
        Command::Hook(_) | Command::Recover(_) => Vec::new(),
        _ => journal::recover(&ws.journal_dir()),
    };
    let result = match &cli.command {
        Command::Edit(args) => edit::run(&ws, args),
        Command::Patch(args) => patch::run(&ws, args),
        Command::Read(args) => read::run(&ws, args, format == Format::Json),
        Command::Apply(args) => apply::run(&ws, args, cli.format.and_then(Format::dialect)),
        Command::Verify(args) => verify::run(&ws, args).map(|r| (r, Vec::new())),
        Command::Undo(args) => undo::run(&ws, args),
        Command::Log(args) => log::run(&ws, args).map(|r| (r, Vec::new())),
        Command::Show(args) => show::run(&ws, args).map(|r| (r, Vec::new())),
        Command::Schema => Ok(info::schema()),
        Command::Capabilities => Ok(info::capabilities()),
        Command::Instructions => Ok(info::instructions()),
        Command::Hook(args) => hook::run(&ws, args),
        Command::Recover(args) => recover::run(&ws, args),
    };
    let result = result.map(|(report, more)| {
        recovered.extend(more);
        report
    });
    (result, recovered)
}

/// The receipt a command names: its LABEL argument, or the last component of agent-edit's
/// `--bundle=.agent-edit/receipts/<label>` (receipts live in git, not in a bundle folder).
pub(crate) fn bundle_label(label: Option<&str>, bundle: Option<&str>) -> Option<String> {
    let from_bundle = bundle.and_then(|b| {
        std::path::Path::new(b.trim_end_matches('/'))
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    });
    label.map(str::to_owned).or(from_bundle)
}

/// The command line as JSON: the recorded input of commands that take their plan as flags.
pub(crate) fn command_line() -> Vec<u8> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    serde_json::to_vec(&args).unwrap_or_default()
}

/// The most a command reads from stdin (`IDENTEDIT_MAX_INPUT_BYTES`, default 256 MiB).
pub(crate) fn max_input_bytes() -> u64 {
    std::env::var("IDENTEDIT_MAX_INPUT_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256 << 20)
}

/// Reads all of stdin, refusing more than [`max_input_bytes`] (`what` names the input).
pub(crate) fn read_stdin(what: &str) -> Result<Vec<u8>> {
    use std::io::Read;
    let limit = max_input_bytes();
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(&format!("reading {what} from stdin"), &e))?;
    if bytes.len() as u64 > limit {
        return Err(Error::new(
            crate::error::Code::InvalidRequest,
            format!("{what} on stdin is larger than {limit} bytes"),
        )
        .detail("limit_bytes", limit)
        .hint("Split the input, or raise IDENTEDIT_MAX_INPUT_BYTES."));
    }
    Ok(bytes)
}

/// Shared by commands that apply a plan.
pub(crate) fn usage_error(message: impl Into<String>) -> Error {
    Error::usage(message).hint("Run `git identedit <command> --help` for the accepted options.")
}
