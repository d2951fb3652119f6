//! identedit's public request and response shapes (research §2): a read request on stdin,
//! `apply --json` of a wrapped changeset, the flat `handles` / `file_preconditions` of
//! `read --json`, and the refusal of a changeset without digest that says how to rebuild.

use serde_json::{Value, json};

use crate::changeset::built;
use crate::common::{Repo, code, sha256_hex};

const PY: &str = "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n";

#[test]
fn read_takes_a_request_on_stdin_and_prints_the_flat_shape() {
    let repo = Repo::new();
    repo.write("src/a.py", PY).commit();
    let request = json!({"command": "read", "file": "src/a.py",
                         "selector": {"kind": "function_definition", "name_pattern": "al*"}});
    let (rc, doc) = repo.json_stdin(&["read", "--json"], &request.to_string());
    assert_eq!(rc, 0, "{doc}");
    let names: Vec<&Value> = doc["handles"]
        .as_array()
        .expect("handles")
        .iter()
        .map(|h| &h["name"])
        .collect();
    assert_eq!(names, [&json!("alpha")], "{doc}");
    assert_eq!(doc["handles"][0]["file"], "src/a.py");
    assert_eq!(doc["handles"][0]["target_type"], "node");
    assert_eq!(
        doc["file_preconditions"],
        json!([{"file": "src/a.py", "expected_file_hash": sha256_hex(PY.as_bytes())}])
    );
    assert_eq!(doc["summary"], json!({"files_scanned": 1, "matches": 1}));
    assert_eq!(
        doc["files"][0]["handles"], doc["handles"],
        "files[] is kept"
    );
    // Flags of the request's selector, a second selector, or a bad shape are refused.
    let (rc, doc) = repo.json_stdin(&["read", "--json", "--kind", "x"], &request.to_string());
    assert_eq!((rc, code(&doc)), (2, "usage"), "{doc}");
    for bad in [
        json!({"command": "read"}),
        json!({"command": "read", "file": "src/a.py", "mode": "x"}),
    ] {
        let (rc, doc) = repo.json_stdin(&["read", "--json"], &bad.to_string());
        assert_eq!((rc, code(&doc)), (2, "plan_malformed"), "{doc}");
    }
    // Line mode with files still has both shapes.
    let (rc, doc) = repo.json(&["read", "--mode", "line", "--json", "src/a.py"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        doc["handles"][4]["anchor"],
        doc["files"][0]["handles"][4]["anchor"]
    );
}

#[test]
fn apply_json_takes_the_wrapped_changeset_on_stdin() {
    let repo = Repo::new();
    repo.write("src/a.py", PY).commit();
    let request = json!({"command": "edit", "file": "src/a.py", "operations": [
        {"target": {"type": "symbol", "name": "beta"},
         "op": {"type": "replace", "new_text": "def beta():\n    return 3"}}]});
    let changeset = built(&repo, &request);
    let wrapped = json!({"command": "apply", "changeset": changeset});
    let (rc, doc) = repo.json_stdin(&["apply", "--json", "--dry-run"], &wrapped.to_string());
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("src/a.py"), PY);
    let (rc, doc) = repo.json_stdin(&["apply", "--json"], &wrapped.to_string());
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("src/a.py"), PY.replace("return 2", "return 3"));
    // The public tool's changeset has no digest to re-prove: refused, with how to rebuild.
    let foreign = json!({"command": "apply", "changeset": {
        "transaction": {"mode": "all_or_nothing"}, "files": []}});
    let (rc, doc) = repo.json_stdin(&["apply", "--json"], &foreign.to_string());
    assert_eq!(code(&doc), "plan_unsupported", "{doc}");
    assert_ne!(rc, 0);
    let hint = doc["error"]["hint"].as_str().expect("hint");
    assert!(
        hint.contains("edit --json < request.json > changeset.json"),
        "{hint}"
    );
}

