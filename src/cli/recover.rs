//! `recover [--dry-run]`: shows, and unless `--dry-run` settles, every interrupted
//! transaction: a journal whose owner died is rolled back (or forward, when every file already
//! holds its post-image); a journal that does not read back is quarantined; a transaction still
//! running is listed and left alone. Every other command settles dead journals on its way in;
//! this one says what it did and what is left.

use clap::Args;
use serde_json::{Map, Value, json};

use crate::error::Result;
use crate::report::Report;
use crate::txn::journal::{self, Recovered};
use crate::workspace::Workspace;

#[derive(Debug, Args)]
pub struct RecoverArgs {
    /// List the pending transactions without settling any.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(ws: &Workspace, args: &RecoverArgs) -> Result<(Report, Vec<Recovered>)> {
    let dir = ws.journal_dir();
    let settled = if args.dry_run {
        Vec::new()
    } else {
        journal::recover(&dir)
    };
    let pending: Vec<Value> = journal::pending(&dir)
        .iter()
        .map(|p| {
            json!({
                "journal": p.path,
                "live": p.live,
                "readable": p.record.is_some(),
                "files": p.record.as_ref().map(|r| r.entries.iter().map(|e| e.rel.clone()).collect::<Vec<_>>()),
            })
        })
        .collect();
    let quarantined = journal::quarantined(&dir);
    let mut text = String::new();
    for r in &settled {
        text.push_str(&format!(
            "settled {} ({}): {} file(s)\n",
            r.journal,
            r.direction,
            r.files.len()
        ));
    }
    for p in &pending {
        text.push_str(&format!(
            "pending {} (live: {})\n",
            p["journal"].as_str().unwrap_or(""),
            p["live"]
        ));
    }
    for q in &quarantined {
        text.push_str(&format!("quarantined {}\n", q.display()));
    }
    if text.is_empty() {
        text.push_str("nothing to recover\n");
    }
    let mut doc = Map::new();
    doc.insert("dry_run".into(), json!(args.dry_run));
    doc.insert("settled".into(), json!(settled));
    doc.insert("pending".into(), Value::Array(pending));
    doc.insert("quarantined".into(), json!(quarantined));
    let report = Report::new(doc, text);
    Ok((report, Vec::new()))
}
