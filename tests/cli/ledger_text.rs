//! The ledger as a person reads it: `log` names the command that was run and its input in
//! plain words, `verify` prints a table, and outside a repository the state goes to the
//! per-user state directory, never into the user's folder.

use crate::common::Repo;

fn text(repo: &Repo, args: &[&str]) -> (i32, String) {
    let out = repo.run(&[args, &["--format", "text"]].concat());
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn log_shows_the_command_run_and_verify_a_table() {
    let repo = Repo::new();
    repo.write("a.txt", "one\n").commit();
    let (rc, _) = text(
        &repo,
        &[
            "edit",
            "a.txt",
            "--find",
            "one",
            "--replace",
            "two",
            "--task",
            "t1",
        ],
    );
    assert_eq!(rc, 0);
    let (rc, _) = text(
        &repo,
        &["patch", "a.txt", "--find", "two", "--replace", "three"],
    );
    assert_eq!(rc, 0);
    let (_, log) = text(&repo, &["log"]);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(lines[0].contains(" applied patch flags "), "{log}");
    assert!(
        lines[1].contains(" applied edit  flags     t1  [a.txt]"),
        "{log}"
    );
    assert!(
        !log.contains("edit_flags") && !log.contains("patch_flags"),
        "{log}"
    );
    let (rc, table) = text(&repo, &["verify", "t1"]);
    assert_eq!(rc, 1, "{table}");
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows[1], "  check      status      detail", "{table}");
    let digests = rows
        .iter()
        .find(|r| r.trim_start().starts_with("digests"))
        .expect("digests row");
    assert!(
        digests.contains("failed") && digests.contains("a.txt"),
        "{table}"
    );
    assert!(
        !table.contains('{') && !table.contains('"'),
        "no raw JSON: {table}"
    );
}

#[test]
fn outside_a_repository_state_goes_to_the_user_state_directory() {
    let dir = Repo::plain();
    let state = tempfile::tempdir().expect("state");
    dir.write("a.txt", "a\n");
    let out = dir
        .cmd()
        .args([
            "edit",
            "a.txt",
            "--find",
            "a",
            "--replace",
            "b",
            "--format",
            "json",
        ])
        .env("XDG_STATE_HOME", state.path())
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(dir.text("a.txt"), "b\n");
    assert!(
        !dir.exists(".identedit"),
        "a state folder in the user's directory"
    );
    let dirs = std::fs::read_dir(state.path().join("git-identedit/dirs"))
        .expect("per-user state")
        .count();
    assert_eq!(dirs, 1);
}
