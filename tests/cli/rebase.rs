//! Many agents, one repository: an edit whose file changed elsewhere since it was read is
//! rebased onto the current bytes when every region it touches is still there, unchanged and
//! once; any change inside a region refuses. `--wait` queues on a held lock (worktrees: see
//! `worktrees.rs`).
//!
//! The race is made deterministic: the test holds the file's lock, starts the edit (which
//! reads the file, proves the edit, then queues on the lock), changes the file as another
//! agent would, and releases the lock.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use serde_json::{Value, json};
use sha2::Digest as _;

use crate::common::{Repo, code, git, sha256_hex};

/// The lock file identedit takes for `rel` of the work tree `root` in the repository whose
/// common git directory is `common`: named by the sha256 of the file's real path.
pub fn lock_path(common: &Path, root: &Path, rel: &str) -> PathBuf {
    let real = std::fs::canonicalize(root).expect("root").join(rel);
    let hex: String = sha2::Sha256::digest(real.to_string_lossy().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    common
        .join("identedit/locks")
        .join(format!("{}.lock", &hex[..32]))
}

/// Holds the lock of `rel` in the repository at `root` until dropped.
pub fn hold(common: &Path, root: &Path, rel: &str) -> (File, PathBuf) {
    let path = lock_path(common, root, rel);
    std::fs::create_dir_all(path.parent().expect("locks")).expect("mkdir");
    let file = File::create(&path).expect("lock file");
    file.lock().expect("lock");
    (file, path)
}

pub(crate) fn spawn(repo: &Repo, args: &[&str], stdin: &str) -> Child {
    let mut child = repo
        .cmd()
        .args(args)
        .args(["--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    use std::io::Write as _;
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("stdin");
    drop(input);
    child
}

/// Waits until `child` has the lock file open: it has proven its plan and queues on the lock.
fn wait_until_queued(child: &mut Child, lock: &Path) {
    let fds = PathBuf::from(format!("/proc/{}/fd", child.id()));
    for _ in 0..6000 {
        let open = std::fs::read_dir(&fds)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| std::fs::read_link(e.path()).is_ok_and(|t| t == lock));
        if open {
            return;
        }
        assert!(
            child.try_wait().expect("wait").is_none(),
            "the edit ended before queueing on the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the edit never queued on the lock");
}

pub(crate) fn finish(child: Child) -> (i32, Value) {
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        crate::common::parse_one_document(&out),
    )
}

/// Runs `args` (with `stdin`) in `repo` while another agent's write `meanwhile` lands between
/// its read and its lock.
fn raced(repo: &Repo, args: &[&str], stdin: &str, meanwhile: &str) -> (i32, Value) {
    let (held, lock) = hold(&repo.path().join(".git"), repo.path(), "f.txt");
    let mut child = spawn(repo, &[args, &["--wait", "120"]].concat(), stdin);
    wait_until_queued(&mut child, &lock);
    repo.write("f.txt", meanwhile);
    drop(held);
    finish(child)
}

pub(crate) const BASE: &str = "alpha\nbeta\ngamma\ndelta\n";
/// Another agent added two lines at the top.
pub(crate) const SHIFTED: &str = "top\nmore\nalpha\nbeta\ngamma\ndelta\n";

fn anchor(repo: &Repo, n: usize) -> String {
    crate::changeset::anchor(repo, "f.txt", n)
}

pub(crate) fn rebased_lines(doc: &Value) -> &Value {
    &doc["changed_files"][0]["edits"][0]["rebased_lines"]
}

pub(crate) fn receipt_rebased(repo: &Repo) -> Value {
    let (rc, doc) = repo.json(&["show"]);
    assert_eq!(rc, 0, "{doc}");
    doc["receipt"]["rebased"].clone()
}

pub(crate) fn lines(from: (u64, u64), to: (u64, u64)) -> Value {
    json!({"from": {"start_line": from.0, "end_line": from.1},
           "to": {"start_line": to.0, "end_line": to.1}})
}

#[test]
fn a_line_anchored_edit_waits_for_the_lock_and_lands_rebased() {
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    let at = anchor(&repo, 3);
    let args = ["patch", "f.txt", "--at", &at, "--replace", "GAMMA"];
    let (rc, doc) = raced(&repo, &args, "", SHIFTED);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("f.txt"), "top\nmore\nalpha\nbeta\nGAMMA\ndelta\n");
    assert_eq!(doc["rebased"], true, "{doc}");
    assert_eq!(rebased_lines(&doc), &lines((3, 3), (5, 5)));
    let recorded = receipt_rebased(&repo);
    assert_eq!(recorded[0]["path"], "f.txt", "{recorded}");
    assert_eq!(recorded[0]["from"], json!({"start_line": 3, "end_line": 3}));
    assert_eq!(recorded[0]["to"], json!({"start_line": 5, "end_line": 5}));
}

#[test]
fn a_line_range_whose_lines_changed_meanwhile_is_refused() {
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    let (two, three) = (anchor(&repo, 2), anchor(&repo, 3));
    let args = [
        "patch",
        "f.txt",
        "--at",
        &two,
        "--end-anchor",
        &three,
        "--replace",
        "X",
    ];
    // The anchors still match where they were, but the range's bytes are not those read:
    // here the other agent changed `beta` (an anchored line).
    let changed = "alpha\nBETA!\ngamma\ndelta\n";
    let (rc, doc) = raced(&repo, &args, "", changed);
    assert_eq!((rc, code(&doc)), (1, "evidence_changed"), "{doc}");
    assert_eq!(repo.text("f.txt"), changed, "a refusal writes nothing");
}

#[test]
fn a_region_that_now_occurs_twice_is_refused_naming_both() {
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    let at = anchor(&repo, 3);
    let args = ["patch", "f.txt", "--at", &at, "--replace", "GAMMA"];
    let twice = "gamma\nalpha\nbeta\ngamma\ndelta\n";
    let (rc, doc) = raced(&repo, &args, "", twice);
    assert_eq!((rc, code(&doc)), (1, "ambiguous_target"), "{doc}");
    assert_eq!(
        doc["error"]["candidates"],
        json!([{"line": 1}, {"line": 4}]),
        "{doc}"
    );
    assert_eq!(repo.text("f.txt"), twice);
}

#[test]
fn a_structure_edit_lands_rebased_unless_its_node_changed() {
    let py = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
    for (meanwhile, expected) in [
        (
            format!("import os\n\n\n{py}"),
            Ok("import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 20\n"),
        ),
        (py.replace("return 2", "return 3"), Err("target_missing")),
    ] {
        let repo = Repo::new();
        repo.write("f.txt", "x\n").write("m.py", py).commit();
        let (held, lock) = hold(&repo.path().join(".git"), repo.path(), "m.py");
        let args = [
            "patch",
            "m.py",
            "--symbol",
            "g",
            "--replace",
            "def g():\n    return 20",
            "--wait",
            "120",
        ];
        let mut child = spawn(&repo, &args, "");
        wait_until_queued(&mut child, &lock);
        repo.write("m.py", &meanwhile);
        drop(held);
        let (rc, doc) = finish(child);
        match expected {
            Ok(text) => {
                assert_eq!(rc, 0, "{doc}");
                assert_eq!(repo.text("m.py"), text);
                assert_eq!(rebased_lines(&doc), &lines((5, 6), (8, 9)), "{doc}");
            }
            Err(refusal) => {
                assert_eq!((rc, code(&doc)), (1, refusal), "{doc}");
                assert_eq!(repo.text("m.py"), meanwhile);
            }
        }
    }
}

#[test]
fn text_dialect_blocks_land_rebased_on_the_current_bytes() {
    let aider = "f.txt\n<<<<<<< SEARCH\nbeta\ngamma\n=======\nbeta\nGAMMA\n>>>>>>> REPLACE\n";
    let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -2,2 +2,2 @@\n beta\n-gamma\n+GAMMA\n";
    let codex =
        "*** Begin Patch\n*** Update File: f.txt\n@@\n beta\n-gamma\n+GAMMA\n*** End Patch\n";
    for block in [aider, diff, codex] {
        let repo = Repo::new();
        repo.write("f.txt", BASE).commit();
        let (rc, doc) = raced(&repo, &["apply", "-"], block, SHIFTED);
        assert_eq!(rc, 0, "{block}: {doc}");
        assert_eq!(repo.text("f.txt"), "top\nmore\nalpha\nbeta\nGAMMA\ndelta\n");
        assert_eq!(rebased_lines(&doc), &lines((3, 3), (5, 5)), "{doc}");
        // The matched text changed meanwhile: refused, nothing written.
        let repo = Repo::new();
        repo.write("f.txt", BASE).commit();
        let changed = "alpha\nbeta\ngamma!\ndelta\n";
        let (rc, doc) = raced(&repo, &["apply", "-"], block, changed);
        assert_ne!(rc, 0, "{block}: {doc}");
        assert_eq!(repo.text("f.txt"), changed);
    }
}

#[test]
fn an_exact_edit_lands_rebased_but_expected_sha256_refuses_any_change() {
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    let args = ["edit", "f.txt", "--find", "gamma", "--replace", "GAMMA"];
    let (rc, doc) = raced(&repo, &args, "", SHIFTED);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(rebased_lines(&doc), &lines((3, 3), (5, 5)));
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    let sha = sha256_hex(BASE.as_bytes());
    let pinned = [&args[..], &["--expected-sha256", &sha]].concat();
    let (rc, doc) = raced(&repo, &pinned, "", SHIFTED);
    assert_eq!((rc, code(&doc)), (1, "evidence_changed"), "{doc}");
    assert_eq!(repo.text("f.txt"), SHIFTED);
    // The plan's `expected_source_sha256` (the agent-edit seed's precondition) likewise.
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    let plan = crate::common::plan(json!({"edits": [{"path": "f.txt", "find": "gamma",
        "replace": "GAMMA", "expected_source_sha256": sha}]}));
    let (rc, doc) = raced(&repo, &["apply", "-"], &plan, SHIFTED);
    assert_eq!((rc, code(&doc)), (1, "evidence_changed"), "{doc}");
    assert_eq!(repo.text("f.txt"), SHIFTED);
}

#[test]
fn a_changeset_built_before_another_edit_landed_is_rebased() {
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    let (three, four) = (anchor(&repo, 3), anchor(&repo, 4));
    let request = json!({"command": "edit", "file": "f.txt", "operations": [
        {"target": {"type": "line", "anchor": three, "end_anchor": four},
         "op": {"type": "replace", "new_text": "GD\n"}}]});
    let changeset = crate::changeset::built(&repo, &request);
    repo.write("f.txt", SHIFTED);
    let (rc, doc) = crate::changeset::apply(&repo, &changeset, &[]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("f.txt"), "top\nmore\nalpha\nbeta\nGD\n");
    assert_eq!(doc["rebased"], true);
    let expected = json!([{"pointer": "/files/0/operations/0", "path": "f.txt",
                           "from": {"start_line": 3, "end_line": 4},
                           "to": {"start_line": 5, "end_line": 6}}]);
    assert_eq!(doc["changeset"]["rebased"], expected, "{doc}");
    assert_eq!(
        doc["changeset"]["repaired"],
        json!([]),
        "rebased, not repaired"
    );
    assert_eq!(receipt_rebased(&repo), expected);
    // A line inside the captured range changed: refused, as before.
    repo.write("f.txt", BASE);
    let changeset = crate::changeset::built(&repo, &request);
    let changed = "top\nalpha\nbeta\ngamma\nDELTA\n";
    repo.write("f.txt", changed);
    let (rc, doc) = crate::changeset::apply(&repo, &changeset, &[]);
    assert_ne!(rc, 0, "{doc}");
    assert_eq!(repo.text("f.txt"), changed);
}

#[test]
fn identedit_wait_config_queues_and_a_short_wait_reports_busy() {
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    let (held, lock) = hold(&repo.path().join(".git"), repo.path(), "f.txt");
    let args = ["edit", "f.txt", "--find", "gamma", "--replace", "GAMMA"];
    let (rc, doc) = repo.json(&[&args[..], &["--wait", "0"]].concat());
    assert_eq!((rc, code(&doc)), (4, "resource_busy"), "{doc}");
    assert_eq!(doc["error"]["details"]["path"], "f.txt", "{doc}");
    git(repo.path(), &["config", "identedit.wait", "120"]);
    let mut child = spawn(&repo, &args, "");
    wait_until_queued(&mut child, &lock);
    assert!(child.try_wait().expect("wait").is_none(), "it queues");
    drop(held);
    let (rc, doc) = finish(child);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("f.txt"), "alpha\nbeta\nGAMMA\ndelta\n");
}

