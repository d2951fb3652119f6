//! Undo, redo, --stage and --cached through the real binary: every reversal restores the
//! input byte for byte and is itself a receipt.

use crate::common::{code, git};
use crate::ledger::{edit, fsck_clean, repo_with};

#[test]
fn undo_restores_and_redo_reapplies() {
    let repo = repo_with(&[("a.py", "x = 1\n"), ("b.py", "y = 1\n")]);
    let doc = edit(&repo, "a.py", "x = 1", "x = 2");
    let first = doc["receipt"]["label"].as_str().expect("label").to_owned();
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("a.py"), "x = 1\n");
    assert_eq!(doc["receipt"]["recorded"], true);
    let (rc, doc) = repo.json(&["verify", &first]);
    assert_eq!(rc, 1, "an undone receipt no longer verifies: {doc}");
    // Undo the undo: a redo.
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("a.py"), "x = 2\n");
    let (rc, doc) = repo.json(&["verify", &first]);
    assert_eq!(rc, 0, "after a redo the original verifies again: {doc}");
    let (_, log) = repo.json(&["log"]);
    let kinds: Vec<&str> = log["receipts"]
        .as_array()
        .expect("receipts")
        .iter()
        .filter_map(|r| r["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["undo", "undo", "apply"]);
    fsck_clean(&repo);
}

#[test]
fn undo_is_refused_after_drift_and_writes_nothing() {
    let repo = repo_with(&[("a.py", "x = 1\n"), ("b.py", "y = 1\n")]);
    let (rc, doc) = repo.json_stdin(
        &["apply", "-"],
        &crate::common::plan(serde_json::json!({"edits": [
            {"path": "a.py", "find": "x = 1", "replace": "x = 2"},
            {"path": "b.py", "find": "y = 1", "replace": "y = 2"}]})),
    );
    assert_eq!(rc, 0, "{doc}");
    repo.write("b.py", "y = 3\n");
    let before = repo.tree();
    let log_before = git(repo.path(), &["rev-parse", "refs/identedit/log"]);
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 1, "{doc}");
    assert_eq!(code(&doc), "drifted");
    assert_eq!(doc["error"]["details"]["drifted"][0]["path"], "b.py");
    assert_eq!(repo.tree(), before, "nothing written");
    assert_eq!(
        git(repo.path(), &["rev-parse", "refs/identedit/log"]),
        log_before,
        "no receipt for a refusal"
    );
}

#[test]
fn undo_reverses_creations_deletions_and_moves() {
    let repo = repo_with(&[("old.py", "a = 1\n"), ("gone.txt", "bye\n")]);
    let patch = "*** Begin Patch\n*** Add File: new/made.py\n+b = 2\n*** Delete File: gone.txt\n\
                 *** Update File: old.py\n*** Move to: moved/renamed.py\n@@\n-a = 1\n+a = 3\n\
                 *** End Patch\n";
    let before = repo.tree();
    let (rc, doc) = repo.json_stdin(&["apply", "-"], patch);
    assert_eq!(rc, 0, "{doc}");
    assert!(repo.exists("moved/renamed.py") && !repo.exists("old.py"));
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 0, "{doc}");
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.tree(), before, "the input tree, byte for byte");
    fsck_clean(&repo);
}

#[test]
fn stage_updates_the_index_like_git_apply_index() {
    let repo = repo_with(&[("a.py", "x = 1\n"), ("b.py", "y = 1\n")]);
    let (rc, doc) = repo.json(&[
        "edit",
        "a.py",
        "--find",
        "x = 1",
        "--replace",
        "x = 2",
        "--stage",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        git(repo.path(), &["diff", "--cached", "--name-only"]),
        "a.py\n"
    );
    assert_eq!(git(repo.path(), &["status", "--porcelain"]), "M  a.py\n");
    assert_eq!(git(repo.path(), &["show", ":a.py"]), "x = 2\n");
    let patch =
        "*** Begin Patch\n*** Add File: c.py\n+z = 1\n*** Delete File: b.py\n*** End Patch\n";
    let (rc, doc) = repo.json_stdin(&["apply", "-", "--stage"], patch);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        git(repo.path(), &["status", "--porcelain"]),
        "M  a.py\nD  b.py\nA  c.py\n"
    );
    // A staged write is undone staged: the index follows the work tree back.
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(git(repo.path(), &["status", "--porcelain"]), "M  a.py\n");
    fsck_clean(&repo);
}

