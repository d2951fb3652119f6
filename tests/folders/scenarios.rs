//! Data-driven scenarios under `fixtures/scenarios/<front-end>/<NNN_name>/`:
//! `input/` (the files before), `cmd.json` (`{"args": [...], "stdin"?: "plan.json"}`),
//! `outcome.json` (`{"exit", "code"?}`) and `expected/` (the whole tree after; when absent the
//! tree must equal `input/`, byte for byte). The config cases (`fixtures/config/<case>/`) have
//! the same layout.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{Repo, code};

/// Every file under `root`, by path relative to it.
pub fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .expect("prefix")
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, std::fs::read(&path).expect("read"));
            }
        }
    }
    out
}

fn only_files(tree: BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    tree.into_iter()
        .filter(|(k, _)| !k.ends_with('/'))
        .collect()
}

pub(crate) fn run_scenario(dir: &Path) {
    let name = dir.display();
    let repo = Repo::new();
    let input = files(&dir.join("input"));
    for (rel, bytes) in &input {
        repo.write(rel, bytes);
    }
    repo.commit();
    let cmd: Value =
        serde_json::from_slice(&std::fs::read(dir.join("cmd.json")).expect("cmd.json"))
            .expect("cmd json");
    let outcome: Value =
        serde_json::from_slice(&std::fs::read(dir.join("outcome.json")).expect("outcome.json"))
            .expect("outcome json");
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
    if let Some(expected_code) = outcome["code"].as_str() {
        assert_eq!(code(&doc), expected_code, "{name}");
    }
    let expected_dir = dir.join("expected");
    let changed = expected_dir.exists() && files(&expected_dir) != input;
    let expected = if expected_dir.exists() {
        files(&expected_dir)
    } else {
        input.clone()
    };
    assert_eq!(
        only_files(repo.tree()),
        expected,
        "{name}: tree after the command"
    );
    assert!(repo.temp_files().is_empty(), "{name}: temp files left");
    if changed {
        verify_then_undo(&repo, &name.to_string(), &input);
    }
}

/// Every write of a scenario verifies, and undoing it gives back the input tree byte for byte
/// (empty directories it created included), after which it no longer verifies.
fn verify_then_undo(repo: &Repo, name: &str, input: &BTreeMap<String, Vec<u8>>) {
    let (rc, doc) = repo.json(&["verify"]);
    let placeholder = doc["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["name"] == "syntax" && c["status"] == "incomplete");
    // The seed's own plan creates a file with placeholder content: unprovable, not failed.
    let expected = if placeholder { 3 } else { 0 };
    assert_eq!(rc, expected, "{name}: verify after the write: {doc}");
    let label = doc["receipt"]["commit"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{name}: undo: {doc}");
    let mut with_dirs = input.clone();
    for path in input.keys() {
        let mut dir = path.as_str();
        while let Some((parent, _)) = dir.rsplit_once('/') {
            with_dirs.insert(format!("{parent}/"), Vec::new());
            dir = parent;
        }
    }
    assert_eq!(repo.tree(), with_dirs, "{name}: the tree after undo");
    let (rc, doc) = repo.json(&["verify", &label]);
    assert_eq!(rc, 1, "{name}: an undone receipt verifies: {doc}");
}
