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
    let out = std::process::Command::new("git")
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
fn verify_passes_then_fails_on_drift() {
    let repo = repo_with(&[("a.py", "x = 1\n")]);
    edit(&repo, "a.py", "x = 1", "x = 2");
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["status"], "passed");
    repo.write("a.py", "x = 3\n");
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 1, "{doc}");
    assert_eq!(doc["status"], "failed");
    let digests = doc["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == "digests")
        .expect("digests check");
    assert_eq!(digests["status"], "failed");
    assert_eq!(digests["detail"]["drifted"][0]["path"], "a.py");
}

#[test]
fn verify_fails_when_a_file_no_longer_parses() {
    let repo = repo_with(&[("a.py", "def f():\n    return 1\n")]);
    edit(&repo, "a.py", "return 1", "return 2");
    let (rc, _) = repo.json(&["verify"]);
    assert_eq!(rc, 0);
    // A receipt whose published bytes do not parse: written with --allow-syntax-errors.
    let (rc, doc) = repo.json(&[
        "edit",
        "a.py",
        "--find",
        "return 2",
        "--replace",
        "return (",
        "--allow-syntax-errors",
    ]);
    assert_eq!(rc, 0, "{doc}");
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 1, "{doc}");
    let syntax = doc["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == "syntax")
        .expect("syntax check");
    assert_eq!(syntax["detail"]["regressions"][0]["path"], "a.py", "{doc}");
}

