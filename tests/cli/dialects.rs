//! Text dialects end to end: detection, the tolerance ladder, already applied, every failure
//! listed, the failed-diff handoff, and awkward files (BOM, empty, 10 MB).

use serde_json::{Value, json};

use crate::common::{Repo, code};

fn block(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n")
}

fn edits(doc: &Value) -> Vec<Value> {
    doc["changed_files"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["edits"].as_array().cloned().unwrap_or_default())
        .collect()
}

#[test]
fn dialects_are_detected_by_content() {
    let repo = Repo::new();
    repo.write("a.txt", "one\ntwo\n").commit();
    let inputs = [
        format!("Here is the fix:\n\n{}", block("a.txt", "two\n", "TWO\n")),
        "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n".to_owned(),
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n".to_owned(),
    ];
    for (input, dialect) in inputs.iter().zip(["blocks", "codex", "diff"]) {
        let (rc, doc) = repo.json_stdin(&["apply", "-", "--dry-run"], input);
        assert_eq!(rc, 0, "{dialect}: {doc}");
        assert_eq!(doc["plan"]["type"], dialect);
        assert_eq!(doc["summary"]["files_changed"], 1);
    }
}

#[test]
fn a_block_that_matches_only_after_an_earlier_block_is_refused_naming_it() {
    let repo = Repo::new();
    let text = "class Order:\n    def paid(self):\n        self.status = 1\n";
    repo.write("m.py", text).commit();
    let first = block(
        "m.py",
        "        self.status = 1\n",
        "        self.status = 1\n        self.at = now()\n",
    );
    let second = block(
        "m.py",
        "        self.at = now()\n",
        "        self.at = today()\n",
    );
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &format!("{first}\n{second}"));
    assert_eq!((rc, code(&doc)), (1, "anchor_missing"), "{doc}");
    assert_eq!(
        doc["error"]["details"]["applies_after"],
        json!(["/blocks/0"]),
        "{doc}"
    );
    let hint = doc["error"]["hint"].as_str().expect("hint");
    assert!(
        hint.contains("blocks[0]") && hint.contains("merge"),
        "{hint}"
    );
    assert_eq!(repo.text("m.py"), text);
    // A search found nowhere, before or after the earlier blocks, names none.
    let (_, doc) = repo.json_stdin(
        &["apply", "-"],
        &format!("{first}\n{}", block("m.py", "x = 2\n", "x = 3\n")),
    );
    assert!(doc["error"]["details"]["applies_after"].is_null(), "{doc}");
}

#[test]
fn a_block_at_another_indentation_scale_applies_at_the_files_scale_unless_exact() {
    let repo = Repo::new();
    repo.write("m.py", "class A:\n  def f(self):\n    return 1\n")
        .commit();
    let input = block(
        "m.py",
        "def f(self):\n    return 1\n",
        "def f(self):\n    x = 1\n    return x\n",
    );
    let (rc, doc) = repo.json_stdin(&["apply", "-", "--exact", "--dry-run"], &input);
    assert_eq!((rc, code(&doc)), (1, "anchor_missing"));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &input);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(edits(&doc)[0]["matched_by"], "indentation_rescaled");
    assert_eq!(
        repo.text("m.py"),
        "class A:\n  def f(self):\n    x = 1\n    return x\n"
    );
}

#[test]
fn the_ladder_tolerates_and_reindents_in_the_files_style_unless_exact() {
    let repo = Repo::new();
    repo.write(
        "m.go",
        "func f() {\n\tif ok {\n\t\treturn \u{201c}yes\u{201d}  \n\t}\n}\n",
    )
    .commit();
    let input = block(
        "m.go",
        "if ok {\n    return \"yes\"\n}\n",
        "if ok {\n    return \"no\"\n}\n",
    );
    let (rc, doc) = repo.json_stdin(&["apply", "-", "--exact", "--dry-run"], &input);
    assert_eq!((rc, code(&doc)), (1, "anchor_missing"));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &input);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(edits(&doc)[0]["matched_by"], "unicode_punctuation");
    assert_eq!(edits(&doc)[0]["input_line"], 3);
    assert_eq!(
        repo.text("m.go"),
        "func f() {\n\tif ok {\n\t\treturn \"no\"\n\t}\n}\n"
    );
}

