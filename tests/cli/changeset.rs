//! `edit --json` builds a changeset without writing; `apply` re-proves and commits it:
//! round trips in several languages, tampering, line repair, request pointers, conflicts.
//! Identities, hashes and anchors always come from `read --json` run in the test.

use serde_json::{Value, json};

use crate::common::{Repo, code, sha256_hex};

/// The `read --json` handle of the structure `name` in `file`.
pub fn handle(repo: &Repo, file: &str, name: &str) -> Value {
    let (status, doc) = repo.json(&["read", "--json", file]);
    assert_eq!(status, 0, "{doc}");
    doc["files"][0]["handles"]
        .as_array()
        .expect("handles")
        .iter()
        .find(|h| h["qualified_name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no {name} in {doc}"))
}

/// A node target copied from a handle.
pub fn node(h: &Value) -> Value {
    json!({"type": "node", "identity": h["identity"], "kind": h["kind"],
           "expected_old_hash": h["expected_old_hash"]})
}

/// The `LINE:HASH` anchor of line `n` of `file`, from `read --mode line --json`.
pub fn anchor(repo: &Repo, file: &str, n: usize) -> String {
    let (status, doc) = repo.json(&["read", "--mode", "line", "--json", file]);
    assert_eq!(status, 0, "{doc}");
    doc["files"][0]["handles"][n - 1]["anchor"]
        .as_str()
        .expect("anchor")
        .to_owned()
}

/// `anchor` with another line number (a stale anchor whose line moved).
fn anchor_of(anchor: &str, line: usize) -> String {
    let hash = anchor.split_once(':').expect("LINE:HASH").1;
    format!("{line}:{hash}")
}

/// `edit --json` on `request`; the tree must be untouched whatever the outcome.
pub fn build(repo: &Repo, request: &Value) -> (i32, Value) {
    let before = repo.tree();
    let out = repo.json_stdin(&["edit", "--json"], &request.to_string());
    assert_eq!(repo.tree(), before, "edit --json wrote something");
    out
}

pub fn built(repo: &Repo, request: &Value) -> Value {
    let (status, doc) = build(repo, request);
    assert_eq!(status, 0, "{doc}");
    assert_eq!(doc["type"], "identedit_changeset", "{doc}");
    doc
}

pub fn apply(repo: &Repo, changeset: &Value, extra: &[&str]) -> (i32, Value) {
    repo.json_stdin(&[&["apply", "-"], extra].concat(), &changeset.to_string())
}

/// Runs a command that must be refused and checks that every file is byte-identical after.
pub fn refused(repo: &Repo, args: &[&str], stdin: &str) -> Value {
    let before = repo.tree();
    let (status, doc) = repo.json_stdin(args, stdin);
    assert_ne!(status, 0, "{doc}");
    assert_eq!(doc["ok"], false, "{doc}");
    assert_eq!(repo.tree(), before, "a refusal changed the tree: {doc}");
    assert!(repo.temp_files().is_empty());
    doc
}

/// The digest `edit --json` puts in a changeset: sha256 of the document without `digest`,
/// keys sorted.
pub fn redigest(changeset: &mut Value) {
    fn canonical(v: &Value) -> String {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let body: Vec<String> = keys
                    .iter()
                    .map(|k| format!("{}:{}", Value::String((*k).clone()), canonical(&map[*k])))
                    .collect();
                format!("{{{}}}", body.join(","))
            }
            Value::Array(list) => {
                let body: Vec<String> = list.iter().map(canonical).collect();
                format!("[{}]", body.join(","))
            }
            other => other.to_string(),
        }
    }
    let obj = changeset.as_object_mut().expect("object");
    obj.remove("digest");
    let digest = sha256_hex(canonical(&Value::Object(obj.clone())).as_bytes());
    obj.insert("digest".into(), json!(digest));
}

