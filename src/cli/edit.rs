//! `edit` / `patch FILE --find … --replace …`: one exact find/replace, compiled into a plan of
//! one operation and applied by the transaction engine. `--json` reads the request from stdin.

use clap::Args;

use super::flags::{FindFlags, WriteFlags};

use crate::error::{Error, Result};
use crate::plan::Plan;
use crate::report::Report;
use crate::txn::journal::Recovered;
use crate::workspace::Workspace;

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
    /// Read the request from stdin as JSON and answer in JSON: an identedit edit request
    /// (`command: "edit"`) prints its changeset without writing; a source_edit_plan is applied.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub symbols: super::symbol_flags::SymbolFlags,
}

pub fn run(ws: &Workspace, args: &EditArgs) -> Result<(Report, Vec<Recovered>)> {
    if args.json {
        return from_stdin(ws, args);
    }
    let mut plan = if args.symbols.wanted() {
        let find = args.find.is_some() || args.replace.is_some();
        args.symbols
            .plan(args.file.clone(), find, args.find_flags.expected()?)?
    } else {
        from_flags(args)?
    };
    args.symbols.acknowledge(&mut plan);
    let input = super::command_line();
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

/// `--json`: an identedit edit request on stdin builds a changeset (nothing is written); a
/// `source_edit_plan` is applied as before.
fn from_stdin(ws: &Workspace, args: &EditArgs) -> Result<(Report, Vec<Recovered>)> {
    if args.find.is_some() || args.replace.is_some() || args.file.is_some() {
        return Err(super::usage_error(
            "`--json` reads the whole request from stdin; drop FILE, --find and --replace",
        ));
    }
    let input = super::read_stdin("the request")?;
    let value: serde_json::Value = serde_json::from_slice(&input)
        .map_err(|e| Error::malformed(format!("the request is not valid JSON: {e}")))?;
    if value.get("type").is_none() {
        return Ok((
            super::pipeline::build(
                ws,
                &input,
                args.write.options(),
                args.symbols.allow_signature_change,
            )?,
            Vec::new(),
        ));
    }
    let mut plan = crate::formats::compile(&input, None)?;
    args.symbols.acknowledge(&mut plan);
    super::write::run(ws, "edit", &plan, input, args.write.options(), &args.write)
}
