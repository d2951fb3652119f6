//! I/O fault injection: every file-system operation of the journal, staging, the backups,
//! publishing, the commit point, directory fsyncs, the ledger and the index fails in turn
//! with ENOSPC, EIO, EACCES, EROFS and EXDEV (`IDENTEDIT_FAILPOINT=<op>@<area>[#n]:<ERRNO>`).
//! Each time: every file is wholly before or wholly after, no temp file or journal is left,
//! the report names the fault, and the next command finds nothing to recover. The matrix
//! (operation × error → outcome) is printed (`cargo test --test cli fault -- --nocapture`).

use serde_json::json;

use crate::common::{Repo, plan};

const ERRNOS: &[(&str, &str)] = &[
    ("ENOSPC", "No space left on device"),
    ("EIO", "Input/output error"),
    ("EACCES", "Permission denied"),
    ("EROFS", "Read-only file system"),
    ("EXDEV", "Invalid cross-device link"),
];

/// Every injection site a transaction of the scene passes, in order; `dir#1` is the journal
/// folder, `dir#2..4` the targets' folders, `dir#5` the commit point's fsync. The last one is
/// two faults: a publish fails with EIO, then its rollback fails with the errno.
const SITES: &[&str] = &[
    "mkdir@journal",
    "write@journal",
    "fsync@journal",
    "rename@journal",
    "mkdir@stage",
    "write@stage",
    "fsync@stage",
    "link@backup",
    "fsync@dir#1",
    "rename@publish",
    "link@publish",
    "unlink@publish",
    "fsync@dir#2",
    "unlink@commit",
    "fsync@dir#5",
    "write@ledger",
    "rename@ledger",
    "rename@index",
    "rename@publish#2:EIO,rename@rollback",
];

fn scene() -> (Repo, String) {
    let repo = Repo::new();
    repo.write("a.txt", "alpha\nbeta\n")
        .write("sub/b.txt", "one\r\ntwo\r\n")
        .write("gone.txt", "bye\n")
        .commit();
    let body = plan(json!({
        "edits": [{"path": "a.txt", "find": "beta", "replace": "BETA"},
                  {"path": "sub/b.txt", "find": "one\ntwo", "replace": "1\n2"}],
        "creates": [{"path": "new/dir/c.txt", "content": "c\n"}],
        "deletes": [{"path": "gone.txt"}]}));
    (repo, body)
}

fn after_tree() -> std::collections::BTreeMap<String, Vec<u8>> {
    let (repo, body) = scene();
    let (rc, doc) = repo.json_stdin(&["apply", "-", "--stage"], &body);
    assert_eq!(rc, 0, "{doc}");
    repo.tree()
}

/// One run: the outcome word for the matrix.
fn inject(
    site: &str,
    errno: &str,
    message: &str,
    after: &std::collections::BTreeMap<String, Vec<u8>>,
) -> String {
    let (repo, body) = scene();
    let before = repo.tree();
    let spec = format!("{site}:{errno}");
    let out = crate::common::run_with_stdin(
        repo.cmd()
            .args(["apply", "-", "--stage", "--format", "json"])
            // The fsync sites exist one by one only under `identedit.fsync=true`.
            .env("IDENTEDIT_FSYNC", "true")
            .env("IDENTEDIT_FAILPOINT", &spec),
        &body,
    );
    let doc = crate::common::parse_one_document(&out);
    let tree = repo.tree();
    let incomplete = site.contains("@rollback");
    let state = if tree == before {
        "before"
    } else if tree == *after {
        "after"
    } else if incomplete {
        // The rollback itself failed: the report says which file is left where, and the
        // journal and its pre-images are kept for `recover`.
        let files = doc["error"]["details"]["files"].as_array().expect("files");
        let stuck: Vec<_> = files.iter().filter(|f| f["outcome"] == "failed").collect();
        assert!(
            !stuck.is_empty() && stuck.iter().all(|f| f["pre_image"].is_string()),
            "{spec}: {doc}"
        );
        assert!(
            doc["error"]["details"]["journal"].is_string(),
            "{spec}: {doc}"
        );
        "mixed"
    } else {
        panic!(
            "{spec}: the tree is neither before nor after: {:?}",
            tree.keys()
        )
    };
    let rc = out.status.code().unwrap_or(-1);
    let code = crate::common::code(&doc).to_owned();
    // A rollback that got around its fault (EXDEV: copied back) names the first fault only.
    let named = if incomplete && state != "mixed" {
        "Input/output error"
    } else {
        message
    };
    if rc != 0 {
        assert!(
            doc.to_string().contains(named),
            "{spec}: the report names the fault: {doc}"
        );
        let hint = doc["error"]["hint"].as_str().unwrap_or_default();
        let claims_nothing =
            hint.starts_with("Nothing was changed") || hint.starts_with("Every file was restored");
        assert_eq!(
            claims_nothing,
            state == "before",
            "{spec}: the hint tells the truth: {doc}"
        );
    }
    if !incomplete {
        assert!(
            repo.temp_files().is_empty(),
            "{spec}: temp files {:?}",
            repo.temp_files()
        );
    }
    // The next command settles whatever is pending; after it nothing is.
    let (rc2, rec) = repo.json(&["recover"]);
    assert_eq!(rc2, 0, "{spec}: {rec}");
    let (_, again) = repo.json(&["recover", "--dry-run"]);
    assert_eq!(again["pending"], json!([]), "{spec}: {again}");
    assert!(
        repo.temp_files().is_empty(),
        "{spec}: temp files after recover"
    );
    let left: Vec<_> = repo
        .journal_entries()
        .into_iter()
        .filter(|p| !p.ends_with("quarantine"))
        .collect();
    assert!(left.is_empty(), "{spec}: journal left {left:?}");
    let settled = repo.tree();
    assert!(
        settled == before || settled == *after,
        "{spec}: settled tree is mixed"
    );
    crate::common::git(repo.path(), &["status", "--porcelain"]);
    assert!(
        !repo.path().join(".git/index.lock").exists(),
        "{spec}: index.lock left"
    );
    let word = match (rc, state) {
        // The ledger retries its compare-and-swap on any failure of the ref transaction.
        (0, "after") => "ok (retried)".to_owned(),
        (_, "before") => format!("rolled back ({code})"),
        (_, "after") => format!("written ({code})"),
        (_, "mixed") => format!("rollback incomplete, journal kept ({code})"),
        _ => unreachable!(),
    };
    match rec["settled"].as_array().and_then(|s| s.first()) {
        Some(s) => format!(
            "{word}; recover: {}",
            s["direction"].as_str().unwrap_or("?")
        ),
        None => word,
    }
}

