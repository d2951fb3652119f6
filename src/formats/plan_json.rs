//! `source_edit_plan` 1.0 (agent-edit's direct-edit contract, plus our `deletes[]`).
//!
//! ```json
//! {"type": "source_edit_plan", "contract_version": "1.0", "target_id": "fix-add",
//!  "edits":   [{"path", "find", "replace", "occurrence"?, "all"?, "expected_source_sha256"?}],
//!  "creates": [{"path", "content"}],
//!  "deletes": [{"path", "expected_source_sha256"?}],
//!  "allow_signature_change"?: false}
//! ```
//! An edit with an `op` is symbol-addressed (`formats::symbol_edit`):
//! ```json
//! {"op": "replace_body", "path", "symbol", "code", "reindent"?, "expected_source_sha256"?}
//! ```
//! Strict: the type and contract version are checked first, then every key; anything unknown
//! is refused before a single source file is read.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::{Code, Error, Result};
use crate::plan::schema::{CONTRACT_VERSIONS, PLAN_TYPE};
use crate::plan::{Digest, Occurrence, Op, OpKind, Origin, PathBase, PathSpec, Plan, TextEdit};

const TOP_LEVEL_KEYS: &[&str] = &[
    "$schema",
    "type",
    "contract_version",
    "target_id",
    "edits",
    "creates",
    "deletes",
    "allow_signature_change",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditWire {
    path: String,
    find: String,
    replace: String,
    occurrence: Option<u64>,
    all: Option<bool>,
    expected_source_sha256: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateWire {
    path: String,
    content: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DeleteWire {
    path: String,
    expected_source_sha256: Option<String>,
}

/// Parses a `source_edit_plan` document into a [`Plan`].
pub fn parse(input: &[u8]) -> Result<Plan> {
    let value: Value = serde_json::from_slice(input)
        .map_err(|e| Error::malformed(format!("the plan is not valid JSON: {e}")))?;
    let Value::Object(doc) = value else {
        return Err(Error::malformed("the plan must be a JSON object"));
    };
    check_contract(&doc)?;
    let mut plan = Plan {
        label: optional_string(&doc, "target_id")?,
        dialect: PLAN_TYPE,
        input_sha256: Some(Digest::of(input)),
        ops: Vec::new(),
        allow_signature_change: optional_bool(&doc, "allow_signature_change")?,
    };
    for (index, item) in list(&doc, "edits")?.iter().enumerate() {
        plan.ops.push(edit_op(item, index)?);
    }
    for (index, item) in list(&doc, "creates")?.iter().enumerate() {
        let wire: CreateWire = decode(item, "creates", index)?;
        plan.ops.push(op(
            wire.path,
            "creates",
            index,
            OpKind::Create {
                content: wire.content,
            },
        ));
    }
    for (index, item) in list(&doc, "deletes")?.iter().enumerate() {
        let wire: DeleteWire = decode(item, "deletes", index)?;
        let expected = expected_digest(wire.expected_source_sha256, "deletes", index)?;
        plan.ops
            .push(op(wire.path, "deletes", index, OpKind::Delete { expected }));
    }
    if plan.ops.is_empty() {
        return Err(
            Error::malformed("the plan has no edits, creates or deletes")
                .hint("Add at least one entry to `edits`, `creates` or `deletes`."),
        );
    }
    Ok(plan)
}

/// Type and contract version first (so an unknown contract is `plan_unsupported`, not a key
/// error), then the top-level keys.
fn check_contract(doc: &Map<String, Value>) -> Result<()> {
    let kind = match doc.get("type") {
        Some(Value::String(kind)) => kind,
        _ => return Err(Error::malformed(format!("`type` must be \"{PLAN_TYPE}\""))),
    };
    if kind != PLAN_TYPE {
        return Err(Error::new(
            Code::PlanUnsupported,
            format!("plan type `{kind}` is not executable by this build"),
        )
        .detail("type", kind.as_str())
        .detail("supported", vec![PLAN_TYPE])
        .hint("`git identedit capabilities` lists what this build executes."));
    }
    let version = match doc.get("contract_version") {
        Some(Value::String(version)) => version,
        _ => {
            return Err(Error::malformed(
                "`contract_version` must be a string such as \"1.0\"",
            ));
        }
    };
    if !CONTRACT_VERSIONS.contains(&version.as_str()) {
        return Err(Error::new(
            Code::PlanUnsupported,
            format!("contract_version `{version}` of {PLAN_TYPE} is not executable by this build"),
        )
        .detail("contract_version", version.as_str())
        .detail("supported", CONTRACT_VERSIONS.to_vec()));
    }
    if let Some(key) = doc
        .keys()
        .find(|key| !TOP_LEVEL_KEYS.contains(&key.as_str()))
    {
        return Err(Error::malformed(format!("unknown key `{key}` in the plan"))
            .detail("pointer", format!("/{key}"))
            .detail("allowed", TOP_LEVEL_KEYS.to_vec()));
    }
    Ok(())
}

fn edit_op(item: &Value, index: usize) -> Result<Op> {
    if item.get("op").is_some() {
        let (path, edit) = super::symbol_edit::decode(item, index)?;
        return Ok(op(path, "edits", index, OpKind::Symbol(edit)));
    }
    let wire: EditWire = decode(item, "edits", index)?;
    let at = |msg: String| {
        Error::malformed(format!("edits[{index}]: {msg}"))
            .detail("pointer", format!("/edits/{index}"))
    };
    if wire.find.is_empty() {
        return Err(at("`find` must not be empty".into()));
    }
    let select = Occurrence::from_fields(wire.occurrence, wire.all).map_err(at)?;
    let expected = expected_digest(wire.expected_source_sha256, "edits", index)?;
    let edit = TextEdit {
        find: wire.find,
        replace: wire.replace,
        select,
    };
    Ok(op(
        wire.path,
        "edits",
        index,
        OpKind::Edit { edit, expected },
    ))
}

fn op(path: String, list: &'static str, index: usize, kind: OpKind) -> Op {
    Op {
        path: PathSpec {
            raw: path,
            base: PathBase::Root,
        },
        origin: Origin {
            list,
            index,
            input_line: None,
            parent: None,
        },
        kind,
    }
}

fn decode<T: serde::de::DeserializeOwned>(item: &Value, list: &str, index: usize) -> Result<T> {
    T::deserialize(item).map_err(|e| {
        Error::malformed(format!("{list}[{index}]: {e}"))
            .detail("pointer", format!("/{list}/{index}"))
    })
}

fn expected_digest(text: Option<String>, list: &str, index: usize) -> Result<Option<Digest>> {
    text.map(|t| Digest::parse(&t))
        .transpose()
        .map_err(|e| e.at(&format!("{list}[{index}].expected_source_sha256")))
}

fn list<'a>(doc: &'a Map<String, Value>, key: &str) -> Result<&'a [Value]> {
    match doc.get(key) {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(Error::malformed(format!("`{key}` must be an array"))
            .detail("pointer", format!("/{key}"))),
    }
}

fn optional_bool(doc: &Map<String, Value>, key: &str) -> Result<bool> {
    match doc.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(Error::malformed(format!("`{key}` must be true or false"))),
    }
}

