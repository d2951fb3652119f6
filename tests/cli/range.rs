//! `verify --range A..B`: every hunk of a range of commits, covered by a verified receipt or
//! made by hand; policies (`--require`), tampered receipts, receipts fetched from another
//! clone, squashed receipts, added and deleted files, and the CI snippet of docs/ci.md run as
//! it is written.

use serde_json::{Value, json};

use crate::common::{BIN, Repo, command, git, run_with_stdin};

/// A repository on `topic`, branched from `main` holding `files`.
fn topic(files: &[(&str, &str)]) -> Repo {
    let repo = Repo::new();
    for (path, text) in files {
        repo.write(path, text);
    }
    repo.commit();
    git(repo.path(), &["checkout", "-q", "-b", "topic"]);
    repo
}

/// An identedit edit of `file` labelled `label`; returns the receipt's commit id.
fn edit(repo: &Repo, file: &str, find: &str, replace: &str, label: &str) -> String {
    let args = [
        "edit",
        file,
        "--find",
        find,
        "--replace",
        replace,
        "--task",
        label,
    ];
    let (rc, doc) = repo.json(&args);
    assert_eq!(rc, 0, "{doc}");
    doc["receipt"]["commit"]
        .as_str()
        .expect("receipt")
        .to_owned()
}

/// Commits everything and returns the commit id.
fn commit(repo: &Repo, message: &str) -> String {
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", message]);
    head(repo)
}

fn head(repo: &Repo) -> String {
    git(repo.path(), &["rev-parse", "HEAD"]).trim().to_owned()
}

/// `verify --range main..HEAD` with `extra` arguments: exit code and document.
fn range(repo: &Repo, extra: &[&str]) -> (i32, Value) {
    let args = [&["verify", "--range", "main..HEAD", "--json"], extra].concat();
    let (rc, doc) = repo.json(&args);
    (rc, doc)
}

fn hunk(old: (u64, u64), new: (u64, u64), by: &[(&str, &str)]) -> Value {
    let receipts: Vec<Value> = by
        .iter()
        .map(|(label, id)| json!({"label": label, "receipt": id}))
        .collect();
    json!({"old": {"start": old.0, "count": old.1}, "new": {"start": new.0, "count": new.1},
           "covered_by": by.last().map(|(label, _)| label), "receipts": receipts})
}

fn file(path: &str, change: &str, hunks: Vec<Value>) -> Value {
    let covered = hunks.iter().filter(|h| !h["covered_by"].is_null()).count();
    json!({"path": path, "change": change, "covered": covered,
           "by_hand": hunks.len() - covered, "hunks": hunks})
}

fn commit_doc(id: &str, subject: &str, files: Vec<Value>) -> Value {
    json!({"commit": id, "subject": subject, "files": files})
}

const LINES: &str = "1\n2\n3\n4\n5\n6\n7\n8\n";

