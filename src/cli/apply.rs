//! `apply PLAN|-`: compile the input into a plan and apply it, all or nothing.

use std::io::IsTerminal;

use clap::Args;

use super::flags::WriteFlags;

use crate::error::{Error, Result};
use crate::formats::{self, Dialect};
use crate::report::Report;
use crate::txn::{self, journal::Recovered};
use crate::workspace::Workspace;

#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// Plan file, or `-` for stdin (the default when stdin is not a terminal).
    pub input: Option<String>,
    #[command(flatten)]
    pub write: WriteFlags,
    /// Blocks, hunks and chunks must match exact bytes: no tolerance ladder.
    #[arg(long)]
    pub exact: bool,
    /// Let creations and moves replace an existing file (Codex `*** Add File:` onto a file).
    #[arg(long)]
    pub overwrite: bool,
    /// Input dialect, when detection by content is not wanted.
    #[arg(long, value_enum)]
    pub dialect: Option<Dialect>,
    /// Changesets: remap a stale line anchor whose line moved to exactly one new place, and
    /// refresh the previews from the current content (reported).
    #[arg(long)]
    pub repair: bool,
    /// Acknowledge changes to public declarations (as `"allow_signature_change": true`).
    #[arg(long)]
    pub allow_signature_change: bool,
    /// The input is JSON on stdin when no file is given (a changeset, or identedit's
    /// `{"command": "apply", "changeset": …}`), the same as `apply -`; output is JSON.
    #[arg(long)]
    pub json: bool,
}

/// Applies the input: `given` bytes (the `mcp` tool's text argument), else the file or stdin
/// named on the command line.
pub fn run(
    ws: &Workspace,
    args: &ApplyArgs,
    given: Option<Vec<u8>>,
) -> Result<(Report, Vec<Recovered>)> {
    let input = match (given, args.input.as_deref()) {
        (Some(bytes), _) => bytes,
        (None, Some(path)) => read_input(ws, path)?,
        (None, None) if args.json => read_input(ws, "-")?,
        (None, None) if std::io::stdin().is_terminal() => {
            return Err(super::usage_error(
                "give a plan file, or `-` and the plan on stdin",
            ));
        }
        (None, None) => read_input(ws, "-")?,
    };
    if args.dialect.is_none()
        && let Some(routed) = super::pipeline::route(
            ws,
            &input,
            &super::pipeline::Commit {
                write: &args.write,
                repair: args.repair,
                allow_signature_change: args.allow_signature_change,
            },
        )
    {
        return routed;
    }
    if args.repair {
        return Err(super::usage_error(
            "`--repair` applies to changesets built by `edit --json`",
        ));
    }
    let mut plan = formats::compile(&input, args.dialect)?;
    plan.allow_signature_change |= args.allow_signature_change;
    if let Some(task) = &args.write.task {
        plan.label = Some(task.clone());
    }
    let options = txn::Options {
        exact: args.exact,
        overwrite: args.overwrite,
        ..args.write.options()
    };
    super::write::run(ws, "apply", &plan, input, options, &args.write)
}

/// Reads the plan from stdin (`-`) or a file relative to the current directory.
fn read_input(ws: &Workspace, input: &str) -> Result<Vec<u8>> {
    if input == "-" {
        return super::read_stdin("the plan");
    }
    std::fs::read(ws.cwd.join(input))
        .map_err(|e| Error::io(&format!("reading the plan {input}"), &e).detail("path", input))
}