#[test]
fn a_retried_block_is_already_applied_and_writes_nothing() {
    let repo = Repo::new();
    repo.write("a.py", "x = 1\ny = 2\n").commit();
    let input = block("a.py", "y = 2\n", "y = 3\n");
    let (rc, _) = repo.json_stdin(&["apply", "-"], &input);
    assert_eq!(rc, 0);
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &input);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["summary"]["files_changed"], 0);
    assert_eq!(
        doc["unchanged_files"][0]["edits"][0]["matched_by"],
        "already_applied"
    );
    assert_eq!(repo.text("a.py"), "x = 1\ny = 3\n");
}

#[test]
fn every_failing_block_is_listed_and_nothing_is_written() {
    let repo = Repo::new();
    repo.write("a.txt", "alpha\n")
        .write("b.txt", "beta\n")
        .commit();
    let before = repo.tree();
    let input = [
        block("a.txt", "alpha\n", "ALPHA\n"),
        block("a.txt", "gamma\n", "G\n"),
        block("b.txt", "delta\n", "D\n"),
    ]
    .concat();
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &input);
    assert_eq!((rc, code(&doc)), (1, "anchor_missing"));
    let failures = doc["error"]["details"]["failures"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let found: Vec<(Value, Value, Value)> = failures
        .iter()
        .map(|f| {
            (
                f["path"].clone(),
                f["input_line"].clone(),
                f["next_action"].clone(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (json!("a.txt"), json!(11), json!("reread_and_retry")),
            (json!("b.txt"), json!(19), json!("reread_and_retry"))
        ]
    );
    assert_eq!(repo.tree(), before);
}

#[test]
fn from_diff_lists_candidates_that_feed_back_as_a_plan() {
    let repo = Repo::new();
    repo.write(
        "s.py",
        "class A:\n    def f():\n        return 1\n\ndef g():\n    return 2\n",
    )
    .commit();
    repo.write(
        "failed.diff",
        "--- a/s.py\n+++ b/s.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 10\n",
    );
    let (rc, doc) = repo.json(&["patch", "s.py", "--from-diff", "failed.diff"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["mode"], "failed_diff_handoff");
    assert_eq!(doc["changes"][0]["status"], "unique");
    assert_eq!(
        doc["changes"][0]["candidates"][0]["matched_by"],
        "indentation"
    );
    assert_eq!(
        repo.text("s.py"),
        "class A:\n    def f():\n        return 1\n\ndef g():\n    return 2\n"
    );
    let (rc, out) = repo.json_stdin(&["apply", "-"], &doc["plan"].to_string());
    assert_eq!(rc, 0, "{out}");
    assert_eq!(
        repo.text("s.py"),
        "class A:\n    def f():\n        return 10\n\ndef g():\n    return 2\n"
    );
}

#[test]
fn bom_empty_and_large_files() {
    let repo = Repo::new();
    repo.write("bom.txt", "\u{feff}first\r\nsecond\r\n")
        .write("empty.txt", "")
        .commit();
    let input = [
        block("bom.txt", "second\n", "2nd\n"),
        block("empty.txt", "", "filled\n"),
        block("new/made.txt", "", "made\n"),
    ]
    .concat();
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &input);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.read("bom.txt"), "\u{feff}first\r\n2nd\r\n".as_bytes());
    assert_eq!(repo.text("empty.txt"), "filled\n");
    assert_eq!(repo.text("new/made.txt"), "made\n");
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &block("bom.txt", "", "x\n"));
    assert_eq!(
        (rc, code(&doc)),
        (1, "anchor_missing"),
        "an empty SEARCH on a non-empty file is refused"
    );

    let big: String = (0..200_000)
        .map(|i| format!("let v{i} = compute({i});\n"))
        .collect();
    repo.write("big.js", &big);
    let diff = "--- a/big.js\n+++ b/big.js\n@@ -199998,3 +199998,3 @@\n let v199997 = compute(199997);\n-let v199998 = compute(199998);\n+let v199998 = compute(0);\n let v199999 = compute(199999);\n";
    let (rc, doc) = repo.json_stdin(&["apply", "-"], diff);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.read("big.js").len(), big.len() - 5);
    assert!(
        repo.text("big.js")
            .ends_with("let v199998 = compute(0);\nlet v199999 = compute(199999);\n")
    );
}

