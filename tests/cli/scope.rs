//! Scope: what may never be touched, refused with a code and nothing written.

use serde_json::json;

use crate::common::{Repo, code, plan};

fn refused(repo: &Repo, path: &str) -> (i32, String, String) {
    let body = plan(json!({"edits": [{"path": path, "find": "a", "replace": "b"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
    let reason = doc["error"]["details"]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (rc, code(&doc).to_owned(), reason)
}

#[test]
fn paths_that_leave_or_escape_the_repository_are_refused() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    let outside = tempfile::tempdir().expect("tmp");
    std::fs::write(outside.path().join("x.txt"), "a\n").expect("write");
    std::os::unix::fs::symlink(outside.path(), repo.path().join("out")).expect("symlink");
    std::os::unix::fs::symlink("a.txt", repo.path().join("link.txt")).expect("symlink");
    let before = repo.tree();
    let abs = outside.path().join("x.txt").to_string_lossy().into_owned();
    for (path, code, reason) in [
        (abs.as_str(), "path_refused", "absolute"),
        ("../a.txt", "path_refused", "outside_root"),
        ("sub/../../a.txt", "path_refused", "outside_root"),
        (".git/config", "path_refused", "git_dir"),
        ("out/x.txt", "path_refused", "symlinked_parent"),
        ("link.txt", "path_refused", "symlink"),
    ] {
        assert_eq!(
            refused(&repo, path),
            (1, code.to_owned(), reason.to_owned()),
            "{path}"
        );
    }
    assert_eq!(repo.tree(), before);
    assert_eq!(
        std::fs::read(outside.path().join("x.txt")).expect("read"),
        b"a\n"
    );
}

#[test]
fn directories_binary_and_non_utf8_files_are_refused() {
    let repo = Repo::new();
    repo.write("dir/x.txt", "a")
        .write("bin.dat", b"a\0b")
        .write("latin1.txt", b"caf\xe9 a")
        .commit();
    assert_eq!(
        refused(&repo, "dir"),
        (1, "file_unsupported".into(), "directory".into())
    );
    assert_eq!(
        refused(&repo, "bin.dat"),
        (1, "file_unsupported".into(), "binary".into())
    );
    assert_eq!(
        refused(&repo, "latin1.txt"),
        (1, "file_unsupported".into(), "not_utf8".into())
    );
}

#[test]
fn a_symlinked_parent_inside_the_repository_is_allowed() {
    let repo = Repo::new();
    repo.write("real/a.txt", "a\n").commit();
    std::os::unix::fs::symlink("real", repo.path().join("alias")).expect("symlink");
    let (rc, doc) = repo.json_stdin(
        &["apply", "-"],
        &plan(json!({"edits": [{"path": "alias/a.txt", "find": "a", "replace": "b"}]})),
    );
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("real/a.txt"), "b\n");
}

#[test]
fn outside_a_repository_edits_work_and_paths_stay_inside_the_current_directory() {
    let dir = Repo::plain();
    dir.write("a.txt", "a\n");
    let (rc, doc) = dir.json(&["edit", "a.txt", "--find", "a", "--replace", "b"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(dir.text("a.txt"), "b\n");
    let (rc, doc) = dir.json(&["edit", "../a.txt", "--find", "a", "--replace", "b"]);
    assert_eq!((rc, code(&doc)), (1, "path_refused"));
    let (rc, doc) = dir.json(&[
        "edit",
        ".identedit/locks/x",
        "--find",
        "a",
        "--replace",
        "b",
    ]);
    assert_eq!((rc, code(&doc)), (1, "path_refused"));
}

/// A path ending in `/` names a directory: refused, not silently created as a file.
#[test]
fn a_path_naming_a_directory_is_refused() {
    let repo = Repo::new();
    repo.write("a.txt", "x\n").commit();
    for path in ["new/x/", "new/.", "."] {
        let plan =
            crate::common::plan(serde_json::json!({"creates": [{"path": path, "content": "z"}]}));
        let (rc, doc) = repo.json_stdin(&["apply", "-"], &plan);
        assert_eq!(
            (rc, crate::common::code(&doc)),
            (1, "path_refused"),
            "{path}: {doc}"
        );
    }
    assert!(!repo.exists("new"));
}
