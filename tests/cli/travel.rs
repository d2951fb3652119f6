//! Receipts travel: a bare repository as the remote and two clones exchanging receipts and
//! notes with `git identedit push` / `fetch` and `remote setup`; notes survive amend and rebase.

use crate::common::{Repo, command, git};

/// A clone of `bare` as a [`Repo`] with the hooks installed.
fn clone(bare: &std::path::Path) -> Repo {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = bare.to_str().expect("utf8");
    git(dir.path(), &["clone", "-q", url, "."]);
    let repo = Repo { dir };
    let (rc, _) = repo.json(&["hook", "install"]);
    assert_eq!(rc, 0);
    repo
}

/// A bare remote holding one commit with `a.txt` and `b.txt`.
fn remote() -> tempfile::TempDir {
    let bare = tempfile::tempdir().expect("temp dir");
    git(bare.path(), &["init", "-q", "--bare", "-b", "main"]);
    let seed = Repo::new();
    seed.write("a.txt", "alpha\n")
        .write("b.txt", "beta\n")
        .commit();
    let url = bare.path().to_str().expect("utf8");
    git(seed.path(), &["push", "-q", url, "main"]);
    bare
}

/// Edits `file` (`from` → `to`), commits it and returns the receipt's label.
fn edit_and_commit(repo: &Repo, file: &str, from: &str, to: &str) -> String {
    let (rc, doc) = repo.json(&["edit", file, "--find", from, "--replace", to]);
    assert_eq!(rc, 0, "{doc}");
    git(
        repo.path(),
        &["commit", "-q", "-am", &format!("edit {file}")],
    );
    doc["receipt"]["label"].as_str().expect("label").to_owned()
}

fn ok(repo: &Repo, args: &[&str]) -> serde_json::Value {
    let (rc, doc) = repo.json(args);
    assert_eq!(rc, 0, "{args:?}: {doc}");
    doc
}

fn fsck(dir: &std::path::Path) {
    let out = command("git")
        .args(["fsck", "--no-dangling"])
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn receipts_and_notes_round_trip_between_two_clones() {
    let bare = remote();
    let (a, b) = (clone(bare.path()), clone(bare.path()));
    let label_a = edit_and_commit(&a, "a.txt", "alpha", "ALPHA");
    let commit_a = git(a.path(), &["rev-parse", "HEAD"]).trim().to_owned();
    ok(&a, &["push"]);
    git(a.path(), &["push", "-q", "origin", "main"]);

    git(b.path(), &["pull", "-q", "--ff-only", "origin", "main"]);
    let label_b = edit_and_commit(&b, "b.txt", "beta", "BETA");
    let commit_b = git(b.path(), &["rev-parse", "HEAD"]).trim().to_owned();
    // B's notes and A's pushed notes diverged: push merges them before sending.
    ok(&b, &["push"]);
    git(b.path(), &["push", "-q", "origin", "main"]);

    git(a.path(), &["pull", "-q", "--ff-only", "origin", "main"]);
    let fetched = ok(&a, &["fetch"]);
    assert_eq!(
        fetched["logs"].as_array().map(Vec::len),
        Some(2),
        "{fetched}"
    );

    // Every receipt is in both clones' notes.
    for repo in [&a, &b] {
        let listed = git(repo.path(), &["notes", "--ref=identedit", "list"]);
        assert!(
            listed.contains(&commit_a) && listed.contains(&commit_b),
            "{listed}"
        );
    }
    let log = git(a.path(), &["log", "-2", "--notes=identedit"]);
    assert_eq!(log.matches("Notes (identedit):").count(), 2, "{log}");
    let note_b = git(a.path(), &["notes", "--ref=identedit", "show", &commit_b]);
    assert!(!note_b.trim().is_empty());

    // A verifies and shows B's receipt, which it only has from the remote.
    let verified = ok(&a, &["verify", &label_b]);
    assert_eq!(verified["status"], "passed", "{verified}");
    ok(&a, &["show", &label_b]);
    ok(&b, &["fetch"]);
    assert_eq!(ok(&b, &["verify", &label_a])["status"], "passed");

    // Two clones, two logs on the remote, neither overwritten.
    let logs = git(
        bare.path(),
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/identedit/clones/",
        ],
    );
    let log_refs: Vec<&str> = logs.lines().filter(|l| l.ends_with("/log")).collect();
    assert_eq!(log_refs.len(), 2, "{logs}");
    for dir in [a.path(), b.path(), bare.path()] {
        fsck(dir);
    }
}