#[test]
fn a_fully_covered_range_passes_every_policy() {
    let repo = topic(&[("a.txt", LINES), ("b.txt", "beta\n")]);
    let r1 = edit(&repo, "a.txt", "2\n", "two\n", "r1");
    let c1 = commit(&repo, "first");
    let r2 = edit(&repo, "b.txt", "beta", "BETA", "r2");
    let c2 = commit(&repo, "second");
    let (rc, doc) = range(&repo, &["--require", "all"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["status"], "passed");
    assert_eq!(
        doc["commits"],
        json!([
            commit_doc(
                &c1,
                "first",
                vec![file(
                    "a.txt",
                    "modified",
                    vec![hunk((2, 1), (2, 1), &[("r1", &r1)])]
                )]
            ),
            commit_doc(
                &c2,
                "second",
                vec![file(
                    "b.txt",
                    "modified",
                    vec![hunk((1, 1), (1, 1), &[("r2", &r2)])]
                )]
            ),
        ])
    );
    assert_eq!(
        doc["summary"],
        json!({"commits": 2, "hunks": 2, "covered": 2, "by_hand": 0, "required_by_hand": 0})
    );
    let text = repo.run(&["verify", "--range", "main..HEAD", "--format", "text"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.starts_with("passed main..HEAD: 2 commit(s), 2 hunk(s), 2 covered, 0 by hand\n"),
        "{text}"
    );
}

#[test]
fn a_hand_edit_is_reported_and_refused_only_where_required() {
    let repo = topic(&[("a.txt", LINES), ("b.txt", "beta\n")]);
    let r1 = edit(&repo, "a.txt", "2\n", "two\n", "r1");
    let c1 = commit(&repo, "tool");
    repo.write("b.txt", "by hand\n");
    let c2 = commit(&repo, "hand");
    let expected = json!([
        commit_doc(
            &c1,
            "tool",
            vec![file(
                "a.txt",
                "modified",
                vec![hunk((2, 1), (2, 1), &[("r1", &r1)])]
            )]
        ),
        commit_doc(
            &c2,
            "hand",
            vec![file("b.txt", "modified", vec![hunk((1, 1), (1, 1), &[])])]
        ),
    ]);
    let (rc, doc) = range(&repo, &[]);
    assert_eq!((rc, &doc["commits"]), (0, &expected), "{doc}");
    assert_eq!(doc["summary"]["by_hand"], 1);
    let (rc, doc) = range(&repo, &["--require", "all"]);
    assert_eq!(
        (rc, doc["status"].as_str()),
        (3, Some("uncovered")),
        "{doc}"
    );
    assert_eq!(
        doc["required_uncovered"],
        json!([{"commit": c2, "path": "b.txt", "old": {"start": 1, "count": 1},
                "new": {"start": 1, "count": 1}}])
    );
    assert_eq!(range(&repo, &["--require", "files=a.txt"]).0, 0);
    assert_eq!(range(&repo, &["--require", "files=src/**"]).0, 0);
    assert_eq!(
        range(
            &repo,
            &["--require", "files=a.txt", "--require", "files=b.*"]
        )
        .0,
        3
    );
    let (rc, doc) = range(&repo, &["--require", "some"]);
    assert_eq!((rc, &doc["error"]["code"]), (2, &json!("usage")), "{doc}");
}

/// Replaces the `input` blob of the receipt `receipt` (keeping its parent) and points the log
/// and the label's ref at the forgery.
fn tamper_input(repo: &Repo, receipt: &str, label: &str) {
    let dir = repo.path();
    let listing = git(dir, &["ls-tree", receipt]);
    let forged = run_with_stdin(
        command("git")
            .args(["hash-object", "-w", "--stdin"])
            .current_dir(dir),
        "another input",
    );
    let forged = String::from_utf8_lossy(&forged.stdout).trim().to_owned();
    let tree: String = listing
        .lines()
        .map(|l| match l.ends_with("\tinput") {
            true => format!("100644 blob {forged}\tinput\n"),
            false => format!("{l}\n"),
        })
        .collect();
    let out = run_with_stdin(command("git").arg("mktree").current_dir(dir), &tree);
    let tree = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let parent = git(dir, &["rev-parse", &format!("{receipt}^")]);
    let commit = git(
        dir,
        &["commit-tree", &tree, "-p", parent.trim(), "-m", "forged"],
    );
    for name in [
        "refs/identedit/log".to_owned(),
        format!("refs/identedit/receipts/{label}"),
    ] {
        git(dir, &["update-ref", &name, commit.trim()]);
    }
}

#[test]
fn a_receipt_that_claims_a_change_but_does_not_verify_fails() {
    let repo = topic(&[("a.txt", LINES)]);
    edit(&repo, "a.txt", "2\n", "two\n", "r0");
    let r1 = edit(&repo, "a.txt", "5\n", "five\n", "r1");
    commit(&repo, "tool");
    tamper_input(&repo, &r1, "r1");
    let (rc, doc) = range(&repo, &[]);
    assert_eq!((rc, doc["status"].as_str()), (1, Some("failed")), "{doc}");
    let failed = &doc["failed_receipts"];
    assert_eq!(failed.as_array().map(Vec::len), Some(1), "{doc}");
    assert_eq!(failed[0]["label"], "r1");
    assert_eq!(failed[0]["path"], "a.txt");
    assert_eq!(
        failed[0]["problems"],
        json!(["the stored input does not hash to input.sha256"])
    );
    // The forged receipt covers nothing; the other one still covers its hunk.
    let hunks = &doc["commits"][0]["files"][0]["hunks"];
    assert_eq!(hunks[0]["covered_by"], "r0", "{doc}");
    assert_eq!(hunks[1]["covered_by"], Value::Null, "{doc}");
    assert_eq!(hunks[1]["unverified"][0]["label"], "r1", "{doc}");
}

#[test]
fn receipts_squashed_into_one_commit_cover_their_hunks() {
    let repo = topic(&[("a.txt", LINES)]);
    let r1 = edit(&repo, "a.txt", "2\n", "two\n", "r1");
    let r2 = edit(&repo, "a.txt", "7\n", "seven\n", "r2");
    // Overlapping: r4 rewrites a line r3 wrote.
    let r3 = edit(&repo, "a.txt", "4\n", "x\ny\nz\n", "r3");
    let r4 = edit(&repo, "a.txt", "y\n", "Y\n", "r4");
    let c = commit(&repo, "squashed");
    let (rc, doc) = range(&repo, &["--require", "all"]);
    assert_eq!(rc, 0, "{doc}");
    let hunks = vec![
        hunk((2, 1), (2, 1), &[("r1", &r1)]),
        hunk((4, 1), (4, 3), &[("r3", &r3), ("r4", &r4)]),
        hunk((7, 1), (9, 1), &[("r2", &r2)]),
    ];
    assert_eq!(
        doc["commits"],
        json!([commit_doc(
            &c,
            "squashed",
            vec![file("a.txt", "modified", hunks)]
        )])
    );
}

/// A receipt of a file large enough that its post-image is stored as splices on the
/// pre-image (`git::splices`) covers its hunks like a whole one, alone and squashed.
#[test]
fn receipts_stored_as_splices_cover_their_hunks() {
    let long: String = (1..=200).map(|n| format!("line {n}\n")).collect();
    let repo = topic(&[("a.txt", &long)]);
    let r1 = edit(&repo, "a.txt", "line 100\n", "line one hundred\n", "r1");
    let stored = git(repo.path(), &["ls-tree", "-r", "--name-only", &r1]);
    assert!(stored.lines().any(|l| l == "splices/a.txt"), "{stored}");
    let c1 = commit(&repo, "one");
    let r2 = edit(&repo, "a.txt", "line 7\n", "line seven\n", "r2");
    let r3 = edit(&repo, "a.txt", "line 150\n", "line 150\nline 150b\n", "r3");
    let c2 = commit(&repo, "two");
    let (rc, doc) = range(&repo, &["--require", "all"]);
    assert_eq!(rc, 0, "{doc}");
    let one = vec![hunk((100, 1), (100, 1), &[("r1", &r1)])];
    let two = vec![
        hunk((7, 1), (7, 1), &[("r2", &r2)]),
        hunk((150, 0), (151, 1), &[("r3", &r3)]),
    ];
    assert_eq!(
        doc["commits"],
        json!([
            commit_doc(&c1, "one", vec![file("a.txt", "modified", one)]),
            commit_doc(&c2, "two", vec![file("a.txt", "modified", two)]),
        ])
    );
    assert!(
        doc["failed_receipts"].as_array().is_none_or(Vec::is_empty),
        "{doc}"
    );
}

#[test]
fn a_receipt_edit_and_a_hand_edit_in_one_file() {
    let repo = topic(&[("a.txt", LINES)]);
    let r1 = edit(&repo, "a.txt", "2\n", "two\n", "r1");
    let text = repo.text("a.txt").replace("6\n", "six by hand\n");
    repo.write("a.txt", text);
    let c = commit(&repo, "mixed");
    let (rc, doc) = range(&repo, &[]);
    assert_eq!(rc, 0, "{doc}");
    let hunks = vec![
        hunk((2, 1), (2, 1), &[("r1", &r1)]),
        hunk((6, 1), (6, 1), &[]),
    ];
    assert_eq!(
        doc["commits"],
        json!([commit_doc(
            &c,
            "mixed",
            vec![file("a.txt", "modified", hunks)]
        )])
    );
    assert_eq!(range(&repo, &["--require", "all"]).0, 3);
}

#[test]
fn files_added_and_deleted_in_a_range() {
    let repo = topic(&[("old.txt", "gone\nsoon\n"), ("keep.txt", "k\n")]);
    let plan = json!({"type": "source_edit_plan", "contract_version": "1.0", "edits": [],
                      "creates": [{"path": "d/new.txt", "content": "fresh\nfile\n"}],
                      "deletes": [{"path": "old.txt"}]});
    let (rc, doc) = repo.json_stdin(&["apply", "-", "--task", "plan"], &plan.to_string());
    assert_eq!(rc, 0, "{doc}");
    let receipt = doc["receipt"]["commit"]
        .as_str()
        .expect("receipt")
        .to_owned();
    let c1 = commit(&repo, "create and delete");
    repo.write("hand.txt", "mine\n");
    std::fs::remove_file(repo.path().join("keep.txt")).expect("rm");
    let c2 = commit(&repo, "by hand");
    let (rc, doc) = range(&repo, &["--require", "files=d/*"]);
    assert_eq!(rc, 0, "{doc}");
    let by = [("plan", receipt.as_str())];
    assert_eq!(
        doc["commits"],
        json!([
            commit_doc(
                &c1,
                "create and delete",
                vec![
                    file("d/new.txt", "added", vec![hunk((0, 0), (1, 2), &by)]),
                    file("old.txt", "deleted", vec![hunk((1, 2), (0, 0), &by)]),
                ]
            ),
            commit_doc(
                &c2,
                "by hand",
                vec![
                    file("hand.txt", "added", vec![hunk((0, 0), (1, 1), &[])]),
                    file("keep.txt", "deleted", vec![hunk((1, 1), (0, 0), &[])]),
                ]
            ),
        ])
    );
    assert_eq!(range(&repo, &["--require", "all"]).0, 3);
}

/// A bare remote whose `main` holds `a.txt` and `b.txt`, and a clone of it on `topic` that
/// pushed one receipt edit of `a.txt` and one hand edit of `b.txt` (receipts with `push`).
/// Returns the remote, the clone, and the commits, receipt and label.
struct Shared {
    bare: tempfile::TempDir,
    commits: [String; 2],
    receipt: String,
}

fn shared() -> Shared {
    let bare = tempfile::tempdir().expect("temp dir");
    git(bare.path(), &["init", "-q", "--bare", "-b", "main"]);
    let url = bare.path().to_str().expect("utf8");
    let seed = Repo::new();
    seed.write("a.txt", LINES).write("b.txt", "beta\n").commit();
    git(seed.path(), &["push", "-q", url, "main"]);
    let a = clone(bare.path());
    git(a.path(), &["checkout", "-q", "-b", "topic"]);
    let receipt = edit(&a, "a.txt", "3\n", "three\n", "agent-a");
    let c1 = commit(&a, "agent");
    a.write("b.txt", "beta by hand\n");
    let c2 = commit(&a, "hand");
    let (rc, doc) = a.json(&["push"]);
    assert_eq!(rc, 0, "{doc}");
    git(a.path(), &["push", "-q", "origin", "topic"]);
    Shared {
        bare,
        commits: [c1, c2],
        receipt,
    }
}

fn clone(bare: &std::path::Path) -> Repo {
    let dir = tempfile::tempdir().expect("temp dir");
    git(
        dir.path(),
        &["clone", "-q", bare.to_str().expect("utf8"), "."],
    );
    Repo { dir }
}

/// What the shared range's commits hold.
fn shared_commits(s: &Shared) -> Value {
    json!([
        commit_doc(
            &s.commits[0],
            "agent",
            vec![file(
                "a.txt",
                "modified",
                vec![hunk((3, 1), (3, 1), &[("agent-a", &s.receipt)])]
            )]
        ),
        commit_doc(
            &s.commits[1],
            "hand",
            vec![file("b.txt", "modified", vec![hunk((1, 1), (1, 1), &[])])]
        ),
    ])
}

#[test]
fn receipts_from_another_clone_cover_its_commits_after_fetch() {
    let s = shared();
    let b = clone(s.bare.path());
    git(b.path(), &["checkout", "-q", "--detach", "origin/topic"]);
    let args = [
        "verify",
        "--range",
        "origin/main..HEAD",
        "--require",
        "files=a.txt",
    ];
    let (rc, doc) = b.json(&args);
    assert_eq!(
        rc, 3,
        "without the receipts the agent's edit is by hand: {doc}"
    );
    let (rc, doc) = b.json(&["fetch"]);
    assert_eq!(rc, 0, "{doc}");
    let (rc, doc) = b.json(&args);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["commits"], shared_commits(&s));
}

/// Runs docs/ci/verify-range.sh in `repo` with this build's `git-identedit` on `PATH`.
fn snippet(repo: &Repo, args: &[&str]) -> (i32, Value) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci/verify-range.sh");
    let bin_dir = std::path::Path::new(BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = command("sh")
        .arg(&script)
        .args(args)
        .env("PATH", path)
        .current_dir(repo.path())
        .output()
        .expect("sh runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let doc = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout} {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), doc)
}

#[test]
fn the_ci_snippet_checks_a_pull_request_as_documented() {
    let s = shared();
    let ci = clone(s.bare.path());
    git(ci.path(), &["checkout", "-q", "--detach", "origin/topic"]);
    let (rc, doc) = snippet(&ci, &["origin/main", "--require", "all", "--json"]);
    assert_eq!(
        (rc, doc["status"].as_str()),
        (3, Some("uncovered")),
        "{doc}"
    );
    assert_eq!(doc["range"], "origin/main..HEAD");
    assert_eq!(doc["commits"], shared_commits(&s));
    assert_eq!(
        doc["summary"],
        json!({"commits": 2, "hunks": 2, "covered": 1, "by_hand": 1, "required_by_hand": 1})
    );
    let (rc, doc) = snippet(&ci, &["origin/main", "--require", "files=a.txt", "--json"]);
    assert_eq!((rc, doc["status"].as_str()), (0, Some("passed")), "{doc}");
    assert_eq!(doc["commits"], shared_commits(&s));
    // The documentation shows the snippet verbatim.
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci.md"),
    )
    .expect("docs/ci.md");
    let script = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci/verify-range.sh"),
    )
    .expect("script");
    assert!(
        docs.contains(&script),
        "docs/ci.md must include docs/ci/verify-range.sh verbatim"
    );
}
