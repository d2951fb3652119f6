//! The command line: clap definitions, dispatch (one line per command) and the shared
//! options. Each subcommand lives in its own file and returns a [`Report`] or an [`Error`].

pub mod apply;
mod deferred;
pub mod edit;
pub mod entries;
pub mod flags;
pub mod handoff;
pub mod help;
pub mod hook;
pub mod info;
pub mod log;
pub mod output;
pub mod patch;
pub mod pipeline;
pub mod read;
pub mod recover;
pub mod remote;
#[cfg(test)]
mod roundtrip;
pub mod show;
pub mod stale_anchor;
pub mod symbol_flags;
pub mod undo;
pub mod verify;
pub mod write;

use clap::{Parser, Subcommand, ValueEnum};
pub use deferred::Deferred;

use crate::error::{Error, Result};
use crate::report::Report;
use crate::txn::journal;
use crate::workspace::Workspace;

/// Precise, provable, reversible source edits for coding agents.
#[derive(Debug, Parser)]
#[command(name = "git-identedit", bin_name = "git identedit", version, about)]
pub struct Cli {
    /// Output format: `json` (one document on stdout) or `text`. Default: text on a terminal,
    /// JSON otherwise; `read`, `instructions`, `hook`, `man`, `completions` and any `--diff`
    /// print text unless `--format json` is given; `schema` is always the JSON Schema.
    #[arg(long, global = true, value_enum)]
    pub format: Option<Format>,
    /// Colour of text output: accepted on every command for the tools that pass it (as in
    /// `apply --dry-run --diff --color never`); `always` colours a printed diff.
    #[arg(long, global = true, value_enum, value_name = "WHEN")]
    pub color: Option<Color>,
    /// Queue this long for the locks of files another process is editing, then refuse with
    /// `resource_busy`. Default: `IDENTEDIT_LOCK_TIMEOUT_MS`, else `git config identedit.wait`
    /// (seconds), else 10 s.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = crate::workspace::lock::parse_seconds)]
    pub wait: Option<std::time::Duration>,
    #[command(subcommand)]
    pub command: Command,
}

/// `--color` values (`always` colours a diff; the others print plain text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

/// `--format` values: how the result is printed (the input dialect of `apply` is `--dialect`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Json,
    Text,
}

/// Parsed once per process, so the size difference between variants does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Edit one file: an exact find/replace or a symbol edit
    ///
    /// `--find/--replace` is one exact find/replace; `--symbol S --replace-body` (and the other
    /// symbol operations) edits a PHP, Python or TypeScript declaration by name; with `--json`
    /// an edit request on stdin is compiled into a changeset (never writes).
    Edit(Deferred<edit::EditArgs>),
    /// Change one target with one operation
    ///
    /// Targets: text (--find), a structure (--symbol, --at ID, --kind/--name), lines
    /// (--at LINE:HASH), a file boundary (--at file-start|file-end) or a config value
    /// (--config-path).
    Patch(Deferred<patch::PatchArgs>),
    /// Show a file's structures, one structure with context, or its lines with anchors
    Read(Deferred<read::ReadArgs>),
    /// Apply a plan, SEARCH/REPLACE blocks, a Codex patch or a diff, all or nothing
    ///
    /// The input (a file, or `-` for stdin) is a source_edit_plan, Aider SEARCH/REPLACE blocks, a
    /// Codex patch, a unified diff, an edit list or a changeset; `--dialect` skips detection.
    Apply(Deferred<apply::ApplyArgs>),
    /// Re-prove a receipt (default: the newest)
    ///
    /// Exit 0 passed, 1 failed, 3 incomplete.
    Verify(Deferred<verify::VerifyArgs>),
    /// Restore a receipt's pre-images (default: the newest), unless a file drifted since
    Undo(Deferred<undo::UndoArgs>),
    /// List the receipts of the operation log, newest first
    Log(Deferred<log::LogArgs>),
    /// Show one receipt and its diff
    Show(Deferred<show::ShowArgs>),
    /// Print the JSON Schema of the plan (always JSON)
    Schema,
    /// List what this build can execute
    Capabilities,
    /// Print operating instructions for a coding agent (prose; JSON with --format json)
    Instructions,
    /// Git hooks: install, uninstall, and the pre-commit / post-commit checks they run
    Hook(Deferred<hook::HookArgs>),
    /// Print or install the manual pages (`git identedit --help` opens them)
    ///
    /// Without options the main page is printed; `--install` writes every page beside the
    /// binary (`<prefix>/share/man/man1`), `--dir DIR` into DIR.
    Man(Deferred<help::ManArgs>),
    /// Print a shell completion script (bash, zsh, fish)
    Completions(Deferred<help::CompletionsArgs>),
    /// Show and settle interrupted transactions (rolled back, rolled forward when finished,
    /// unreadable journals quarantined); `--dry-run` only shows them.
    Recover(Deferred<recover::RecoverArgs>),
    /// Serve these commands as tools over the Model Context Protocol (stdio)
    ///
    /// Rooted at the current directory, or `--repo PATH`; exits when stdin closes.
    Mcp(Deferred<crate::mcp::McpArgs>),
    /// Send this clone's receipts and notes to a remote (default `origin`) with `git push`
    Push(Deferred<remote::RemoteArgs>),
    /// Fetch every clone's receipts from a remote and merge its notes (`cat_sort_uniq`)
    Fetch(Deferred<remote::RemoteArgs>),
    /// Configure a remote so plain `git push` / `git fetch` carry the receipts
    Remote(Deferred<remote::SetupArgs>),
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
            Command::Man(_) => "man",
            Command::Completions(_) => "completions",
            Command::Recover(_) => "recover",
            Command::Push(_) => "push",
            Command::Fetch(_) => "fetch",
            Command::Remote(_) => "remote",
            Command::Mcp(_) => "mcp",
        }
    }

    /// Whether text is this command's natural output when no format is asked for: `read` (as
    /// identedit prints it), `instructions` (prose for a prompt), hooks (git prints them),
    /// pages and scripts, and any `--diff` (a diff is text).
    pub fn prefers_text(&self) -> bool {
        match self {
            Command::Read(_)
            | Command::Instructions
            | Command::Man(_)
            | Command::Completions(_) => true,
            Command::Hook(_) => true,
            _ => self.shows_diff(),
        }
    }

    /// Whether the command prints a diff (`--diff`): the only text `--color always` colours.
    fn shows_diff(&self) -> bool {
        match self {
            Command::Edit(a) => a.write.diff,
            Command::Patch(a) => a.write.diff,
            Command::Apply(a) => a.write.diff,
            Command::Undo(a) => a.write.diff,
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
            Command::Verify(a) => a.json,
            _ => false,
        }
    }
}

