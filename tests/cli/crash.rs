//! Crash safety: a process killed with SIGKILL at every transaction step is rolled back by the
//! next invocation of any command, which says so; an I/O failure rolls back in process.

use std::os::unix::process::ExitStatusExt;

use serde_json::json;

use crate::common::{Repo, code, plan};

fn scene() -> (Repo, String) {
    let repo = Repo::new();
    repo.write("a.txt", "alpha\nbeta\n")
        .write("sub/b.txt", "one\r\ntwo\r\n")
        .write("gone.txt", "bye\n")
        .commit();
    let body = plan(json!({
        "edits": [{"path": "a.txt", "find": "beta", "replace": "BETA"},
                  {"path": "sub/b.txt", "find": "one\ntwo", "replace": "1\n2"}],
        "creates": [{"path": "new/dir/c.txt", "content": "c\n"}],
        "deletes": [{"path": "gone.txt"}]}));
    (repo, body)
}

/// Every `identedit.fsync` setting: the protocol is safe against SIGKILL under each.
const FSYNC: &[&str] = &["true", "false", "batch"];

const STEPS: &[&str] = &[
    "after_lock",
    "after_journal",
    "after_stage",
    "after_backup",
    "after_first_rename",
    "after_publish",
];

#[test]
fn every_step_is_listed_by_capabilities() {
    let repo = Repo::new();
    let (_, caps) = repo.json(&["capabilities"]);
    let listed: Vec<String> = caps["failpoints"]
        .as_array()
        .expect("list")
        .iter()
        .map(|s| s["step"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(listed, STEPS);
}

#[test]
fn sigkill_at_every_step_is_rolled_back_by_the_next_command() {
    // After the last rename every file holds its post-image: the next command rolls the
    // transaction forward (completes it) instead of undoing a finished write.
    let after = {
        let (repo, body) = scene();
        let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
        assert_eq!(rc, 0, "{doc}");
        repo.tree()
    };
    for (fsync, step) in FSYNC.iter().flat_map(|f| STEPS.iter().map(move |s| (f, s))) {
        let (repo, body) = scene();
        let forward = *step == "after_publish";
        let before = if forward { after.clone() } else { repo.tree() };
        let out = crate::common::run_with_stdin(
            repo.cmd()
                .args(["apply", "-", "--format", "json"])
                .env("IDENTEDIT_FSYNC", fsync)
                .env("IDENTEDIT_FAILPOINT", step),
            &body,
        );
        let step = format!("{step} (identedit.fsync={fsync})");
        let step = step.as_str();
        assert_eq!(
            out.status.signal(),
            Some(9),
            "{step}: the process must die by SIGKILL"
        );
        let (rc, doc) = repo.json(&["capabilities"]);
        assert_eq!(rc, 0);
        let expect_recovery = !step.starts_with("after_lock");
        assert_eq!(
            doc.get("recovered").is_some(),
            expect_recovery,
            "{step}: {doc}"
        );
        if expect_recovery {
            let direction = if forward { "forward" } else { "back" };
            assert_eq!(doc["recovered"][0]["direction"], direction, "{step}: {doc}");
        }
        assert_eq!(
            repo.tree(),
            before,
            "{step}: the tree must be wholly before (or, rolled forward, wholly after)"
        );
        assert!(
            repo.temp_files().is_empty(),
            "{step}: temp files left: {:?}",
            repo.temp_files()
        );
        assert!(
            repo.journal_entries().is_empty(),
            "{step}: journal left: {:?}",
            repo.journal_entries()
        );
        if !forward {
            let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
            assert_eq!(rc, 0, "{step}: the same plan applies after recovery: {doc}");
        }
        assert_eq!(repo.text("a.txt"), "alpha\nBETA\n");
    }
}

#[test]
fn recovery_is_reported_in_text_mode_too() {
    let (repo, body) = scene();
    crate::common::run_with_stdin(
        repo.cmd()
            .args(["apply", "-"])
            .env("IDENTEDIT_FAILPOINT", "after_first_rename"),
        &body,
    );
    let out = repo.run(&["schema", "--format", "text"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("recovered an interrupted transaction"));
}

#[test]
fn an_io_failure_at_any_step_rolls_back_in_process() {
    for (fsync, step) in FSYNC
        .iter()
        .flat_map(|f| STEPS[1..].iter().map(move |s| (f, s)))
    {
        let (repo, body) = scene();
        let before = repo.tree();
        let out = crate::common::run_with_stdin(
            repo.cmd()
                .args(["apply", "-", "--format", "json"])
                .env("IDENTEDIT_FSYNC", fsync)
                .env("IDENTEDIT_FAILPOINT", format!("{step}:error")),
            &body,
        );
        let doc = crate::common::parse_one_document(&out);
        assert_eq!(
            (out.status.code(), code(&doc)),
            (Some(5), "apply_failed"),
            "{step}"
        );
        assert_eq!(doc["error"]["next_action"], "inspect_working_tree");
        assert_eq!(repo.tree(), before, "{step}");
        assert!(repo.temp_files().is_empty(), "{step}");
        assert!(repo.journal_entries().is_empty(), "{step}");
    }
}
