//! verify (pass, fail, incomplete, residue) and show, through the real binary; agent-edit's
//! bundle forms.

use serde_json::Value;

use crate::common::{Repo, code, git};
use crate::ledger::{edit, repo_with};

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
        crate::common::command("git")
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