#[test]
fn read_edit_apply_round_trip_in_four_languages() {
    let cases = [
        (
            "m.py",
            "import os\n\n\ndef add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
            "add",
            "def add(a, b):\n    return a + b",
            "def add(a, b):\n    return int(a) + int(b)",
        ),
        (
            "m.rs",
            "fn add(a: i32, b: i32) -> i32 {\r\n    a + b\r\n}\r\n\r\nfn sub(a: i32, b: i32) -> i32 {\r\n    a - b\r\n}\r\n",
            "sub",
            "fn sub(a: i32, b: i32) -> i32 {\r\n    a - b\r\n}",
            "fn sub(a: i32, b: i32) -> i32 {\r\n    a.wrapping_sub(b)\r\n}",
        ),
        (
            "m.ts",
            "export function add(a: number, b: number): number {\n  return a + b;\n}\n\nfunction sub(a: number, b: number): number {\n  return a - b;\n}",
            "add",
            "function add(a: number, b: number): number {\n  return a + b;\n}",
            "function add(a: number, b: number): number {\n  return b + a;\n}",
        ),
        (
            "m.php",
            "<?php\nfunction add($a, $b) {\n    return $a + $b;\n}\n\nclass Calc {\n    public function sub($a, $b) {\n        return $a - $b;\n    }\n}\n",
            "Calc.sub",
            "public function sub($a, $b) {\n        return $a - $b;\n    }",
            "public function sub($a, $b) {\n        return $a - $b - 0;\n    }",
        ),
    ];
    for (file, source, name, old, new) in cases {
        let repo = Repo::new();
        repo.write(file, source);
        let h = handle(&repo, file, name);
        let request = json!({"command": "edit", "file": file, "operations": [
            {"target": node(&h), "op": {"type": "replace", "new_text": new}}]});
        let changeset = built(&repo, &request);
        let recorded = &changeset["files"][0]["operations"][0];
        assert_eq!(
            recorded["preview"]["old_hash"], h["expected_old_hash"],
            "{file}"
        );
        assert_eq!(recorded["preview"]["old_len"], old.len(), "{file}");
        assert_eq!(recorded["preview"]["new_text"], new, "{file}");
        assert_eq!(
            changeset["files"][0]["sha256"],
            sha256_hex(source.as_bytes())
        );
        let (status, doc) = apply(&repo, &changeset, &["--dry-run"]);
        assert_eq!((status, &doc["dry_run"]), (0, &json!(true)), "{doc}");
        assert_eq!(repo.text(file), source, "a dry run wrote {file}");
        let (status, doc) = apply(&repo, &changeset, &["--task", "round-trip"]);
        assert_eq!(status, 0, "{file}: {doc}");
        assert_eq!(doc["changeset"]["verified"], true);
        assert_eq!(
            doc["plan"],
            json!({"type": "changeset", "label": "round-trip",
                                       "sha256": sha256_hex(changeset.to_string().as_bytes())})
        );
        assert_eq!(repo.text(file), source.replacen(old, new, 1), "{file}");
    }
}

#[test]
fn batches_use_symbols_selectors_handles_and_boundaries_and_diff_in_path_order() {
    let repo = Repo::new();
    repo.write(
        "z.py",
        "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
    );
    repo.write("a.py", "def h():\n    return 3\n");
    let g = handle(&repo, "z.py", "g");
    let table = json!({"g1": {"identity": g["identity"], "kind": g["kind"],
                              "expected_old_hash": g["expected_old_hash"]}});
    let request = json!({"command": "edit", "files": [
        {"file": "z.py", "handle_table": table, "operations": [
            {"target": {"type": "symbol", "name": "f"},
             "op": {"type": "scoped_regex", "pattern": "1", "replacement": "10"}},
            {"target": {"type": "handle_ref", "ref": "g1"}, "op": {"type": "delete"}}]},
        {"file": "a.py", "operations": [
            {"target": {"type": "selector", "kind": "function_definition", "name": "h*"},
             "op": {"type": "insert_before", "new_text": "import os\n\n"}},
            {"target": {"type": "file_end"}, "op": {"type": "insert", "new_text": "\n\nX = 1\n"}}]}]});
    // Deleting the public `g` is an API change: acknowledged when built and when applied.
    let (status, changeset) = repo.json_stdin(
        &["edit", "--json", "--allow-signature-change"],
        &request.to_string(),
    );
    assert_eq!(status, 0, "{changeset}");
    let first = &changeset["files"][0]["operations"][0];
    assert_eq!(first["request_target"]["type"], "symbol");
    assert_eq!(
        first["target"]["type"], "node",
        "symbols are recorded as the node they found"
    );
    assert_eq!(
        changeset["files"][0]["operations"][1]["target"]["identity"],
        g["identity"]
    );
    let out = repo.run_stdin(
        &[
            "apply",
            "-",
            "--dry-run",
            "--diff",
            "--format",
            "text",
            "--allow-signature-change",
        ],
        &changeset.to_string(),
    );
    let diff = String::from_utf8_lossy(&out.stdout);
    let (a, z) = (diff.find("+++ b/a.py"), diff.find("+++ b/z.py"));
    assert!(
        a.is_some() && a < z,
        "diffs in path order, not request order:\n{diff}"
    );
    let (status, doc) = apply(&repo, &changeset, &["--allow-signature-change"]);
    assert_eq!(status, 0, "{doc}");
    assert_eq!(repo.text("z.py"), "def f():\n    return 10\n\n");
    assert_eq!(
        repo.text("a.py"),
        "import os\n\ndef h():\n    return 3\n\n\nX = 1\n"
    );
}

