//! `hook pre-commit` in a repository of many files: directories the index's cache-tree shows
//! unchanged are skipped (proved by removing an unchanged directory's tree object: a check that
//! read it would fail), changed ones are compared entry by entry, and staged deletions,
//! renames, new directories and a file replaced by a directory come out as before.

use std::path::Path;

use serde_json::Value;

use crate::common::{Repo, code, git};

/// `dirs` x `subdirs` directories of `files` small Python files each, committed.
fn many_files(dirs: usize, subdirs: usize, files: usize) -> Repo {
    let repo = Repo::new();
    for d in 0..dirs {
        for s in 0..subdirs {
            for f in 0..files {
                let text = format!("def f_{d}_{s}_{f}(x):\n    return x + {f}\n");
                repo.write(&format!("pkg{d}/mod{s}/f{f}.py"), text);
            }
        }
    }
    repo.write("broken_in_head.py", "def g(:\n    pass\n");
    repo.commit();
    repo
}

fn pre_commit(repo: &Repo) -> (i32, Value) {
    repo.json(&["hook", "pre-commit"])
}

/// The loose object file of `id`.
fn loose(dir: &Path, id: &str) -> std::path::PathBuf {
    dir.join(".git/objects").join(&id[..2]).join(&id[2..])
}

#[test]
fn unchanged_subtrees_are_skipped_through_the_cache_tree() {
    let repo = many_files(3, 10, 10);
    let dir = repo.path();
    // The tree of pkg2/mod7 goes missing: only a walk into it could notice.
    let unchanged = git(dir, &["rev-parse", "HEAD:pkg2/mod7"]).trim().to_owned();
    std::fs::remove_file(loose(dir, &unchanged)).expect("the tree object is loose");
    repo.write("pkg0/mod3/f4.py", "def f(:\n");
    git(dir, &["add", "pkg0/mod3/f4.py"]);
    let (rc, doc) = pre_commit(&repo);
    assert_eq!(rc, 1, "{doc}");
    assert_eq!(code(&doc), "hook_refused");
    let problems = &doc["error"]["details"]["problems"];
    assert_eq!(problems.as_array().map(Vec::len), Some(1), "{doc}");
    assert_eq!(problems[0]["path"], "pkg0/mod3/f4.py");
    // A fixed file in the same subtree passes; the missing tree is still never read.
    repo.write("pkg0/mod3/f4.py", "def f():\n    return 4\n");
    git(dir, &["add", "pkg0/mod3/f4.py"]);
    let (rc, doc) = pre_commit(&repo);
    assert_eq!((rc, doc["checked"].clone()), (0, 1.into()), "{doc}");
}