#[test]
fn a_move_keeps_the_mode_and_a_crash_in_the_middle_is_rolled_back() {
    // A crash after the last rename (before the commit point) is rolled forward instead.
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::ExitStatusExt;
    let repo = Repo::new();
    repo.write("bin/run.sh", "#!/bin/sh\necho old\n").commit();
    std::fs::set_permissions(
        repo.path().join("bin/run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    let patch = "*** Begin Patch\n*** Update File: bin/run.sh\n*** Move to: tools/run.sh\n@@\n #!/bin/sh\n-echo old\n+echo new\n*** End Patch\n";
    let before = repo.tree();
    for step in ["after_stage", "after_first_rename", "after_publish"] {
        let forward = step == "after_publish";
        let out = crate::common::run_with_stdin(
            repo.cmd()
                .args(["apply", "-"])
                .env("IDENTEDIT_FAILPOINT", step),
            patch,
        );
        assert_eq!(out.status.signal(), Some(9), "{step}");
        let (rc, doc) = repo.json(&["capabilities"]);
        assert_eq!((rc, doc.get("recovered").is_some()), (0, true), "{step}");
        let direction = if forward { "forward" } else { "back" };
        assert_eq!(doc["recovered"][0]["direction"], direction, "{step}: {doc}");
        if !forward {
            assert_eq!(
                repo.tree(),
                before,
                "{step}: both paths are back as they were"
            );
        }
    }
    assert!(!repo.exists("bin/run.sh"));
    assert_eq!(repo.text("tools/run.sh"), "#!/bin/sh\necho new\n");
    let mode = std::fs::metadata(repo.path().join("tools/run.sh"))
        .expect("meta")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o755);
}

#[test]
fn a_failed_block_names_the_tier_that_came_nearest() {
    let repo = Repo::new();
    repo.write(
        "a.py",
        "class A:\n\n    def f(self, items):\n        pass\n",
    )
    .commit();
    let input = block("a.py", "class A:\n\n    def f(self, things):\n", "X\n");
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &input);
    assert_eq!((rc, code(&doc)), (1, "anchor_missing"));
    assert_eq!(
        doc["error"]["details"]["nearest"],
        json!({"tier": "exact", "matched_lines": 2, "of": 3, "line": 1})
    );
    assert_eq!(doc["error"]["details"]["closest"][0]["line"], 1);
}

#[test]
fn a_hard_link_is_caught_also_in_a_plan_that_moves_a_file() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").write("c.txt", "c\n").commit();
    std::fs::hard_link(repo.path().join("c.txt"), repo.path().join("d.txt")).expect("link");
    let patch = "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+A\n*** Update File: c.txt\n@@\n-c\n+C\n*** Update File: d.txt\n@@\n-c\n+D\n*** End Patch\n";
    let before = repo.tree();
    let (rc, doc) = repo.json_stdin(&["apply", "-"], patch);
    assert_eq!((rc, code(&doc)), (1, "edits_overlap"), "{doc}");
    assert_eq!(repo.tree(), before);
}

/// A bare JSON list of find/replace edits (the `edits` of a plan without the envelope) is
/// detected and applied all or nothing, with the plan's checks.
#[test]
fn a_bare_edit_list_applies_like_a_plans_edits() {
    let repo = Repo::new();
    repo.write("a.py", "x = 1\ny = 2\n")
        .write("b.py", "z = 3\n")
        .commit();
    let list = r#"[{"path": "a.py", "find": "x = 1", "replace": "x = 10"},
                   {"path": "b.py", "find": "z = 3", "replace": "z = 30"}]"#;
    let (rc, doc) = repo.json_stdin(&["apply", "-"], list);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["plan"]["type"], "edit_list");
    assert_eq!(repo.text("a.py"), "x = 10\ny = 2\n");
    assert_eq!(repo.text("b.py"), "z = 30\n");
    let before = repo.tree();
    let bad = r#"[{"path": "a.py", "find": "x = 10", "replace": "x = 1"},
                  {"path": "b.py", "find": "nope", "replace": "z"}]"#;
    let (rc, doc) = repo.json_stdin(&["apply", "-"], bad);
    assert_eq!(
        (rc, crate::common::code(&doc)),
        (1, "anchor_missing"),
        "{doc}"
    );
    assert_eq!(repo.tree(), before, "all or nothing");
}