/// `edit --json --allow-signature-change` is recorded in the changeset (under its digest) and
/// honoured by `apply` without repeating it; without it, `apply` refuses the API change.
#[test]
fn the_api_acknowledgement_travels_with_the_changeset() {
    let repo = Repo::new();
    repo.write("src/a.py", PY).commit();
    let request = json!({"command": "edit", "file": "src/a.py", "operations": [
        {"target": {"type": "symbol", "name": "beta"}, "op": {"type": "delete"}}]});
    let (rc, doc) = repo.json_stdin(&["edit", "--json"], &request.to_string());
    assert_eq!((rc, code(&doc)), (1, "api_change_refused"), "{doc}");
    let out = repo.run_stdin(
        &["edit", "--json", "--allow-signature-change"],
        &request.to_string(),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let acknowledged: Value = serde_json::from_slice(&out.stdout).expect("changeset");
    assert_eq!(acknowledged["allow_signature_change"], true);
    let mut forged = acknowledged.clone();
    forged
        .as_object_mut()
        .expect("object")
        .shift_remove("allow_signature_change");
    let (rc, doc) = crate::changeset::apply(&repo, &forged, &[]);
    assert_eq!((rc, code(&doc)), (2, "changeset_tampered"), "{doc}");
    assert_eq!(repo.text("src/a.py"), PY);
    let (rc, doc) = crate::changeset::apply(&repo, &acknowledged, &[]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("src/a.py"), "def alpha():\n    return 1\n\n");
}

/// Error types of the public contract: a name glob that does not compile is a malformed
/// selector (`plan_malformed`, `reason: invalid_selector`), not a missing target; glob classes
/// work.
#[test]
fn a_bad_selector_glob_is_malformed_and_classes_match() {
    let repo = Repo::new();
    repo.write("src/a.py", PY).commit();
    let request = |name: &str| {
        json!({"command": "edit", "file": "src/a.py", "operations": [
            {"target": {"type": "selector", "kind": "function_definition", "name": name},
             "op": {"type": "replace", "new_text": "def beta():\n    return 3"}}]})
    };
    let (rc, doc) = repo.json_stdin(&["edit", "--json"], &request("[bad").to_string());
    assert_eq!((rc, code(&doc)), (2, "plan_malformed"), "{doc}");
    assert_eq!(
        doc["error"]["details"]["reason"], "invalid_selector",
        "{doc}"
    );
    assert_eq!(
        doc["error"]["request_pointers"],
        json!(["/operations/0"]),
        "{doc}"
    );
    let (rc, doc) = repo.json(&[
        "read",
        "--json",
        "--kind",
        "function_definition",
        "--name",
        "[bad",
        "src/a.py",
    ]);
    assert_eq!((rc, code(&doc)), (2, "plan_malformed"), "{doc}");
    let (rc, doc) = repo.json_stdin(&["edit", "--json"], &request("[b]et?").to_string());
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("src/a.py"), PY, "edit --json builds only");
}

/// The seed: "`edit` only builds a plan, without this check" (the final parse of files with
/// structure targets). The changeset is built; `apply` refuses it with `parse_failure`
/// (`stage: proposed_result`) and writes nothing.
#[test]
fn edit_builds_a_node_edit_whose_result_would_not_parse_and_apply_refuses_it() {
    let repo = Repo::new();
    repo.write("src/a.py", PY).commit();
    let request = json!({"command": "edit", "file": "src/a.py", "operations": [
        {"target": {"type": "symbol", "name": "beta"},
         "op": {"type": "replace", "new_text": "def beta(:\n    return 2"}}]});
    let changeset = built(&repo, &request);
    for extra in [&["--dry-run"][..], &[]] {
        let (rc, doc) = crate::changeset::apply(&repo, &changeset, extra);
        assert_eq!((rc, code(&doc)), (1, "parse_failure"), "{doc}");
        assert_eq!(
            doc["error"]["request_pointers"],
            json!(["/files/0/operations/0"])
        );
    }
    assert_eq!(repo.text("src/a.py"), PY);
}