#[test]
fn every_changed_subtree_is_compared_and_the_others_not_listed() {
    let repo = many_files(3, 4, 5);
    let dir = repo.path();
    repo.write("pkg0/mod1/f2.py", "def f(:\n");
    repo.write("pkg2/mod3/f0.py", "x = 1\n");
    repo.write("new/deep/n.py", "class C:\n  def m(self:\n");
    git(dir, &["add", "-A"]);
    let (rc, doc) = pre_commit(&repo);
    assert_eq!(rc, 1, "{doc}");
    let mut paths: Vec<&str> = doc["error"]["details"]["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter_map(|p| p["path"].as_str())
        .collect();
    paths.sort_unstable();
    assert_eq!(paths, ["new/deep/n.py", "pkg0/mod1/f2.py"], "{doc}");
    assert_eq!(doc["error"]["details"]["checked"], 3, "{doc}");
}

#[test]
fn staged_deletions_of_files_and_whole_directories_are_not_checked() {
    let repo = many_files(2, 3, 4);
    let dir = repo.path();
    git(dir, &["rm", "-q", "pkg0/mod1/f3.py"]);
    git(dir, &["rm", "-q", "-r", "pkg1"]);
    let (rc, doc) = pre_commit(&repo);
    assert_eq!((rc, doc["checked"].clone()), (0, 0.into()), "{doc}");
    // A file where a directory was: the directory's files are deleted, the file is checked
    // (no extension, so the residue check is the one that can refuse it).
    repo.write("pkg1", "<<<<<<< SEARCH\n");
    git(dir, &["add", "pkg1"]);
    let (rc, doc) = pre_commit(&repo);
    assert_eq!(rc, 1, "{doc}");
    assert_eq!(doc["error"]["details"]["problems"][0]["path"], "pkg1");
    assert_eq!(doc["error"]["details"]["checked"], 1, "{doc}");
}

#[test]
fn a_rename_into_another_subtree_is_judged_against_its_source() {
    let repo = many_files(2, 3, 4);
    let dir = repo.path();
    // The same single error as in HEAD, under a new name in a new directory: no regression.
    git(dir, &["mv", "broken_in_head.py", "pkg1/mod2/moved.py"]);
    let (rc, doc) = pre_commit(&repo);
    assert_eq!((rc, doc["checked"].clone()), (0, 1.into()), "{doc}");
    // A copy under a new name with no source left in HEAD's place is a new file: refused.
    git(dir, &["mv", "pkg1/mod2/moved.py", "broken_in_head.py"]);
    repo.write("pkg0/mod0/copy.py", "def g(:\n    pass\n");
    git(dir, &["add", "pkg0/mod0/copy.py"]);
    let (rc, doc) = pre_commit(&repo);
    assert_eq!(rc, 1, "{doc}");
    assert_eq!(
        doc["error"]["details"]["problems"][0]["path"],
        "pkg0/mod0/copy.py"
    );
}

#[test]
fn an_index_without_a_cache_tree_gives_the_same_verdict() {
    let repo = many_files(2, 3, 4);
    let dir = repo.path();
    repo.write("pkg1/mod0/f1.py", "def f(:\n");
    git(dir, &["add", "pkg1/mod0/f1.py"]);
    // Rebuilt from the entries alone: no cache-tree extension survives.
    let listing = git(dir, &["ls-files", "-s"]);
    std::fs::remove_file(dir.join(".git/index")).expect("index");
    let mut cmd = crate::common::command("git");
    cmd.args(["update-index", "--index-info"]).current_dir(dir);
    let out = crate::common::run_with_stdin(&mut cmd, &listing);
    assert!(out.status.success(), "{out:?}");
    let (rc, doc) = pre_commit(&repo);
    assert_eq!(rc, 1, "{doc}");
    assert_eq!(
        doc["error"]["details"]["problems"][0]["path"],
        "pkg1/mod0/f1.py"
    );
    assert_eq!(doc["error"]["details"]["checked"], 1, "{doc}");
}

/// The index read in place (versions 2 and 3) and decoded by gix (version 4, a split index)
/// give one verdict: residue allowed by the `.gitattributes` of a parent directory, a syntax
/// error, and an intent-to-add entry (version 3's extended flags) that is not a staged file.
#[test]
fn every_index_format_gives_the_same_verdict() {
    let repo = many_files(2, 3, 4);
    let dir = repo.path();
    repo.write("pkg1/.gitattributes", "*.txt identedit-allow-residue\n");
    repo.commit();
    repo.write("pkg1/mod0/f1.py", "x = 1\n");
    repo.write("pkg1/mod0/notes.txt", "<<<<<<< SEARCH\n");
    repo.write("pkg0/mod2/f3.py", "def f(:\n");
    repo.write("pkg0/new.py", "y = 2\n");
    git(dir, &["add", "pkg1/mod0", "pkg0/mod2/f3.py"]);
    git(dir, &["add", "--intent-to-add", "pkg0/new.py"]);
    for format in [
        &["--index-version", "3"][..],
        &["--index-version", "4"],
        &["--split-index"],
        &["--no-split-index", "--index-version", "2"],
    ] {
        let mut args = vec!["update-index"];
        args.extend(format);
        git(dir, &args);
        let (rc, doc) = pre_commit(&repo);
        assert_eq!(rc, 1, "{format:?}: {doc}");
        let problems = &doc["error"]["details"]["problems"];
        assert_eq!(
            problems.as_array().map(Vec::len),
            Some(1),
            "{format:?}: {doc}"
        );
        assert_eq!(
            problems[0]["check"], "syntax_regression",
            "{format:?}: {doc}"
        );
        assert_eq!(problems[0]["path"], "pkg0/mod2/f3.py", "{format:?}: {doc}");
        assert_eq!(doc["error"]["details"]["checked"], 3, "{format:?}: {doc}");
    }
}
