//! Symbol-addressed edits and the API-change guard: the data-driven cases under
//! `fixtures/symbols/<lang>/<case>/`: `input/` (files before), `cmd.json`
//! (`{"args": [...], "stdin"?: FILE, "config"?: [[key, value]]}`), `outcome.json`
//! (`{"exit", "code"?, "api_changes"?: [[symbol, change, acknowledged]]}`) and `expected/`
//! (the whole tree after, written by hand; absent: the tree must be unchanged).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{Repo, api_changes, code, git};
use crate::scenarios::files;

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json")
}

/// Runs the case in the folder `dir` and checks its outcome and the tree after.
pub fn run_case(dir: &Path) {
    let name = dir.display();
    let repo = Repo::new();
    let input = files(&dir.join("input"));
    for (rel, bytes) in &input {
        repo.write(rel, bytes);
    }
    repo.commit();
    let cmd = read_json(&dir.join("cmd.json"));
    let outcome = read_json(&dir.join("outcome.json"));
    for pair in cmd["config"].as_array().into_iter().flatten() {
        let (key, value) = (
            pair[0].as_str().expect("key"),
            pair[1].as_str().expect("value"),
        );
        git(repo.path(), &["config", key, value]);
    }
    let args: Vec<&str> = cmd["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let stdin = cmd["stdin"]
        .as_str()
        .map(|f| std::fs::read_to_string(dir.join(f)).expect("stdin file"))
        .unwrap_or_default();
    let (rc, doc) = repo.json_stdin(&args, &stdin);
    assert_eq!(
        i64::from(rc),
        outcome["exit"].as_i64().unwrap_or(0),
        "{name}: {doc}"
    );
    if let Some(expected) = outcome["code"].as_str() {
        assert_eq!(code(&doc), expected, "{name}: {doc}");
    }
    if let Some(expected) = outcome.get("api_changes") {
        assert_eq!(&api_changes(&doc), expected, "{name}: {doc}");
    }
    let expected_dir = dir.join("expected");
    let expected = if expected_dir.exists() {
        files(&expected_dir)
    } else {
        input
    };
    let after: BTreeMap<String, Vec<u8>> = repo
        .tree()
        .into_iter()
        .filter(|(k, _)| !k.ends_with('/'))
        .collect();
    for (rel, want) in &expected {
        let got = after
            .get(rel)
            .unwrap_or_else(|| panic!("{name}: {rel} missing"));
        assert_eq!(
            String::from_utf8_lossy(got),
            String::from_utf8_lossy(want),
            "{name}: {rel}"
        );
    }
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{name}"
    );
    assert!(repo.temp_files().is_empty(), "{name}: temp files left");
}