#[test]
fn tampered_changesets_are_refused_and_write_nothing() {
    let repo = Repo::new();
    repo.write(
        "m.py",
        "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
    );
    let h = handle(&repo, "m.py", "f");
    let request = json!({"command": "edit", "file": "m.py", "operations": [
        {"target": node(&h), "op": {"type": "replace", "new_text": "def f():\n    return 5"}}]});
    let changeset = built(&repo, &request);
    let tamper = |edit: &dyn Fn(&mut Value), redigested: bool| {
        let mut bad = changeset.clone();
        edit(&mut bad["files"][0]["operations"][0]);
        if redigested {
            redigest(&mut bad);
        }
        refused(&repo, &["apply", "-"], &bad.to_string())
    };
    let preview_text = |op: &mut Value| op["preview"]["new_text"] = json!("def f():\n    return 6");
    let span = |op: &mut Value| op["preview"]["matched_span"]["end"] = json!(3);
    let payload = |op: &mut Value| op["op"]["new_text"] = json!("import sys");
    let doc = tamper(&preview_text, false);
    assert_eq!(code(&doc), "changeset_tampered", "{doc}");
    assert!(doc["error"]["details"]["expected_digest"].is_string());
    for edit in [&preview_text as &dyn Fn(&mut Value), &span, &payload] {
        let doc = tamper(edit, true);
        assert_eq!(code(&doc), "changeset_tampered", "{doc}");
        assert_eq!(
            doc["error"]["request_pointers"],
            json!(["/files/0/operations/0"])
        );
    }
    let doc = refused(&repo, &["apply", "-"], &request.to_string());
    assert_eq!(code(&doc), "needs_changeset", "{doc}");
    assert_eq!(doc["error"]["next_action"], "compile_with_edit_json");
    let plan = crate::common::plan(
        json!({"edits": [{"path": "m.py", "find": "return 1", "replace": "return 3"}]}),
    );
    let doc = refused(&repo, &["apply", "-", "--repair"], &plan);
    assert_eq!(code(&doc), "usage", "--repair is for changesets: {doc}");
}