#[test]
fn a_changeset_node_edit_is_rebased_when_only_other_code_changed_and_its_receipt_verifies() {
    let repo = Repo::new();
    let py = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
    repo.write("m.py", py).commit();
    let g = crate::changeset::handle(&repo, "m.py", "g");
    let request = json!({"command": "edit", "file": "m.py", "operations": [
        {"target": crate::changeset::node(&g),
         "op": {"type": "replace", "new_text": "def g():\n    return 20"}}]});
    let changeset = crate::changeset::built(&repo, &request);
    let meanwhile = py.replace("return 1", "return 10");
    repo.write("m.py", format!("import os\n\n\n{meanwhile}"));
    let (rc, doc) = crate::changeset::apply(&repo, &changeset, &[]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        repo.text("m.py"),
        "import os\n\n\ndef f():\n    return 10\n\n\ndef g():\n    return 20\n"
    );
    assert_eq!(
        doc["changeset"]["rebased"][0]["from"],
        json!({"start_line": 5, "end_line": 6}),
        "{doc}"
    );
    assert_eq!(
        doc["changeset"]["rebased"][0]["to"],
        json!({"start_line": 8, "end_line": 9})
    );
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 0, "{doc}");
}

#[test]
fn a_symbol_edit_whose_body_another_agent_changed_is_refused_not_overwritten() {
    let py = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
    for (meanwhile, landed) in [
        (py.replace("return 1", "return 10"), true),
        (py.replace("return 2", "return 3"), false),
    ] {
        let repo = Repo::new();
        repo.write("m.py", py)
            .write("body.txt", "return 20\n")
            .commit();
        let (held, lock) = hold(&repo.path().join(".git"), repo.path(), "m.py");
        let args = [
            "edit",
            "m.py",
            "--symbol",
            "g",
            "--replace-body",
            "--text-file",
        ];
        let mut child = spawn(
            &repo,
            &[&args[..], &["body.txt", "--wait", "120"]].concat(),
            "",
        );
        wait_until_queued(&mut child, &lock);
        repo.write("m.py", &meanwhile);
        drop(held);
        let (rc, doc) = finish(child);
        if landed {
            assert_eq!(rc, 0, "{doc}");
            assert_eq!(
                repo.text("m.py"),
                meanwhile.replace("return 2", "return 20")
            );
            assert_eq!(doc["rebased"], true, "{doc}");
        } else {
            assert_eq!((rc, code(&doc)), (1, "evidence_changed"), "{doc}");
            assert_eq!(repo.text("m.py"), meanwhile, "another agent's body is kept");
        }
    }
}