/// Runs a parsed command: recovers interrupted transactions first, then dispatches.
pub fn run(cli: &Cli, format: Format) -> (Result<Report>, Vec<journal::Recovered>) {
    run_with_input(cli, format, None)
}

/// [`run`], with `apply`'s input given as bytes instead of a file or stdin (the `mcp` tools).
pub fn run_with_input(
    cli: &Cli,
    format: Format,
    input: Option<Vec<u8>>,
) -> (Result<Report>, Vec<journal::Recovered>) {
    // Pages and scripts need no workspace (they also answer in a bare repository).
    match &cli.command {
        Command::Man(args) => return (help::man(args).map(|(r, _)| r), Vec::new()),
        Command::Completions(args) => return (Ok(help::completions(args).0), Vec::new()),
        _ => {}
    }
    let ws = match Workspace::discover() {
        Ok(ws) => ws,
        Err(e) => return (Err(e), Vec::new()),
    };
    let root = ws.repo.as_ref().map(|r| r.workdir.clone());
    crate::workspace::lock::configure(cli.wait, root, wait_setting);
    // A hook must not roll back a half-written transaction under a running `git commit`: the
    // pre-commit check reports it instead.
    let mut recovered = match cli.command {
        Command::Hook(_) | Command::Recover(_) => Vec::new(),
        _ => journal::recover(&ws.journal_dir()),
    };
    let result = match &cli.command {
        Command::Edit(args) => edit::run(&ws, args),
        Command::Patch(args) if cli.color.is_some() && !args.write.diff => Err(usage_error(
            "--color only affects --diff output: add --dry-run --diff, or drop --color",
        )),
        Command::Patch(args) => patch::run(&ws, args),
        Command::Read(args) => read::run(&ws, args, format == Format::Json),
        Command::Apply(args) => apply::run(&ws, args, input),
        Command::Verify(args) => verify::run(&ws, args).map(|r| (r, Vec::new())),
        Command::Undo(args) => undo::run(&ws, args),
        Command::Log(args) => log::run(&ws, args).map(|r| (r, Vec::new())),
        Command::Show(args) => show::run(&ws, args).map(|r| (r, Vec::new())),
        Command::Schema => Ok(info::schema()),
        Command::Capabilities => Ok(info::capabilities()),
        Command::Instructions => Ok(info::instructions()),
        Command::Hook(args) => hook::run(&ws, args),
        Command::Man(_) | Command::Completions(_) => unreachable!("answered before discovery"),
        Command::Recover(args) => recover::run(&ws, args),
        Command::Push(args) => remote::run_push(&ws, args).map(|r| (r, Vec::new())),
        Command::Fetch(args) => remote::run_fetch(&ws, args).map(|r| (r, Vec::new())),
        Command::Remote(args) => remote::run_setup(&ws, args).map(|r| (r, Vec::new())),
        Command::Mcp(_) => Err(usage_error("`mcp` is served from the command line only")),
    };
    let result = result.map(|(mut report, more)| {
        recovered.extend(more);
        if cli.color == Some(Color::Always) && cli.command.shows_diff() {
            report.text = output::colored_diff(&report.text);
        }
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

thread_local! {
    /// The command line of the call being served by `mcp` (its tool call as CLI arguments),
    /// recorded instead of the server's own.
    static SERVED_COMMAND_LINE: std::cell::RefCell<Option<Vec<String>>> =
        const { std::cell::RefCell::new(None) };
}

/// Sets (or clears) the command line [`command_line`] records on this thread.
pub fn serve_command_line(args: Option<Vec<String>>) {
    SERVED_COMMAND_LINE.with(|cell| *cell.borrow_mut() = args);
}

/// The command line as JSON: the recorded input of commands that take their plan as flags.
pub(crate) fn command_line() -> Vec<u8> {
    let served = SERVED_COMMAND_LINE.with(|cell| cell.borrow().clone());
    let args: Vec<String> = served.unwrap_or_else(|| std::env::args().skip(1).collect());
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

/// `git config identedit.wait` of the repository at `root` (an unreadable value is ignored).
fn wait_setting(root: &std::path::Path) -> Option<String> {
    let repo = crate::git::repo::discover(root).ok()?;
    let value = repo.config_snapshot().string("identedit.wait")?;
    Some(value.to_string())
}