#[test]
fn stale_line_anchors_are_reported_as_fields_and_repaired_only_when_unique() {
    let repo = Repo::new();
    repo.write("f.txt", "one\ntwo\nthree\nfour\nfive\n");
    let (two, four) = (anchor(&repo, "f.txt", 2), anchor(&repo, "f.txt", 4));
    let request = json!({"command": "edit", "file": "f.txt", "operations": [
        {"target": {"type": "line", "anchor": two, "end_anchor": four},
         "op": {"type": "replace", "new_text": "TWO-FOUR\n"}}]});
    let changeset = built(&repo, &request);
    repo.write("f.txt", "zero\none\ntwo\nthree\nfour\nfive\n");
    // Issue 19 changed this: a changeset whose file changed elsewhere while the lines it
    // captured stand unchanged, once, is rebased without `--repair` (it used to be
    // `invalid_request` with the remap as a candidate). Building from a stale request still
    // refuses, below.
    let doc = refused(&repo, &["edit", "--json"], &request.to_string());
    assert_eq!(code(&doc), "invalid_request");
    assert_eq!(doc["error"]["request_pointers"], json!(["/operations/0"]));
    let mut two = request.clone();
    let stale = json!({"target": {"type": "line", "anchor": anchor_of(&four, 9)},
                       "op": {"type": "delete"}});
    two["operations"].as_array_mut().expect("list").push(stale);
    let doc = refused(&repo, &["edit", "--json"], &two.to_string());
    let check = &doc["error"]["line_check"];
    assert_eq!(check["summary"]["mismatched"], 2, "{doc}");
    assert_eq!(check["mismatches"][1]["remap_candidates"], json!([5]));
    assert_eq!(
        doc["error"]["request_pointers"],
        json!(["/operations/0", "/operations/1"])
    );
    let shifted = "zero\none\ntwo\nthree\nfour\nfive\n";
    let (status, doc) = apply(&repo, &changeset, &[]);
    assert_eq!(status, 0, "{doc}");
    assert_eq!(
        doc["changeset"]["rebased"],
        json!([{"pointer": "/files/0/operations/0", "path": "f.txt",
                "from": {"start_line": 2, "end_line": 4}, "to": {"start_line": 3, "end_line": 5}}])
    );
    assert_eq!(repo.text("f.txt"), "zero\none\nTWO-FOUR\nfive\n");
    repo.write("f.txt", shifted);
    let (status, doc) = apply(&repo, &changeset, &["--repair"]);
    assert_eq!(status, 0, "{doc}");
    assert_eq!(
        doc["changeset"]["repaired"],
        json!([{"pointer": "/files/0/operations/0", "from_line": 2, "to_line": 3},
               {"pointer": "/files/0/operations/0", "from_line": 4, "to_line": 5}])
    );
    assert_eq!(
        doc["changeset"]["previews_refreshed"],
        json!(["/files/0/operations/0"])
    );
    assert_eq!(repo.text("f.txt"), "zero\none\nTWO-FOUR\nfive\n");
    // Two candidate lines: neither rebased nor repaired, both named.
    repo.write("f.txt", "one\ntwo\nthree\nfour\nfive\n");
    let changeset = built(&repo, &request);
    repo.write("f.txt", "two\none\ntwo\nthree\nfour\nfive\n");
    for extra in [&[][..], &["--repair"]] {
        let args = [&["apply", "-"][..], extra].concat();
        let doc = refused(&repo, &args, &changeset.to_string());
        assert_eq!(code(&doc), "invalid_request", "{doc}");
        assert_eq!(
            doc["error"]["line_check"]["mismatches"][0]["remap_candidates"],
            json!([1, 3])
        );
    }
    // Anchors intact (or moved to one line) but a line inside the range changed: the captured
    // range is protected, and `--repair` takes it from the current content, reported.
    for (now, without_repair, result) in [
        (
            "one\ntwo\nTHREE\nfour\nfive\n",
            "precondition_failed",
            "one\nTWO-FOUR\nfive\n",
        ),
        // The anchors moved (each to one line): found again, but the captured text differs
        // (issue 19: `precondition_failed` now, where the stale anchors were refused before).
        (
            "one\n\ntwo\n3\n3\nfour\nfive\n",
            "precondition_failed",
            "one\n\nTWO-FOUR\nfive\n",
        ),
    ] {
        repo.write("f.txt", now);
        let doc = refused(&repo, &["apply", "-"], &changeset.to_string());
        assert_eq!(code(&doc), without_repair, "{doc}");
        let (status, doc) = apply(&repo, &changeset, &["--repair"]);
        assert_eq!(status, 0, "{doc}");
        assert_eq!(
            doc["changeset"]["previews_refreshed"],
            json!(["/files/0/operations/0"])
        );
        assert_eq!(repo.text("f.txt"), result);
    }
}

