//! `schema`, `capabilities` and `instructions`: documents generated from the registry.

use serde_json::{Map, Value};

use crate::plan::schema::plan_schema;
use crate::registry;
use crate::report::Report;
use crate::txn::journal::Recovered;

fn document(value: Value, raw: bool) -> (Report, Vec<Recovered>) {
    let text = serde_json::to_string_pretty(&value).unwrap_or_default() + "\n";
    let json = match value {
        Value::Object(map) => map,
        other => Map::from_iter([("value".to_owned(), other)]),
    };
    (
        Report {
            json,
            text,
            raw,
            note: String::new(),
            exit: None,
        },
        Vec::new(),
    )
}

/// The schema is printed as the bare JSON Schema document, so it can be saved and used as is.
pub fn schema() -> (Report, Vec<Recovered>) {
    document(plan_schema(), true)
}

pub fn capabilities() -> (Report, Vec<Recovered>) {
    document(registry::capabilities(), false)
}

pub fn instructions() -> (Report, Vec<Recovered>) {
    document(registry::instructions(), false)
}