#[test]
fn a_stale_anchor_is_rebased_when_the_ledger_holds_the_version_it_was_read_from() {
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    let at = anchor(&repo, 3);
    // Another agent's recorded write moves the line.
    let (rc, doc) = repo.json(&[
        "patch",
        "f.txt",
        "--at",
        "file-start",
        "--insert",
        "top\nmore\n",
    ]);
    assert_eq!(rc, 0, "{doc}");
    let (rc, doc) = repo.json(&["patch", "f.txt", "--at", &at, "--replace", "GAMMA"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("f.txt"), "top\nmore\nalpha\nbeta\nGAMMA\ndelta\n");
    assert_eq!(doc["rebased"], true, "{doc}");
    let moved = json!([{"pointer": doc["rebased_operations"][0]["pointer"], "path": "f.txt",
                        "from": {"start_line": 3, "end_line": 3},
                        "to": {"start_line": 5, "end_line": 5}}]);
    assert_eq!(doc["rebased_operations"], moved, "{doc}");
    assert_eq!(receipt_rebased(&repo)[0]["to"], moved[0]["to"]);
    // Changed by hand (no receipt of the version it was read from): the seed's contract.
    let repo = Repo::new();
    repo.write("f.txt", BASE).commit();
    let at = anchor(&repo, 3);
    repo.write("f.txt", SHIFTED);
    let (rc, doc) = repo.json(&["patch", "f.txt", "--at", &at, "--replace", "GAMMA"]);
    assert_eq!((rc, code(&doc)), (1, "precondition_failed"), "{doc}");
    assert_eq!(repo.text("f.txt"), SHIFTED);
}
