//! `edit` / `patch FILE --find --replace`: matching, line endings, byte preservation.

use crate::common::{Repo, code, sha256_hex};

const CALC: &str = "<?php\nfunction sub($a, $b) {\n    return $a - $b;\n}\n";

fn calc_repo() -> Repo {
    let repo = Repo::new();
    repo.write("src/Calc.php", CALC).commit();
    repo
}

#[test]
fn agent_edit_documented_form_applies_one_edit() {
    let repo = calc_repo();
    let (rc, doc) = repo.json(&[
        "edit",
        "src/Calc.php",
        "--find=return $a - $b;",
        "--replace=return $a + $b;",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        repo.text("src/Calc.php"),
        CALC.replace("$a - $b", "$a + $b")
    );
    let file = &doc["changed_files"][0];
    assert_eq!(file["path"], "src/Calc.php");
    assert_eq!(file["sha256_before"], sha256_hex(CALC.as_bytes()));
    assert_eq!(file["sha256_after"], sha256_hex(&repo.read("src/Calc.php")));
    assert_eq!(file["edits"][0]["lines"][0]["old_start"], 3);
    assert_eq!(doc["dry_run"], false);
    assert_eq!(doc["ok"], true);
}

#[test]
fn patch_is_the_same_operation_and_accepts_space_separated_values() {
    let repo = calc_repo();
    let out = repo.run(&[
        "patch",
        "src/Calc.php",
        "--find",
        "return $a - $b;",
        "--replace",
        "return $b - $a;",
    ]);
    assert!(out.status.success());
    assert!(repo.text("src/Calc.php").contains("return $b - $a;"));
}

#[test]
fn values_starting_with_a_dash_are_text() {
    let repo = Repo::new();
    repo.write("a.txt", "x = -1\n").commit();
    let (rc, doc) = repo.json(&["edit", "a.txt", "--find", "-1", "--replace", "--2"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("a.txt"), "x = --2\n");
}

#[test]
fn ambiguous_find_lists_every_line_and_writes_nothing() {
    let repo = Repo::new();
    repo.write("a.txt", "x\nfoo\ny\nfoo\nfoo\n").commit();
    let (rc, doc) = repo.json(&["edit", "a.txt", "--find", "foo", "--replace", "bar"]);
    assert_eq!((rc, code(&doc)), (1, "anchor_ambiguous"));
    assert_eq!(
        doc["error"]["details"]["lines"],
        serde_json::json!([2, 4, 5])
    );
    assert_eq!(doc["error"]["next_action"], "disambiguate_anchor");
    assert_eq!(repo.text("a.txt"), "x\nfoo\ny\nfoo\nfoo\n");
}

#[test]
fn occurrence_and_all() {
    let repo = Repo::new();
    repo.write("a.txt", "foo foo foo\n").commit();
    let (rc, _) = repo.json(&[
        "edit",
        "a.txt",
        "--find",
        "foo",
        "--replace",
        "X",
        "--occurrence",
        "2",
    ]);
    assert_eq!(rc, 0);
    assert_eq!(repo.text("a.txt"), "foo X foo\n");
    let (rc, doc) = repo.json(&["edit", "a.txt", "--find", "foo", "--replace", "Y", "--all"]);
    assert_eq!(rc, 0);
    assert_eq!(repo.text("a.txt"), "Y X Y\n");
    assert_eq!(doc["changed_files"][0]["edits"][0]["replacements"], 2);
    assert_eq!(doc["summary"]["replacements"], 2);
    let (rc, doc) = repo.json(&[
        "edit",
        "a.txt",
        "--find",
        "Y",
        "--replace",
        "Z",
        "--occurrence",
        "3",
    ]);
    assert_eq!((rc, code(&doc)), (1, "anchor_missing"));
    let (rc, doc) = repo.json(&[
        "edit",
        "a.txt",
        "--find",
        "Y",
        "--replace",
        "Z",
        "--occurrence",
        "1",
        "--all",
    ]);
    assert_eq!((rc, code(&doc)), (2, "usage"));
}

#[test]
fn missing_find_names_the_whitespace_variant_closest_line_and_sha() {
    let repo = calc_repo();
    let (rc, doc) = repo.json(&[
        "edit",
        "src/Calc.php",
        "--find",
        "return $a-$b;",
        "--replace",
        "x",
    ]);
    assert_eq!((rc, code(&doc)), (1, "anchor_missing"));
    let details = &doc["error"]["details"];
    assert_eq!(details["whitespace_variant_line"], 3);
    assert_eq!(details["sha256"], sha256_hex(CALC.as_bytes()));
    assert_eq!(doc["error"]["next_action"], "reread_and_retry");
    let (_, doc) = repo.json(&[
        "edit",
        "src/Calc.php",
        "--find",
        "return $a * $b;",
        "--replace",
        "x",
    ]);
    assert_eq!(doc["error"]["details"]["closest"][0]["line"], 3);
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("line 3")
    );
}

#[test]
fn lf_find_matches_a_crlf_file_and_writes_crlf() {
    let repo = Repo::new();
    repo.write("w.txt", "one\r\ntwo\r\nthree\r\n").commit();
    let (rc, doc) = repo.json(&[
        "edit",
        "w.txt",
        "--find",
        "one\ntwo",
        "--replace",
        "1\n2\n2.5",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.read("w.txt"), b"1\r\n2\r\n2.5\r\nthree\r\n");
    assert_eq!(
        doc["changed_files"][0]["edits"][0]["matched_by"],
        "line_endings"
    );
}

#[test]
fn mixed_line_endings_are_never_converted() {
    let repo = Repo::new();
    repo.write("m.txt", "a\r\nb\nc\n").commit();
    let (rc, doc) = repo.json(&["edit", "m.txt", "--find", "a\nb", "--replace", "x"]);
    assert_eq!((rc, code(&doc)), (1, "anchor_missing"));
    assert_eq!(doc["error"]["details"]["line_endings_variant_line"], 1);
    let (rc, _) = repo.json(&["edit", "m.txt", "--find", "b\nc", "--replace", "y\nz"]);
    assert_eq!(rc, 0);
    assert_eq!(repo.read("m.txt"), b"a\r\ny\nz\n");
}

#[test]
fn bom_tabs_final_newline_and_other_bytes_are_preserved() {
    let repo = Repo::new();
    let original = "\u{feff}first\n\tkeep\ttabs  \nmiddle\nlast without newline";
    repo.write("b.txt", original).commit();
    let (rc, _) = repo.json(&["edit", "b.txt", "--find", "middle", "--replace", "MIDDLE"]);
    assert_eq!(rc, 0);
    assert_eq!(repo.text("b.txt"), original.replace("middle", "MIDDLE"));
    let (rc, _) = repo.json(&[
        "edit",
        "b.txt",
        "--find",
        "without",
        "--replace",
        "still without",
    ]);
    assert_eq!(rc, 0);
    assert!(repo.text("b.txt").ends_with("last still without newline"));
    assert!(repo.read("b.txt").starts_with(&[0xef, 0xbb, 0xbf]));
}

#[test]
fn expected_sha256_refuses_a_changed_file() {
    let repo = calc_repo();
    let stale = sha256_hex(b"something else");
    let (rc, doc) = repo.json(&[
        "edit",
        "src/Calc.php",
        "--find",
        "$a - $b",
        "--replace",
        "$a + $b",
        "--expected-sha256",
        &stale,
    ]);
    assert_eq!((rc, code(&doc)), (1, "evidence_changed"));
    assert_eq!(
        doc["error"]["details"]["actual_sha256"],
        sha256_hex(CALC.as_bytes())
    );
    let fresh = format!("sha256:{}", sha256_hex(CALC.as_bytes()));
    let (rc, _) = repo.json(&[
        "edit",
        "src/Calc.php",
        "--find",
        "$a - $b",
        "--replace",
        "$a + $b",
        "--expected-sha256",
        &fresh,
    ]);
    assert_eq!(rc, 0);
}

#[test]
fn preserves_the_file_mode() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::new();
    repo.write("run.sh", "#!/bin/sh\necho hi\n");
    let path = repo.path().join("run.sh");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let (rc, _) = repo.json(&["edit", "run.sh", "--find", "hi", "--replace", "ho"]);
    assert_eq!(rc, 0);
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o755);
}

