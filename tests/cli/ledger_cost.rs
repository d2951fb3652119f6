//! What the ledger stores costs what the edit costs: a pre-image clean against the index is
//! filed by the index's blob id, a modified file's post-image is stored as its splices; show,
//! verify and undo rebuild and check the bytes, also after `git gc`, and receipts written
//! before (every post-image a whole `after/<path>` blob) still show, verify and undo.

use crate::common::{Repo, command, git};

/// A committed 4,000-line file, left alone long enough that its index entry is trusted.
fn big_repo() -> (Repo, String) {
    let text: String = (0..4000)
        .map(|i| format!("line {i} of the file\n"))
        .collect();
    let repo = Repo::new();
    repo.write("big.txt", &text).commit();
    std::thread::sleep(std::time::Duration::from_millis(2100));
    git(repo.path(), &["update-index", "--really-refresh"]);
    (repo, text)
}

fn edit_near_the_end(repo: &Repo) -> String {
    let (rc, doc) = repo.json(&[
        "edit",
        "big.txt",
        "--find",
        "line 3998 of",
        "--replace",
        "LINE 3998 OF",
    ]);
    assert_eq!(rc, 0, "{doc}");
    doc["receipt"]["commit"]
        .as_str()
        .expect("commit")
        .to_owned()
}

fn entries(repo: &Repo, commit: &str) -> String {
    git(repo.path(), &["ls-tree", "-r", commit])
}

fn shows_verifies_and_undoes(repo: &Repo, original: &str) {
    let (rc, shown) = repo.json(&["show"]);
    assert_eq!(rc, 0, "{shown}");
    let diff = shown["diff"].as_str().expect("diff");
    assert!(
        diff.contains("-line 3998 of the file\n+LINE 3998 OF the file\n"),
        "{diff}"
    );
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 0, "{doc}");
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("big.txt"), original);
}

#[test]
fn a_large_edit_is_stored_as_splices_on_the_index_blob_and_survives_gc() {
    let (repo, original) = big_repo();
    let commit = edit_near_the_end(&repo);
    let tree = entries(&repo, &commit);
    let indexed = git(repo.path(), &["rev-parse", ":big.txt"]);
    assert!(
        tree.contains(&format!("blob {}\tbefore/big.txt", indexed.trim())),
        "{tree}"
    );
    assert!(tree.contains("\tsplices/big.txt"), "{tree}");
    assert!(!tree.contains("\tafter/big.txt"), "{tree}");
    let stored = git(repo.path(), &["show", &format!("{commit}:splices/big.txt")]);
    assert!(stored.len() < 100, "splices, not the file: {stored:?}");
    // The receipt still names the post-image's blob id (the post-commit note compares it).
    let (_, shown) = repo.json(&["show"]);
    let blob_after = shown["receipt"]["files"][0]["blob_after"]
        .as_str()
        .expect("id");
    let hashed = command("git")
        .args(["hash-object", "big.txt"])
        .current_dir(repo.path())
        .output()
        .expect("git hash-object");
    assert_eq!(String::from_utf8_lossy(&hashed.stdout).trim(), blob_after);
    git(repo.path(), &["gc", "--prune=now", "--quiet"]);
    shows_verifies_and_undoes(&repo, &original);
    crate::ledger::fsck_clean(&repo);
}

/// Runs git plumbing in `repo` on the side index `index`; its trimmed output.
fn plumbing(repo: &Repo, index: &std::path::Path, args: &[&str]) -> String {
    let out = command("git")
        .args(args)
        .env("GIT_INDEX_FILE", index)
        .current_dir(repo.path())
        .output()
        .expect("git runs");
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Rewrites the newest receipt as the code before the splice format wrote it: the post-image
/// a whole `after/<path>` blob, no `splices/`.
fn rewrite_in_the_old_format(repo: &Repo, commit: &str) {
    let blob = git(repo.path(), &["hash-object", "-w", "big.txt"]);
    let index = repo.path().join(".git").join("old-format-index");
    let plumbing = |args: &[&str]| plumbing(repo, &index, args);
    plumbing(&["read-tree", commit]);
    plumbing(&["update-index", "--force-remove", "splices/big.txt"]);
    let info = format!("100644,{},after/big.txt", blob.trim());
    plumbing(&["update-index", "--add", "--cacheinfo", &info]);
    let tree = plumbing(&["write-tree"]);
    let message = git(repo.path(), &["log", "-1", "--format=%B", commit]);
    let old = plumbing(&["commit-tree", &tree, "-m", message.trim()]);
    let label = git(
        repo.path(),
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/identedit/receipts/",
        ],
    );
    git(repo.path(), &["update-ref", "refs/identedit/log", &old]);
    git(repo.path(), &["update-ref", label.trim(), &old]);
    let _ = std::fs::remove_file(&index);
}