fn optional_string(doc: &Map<String, Value>, key: &str) -> Result<Option<String>> {
    match doc.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Error::malformed(format!("`{key}` must be a string"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(doc: &str) -> &'static str {
        match parse(doc.as_bytes()) {
            Ok(_) => "ok",
            Err(e) => e.code.as_str(),
        }
    }

    #[test]
    fn refuses_unknown_contracts_keys_and_ops() {
        let good = r#"{"type":"source_edit_plan","contract_version":"1.0","edits":[{"path":"a","find":"x","replace":"y"}]}"#;
        assert_eq!(code_of(good), "ok");
        assert_eq!(code_of(&good.replace("1.0", "2.0")), "plan_unsupported");
        assert_eq!(
            code_of(&good.replace("source_edit_plan", "method_move_plan")),
            "plan_unsupported"
        );
        assert_eq!(
            code_of(&good.replace("\"find\"", "\"fnd\"")),
            "plan_malformed"
        );
        assert_eq!(
            code_of(&good.replace("\"edits\"", "\"edit\"")),
            "plan_malformed"
        );
        assert_eq!(code_of(&good.replace("\"x\"", "\"\"")), "plan_malformed");
        assert_eq!(
            code_of(&good.replace("\"path\"", "\"op\":\"replace_body\",\"path\"")),
            "plan_malformed"
        );
        assert_eq!(
            code_of(r#"{"type":"source_edit_plan","contract_version":"1.0"}"#),
            "plan_malformed"
        );
        assert_eq!(code_of("[]"), "plan_malformed");
        assert_eq!(code_of("{"), "plan_malformed");
    }

    #[test]
    fn reads_every_list_in_order() {
        let doc = r#"{"type":"source_edit_plan","contract_version":"1.0","target_id":"t",
            "edits":[{"path":"a","find":"x","replace":"y","occurrence":2}],
            "creates":[{"path":"b","content":"c"}],
            "deletes":[{"path":"d","expected_source_sha256":"sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}]}"#;
        let plan = parse(doc.as_bytes()).expect("valid plan");
        assert_eq!(plan.label.as_deref(), Some("t"));
        let lists: Vec<_> = plan.ops.iter().map(|op| op.origin.pointer()).collect();
        assert_eq!(lists, ["/edits/0", "/creates/0", "/deletes/0"]);
        assert!(
            matches!(&plan.ops[0].kind, OpKind::Edit { edit, .. } if edit.select == Occurrence::Nth(2))
        );
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_arbitrary_input(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
            let _ = parse(&bytes);
        }

        #[test]
        fn never_panics_on_plan_shaped_input(
            keys in proptest::collection::vec("(type|contract_version|edits|creates|deletes|path|find|replace|occurrence|all|op|x)", 0..6),
            values in proptest::collection::vec(r#"("source_edit_plan"|"1.0"|1|-1|0|true|null|\[\]|\{\}|"a")"#, 0..6),
        ) {
            let body: Vec<String> = keys.iter().zip(&values).map(|(k, v)| format!(r#""{k}":{v}"#)).collect();
            let doc = format!(r#"{{"type":"source_edit_plan","contract_version":"1.0","edits":[{{{}}}]}}"#, body.join(","));
            let _ = parse(doc.as_bytes());
        }
    }
}
