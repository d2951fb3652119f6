//! A large file edited again and again: each receipt after the first files its pre-image as a
//! reference to the receipt before (`prior/<path>`, `receipt::prior`) instead of a whole
//! blob; show, verify, undo and `verify --range` follow the chain, also after `git gc`, and a
//! long chain is cut by a whole pre-image.

use crate::common::{Repo, git};

/// A committed Python file of about 300 KB (over the size from which references pay).
fn large_repo() -> (Repo, String) {
    let text: String = (0..8000)
        .map(|i| format!("x{i} = \"line {i} of the large file\"\n"))
        .collect();
    let repo = Repo::new();
    repo.write("big.py", &text).commit();
    (repo, text)
}

/// Edits line `n` and returns the receipt's commit.
fn edit_line(repo: &Repo, n: usize) -> String {
    let find = format!("line {n} of the");
    let replace = format!("LINE {n} OF the");
    let (rc, doc) = repo.json(&["edit", "big.py", "--find", &find, "--replace", &replace]);
    assert_eq!(rc, 0, "{doc}");
    doc["receipt"]["commit"]
        .as_str()
        .expect("commit")
        .to_owned()
}

fn stored(repo: &Repo, commit: &str) -> Vec<String> {
    let listing = git(repo.path(), &["ls-tree", "-r", "--name-only", commit]);
    listing.lines().map(str::to_owned).collect()
}

#[test]
fn each_edit_after_the_first_refers_to_the_receipt_before() {
    let (repo, original) = large_repo();
    let lines = [100, 2000, 5000, 7900];
    let receipts: Vec<String> = lines.iter().map(|&n| edit_line(&repo, n)).collect();
    for (i, commit) in receipts.iter().enumerate().skip(1) {
        assert_eq!(
            stored(&repo, commit),
            ["input", "prior/big.py", "receipt.json", "splices/big.py"],
        );
        let reference = git(
            repo.path(),
            &["cat-file", "-p", &format!("{commit}:prior/big.py")],
        );
        let previous = &receipts[i - 1];
        assert!(
            reference.starts_with(&format!("identedit-prior/1 {previous} ")),
            "{reference}"
        );
    }
    git(repo.path(), &["gc", "-q", "--prune=now"]);
    for (commit, n) in receipts.iter().zip(lines) {
        let (rc, shown) = repo.json(&["show", commit]);
        assert_eq!(rc, 0, "{shown}");
        let diff = shown["diff"].as_str().expect("diff");
        let change = format!(
            "-x{n} = \"line {n} of the large file\"\n+x{n} = \"LINE {n} OF the large file\"\n"
        );
        assert!(diff.contains(&change), "{diff}");
    }
    // Older receipts' post-images are not in the work tree any more: only the newest verifies.
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 0, "{doc}");
    git(repo.path(), &["commit", "-q", "-am", "four edits"]);
    let (rc, doc) = repo.json(&["verify", "--range", "HEAD~1..HEAD", "--require", "all"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["summary"]["covered"], 4, "{doc}");
    git(repo.path(), &["reset", "-q", "--soft", "HEAD~1"]);
    for commit in receipts.iter().rev() {
        let (rc, doc) = repo.json(&["undo", commit]);
        assert_eq!(rc, 0, "{doc}");
    }
    assert_eq!(repo.text("big.py"), original);
}

#[test]
fn an_undo_is_stored_as_what_it_changes() {
    let (repo, original) = large_repo();
    edit_line(&repo, 10);
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    let undo = doc["receipt"]["commit"]
        .as_str()
        .expect("commit")
        .to_owned();
    assert_eq!(
        stored(&repo, &undo),
        ["input", "prior/big.py", "receipt.json", "splices/big.py"],
    );
    assert_eq!(doc["structure_changes"][0]["scope"], "region", "{doc}");
    assert_eq!(repo.text("big.py"), original);
    let (rc, doc) = repo.json(&["undo", &undo]);
    assert_eq!(rc, 0, "{doc}");
    assert!(
        repo.text("big.py")
            .contains("x10 = \"LINE 10 OF the large file\"\n")
    );
}

#[test]
fn a_long_chain_is_cut_by_a_whole_pre_image() {
    let (repo, _) = large_repo();
    let receipts: Vec<String> = (0..20).map(|i| edit_line(&repo, 300 * i + 1)).collect();
    let whole: Vec<usize> = receipts
        .iter()
        .enumerate()
        .filter(|(_, c)| stored(&repo, c).iter().any(|p| p == "before/big.py"))
        .map(|(i, _)| i)
        .collect();
    // The first receipt's pre-image is whole (or the index's blob); 16 references later the
    // next one is whole again.
    assert_eq!(whole, [0, 17], "{whole:?}");
    let (rc, shown) = repo.json(&["show", &receipts[16]]);
    assert_eq!(rc, 0, "{shown}");
    let (rc, doc) = repo.json(&["undo", &receipts[19]]);
    assert_eq!(rc, 0, "{doc}");
}

#[test]
fn the_search_passes_receipts_of_other_files_up_to_eight() {
    let (repo, _) = large_repo();
    repo.write("small.py", "a = 1\n").commit();
    let small = |i: usize| {
        let (from, to) = (format!("a = {i}"), format!("a = {}", i + 1));
        let (rc, doc) = repo.json(&["edit", "small.py", "--find", &from, "--replace", &to]);
        assert_eq!(rc, 0, "{doc}");
    };
    let first = edit_line(&repo, 100);
    (1..=7).for_each(small);
    // Seven receipts of another file lie between: the eighth newest wrote big.py.
    let second = edit_line(&repo, 200);
    assert!(stored(&repo, &second).contains(&"prior/big.py".to_owned()));
    let reference = git(
        repo.path(),
        &["cat-file", "-p", &format!("{second}:prior/big.py")],
    );
    assert!(reference.starts_with(&format!("identedit-prior/1 {first} ")));
    (8..=15).for_each(small);
    // Eight between: the writer is out of reach, and the pre-image is stored whole.
    let third = edit_line(&repo, 300);
    assert!(stored(&repo, &third).contains(&"before/big.py".to_owned()));
    let (rc, doc) = repo.json(&["undo", &third]);
    assert_eq!(rc, 0, "{doc}");
}
