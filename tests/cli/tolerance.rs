//! The ladder end to end: what the reports say about tolerant matches, twins, blank lines and
//! retries, the failed-diff handoff's refusal of several files, and diffs' mode changes.

use serde_json::Value;

use crate::common::{Repo, code};

fn block(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n")
}

fn matched_by(doc: &Value) -> Vec<String> {
    ["changed_files", "unchanged_files"]
        .iter()
        .flat_map(|k| doc[k].as_array().cloned().unwrap_or_default())
        .flat_map(|f| f["edits"].as_array().cloned().unwrap_or_default())
        .map(|e| e["matched_by"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_twin_is_refused_with_every_candidate_and_exact_takes_the_exact_one() {
    let repo = Repo::new();
    let text = "x = 1\ny = 2\ndef f():\n    x = 1\n    y = 2\n";
    repo.write("t.py", text).commit();
    let input = block("t.py", "x = 1\ny = 2\n", "x = 1\ny = 3\n");
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &input);
    assert_eq!((rc, code(&doc)), (1, "anchor_ambiguous"), "{doc}");
    let candidates = &doc["error"]["details"]["candidates"];
    assert_eq!(
        candidates,
        &serde_json::json!([
            {"start_line": 1, "end_line": 2, "matched_by": "exact"},
            {"start_line": 4, "end_line": 5, "matched_by": "indentation"}
        ])
    );
    assert_eq!(repo.text("t.py"), text);
    let (rc, doc) = repo.json_stdin(&["apply", "-", "--exact"], &input);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(matched_by(&doc), ["exact"]);
    assert_eq!(
        repo.text("t.py"),
        "x = 1\ny = 3\ndef f():\n    x = 1\n    y = 2\n"
    );
}

#[test]
fn blank_lines_and_retries_are_reported() {
    let repo = Repo::new();
    repo.write("a.py", "import os\ndef main():\n    pass\n")
        .commit();
    let input = block(
        "a.py",
        "\ndef main():\n    pass\n",
        "\ndef main():\n    return 0\n",
    );
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &input);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(matched_by(&doc), ["blank_lines"]);
    assert_eq!(repo.text("a.py"), "import os\ndef main():\n    return 0\n");
    let insert = block("a.py", "import os\n", "import os\nimport sys\n");
    for expected in ["exact", "already_applied"] {
        let (rc, doc) = repo.json_stdin(&["apply", "-"], &insert);
        assert_eq!(rc, 0, "{doc}");
        assert_eq!(matched_by(&doc), [expected]);
    }
    assert_eq!(
        repo.text("a.py"),
        "import os\nimport sys\ndef main():\n    return 0\n"
    );
}

#[test]
fn from_diff_refuses_a_diff_of_several_files() {
    let repo = Repo::new();
    repo.write("a.txt", "one\n")
        .write("b.txt", "two\n")
        .commit();
    repo.write(
        "failed.diff",
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-two\n+TWO\n",
    );
    let (rc, doc) = repo.json(&["patch", "a.txt", "--from-diff", "failed.diff"]);
    assert_eq!((rc, code(&doc)), (2, "plan_unsupported"), "{doc}");
    assert_eq!(
        doc["error"]["details"]["files"],
        serde_json::json!(["a.txt", "b.txt"])
    );
}

fn executable(repo: &Repo, rel: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(repo.path().join(rel)).expect("meta");
    meta.permissions().mode() & 0o111 != 0
}

#[test]
fn a_diff_sets_the_executable_bit_and_undo_clears_it() {
    let repo = Repo::new();
    repo.write("run.sh", "echo hi\n").commit();
    let mode_only = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n";
    let (rc, doc) = repo.json_stdin(&["apply", "-"], mode_only);
    assert_eq!(rc, 0, "{doc}");
    assert!(executable(&repo, "run.sh"));
    assert_eq!(repo.text("run.sh"), "echo hi\n");
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 0, "{doc}");
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    assert!(!executable(&repo, "run.sh"));
    let with_hunk = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo hi\n+echo hello\n";
    let (rc, doc) = repo.json_stdin(&["apply", "-"], with_hunk);
    assert_eq!(rc, 0, "{doc}");
    assert!(executable(&repo, "run.sh"));
    assert_eq!(repo.text("run.sh"), "echo hello\n");
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    assert!(!executable(&repo, "run.sh"));
    assert_eq!(repo.text("run.sh"), "echo hi\n");
}