#[test]
fn cached_applies_to_the_index_only_and_undoes_there() {
    let repo = repo_with(&[("a.py", "x = 1\n"), ("b.py", "y = 1\n")]);
    let (rc, doc) = repo.json(&[
        "edit",
        "a.py",
        "--find",
        "x = 1",
        "--replace",
        "x = 2",
        "--cached",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["applied_to"], "index");
    assert_eq!(repo.text("a.py"), "x = 1\n", "the work tree is untouched");
    assert_eq!(git(repo.path(), &["show", ":a.py"]), "x = 2\n");
    assert_eq!(git(repo.path(), &["status", "--porcelain"]), "MM a.py\n");
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 0, "{doc}");
    let patch =
        "*** Begin Patch\n*** Add File: c.py\n+z = 1\n*** Delete File: b.py\n*** End Patch\n";
    let (rc, doc) = repo.json_stdin(&["apply", "-", "--cached"], patch);
    assert_eq!(rc, 0, "{doc}");
    assert!(!repo.exists("c.py") && repo.exists("b.py"));
    assert_eq!(
        git(repo.path(), &["diff", "--cached", "--name-status"]),
        "M\ta.py\nD\tb.py\nA\tc.py\n"
    );
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    let (rc, doc) = repo.json(&["undo", "plan-does-not-exist"]);
    assert_eq!((rc, code(&doc)), (1, "receipt_not_found"));
    assert_eq!(
        git(repo.path(), &["diff", "--cached", "--name-status"]),
        "M\ta.py\n"
    );
    // A find that does not match the index version is refused, index and tree unchanged.
    let (rc, doc) = repo.json(&[
        "edit",
        "b.py",
        "--find",
        "nope",
        "--replace",
        "x",
        "--cached",
    ]);
    assert_eq!((rc, code(&doc)), (1, "anchor_missing"));
    assert_eq!(
        git(repo.path(), &["diff", "--cached", "--name-status"]),
        "M\ta.py\n"
    );
    assert!(
        !repo
            .path()
            .join(".git/identedit")
            .read_dir()
            .is_ok_and(|mut d| {
                d.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("cached-")))
            }),
        "no scratch tree left behind"
    );
    fsck_clean(&repo);
}

#[test]
fn task_labels_name_receipts_for_undo_and_verify() {
    let repo = repo_with(&[("b.py", "y = 1\n")]);
    let (rc, doc) = repo.json(&[
        "edit",
        "b.py",
        "--find",
        "y = 1",
        "--replace",
        "y = 2",
        "--task",
        "bump y",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["receipt"]["label"], "bump y");
    assert_eq!(doc["receipt"]["ref"], "refs/identedit/receipts/bump%20y");
    let (rc, doc) = repo.json(&["undo", "bump y"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("b.py"), "y = 1\n");
    let (rc, doc) = repo.json(&["undo", "bump y"]);
    assert_eq!(
        (rc, code(&doc)),
        (1, "nothing_to_undo"),
        "undone twice: {doc}"
    );
    assert!(doc["error"]["details"]["undone_by"].is_string(), "{doc}");
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "redo of bump y: {doc}");
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "undo it again: {doc}");
    assert_eq!(repo.text("b.py"), "y = 1\n");
    let (rc, doc) = repo.json(&["verify", "bump y"]);
    assert_eq!(rc, 1, "undone: {doc}");
}

/// Undoing a deletion re-creates the file with its mode: an executable stays executable.
#[test]
fn undo_of_a_deletion_keeps_the_executable_bit() {
    use std::os::unix::fs::PermissionsExt;
    let repo = repo_with(&[("run.sh", "#!/bin/sh\necho hi\n")]);
    let script = repo.path().join("run.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    git(repo.path(), &["add", "run.sh"]);
    git(repo.path(), &["commit", "-q", "-m", "exec"]);
    let plan = crate::common::plan(serde_json::json!({"deletes": [{"path": "run.sh"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &plan);
    assert_eq!(rc, 0, "{doc}");
    assert!(!repo.exists("run.sh"));
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    let mode = std::fs::metadata(&script)
        .expect("stat")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
    assert_eq!(git(repo.path(), &["status", "--porcelain"]), "");
}

/// `--stage` refuses, as `git apply --index` does, a file with unstaged work or one that is not
/// in the index; nothing is written or staged.
#[test]
fn stage_refuses_files_that_do_not_match_the_index() {
    let repo = repo_with(&[("a.txt", "one\ntwo\n")]);
    repo.write("a.txt", "one\ntwo\nunstaged\n");
    repo.write("new.txt", "u1\n");
    for file in ["a.txt", "new.txt"] {
        let find = if file == "a.txt" { "two" } else { "u1" };
        let (rc, doc) = repo.json(&["edit", file, "--find", find, "--replace", "X", "--stage"]);
        assert_eq!((rc, code(&doc)), (1, "index_mismatch"), "{file}: {doc}");
        assert_eq!(doc["error"]["details"]["files"][0]["path"], file);
    }
    assert_eq!(repo.text("a.txt"), "one\ntwo\nunstaged\n");
    assert_eq!(repo.text("new.txt"), "u1\n");
    assert_eq!(git(repo.path(), &["diff", "--cached", "--name-only"]), "");
    assert_eq!(git(repo.path(), &["for-each-ref", "refs/identedit/"]), "");
}

/// `--stage` compares and stages git's form of the file: with `* text=auto` a CRLF work-tree
/// file matches its LF blob, and the staged result is LF, as `git add` would make it.
#[test]
fn stage_converts_line_endings_as_git_add_does() {
    let repo = repo_with(&[(".gitattributes", "* text=auto\n"), ("w.txt", "a\r\nb\r\n")]);
    let (rc, doc) = repo.json(&["edit", "w.txt", "--find", "a", "--replace", "A", "--stage"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.read("w.txt"), b"A\r\nb\r\n");
    assert_eq!(git(repo.path(), &["show", ":w.txt"]), "A\nb\n");
    assert_eq!(git(repo.path(), &["status", "--porcelain"]), "M  w.txt\n");
}
