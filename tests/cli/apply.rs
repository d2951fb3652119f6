//! `apply` of a source_edit_plan: several edits and files, creates, deletes, all or nothing.

use serde_json::json;

use crate::common::{Repo, code, plan, sha256_hex};

fn repo() -> Repo {
    let repo = Repo::new();
    repo.write("src/a.txt", "alpha\nbeta\ngamma\n")
        .write("src/b.txt", "one\ntwo\n")
        .commit();
    repo
}

#[test]
fn seed_example_applies_from_stdin() {
    let repo = Repo::new();
    repo.write("src/Calc.php", "<?php\nreturn $a - $b;\n")
        .commit();
    let stdin = r#"{"type":"source_edit_plan","contract_version":"1.0","target_id":"fix-add",
 "edits":[{"path":"src/Calc.php","find":"return $a - $b;","replace":"return $a + $b;"}],
 "creates":[{"path":"tests/CalcTest.php","content":"<?php\n..."}]}"#;
    let (rc, doc) = repo.json_stdin(&["apply", "-"], stdin);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("src/Calc.php"), "<?php\nreturn $a + $b;\n");
    assert_eq!(repo.text("tests/CalcTest.php"), "<?php\n...");
    assert_eq!(doc["plan"]["label"], "fix-add");
    assert_eq!(doc["summary"]["files_changed"], 2);
    let actions: Vec<_> = doc["changed_files"]
        .as_array()
        .expect("list")
        .iter()
        .map(|f| f["action"].clone())
        .collect();
    assert_eq!(actions, vec![json!("modified"), json!("created")]);
}

