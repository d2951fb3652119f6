//! identedit conformance beyond the case folders (those, `fixtures/identedit/<name>/`, are one
//! test each in `tests/folders/`): the seed's error types, contradictory flag sets, the
//! failed-diff handoff and a stale changeset.

use crate::common::Repo;

/// Every error type of the seed's recovery table is one `capabilities` maps codes to.
#[test]
fn capabilities_map_every_code_to_a_seed_error_type() {
    let repo = Repo::new();
    let (rc, doc) = repo.json(&["capabilities"]);
    assert_eq!(rc, 0);
    let types: Vec<&str> = doc["error_types"]
        .as_array()
        .expect("error_types")
        .iter()
        .filter_map(|t| t["type"].as_str())
        .collect();
    for ty in [
        "invalid_request",
        "precondition_failed",
        "target_missing",
        "ambiguous_target",
        "parse_failure",
        "no_provider",
        "io_error",
        "invalid_selector",
        "resource_busy",
        "path_changed",
        "serialization_error",
    ] {
        assert!(types.contains(&ty), "{ty} missing from capabilities");
    }
    for code in doc["error_codes"].as_array().expect("error_codes") {
        let ty = code["type"].as_str().expect("type of a code");
        assert!(types.contains(&ty), "{code}");
    }
}

/// Every contradictory or incomplete combination of target, operation, payload and output
/// flags is `invalid_request`, and nothing is written.
#[test]
fn contradictory_patch_flags_are_refused_before_anything_is_written() {
    let repo = Repo::new();
    repo.write("a.py", "def f(x):\n    return x\n")
        .write("body.txt", "def f(x):\n    return 1\n")
        .commit();
    let before = repo.tree();
    let f = ["patch", "a.py", "--symbol", "f"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        f.iter().copied().chain(extra.iter().copied()).collect()
    };
    let table: Vec<Vec<&str>> = vec![
        with(&["--delete", "--text-file", "body.txt"]),
        with(&["--delete", "--stdin-text"]),
        with(&["--replace", "x", "--text-file", "body.txt"]),
        with(&["--replace", "x", "--stdin-text"]),
        with(&["--replace", "x", "--diff"]),
        with(&["--replace", "x", "--delete"]),
        with(&["--replace", "x", "--insert-after", "y"]),
        with(&[]),
        with(&["--insert-after", "x", "--end-anchor", "1:00000000"]),
        with(&["--replace", "x", "--at", "file-end"]),
        with(&["--replace", "x", "--kind", "function_definition"]),
        with(&["--scoped-replacement", "y", "--delete"]),
        with(&["--delete", "--set-value", "1"]),
        with(&["--delete", "--create-missing"]),
        with(&["--delete", "--occurrence", "2"]),
        with(&["--delete", "--all"]),
        with(&["--delete", "--config-path", "a"]),
        with(&["--insert", "x"]),
        vec!["patch", "a.py", "--kind", "function_definition", "--delete"],
        vec!["patch", "a.py", "--name", "f", "--delete"],
        vec!["patch", "a.py", "--delete"],
        vec!["patch", "a.py", "--find", "x", "--delete"],
        vec!["patch", "a.py", "--find", "x", "--insert-after", "y"],
        vec!["patch", "a.py", "--config-path", "a", "--replace", "1"],
        vec!["patch", "a.py", "--config-path", "a"],
        vec![
            "patch",
            "a.py",
            "--at",
            "1:00000000",
            "--end-anchor",
            "2:00000000",
            "--insert-after",
            "x",
        ],
        vec!["patch", "--json", "--stdin-text"],
        vec!["patch", "--json", "--text-file", "body.txt"],
        vec!["patch", "--json", "--dry-run", "--diff"],
        vec!["patch", "--json", "a.py"],
        vec!["patch", "--json", "--symbol", "f"],
        vec!["patch", "--from-diff", "body.txt", "a.py", "--delete"],
        vec!["patch", "--from-diff", "body.txt", "a.py", "--dry-run"],
        vec!["patch", "--from-diff", "body.txt", "a.py", "--json"],
    ];
    let request = r#"{"command":"patch","file":"a.py","target":{"type":"symbol","name":"f"},"op":{"type":"delete"}}"#;
    for args in &table {
        let (rc, doc) = repo.json_stdin(args, request);
        assert_ne!(rc, 0, "{args:?}: {doc}");
        assert_eq!(doc["error"]["type"], "invalid_request", "{args:?}: {doc}");
        assert_eq!(repo.tree(), before, "{args:?} wrote");
    }
}

