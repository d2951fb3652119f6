//! The request compiler on generated requests: it never panics, a valid request yields one
//! request operation per input operation, and every refusal points at a place that exists in
//! the request.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::parse;
use crate::error::Code;

fn target() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "symbol", "name": "f"})),
        Just(
            json!({"type": "node", "identity": "0123456789abcdef", "kind": "function_definition"})
        ),
        Just(json!({"type": "line", "anchor": "2:0123abcd"})),
        Just(json!({"type": "line", "anchor": "two"})),
        Just(json!({"type": "file_end"})),
        Just(json!({"type": "handle_ref", "ref": "h"})),
        Just(json!({"type": "selector", "kind": "function_definition", "name": "f*"})),
        Just(json!({"type": "warp"})),
        Just(json!("not an object")),
    ]
}

fn op() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "replace", "new_text": "x"})),
        Just(json!({"type": "delete"})),
        Just(json!({"type": "insert", "new_text": "x"})),
        Just(json!({"type": "scoped_regex", "pattern": "(", "replacement": ""})),
        Just(json!({"type": "move_after", "destination": {"type": "file_end"}})),
        Just(json!({"type": "replace", "new_text": "x", "surprise": 1})),
        Just(json!({"type": "replace"})),
    ]
}

fn request() -> impl Strategy<Value = Value> {
    let operations = || {
        let operation = (target(), op()).prop_map(|(t, o)| json!({"target": t, "op": o}));
        prop::collection::vec(operation, 0..4)
    };
    let table = json!({"h": {"identity": "0123456789abcdef", "kind": "function_definition"}});
    prop_oneof![
        operations().prop_map(|ops| json!({"command": "edit", "file": "a.py", "operations": ops})),
        prop::collection::vec((operations(), any::<bool>()), 0..3).prop_map(move |files| {
            let entries: Vec<Value> = files
                .into_iter()
                .enumerate()
                .map(|(i, (ops, with_table))| {
                    let mut e = json!({"file": format!("f{i}.py"), "operations": ops});
                    if with_table {
                        e["handle_table"] = table.clone();
                    }
                    e
                })
                .collect();
            json!({"command": "edit", "files": entries})
        }),
    ]
}

proptest! {
    #[test]
    fn refusals_point_into_the_request(doc in request()) {
        let input = doc.to_string();
        match parse(input.as_bytes()) {
            Ok(compiled) => {
                let count = |v: &Value| v["operations"].as_array().map_or(0, Vec::len);
                let expected = match doc.get("files").and_then(Value::as_array) {
                    Some(files) => files.iter().map(count).sum(),
                    None => count(&doc),
                };
                prop_assert_eq!(compiled.ops.len(), expected);
                for op in &compiled.ops {
                    prop_assert!(doc.pointer(&op.origin.pointer()).is_some());
                }
            }
            Err(e) => {
                prop_assert_eq!(e.code, Code::PlanMalformed);
                let pointers = e.details.get("request_pointers").and_then(Value::as_array);
                prop_assert!(pointers.is_some_and(|p| !p.is_empty()), "{:?}", e);
                for p in pointers.into_iter().flatten() {
                    let p = p.as_str().unwrap_or("?");
                    prop_assert!(doc.pointer(p).is_some(), "{} not in {}", p, doc);
                }
            }
        }
    }
}

#[test]
fn requests_and_changesets_use_the_strict_conflict_rule() {
    for dialect in [super::DIALECT, crate::formats::changeset::DIALECT] {
        assert!(crate::plan::STRICT_CONFLICT_DIALECTS.contains(&dialect));
    }
}

/// Each refusal names the exact place (`pointer`) and the operation or file entry it belongs
/// to (`request_pointers`), at every level of the request.
#[test]
fn refusals_name_the_exact_place() {
    let id = "0123456789abcdef";
    let single = |op: Value| json!({"command": "edit", "file": "a.py", "operations": [op]});
    let delete = json!({"type": "delete"});
    let cases = [
        (
            json!({"command": "edit", "file": "a.py", "operations": [], "x": 1}),
            "/x",
            "",
        ),
        (
            json!({"command": "patch", "file": "a.py", "operations": []}),
            "/command",
            "",
        ),
        (
            json!({"command": "edit", "file": "a.py", "operations": 3}),
            "/operations",
            "",
        ),
        (json!({"command": "edit", "files": []}), "/files", ""),
        (single(json!(3)), "/operations/0", "/operations/0"),
        (
            single(json!({"target": {"type": "symbol", "nme": "f"}, "op": delete})),
            "/operations/0/target/nme",
            "/operations/0",
        ),
        (
            single(json!({"target": {"type": "symbol", "name": 5}, "op": delete})),
            "/operations/0/target/name",
            "/operations/0",
        ),
        (
            single(json!({"target": {"type": "warp"}, "op": delete})),
            "/operations/0/target/type",
            "/operations/0",
        ),
        (
            single(
                json!({"target": {"type": "selector", "kind": "f", "exclude_kinds": [1]},
                          "op": delete}),
            ),
            "/operations/0/target/exclude_kinds",
            "/operations/0",
        ),
        (
            single(
                json!({"target": {"identity": id, "span_hint": {"start": 3, "end": 1}},
                          "op": delete}),
            ),
            "/operations/0/target/span_hint",
            "/operations/0",
        ),
        (
            single(json!({"target": {"identity": "xyz"}, "op": delete})),
            "/operations/0/target/identity",
            "/operations/0",
        ),
        (
            single(json!({"target": {"type": "file_end"},
                          "op": {"type": "insert", "new_text": "x", "surprise": 1}})),
            "/operations/0/op/surprise",
            "/operations/0",
        ),
        (
            single(json!({"target": {"type": "symbol", "name": "f"},
                          "op": {"type": "scoped_regex", "pattern": "(", "replacement": ""}})),
            "/operations/0/op/pattern",
            "/operations/0",
        ),
        (
            single(json!({"target": {"type": "symbol", "name": "f"},
                          "op": {"type": "explode"}})),
            "/operations/0/op/type",
            "/operations/0",
        ),
        (
            single(json!({"identity": id, "bogus": 1, "op": delete})),
            "/operations/0/bogus",
            "/operations/0",
        ),
        (
            json!({"command": "edit", "files": [
                {"file": "a.py", "operations": []}, {"file": "b.py", "operations": [], "x": 1}]}),
            "/files/1/x",
            "/files/1",
        ),
        (
            json!({"command": "edit", "files": [{"file": "a.py",
                "handle_table": {"h": {"identity": id, "kind": 3}},
                "operations": [{"target": {"type": "handle_ref", "ref": "h"}, "op": delete}]}]}),
            "/files/0/handle_table/h/kind",
            "/files/0/operations/0",
        ),
    ];
    for (doc, pointer, owner) in cases {
        let error = match parse(doc.to_string().as_bytes()) {
            Ok(_) => panic!("{doc} compiled"),
            Err(e) => e,
        };
        assert_eq!(error.code, Code::PlanMalformed, "{doc}: {error:?}");
        assert_eq!(error.details["pointer"], json!(pointer), "{doc}: {error:?}");
        assert_eq!(error.details["request_pointers"], json!([owner]), "{doc}");
    }
}