#[test]
fn remote_setup_lets_plain_git_push_and_fetch_carry_receipts() {
    let bare = remote();
    let (a, b) = (clone(bare.path()), clone(bare.path()));
    let setup = ok(&a, &["remote", "setup"]);
    assert_eq!(setup["push"][0], "HEAD", "{setup}");
    // Idempotent: a second setup adds nothing.
    let again = ok(&a, &["remote", "setup"]);
    assert_eq!(again["push"].as_array().map(Vec::len), Some(0), "{again}");
    let label = edit_and_commit(&a, "a.txt", "alpha", "ALPHA");
    git(a.path(), &["push", "-q"]);
    let remote_main = git(bare.path(), &["rev-parse", "main"]);
    assert_eq!(remote_main, git(a.path(), &["rev-parse", "HEAD"]));

    ok(&b, &["remote", "setup"]);
    git(b.path(), &["pull", "-q", "--ff-only"]);
    let tracked = git(
        b.path(),
        &[
            "for-each-ref",
            "refs/identedit/remotes/origin/",
            "refs/notes/remotes/origin/",
        ],
    );
    assert!(
        tracked.contains("/log") && tracked.contains("identedit"),
        "{tracked}"
    );
    assert_eq!(ok(&b, &["verify", &label])["status"], "passed");
    assert_eq!(
        git(b.path(), &["config", "notes.identedit.mergeStrategy"]).trim(),
        "cat_sort_uniq"
    );
}

#[test]
fn notes_follow_amend_and_rebase() {
    let repo = Repo::new();
    repo.write("a.txt", "alpha\n")
        .write("b.txt", "beta\n")
        .commit();
    ok(&repo, &["hook", "install"]);
    assert_eq!(
        git(repo.path(), &["config", "--get-all", "notes.rewriteRef"]).trim(),
        "refs/notes/identedit"
    );
    let label = edit_and_commit(&repo, "a.txt", "alpha", "ALPHA");
    let note = |rev: &str| git(repo.path(), &["notes", "--ref=identedit", "show", rev]);
    let before = note("HEAD");
    assert!(!before.trim().is_empty());

    git(repo.path(), &["commit", "-q", "--amend", "-m", "amended"]);
    assert_eq!(note("HEAD"), before);

    // Rebase the edit onto a new commit of main.
    git(repo.path(), &["checkout", "-q", "-b", "topic"]);
    git(repo.path(), &["checkout", "-q", "main"]);
    git(repo.path(), &["reset", "-q", "--hard", "HEAD~1"]);
    repo.write("c.txt", "gamma\n");
    git(repo.path(), &["add", "c.txt"]);
    git(repo.path(), &["commit", "-q", "-m", "other"]);
    git(repo.path(), &["checkout", "-q", "topic"]);
    let old = git(repo.path(), &["rev-parse", "HEAD"]);
    git(repo.path(), &["rebase", "-q", "main"]);
    assert_ne!(git(repo.path(), &["rev-parse", "HEAD"]), old);
    assert_eq!(note("HEAD"), before);
    let log = git(repo.path(), &["log", "-1", "--notes=identedit"]);
    assert!(log.contains("Notes (identedit):"), "{log}");
    assert_eq!(ok(&repo, &["verify", &label])["status"], "passed");
    // Installing twice adds the rewrite ref once.
    ok(&repo, &["hook", "install"]);
    assert_eq!(
        git(repo.path(), &["config", "--get-all", "notes.rewriteRef"])
            .lines()
            .count(),
        1
    );
}

