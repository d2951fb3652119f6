//! The git hooks through real `git commit`s: every refusal of pre-commit, chaining an existing
//! hook, uninstall restoring it byte for byte, core.hooksPath, linked worktrees, GIT_DIR, the
//! post-commit note, and the shipped `hooks/pre-commit` script.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

use serde_json::json;

use crate::common::{BIN, Repo, code, git, plan};

/// Runs git hermetically without asserting success.
pub(crate) fn git_out(dir: &Path, args: &[&str]) -> Output {
    crate::common::command("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("IDENTEDIT_FAILPOINT")
        .output()
        .expect("git runs")
}

/// `git commit -m MSG` in `dir`: (succeeded, stderr).
pub(crate) fn commit(dir: &Path, msg: &str) -> (bool, String) {
    let out = git_out(dir, &["commit", "-q", "-m", msg]);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn head(dir: &Path) -> String {
    git(dir, &["rev-parse", "HEAD"]).trim().to_owned()
}

pub(crate) fn install(dir: &Path) -> serde_json::Value {
    let out = crate::common::command(BIN)
        .args(["hook", "install", "--format", "json"])
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("install runs");
    assert!(
        out.status.success(),
        "install: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

fn scene() -> Repo {
    let repo = Repo::new();
    repo.write("a.py", "def f():\n    pass\n")
        .write("old.py", "def g(:\n    pass\n")
        .write("a.txt", "alpha\nbeta\n")
        .commit();
    install(repo.path());
    repo
}

fn fsck_clean(dir: &Path) {
    let out = git_out(dir, &["fsck", "--no-dangling"]);
    assert!(
        out.status.success(),
        "fsck: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
}

#[test]
fn a_syntax_regression_is_judged_on_the_staged_blob() {
    let repo = scene();
    let before = head(repo.path());
    repo.write("a.py", "def f(:\n    pass\n");
    git(repo.path(), &["add", "a.py"]);
    repo.write("a.py", "def f():\n    return 1\n");
    let (ok, err) = commit(repo.path(), "broken staged, fine on disk");
    assert!(!ok, "the commit must be refused");
    assert!(err.contains("error[hook_refused]"), "{err}");
    assert!(
        err.contains("  a.py:1: 1 syntax error(s) staged, 0 in HEAD"),
        "{err}"
    );
    assert_eq!(head(repo.path()), before);
    // Staged fine, broken on disk: the commit records the staged blob, so it passes.
    git(repo.path(), &["add", "a.py"]);
    repo.write("a.py", "def f(:\n");
    let (ok, err) = commit(repo.path(), "fine staged");
    assert!(ok, "{err}");
    assert_ne!(head(repo.path()), before);
}

#[test]
fn errors_already_in_head_are_not_a_regression_but_new_ones_are() {
    let repo = scene();
    repo.write("old.py", "def g(:\n    pass\n\nx = 1\n");
    git(repo.path(), &["add", "old.py"]);
    let (ok, err) = commit(repo.path(), "same error count");
    assert!(ok, "{err}");
    repo.write("old.py", "def g(:\n    pass\n\nx = (\n");
    repo.write("new.py", "class C:\n  def m(self:\n");
    git(repo.path(), &["add", "old.py", "new.py"]);
    let (ok, err) = commit(repo.path(), "more errors");
    assert!(!ok);
    assert!(
        err.contains("new.py:2:") && err.contains("0 in HEAD"),
        "{err}"
    );
    assert!(err.contains("old.py:"), "{err}");
}

#[test]
fn residue_is_refused_unless_the_staged_gitattributes_allow_it() {
    let repo = scene();
    let block = "intro\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n*** Begin Patch\n";
    repo.write("docs/notes.md", block);
    git(repo.path(), &["add", "docs/notes.md"]);
    let (ok, err) = commit(repo.path(), "residue");
    assert!(!ok);
    for (line, marker) in [
        (2, "<<<<<<< SEARCH"),
        (4, "======="),
        (6, ">>>>>>> REPLACE"),
        (7, "*** Begin Patch"),
    ] {
        assert!(
            err.contains(&format!(
                "  docs/notes.md:{line}: edit-format residue `{marker}`"
            )),
            "{err}"
        );
    }
    // In the work tree only, the attribute does not count: the commit records the index.
    repo.write(".gitattributes", "docs/*.md identedit-allow-residue\n");
    let (ok, _) = commit(repo.path(), "attribute not staged");
    assert!(!ok);
    git(repo.path(), &["add", ".gitattributes"]);
    let (ok, err) = commit(repo.path(), "attribute staged");
    assert!(ok, "{err}");
    // Another path is still checked.
    repo.write("b.txt", "*** End Patch\n");
    git(repo.path(), &["add", "b.txt"]);
    let (ok, err) = commit(repo.path(), "residue elsewhere");
    assert!(!ok && err.contains("b.txt:1:"), "{err}");
}

#[test]
fn json_output_lists_every_problem() {
    let repo = scene();
    repo.write("x.md", "<<<<<<< SEARCH\n");
    git(repo.path(), &["add", "x.md"]);
    let (rc, doc) = repo.json(&["hook", "pre-commit"]);
    assert_eq!(rc, 1);
    assert_eq!(code(&doc), "hook_refused");
    assert_eq!(doc["error"]["next_action"], "fix_staged_files");
    assert_eq!(
        doc["error"]["details"]["problems"],
        json!([{"check": "residue", "path": "x.md", "line": 1, "message": "edit-format residue `<<<<<<< SEARCH`"}])
    );
}

#[test]
fn a_pending_recovery_blocks_the_commit_until_rolled_back() {
    let repo = scene();
    let body = plan(json!({"edits": [{"path": "a.txt", "find": "beta", "replace": "BETA"}]}));
    let out = crate::common::run_with_stdin(
        repo.cmd()
            .args(["apply", "-", "--format", "json"])
            .env("IDENTEDIT_FAILPOINT", "after_journal"),
        &body,
    );
    assert!(!out.status.success());
    assert_eq!(repo.journal_entries().len(), 1);
    repo.write("c.txt", "c\n");
    git(repo.path(), &["add", "c.txt"]);
    let (ok, err) = commit(repo.path(), "during recovery");
    assert!(!ok);
    assert!(
        err.contains("an interrupted identedit transaction"),
        "{err}"
    );
    assert!(err.contains("a.txt"), "{err}");
    assert_eq!(
        repo.journal_entries().len(),
        1,
        "the hook must not roll back by itself"
    );
    let (rc, doc) = repo.json(&["capabilities"]);
    assert_eq!(rc, 0);
    assert!(doc.get("recovered").is_some());
    let (ok, err) = commit(repo.path(), "after recovery");
    assert!(ok, "{err}");
}

#[test]
fn a_running_transaction_only_warns() {
    let repo = scene();
    let dir = repo.path().join(".git/identedit/journal");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let record =
        json!({"version": 1, "id": "1-1", "pid": 4242, "keys": [], "new_dirs": [], "entries": []});
    std::fs::write(dir.join("1-1.journal"), record.to_string()).expect("write");
    let held = std::fs::File::open(dir.join("1-1.journal")).expect("open");
    held.lock().expect("lock");
    repo.write("c.txt", "c\n");
    git(repo.path(), &["add", "c.txt"]);
    let (ok, err) = commit(repo.path(), "while running");
    assert!(ok, "{err}");
    assert!(
        err.contains("an identedit transaction (pid 4242) is writing"),
        "{err}"
    );
    drop(held);
}

const EXISTING: &str = "#!/bin/sh\ntouch \"$(git rev-parse --git-dir)/chained-ran\"\ntest ! -e \"$(git rev-parse --git-dir)/block\"\n";

#[test]
fn an_existing_hook_is_chained_and_uninstall_restores_it_byte_for_byte() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    let hooks = repo.path().join(".git/hooks");
    std::fs::write(hooks.join("pre-commit"), EXISTING).expect("write");
    std::fs::set_permissions(
        hooks.join("pre-commit"),
        std::fs::Permissions::from_mode(0o750),
    )
    .expect("chmod");
    let doc = install(repo.path());
    assert_eq!(doc["hooks"][0]["action"], "chained");
    assert_eq!(doc["hooks"][1]["action"], "installed");
    let again = install(repo.path());
    assert_eq!(again["hooks"][0]["action"], "unchanged");
    assert_eq!(again["hooks"][1]["action"], "unchanged");

    repo.write("b.txt", "b\n");
    git(repo.path(), &["add", "b.txt"]);
    let (ok, err) = commit(repo.path(), "both run");
    assert!(ok, "{err}");
    assert!(repo.exists(".git/chained-ran"));
    // The chained hook's failure blocks the commit; so does identedit's check.
    repo.write(".git/block", "");
    repo.write("c.txt", "c\n");
    git(repo.path(), &["add", "c.txt"]);
    assert!(!commit(repo.path(), "blocked by the chained hook").0);
    std::fs::remove_file(repo.path().join(".git/block")).expect("rm");
    repo.write("c.txt", ">>>>>>> REPLACE\n");
    git(repo.path(), &["add", "c.txt"]);
    let (ok, err) = commit(repo.path(), "blocked by identedit");
    assert!(!ok && err.contains("c.txt:1:"), "{err}");

    let out = repo.run(&["hook", "uninstall"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read(hooks.join("pre-commit")).expect("hook"),
        EXISTING.as_bytes()
    );
    let mode = std::fs::metadata(hooks.join("pre-commit"))
        .expect("meta")
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o750);
    assert!(!hooks.join("post-commit").exists());
    assert!(!hooks.join("pre-commit.identedit-chained").exists());
    assert!(!repo.exists(".git/identedit/hooks.json"));
    fsck_clean(repo.path());
}

#[test]
fn uninstall_refuses_to_remove_an_edited_hook() {
    let repo = scene();
    let hook = repo.path().join(".git/hooks/pre-commit");
    let mut text = std::fs::read_to_string(&hook).expect("hook");
    text.push_str("# mine\n");
    std::fs::write(&hook, &text).expect("write");
    let (rc, doc) = repo.json(&["hook", "uninstall"]);
    assert_eq!(rc, 1);
    assert_eq!(code(&doc), "hook_conflict");
    assert_eq!(std::fs::read_to_string(&hook).expect("hook"), text);
    assert!(repo.exists(".git/hooks/post-commit"));
    assert!(repo.exists(".git/identedit/hooks.json"));
}

#[test]
fn install_follows_core_hooks_path_relative_to_the_root() {
    let repo = Repo::new();
    repo.write("sub/a.txt", "a\n").commit();
    git(repo.path(), &["config", "core.hooksPath", ".githooks"]);
    let out = repo
        .cmd()
        .current_dir(repo.path().join("sub"))
        .args(["hook", "install"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(repo.exists(".githooks/pre-commit") && repo.exists(".githooks/post-commit"));
    assert!(!repo.exists("sub/.githooks"));
    repo.write("sub/b.md", "<<<<<<< SEARCH\n");
    git(repo.path(), &["add", "sub/b.md"]);
    let (ok, err) = commit(repo.path(), "residue");
    assert!(!ok && err.contains("sub/b.md:1:"), "{err}");
    let out = repo.run(&["hook", "uninstall"]);
    assert!(out.status.success());
    assert!(
        !repo.exists(".githooks"),
        "the directory install created is removed"
    );
}

#[test]
fn a_linked_worktree_shares_the_common_hooks() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    let other = tempfile::tempdir().expect("tmp");
    let wt = other.path().join("wt");
    git(
        repo.path(),
        &[
            "worktree",
            "add",
            "-q",
            wt.to_str().expect("utf8"),
            "-b",
            "side",
        ],
    );
    let doc = install(&wt);
    let hooks_dir = std::fs::canonicalize(repo.path().join(".git/hooks")).expect("canon");
    assert_eq!(doc["hooks_dir"], json!(hooks_dir));
    std::fs::write(wt.join("r.md"), "*** Begin Patch\n").expect("write");
    git(&wt, &["add", "r.md"]);
    let (ok, err) = commit(&wt, "residue in the worktree");
    assert!(!ok && err.contains("r.md:1:"), "{err}");
    std::fs::write(wt.join("r.md"), "fine\n").expect("write");
    git(&wt, &["add", "r.md"]);
    assert!(commit(&wt, "clean").0);
    repo.write("m.md", "<<<<<<< SEARCH\n");
    git(repo.path(), &["add", "m.md"]);
    assert!(!commit(repo.path(), "main worktree is guarded too").0);
    fsck_clean(repo.path());
}

#[test]
fn install_honours_git_dir() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    let elsewhere = tempfile::tempdir().expect("tmp");
    let out = crate::common::command(BIN)
        .args(["hook", "install"])
        .current_dir(elsewhere.path())
        .env("GIT_DIR", repo.path().join(".git"))
        .env("GIT_WORK_TREE", repo.path())
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(repo.exists(".git/hooks/pre-commit") && repo.exists(".git/hooks/post-commit"));
}

#[test]
fn a_mode_change_alone_is_not_checked_again() {
    let repo = scene();
    repo.write("r.md", "<<<<<<< SEARCH\n");
    git(repo.path(), &["add", "r.md"]);
    git(
        repo.path(),
        &["commit", "-q", "--no-verify", "-m", "residue let in"],
    );
    git(repo.path(), &["update-index", "--chmod=+x", "r.md"]);
    let (ok, err) = commit(repo.path(), "chmod only");
    assert!(ok, "{err}");
    repo.write("r.md", "<<<<<<< SEARCH\nmore\n");
    git(repo.path(), &["add", "r.md"]);
    let (ok, err) = commit(repo.path(), "content change");
    assert!(!ok && err.contains("r.md:1:"), "{err}");
}

#[test]
fn binary_blobs_are_skipped_and_huge_sources_only_warn() {
    let repo = scene();
    repo.write("blob.bin", b"\0\n<<<<<<< SEARCH\n".as_slice());
    let mut huge = String::from("def f(:\n");
    while huge.len() <= 4 << 20 {
        huge.push_str("# padding padding padding padding padding padding padding padding\n");
    }
    repo.write("huge.py", &huge);
    git(repo.path(), &["add", "blob.bin", "huge.py"]);
    let (ok, err) = commit(repo.path(), "binary and huge");
    assert!(ok, "{err}");
    assert!(
        err.contains("warning: huge.py: syntax not checked: larger than 4 MiB"),
        "{err}"
    );
}

#[test]
fn the_first_commit_of_an_unborn_branch_is_checked() {
    let repo = Repo::new();
    install(repo.path());
    repo.write("a.py", "def f(:\n");
    git(repo.path(), &["add", "a.py"]);
    let (ok, err) = commit(repo.path(), "first, broken");
    assert!(
        !ok && err.contains("a.py:1: 1 syntax error(s) staged, 0 in HEAD"),
        "{err}"
    );
    repo.write("a.py", "def f():\n    pass\n");
    git(repo.path(), &["add", "a.py"]);
    let (ok, err) = commit(repo.path(), "first, fine");
    assert!(ok, "{err}");
}

#[test]
fn the_chained_hook_gets_the_arguments_and_stdin() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    let hooks = repo.path().join(".git/hooks");
    let record = "#!/bin/sh\nprintf '%s|' \"$@\" > \"$(dirname \"$0\")/args\"\ncat > \"$(dirname \"$0\")/stdin\"\nexit 3\n";
    std::fs::write(hooks.join("post-commit"), record).expect("write");
    std::fs::set_permissions(
        hooks.join("post-commit"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    install(repo.path());
    let out = crate::common::run_with_stdin(
        crate::common::command(hooks.join("post-commit"))
            .args(["one", "two words"])
            .current_dir(repo.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null"),
        "piped\n",
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "the chained hook's status is kept"
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("args")).expect("args"),
        "one|two words|"
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("stdin")).expect("stdin"),
        "piped\n"
    );
}
