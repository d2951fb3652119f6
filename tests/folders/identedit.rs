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

use crate::case::Folder;
use crate::common::{parse_one_document, run_with_stdin};

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

/// Runs the case in the folder `dir` (from its `cwd`, if it names one) and checks its outcome
/// and the tree after.
pub fn run_case(dir: &Path) {
    let name = dir.display().to_string();
    let case = Folder::new(dir);
    let mut command = case.repo.cmd();
    command.args(case.args());
    if let Some(cwd) = case.cmd["cwd"].as_str() {
        command.current_dir(case.repo.path().join(cwd));
    }
    let out = run_with_stdin(&mut command, &case.stdin(dir));
    let doc = parse_one_document(&out);
    check_document(&name, out.status.code().unwrap_or(-1), &doc, &case.outcome);
    assert_eq!(
        case.after(),
        case.expected(dir),
        "{name}: tree after the command"
    );
}
