//! `log`: the receipts of every clone's operation log (this clone's and the fetched ones),
//! newest first, each saying which log it came from. Text shows the command that was run
//! (`edit`, `patch`, `apply`, `undo`) and what its input was.

use clap::Args;
use serde_json::{Map, Value, json};

use crate::error::Result;
use crate::receipt::logs;
use crate::report::Report;
use crate::workspace::Workspace;

#[derive(Debug, Args)]
pub struct LogArgs {
    /// Show at most N receipts.
    #[arg(long, short = 'n', value_name = "N", default_value_t = 50)]
    pub max_count: usize,
    /// Answer in JSON (the same as `--format json`).
    #[arg(long)]
    pub json: bool,
}

/// What the input was, in the words of the command line: the flags of `edit`/`patch`, a plan,
/// blocks, a patch, a diff, a changeset, a request.
pub(crate) fn input_name(dialect: &str) -> &str {
    match dialect {
        "edit_flags" | "patch_flags" => "flags",
        "source_edit_plan" => "plan",
        "identedit_changeset" => "changeset",
        "patch_request" | "edit_request" => "request",
        "edit_list" => "edit list",
        other => other,
    }
}

pub fn run(ws: &Workspace, args: &LogArgs) -> Result<Report> {
    let repo = crate::git::repo::open(ws)?;
    let entries = logs::merged(&repo, args.max_count)?;
    let mut text = String::new();
    let receipts: Vec<Value> = entries
        .iter()
        .map(|entry| {
            let s = &entry.stored;
            let r = &s.receipt;
            let files: Vec<&str> = r.files.iter().map(|f| f.path.as_str()).collect();
            text.push_str(&format!(
                "{}  {}  {:<14} {:<7} {:<5} {:<9} {}  [{}]\n",
                super::verify::short(&s.commit.to_string()),
                r.time,
                entry.source.short(),
                json!(r.status).as_str().unwrap_or("?"),
                r.command,
                input_name(&r.input.dialect),
                r.label,
                files.join(", ")
            ));
            json!({"commit": s.commit.to_string(), "label": r.label, "time": r.time,
                   "status": r.status, "kind": r.kind, "command": r.command,
                   "format": r.input.dialect, "files": files, "undoes": r.undoes,
                   "source": entry.source})
        })
        .collect();
    if receipts.is_empty() {
        text.push_str("no receipts yet\n");
    }
    let mut json = Map::new();
    json.insert("receipts".into(), receipts.into());
    Ok(Report::new(json, text))
}
