//! Many processes editing one file: no update is lost, none overwrites silently.

use std::process::{Child, Stdio};

use crate::common::{Repo, code, sha256_hex};

fn spawn(repo: &Repo, args: &[String]) -> Child {
    repo.cmd()
        .args(args)
        .args(["--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

fn finish(child: Child) -> (i32, serde_json::Value) {
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        crate::common::parse_one_document(&out),
    )
}

#[test]
fn concurrent_edits_of_different_lines_all_land() {
    let repo = Repo::new();
    let n = 24;
    let original: String = (0..n).map(|i| format!("slot{i} = 0\n")).collect();
    repo.write("f.txt", &original).commit();
    let children: Vec<Child> = (0..n)
        .map(|i| {
            let args = [
                "edit",
                "f.txt",
                "--find",
                &format!("slot{i} = 0\n"),
                "--replace",
                &format!("slot{i} = 1\n"),
            ];
            spawn(&repo, &args.map(String::from))
        })
        .collect();
    for child in children {
        let (rc, doc) = finish(child);
        assert_eq!(rc, 0, "{doc}");
    }
    let expected: String = (0..n).map(|i| format!("slot{i} = 1\n")).collect();
    assert_eq!(repo.text("f.txt"), expected);
    assert!(repo.temp_files().is_empty());
}

#[test]
fn concurrent_identical_edits_apply_once_and_the_rest_are_refused() {
    let repo = Repo::new();
    repo.write("f.txt", "counter = 0\n").commit();
    let children: Vec<Child> = (0..16)
        .map(|_| {
            spawn(
                &repo,
                &[
                    "edit",
                    "f.txt",
                    "--find",
                    "counter = 0",
                    "--replace",
                    "counter = 1",
                ]
                .map(String::from),
            )
        })
        .collect();
    let results: Vec<_> = children.into_iter().map(finish).collect();
    assert_eq!(results.iter().filter(|(rc, _)| *rc == 0).count(), 1);
    assert!(
        results
            .iter()
            .filter(|(rc, _)| *rc != 0)
            .all(|(rc, doc)| *rc == 1 && code(doc) == "anchor_missing")
    );
    assert_eq!(repo.text("f.txt"), "counter = 1\n");
}

#[test]
fn concurrent_edits_bound_to_the_same_read_cannot_both_land() {
    let repo = Repo::new();
    let original: String = (0..12).map(|i| format!("v{i}\n")).collect();
    repo.write("f.txt", &original).commit();
    let sha = sha256_hex(original.as_bytes());
    let children: Vec<Child> = (0..12)
        .map(|i| {
            spawn(
                &repo,
                &[
                    "edit",
                    "f.txt",
                    "--find",
                    &format!("v{i}\n"),
                    "--replace",
                    &format!("w{i}\n"),
                    "--expected-sha256",
                    &sha,
                ]
                .map(String::from),
            )
        })
        .collect();
    let results: Vec<_> = children.into_iter().map(finish).collect();
    assert_eq!(
        results.iter().filter(|(rc, _)| *rc == 0).count(),
        1,
        "{results:?}"
    );
    assert!(
        results
            .iter()
            .filter(|(rc, _)| *rc != 0)
            .all(|(_, doc)| code(doc) == "evidence_changed")
    );
    assert_eq!(repo.text("f.txt").matches('w').count(), 1);
}

#[test]
fn a_held_lock_makes_the_edit_wait_then_report_busy() {
    let repo = Repo::new();
    repo.write("f.txt", "a\n").commit();
    // Locks are keyed by the file's real path, in the common git directory.
    let (lock, _) = crate::rebase::hold(&repo.path().join(".git"), repo.path(), "f.txt");
    let out = repo
        .cmd()
        .args([
            "edit",
            "f.txt",
            "--find",
            "a",
            "--replace",
            "b",
            "--format",
            "json",
        ])
        .env("IDENTEDIT_LOCK_TIMEOUT_MS", "300")
        .output()
        .expect("run");
    let doc = crate::common::parse_one_document(&out);
    assert_eq!((out.status.code(), code(&doc)), (Some(4), "resource_busy"));
    assert_eq!(repo.text("f.txt"), "a\n");
    drop(lock);
    let (rc, _) = repo.json(&["edit", "f.txt", "--find", "a", "--replace", "b"]);
    assert_eq!(rc, 0);
}
