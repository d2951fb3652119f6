//! `undo [LABEL]`: restore a receipt's pre-images (default: the newest receipt) through the
//! transaction engine, recorded as a receipt of kind `undo`. Undoing an undo is a redo.

use clap::Args;

use super::flags::WriteFlags;
use crate::error::Result;
use crate::receipt::record::Intent;
use crate::receipt::{AppliedTo, Kind, Reference, store, undo};
use crate::report::Report;
use crate::txn::journal::Recovered;
use crate::workspace::Workspace;

#[derive(Debug, Args)]
pub struct UndoArgs {
    /// Receipt label or commit id (default: the newest receipt).
    pub label: Option<String>,
    /// agent-edit's form: a bundle path whose last component is the label.
    #[arg(long, value_name = "PATH", conflicts_with = "label")]
    pub bundle: Option<String>,
    #[command(flatten)]
    pub write: WriteFlags,
}

pub fn run(ws: &Workspace, args: &UndoArgs) -> Result<(Report, Vec<Recovered>)> {
    let repo = crate::git::repo::open(ws)?;
    let name = super::bundle_label(args.label.as_deref(), args.bundle.as_deref());
    let stored = store::resolve(&repo, name.as_deref())?;
    let plan = undo::plan(&repo, &ws.root, &stored)?;
    let target = Reference {
        receipt: stored.commit.to_string(),
        label: stored.receipt.label.clone(),
    };
    let input = serde_json::to_vec(&target).unwrap_or_default();
    let mut intent = Intent::for_plan("undo", &plan, input);
    intent.kind = Kind::Undo;
    intent.undoes = Some(target);
    // A receipt written to the index only is undone in the index only; a staged write is
    // undone staged.
    let cached = args.write.cached || stored.receipt.applied_to == AppliedTo::Index;
    let flags = WriteFlags {
        cached,
        stage: !cached && (args.write.stage || stored.receipt.staged),
        ..args.write.clone()
    };
    intent.staged = flags.stage;
    let (mut report, recovered) =
        super::write::run_intent(ws, &plan, intent, flags.options(), &flags)?;
    if !args.write.dry_run {
        undo::prune_dirs(ws, &stored);
    }
    report.json.insert(
        "undoes".into(),
        serde_json::json!({"commit": stored.commit.to_string(), "label": stored.receipt.label}),
    );
    Ok((report, recovered))
}
