//! Defects found by a close read of the engine, the journal, the ledger and the hooks: each
//! test here failed before its fix.

use serde_json::json;

use crate::common::{BIN, Repo, code, command, git, plan};

/// A tmpfs mounted for the test's lifetime (root only), so that a linked worktree sits on
/// another filesystem than the repository's `.git`.
pub struct Tmpfs {
    pub dir: tempfile::TempDir,
}

impl Tmpfs {
    /// `None` (with the reason printed) when this process may not mount.
    pub fn mount() -> Option<Self> {
        let dir = tempfile::tempdir().expect("mount point");
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "tmpfs"])
            .arg(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!("skipped: mounting a tmpfs needs root (another filesystem for a worktree)");
            return None;
        }
        Some(Self { dir })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// A repository with a linked worktree on a tmpfs: the worktree's state (journal, pre-images)
/// is under the main repository's `.git/worktrees/`, on another filesystem.
fn worktree_elsewhere() -> Option<(Repo, Tmpfs, std::path::PathBuf)> {
    let mount = Tmpfs::mount()?;
    let repo = Repo::new();
    repo.write("a.txt", "alpha\nbeta\n")
        .write("b.txt", "one\ntwo\n")
        .commit();
    let wt = mount.dir.path().join("wt");
    git(
        repo.path(),
        &["worktree", "add", "-q", "-b", "side", &wt.to_string_lossy()],
    );
    Some((repo, mount, wt))
}

fn files(dir: &std::path::Path) -> (Vec<u8>, Vec<u8>) {
    let read = |n: &str| std::fs::read(dir.join(n)).expect("read");
    (read("a.txt"), read("b.txt"))
}

#[test]
fn a_rollback_across_filesystems_restores_every_file() {
    let Some((repo, _mount, wt)) = worktree_elsewhere() else {
        return;
    };
    let body = plan(json!({"edits": [
        {"path": "a.txt", "find": "beta", "replace": "BETA"},
        {"path": "b.txt", "find": "two", "replace": "TWO"}]}));
    let before = files(&wt);
    let out = crate::common::run_with_stdin(
        command(BIN)
            .current_dir(&wt)
            .args(["apply", "-", "--format", "json"])
            .env("IDENTEDIT_FAILPOINT", "after_publish:error"),
        &body,
    );
    let doc = crate::common::parse_one_document(&out);
    assert_eq!(code(&doc), "apply_failed", "{doc}");
    assert_eq!(files(&wt), before, "every file is back: {doc}");
    let outcomes: Vec<&str> = doc["error"]["details"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["outcome"].as_str())
        .collect();
    assert_eq!(outcomes, ["restored", "restored"], "{doc}");
    let journal = repo.path().join(".git/worktrees/wt/identedit/journal");
    let left: Vec<_> = std::fs::read_dir(&journal)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "journal folder left: {left:?}");
}

