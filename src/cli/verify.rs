//! `verify [LABEL]`: re-prove a receipt (default: the newest) against the work tree as it is.
//! Exit 0 passed, 1 failed, 3 incomplete. `verify --range A..B`: the provenance of every hunk
//! of a range of commits (`receipt::range`, reported by `report::range`).

use clap::Args;
use serde_json::{Map, Value, json};

use crate::error::Result;
use crate::receipt::{store, verify::Verdict};
use crate::report::Report;
use crate::workspace::Workspace;

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
    /// Check a range of commits instead (`A..B`, e.g. `origin/main..HEAD`): which hunks
    /// verified receipts made and which came by hand. Exit 0 covered or allowed, 1 a receipt
    /// does not verify, 3 hunks `--require` asks for came by hand.
    #[arg(long, value_name = "A..B", conflicts_with_all = ["label", "bundle", "accept_residue"])]
    pub range: Option<String>,
    /// With --range: `all` (every hunk must be covered) or `files=GLOB` (hunks of matching
    /// files must be); repeatable.
    #[arg(long, value_name = "POLICY", requires = "range")]
    pub require: Vec<crate::report::range::Require>,
    /// Print the JSON document (as `--format json`).
    #[arg(long)]
    pub json: bool,
}

pub fn run(ws: &Workspace, args: &VerifyArgs) -> Result<Report> {
    let repo = crate::git::repo::open(ws)?;
    if let Some(range) = &args.range {
        let provenance = crate::receipt::range::provenance(&repo, range)?;
        return Ok(crate::report::range::report(&provenance, &args.require));
    }
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
    text.push_str("  check      status      detail\n");
    for check in &result.checks {
        let status = json!(check.status);
        let detail = match check.status {
            Verdict::Passed => String::new(),
            _ => describe(&check.detail),
        };
        let line = format!(
            "  {:<10} {:<11} {detail}",
            check.name,
            status.as_str().unwrap_or("?")
        );
        text.push_str(line.trim_end());
        text.push('\n');
    }
    let exit = match result.verdict {
        Verdict::Passed => None,
        Verdict::Failed => Some(crate::error::EXIT_REFUSED),
        Verdict::Incomplete => Some(EXIT_INCOMPLETE),
    };
    Ok(Report::new(json, text).exit(exit))
}

/// A check's detail as words: `key: value` pairs, lists joined by commas, nothing empty.
fn describe(detail: &Value) -> String {
    match detail {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(describe)
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k, describe(v)))
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| match v.contains(": ") {
                true => format!("{k}: ({v})"),
                false => format!("{k}: {v}"),
            })
            .collect::<Vec<_>>()
            .join("; "),
        other => other.to_string(),
    }
}

pub fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}
