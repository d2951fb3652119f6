//! Symbol-addressed edits and the API-change guard: the data-driven cases under
//! `fixtures/symbols/<lang>/<case>/`: `input/` (files before), `cmd.json`
//! (`{"args": [...], "stdin"?: FILE, "config"?: [[key, value]]}`), `outcome.json`
//! (`{"exit", "code"?, "api_changes"?: [[symbol, change, acknowledged]]}`) and `expected/`
//! (the whole tree after, written by hand; absent: the tree must be unchanged).

use std::path::Path;

use crate::case::Folder;
use crate::common::api_changes;

/// Runs the case in the folder `dir` and checks its outcome and the tree after.
pub fn run_case(dir: &Path) {
    let name = dir.display();
    let ran = Folder::new(dir);
    let doc = ran.run_checked(dir);
    if let Some(expected) = ran.outcome.get("api_changes") {
        assert_eq!(&api_changes(&doc), expected, "{name}: {doc}");
    }
    let (expected, after) = (ran.expected(dir), ran.after());
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
    assert!(ran.repo.temp_files().is_empty(), "{name}: temp files left");
}
