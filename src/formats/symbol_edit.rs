//! The symbol-addressed edits of a `source_edit_plan` (an edit with an `op`):
//!
//! ```json
//! {"op": "replace_body",   "path", "symbol", "code"}
//! {"op": "replace_symbol", "path", "symbol", "code"}
//! {"op": "insert_member",  "path", "symbol", "code", "position"?: "start"|"end", "after"?, "before"?}
//! {"op": "remove_symbol",  "path", "symbol"}
//! {"op": "add_use",        "path", "name"}
//! ```
//! Every op also takes `"reindent": false` (keep `code` verbatim) and `expected_source_sha256`.
//! Keys an op does not use are refused, like unknown keys.

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Code, Error, Result};
use crate::plan::Digest;
use crate::plan::symbol::{Position, SymbolEdit, SymbolOp};

const OPS: &[&str] = &[
    "replace_body",
    "replace_symbol",
    "insert_member",
    "remove_symbol",
    "add_use",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    op: String,
    path: String,
    symbol: Option<String>,
    code: Option<String>,
    name: Option<String>,
    position: Option<String>,
    after: Option<String>,
    before: Option<String>,
    reindent: Option<bool>,
    expected_source_sha256: Option<String>,
}

/// Decodes `edits[index]`, which has an `op`, into its path and edit.
pub fn decode(item: &Value, index: usize) -> Result<(String, SymbolEdit)> {
    let pointer = format!("/edits/{index}");
    let at = |msg: String| {
        Error::malformed(format!("edits[{index}]: {msg}")).detail("pointer", pointer.as_str())
    };
    if let Some(op) = item
        .get("op")
        .and_then(Value::as_str)
        .filter(|op| !OPS.contains(op))
    {
        return Err(Error::new(
            Code::PlanMalformed,
            format!("edits[{index}]: unknown op `{op}`"),
        )
        .detail("pointer", format!("{pointer}/op"))
        .detail("allowed", OPS.to_vec()));
    }
    let wire = Wire::deserialize(item).map_err(|e| at(e.to_string()))?;
    let expected = wire
        .expected_source_sha256
        .as_deref()
        .map(Digest::parse)
        .transpose()
        .map_err(|e| e.at(&format!("edits[{index}].expected_source_sha256")))?;
    let edit = build(
        &wire.op,
        Fields {
            symbol: wire.symbol,
            code: wire.code,
            name: wire.name,
            position: wire.position,
            after: wire.after,
            before: wire.before,
        },
        wire.reindent.unwrap_or(true),
        expected,
    )
    .map_err(at)?;
    Ok((wire.path, edit))
}

/// The operation's own fields, as the plan or the command line gives them.
#[derive(Default)]
pub struct Fields {
    pub symbol: Option<String>,
    pub code: Option<String>,
    pub name: Option<String>,
    pub position: Option<String>,
    pub after: Option<String>,
    pub before: Option<String>,
}

/// Checks which fields `op` takes and builds the edit (shared with `edit --symbol`).
pub fn build(
    op: &str,
    f: Fields,
    reindent: bool,
    expected: Option<Digest>,
) -> Result<SymbolEdit, String> {
    let placement = f.position.is_some() || f.after.is_some() || f.before.is_some();
    let needs = |field: &str, value: &Option<String>| match value {
        Some(v) if !v.trim().is_empty() => Ok(v.clone()),
        _ => Err(format!("`{op}` needs a non-empty `{field}`")),
    };
    let refuse = |field: &str| Err(format!("`{op}` takes no `{field}`"));
    if op != "insert_member" && placement {
        return refuse("position / after / before");
    }
    if op != "add_use" && f.name.is_some() {
        return refuse("name");
    }
    let symbol = if op == "add_use" {
        if f.symbol.is_some() {
            return refuse("symbol");
        }
        None
    } else {
        Some(needs("symbol", &f.symbol)?)
    };
    let (kind, code) = match op {
        "replace_body" => (SymbolOp::ReplaceBody, f.code.clone().unwrap_or_default()),
        "replace_symbol" => (SymbolOp::ReplaceSymbol, needs("code", &f.code)?),
        "insert_member" => (
            SymbolOp::InsertMember(position(&f)?),
            needs("code", &f.code)?,
        ),
        "remove_symbol" | "add_use" if f.code.is_some() => return refuse("code"),
        "remove_symbol" => (SymbolOp::RemoveSymbol, String::new()),
        "add_use" => (SymbolOp::AddUse(needs("name", &f.name)?), String::new()),
        other => return Err(format!("unknown op `{other}`")),
    };
    if op == "replace_body" && f.code.is_none() {
        return Err("`replace_body` needs `code` (an empty string empties the body)".into());
    }
    Ok(SymbolEdit {
        op: kind,
        symbol,
        code,
        reindent,
        expected,
    })
}

fn position(f: &Fields) -> Result<Position, String> {
    match (f.position.as_deref(), &f.after, &f.before) {
        (None | Some("end"), None, None) => Ok(Position::End),
        (Some("start"), None, None) => Ok(Position::Start),
        (None, Some(after), None) => Ok(Position::After(after.clone())),
        (None, None, Some(before)) => Ok(Position::Before(before.clone())),
        (Some(other), None, None) => Err(format!(
            "`position` is \"start\" or \"end\", not \"{other}\""
        )),
        _ => Err("give one of `position`, `after` and `before`".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(json: &str) -> Result<SymbolEdit> {
        let value: Value = serde_json::from_str(json).expect("json");
        decode(&value, 0).map(|(_, e)| e)
    }

    #[test]
    fn decodes_every_op_and_refuses_foreign_fields() {
        let ok =
            edit(r#"{"op":"insert_member","path":"a.php","symbol":"A","after":"f()","code":"x"}"#)
                .expect("valid");
        assert_eq!(ok.op, SymbolOp::InsertMember(Position::After("f()".into())));
        assert!(ok.reindent);
        let body =
            edit(r#"{"op":"replace_body","path":"a","symbol":"f()","code":"","reindent":false}"#)
                .expect("valid");
        assert!(!body.reindent && body.code.is_empty());
        let add = edit(r#"{"op":"add_use","path":"a","name":"App\\User"}"#).expect("valid");
        assert_eq!(
            (add.op, add.symbol),
            (SymbolOp::AddUse("App\\User".into()), None)
        );
        for bad in [
            r#"{"op":"remove_symbol","path":"a","symbol":"f()","code":"x"}"#,
            r#"{"op":"replace_body","path":"a","symbol":"f()"}"#,
            r#"{"op":"replace_symbol","path":"a","symbol":"f()","code":"x","after":"g"}"#,
            r#"{"op":"insert_member","path":"a","symbol":"A","code":"x","after":"g","before":"h"}"#,
            r#"{"op":"insert_member","path":"a","symbol":"A","code":"x","position":"middle"}"#,
            r#"{"op":"add_use","path":"a","symbol":"A","name":"B"}"#,
            r#"{"op":"rename","path":"a","symbol":"A"}"#,
            r#"{"op":"remove_symbol","path":"a","symbol":"f()","find":"x"}"#,
        ] {
            let err = edit(bad).expect_err(bad);
            assert_eq!(err.code, Code::PlanMalformed, "{bad}");
        }
    }
}