#[test]
fn paths_are_relative_to_the_current_directory() {
    let repo = calc_repo();
    let out = repo
        .cmd()
        .current_dir(repo.path().join("src"))
        .args([
            "edit",
            "Calc.php",
            "--find",
            "$a - $b",
            "--replace",
            "$a * $b",
            "--format",
            "json",
        ])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["changed_files"][0]["path"], "src/Calc.php");
}

#[test]
fn dry_run_proves_and_writes_nothing_and_diff_is_exact() {
    let repo = calc_repo();
    let (rc, doc) = repo.json(&[
        "edit",
        "src/Calc.php",
        "--find",
        "$a - $b",
        "--replace",
        "$a + $b",
        "--dry-run",
        "--diff",
    ]);
    assert_eq!(rc, 0);
    assert_eq!(doc["dry_run"], true);
    assert_eq!(repo.text("src/Calc.php"), CALC);
    let expected = "diff --git a/src/Calc.php b/src/Calc.php\n--- a/src/Calc.php\n+++ b/src/Calc.php\n@@ -1,4 +1,4 @@\n <?php\n function sub($a, $b) {\n-    return $a - $b;\n+    return $a + $b;\n }\n";
    assert_eq!(doc["diff"], expected);
    assert!(
        !repo.path().join(".git/identedit").exists(),
        "a dry run leaves no state behind"
    );
}

#[test]
fn empty_replacement_deletes_text() {
    let repo = Repo::new();
    repo.write("a.txt", "keep\ndrop me\nkeep\n").commit();
    let (rc, doc) = repo.json(&["edit", "a.txt", "--find", "drop me\n", "--replace", ""]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("a.txt"), "keep\nkeep\n");
}