#[test]
fn errors_point_into_single_and_batch_requests() {
    let repo = Repo::new();
    repo.write("a.py", "def f():\n    return 1\n");
    repo.write("b.py", "def g():\n    return 2\n");
    let ok = json!({"target": {"type": "symbol", "name": "f"}, "op": {"type": "delete"}});
    let cases = [
        (
            json!({"command": "edit", "file": "a.py", "operations": [ok,
                {"target": {"type": "line", "anchor": "x"}, "op": {"type": "delete"}}]}),
            "plan_malformed",
            json!(["/operations/1"]),
        ),
        (
            json!({"command": "edit", "files": [{"file": "a.py", "operations": [ok]},
                {"file": "b.py", "operations": [{"target": {"type": "symbol", "name": "nope"},
                                                 "op": {"type": "delete"}}]}]}),
            "target_missing",
            json!(["/files/1/operations/0"]),
        ),
        (
            json!({"command": "edit", "files": [{"file": "a.py", "operations": [ok]},
                {"file": "b.py", "operations": [], "extra": 1}]}),
            "plan_malformed",
            json!(["/files/1"]),
        ),
        (
            json!({"command": "edit", "files": [{"file": "a.py", "operations": [ok]},
                {"file": "b.py", "operations": [{"target": {"type": "symbol", "name": "g"},
                                                 "op": {"type": "replace"}}]}]}),
            "plan_malformed",
            json!(["/files/1/operations/0"]),
        ),
        (
            json!({"command": "edit", "files": [{"file": "a.py", "operations": [ok]},
                                                {"file": "gone.py", "operations": []}]}),
            "input_not_found",
            json!(["/files/1"]),
        ),
        (
            json!({"command": "edit", "file": "../a.py", "operations": [ok]}),
            "path_refused",
            json!(["/file"]),
        ),
        (
            json!({"command": "edit", "file": "a.py", "operations": [],
                   "files": [{"file": "b.py", "operations": []}]}),
            "plan_malformed",
            json!([""]),
        ),
        (
            json!({"command": "edit", "files": [{"file": "a.py", "operations": [ok]},
                {"file": "b.py", "operations": [{"target": {"type": "file_end"},
                                                 "op": {"type": "insert", "new_text": "def (:\n"}}]}]}),
            "parse_failure",
            json!(["/files/1/operations/0"]),
        ),
    ];
    for (request, expected_code, pointers) in cases {
        let doc = refused(&repo, &["edit", "--json"], &request.to_string());
        assert_eq!(code(&doc), expected_code, "{doc}");
        assert_eq!(doc["error"]["request_pointers"], pointers, "{doc}");
    }
}

#[test]
fn conflicts_name_both_operations_whatever_their_order() {
    let repo = Repo::new();
    repo.write("f.txt", "one\ntwo\nthree\nfour\n");
    repo.write("m.py", "def f():\n    return 1\n");
    let (l2, l3) = (anchor(&repo, "f.txt", 2), anchor(&repo, "f.txt", 3));
    let f = handle(&repo, "m.py", "f");
    let line = |a: &str, op: Value| json!({"target": {"type": "line", "anchor": a}, "op": op});
    let pairs = [
        (
            "f.txt",
            json!({"target": {"type": "line", "anchor": l2, "end_anchor": l3},
                   "op": {"type": "replace", "new_text": "x\n"}}),
            line(&l3, json!({"type": "delete"})),
        ),
        (
            "f.txt",
            line(&l2, json!({"type": "replace", "new_text": "x\n"})),
            line(&l2, json!({"type": "insert_after", "new_text": "y"})),
        ),
        (
            "f.txt",
            line(&l2, json!({"type": "insert_after", "new_text": "a"})),
            line(&l3, json!({"type": "insert_before", "new_text": "b"})),
        ),
        (
            "m.py",
            json!({"target": node(&f), "op": {"type": "replace", "new_text": "def f():\n    pass"}}),
            json!({"target": node(&f), "op": {"type": "insert_before", "new_text": "import os"}}),
        ),
        // The insertion lands after the line break, but it is tied to the structure's end.
        (
            "m.py",
            json!({"target": node(&f), "op": {"type": "replace", "new_text": "def f():\n    pass"}}),
            json!({"target": node(&f), "op": {"type": "insert_after", "new_text": "x = 1\n"}}),
        ),
        (
            "m.py",
            json!({"target": node(&f), "op": {"type": "scoped_regex", "pattern": "1", "replacement": "2"}}),
            json!({"target": node(&f), "op": {"type": "insert_after", "new_text": "x = 1\n"}}),
        ),
    ];
    for (file, x, y) in pairs {
        let run = |ops: Value| {
            let request = json!({"command": "edit", "files": [{"file": file, "operations": ops}]});
            refused(&repo, &["edit", "--json"], &request.to_string())
        };
        let forward = run(json!([x, y]));
        let backward = run(json!([y, x]));
        assert_eq!(code(&forward), "edits_overlap", "{forward}");
        assert_eq!(
            forward["error"], backward["error"],
            "order changed the error"
        );
        assert_eq!(
            forward["error"]["request_pointers"],
            json!(["/files/0/operations/0", "/files/0/operations/1"])
        );
    }
}

