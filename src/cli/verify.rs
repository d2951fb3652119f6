//! `verify [LABEL]`: re-prove a receipt (default: the newest) against the work tree as it is.
//! Exit 0 passed, 1 failed, 3 incomplete.

use clap::Args;
use serde_json::{Map, json};

use crate::error::Result;
use crate::receipt::{store, verify::Verdict};
use crate::report::Report;
use crate::target::workspace::Workspace;

/// Exit code of a verify that could not prove everything.
pub const EXIT_INCOMPLETE: u8 = 3;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Receipt label or commit id (default: the newest receipt).
    pub label: Option<String>,
    /// agent-edit's form: a bundle path whose last component is the label
    /// (`--bundle=.agent-edit/receipts/<label>`).
    #[arg(long, value_name = "PATH", conflicts_with = "label")]
    pub bundle: Option<String>,
    /// Accept open residue (mentions of removed symbols in documents and templates) for this
    /// reason: the verdict can then pass, and the reason is reported.
    #[arg(long, value_name = "REASON")]
    pub accept_residue: Option<String>,
}

pub fn run(ws: &Workspace, args: &VerifyArgs) -> Result<Report> {
    let repo = crate::git::repo::open(ws)?;
    let name = super::bundle_label(args.label.as_deref(), args.bundle.as_deref());
    let stored = store::resolve(&repo, name.as_deref())?;
    let accept = args.accept_residue.as_deref();
    let result = crate::receipt::verify::verify(&repo, &ws.root, &stored, accept)?;
    let verdict = json!(result.verdict);
    let mut json = Map::new();
    json.insert("status".into(), verdict.clone());
    json.insert(
        "receipt".into(),
        json!({"commit": stored.commit.to_string(), "label": stored.receipt.label,
               "kind": stored.receipt.kind, "time": stored.receipt.time}),
    );
    json.insert("checks".into(), json!(result.checks));
    let mut text = format!(
        "{} {} ({})\n",
        verdict.as_str().unwrap_or("?"),
        stored.receipt.label,
        short(&stored.commit.to_string())
    );
    for check in &result.checks {
        let status = json!(check.status);
        text.push_str(&format!(
            "  {:<10} {}\n",
            check.name,
            status.as_str().unwrap_or("?")
        ));
        if check.status != Verdict::Passed {
            text.push_str(&format!("             {}\n", check.detail));
        }
    }
    let exit = match result.verdict {
        Verdict::Passed => None,
        Verdict::Failed => Some(crate::error::EXIT_REFUSED),
        Verdict::Incomplete => Some(EXIT_INCOMPLETE),
    };
    Ok(Report {
        json,
        text,
        exit,
        ..Report::default()
    })
}

pub fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}