#[test]
fn log_and_verify_read_every_clones_log_once_each() {
    let bare = remote();
    let (a, b) = (clone(bare.path()), clone(bare.path()));
    let first = edit_and_commit(&a, "a.txt", "alpha", "ALPHA");
    ok(&a, &["push"]);
    git(a.path(), &["push", "-q", "origin", "main"]);
    git(b.path(), &["pull", "-q", "--ff-only", "origin", "main"]);
    // Receipt times have one-second steps: keep the clones' receipts apart in time.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let second = edit_and_commit(&b, "b.txt", "beta", "BETA");
    ok(&b, &["push"]);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    // A writes once more after pushing: its own log is ahead of its copy on the remote.
    let third = edit_and_commit(&a, "a.txt", "ALPHA", "Alpha");
    ok(&a, &["fetch"]);
    let clone_a = git(a.path(), &["config", "identedit.clone"])
        .trim()
        .to_owned();
    let clone_b = git(b.path(), &["config", "identedit.clone"])
        .trim()
        .to_owned();

    let log = ok(&a, &["log"]);
    let receipts = log["receipts"].as_array().expect("receipts");
    let labels: Vec<&str> = receipts
        .iter()
        .filter_map(|r| r["label"].as_str())
        .collect();
    // Newest first, each once, though A's first receipt is reachable from its own log and
    // from its log fetched back from the remote.
    assert_eq!(labels, [third.as_str(), &second, &first], "{log}");
    let sources: Vec<&serde_json::Value> = receipts.iter().map(|r| &r["source"]).collect();
    assert_eq!(sources[0]["local"], true, "{log}");
    assert_eq!(sources[2]["local"], true, "{log}");
    assert_eq!(sources[2]["clone"], clone_a.as_str(), "{log}");
    assert_eq!(sources[1]["local"], false, "{log}");
    assert_eq!(sources[1]["remote"], "origin", "{log}");
    assert_eq!(sources[1]["clone"], clone_b.as_str(), "{log}");

    // `-n` limits the merged log; text shows where each receipt came from.
    let limited = ok(&a, &["log", "-n", "2"]);
    assert_eq!(limited["receipts"].as_array().map(Vec::len), Some(2));
    let text = a.run(&["log", "--format", "text"]);
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(rows[0].contains("  local  "), "{text}");
    let b_column = format!("  origin/{} ", &clone_b[..7]);
    assert!(rows[1].contains(&b_column), "{text}");

    // verify with no label takes the newest of every log: after B writes again and A
    // fetches, that is B's receipt.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let fourth = edit_and_commit(&b, "b.txt", "BETA", "Beta");
    ok(&b, &["push"]);
    git(b.path(), &["push", "-q", "origin", "main"]);
    git(
        a.path(),
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    ok(&a, &["fetch"]);
    let verified = ok(&a, &["verify"]);
    assert_eq!(verified["receipt"]["label"], fourth.as_str(), "{verified}");
    assert_eq!(verified["receipt"]["source"]["clone"], clone_b.as_str());
    assert_eq!(verified["status"], "passed", "{verified}");
    let mine = ok(&a, &["verify", &third]);
    assert_eq!(mine["receipt"]["source"]["local"], true, "{mine}");
    // In B, which has not fetched A's newest, its own receipt is the newest.
    let in_b = ok(&b, &["verify"]);
    assert_eq!(in_b["receipt"]["label"], fourth.as_str(), "{in_b}");
    assert_eq!(in_b["receipt"]["source"]["local"], true, "{in_b}");
}

#[test]
fn hook_uninstall_removes_only_identedits_rewrite_ref() {
    let repo = Repo::new();
    repo.write("a.txt", "alpha\n").commit();
    git(
        repo.path(),
        &["config", "--add", "notes.rewriteRef", "refs/notes/commits"],
    );
    ok(&repo, &["hook", "install"]);
    let values = || git(repo.path(), &["config", "--get-all", "notes.rewriteRef"]);
    assert_eq!(values(), "refs/notes/commits\nrefs/notes/identedit\n");
    let removed = ok(&repo, &["hook", "uninstall"]);
    assert_eq!(removed["notes_rewrite_removed"], true, "{removed}");
    assert_eq!(values(), "refs/notes/commits\n");
    // Idempotent: a second uninstall removes nothing and keeps the user's value.
    let again = ok(&repo, &["hook", "uninstall"]);
    assert_eq!(again["notes_rewrite_removed"], false, "{again}");
    assert_eq!(values(), "refs/notes/commits\n");
    // Install and uninstall again round-trip.
    ok(&repo, &["hook", "install"]);
    ok(&repo, &["hook", "uninstall"]);
    assert_eq!(values(), "refs/notes/commits\n");
}
