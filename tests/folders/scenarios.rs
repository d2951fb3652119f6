//! Data-driven scenarios under `fixtures/scenarios/<front-end>/<NNN_name>/`:
//! `input/` (the files before), `cmd.json` (`{"args": [...], "stdin"?: "plan.json"}`),
//! `outcome.json` (`{"exit", "code"?}`) and `expected/` (the whole tree after; when absent the
//! tree must equal `input/`, byte for byte). The config cases (`fixtures/config/<case>/`) have
//! the same layout.

use std::collections::BTreeMap;
use std::path::Path;

use crate::case::Folder;
use crate::common::Repo;

pub(crate) fn run_scenario(dir: &Path) {
    let name = dir.display();
    let ran = Folder::new(dir);
    ran.run_checked(dir);
    let expected = ran.expected(dir);
    assert_eq!(ran.after(), expected, "{name}: tree after the command");
    assert!(ran.repo.temp_files().is_empty(), "{name}: temp files left");
    if expected != ran.input {
        verify_then_undo(&ran.repo, &name.to_string(), &ran.input);
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
