//! The syntax layer end to end: read, line anchors, structure targets, the gate.

use serde_json::{Value, json};

use crate::common::{Repo, code, plan, sha256_hex};

pub(crate) const PY: &str = "import os\n\n\nclass A:\n    def run(self):\n        return 1\n\n\nclass B:\n    def run(self):\n        return 2\n\n\ndef helper(x):\n    return x * 2\n";

pub(crate) fn py_repo() -> Repo {
    let repo = Repo::new();
    repo.write("m.py", PY).commit();
    repo
}

/// `LINE:HASH` of a line, computed from the documented contract (sha256 of the line without
/// its terminator, first 8 hex).
pub(crate) fn anchor(line: usize, content: &str) -> String {
    format!("{line}:{}", &sha256_hex(content.as_bytes())[..8])
}

pub(crate) fn handles(doc: &Value) -> Vec<Value> {
    doc["files"][0]["handles"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn line_patch(content: &[u8], args: &[&str]) -> (i32, Value, Vec<u8>) {
    let repo = Repo::new();
    repo.write("f.txt", content).commit();
    let (rc, doc) = repo.json(&[&["patch", "f.txt"], args].concat());
    (rc, doc, repo.read("f.txt"))
}

#[test]
fn line_targets_keep_each_terminator_on_lf_crlf_cr_and_bom_files() {
    let a2 = anchor(2, "two");
    let a3 = anchor(3, "three");
    let cases: [(&[u8], Vec<&str>, &[u8]); 6] = [
        (
            b"one\ntwo\nthree\n",
            vec!["--at", &a2, "--replace", "2\n2.5"],
            b"one\n2\n2.5\nthree\n",
        ),
        (
            b"one\r\ntwo\r\nthree\r\n",
            vec!["--at", &a2, "--replace", "2\n2.5\n"],
            b"one\r\n2\r\n2.5\r\nthree\r\n",
        ),
        (
            b"one\rtwo\rthree\r",
            vec!["--at", &a2, "--insert-after", "x"],
            b"one\rtwo\rx\rthree\r",
        ),
        (
            b"one\ntwo\nthree",
            vec!["--at", &a2, "--end-anchor", &a3, "--delete"],
            b"one",
        ),
        (
            b"one\ntwo\nthree",
            vec!["--at", &a3, "--insert-after", "four"],
            b"one\ntwo\nthree\nfour",
        ),
        (
            "\u{feff}one\r\ntwo\r\n".as_bytes(),
            vec!["--at", "file-start", "--insert", "// top\r\n"],
            "\u{feff}// top\r\none\r\ntwo\r\n".as_bytes(),
        ),
    ];
    for (before, args, after) in cases {
        let (rc, doc, now) = line_patch(before, &args);
        assert_eq!(rc, 0, "{args:?}: {doc}");
        assert_eq!(
            String::from_utf8_lossy(&now),
            String::from_utf8_lossy(after),
            "{args:?}"
        );
    }
}

#[test]
fn a_stale_anchor_is_a_precondition_failure_with_a_remap_and_auto_repair_applies_it_once() {
    let stale = anchor(1, "two");
    let (rc, doc, now) = line_patch(b"zero\none\ntwo\n", &["--at", &stale, "--replace", "TWO"]);
    assert_eq!((rc, code(&doc)), (1, "precondition_failed"));
    let error = &doc["error"];
    assert_eq!(
        error["details"]["expected"],
        json!({"line": 1, "hash": &stale[2..]})
    );
    assert_eq!(error["details"]["remaps"], json!([{"from": 1, "to": 3}]));
    assert_eq!(error["line_check"]["summary"]["remappable"], 1);
    assert_eq!(now, b"zero\none\ntwo\n");
    let (rc, doc, now) = line_patch(
        b"zero\none\ntwo\n",
        &["--at", &stale, "--replace", "TWO", "--auto-repair"],
    );
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(now, b"zero\none\nTWO\n");
    assert_eq!(
        doc["changed_files"][0]["edits"][0]["auto_repaired"],
        json!([{"from": 1, "to": 3}])
    );
}

#[test]
fn ambiguous_symbols_list_candidates_and_qualified_names_resolve() {
    let repo = py_repo();
    let (rc, doc) = repo.json(&["patch", "m.py", "--symbol", "run", "--delete"]);
    assert_eq!((rc, code(&doc)), (1, "ambiguous_target"));
    let candidates = doc["error"]["candidates"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(candidates.len(), 2);
    assert_eq!(candidates[1]["qualified_name"], "B.run");
    assert_eq!(candidates[1]["line"], 10);
    assert_eq!(candidates[1]["text"], "def run(self):");
    assert!(
        candidates[1]["identity"]
            .as_str()
            .is_some_and(|i| i.len() == 16)
    );
    assert_eq!(repo.text("m.py"), PY);
    let (rc, doc) = repo.json(&[
        "patch",
        "m.py",
        "--symbol",
        "B.run",
        "--replace",
        "def run(self):\n        return 3",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert!(repo.text("m.py").contains("        return 3\n"));
}

#[test]
fn many_candidates_are_capped_at_sixteen_with_a_summary() {
    let repo = Repo::new();
    let body: String = (0..20)
        .map(|i| format!("class C{i}:\n    def go(self):\n        pass\n\n\n"))
        .collect();
    repo.write("many.py", &body).commit();
    let (_, doc) = repo.json(&["patch", "many.py", "--symbol", "go", "--delete"]);
    assert_eq!(
        doc["error"]["candidates"].as_array().map(Vec::len),
        Some(16)
    );
    assert_eq!(
        doc["error"]["candidate_summary"],
        json!({"total": 20, "omitted": 4})
    );
}

#[test]
fn identity_targets_are_bound_to_the_content_that_was_read() {
    let repo = py_repo();
    let (_, doc) = repo.json(&["read", "m.py", "--symbol", "helper"]);
    let identity = handles(&doc)[0]["identity"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let (rc, doc) = repo.json(&[
        "patch",
        "m.py",
        "--at",
        &identity,
        "--replace",
        "def helper(x):\n    return x + 2",
        "--dry-run",
    ]);
    assert_eq!(rc, 0, "{doc}");
    repo.write("m.py", PY.replace("x * 2", "x * 4"));
    let (rc, doc) = repo.json(&["patch", "m.py", "--at", &identity, "--delete"]);
    assert_eq!((rc, code(&doc)), (1, "target_missing"));
}

#[test]
fn patch_json_takes_identedits_request_shape() {
    let repo = py_repo();
    let (_, doc) = repo.json(&["read", "m.py", "--symbol", "A.run"]);
    let h = &handles(&doc)[0];
    let request = json!({"command": "patch", "file": "m.py",
        "target": {"type": "node", "identity": h["identity"], "kind": h["kind"], "expected_old_hash": h["expected_old_hash"]},
        "op": {"type": "replace", "new_text": "def run(self):\n        return 10"}});
    let (rc, doc) = repo.json_stdin(&["patch", "--json"], &request.to_string());
    assert_eq!(rc, 0, "{doc}");
    assert!(repo.text("m.py").contains("return 10"));
}

#[test]
fn scoped_regex_is_bounded_to_the_node() {
    let repo = py_repo();
    let (rc, doc) = repo.json(&[
        "patch",
        "m.py",
        "--symbol",
        "helper",
        "--scoped-regex",
        "x",
        "--scoped-replacement",
        "value",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["changed_files"][0]["edits"][0]["regex_replacements"], 2);
    assert!(
        repo.text("m.py")
            .ends_with("def helper(value):\n    return value * 2\n")
    );
    assert!(repo.text("m.py").starts_with("import os\n"));
    let (rc, doc) = repo.json(&[
        "patch",
        "m.py",
        "--symbol",
        "helper",
        "--scoped-regex",
        "nothing",
        "--scoped-replacement",
        "y",
    ]);
    // The public contract: a scoped regex with zero matches is `invalid_request`.
    assert_eq!((rc, code(&doc)), (1, "invalid_request"));
}

#[test]
fn payloads_come_from_text_files_with_spaces_keep_a_bom_and_take_a_literal_dash() {
    let repo = Repo::new();
    repo.write("a.txt", "one\ntwo\n")
        .write("my payload.txt", "\u{feff}BOM first")
        .commit();
    let (rc, doc) = repo.json(&[
        "patch",
        "a.txt",
        "--at",
        &anchor(1, "one"),
        "--replace",
        "--text-file",
        "my payload.txt",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("a.txt"), "\u{feff}BOM first\ntwo\n");
    let (rc, doc) = repo.json(&[
        "patch",
        "a.txt",
        "--at",
        &anchor(2, "two"),
        "--replace",
        "-",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("a.txt"), "\u{feff}BOM first\n-\n");
    let (rc, _) = repo.json_stdin(
        &[
            "patch",
            "a.txt",
            "--at",
            "file-end",
            "--insert",
            "--stdin-text",
        ],
        "tail\n",
    );
    assert_eq!(rc, 0);
    assert!(repo.text("a.txt").ends_with("-\ntail\n"));
}

#[test]
fn the_gate_refuses_added_syntax_errors_from_every_front_end() {
    let repo = py_repo();
    let broken = "def helper(x):\n    return (x";
    let (rc, doc) = repo.json(&["patch", "m.py", "--symbol", "helper", "--replace", broken]);
    assert_eq!(
        (rc, code(&doc), doc["error"]["stage"].clone()),
        (1, "parse_failure", json!("proposed_result"))
    );
    assert!(doc["error"]["location"]["line"].as_u64().is_some());
    let (rc, doc) = repo.json(&[
        "edit",
        "m.py",
        "--find",
        "return x * 2",
        "--replace",
        "return (x * 2",
    ]);
    assert_eq!((rc, code(&doc)), (1, "parse_failure"));
    let body = plan(json!({"edits": [{"path": "m.py", "find": "class B:", "replace": "class B"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
    assert_eq!((rc, code(&doc)), (1, "parse_failure"));
    let (rc, doc) = repo.json(&[
        "patch",
        "m.py",
        "--at",
        &anchor(15, "    return x * 2"),
        "--replace",
        "    return (x",
    ]);
    assert_eq!((rc, code(&doc)), (1, "parse_failure"));
    assert_eq!(repo.text("m.py"), PY);
    let (rc, doc) = repo.json(&[
        "edit",
        "m.py",
        "--find",
        "return x * 2",
        "--replace",
        "return (x * 2",
        "--allow-syntax-errors",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        doc["structure_changes"][0]["errors_after"]
            .as_u64()
            .map(|n| n > 0),
        Some(true)
    );
}

#[test]
fn a_broken_source_refuses_structure_targets_but_takes_text_edits_that_add_no_errors() {
    let repo = Repo::new();
    let broken = "def ok():\n    return 1\n\ndef bad(:\n    pass\n";
    repo.write("b.py", broken).commit();
    let (rc, doc) = repo.json(&["patch", "b.py", "--symbol", "ok", "--delete"]);
    assert_eq!(
        (rc, code(&doc), doc["error"]["stage"].clone()),
        (1, "parse_failure", json!("source"))
    );
    let (rc, doc) = repo.json(&[
        "edit",
        "b.py",
        "--find",
        "def bad(:",
        "--replace",
        "def bad():",
    ]);
    assert_eq!(rc, 0, "{doc}");
}

/// Python's indentation rule (which tree-sitter does not enforce) is checked where a structure
/// edit lands: a dedent error in another function does not stop a patch of `ok`, one in the
/// target refuses it as a source that does not parse, and `read` still counts it.
#[test]
fn an_indentation_error_refuses_structure_targets_where_it_is_only() {
    let repo = Repo::new();
    let file = "def ok():\n    return 1\n\n\ndef bad():\n    if True:\n        x = 1\n      y = 2\n    return x\n";
    repo.write("m.py", file).commit();
    let text = String::from_utf8(repo.run(&["read", "m.py"]).stdout).unwrap_or_default();
    assert!(
        text.starts_with("# 1 syntax error(s) (first at line 8"),
        "{text}"
    );
    let (rc, doc) = repo.json(&["patch", "m.py", "--symbol", "bad", "--delete"]);
    assert_eq!(
        (rc, code(&doc), doc["error"]["stage"].clone()),
        (1, "parse_failure", json!("source"))
    );
    assert_eq!(doc["error"]["details"]["location"]["line"], 8, "{doc}");
    assert_eq!(repo.text("m.py"), file);
    let (rc, doc) = repo.json(&[
        "patch",
        "m.py",
        "--symbol",
        "ok",
        "--replace",
        "def ok():\n    return 2",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("m.py"), file.replace("return 1", "return 2"));
}

#[test]
fn structure_changes_report_what_appeared_and_disappeared() {
    let repo = py_repo();
    let (rc, doc) = repo.json(&[
        "edit",
        "m.py",
        "--find",
        "def helper(x):",
        "--replace",
        "def assist(x):",
        "--allow-signature-change",
    ]);
    assert_eq!(rc, 0, "{doc}");
    let report = &doc["structure_changes"][0];
    assert_eq!(report["status"], "checked");
    assert_eq!(
        report["appeared"],
        json!([{"kind": "function_definition", "name": "assist"}])
    );
    assert_eq!(
        report["disappeared"],
        json!([{"kind": "function_definition", "name": "helper"}])
    );
    assert_eq!(doc["locations"][0]["start_line"], 14);
    let repo = Repo::new();
    repo.write("notes.txt", "a\n").commit();
    let (_, doc) = repo.json(&["edit", "notes.txt", "--find", "a", "--replace", "b"]);
    assert_eq!(doc["structure_changes"][0]["status"], "unavailable");
    let (rc, doc) = repo.json(&["patch", "notes.txt", "--symbol", "x", "--delete"]);
    assert_eq!((rc, code(&doc)), (1, "no_provider"));
}

#[test]
fn exactly_one_target_and_one_operation() {
    let repo = py_repo();
    for args in [
        vec!["patch", "m.py", "--delete"],
        vec!["patch", "m.py", "--symbol", "helper"],
        vec![
            "patch", "m.py", "--symbol", "helper", "--at", "file-end", "--delete",
        ],
        vec![
            "patch",
            "m.py",
            "--symbol",
            "helper",
            "--delete",
            "--replace",
            "x",
        ],
        vec!["patch", "m.py", "--at", "file-end", "--delete"],
    ] {
        let (rc, doc) = repo.json(&args);
        assert_eq!((rc, code(&doc)), (2, "usage"), "{args:?}");
    }
}

/// Deleting a structure takes what belongs to it: regression cases for spans that used to
/// leave `export `, attributes, doc comments, a `;`, `const ;` or a dangling comma behind.
#[test]
fn deletions_take_exports_attributes_comments_and_separators_along() {
    let cases: [(&str, &str, &str, &str); 6] = [
        (
            "a.ts",
            "export function keep() {}\n\nexport function drop() {}\n",
            "drop",
            "export function keep() {}\n",
        ),
        (
            "b.rs",
            "fn keep() {}\n\n/// Docs.\n#[inline]\nfn drop() {}\n\nfn after() {}\n",
            "drop",
            "fn keep() {}\n\nfn after() {}\n",
        ),
        (
            "c.ts",
            "class A {\n  keep = 1;\n  drop: number = 2;\n}\n",
            "A.drop",
            "class A {\n  keep = 1;\n}\n",
        ),
        (
            "d.ts",
            "interface I {\n  keep: string;\n  drop: number;\n}\n",
            "I.drop",
            "interface I {\n  keep: string;\n}\n",
        ),
        (
            "e.js",
            "const keep = 1;\nconst drop = () => 2;\n",
            "drop",
            "const keep = 1;\n",
        ),
        (
            "f.json",
            "{\n  \"keep\": 1,\n  \"drop\": 2\n}\n",
            "drop",
            "{\n  \"keep\": 1\n}\n",
        ),
    ];
    for (file, before, symbol, after) in cases {
        let repo = Repo::new();
        repo.write(file, before).commit();
        let (rc, doc) = repo.json(&["patch", file, "--symbol", symbol, "--delete"]);
        assert_eq!(rc, 0, "{file}: {doc}");
        assert_eq!(repo.text(file), after, "{file}");
    }
    let repo = Repo::new();
    repo.write("g.json", "{\n  \"drop\": 1,\n  \"keep\": 2\n}\n")
        .commit();
    let (rc, doc) = repo.json(&["patch", "g.json", "--symbol", "drop", "--delete"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("g.json"), "{\n  \"keep\": 2\n}\n");
}

#[test]
fn every_text_edit_is_gated_whatever_the_old_budget_says() {
    // Issue 13: the per-command byte budget is gone; the gate checks the regions around the
    // edits, so even a zero "budget" leaves every write gated.
    let repo = py_repo();
    let run = |args: &[&str]| {
        let mut cmd = repo.cmd();
        cmd.args(args)
            .args(["--format", "json"])
            .env("IDENTEDIT_SYNTAX_MAX_BYTES", "0");
        let out = cmd.output().expect("run");
        (
            out.status.code().unwrap_or(-1),
            crate::common::parse_one_document(&out),
        )
    };
    let edit = |replace: &'static str| {
        [
            "edit",
            "m.py",
            "--find",
            "return x * 2",
            "--replace",
            replace,
            "--dry-run",
        ]
    };
    let (rc, doc) = run(&edit("return (x * 2"));
    assert_eq!((rc, code(&doc)), (1, "parse_failure"), "{doc}");
    let (rc, doc) = run(&edit("return x * 3"));
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["structure_changes"][0]["status"], "checked");
    assert_eq!(doc["structure_changes"][0]["scope"], "region", "{doc}");
    let (rc, doc) = run(&[
        "patch",
        "m.py",
        "--symbol",
        "helper",
        "--replace",
        "def helper(x):\n    return (x",
        "--dry-run",
    ]);
    assert_eq!((rc, code(&doc)), (1, "parse_failure"));
}