#[test]
fn a_new_file_of_mode_100755_is_executable() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    let diff = "diff --git a/tool.sh b/tool.sh\nnew file mode 100755\nindex 0000000..1111111\n--- /dev/null\n+++ b/tool.sh\n@@ -0,0 +1 @@\n+echo tool\n";
    let (rc, doc) = repo.json_stdin(&["apply", "-"], diff);
    assert_eq!(rc, 0, "{doc}");
    assert!(executable(&repo, "tool.sh"));
    assert_eq!(repo.text("tool.sh"), "echo tool\n");
}

#[test]
fn a_byte_order_mark_copied_into_the_search_still_matches_and_stays_once() {
    let repo = Repo::new();
    repo.write("t.py", "\u{feff}import os\n\nprint(1)\n")
        .commit();
    let input = block(
        "t.py",
        "\u{feff}import os\n",
        "\u{feff}import os\nimport sys\n",
    );
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &input);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(matched_by(&doc), ["exact"]);
    assert_eq!(
        repo.text("t.py"),
        "\u{feff}import os\nimport sys\n\nprint(1)\n"
    );
}

#[test]
fn an_anchor_keeps_the_chunk_in_its_block_but_a_chunk_outside_every_block_is_ambiguous() {
    let repo = Repo::new();
    let text = "def a():\n    x = 1\n\ndef b():\n    x = 1\n\ndef c():\n    x = 1\n";
    repo.write("t.py", text).commit();
    let patch = |anchor: &str| {
        format!(
            "*** Begin Patch\n*** Update File: t.py\n@@ {anchor}\n-    x = 1\n+    x = 2\n*** End Patch\n"
        )
    };
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &patch("def b():"));
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        repo.text("t.py"),
        "def a():\n    x = 1\n\ndef b():\n    x = 2\n\ndef c():\n    x = 1\n"
    );
    repo.write("t.py", text);
    // `x = 1` of a() is not after the anchor; b() and c() both are, and neither is inside it.
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &patch("    x = 1"));
    assert_eq!((rc, code(&doc)), (1, "anchor_ambiguous"), "{doc}");
    assert_eq!(repo.text("t.py"), text);
}

#[test]
fn a_chunk_inside_two_blocks_its_anchor_opens_is_ambiguous() {
    let repo = Repo::new();
    let text = "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n";
    repo.write("t.py", text).commit();
    let input = "*** Begin Patch\n*** Update File: t.py\n@@ def f(self):\n-        return 1\n+        return 2\n*** End Patch\n";
    let (rc, doc) = repo.json_stdin(&["apply", "-"], input);
    assert_eq!((rc, code(&doc)), (1, "anchor_ambiguous"), "{doc}");
    assert_eq!(repo.text("t.py"), text);
}

/// A mode-only change in a transaction killed part-way is rolled back with the rest: the
/// bytes never differ, so the mode tells, and the old mode comes back with the other files.
#[test]
fn a_killed_mode_only_change_is_rolled_back_with_the_rest() {
    use std::os::unix::process::ExitStatusExt;
    let diff = "diff --git a/a.sh b/a.sh\nold mode 100644\nnew mode 100755\n\
                diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-one\n+two\n";
    for step in ["after_stage", "after_backup", "after_first_rename"] {
        let repo = Repo::new();
        repo.write("a.sh", "echo hi\n")
            .write("b.txt", "one\n")
            .commit();
        let out = crate::common::run_with_stdin(
            repo.cmd()
                .args(["apply", "-", "--format", "json"])
                .env("IDENTEDIT_FAILPOINT", step),
            diff,
        );
        assert_eq!(out.status.signal(), Some(9), "{step}: {out:?}");
        let (rc, doc) = repo.json(&["capabilities"]);
        assert_eq!(rc, 0, "{doc}");
        assert_eq!(repo.text("b.txt"), "one\n", "{step}");
        assert!(!executable(&repo, "a.sh"), "{step}: the new mode stayed");
        assert_eq!(repo.text("a.sh"), "echo hi\n");
    }
}