#[test]
fn a_torn_journal_is_quarantined_and_no_longer_blocks_commits() {
    let repo = Repo::new();
    repo.write("a.txt", "alpha\n").commit();
    crate::hooks::install(repo.path());
    let dir = repo.path().join(".git/identedit/journal");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("4242-1.journal"),
        r#"{"version":1,"id":"4242-1","pid":42"#,
    )
    .expect("torn journal");
    std::fs::write(dir.join("4242-1.0.pre"), "alpha\n").expect("pre-image");

    let (rc, doc) = repo.json(&["recover", "--dry-run"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["pending"][0]["readable"], false, "{doc}");
    assert!(
        dir.join("4242-1.journal").exists(),
        "a dry run changes nothing"
    );

    let (rc, doc) = repo.json(&["recover"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["settled"][0]["direction"], "quarantined", "{doc}");
    assert!(!dir.join("4242-1.journal").exists());
    let kept = dir.join("quarantine");
    assert!(kept.join("4242-1.journal").exists(), "kept for inspection");
    assert!(
        kept.join("4242-1.0.pre").exists(),
        "its pre-image is kept too"
    );

    repo.write("b.txt", "b\n");
    git(repo.path(), &["add", "b.txt"]);
    let (ok, err) = crate::hooks::commit(repo.path(), "after the quarantine");
    assert!(ok, "{err}");
    let (rc, doc) = repo.json(&["recover"]);
    assert_eq!(
        (rc, doc["pending"].as_array().map(Vec::len)),
        (0, Some(0)),
        "{doc}"
    );
}

/// Waits for `child` at most `secs` seconds; kills it and fails the test when it hangs.
fn wait_bounded(mut child: std::process::Child, secs: u64, what: &str) -> std::process::Output {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while child.try_wait().expect("wait").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} hung for more than {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

#[test]
fn installing_again_from_another_path_never_chains_our_own_hook() {
    let repo = Repo::new();
    repo.write("a.txt", "alpha\n").commit();
    crate::hooks::install(repo.path());
    std::fs::remove_file(repo.path().join(".git/identedit/hooks.json")).expect("rm manifest");
    let elsewhere = tempfile::tempdir().expect("dir");
    let exe = elsewhere.path().join("git-identedit");
    std::fs::hard_link(BIN, &exe)
        .or_else(|_| std::fs::copy(BIN, &exe).map(|_| ()))
        .expect("second binary");
    let out = command(&exe)
        .args(["hook", "install", "--format", "json"])
        .current_dir(repo.path())
        .output()
        .expect("install");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let hooks = repo.path().join(".git/hooks");
    assert!(
        !hooks.join("pre-commit.identedit-chained").exists(),
        "our own hook is recognised and replaced, not chained"
    );
    repo.write("b.txt", "b\n");
    git(repo.path(), &["add", "b.txt"]);
    let child = command("git")
        .args(["commit", "-q", "-m", "b"])
        .current_dir(repo.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("commit");
    let out = wait_bounded(child, 30, "git commit");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_hook_script_never_runs_a_chained_copy_of_itself() {
    let repo = Repo::new();
    repo.write("a.txt", "alpha\n").commit();
    crate::hooks::install(repo.path());
    let hooks = repo.path().join(".git/hooks");
    // As an older install left it: our own script moved aside as the "chained" hook.
    for name in ["pre-commit", "post-commit"] {
        std::fs::copy(
            hooks.join(name),
            hooks.join(format!("{name}.identedit-chained")),
        )
        .expect("copy");
    }
    repo.write("b.txt", "b\n");
    git(repo.path(), &["add", "b.txt"]);
    let child = command("git")
        .args(["commit", "-q", "-m", "b"])
        .current_dir(repo.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("commit");
    let out = wait_bounded(child, 30, "git commit");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_file_named_like_the_ledger_ref_does_not_share_its_lock() {
    let repo = Repo::new();
    repo.write("refs/identedit/log", "old\n").commit();
    let out = repo
        .cmd()
        .args([
            "edit",
            "refs/identedit/log",
            "--find",
            "old",
            "--replace",
            "new",
        ])
        .args(["--format", "json"])
        .env("IDENTEDIT_LOCK_TIMEOUT_MS", "2000")
        .output()
        .expect("edit");
    let doc = crate::common::parse_one_document(&out);
    assert_eq!(out.status.code(), Some(0), "{doc}");
    assert_eq!(repo.text("refs/identedit/log"), "new\n");
    let (rc, log) = repo.json(&["log"]);
    assert_eq!(rc, 0, "{log}");
    assert!(
        log.to_string().contains("refs/identedit/log"),
        "the receipt is recorded: {log}"
    );
}

#[test]
fn a_label_ending_in_a_dot_is_recorded_with_the_log_in_one_ref_transaction() {
    let repo = Repo::new();
    repo.write("f.txt", "old\n").commit();
    let (rc, doc) = repo.json(&[
        "edit",
        "f.txt",
        "--find",
        "old",
        "--replace",
        "new",
        "--task",
        "release 1.",
    ]);
    assert_eq!(rc, 0, "{doc}");
    let refs = git(
        repo.path(),
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/identedit/",
        ],
    );
    let log = refs
        .lines()
        .find(|l| l.starts_with("refs/identedit/log "))
        .expect("log ref");
    let label = refs
        .lines()
        .find(|l| l.starts_with("refs/identedit/receipts/release"))
        .unwrap_or_else(|| panic!("label ref missing: {refs}"));
    assert_eq!(
        log.split(' ').nth(1),
        label.split(' ').nth(1),
        "both name the same receipt"
    );
    let (rc, shown) = repo.json(&["show", "release 1."]);
    assert_eq!(rc, 0, "{shown}");
}

#[test]
fn stage_holds_the_index_lock_and_writes_nothing_while_git_holds_it() {
    let repo = Repo::new();
    repo.write("f.txt", "old\n").commit();
    let lock = repo.path().join(".git/index.lock");
    std::fs::write(&lock, "").expect("another git holds the index");
    let out = repo
        .cmd()
        .args([
            "edit",
            "f.txt",
            "--find",
            "old",
            "--replace",
            "new",
            "--stage",
        ])
        .args(["--format", "json"])
        .env("IDENTEDIT_LOCK_TIMEOUT_MS", "300")
        .output()
        .expect("edit");
    let doc = crate::common::parse_one_document(&out);
    assert_eq!(code(&doc), "resource_busy", "{doc}");
    assert_eq!(
        repo.text("f.txt"),
        "old\n",
        "nothing written while the index is locked"
    );
    std::fs::remove_file(&lock).expect("git is done");
    let (rc, doc) = repo.json(&[
        "edit",
        "f.txt",
        "--find",
        "old",
        "--replace",
        "new",
        "--stage",
    ]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        git(repo.path(), &["diff", "--cached", "--name-only"]),
        "f.txt\n"
    );
    assert_eq!(
        git(repo.path(), &["diff", "--name-only"]),
        "",
        "work tree and index agree"
    );
    assert!(!lock.exists(), "index.lock released");
}

#[test]
fn git_dir_lookalikes_that_git_refuses_are_refused() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    for name in [
        ".GIT/config",
        ".g\u{200c}it/config",
        "GIT~1/config",
        ".git./config",
        "sub/.Git/x",
    ] {
        let body = plan(json!({"creates": [{"path": name, "content": "x\n"}]}));
        let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
        assert_eq!((rc, code(&doc)), (1, "path_refused"), "{name}: {doc}");
    }
    assert_eq!(
        repo.tree().len(),
        1,
        "nothing was created: {:?}",
        repo.tree().keys()
    );
}

#[test]
fn a_file_name_near_255_bytes_can_be_edited() {
    let repo = Repo::new();
    let name = format!("{}.txt", "n".repeat(250));
    repo.write(&name, "old\n").commit();
    let (rc, doc) = repo.json(&["edit", &name, "--find", "old", "--replace", "new"]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text(&name), "new\n");
    assert!(repo.temp_files().is_empty());
}

#[test]
fn stdin_input_is_bounded() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    let body = plan(json!({"edits": [{"path": "a.txt", "find": "a", "replace": "b"}]}));
    let out = crate::common::run_with_stdin(
        repo.cmd()
            .args(["apply", "-", "--format", "json"])
            .env("IDENTEDIT_MAX_INPUT_BYTES", "40"),
        &body,
    );
    let doc = crate::common::parse_one_document(&out);
    assert_eq!(code(&doc), "invalid_request", "{doc}");
    assert_eq!(doc["error"]["details"]["limit_bytes"], 40);
    assert_eq!(repo.text("a.txt"), "a\n");
}

/// `git` in `dir` with `stdin`, its stdout trimmed.
fn git_stdin(dir: &std::path::Path, args: &[&str], stdin: &str) -> String {
    let out = crate::common::run_with_stdin(command("git").args(args).current_dir(dir), stdin);
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn undo_prunes_only_directories_that_pass_the_path_checks() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n").commit();
    let body = plan(json!({"creates": [{"path": "new/dir/c.txt", "content": "c\n"}]}));
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
    assert_eq!(rc, 0, "{doc}");
    // An empty directory outside the work tree, named from the root with `..`.
    let outside = tempfile::tempdir().expect("outside");
    let victim = outside.path().join("victim");
    std::fs::create_dir(&victim).expect("victim");
    let name = outside
        .path()
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let escape = format!("../{name}/victim");
    // A receipt whose created_dirs names it (as a tampered or foreign log could).
    let dir = repo.path();
    let receipt = git(
        dir,
        &["cat-file", "blob", "refs/identedit/log:receipt.json"],
    );
    let mut receipt: serde_json::Value = serde_json::from_str(&receipt).expect("receipt");
    receipt["created_dirs"]
        .as_array_mut()
        .expect("created_dirs")
        .insert(0, json!(escape));
    let blob = git_stdin(dir, &["hash-object", "-w", "--stdin"], &receipt.to_string());
    let listing: String = git(dir, &["ls-tree", "refs/identedit/log"])
        .lines()
        .map(|l| match l.split_once('\t') {
            Some((_, "receipt.json")) => format!("100644 blob {blob}\treceipt.json\n"),
            _ => format!("{l}\n"),
        })
        .collect();
    let tree = git_stdin(dir, &["mktree"], &listing);
    let commit = git_stdin(dir, &["commit-tree", &tree, "-m", "receipt"], "");
    git(dir, &["update-ref", "refs/identedit/log", &commit]);
    let (rc, doc) = repo.json(&["undo"]);
    assert_eq!(rc, 0, "{doc}");
    assert!(
        !repo.exists("new/dir/c.txt") && !repo.exists("new"),
        "its own folders are pruned"
    );
    assert!(
        victim.is_dir(),
        "a folder outside the work tree is never removed"
    );
}

#[test]
fn a_temp_file_has_the_final_mode_before_any_byte_is_written() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::new();
    repo.write("secret.txt", "old\n").commit();
    let file = repo.path().join("secret.txt");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let out = repo
        .cmd()
        .args(["edit", "secret.txt", "--find", "old", "--replace", "new"])
        .env("IDENTEDIT_FAILPOINT", "write@stage:KILL")
        .output()
        .expect("edit");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&out.status),
        Some(9)
    );
    let temps = repo.temp_files();
    assert_eq!(temps.len(), 1, "{temps:?}");
    let mode = std::fs::metadata(repo.path().join(&temps[0]))
        .expect("temp")
        .permissions()
        .mode();
    assert_eq!(
        mode & 0o777,
        0o600,
        "the temp file is as private as the file"
    );
    let (rc, doc) = repo.json(&["recover"]);
    assert_eq!(
        (rc, doc["settled"][0]["direction"].as_str()),
        (0, Some("back")),
        "{doc}"
    );
    assert!(repo.temp_files().is_empty());
}
