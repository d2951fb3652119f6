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
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;
use serde_path_to_error::Segment;

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

/// The contract of a document, read before its keys: an unknown contract is
/// `plan_unsupported`, not a key error.
#[derive(Deserialize)]
struct Header {
    #[serde(rename = "type")]
    kind: Option<Value>,
    contract_version: Option<Value>,
}

/// The whole document. An edit stays as written, borrowed from the input, until `edit_op`
/// decodes it (a text edit or, with an `op`, a symbol edit): no tree of JSON values is built
/// for a plan of thousands of edits.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanWire<'a> {
    #[serde(rename = "$schema")]
    _schema: Option<IgnoredAny>,
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    #[serde(rename = "contract_version")]
    _contract_version: IgnoredAny,
    target_id: Option<String>,
    #[serde(default, borrow)]
    edits: Vec<&'a RawValue>,
    #[serde(default)]
    creates: Vec<CreateWire>,
    #[serde(default)]
    deletes: Vec<DeleteWire>,
    allow_signature_change: Option<bool>,
}

/// Parses a `source_edit_plan` document into a [`Plan`].
pub fn parse(input: &[u8]) -> Result<Plan> {
    let document: &RawValue = serde_json::from_slice(input)
        .map_err(|e| Error::malformed(format!("the plan is not valid JSON: {e}")))?;
    let text = document.get();
    if !text.starts_with('{') {
        return Err(Error::malformed("the plan must be a JSON object"));
    }
    let header = serde_json::from_str(text).map_err(|e| shape(&message(&e), &[]))?;
    check_contract(header)?;
    let wire: PlanWire =
        serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(text))
            .map_err(|e| shape(&message(e.inner()), &e.path().iter().collect::<Vec<_>>()))?;
    let mut plan = Plan {
        label: wire.target_id,
        dialect: PLAN_TYPE,
        input_sha256: Some(Digest::of(input)),
        ops: Vec::with_capacity(wire.edits.len() + wire.creates.len() + wire.deletes.len()),
        allow_signature_change: wire.allow_signature_change.unwrap_or(false),
    };
    for (index, item) in wire.edits.into_iter().enumerate() {
        plan.ops.push(edit_op(item, index)?);
    }
    for (index, wire) in wire.creates.into_iter().enumerate() {
        let content = wire.content;
        plan.ops
            .push(op(wire.path, "creates", index, OpKind::Create { content }));
    }
    for (index, wire) in wire.deletes.into_iter().enumerate() {
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

/// A document that does not fit [`PlanWire`]: the entry of a list it is about
/// (`creates[1]: …`), an unknown top-level key, or a top-level value of the wrong type.
fn shape(message: &str, path: &[&Segment]) -> Error {
    match path {
        [Segment::Map { key: list }, Segment::Seq { index }, ..] => {
            Error::malformed(format!("{list}[{index}]: {message}"))
                .detail("pointer", format!("/{list}/{index}"))
        }
        [Segment::Map { key }, ..] if !TOP_LEVEL_KEYS.contains(&key.as_str()) => {
            Error::malformed(format!("unknown key `{key}` in the plan"))
                .detail("pointer", format!("/{key}"))
                .detail("allowed", TOP_LEVEL_KEYS.to_vec())
        }
        [Segment::Map { key }, ..] => {
            Error::malformed(format!("`{key}`: {message}")).detail("pointer", format!("/{key}"))
        }
        _ => Error::malformed(format!("the plan: {message}")),
    }
}

fn check_contract(header: Header) -> Result<()> {
    let Some(Value::String(kind)) = header.kind else {
        return Err(Error::malformed(format!("`type` must be \"{PLAN_TYPE}\"")));
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
    let Some(Value::String(version)) = header.contract_version else {
        return Err(Error::malformed(
            "`contract_version` must be a string such as \"1.0\"",
        ));
    };
    if !CONTRACT_VERSIONS.contains(&version.as_str()) {
        return Err(Error::new(
            Code::PlanUnsupported,
            format!("contract_version `{version}` of {PLAN_TYPE} is not executable by this build"),
        )
        .detail("contract_version", version.as_str())
        .detail("supported", CONTRACT_VERSIONS.to_vec()));
    }
    Ok(())
}

/// Whether an edit names an `op` (a symbol edit), read without decoding the rest.
#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    op: Option<IgnoredAny>,
}

fn edit_op(item: &RawValue, index: usize) -> Result<Op> {
    // An entry that is not an object is refused below, as a text edit.
    let symbolic = serde_json::from_str::<Probe>(item.get()).is_ok_and(|p| p.op.is_some());
    if symbolic {
        let value: Value = decode(item, "edits", index)?;
        let (path, edit) = super::symbol_edit::decode(&value, index)?;
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

fn decode<T: serde::de::DeserializeOwned>(item: &RawValue, list: &str, index: usize) -> Result<T> {
    serde_json::from_str(item.get()).map_err(|e| {
        Error::malformed(format!("{list}[{index}]: {}", message(&e)))
            .detail("pointer", format!("/{list}/{index}"))
    })
}

/// What a decoding error says, without serde_json's position: the document is already known
/// to be valid JSON, and a line and column counted inside one entry would mislead.
fn message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    match text.strip_suffix(&position) {
        Some(bare) => bare.to_owned(),
        None => text,
    }
}

fn expected_digest(text: Option<String>, list: &str, index: usize) -> Result<Option<Digest>> {
    text.map(|t| Digest::parse(&t))
        .transpose()
        .map_err(|e| e.at(&format!("{list}[{index}].expected_source_sha256")))
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
    fn shape_errors_point_at_their_place() {
        let head = r#""type":"source_edit_plan","contract_version":"1.0""#;
        for (rest, pointer, message) in [
            (r#""x":1"#, "/x", "unknown key `x` in the plan"),
            (r#""edits":3"#, "/edits", "`edits`: invalid type"),
            (
                r#""target_id":3"#,
                "/target_id",
                "`target_id`: invalid type",
            ),
            (
                r#""creates":[{"path":"a"}]"#,
                "/creates/0",
                "creates[0]: missing field `content`",
            ),
            (
                r#""deletes":[{"path":"a","y":1}]"#,
                "/deletes/0",
                "deletes[0]: unknown field `y`",
            ),
        ] {
            let doc = format!("{{{head},{rest}}}");
            let error = parse(doc.as_bytes()).expect_err("refused");
            assert_eq!(error.code, Code::PlanMalformed, "{doc}");
            assert_eq!(error.details["pointer"], pointer, "{doc}");
            assert!(
                error.message.starts_with(message),
                "{doc}: {}",
                error.message
            );
        }
    }

    #[test]
    fn an_entrys_error_names_the_entry_not_a_position() {
        let head = r#""type":"source_edit_plan","contract_version":"1.0""#;
        for (edits, message) in [
            (
                r#"{"path":"a","find":"x"}"#,
                "edits[1]: missing field `replace`",
            ),
            (
                r#"{"path":"a","find":"x","replace":"y","z":1}"#,
                "edits[1]: unknown field `z`, expected one of",
            ),
            (
                r#"{"path":"a","find":1,"replace":"y"}"#,
                "edits[1]: invalid type: integer `1`, expected a string",
            ),
            (
                r#"{"op":"stretch","path":"a"}"#,
                "edits[1]: unknown op `stretch`",
            ),
            (
                "3",
                "edits[1]: invalid type: integer `3`, expected struct EditWire",
            ),
        ] {
            let doc = format!(
                "{{{head},\n\"edits\":[{{\"path\":\"a\",\"find\":\"x\",\"replace\":\"y\"}},\n{edits}]}}"
            );
            let error = parse(doc.as_bytes()).expect_err("refused");
            assert_eq!(error.code, Code::PlanMalformed, "{doc}");
            assert!(
                error.message.starts_with(message),
                "{doc}: {}",
                error.message
            );
            assert!(!error.message.contains(" at line "), "{}", error.message);
        }
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