#[test]
fn a_receipt_written_before_the_splice_format_still_shows_verifies_and_undoes() {
    let (repo, original) = big_repo();
    let commit = edit_near_the_end(&repo);
    rewrite_in_the_old_format(&repo, &commit);
    let now = git(repo.path(), &["rev-parse", "refs/identedit/log"]);
    let tree = entries(&repo, now.trim());
    assert!(
        tree.contains("\tafter/big.txt") && !tree.contains("splices/"),
        "{tree}"
    );
    shows_verifies_and_undoes(&repo, &original);
}

#[test]
fn a_pre_image_that_is_not_the_recorded_one_is_not_restored() {
    // A receipt whose pre-image blob is not the bytes its sha256 names (as a filed index
    // blob would be if a conversion kept the size) is refused by undo, never restored.
    let (repo, _) = big_repo();
    let commit = edit_near_the_end(&repo);
    let index = repo.path().join(".git").join("tamper-index");
    let plumbing = |args: &[&str]| plumbing(&repo, &index, args);
    plumbing(&["read-tree", &commit]);
    let tampered = command("git")
        .args(["hash-object", "-w", "--stdin"])
        .current_dir(repo.path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("git hash-object");
    let empty = String::from_utf8_lossy(&tampered.stdout).trim().to_owned();
    plumbing(&[
        "update-index",
        "--cacheinfo",
        &format!("100644,{empty},before/big.txt"),
    ]);
    let tree = plumbing(&["write-tree"]);
    let forged = plumbing(&["commit-tree", &tree, "-m", "forged"]);
    git(repo.path(), &["update-ref", "refs/identedit/log", &forged]);
    let after = repo.text("big.txt");
    let (rc, doc) = repo.json(&["undo"]);
    assert_ne!(rc, 0, "{doc}");
    assert_eq!(repo.text("big.txt"), after, "nothing written");
}

/// A post-image of a megabyte or more is hashed on another core while it is published; the
/// receipt names the same blob id git computes, for a first and a second edit.
#[test]
fn a_large_post_images_blob_id_is_the_one_git_computes() {
    let text: String = (0..60_000)
        .map(|i| format!("entry {i} of many\n"))
        .collect();
    assert!(text.len() > 1 << 20);
    let repo = Repo::new();
    repo.write("large.txt", &text).commit();
    for (find, replace) in [
        ("entry 59990 of", "ENTRY 59990 of"),
        ("entry 7 of", "ENTRY 7 of"),
    ] {
        let (rc, doc) = repo.json(&["edit", "large.txt", "--find", find, "--replace", replace]);
        assert_eq!(rc, 0, "{doc}");
        let (_, shown) = repo.json(&["show"]);
        let blob_after = shown["receipt"]["files"][0]["blob_after"]
            .as_str()
            .expect("id")
            .to_owned();
        let hashed = git(repo.path(), &["hash-object", "large.txt"]);
        assert_eq!(hashed.trim(), blob_after);
        let (rc, doc) = repo.json(&["verify"]);
        assert_eq!(rc, 0, "{doc}");
    }
}

/// A pre-image of a megabyte or more that nothing holds yet (changed by hand since the
/// commit) is written whole while the files are published: the receipt files it under
/// `before/` by the id git computes, and undo restores those bytes.
#[test]
fn a_large_dirty_pre_image_is_written_beside_the_publish() {
    let text: String = (0..60_000)
        .map(|i| format!("entry {i} of many\n"))
        .collect();
    let repo = Repo::new();
    repo.write("large.txt", &text).commit();
    let dirty = text.replacen("entry 3 of", "hand-edited 3 of", 1);
    repo.write("large.txt", &dirty);
    let expected = git(repo.path(), &["hash-object", "large.txt"]);
    let (rc, doc) = repo.json(&[
        "edit",
        "large.txt",
        "--find",
        "entry 59990 of",
        "--replace",
        "ENTRY 59990 of",
    ]);
    assert_eq!(rc, 0, "{doc}");
    let commit = doc["receipt"]["commit"].as_str().expect("commit");
    let stored = git(
        repo.path(),
        &["rev-parse", &format!("{commit}:before/large.txt")],
    );
    assert_eq!(stored.trim(), expected.trim());
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("large.txt"), dirty);
}

