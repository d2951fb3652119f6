//! The git ledger: receipts readable with plain git, verify, undo, redo, log, show, --stage,
//! failure receipts, concurrency, subdirectories, linked worktrees and GIT_DIR.

use serde_json::Value;

use crate::common::{Repo, code, git, sha256_hex};

pub fn repo_with(files: &[(&str, &str)]) -> Repo {
    let repo = Repo::new();
    for (path, text) in files {
        repo.write(path, text);
    }
    repo.commit();
    repo
}

pub fn edit(repo: &Repo, file: &str, find: &str, replace: &str) -> Value {
    let (rc, doc) = repo.json(&["edit", file, "--find", find, "--replace", replace]);
    assert_eq!(rc, 0, "{doc}");
    doc
}

pub fn fsck_clean(repo: &Repo) {
    let out = crate::common::command("git")
        .args(["fsck", "--no-dangling"])
        .current_dir(repo.path())
        .output()
        .expect("git fsck");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_receipt_is_readable_with_plain_git() {
    let repo = repo_with(&[("src/a.py", "def f():\n    return 1\n")]);
    let doc = edit(&repo, "src/a.py", "return 1", "return 2");
    let receipt = &doc["receipt"];
    assert_eq!(receipt["recorded"], true, "{doc}");
    let commit = receipt["commit"].as_str().expect("commit");
    let label = receipt["label"].as_str().expect("label");
    assert_eq!(
        git(repo.path(), &["rev-parse", "refs/identedit/log"]).trim(),
        commit
    );
    assert_eq!(
        git(
            repo.path(),
            &["rev-parse", &format!("refs/identedit/receipts/{label}")]
        )
        .trim(),
        commit
    );
    let json = git(
        repo.path(),
        &["cat-file", "-p", &format!("{commit}:receipt.json")],
    );
    let parsed: Value = serde_json::from_str(&json).expect("receipt.json parses");
    assert_eq!(parsed["schema"], "identedit.receipt/1");
    assert_eq!(parsed["status"], "applied");
    assert_eq!(parsed["files"][0]["path"], "src/a.py");
    assert_eq!(parsed["files"][0]["action"], "modified");
    assert_eq!(
        parsed["files"][0]["sha256_after"],
        sha256_hex(b"def f():\n    return 2\n")
    );
    assert_eq!(parsed["observed"]["changed_files"][0], "src/a.py");
    let head = git(repo.path(), &["rev-parse", "HEAD"]);
    assert_eq!(parsed["head"], head.trim(), "the commit HEAD names");
    assert_eq!(
        git(repo.path(), &["show", &format!("{commit}:before/src/a.py")]),
        "def f():\n    return 1\n"
    );
    assert_eq!(
        git(repo.path(), &["show", &format!("{commit}:after/src/a.py")]),
        "def f():\n    return 2\n"
    );
    let input = git(repo.path(), &["show", &format!("{commit}:input")]);
    assert_eq!(sha256_hex(input.as_bytes()), parsed["input"]["sha256"]);
    let subjects = git(repo.path(), &["log", "--format=%s", "refs/identedit/log"]);
    assert_eq!(subjects.trim(), label);
    let reflog = git(repo.path(), &["reflog", "show", "refs/identedit/log"]);
    assert!(reflog.contains("identedit:"), "{reflog}");
    // HEAD, the branch and the index are untouched.
    assert_eq!(git(repo.path(), &["log", "--format=%s"]).trim(), "base");
    assert_eq!(git(repo.path(), &["diff", "--cached", "--name-only"]), "");
    fsck_clean(&repo);
}

#[test]
fn refusals_and_dry_runs_record_nothing() {
    let repo = repo_with(&[("a.py", "x = 1\n")]);
    let (rc, _) = repo.json(&["edit", "a.py", "--find", "nope", "--replace", "y"]);
    assert_eq!(rc, 1);
    let (rc, doc) = repo.json(&[
        "edit",
        "a.py",
        "--find",
        "x = 1",
        "--replace",
        "x = 2",
        "--dry-run",
    ]);
    assert_eq!(rc, 0);
    assert_eq!(doc["receipt"]["recorded"], false);
    assert_eq!(doc["receipt"]["would_record"]["status"], "dry_run");
    assert_eq!(doc["receipt"]["would_record"]["files"][0]["path"], "a.py");
    let refs = git(repo.path(), &["for-each-ref", "refs/identedit/"]);
    assert_eq!(refs, "", "no receipt refs");
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!((rc, code(&doc)), (1, "receipt_not_found"));
}

#[test]
fn a_failed_publish_is_recorded_as_failed() {
    let repo = repo_with(&[("a.py", "x = 1\n")]);
    let out = repo
        .cmd()
        .args([
            "edit",
            "a.py",
            "--find",
            "x = 1",
            "--replace",
            "x = 2",
            "--format",
            "json",
        ])
        .env("IDENTEDIT_FAILPOINT", "after_first_rename:error")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(5));
    assert_eq!(repo.text("a.py"), "x = 1\n");
    let (_, log) = repo.json(&["log"]);
    let entry = &log["receipts"][0];
    assert_eq!(entry["status"], "failed", "{log}");
    assert_eq!(entry["files"], serde_json::json!([]));
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 1, "{doc}");
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!((rc, code(&doc)), (1, "nothing_to_undo"), "{doc}");
    // The rolled-back file is not a change: nothing observed, nothing extra.
    let (_, shown) = repo.json(&["show"]);
    assert_eq!(
        shown["receipt"]["observed"]["changed_files"],
        serde_json::json!([])
    );
    assert_eq!(
        shown["receipt"]["observed"]["extra_files"],
        serde_json::json!([])
    );
}

