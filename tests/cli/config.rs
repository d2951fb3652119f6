//! Config-path edits on real-world files (`fixtures/config/<case>/`, one test each in
//! `tests/folders/`): a `Cargo.toml`, a
//! `package.json`, a JSONC `tsconfig`, a `docker-compose.yml`, a GitHub workflow and a
//! multi-document Kubernetes YAML. Each case has `input/`, `cmd.json`, `outcome.json` and,
//! when the command succeeds, a hand-written `expected/` tree compared byte for byte; a
//! refusal must leave the tree as it was.

use serde_json::json;

use crate::common::{Repo, code};

#[test]
fn patch_json_takes_a_config_path_target() {
    let repo = Repo::new();
    repo.write("app.toml", "[server]\nport = 80 # public\n")
        .commit();
    let request = json!({
        "command": "patch", "file": "app.toml",
        "target": {"type": "config_path", "path": "server.port"},
        "op": {"type": "set", "new_text": "8080"},
    });
    let (rc, doc) = repo.json_stdin(&["patch", "--json"], &request.to_string());
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("app.toml"), "[server]\nport = 8080 # public\n");
    let bad = json!({
        "command": "patch", "file": "app.toml",
        "target": {"type": "config_path", "path": "server.port", "extra": 1},
        "op": {"type": "delete"},
    });
    let (rc, doc) = repo.json_stdin(&["patch", "--json"], &bad.to_string());
    assert_eq!((rc, code(&doc)), (2, "plan_malformed"), "{doc}");
    assert_eq!(repo.text("app.toml"), "[server]\nport = 8080 # public\n");
}

#[test]
fn a_stale_expected_hash_refuses_the_config_edit() {
    let repo = Repo::new();
    repo.write("a.json", "{\"a\": 1}\n").commit();
    let stale = "0".repeat(64);
    let (rc, doc) = repo.json(&[
        "patch",
        "a.json",
        "--config-path",
        "a",
        "--set-value",
        "2",
        "--expected-sha256",
        &stale,
    ]);
    assert_eq!((rc, code(&doc)), (1, "evidence_changed"), "{doc}");
    assert_eq!(repo.text("a.json"), "{\"a\": 1}\n");
}

#[test]
fn dry_run_and_diff_show_the_change_without_writing() {
    let repo = Repo::new();
    repo.write("c.yaml", "a: 1 # keep\n").commit();
    let out = repo.run(&[
        "patch",
        "c.yaml",
        "--config-path",
        "a",
        "--set-value",
        "2",
        "--dry-run",
        "--diff",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("-a: 1 # keep\n+a: 2 # keep\n"), "{text}");
    assert_eq!(repo.text("c.yaml"), "a: 1 # keep\n");
}
