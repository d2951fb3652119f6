//! `show [LABEL]`: one receipt, with the diff between its stored pre- and post-images.

use clap::Args;
use serde_json::{Map, json};

use crate::error::Result;
use crate::receipt::{FileRecord, store};
use crate::report::Report;
use crate::workspace::Workspace;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Receipt label or commit id (default: the newest receipt).
    pub label: Option<String>,
    /// agent-edit's form: a bundle path whose last component is the label.
    #[arg(long, value_name = "PATH", conflicts_with = "label")]
    pub bundle: Option<String>,
}

pub fn run(ws: &Workspace, args: &ShowArgs) -> Result<Report> {
    let repo = crate::git::repo::open(ws)?;
    let name = super::bundle_label(args.label.as_deref(), args.bundle.as_deref());
    let stored = store::resolve(&repo, name.as_deref())?;
    let mut diff = String::new();
    for file in &stored.receipt.files {
        diff.push_str(&file_diff(&repo, &stored, file)?);
    }
    let receipt = &stored.receipt;
    let mut text = format!(
        "receipt {}\nlabel   {}\nstatus  {}\ncommand {}\ntime    {}\ninput   {} sha256 {}\n\n",
        stored.commit,
        receipt.label,
        json!(receipt.status).as_str().unwrap_or("?"),
        receipt.command,
        receipt.time,
        super::log::input_name(&receipt.input.dialect),
        receipt.input.sha256
    );
    text.push_str(&diff);
    let mut json = Map::new();
    json.insert("commit".into(), stored.commit.to_string().into());
    json.insert("receipt".into(), json!(receipt));
    json.insert("diff".into(), diff.into());
    Ok(Report::new(json, text))
}

/// The git-style diff of one recorded path, from the receipt's own images.
fn file_diff(repo: &gix::Repository, stored: &store::Stored, file: &FileRecord) -> Result<String> {
    let before_path = file.moved_from.as_deref().unwrap_or(&file.path);
    let before = store::before_image(repo, stored.commit, before_path)?;
    let after = store::after_image(repo, stored.commit, file)?;
    if file.moved_to.is_some() {
        return Ok(String::new());
    }
    Ok(crate::report::diff::unified(
        before_path,
        &file.path,
        before.as_deref(),
        after.as_deref(),
    ))
}