#[test]
fn a_receipt_that_cannot_be_written_fails_loudly() {
    let repo = repo_with(&[("a.py", "x = 1\n")]);
    // A file where the ref directory must go: the objects are written, the refs are not.
    std::fs::create_dir_all(repo.path().join(".git/refs")).expect("mkdir");
    std::fs::write(repo.path().join(".git/refs/identedit"), "blocker").expect("write");
    let (rc, doc) = repo.json(&["edit", "a.py", "--find", "x = 1", "--replace", "x = 2"]);
    assert_eq!(rc, 6, "{doc}");
    assert_eq!(code(&doc), "receipt_not_recorded");
    assert_eq!(doc["error"]["details"]["changed_files"][0], "a.py");
    assert_eq!(repo.text("a.py"), "x = 2\n", "the source stays changed");
}

#[test]
fn concurrent_writers_never_lose_a_receipt() {
    let files: Vec<(String, String)> = (0..8)
        .map(|i| (format!("f{i}.py"), format!("v = {i}\n")))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let repo = repo_with(&refs);
    let children: Vec<_> = (0..8)
        .map(|i| {
            repo.cmd()
                .args([
                    "edit",
                    &format!("f{i}.py"),
                    "--find",
                    &format!("v = {i}"),
                    "--replace",
                    &format!("v = {}", i + 100),
                    "--format",
                    "json",
                ])
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for mut child in children {
        assert!(child.wait().expect("wait").success());
    }
    let (_, log) = repo.json(&["log"]);
    let mut paths: Vec<String> = log["receipts"]
        .as_array()
        .expect("receipts")
        .iter()
        .map(|r| r["files"][0].as_str().unwrap_or("").to_owned())
        .collect();
    paths.sort();
    let expected: Vec<String> = (0..8).map(|i| format!("f{i}.py")).collect();
    assert_eq!(paths, expected, "every write has its receipt in the log");
    // Writers take turns on the log: no receipt commit is orphaned by a lost race.
    let fsck = crate::common::command("git")
        .args(["fsck", "--dangling"])
        .current_dir(repo.path())
        .output()
        .expect("fsck");
    let report = String::from_utf8_lossy(&fsck.stdout);
    assert!(!report.contains("dangling commit"), "{report}");
    // Writers racing in one directory see each other's files change; each such file is
    // accounted for by the other writer's receipt, so every receipt still verifies.
    for entry in log["receipts"].as_array().expect("receipts") {
        let id = entry["commit"].as_str().expect("commit");
        let (rc, doc) = repo.json(&["verify", id]);
        assert_eq!(rc, 0, "{doc}");
    }
    fsck_clean(&repo);
}

#[test]
fn works_from_a_subdirectory_and_in_a_linked_worktree() {
    let repo = repo_with(&[("pkg/a.py", "x = 1\n")]);
    let out = repo
        .cmd()
        .current_dir(repo.path().join("pkg"))
        .args([
            "edit",
            "a.py",
            "--find",
            "x = 1",
            "--replace",
            "x = 2",
            "--format",
            "json",
        ])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let (_, log) = repo.json(&["log"]);
    assert_eq!(log["receipts"][0]["files"][0], "pkg/a.py");
    let undo = repo
        .cmd()
        .current_dir(repo.path().join("pkg"))
        .args(["undo", "--format", "json"])
        .output()
        .expect("runs");
    assert!(undo.status.success());
    assert_eq!(repo.text("pkg/a.py"), "x = 1\n");

    let wt = tempfile::tempdir().expect("tmp");
    let wt_path = wt.path().join("wt");
    git(
        repo.path(),
        &[
            "worktree",
            "add",
            "-q",
            wt_path.to_str().expect("utf8"),
            "-b",
            "side",
        ],
    );
    let out = repo
        .cmd()
        .current_dir(&wt_path)
        .args([
            "edit",
            "pkg/a.py",
            "--find",
            "x = 1",
            "--replace",
            "x = 5",
            "--format",
            "json",
        ])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(wt_path.join("pkg/a.py")).expect("read"),
        "x = 5\n"
    );
    assert_eq!(
        repo.text("pkg/a.py"),
        "x = 1\n",
        "the main work tree is untouched"
    );
    let verify = repo
        .cmd()
        .current_dir(&wt_path)
        .args(["verify", "--format", "json"])
        .output()
        .expect("runs");
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    // The log is shared with the main work tree, as git refs are.
    let (_, log) = repo.json(&["log"]);
    assert_eq!(log["receipts"].as_array().map(Vec::len), Some(3));
    fsck_clean(&repo);
}

#[test]
fn git_dir_and_work_tree_from_the_environment() {
    let repo = repo_with(&[("a.py", "x = 1\n")]);
    let elsewhere = tempfile::tempdir().expect("tmp");
    let edit_from = |dir: &std::path::Path| {
        repo.cmd()
            .current_dir(dir)
            .env("GIT_DIR", repo.path().join(".git"))
            .env("GIT_WORK_TREE", repo.path())
            .args(["edit", "a.py", "--find", "x = 1", "--replace", "x = 2"])
            .args(["--format", "json"])
            .output()
            .expect("runs")
    };
    // Paths on the command line are relative to the current directory, which lies outside
    // the work tree: refused, nothing written.
    let out = edit_from(elsewhere.path());
    assert!(!out.status.success());
    let out = edit_from(repo.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let (rc, _) = repo.json(&["verify"]);
    assert_eq!(rc, 0);
}

#[test]
fn core_worktree_names_the_work_tree() {
    // The git directory lives apart and names its work tree with `core.worktree`, as
    // `git --git-dir=meta --work-tree=repo` setups do: the edit's root is that work tree
    // (not the current directory), and the receipt is recorded and verifies there.
    let repo = repo_with(&[("a.py", "x = 1\n"), ("sub/b.py", "y = 1\n")]);
    let meta = tempfile::tempdir().expect("tmp");
    let git_dir = meta.path().join("meta.git");
    std::fs::rename(repo.path().join(".git"), &git_dir).expect("moves .git");
    let tree = repo.path().to_str().expect("utf8 path");
    git(
        meta.path(),
        &["--git-dir=meta.git", "config", "core.worktree", tree],
    );
    let run = |args: &[&str]| {
        repo.cmd()
            .current_dir(repo.path().join("sub"))
            .env("GIT_DIR", &git_dir)
            .env_remove("GIT_WORK_TREE")
            .args(args)
            .args(["--format", "json"])
            .output()
            .expect("runs")
    };
    let out = run(&["edit", "../a.py", "--find", "x = 1", "--replace", "x = 2"]);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(out.status.success(), "{doc}");
    assert_eq!(doc["receipt"]["recorded"], true, "{doc}");
    assert_eq!(repo.text("a.py"), "x = 2\n");
    let out = run(&["verify"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn outside_git_edits_work_and_the_ledger_explains() {
    let dir = Repo::plain();
    dir.write("a.txt", "hello\n");
    let (rc, doc) = dir.json(&["edit", "a.txt", "--find", "hello", "--replace", "bye"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["receipt"]["recorded"], false);
    assert_eq!(dir.text("a.txt"), "bye\n");
    for command in ["verify", "undo", "log"] {
        let (rc, doc) = dir.json(&[command]);
        assert_eq!(
            (rc, code(&doc)),
            (1, "not_a_repository"),
            "{command}: {doc}"
        );
    }
}

#[test]
fn a_bare_repository_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    git(dir.path(), &["init", "-q", "--bare", "r.git"]);
    let bare = dir.path().join("r.git");
    std::fs::write(bare.join("a.txt"), "hello\n").expect("write");
    let out = crate::common::command(crate::common::BIN)
        .current_dir(&bare)
        .args([
            "edit",
            "a.txt",
            "--find",
            "hello",
            "--replace",
            "bye",
            "--format",
            "json",
        ])
        .env_remove("GIT_DIR")
        .output()
        .expect("runs");
    let doc = crate::common::parse_one_document(&out);
    assert_eq!(code(&doc), "bare_repository", "{doc}");
    assert_eq!(
        std::fs::read_to_string(bare.join("a.txt")).expect("read"),
        "hello\n"
    );
}

/// `GIT_CEILING_DIRECTORIES` as git reads it: a ceiling between the current directory and the
/// repository means "outside a repository" (the edit works, nothing is recorded); a ceiling
/// elsewhere changes nothing.
#[test]
fn ceiling_directories_are_honoured_as_git_does() {
    let repo = repo_with(&[("sub/deep/q.txt", "q\n")]);
    let deep = repo.path().join("sub/deep");
    let run = |ceiling: &std::path::Path, replace: &str| {
        let out = repo
            .cmd()
            .current_dir(&deep)
            .env("GIT_CEILING_DIRECTORIES", ceiling)
            .args([
                "edit",
                "q.txt",
                "--find",
                "q",
                "--replace",
                replace,
                "--format",
                "json",
            ])
            .output()
            .expect("runs");
        std::fs::write(deep.join("q.txt"), "q\n").expect("reset");
        crate::common::parse_one_document(&out)
    };
    let blocked = run(repo.path(), "r");
    assert_eq!(blocked["ok"], true, "{blocked}");
    assert_eq!(blocked["receipt"]["recorded"], false, "{blocked}");
    let elsewhere = run(std::path::Path::new("/nonexistent-ceiling"), "s");
    assert_eq!(elsewhere["receipt"]["recorded"], true, "{elsewhere}");
    assert_eq!(
        git(repo.path(), &["rev-list", "--count", "refs/identedit/log"]).trim(),
        "1"
    );
}

#[test]
fn the_observation_covers_the_plan_paths_only() {
    // Cost follows the edit: the receipt observes the paths the plan writes, not every file of
    // their directory (which would list, and grow with, `src/`).
    let mut files: Vec<(String, String)> = (0..50)
        .map(|i| (format!("src/n{i}.py"), format!("n = {i}\n")))
        .collect();
    files.push(("src/a.py".into(), "x = 1\n".into()));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let repo = repo_with(&refs);
    let doc = edit(&repo, "src/a.py", "x = 1", "x = 2");
    let observed = &doc["receipt"]["observed"];
    assert_eq!(observed["method"], "stat", "{doc}");
    assert_eq!(observed["scope"], serde_json::json!(["src/a.py"]), "{doc}");
    assert_eq!(observed["changed_files"], serde_json::json!(["src/a.py"]));
    assert_eq!(observed["mismatched_files"], serde_json::json!([]));
    let (rc, verified) = repo.json(&["verify"]);
    assert_eq!(rc, 0, "{verified}");
}
