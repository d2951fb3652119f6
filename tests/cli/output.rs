//! Output contract: one JSON document when piped, text on request, usage errors as JSON,
//! generated documents, a closed pipe is not a crash.

use crate::common::{BIN, Repo, code, parse_one_document, run_with_stdin};

#[test]
fn piped_output_defaults_to_one_json_document() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    let out = repo.run(&["edit", "a.txt", "--find", "a", "--replace", "b"]);
    let doc = parse_one_document(&out);
    assert_eq!(doc["schema_version"], "1.0");
    assert_eq!(doc["command"], "edit");
    assert_eq!(doc["ok"], true);
    let out = repo.run(&["edit", "a.txt", "--find", "zzz", "--replace", "b"]);
    let doc = parse_one_document(&out);
    assert_eq!((out.status.code(), code(&doc)), (Some(1), "anchor_missing"));
    for key in ["code", "message", "next_action", "hint", "details"] {
        assert!(
            doc["error"].get(key).is_some(),
            "error.{key} missing: {doc}"
        );
    }
}

#[test]
fn text_format_is_concise_and_errors_go_to_stderr() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    let out = repo.run(&[
        "edit",
        "a.txt",
        "--find",
        "a",
        "--replace",
        "b",
        "--format",
        "text",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("modified a.txt (1 replacement(s), line 1)"),
        "{stdout}"
    );
    let out = repo.run(&[
        "edit",
        "a.txt",
        "--find",
        "zzz",
        "--replace",
        "b",
        "--format=text",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error[anchor_missing]: "));
}

#[test]
fn usage_errors_are_json_documents_too() {
    let repo = Repo::new();
    let (rc, doc) = repo.json(&["edit", "a.txt", "--bogus"]);
    assert_eq!((rc, code(&doc)), (2, "usage"));
    let (rc, doc) = repo.json(&["edit", "a.txt", "--find", "x"]);
    assert_eq!((rc, code(&doc)), (2, "usage"));
    assert_eq!(doc["error"]["next_action"], "fix_arguments");
}

#[test]
fn version_and_help_print_and_succeed() {
    let out = crate::common::command(BIN)
        .arg("--version")
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(env!("CARGO_PKG_VERSION")));
    let out = crate::common::command(BIN)
        .args(["apply", "--help"])
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--dry-run"));
}

#[test]
fn schema_capabilities_and_instructions_come_from_the_registry() {
    let repo = Repo::new();
    let (rc, schema) = repo.json(&["schema"]);
    assert_eq!(rc, 0);
    assert_eq!(schema["properties"]["type"]["const"], "source_edit_plan");
    assert_eq!(schema["additionalProperties"], false);
    let (rc, caps) = repo.json(&["capabilities"]);
    assert_eq!(rc, 0);
    assert_eq!(caps["plan_types"][0]["contract_versions"][0], "1.0");
    let steps: Vec<_> = caps["failpoints"]
        .as_array()
        .expect("list")
        .iter()
        .map(|s| s["step"].clone())
        .collect();
    assert!(steps.contains(&serde_json::json!("after_first_rename")));
    let (rc, instructions) = repo.json(&["instructions"]);
    assert_eq!(rc, 0);
    assert!(
        instructions["procedure"]
            .as_array()
            .is_some_and(|p| p.len() >= 3)
    );
    assert_eq!(instructions["plan_types"], caps["plan_types"]);
}

#[test]
fn the_schema_describes_exactly_the_accepted_keys() {
    let repo = Repo::new();
    repo.write("a.txt", "x\n").commit();
    let (_, schema) = repo.json(&["schema"]);
    let edit_keys = schema["properties"]["edits"]["items"]["properties"]
        .as_object()
        .expect("props");
    for key in edit_keys.keys() {
        let mut edit = serde_json::json!({"path": "a.txt", "find": "x", "replace": "y"});
        let value = match key.as_str() {
            "occurrence" => serde_json::json!(1),
            "all" => serde_json::json!(true),
            "expected_source_sha256" => serde_json::json!(crate::common::sha256_hex(b"x\n")),
            _ => continue,
        };
        edit[key] = value;
        let body = crate::common::plan(serde_json::json!({"edits": [edit]}));
        let (rc, doc) = repo.json_stdin(&["apply", "-", "--dry-run"], &body);
        assert_eq!(rc, 0, "schema key {key} refused: {doc}");
    }
}

#[test]
fn a_closed_stdout_pipe_is_not_a_crash() {
    let repo = Repo::new();
    let big: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    let body =
        crate::common::plan(serde_json::json!({"creates": [{"path": "big.txt", "content": big}]}));
    let script = format!(
        "{BIN} apply - --dry-run --diff --format text | head -c 10 >/dev/null; exit ${{PIPESTATUS[0]}}"
    );
    let out = run_with_stdin(
        crate::common::command("bash")
            .args(["-c", &script])
            .current_dir(repo.path()),
        &body,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn works_as_a_git_subcommand() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    let bin_dir = std::path::Path::new(BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = crate::common::command("git")
        .args(["identedit", "edit", "a.txt", "--find=a", "--replace=b"])
        .current_dir(repo.path())
        .env("PATH", path)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(repo.text("a.txt"), "b\n");
}

#[test]
fn readme_documents_every_error_code() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    for entry in git_identedit::error::CODES {
        assert!(
            readme.contains(&format!("`{}`", entry.name)),
            "README.md does not document `{}`",
            entry.name
        );
    }
}
