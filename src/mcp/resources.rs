//! Resources: the operating instructions, and the receipts of the operation log (one resource
//! each, read as `show` prints it).

use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents};
use serde::Deserialize;

use crate::cli::{log, output, show};
use crate::report;
use crate::workspace::Workspace;

const INSTRUCTIONS: &str = "identedit://instructions";
const RECEIPT: &str = "identedit://receipt/";

#[derive(Deserialize)]
struct LogEntry {
    commit: String,
    label: String,
    time: String,
    command: String,
}

/// The newest receipts (as many as `log` shows by default).
fn receipts() -> Vec<LogEntry> {
    let Ok(ws) = Workspace::discover() else {
        return Vec::new();
    };
    let args = log::LogArgs {
        max_count: 50,
        json: true,
    };
    let Ok(report) = log::run(&ws, &args) else {
        return Vec::new();
    };
    report
        .json
        .get("receipts")
        .and_then(|r| Vec::<LogEntry>::deserialize(r).ok())
        .unwrap_or_default()
}

pub fn list() -> Vec<Resource> {
    let mut list = vec![
        Resource::new(INSTRUCTIONS, "instructions")
            .with_description("how to edit with these tools")
            .with_mime_type("text/plain"),
    ];
    list.extend(receipts().into_iter().map(|r| {
        Resource::new(format!("{RECEIPT}{}", r.commit), r.label.clone())
            .with_description(format!("{} receipt of {}", r.command, r.time))
            .with_mime_type("application/json")
    }));
    list
}

pub fn read(uri: &str) -> Result<ReadResourceResult, ErrorData> {
    if uri == INSTRUCTIONS {
        let text = crate::cli::info::instructions().0.text;
        return Ok(ReadResourceResult::new(vec![ResourceContents::text(
            text, uri,
        )]));
    }
    let Some(commit) = uri.strip_prefix(RECEIPT) else {
        return Err(ErrorData::resource_not_found(
            format!("no resource `{uri}`"),
            None,
        ));
    };
    let ws = Workspace::discover().map_err(|e| ErrorData::internal_error(e.message, None))?;
    let args = show::ShowArgs {
        label: Some(commit.to_owned()),
        bundle: None,
    };
    let result = show::run(&ws, &args);
    if let Err(e) = &result {
        return Err(ErrorData::resource_not_found(e.message.clone(), None));
    }
    let doc = output::document("show", result, &report::recovered(&[]).0);
    let contents = ResourceContents::text(doc.to_string(), uri).with_mime_type("application/json");
    Ok(ReadResourceResult::new(vec![contents]))
}