/// The seed's failed-diff handoff: a unique candidate's `target` and `op` go into
/// `patch --json` as they are, and the block lands where the diff meant it.
#[test]
fn a_failed_diff_candidate_promotes_into_patch_json() {
    let repo = Repo::new();
    repo.write(
        "e.py",
        "def f(a):\n    return a\n\n\ndef g(a):\n    return a\n",
    )
    .write(
        "failed.diff",
        "--- a/e.py\n+++ b/e.py\n@@ -5,2 +5,2 @@\n def g(a):\n-    return a\n+    return a * 2\n",
    )
    .commit();
    let (rc, handoff) = repo.json(&["patch", "--from-diff", "failed.diff", "e.py"]);
    assert_eq!(rc, 0, "{handoff}");
    let candidate = &handoff["changes"][0]["candidates"][0];
    assert_eq!(handoff["changes"][0]["status"], "unique");
    let request = serde_json::json!({"command": "patch", "file": handoff["file"],
        "target": candidate["target"], "op": candidate["op"]});
    let (rc, doc) = repo.json_stdin(&["patch", "--json"], &request.to_string());
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        repo.text("e.py"),
        "def f(a):\n    return a\n\n\ndef g(a):\n    return a * 2\n"
    );
}

/// identedit's stale changeset: the structure it deletes changed after `edit --json` built
/// it, so `apply` is `precondition_failed` and writes nothing.
#[test]
fn a_changeset_whose_target_changed_since_it_was_built_is_precondition_failed() {
    let repo = Repo::new();
    let json = "{\n  \"config\": {\n    \"retries\": 3\n  }\n}\n";
    repo.write("c.json", json).commit();
    let (rc, read) = repo.json(&["read", "--json", "--kind", "object", "c.json"]);
    assert_eq!(rc, 0, "{read}");
    let root = &read["handles"][0];
    assert!(root["name"].is_null(), "{read}");
    let request = serde_json::json!({"command": "edit", "file": "c.json", "operations": [{
        "identity": root["identity"], "kind": "object",
        "expected_old_hash": root["expected_old_hash"], "op": {"type": "delete"}}]});
    let out = repo.run_stdin(&["edit", "--json"], &request.to_string());
    assert!(out.status.success());
    let changeset = String::from_utf8(out.stdout).expect("utf8");
    let mutated = json.replace("\"retries\": 3", "\"retries\": 4");
    repo.write("c.json", &mutated);
    let (rc, doc) = repo.json_stdin(&["apply"], &changeset);
    assert_ne!(rc, 0);
    assert_eq!(doc["error"]["type"], "precondition_failed", "{doc}");
    assert_eq!(repo.text("c.json"), mutated);
}

/// An operation this build does not know is `plan_unsupported`, whatever fields it carries
/// (the field check is for the operations it knows).
#[test]
fn an_unknown_patch_operation_is_unsupported_even_with_fields() {
    let repo = Repo::new();
    repo.write("a.py", "def f():\n    return 1\n").commit();
    let request = r#"{"command":"patch","file":"a.py","target":{"type":"symbol","name":"f"},"op":{"type":"bogus","new_text":"x"}}"#;
    let (rc, doc) = repo.json_stdin(&["patch", "--json"], request);
    assert_ne!(rc, 0);
    assert_eq!(crate::common::code(&doc), "plan_unsupported", "{doc}");
    assert_eq!(repo.text("a.py"), "def f():\n    return 1\n");
}

/// `patch --verbose` adds identedit's `applied` list, read from the report's `changed_files`
/// (which the document prints as text it serialized ahead, not as a tree of values).
#[test]
fn patch_verbose_lists_what_was_applied_per_file() {
    let repo = Repo::new();
    repo.write("a.py", "def f():\n    return 1\n").commit();
    let (rc, doc) = repo.json(&[
        "patch",
        "a.py",
        "--find",
        "return 1",
        "--replace",
        "return 2",
        "--verbose",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        doc["applied"],
        serde_json::json!([{"file": "a.py", "operations_applied": 1, "operations_total": 1, "status": "applied"}]),
        "{doc}"
    );
    assert_eq!(doc["changed_files"][0]["path"], "a.py", "{doc}");
    assert_eq!(
        doc["changed_files"][0]["edits"][0]["lines"][0]["new_start"], 2,
        "{doc}"
    );
    assert_eq!(doc["unchanged_files"], serde_json::json!([]), "{doc}");
    assert_eq!(repo.text("a.py"), "def f():\n    return 2\n");
}