#[test]
fn every_io_fault_leaves_each_file_wholly_before_or_after() {
    let after = after_tree();
    let mut table = String::from(
        "| operation | ENOSPC | EIO | EACCES | EROFS | EXDEV |\n|---|---|---|---|---|---|\n",
    );
    for site in SITES {
        table.push_str(&format!("| `{site}` |"));
        for (errno, message) in ERRNOS {
            table.push_str(&format!(" {} |", inject(site, errno, message, &after)));
        }
        table.push('\n');
    }
    eprintln!("{table}");
}

/// `git config identedit.fsync` chooses the durability of a write (no `IDENTEDIT_FSYNC`):
/// under `true` the journal's fsync runs (an injected fault there refuses the write); under
/// `false` there is no fsync to fail and the same write lands.
#[test]
fn the_fsync_setting_in_git_config_decides_whether_files_are_fsynced() {
    for (setting, lands) in [("true", false), ("false", true)] {
        let (repo, body) = scene();
        crate::common::git(repo.path(), &["config", "identedit.fsync", setting]);
        let out = crate::common::run_with_stdin(
            repo.cmd()
                .args(["apply", "-", "--format", "json"])
                .env("IDENTEDIT_FAILPOINT", "fsync@journal:EIO"),
            &body,
        );
        let doc = crate::common::parse_one_document(&out);
        assert_eq!(
            out.status.success(),
            lands,
            "identedit.fsync={setting}: {doc}"
        );
        let content = std::fs::read_to_string(repo.path().join("a.txt")).expect("a.txt");
        let want = if lands {
            "alpha\nBETA\n"
        } else {
            "alpha\nbeta\n"
        };
        assert_eq!(content, want, "identedit.fsync={setting}");
    }
}

/// Many files are renamed into place on several threads: a fault (or a kill) at one of the
/// later renames leaves every file as it was, once in process and once by the next command,
/// and the pre-images of a committed write are all removed before the command ends.
#[test]
fn a_fault_among_many_parallel_renames_rolls_every_file_back() {
    let scene = || {
        let repo = Repo::new();
        for i in 0..40 {
            repo.write(&format!("d{}/f{i}.txt", i % 3), format!("line {i}\n"));
        }
        repo.commit();
        let edits: Vec<_> = (0..40)
            .map(|i| json!({"path": format!("d{}/f{i}.txt", i % 3), "find": "line", "replace": "LINE"}))
            .collect();
        (repo, plan(json!({ "edits": edits })))
    };
    for spec in ["rename@publish#30:EIO", "rename@publish#30:KILL"] {
        let (repo, body) = scene();
        let before = repo.tree();
        let out = crate::common::run_with_stdin(
            repo.cmd()
                .args(["apply", "-", "--format", "json"])
                .env("IDENTEDIT_FAILPOINT", spec),
            &body,
        );
        assert!(!out.status.success(), "{spec}");
        let (rc, rec) = repo.json(&["recover"]);
        assert_eq!(rc, 0, "{spec}: {rec}");
        assert_eq!(repo.tree(), before, "{spec}");
        assert!(repo.temp_files().is_empty(), "{spec}");
        assert!(repo.journal_entries().is_empty(), "{spec}");
    }
    let (repo, body) = scene();
    let (rc, doc) = repo.json_stdin(&["apply", "-"], &body);
    assert_eq!(rc, 0, "{doc}");
    assert!(
        repo.journal_entries().is_empty(),
        "{:?}",
        repo.journal_entries()
    );
    let written = std::fs::read_to_string(repo.path().join("d1/f7.txt")).expect("f7");
    assert_eq!(written, "LINE 7\n");
}
