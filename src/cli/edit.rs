//! `edit` / `patch FILE --find … --replace …`: one exact find/replace, compiled into a plan of
//! one operation and applied by the transaction engine. `--json` reads the request from stdin.

use std::io::Read;

use clap::Args;

use super::flags::{FindFlags, WriteFlags};

use crate::error::{Code, Error, Result};
use crate::plan::Plan;
use crate::report::Report;
use crate::target::workspace::Workspace;
use crate::txn::journal::Recovered;

#[derive(Debug, Args)]
pub struct EditArgs {
    /// File to edit, relative to the current directory.
    pub file: Option<String>,
    /// Exact text to find (must occur once unless --occurrence or --all).
    #[arg(long, allow_hyphen_values = true)]
    pub find: Option<String>,
    /// Text to put in its place.
    #[arg(long, allow_hyphen_values = true)]
    pub replace: Option<String>,
    #[command(flatten)]
    pub find_flags: FindFlags,
    #[command(flatten)]
    pub write: WriteFlags,
    /// Read the request from stdin as JSON (a source_edit_plan) and answer in JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub symbols: super::symbol_flags::SymbolFlags,
}

pub fn run(ws: &Workspace, args: &EditArgs) -> Result<(Report, Vec<Recovered>)> {
    let (mut plan, input) = if args.json {
        from_stdin(args)?
    } else if args.symbols.wanted() {
        let find = args.find.is_some() || args.replace.is_some();
        let expected = args.find_flags.expected()?;
        let plan = args.symbols.plan(args.file.clone(), find, expected)?;
        (plan, super::command_line())
    } else {
        (from_flags(args)?, super::command_line())
    };
    args.symbols.acknowledge(&mut plan);
    super::write::run(ws, "edit", &plan, input, args.write.options(), &args.write)
}

fn from_flags(args: &EditArgs) -> Result<Plan> {
    let missing = |flag: &str| super::usage_error(format!("`{flag}` is required"));
    let file = args.file.clone().ok_or_else(|| missing("FILE"))?;
    let find = args.find.clone().ok_or_else(|| missing("--find"))?;
    let replace = args.replace.clone().ok_or_else(|| missing("--replace"))?;
    let kind = args.find_flags.edit(find, replace)?;
    Ok(Plan::single("edit_flags", file, "edits", kind))
}

/// `--json`: the request is a `source_edit_plan` on stdin (identedit's node and line request
/// shapes need the syntax layer, which this build does not have).
fn from_stdin(args: &EditArgs) -> Result<(Plan, Vec<u8>)> {
    if args.find.is_some() || args.replace.is_some() || args.file.is_some() {
        return Err(super::usage_error(
            "`--json` reads the whole request from stdin; drop FILE, --find and --replace",
        ));
    }
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| Error::io("reading stdin", &e))?;
    let value: serde_json::Value = serde_json::from_slice(&input)
        .map_err(|e| Error::malformed(format!("the request is not valid JSON: {e}")))?;
    if value.get("type").is_none() && value.get("command").is_some() {
        return Err(Error::new(
            Code::PlanUnsupported,
            "identedit request shapes (`command`, `target`, `op`) are not executable by this build",
        )
        .hint("Send a source_edit_plan instead (see `git identedit schema`)."));
    }
    Ok((crate::formats::compile(&input, None)?, input))
}
