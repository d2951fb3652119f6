//! The post-commit note of receipts and the pre-commit warning about receipts, with receipt
//! commits made by plain git plumbing (`hash-object`, `mktree`, `commit-tree`, `update-ref`),
//! and the shipped `hooks/` scripts.

use std::path::Path;

use crate::common::{BIN, Repo, git};

/// A receipt commit on `refs/identedit/log` whose tree holds `receipt.json` = `doc` (or an
/// empty tree when `doc` is `None`); returns its id.
fn receipt(dir: &Path, subject: &str, doc: Option<serde_json::Value>) -> String {
    receipt_at(dir, subject, doc, None)
}

/// [`receipt`] with the receipt commit's committer date set to `date`.
fn receipt_at(
    dir: &Path,
    subject: &str,
    doc: Option<serde_json::Value>,
    date: Option<&str>,
) -> String {
    let tree = match doc {
        Some(doc) => {
            let file = dir.join(".git/receipt.json");
            std::fs::write(&file, doc.to_string()).expect("write");
            let blob = git(dir, &["hash-object", "-w", file.to_str().expect("utf8")]);
            std::fs::remove_file(&file).expect("rm");
            let entry = format!("100644 blob {}\treceipt.json\n", blob.trim());
            stdin_git(dir, &["mktree"], &entry)
        }
        None => stdin_git(dir, &["mktree"], ""),
    };
    let parent = crate::common::command("git")
        .args(["rev-parse", "--verify", "-q", "refs/identedit/log"])
        .current_dir(dir)
        .output()
        .expect("git");
    let parent = String::from_utf8_lossy(&parent.stdout).trim().to_owned();
    let mut args = vec!["commit-tree", "-m", subject];
    if !parent.is_empty() {
        args.extend(["-p", parent.as_str()]);
    }
    args.push(tree.as_str());
    let mut cmd = crate::common::command("git");
    cmd.args(&args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    cmd.env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid");
    cmd.env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid");
    if let Some(date) = date {
        cmd.env("GIT_COMMITTER_DATE", date)
            .env("GIT_AUTHOR_DATE", date);
    }
    let out = cmd.output().expect("commit-tree");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    git(dir, &["update-ref", "refs/identedit/log", &id]);
    id
}

fn stdin_git(dir: &Path, args: &[&str], input: &str) -> String {
    let out = crate::common::run_with_stdin(
        crate::common::command("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null"),
        input,
    );
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn commit(dir: &Path, msg: &str) -> String {
    let out = crate::common::command("git")
        .args(["commit", "-q", "--allow-empty", "-m", msg])
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn note(dir: &Path) -> Option<String> {
    let out = crate::common::command("git")
        .args(["notes", "--ref=identedit", "show", "HEAD"])
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn installed() -> Repo {
    let repo = Repo::new();
    repo.write("a.py", "x = 1\n").commit();
    let out = repo.run(&["hook", "install"]);
    assert!(out.status.success());
    repo
}

#[test]
fn the_receipts_since_the_previous_commit_become_a_note() {
    let repo = installed();
    let dir = repo.path();
    let r1 = receipt(
        dir,
        "fix-a",
        Some(serde_json::json!({"label": "fix a", "status": "applied"})),
    );
    let r2 = receipt(dir, "plain subject", None);
    let stderr = commit(dir, "first");
    assert!(
        stderr.contains("identedit: 2 receipt(s) attached to"),
        "{stderr}"
    );
    assert_eq!(
        note(dir).as_deref(),
        Some(format!("{r1} fix a applied\n{r2} plain subject unknown\n").as_str())
    );
    let log = git(dir, &["log", "-1", "--notes=identedit"]);
    assert!(
        log.contains("Notes (identedit):") && log.contains(&format!("{r1} fix a applied")),
        "{log}"
    );
    assert_eq!(git(dir, &["rev-parse", "refs/identedit/noted"]).trim(), r2);
    let reflog = git(
        dir,
        &["reflog", "show", "--format=%H %gs", "refs/identedit/noted"],
    );
    assert_eq!(
        reflog.trim(),
        format!("{r2} identedit: receipts attached to a commit")
    );

    // No receipt since: no note.
    commit(dir, "second");
    assert_eq!(note(dir), None);
    // Only the new receipt on the next commit.
    let r3 = receipt(
        dir,
        "subject",
        Some(serde_json::json!({"label": "third", "status": "failed"})),
    );
    commit(dir, "third");
    assert_eq!(note(dir), Some(format!("{r3} third failed\n")));
    let out = crate::common::command("git")
        .args(["fsck", "--no-dangling"])
        .current_dir(dir)
        .output()
        .expect("fsck");
    assert!(out.status.success() && out.stdout.is_empty(), "{out:?}");
}

#[test]
fn post_commit_without_a_log_does_nothing() {
    let repo = installed();
    commit(repo.path(), "plain");
    assert_eq!(note(repo.path()), None);
    let (rc, doc) = repo.json(&["hook", "post-commit"]);
    assert_eq!((rc, &doc["attached"]), (0, &serde_json::Value::Null));
}

#[test]
fn a_staged_file_other_than_its_receipt_published_warns() {
    let repo = installed();
    let dir = repo.path();
    repo.write("a.py", "x = 2\n");
    let published = git(dir, &["hash-object", "-w", "a.py"]).trim().to_owned();
    let doc = serde_json::json!({"label": "set-x", "status": "applied",
        "files": [{"path": "a.py", "blob_after": published}]});
    let r = receipt(dir, "set-x", Some(doc));
    git(dir, &["add", "a.py"]);
    let (rc, quiet) = repo.json(&["hook", "pre-commit"]);
    assert_eq!((rc, quiet["warnings"].clone()), (0, serde_json::json!([])));
    repo.write("a.py", "x = 3\n");
    git(dir, &["add", "a.py"]);
    let stderr = commit(dir, "hand edit after the receipt");
    let short = &r[..12];
    assert!(
        stderr.contains(&format!(
            "warning: a.py: staged a.py differs from what receipt {short} (set-x) published"
        )),
        "{stderr}"
    );
}

#[test]
fn pre_commit_reads_receipts_only_back_to_the_newest_naming_each_staged_path() {
    let repo = installed();
    let dir = repo.path();
    repo.write("a.py", "x = 2\n");
    let published = git(dir, &["hash-object", "-w", "a.py"]).trim().to_owned();
    let older = receipt(dir, "older", Some(serde_json::json!({"status": "applied"})));
    let doc = serde_json::json!({"label": "set-x", "status": "applied",
        "files": [{"path": "a.py", "blob_after": published}]});
    let newest = receipt(dir, "set-x", Some(doc));
    // The older receipt's commit goes missing: only a walk past the newest could notice.
    let loose = dir.join(".git/objects").join(&older[..2]).join(&older[2..]);
    std::fs::remove_file(loose).expect("the receipt commit is loose");
    repo.write("a.py", "x = 3\n");
    git(dir, &["add", "a.py"]);
    let (rc, doc) = repo.json(&["hook", "pre-commit"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["warnings"][0]["check"], "differs_from_receipt", "{doc}");
    let short = &newest[..12];
    assert!(
        doc["warnings"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains(short)),
        "{doc}"
    );
    // A staged path no receipt names needs the whole walk, and the hole is reported.
    repo.write("b.py", "y = 1\n");
    git(dir, &["add", "b.py"]);
    let (rc, doc) = repo.json(&["hook", "pre-commit"]);
    assert_ne!(rc, 0, "{doc}");
}

#[test]
fn the_shipped_pre_commit_script_runs_the_check() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks");
    for name in ["pre-commit", "post-commit"] {
        std::fs::copy(
            shipped.join(name),
            repo.path().join(".git/hooks").join(name),
        )
        .expect("copy");
    }
    let bin_dir = Path::new(BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    repo.write("b.md", ">>>>>>> REPLACE\n");
    git(repo.path(), &["add", "b.md"]);
    let run = |msg: &str| {
        crate::common::command("git")
            .args(["commit", "-q", "-m", msg])
            .current_dir(repo.path())
            .env("PATH", &path)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .output()
            .expect("git")
    };
    let out = run("residue");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("b.md:1:"));
    repo.write("b.md", "fine\n");
    git(repo.path(), &["add", "b.md"]);
    assert!(run("clean").status.success());
}

#[test]
fn receipts_from_before_the_last_commit_do_not_warn() {
    let repo = installed();
    let dir = repo.path();
    let doc = serde_json::json!({"label": "old", "status": "applied",
        "files": [{"path": "a.py", "blob_after": "0123456789abcdef0123456789abcdef01234567"}]});
    receipt_at(dir, "old", Some(doc), Some("2001-01-01T00:00:00Z"));
    repo.write("a.py", "x = 5\n");
    git(dir, &["add", "a.py"]);
    let (rc, doc) = repo.json(&["hook", "pre-commit"]);
    assert_eq!((rc, doc["warnings"].clone()), (0, serde_json::json!([])));
}

#[test]
fn the_note_is_signed_as_the_commit_when_only_git_c_names_the_committer() {
    let repo = installed();
    let dir = repo.path();
    let r = receipt(dir, "rec", None);
    let out = crate::common::command("git")
        .args([
            "-c",
            "user.name=Ann",
            "-c",
            "user.email=ann@example.invalid",
        ])
        .args(["commit", "-q", "--allow-empty", "-m", "by ann"])
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_AUTHOR_NAME")
        .env_remove("GIT_AUTHOR_EMAIL")
        .env_remove("GIT_COMMITTER_NAME")
        .env_remove("GIT_COMMITTER_EMAIL")
        .env_remove("EMAIL")
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(note(dir), Some(format!("{r} rec unknown\n")));
    let who = git(
        dir,
        &["log", "-1", "--format=%cn <%ce>", "refs/notes/identedit"],
    );
    assert_eq!(who.trim(), "Ann <ann@example.invalid>");
}

/// The real ledger and the hooks together: receipts written by `edit` become the note of the
/// commit that contains them, and a hand edit after a receipt warns at commit time.
#[test]
fn real_receipts_become_the_commit_note_and_drift_warns() {
    let repo = installed();
    let dir = repo.path();
    let (rc, doc) = repo.json(&[
        "edit",
        "a.py",
        "--find",
        "x = 1",
        "--replace",
        "x = 2",
        "--task",
        "raise x",
        "--stage",
    ]);
    assert_eq!(rc, 0, "{doc}");
    let receipt = doc["receipt"]["commit"]
        .as_str()
        .expect("receipt")
        .to_owned();
    commit(dir, "with a checked edit");
    let note = note(dir).expect("a note on HEAD");
    assert_eq!(note, format!("{receipt} raise x applied\n"));
    let shown = git(dir, &["log", "-1", "--notes=identedit", "--format=%N"]);
    assert!(shown.contains(&receipt), "{shown}");

    let (rc, doc) = repo.json(&[
        "edit",
        "a.py",
        "--find",
        "x = 2",
        "--replace",
        "x = 3",
        "--stage",
    ]);
    assert_eq!(rc, 0, "{doc}");
    repo.write("a.py", "x = 4\n");
    git(dir, &["add", "a.py"]);
    let stderr = commit(dir, "edited by hand after the receipt");
    assert!(
        stderr.contains("warning: a.py: staged a.py differs"),
        "{stderr}"
    );
    let out = crate::common::command("git")
        .args(["fsck", "--no-dangling"])
        .current_dir(dir)
        .output()
        .expect("fsck");
    assert!(out.status.success() && out.stdout.is_empty());
}

/// Committing one file attaches only the receipts of that file; the receipt of a file left
/// uncommitted waits for the commit that contains it, and a hand edit committed later does not
/// claim a receipt whose bytes it no longer holds.
#[test]
fn only_the_receipts_of_committed_files_become_the_note() {
    let repo = installed();
    let dir = repo.path();
    repo.write("b.py", "y = 1\n").commit();
    let edit = |file: &str, find: &str, replace: &str, task: &str| {
        let (rc, doc) = repo.json(&[
            "edit",
            file,
            "--find",
            find,
            "--replace",
            replace,
            "--task",
            task,
        ]);
        assert_eq!(rc, 0, "{doc}");
        doc["receipt"]["commit"]
            .as_str()
            .expect("receipt")
            .to_owned()
    };
    let ra = edit("a.py", "x = 1", "x = 2", "raise x");
    let rb = edit("b.py", "y = 1", "y = 2", "raise y");
    git(dir, &["add", "b.py"]);
    let stderr = commit(dir, "only b");
    assert_eq!(note(dir), Some(format!("{rb} raise y applied\n")));
    assert!(
        stderr.contains("1 receipt(s) attached")
            && stderr.contains("for b.py")
            && stderr.contains("1 receipt(s) of files not in this commit"),
        "{stderr}"
    );
    let marks = |dir: &Path| {
        git(
            dir,
            &[
                "for-each-ref",
                "--format=%(refname)",
                "refs/identedit/attached/",
            ],
        )
    };
    assert_eq!(marks(dir).trim(), format!("refs/identedit/attached/{rb}"));
    repo.write("b.py", "y = 3\n");
    git(dir, &["add", "b.py"]);
    commit(dir, "b by hand");
    assert_eq!(note(dir), None);
    git(dir, &["add", "a.py"]);
    commit(dir, "now a");
    assert_eq!(note(dir), Some(format!("{ra} raise x applied\n")));
    assert_eq!(
        git(dir, &["rev-parse", "refs/identedit/noted"]).trim(),
        git(dir, &["rev-parse", "refs/identedit/log"]).trim()
    );
    assert_eq!(marks(dir), "");
}

/// The receipt holds the work-tree bytes (CRLF) and the index git's form (LF under
/// `* text=auto`): the staged file is what the receipt published once converted, so the hook
/// does not warn; a hand edit after it still does.
#[test]
fn a_receipt_of_a_converted_file_matches_its_staged_form() {
    let repo = Repo::new();
    repo.write(".gitattributes", "* text=auto\n")
        .write("w.py", "x = 1\r\ny = 2\r\n")
        .commit();
    let (rc, doc) = repo.json(&["edit", "w.py", "--find", "x = 1", "--replace", "x = 3"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.read("w.py"), b"x = 3\r\ny = 2\r\n");
    git(repo.path(), &["add", "w.py"]);
    let out = repo.run(&["hook", "pre-commit"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    repo.write("w.py", "x = 4\r\ny = 2\r\n");
    git(repo.path(), &["add", "w.py"]);
    let out = repo.run(&["hook", "pre-commit"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: w.py: staged w.py differs"),
        "{stderr}"
    );
}