#[test]
fn a_file_listed_twice_is_refused_also_through_an_alias_or_a_hard_link() {
    let repo = Repo::new();
    repo.write("a.py", "def f():\n    return 1\n");
    std::fs::hard_link(repo.path().join("a.py"), repo.path().join("b.py")).expect("link");
    let op =
        json!([{"target": {"type": "file_end"}, "op": {"type": "insert", "new_text": "# x\n"}}]);
    for other in ["./a.py", "b.py"] {
        let request = json!({"command": "edit", "files": [
            {"file": "a.py", "operations": op}, {"file": other, "operations": op}]});
        let doc = refused(&repo, &["edit", "--json"], &request.to_string());
        assert_eq!(code(&doc), "invalid_request", "{doc}");
        assert_eq!(
            doc["error"]["request_pointers"],
            json!(["/files/0", "/files/1"])
        );
    }
}

#[test]
fn a_changeset_re_resolves_on_current_bytes_and_refreshes_moved_previews() {
    let repo = Repo::new();
    repo.write("m.py", "def f():\n    return 1\n");
    let f = handle(&repo, "m.py", "f");
    let request = json!({"command": "edit", "file": "m.py", "operations": [
        {"target": node(&f), "op": {"type": "replace", "new_text": "def f():\n    return 2"}}]});
    let changeset = built(&repo, &request);
    repo.write("m.py", "import os\n\n\ndef f():\n    return 1\n");
    let wrapped = json!({"command": "apply", "changeset": changeset});
    let (status, doc) = repo.json_stdin(&["apply", "-"], &wrapped.to_string());
    assert_eq!(status, 0, "{doc}");
    assert_eq!(
        doc["changeset"]["previews_refreshed"],
        json!(["/files/0/operations/0"])
    );
    assert_eq!(repo.text("m.py"), "import os\n\n\ndef f():\n    return 2\n");
    // Applied once: the node it captured is gone.
    let doc = refused(&repo, &["apply", "-"], &changeset.to_string());
    assert_eq!(code(&doc), "target_missing", "{doc}");
    assert_eq!(
        doc["error"]["request_pointers"],
        json!(["/files/0/operations/0"])
    );
}

/// Config-path operations inside a batch request: several keys of several files commit
/// together; two writes to one value are refused with both pointers.
#[test]
fn config_paths_in_a_batch_request() {
    let repo = Repo::new();
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"x\" # keep\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1\"\n",
    );
    repo.write(
        "package.json",
        "{\n  \"name\": \"x\",\n  \"version\": \"1.0.0\"\n}\n",
    );
    repo.commit();
    let config =
        |path: &str, op: Value| json!({"target": {"type": "config_path", "path": path}, "op": op});
    let request = json!({"command": "edit", "files": [
        {"file": "Cargo.toml", "operations": [
            config("package.version", json!({"type": "set", "new_text": "\"0.2.0\""})),
            config("dependencies.regex", json!({"type": "set", "new_text": "\"1\"", "create_missing": true}))]},
        {"file": "package.json", "operations": [
            config("version", json!({"type": "set", "new_text": "\"2.0.0\""}))]}]});
    let changeset = built(&repo, &request);
    let (rc, doc) = apply(&repo, &changeset, &[]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        repo.text("Cargo.toml"),
        "[package]\nname = \"x\" # keep\nversion = \"0.2.0\"\n\n[dependencies]\nserde = \"1\"\nregex = \"1\"\n"
    );
    assert_eq!(
        repo.text("package.json"),
        "{\n  \"name\": \"x\",\n  \"version\": \"2.0.0\"\n}\n"
    );

    let before = repo.tree();
    let clash = json!({"command": "edit", "file": "package.json", "operations": [
        config("version", json!({"type": "set", "new_text": "\"3.0.0\""})),
        config("version", json!({"type": "delete"}))]});
    let (rc, doc) = build(&repo, &clash);
    assert_eq!((rc, code(&doc)), (1, "edits_overlap"), "{doc}");
    assert_eq!(
        doc["error"]["request_pointers"],
        json!(["/operations/0", "/operations/1"])
    );
    let bad = json!({"command": "edit", "file": "package.json", "operations": [
        config("version", json!({"type": "set"}))]});
    let (rc, doc) = build(&repo, &bad);
    assert_eq!(code(&doc), "plan_malformed", "{doc}");
    assert_eq!(rc, 2);
    assert_eq!(doc["error"]["request_pointers"], json!(["/operations/0"]));
    assert_eq!(repo.tree(), before, "refusals write nothing");
}
