//! `schema`, `capabilities` and `instructions`: documents generated from the registry, each
//! with a text form (the schema's is the schema itself, pretty-printed).

use serde_json::{Map, Value};

use crate::error::CODES;
use crate::lang::languages::PROVIDERS;
use crate::plan::schema::{CONTRACT_VERSIONS, PLAN_TYPE, plan_schema};
use crate::registry::{self, COMMANDS, DIALECTS, PROCEDURE};
use crate::report::Report;
use crate::txn::journal::Recovered;
use crate::workspace::failpoint;

fn document(value: Value, text: String, raw: bool) -> (Report, Vec<Recovered>) {
    let json = match value {
        Value::Object(map) => map,
        other => Map::from_iter([("value".to_owned(), other)]),
    };
    let report = Report::new(json, text).raw(raw);
    (report, Vec::new())
}

/// The schema is printed as the bare JSON Schema document, so it can be saved and used as is.
pub fn schema() -> (Report, Vec<Recovered>) {
    let schema = plan_schema();
    let text = serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n";
    document(schema, text, true)
}

pub fn capabilities() -> (Report, Vec<Recovered>) {
    document(registry::capabilities(), capabilities_text(), false)
}

pub fn instructions() -> (Report, Vec<Recovered>) {
    document(registry::instructions(), instructions_text(), false)
}

/// Rows of two columns, the first padded to its widest cell.
fn table(rows: &[(String, String)]) -> String {
    let width = rows.iter().map(|(a, _)| a.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(a, b)| format!("  {a:width$}  {b}\n"))
        .collect()
}

fn capabilities_text() -> String {
    let mut text = format!("git-identedit {}\n\n", env!("CARGO_PKG_VERSION"));
    text.push_str(&format!(
        "plan: {PLAN_TYPE} (contract {})\ninput dialects (apply --dialect): {}\noutput formats: json, text\n\n",
        CONTRACT_VERSIONS.join(", "),
        DIALECTS.join(", ")
    ));
    text.push_str("commands:\n");
    let commands: Vec<(String, String)> = COMMANDS
        .iter()
        .map(|c| (c.name.to_owned(), c.summary.to_owned()))
        .collect();
    text.push_str(&table(&commands));
    text.push_str("\nlanguages (extensions):\n");
    let languages: Vec<(String, String)> = PROVIDERS
        .iter()
        .map(|p| (p.name.to_owned(), p.extensions.join(" ")))
        .collect();
    text.push_str(&table(&languages));
    text.push_str("\nerror codes (exit, next action):\n");
    let codes: Vec<(String, String)> = CODES
        .iter()
        .map(|c| {
            (
                c.name.to_owned(),
                format!("{:>2}  {}", c.exit, c.next_action),
            )
        })
        .collect();
    text.push_str(&table(&codes));
    let steps: Vec<&str> = failpoint::STEPS.iter().map(|(s, _)| *s).collect();
    text.push_str(&format!(
        "\nfailpoints (IDENTEDIT_FAILPOINT): {}\n",
        steps.join(", ")
    ));
    text
}

fn instructions_text() -> String {
    let mut text = format!(
        "# Editing files with git identedit {}\n\n",
        env!("CARGO_PKG_VERSION")
    );
    for (i, step) in PROCEDURE.iter().enumerate() {
        text.push_str(&format!("{}. {step}\n", i + 1));
    }
    text.push_str("\n## Commands\n\n");
    for c in COMMANDS {
        text.push_str(&format!("- {}: {}\n", c.name, c.summary));
    }
    text.push_str("\n## When a command refuses (`error.code` → what to do)\n\n");
    for c in CODES {
        text.push_str(&format!(
            "- {}: {} → {}\n",
            c.name, c.meaning, c.next_action
        ));
    }
    text
}