#[test]
fn plan_from_a_file_with_edits_creates_and_deletes() {
    let repo = repo();
    let body = plan(json!({
        "edits": [{"path": "src/a.txt", "find": "beta", "replace": "BETA"},
                  {"path": "src/a.txt", "find": "gamma", "replace": "GAMMA"}],
        "creates": [{"path": "new/dir/c.txt", "content": "c\n"}],
        "deletes": [{"path": "src/b.txt", "expected_source_sha256": sha256_hex(b"one\ntwo\n")}]
    }));
    repo.write("plan.json", &body);
    let (rc, doc) = repo.json(&["apply", "plan.json"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("src/a.txt"), "alpha\nBETA\nGAMMA\n");
    assert_eq!(repo.text("new/dir/c.txt"), "c\n");
    assert!(!repo.exists("src/b.txt"));
    let deleted = doc["changed_files"]
        .as_array()
        .expect("list")
        .iter()
        .find(|f| f["action"] == "deleted")
        .cloned();
    assert_eq!(
        deleted.map(|f| f["sha256_after"].clone()),
        Some(json!(null))
    );
}

#[test]
fn edits_resolve_against_the_file_as_read_not_each_other() {
    let repo = repo();
    let body = plan(json!({"edits": [
        {"path": "src/a.txt", "find": "alpha", "replace": "beta2"},
        {"path": "src/a.txt", "find": "beta\n", "replace": "b\n"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("src/a.txt"), "beta2\nb\ngamma\n");
}

#[test]
fn overlapping_edits_are_refused_naming_both() {
    let repo = repo();
    let body = plan(json!({"edits": [
        {"path": "src/a.txt", "find": "alpha\nbeta", "replace": "x"},
        {"path": "src/a.txt", "find": "beta\ngamma", "replace": "y"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
    assert_eq!((rc, code(&doc)), (1, "edits_overlap"));
    assert_eq!(
        doc["error"]["details"]["edits"],
        json!(["/edits/0", "/edits/1"])
    );
    assert_eq!(doc["error"]["next_action"], "merge_edits");
}

#[test]
fn one_failing_edit_leaves_every_file_untouched() {
    let repo = repo();
    let before = repo.tree();
    let body = plan(json!({
        "edits": [{"path": "src/a.txt", "find": "alpha", "replace": "A"},
                  {"path": "src/b.txt", "find": "three", "replace": "3"}],
        "creates": [{"path": "c.txt", "content": "c"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
    assert_eq!((rc, code(&doc)), (1, "anchor_missing"));
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("edits[1]")
    );
    assert_eq!(doc["error"]["details"]["pointer"], "/edits/1");
    assert_eq!(repo.tree(), before);
    assert!(!repo.path().join(".git/identedit").exists());
}

#[test]
fn create_refuses_an_existing_file_even_a_dangling_symlink() {
    let repo = repo();
    let (rc, doc) = repo.json_stdin(
        &["apply", "-"],
        &plan(json!({"creates": [{"path": "src/a.txt", "content": "x"}]})),
    );
    assert_eq!((rc, code(&doc)), (1, "target_exists"));
    std::os::unix::fs::symlink("nowhere", repo.path().join("dangling")).expect("symlink");
    let (rc, doc) = repo.json_stdin(
        &["apply", "-"],
        &plan(json!({"creates": [{"path": "dangling", "content": "x"}]})),
    );
    assert_eq!((rc, code(&doc)), (1, "target_exists"));
}

#[test]
fn missing_files_and_plans_are_input_not_found() {
    let repo = repo();
    let (rc, doc) = repo.json_stdin(
        &["apply", "-"],
        &plan(json!({"deletes": [{"path": "nope.txt"}]})),
    );
    assert_eq!((rc, code(&doc)), (1, "input_not_found"));
    let (rc, doc) = repo.json_stdin(
        &["apply", "-"],
        &plan(json!({"edits": [{"path": "nope.txt", "find": "a", "replace": "b"}]})),
    );
    assert_eq!((rc, code(&doc)), (1, "input_not_found"));
    let (rc, doc) = repo.json(&["apply", "missing-plan.json"]);
    assert_eq!((rc, code(&doc)), (1, "input_not_found"));
    assert_eq!(doc["error"]["next_action"], "provide_input");
}

#[test]
fn contract_violations_are_refused_before_reading_sources() {
    let repo = repo();
    // The edit names a missing file: a contract error must win over input_not_found.
    let cases = [
        (
            r#"{"type":"source_edit_plan","contract_version":"9.9","edits":[{"path":"missing","find":"a","replace":"b"}]}"#,
            "plan_unsupported",
        ),
        (
            r#"{"type":"other_plan","contract_version":"1.0","edits":[{"path":"missing","find":"a","replace":"b"}]}"#,
            "plan_unsupported",
        ),
        (
            r#"{"type":"source_edit_plan","contract_version":"1.0","edits":[{"path":"missing","find":"a","replace":"b","extra":1}]}"#,
            "plan_malformed",
        ),
        (
            r#"{"type":"source_edit_plan","contract_version":"1.0","bogus":[],"edits":[{"path":"missing","find":"a","replace":"b"}]}"#,
            "plan_malformed",
        ),
        (
            r#"{"type":"source_edit_plan","contract_version":"1.0","edits":[{"path":"missing","find":"","replace":"b"}]}"#,
            "plan_malformed",
        ),
        (
            r#"{"type":"source_edit_plan","contract_version":"1.0","edits":[{"path":"missing","find":"a","replace":"b","occurrence":0}]}"#,
            "plan_malformed",
        ),
        (
            r#"{"type":"source_edit_plan","contract_version":"1.0","edits":[{"path":"missing","find":"a","replace":"b","expected_source_sha256":"xyz"}]}"#,
            "plan_malformed",
        ),
        (
            r#"{"type":"source_edit_plan","contract_version":"1.0"}"#,
            "plan_malformed",
        ),
        ("not json", "plan_malformed"),
    ];
    for (input, expected) in cases {
        let (rc, doc) = repo.json_stdin(&["apply", "-"], input);
        assert_eq!((rc, code(&doc)), (2, expected), "{input}");
        assert_eq!(doc["error"]["next_action"], "replan");
    }
}

#[test]
fn a_file_both_created_and_edited_is_refused() {
    let repo = repo();
    let body = plan(json!({
        "edits": [{"path": "src/a.txt", "find": "alpha", "replace": "A"}],
        "deletes": [{"path": "src/a.txt"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
    assert_eq!((rc, code(&doc)), (1, "edits_overlap"));
    assert_eq!(repo.text("src/a.txt"), "alpha\nbeta\ngamma\n");
}

#[test]
fn a_hard_link_named_twice_is_refused() {
    let repo = repo();
    std::fs::hard_link(repo.path().join("src/a.txt"), repo.path().join("link.txt")).expect("link");
    let body = plan(json!({"edits": [
        {"path": "src/a.txt", "find": "alpha", "replace": "A"},
        {"path": "link.txt", "find": "gamma", "replace": "G"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
    assert_eq!((rc, code(&doc)), (1, "edits_overlap"), "{doc}");
}

#[test]
fn an_edit_that_changes_nothing_writes_nothing() {
    let repo = repo();
    let body = plan(json!({"edits": [{"path": "src/a.txt", "find": "beta", "replace": "beta"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["summary"]["files_changed"], 0);
    assert_eq!(doc["unchanged_files"][0]["path"], "src/a.txt");
}

#[test]
fn task_label_and_input_hash_are_reported() {
    let repo = repo();
    let body = plan(json!({"edits": [{"path": "src/a.txt", "find": "beta", "replace": "b"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-", "--task", "T1"], &body);
    assert_eq!(rc, 0);
    assert_eq!(doc["plan"]["label"], "T1");
    assert_eq!(doc["plan"]["sha256"], sha256_hex(body.as_bytes()));
}

#[test]
fn diff_covers_created_and_deleted_files_and_git_apply_accepts_it() {
    let repo = repo();
    let body = plan(json!({
        "edits": [{"path": "src/a.txt", "find": "gamma\n", "replace": "gamma\ndelta"}],
        "creates": [{"path": "c.txt", "content": "new\nfile\n"}],
        "deletes": [{"path": "src/b.txt"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-", "--dry-run", "--diff"], &body);
    assert_eq!(rc, 0, "{doc}");
    let diff = doc["diff"].as_str().expect("diff").to_owned();
    assert!(
        diff.contains("--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1,2 @@\n+new\n+file\n"),
        "{diff}"
    );
    assert!(
        diff.contains("--- a/src/b.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n"),
        "{diff}"
    );
    assert!(
        diff.contains("+delta\n\\ No newline at end of file\n"),
        "{diff}"
    );
    repo.write("../change.diff", &diff);
    crate::common::git(repo.path(), &["apply", "../change.diff"]);
    assert_eq!(repo.text("src/a.txt"), "alpha\nbeta\ngamma\ndelta");
    assert_eq!(repo.text("c.txt"), "new\nfile\n");
}

/// A plan of more files than the calling thread prepares alone (16) runs on the workers; its
/// report is built after the images are let go, from what the engine kept: the digests, the
/// diff built before, the 16 locations shown and the count of the rest.
#[test]
fn a_many_file_plan_reports_every_file_from_what_the_engine_kept() {
    let repo = Repo::new();
    let file = |i: usize| format!("def f{i}(x):\n    return x + {i}\n");
    let mut edits = Vec::new();
    for i in 0..20 {
        repo.write(&format!("m{i:02}.py"), file(i));
        edits.push(json!({"path": format!("m{i:02}.py"), "find": format!("x + {i}"), "replace": format!("x - {i}")}));
    }
    repo.commit();
    repo.write("plan.json", plan(json!({"edits": edits})));
    let (rc, doc) = repo.json(&["apply", "plan.json"]);
    assert_eq!(rc, 0, "{doc}");
    let changed = doc["changed_files"].as_array().expect("list");
    assert_eq!(changed.len(), 20);
    for (i, entry) in changed.iter().enumerate() {
        let path = format!("m{i:02}.py");
        let after = file(i).replace('+', "-");
        assert_eq!(repo.text(&path), after);
        assert_eq!(entry["path"], path.as_str());
        assert_eq!(entry["sha256_before"], sha256_hex(file(i).as_bytes()));
        assert_eq!(entry["sha256_after"], sha256_hex(after.as_bytes()));
    }
    let diff = doc["diff"]["text"].as_str().expect("diff text");
    assert_eq!(diff.matches("+++ b/").count(), 20, "{diff}");
    assert!(
        diff.contains("-    return x + 19\n+    return x - 19\n"),
        "{diff}"
    );
    let locations = doc["locations"].as_array().expect("list");
    assert_eq!(locations.len(), 16);
    assert_eq!(locations[15]["path"], "m15.py");
    assert_eq!(locations[15]["start_line"], 2);
    assert_eq!(doc["locations_omitted"], 4);
    assert_eq!(doc["structure_changes"].as_array().map(Vec::len), Some(20));
}

/// A plan of many files holds each post-image as the new text of its changed ranges
/// (`change::PostImage::Spliced`) and each pre-image of more than a few hundred bytes
/// compressed (`workspace::image::Image::Packed`): the files, the receipt, `verify` and `undo`
/// all see the whole bytes, with several edits per file, a CRLF file, one that shrinks and one
/// that grows.
#[test]
fn a_many_file_plan_writes_records_and_undoes_every_byte() {
    let repo = Repo::new();
    let file = |i: usize| match i % 3 {
        0 => format!(
            "a = {i}\r\n{}c = {i}\r\n",
            format!("b = {i}\r\n").repeat(i * 20)
        ),
        1 => format!("head\n{}tail {i}\n", "mid\n".repeat(i * 40)),
        _ => format!("x{i}\n{}z{i}", format!("y{i}\n").repeat(i * 30)),
    };
    let mut edits = Vec::new();
    for i in 0..24 {
        let path = format!("f{i:02}.txt");
        repo.write(&path, file(i));
        let (first, second) = match i % 3 {
            0 => (format!("a = {i}"), format!("c = {i}\r\n")),
            1 => ("head\n".to_owned(), format!("tail {i}\n")),
            _ => (format!("x{i}\n"), format!("z{i}")),
        };
        edits.push(json!({"path": path, "find": first, "replace": format!("[{i}]")}));
        edits.push(json!({"path": path, "find": second, "replace": "end\nmore\n"}));
    }
    repo.commit();
    repo.write("plan.json", plan(json!({"edits": edits})));
    let (rc, doc) = repo.json(&["apply", "plan.json"]);
    assert_eq!(rc, 0, "{doc}");
    let edited = |i: usize| match i % 3 {
        0 => format!(
            "[{i}]\r\n{}end\r\nmore\r\n",
            format!("b = {i}\r\n").repeat(i * 20)
        ),
        1 => format!("[{i}]{}end\nmore\n", "mid\n".repeat(i * 40)),
        _ => format!("[{i}]{}end\nmore\n", format!("y{i}\n").repeat(i * 30)),
    };
    for i in 0..24 {
        assert_eq!(repo.text(&format!("f{i:02}.txt")), edited(i), "f{i:02}.txt");
    }
    let (rc, verified) = repo.json(&["verify"]);
    assert_eq!(rc, 0, "{verified}");
    let (rc, undone) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{undone}");
    for i in 0..24 {
        assert_eq!(repo.text(&format!("f{i:02}.txt")), file(i), "f{i:02}.txt");
    }
}
