//! Worktrees of one repository share the locks of their files (keyed by real path) and the
//! receipts; a transaction killed in a worktree is rolled back there.

use std::process::{Child, Stdio};

use serde_json::{Value, json};

use crate::common::{Repo, code, git};
use crate::rebase::{BASE, SHIFTED, finish, hold, lines, rebased_lines, receipt_rebased};

#[test]
fn worktrees_share_locks_by_real_path_and_see_each_others_receipts() {
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    let other = tempfile::tempdir().expect("temp dir");
    let wt = other.path().join("wt");
    git(
        repo.path(),
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "b",
            wt.to_str().expect("utf8"),
        ],
    );
    let common = repo.path().join(".git");
    let in_wt = |args: &[&str]| {
        let out = repo
            .cmd()
            .current_dir(&wt)
            .args(args)
            .args(["--format", "json"])
            .output()
            .expect("run");
        (
            out.status.code().unwrap_or(-1),
            crate::common::parse_one_document(&out),
        )
    };
    // The lock of the worktree's f.txt lives in the common directory: held, the worktree's
    // edit is busy; the main work tree's f.txt (same relative path) is another file.
    let (held, _) = hold(&common, &wt, "f.txt");
    let edit = [
        "edit",
        "f.txt",
        "--find",
        "gamma",
        "--replace",
        "GAMMA",
        "--wait",
        "0",
    ];
    let (rc, doc) = in_wt(&edit);
    assert_eq!((rc, code(&doc)), (4, "resource_busy"), "{doc}");
    let (rc, doc) = repo.json(&edit);
    assert_eq!(rc, 0, "{doc}");
    drop(held);
    let (rc, doc) = in_wt(&edit);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        std::fs::read_to_string(wt.join("f.txt")).expect("read"),
        "alpha\nbeta\nGAMMA\ndelta\n"
    );
    // Agents in both worktrees at once: every receipt lands in the one shared log.
    let children: Vec<(Child, bool)> = (0..6)
        .map(|i| {
            let find = ["alpha", "beta", "delta"][i / 2];
            let mut cmd = repo.cmd();
            if i % 2 == 1 {
                cmd.current_dir(&wt);
            }
            let child = cmd
                .args([
                    "edit",
                    "f.txt",
                    "--find",
                    find,
                    "--replace",
                    &find.to_uppercase(),
                ])
                .args(["--format", "json", "--wait", "120"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn");
            (child, i % 2 == 1)
        })
        .collect();
    for (child, _) in children {
        let (rc, doc) = finish(child);
        assert_eq!(rc, 0, "{doc}");
    }
    for root in [repo.path(), wt.as_path()] {
        assert_eq!(
            std::fs::read_to_string(root.join("f.txt")).expect("read"),
            "ALPHA\nBETA\nGAMMA\nDELTA\n"
        );
    }
    let (rc, doc) = in_wt(&["log", "--json"]);
    assert_eq!(rc, 0, "{doc}");
    let count = doc["receipts"].as_array().map_or(0, Vec::len);
    assert_eq!(count, 8, "both worktrees' receipts in one log: {doc}");
}

#[test]
fn a_diff_made_before_the_file_changed_lands_rebased_from_its_header_lines() {
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    repo.write("f.txt", SHIFTED);
    let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -2,2 +2,2 @@\n beta\n-gamma\n+GAMMA\n";
    let (rc, doc) = repo.json_stdin(&["apply", "-"], diff);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("f.txt"), "top\nmore\nalpha\nbeta\nGAMMA\ndelta\n");
    assert_eq!(rebased_lines(&doc), &lines((2, 3), (4, 5)), "{doc}");
    assert_eq!(
        receipt_rebased(&repo)[0]["to"],
        json!({"start_line": 4, "end_line": 5})
    );
    // Where the header says: nothing to rebase.
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    let (rc, doc) = repo.json_stdin(&["apply", "-"], diff);
    assert_eq!(rc, 0, "{doc}");
    assert!(doc.get("rebased").is_none(), "{doc}");
    assert_eq!(receipt_rebased(&repo), Value::Null);
}

#[test]
fn a_transaction_killed_in_a_worktree_is_rolled_back_there_and_its_lock_is_free() {
    use std::os::unix::process::ExitStatusExt;
    let repo = Repo::new();
    repo.write("f.txt", BASE).write("g.txt", "g\n").commit();
    let other = tempfile::tempdir().expect("temp dir");
    let wt = other.path().join("wt");
    git(
        repo.path(),
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "b",
            wt.to_str().expect("utf8"),
        ],
    );
    let body = crate::common::plan(json!({"edits": [
        {"path": "f.txt", "find": "gamma", "replace": "GAMMA"},
        {"path": "g.txt", "find": "g", "replace": "G"}]}));
    let mut cmd = repo.cmd();
    cmd.current_dir(&wt)
        .args(["apply", "-", "--format", "json"])
        .env("IDENTEDIT_FAILPOINT", "after_first_rename");
    let out = crate::common::run_with_stdin(&mut cmd, &body);
    assert_eq!(out.status.signal(), Some(9), "killed at the failpoint");
    // The journal is the worktree's own (inside the common directory); the next command there
    // rolls it back, and the locks in the common directory are free again.
    let (rc, doc) = {
        let out = repo
            .cmd()
            .current_dir(&wt)
            .args(["edit", "f.txt", "--find", "alpha", "--replace", "ALPHA"])
            .args(["--format", "json", "--wait", "0"])
            .output()
            .expect("run");
        (
            out.status.code().unwrap_or(-1),
            crate::common::parse_one_document(&out),
        )
    };
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["recovered"][0]["direction"], "back", "{doc}");
    assert_eq!(
        std::fs::read_to_string(wt.join("f.txt")).expect("read"),
        "ALPHA\nbeta\ngamma\ndelta\n"
    );
    assert_eq!(
        std::fs::read_to_string(wt.join("g.txt")).expect("read"),
        "g\n"
    );
    assert_eq!(
        repo.text("f.txt"),
        BASE,
        "the main work tree's file is another file"
    );
}
