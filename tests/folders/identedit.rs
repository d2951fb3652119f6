//! identedit conformance cases: requests shaped as identedit's skill document teaches them
//! (flag form, `patch --json`, `edit --json`), one folder each under `fixtures/identedit/`:
//! `input/` (the tree before), `cmd.json` (`{"args", "stdin"?: FILE, "cwd"?: DIR}`; `{root}` in
//! an argument is the repository's absolute path),
//! `outcome.json` (`{"exit"?, "type"?, "code"?, "expect"?: {JSON pointer: value}, "absent"?:
//! [JSON pointer]}`) and
//! `expected/` (the tree after; absent: the tree must equal `input/`, byte for byte). A
//! refusal must name the seed's `error.type` and write nothing.

use std::path::Path;

use serde_json::Value;

use crate::common::{Repo, parse_one_document, run_with_stdin};
use crate::scenarios::files;

fn check_document(name: &str, rc: i32, doc: &Value, outcome: &Value) {
    match outcome["exit"].as_i64() {
        Some(exit) => assert_eq!(i64::from(rc), exit, "{name}: exit: {doc}"),
        None => assert_ne!(rc, 0, "{name}: must fail: {doc}"),
    }
    if let Some(ty) = outcome["type"].as_str() {
        assert_eq!(doc["error"]["type"], ty, "{name}: error.type: {doc}");
        assert!(doc["error"]["suggestion"].is_string(), "{name}: suggestion");
    }
    if let Some(code) = outcome["code"].as_str() {
        assert_eq!(doc["error"]["code"], code, "{name}: error.code: {doc}");
    }
    for pointer in outcome["absent"].as_array().into_iter().flatten() {
        let pointer = pointer.as_str().unwrap_or_default();
        assert!(
            doc.pointer(pointer).is_none(),
            "{name}: {pointer} present: {doc}"
        );
    }
    if let Some(Value::Object(expect)) = outcome.get("expect") {
        for (pointer, value) in expect {
            assert_eq!(
                doc.pointer(pointer),
                Some(value),
                "{name}: {pointer}: {doc}"
            );
        }
    }
}

/// Runs the case in the folder `dir` and checks its outcome and the tree after.
pub fn run_case(dir: &Path) {
    let name = dir.display().to_string();
    let read_json = |file: &str| -> Value {
        serde_json::from_slice(&std::fs::read(dir.join(file)).expect(file)).expect(file)
    };
    let (cmd, outcome) = (read_json("cmd.json"), read_json("outcome.json"));
    let repo = Repo::new();
    let input = files(&dir.join("input"));
    for (rel, bytes) in &input {
        repo.write(rel, bytes);
    }
    repo.commit();
    // `{root}` in an argument is the repository's absolute path.
    let root = repo.path().to_string_lossy().into_owned();
    let args: Vec<String> = cmd["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(Value::as_str)
        .map(|a| a.replace("{root}", &root))
        .collect();
    let stdin = cmd["stdin"]
        .as_str()
        .map(|f| std::fs::read_to_string(dir.join(f)).expect("stdin file"))
        .unwrap_or_default();
    let mut command = repo.cmd();
    command.args(&args);
    if let Some(cwd) = cmd["cwd"].as_str() {
        command.current_dir(repo.path().join(cwd));
    }
    let out = run_with_stdin(&mut command, &stdin);
    let doc = parse_one_document(&out);
    check_document(&name, out.status.code().unwrap_or(-1), &doc, &outcome);
    let expected_dir = dir.join("expected");
    let expected = if expected_dir.exists() {
        files(&expected_dir)
    } else {
        input
    };
    let tree: std::collections::BTreeMap<String, Vec<u8>> = repo
        .tree()
        .into_iter()
        .filter(|(k, _)| !k.ends_with('/'))
        .collect();
    assert_eq!(tree, expected, "{name}: tree after the command");
}