/// A receipt whose write was never observed (hand-made with git plumbing) cannot be fully
/// proven: verify says incomplete (exit 3) and why.
#[test]
fn verify_is_incomplete_for_an_unobserved_receipt() {
    let repo = repo_with(&[("a.py", "x = 1\n")]);
    edit(&repo, "a.py", "x = 1", "x = 2");
    let commit = git(repo.path(), &["rev-parse", "refs/identedit/log"]);
    let json = git(
        repo.path(),
        &["cat-file", "-p", &format!("{}:receipt.json", commit.trim())],
    );
    let mut receipt: Value = serde_json::from_str(&json).expect("receipt");
    receipt["observed"] = serde_json::json!({"method": "none", "scope": [], "changed_files": [],
                                            "extra_files": [], "mismatched_files": []});
    receipt["label"] = "handmade".into();
    repo.write("handmade.json", serde_json::to_vec(&receipt).expect("json"));
    let blob = git(repo.path(), &["hash-object", "-w", "handmade.json"]);
    let input = git(
        repo.path(),
        &["rev-parse", &format!("{}:input", commit.trim())],
    );
    std::fs::remove_file(repo.path().join("handmade.json")).expect("rm");
    let listing = format!(
        "100644 blob {}\tinput\n100644 blob {}\treceipt.json\n",
        input.trim(),
        blob.trim()
    );
    let tree = crate::common::run_with_stdin(
        std::process::Command::new("git")
            .args(["mktree"])
            .current_dir(repo.path()),
        &listing,
    );
    let tree = String::from_utf8_lossy(&tree.stdout).trim().to_owned();
    let made = git(
        repo.path(),
        &["commit-tree", &tree, "-p", commit.trim(), "-m", "handmade"],
    );
    git(
        repo.path(),
        &[
            "update-ref",
            "refs/identedit/receipts/handmade",
            made.trim(),
        ],
    );
    let (rc, doc) = repo.json(&["verify", "handmade"]);
    assert_eq!(rc, 3, "{doc}");
    assert_eq!(doc["status"], "incomplete");
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
    let fsck = std::process::Command::new("git")
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
    let out = repo
        .cmd()
        .current_dir(elsewhere.path())
        .env("GIT_DIR", repo.path().join(".git"))
        .env("GIT_WORK_TREE", repo.path())
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
    // Paths on the command line are relative to the current directory, which lies outside
    // the work tree: refused, nothing written.
    assert!(!out.status.success());
    let out = repo
        .cmd()
        .env("GIT_DIR", repo.path().join(".git"))
        .env("GIT_WORK_TREE", repo.path())
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
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let (rc, _) = repo.json(&["verify"]);
    assert_eq!(rc, 0);
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
    let out = std::process::Command::new(crate::common::BIN)
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

#[test]
fn show_prints_the_receipt_and_its_diff() {
    let repo = repo_with(&[("a.py", "x = 1\n")]);
    let doc = edit(&repo, "a.py", "x = 1", "x = 2");
    let label = doc["receipt"]["label"].as_str().expect("label");
    let (rc, shown) = repo.json(&["show", label]);
    assert_eq!(rc, 0, "{shown}");
    assert_eq!(
        shown["diff"],
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    );
    assert_eq!(shown["receipt"]["label"], label);
    let (rc, doc) = repo.json(&["show", "no-such-label"]);
    assert_eq!((rc, code(&doc)), (1, "receipt_not_found"));
}

/// After a symbol is removed, verify looks for it in documents and templates: open mentions
/// leave the verdict incomplete (exit 3) until fixed or accepted with a reason; changelog
/// mentions are history and never block.
#[test]
fn verify_reports_residue_of_a_removed_symbol() {
    let repo = repo_with(&[
        (
            "src/Greeter.php",
            "<?php\n\nnamespace App;\n\nfinal class Greeter\n{\n    public function greet(string $n): string\n    {\n        return $n;\n    }\n\n    public function bye(): string\n    {\n        return \"bye\";\n    }\n}\n",
        ),
        ("docs/usage.md", "Call `Greeter::greet()` to say hello.\n"),
        ("CHANGELOG.md", "- 1.0: added Greeter::greet\n"),
        ("templates/page.twig", "{{ greeter.bye() }}\n"),
    ]);
    let plan = crate::common::plan(serde_json::json!({"allow_signature_change": true,
        "edits": [{"op": "remove_symbol", "path": "src/Greeter.php", "symbol": "Greeter::greet()"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &plan);
    assert_eq!(rc, 0, "{doc}");
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 3, "{doc}");
    let residue = doc["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == "residue")
        .expect("residue check")
        .clone();
    assert_eq!(residue["status"], "incomplete");
    assert_eq!(residue["detail"]["status"], "open");
    assert_eq!(
        (
            residue["detail"]["open"].as_u64(),
            residue["detail"]["historical"].as_u64()
        ),
        (Some(1), Some(1))
    );
    assert_eq!(residue["detail"]["hits"][0]["path"], "CHANGELOG.md");
    assert_eq!(residue["detail"]["hits"][0]["status"], "historical");
    assert_eq!(residue["detail"]["hits"][1]["path"], "docs/usage.md");
    assert_eq!(residue["detail"]["hits"][1]["line"], 1);
    let (rc, doc) = repo.json(&[
        "verify",
        "--accept-residue",
        "docs are regenerated at release",
    ]);
    assert_eq!(rc, 0, "{doc}");
    let accepted = doc["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == "residue")
        .expect("residue")
        .clone();
    assert_eq!(accepted["detail"]["status"], "accepted");
    assert_eq!(
        accepted["detail"]["disposition"],
        "docs are regenerated at release"
    );
    repo.write("docs/usage.md", "Call `Greeter::bye()` to say goodbye.\n");
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 0, "fixed docs are clear: {doc}");
}

/// `show` prints binary images the way git does, never their bytes.
#[test]
fn show_says_binary_files_differ() {
    let repo = Repo::new();
    repo.write("b.bin", b"\x00\x01bin").commit();
    let plan = crate::common::plan(serde_json::json!({"deletes": [{"path": "b.bin"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &plan);
    assert_eq!(rc, 0, "{doc}");
    let (rc, shown) = repo.json(&["show"]);
    assert_eq!(rc, 0, "{shown}");
    assert_eq!(
        shown["diff"],
        "diff --git a/b.bin b/b.bin\nBinary files a/b.bin and /dev/null differ\n"
    );
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.read("b.bin"), b"\x00\x01bin");
}

/// agent-edit's documented forms: `apply --output-dir=.agent-edit/receipts/<label>`, then
/// `verify --bundle=…` and `undo --bundle=…` name the receipt by the folder's last component.
#[test]
fn agent_edit_bundle_paths_name_receipts() {
    let repo = repo_with(&[("src/Calc.php", "<?php\nreturn $a - $b;\n")]);
    let plan = crate::common::plan(serde_json::json!({"target_id": "fix-add",
        "edits": [{"path": "src/Calc.php", "find": "return $a - $b;", "replace": "return $a + $b;"}]}));
    let (rc, doc) = repo.json_stdin(
        &["apply", "-", "--output-dir=.agent-edit/receipts/fix-add"],
        &plan,
    );
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["receipt"]["label"], "fix-add");
    let (rc, doc) = repo.json(&["verify", "--bundle=.agent-edit/receipts/fix-add"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["receipt"]["label"], "fix-add");
    let (rc, doc) = repo.json(&["undo", "--bundle=.agent-edit/receipts/fix-add"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("src/Calc.php"), "<?php\nreturn $a - $b;\n");
    assert!(!repo.exists(".agent-edit"), "no bundle folder is written");
}
