//! Symbol-addressed edits and the API-change guard, end to end (the data-driven cases,
//! `fixtures/symbols/<lang>/<case>/`, are one test each in `tests/folders/`).

use serde_json::json;

use crate::common::{Repo, api_changes, code};

const GREETER: &str = "<?php\n\nclass Greeter\n{\n    public function greet(string $name): string\n    {\n        return 'Hello ' . $name;\n    }\n}\n";

#[test]
fn the_documented_command_line_replaces_a_body_from_a_file() {
    let repo = Repo::new();
    repo.write("src/Greeter.php", GREETER).commit();
    repo.write(
        "body.php",
        "$name = trim($name);\n\nreturn 'Hello ' . $name;\n",
    );
    let args = [
        "edit",
        "src/Greeter.php",
        "--symbol",
        "Greeter::greet()",
        "--replace-body",
        "--text-file",
        "body.php",
    ];
    let (rc, doc) = repo.json(&[&args[..], &["--dry-run"]].concat());
    assert_eq!(
        (rc, repo.text("src/Greeter.php")),
        (0, GREETER.to_owned()),
        "{doc}"
    );
    let (rc, doc) = repo.json(&args);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        doc["changed_files"][0]["edits"][0]["matched_by"],
        "replace_body"
    );
    assert_eq!(
        repo.text("src/Greeter.php"),
        "<?php\n\nclass Greeter\n{\n    public function greet(string $name): string\n    {\n        $name = trim($name);\n\n        return 'Hello ' . $name;\n    }\n}\n"
    );
}

#[test]
fn member_flags_no_reindent_and_the_json_request() {
    let repo = Repo::new();
    repo.write("src/Greeter.php", GREETER).commit();
    let (rc, doc) = repo.json(&[
        "edit",
        "src/Greeter.php",
        "--symbol",
        "Greeter",
        "--insert-member",
        "--position",
        "start",
        "--text",
        "    private int $count = 0;",
        "--no-reindent",
    ]);
    assert_eq!(rc, 0, "{doc}");
    let request = r#"{"type": "source_edit_plan", "contract_version": "1.0", "edits": [
        {"op": "insert_member", "path": "src/Greeter.php", "symbol": "Greeter", "before": "greet()", "code": "public const A = 1;"}]}"#;
    let (rc, doc) = repo.json_stdin(&["edit", "--json"], request);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        repo.text("src/Greeter.php"),
        "<?php\n\nclass Greeter\n{\n    private int $count = 0;\n\n    public const A = 1;\n\n    public function greet(string $name): string\n    {\n        return 'Hello ' . $name;\n    }\n}\n"
    );
}

#[test]
fn flag_mistakes_are_usage_errors_and_write_nothing() {
    let repo = Repo::new();
    repo.write("src/Greeter.php", GREETER).commit();
    for args in [
        vec!["edit", "src/Greeter.php", "--symbol", "Greeter::greet()"],
        vec![
            "edit",
            "src/Greeter.php",
            "--symbol",
            "Greeter::greet()",
            "--replace-body",
            "--remove-symbol",
        ],
        vec![
            "edit",
            "src/Greeter.php",
            "--symbol",
            "Greeter::greet()",
            "--remove-symbol",
            "--find",
            "a",
            "--replace",
            "b",
        ],
        vec![
            "edit",
            "src/Greeter.php",
            "--symbol",
            "Greeter::greet()",
            "--replace-symbol",
        ],
        vec!["edit", "src/Greeter.php", "--replace-body"],
    ] {
        let (rc, doc) = repo.json(&args);
        assert_eq!((rc, code(&doc)), (2, "usage"), "{args:?}: {doc}");
    }
    let (rc, doc) = repo.json(&[
        "edit",
        "src/Greeter.php",
        "--symbol",
        "Greeter::greet()",
        "--replace-body",
        "--text",
        "return $name;;",
        "--dry-run",
    ]);
    assert_eq!(rc, 0, "{doc}");
    let (rc, doc) = repo.json(&[
        "edit",
        "src/Greeter.php",
        "--symbol",
        "Greeter::greet()",
        "--replace-body",
        "--text",
        "return (;",
    ]);
    assert_eq!((rc, code(&doc)), (1, "parse_failure"), "{doc}");
    assert_eq!(repo.text("src/Greeter.php"), GREETER);
}

#[test]
fn the_outcome_carries_acknowledged_changes_and_text_output_lists_them() {
    let repo = Repo::new();
    repo.write("src/Greeter.php", GREETER).commit();
    let out = repo.run(&[
        "edit",
        "src/Greeter.php",
        "--symbol",
        "Greeter::greet()",
        "--remove-symbol",
        "--allow-signature-change",
        "--format",
        "text",
    ]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "api change (acknowledged): removed method Greeter::greet() in src/Greeter.php"
        ),
        "{stdout}"
    );
    assert_eq!(
        repo.text("src/Greeter.php"),
        "<?php\n\nclass Greeter\n{\n}\n"
    );
}