/// A receipt of many files stores its objects as one pack (loose objects cost a file each):
/// git reads it (`fsck`, `verify-pack`, `show` of an image), and the receipt shows, verifies
/// and undoes, before and after `git gc`. A one-file receipt stays loose.
#[test]
fn a_receipt_of_many_files_is_one_pack_that_git_reads() {
    let repo = Repo::new();
    for i in 0..24 {
        repo.write(
            &format!("d{}/e{}/f{i}.txt", i % 4, i % 3),
            format!("old {i}\n"),
        );
    }
    repo.write("one.txt", "one\n").commit();
    let packs = |repo: &Repo| -> Vec<String> {
        let dir = repo.path().join(".git/objects/pack");
        let names = std::fs::read_dir(dir).map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect()
        });
        names.unwrap_or_default()
    };
    let (rc, doc) = repo.json(&["edit", "one.txt", "--find", "one", "--replace", "ONE"]);
    assert_eq!(rc, 0, "{doc}");
    assert!(packs(&repo).is_empty(), "{:?}", packs(&repo));
    let edits: Vec<_> = (0..24)
        .map(|i| serde_json::json!({"path": format!("d{}/e{}/f{i}.txt", i % 4, i % 3), "find": "old", "replace": "new"}))
        .collect();
    let body = crate::common::plan(serde_json::json!({ "edits": edits }));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
    assert_eq!(rc, 0, "{doc}");
    let commit = doc["receipt"]["commit"]
        .as_str()
        .expect("commit")
        .to_owned();
    let written = packs(&repo);
    assert_eq!(written.len(), 2, "one pack and its index: {written:?}");
    let idx = written.iter().find(|n| n.ends_with(".idx")).expect("idx");
    let listed = git(
        repo.path(),
        &["verify-pack", "-v", &format!(".git/objects/pack/{idx}")],
    );
    assert!(
        listed.contains(" blob ") && listed.contains(" tree "),
        "{listed}"
    );
    crate::ledger::fsck_clean(&repo);
    let image = git(
        repo.path(),
        &["show", &format!("{commit}:before/d1/e1/f1.txt")],
    );
    assert_eq!(image, "old 1\n");
    let check = |repo: &Repo| {
        let (rc, doc) = repo.json(&["verify"]);
        assert_eq!(rc, 0, "{doc}");
        let (rc, shown) = repo.json(&["show"]);
        assert_eq!(rc, 0, "{shown}");
        assert!(shown["diff"].as_str().expect("diff").contains("+new 5\n"));
    };
    check(&repo);
    git(repo.path(), &["gc", "--prune=now", "--quiet"]);
    check(&repo);
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("d2/e2/f14.txt"), "old 14\n");
}

/// A one-file receipt's objects are loose, deflated at `core.looseCompression` (else
/// `core.compression`, else level 1, git's own default for loose objects): the zlib header
/// names the level, and git reads every object.
#[test]
fn loose_receipt_objects_follow_the_configured_compression() {
    let repo = Repo::new();
    repo.write("a.txt", "one\n").commit();
    let loose_header = |setting: Option<(&str, &str)>, text: &str| {
        if let Some((key, value)) = setting {
            git(repo.path(), &["config", key, value]);
        }
        let (rc, doc) = repo.json(&["edit", "a.txt", "--find", "\n", "--replace", text]);
        assert_eq!(rc, 0, "{doc}");
        let commit = doc["receipt"]["commit"]
            .as_str()
            .expect("commit")
            .to_owned();
        let file = repo
            .path()
            .join(".git/objects")
            .join(&commit[..2])
            .join(&commit[2..]);
        let bytes = std::fs::read(&file).expect("the receipt commit is loose");
        assert_eq!(
            git(repo.path(), &["cat-file", "-t", &commit]).trim(),
            "commit"
        );
        (bytes[0], bytes[1])
    };
    assert_eq!(
        loose_header(None, " two\n"),
        (0x78, 0x01),
        "default: fastest"
    );
    let best = loose_header(Some(("core.compression", "9")), " three\n");
    assert_eq!(best, (0x78, 0xda), "core.compression 9");
    let loose = loose_header(Some(("core.looseCompression", "1")), " four\n");
    assert_eq!(loose, (0x78, 0x01), "core.looseCompression wins");
    crate::ledger::fsck_clean(&repo);
}