#[test]
fn the_guard_sees_api_changes_in_files_the_gate_checked_on_regions() {
    let repo = Repo::new();
    repo.write("src/Greeter.php", GREETER).commit();
    let blocks = "src/Greeter.php\n```php\n<<<<<<< SEARCH\n    public function greet(string $name): string\n=======\n    public function greet(string $name, string $greeting = 'Hello'): string\n>>>>>>> REPLACE\n```\n";
    let run = |args: &[&str], stdin: &str| {
        let mut cmd = repo.cmd();
        cmd.args(args).args(["--format", "json", "--dry-run"]);
        let out = crate::common::run_with_stdin(&mut cmd, stdin);
        (
            out.status.code().unwrap_or(-1),
            crate::common::parse_one_document(&out),
        )
    };
    let (rc, doc) = run(&["apply", "-", "--dialect", "blocks"], blocks);
    assert_eq!(
        (rc, api_changes(&doc)),
        (0, json!([["Greeter::greet()", "signature_changed", false]])),
        "{doc}"
    );
    let edit = [
        "edit",
        "src/Greeter.php",
        "--find",
        "string $name)",
        "--replace",
        "string $name, int $n = 1)",
    ];
    let (rc, doc) = run(&edit, "");
    assert_eq!((rc, code(&doc)), (1, "api_change_refused"), "{doc}");
    // A body edit is checked on its region and changes no API.
    let body = [
        "edit",
        "src/Greeter.php",
        "--find",
        "return",
        "--replace",
        "return  ",
    ];
    let (rc, doc) = run(&body, "");
    assert_eq!((rc, api_changes(&doc)), (0, json!([])), "{doc}");
}

#[test]
fn the_receipt_records_acknowledged_api_changes() {
    let repo = Repo::new();
    repo.write("src/Greeter.php", GREETER).commit();
    let args = [
        "edit",
        "src/Greeter.php",
        "--symbol",
        "Greeter::greet()",
        "--remove-symbol",
        "--allow-signature-change",
    ];
    let (rc, doc) = repo.json(&[&args[..], &["--dry-run"]].concat());
    assert_eq!(rc, 0, "{doc}");
    let would = &doc["receipt"]["would_record"]["acknowledged_api_changes"];
    assert_eq!(would[0]["symbol"], "Greeter::greet()", "{doc}");
    let (rc, doc) = repo.json(&args);
    assert_eq!(
        (rc, doc["receipt"]["recorded"].clone()),
        (0, json!(true)),
        "{doc}"
    );
    let (rc, shown) = repo.json(&["show"]);
    assert_eq!(rc, 0, "{shown}");
    assert_eq!(
        shown["receipt"]["acknowledged_api_changes"],
        json!([{"path": "src/Greeter.php", "symbol": "Greeter::greet()", "kind": "method", "change": "removed", "acknowledged": true}])
    );
    let (rc, doc) = repo.json(&[
        "edit",
        "src/Greeter.php",
        "--find",
        "class Greeter",
        "--replace",
        "final class Greeter",
    ]);
    assert_eq!((rc, code(&doc)), (1, "api_change_refused"), "{doc}");
}

#[test]
fn edit_requests_are_guarded_and_the_acknowledgement_travels_with_the_changeset() {
    let repo = Repo::new();
    repo.write(
        "m.py",
        "def f(a):\n    return a\n\n\ndef g():\n    return 2\n",
    )
    .commit();
    let request = json!({"command": "edit", "file": "m.py", "operations": [
        {"target": {"type": "symbol", "name": "f"}, "op": {"type": "replace", "new_text": "def f(a, b=0):\n    return a + b"}}]});
    let (rc, doc) = repo.json_stdin(&["edit", "--json"], &request.to_string());
    assert_eq!((rc, code(&doc)), (1, "api_change_refused"), "{doc}");
    let (rc, changeset) = repo.json_stdin(
        &["edit", "--json", "--allow-signature-change"],
        &request.to_string(),
    );
    assert_eq!(rc, 0, "{changeset}");
    // The acknowledgement is recorded in the changeset: `apply` honours it as given.
    assert_eq!(changeset["allow_signature_change"], true);
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &changeset.to_string());
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(api_changes(&doc), json!([["f", "signature_changed", true]]));
    assert_eq!(
        repo.text("m.py"),
        "def f(a, b=0):\n    return a + b\n\n\ndef g():\n    return 2\n"
    );
}
