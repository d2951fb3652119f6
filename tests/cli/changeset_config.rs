//! Config-path operations in changesets: bound to the full bytes of the file they were built
//! on (also with `--repair`), and several creations in one map merged at one insertion point.

use serde_json::{Value, json};

use crate::changeset::{apply, built};
use crate::common::{Repo, code};

const CONFIG: &str = "# service config\nservice:\n  name: api   # the name\n  retries: 3\n\n  timeout: \"30s\"\nitems:\n  - 1\n  - 2\n  - 3\n";

fn config(path: &str, op: Value) -> Value {
    json!({"target": {"type": "config_path", "path": path}, "op": op})
}

/// The seed: "Config plans require unchanged full-file source bytes. Replan after changes;
/// repair cannot substitute." A line appended elsewhere in the file refuses the changeset.
#[test]
fn a_config_changeset_is_refused_once_the_file_changed() {
    let repo = Repo::new();
    repo.write("config.yaml", CONFIG).commit();
    let request = json!({"command": "edit", "file": "config.yaml", "operations": [
        config("service.retries", json!({"type": "set", "new_text": "7"}))]});
    let changeset = built(&repo, &request);
    let changed = format!("{CONFIG}extra: 1\n");
    repo.write("config.yaml", &changed);
    for extra in [
        &["--dry-run"][..],
        &["--dry-run", "--repair"],
        &[],
        &["--repair"],
    ] {
        let (rc, doc) = apply(&repo, &changeset, extra);
        assert_eq!(
            (rc, code(&doc)),
            (1, "evidence_changed"),
            "{extra:?}: {doc}"
        );
        assert_eq!(
            doc["error"]["request_pointers"],
            json!(["/files/0/operations/0"]),
            "{doc}"
        );
        assert_eq!(repo.text("config.yaml"), changed);
    }
    repo.write("config.yaml", CONFIG);
    let (rc, doc) = apply(&repo, &changeset, &[]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(
        repo.text("config.yaml"),
        CONFIG.replace("retries: 3", "retries: 7")
    );
}

/// Applies `request` through `edit --json` and `apply`, in both orders of its operations.
fn both_orders(file: &str, input: &str, ops: [Value; 2], expected: &str) {
    for ops in [ops.to_vec(), ops.iter().rev().cloned().collect()] {
        let repo = Repo::new();
        repo.write(file, input).commit();
        let request = json!({"command": "edit", "file": file, "operations": ops});
        let changeset = built(&repo, &request);
        let (rc, doc) = apply(&repo, &changeset, &[]);
        assert_eq!(rc, 0, "{doc}");
        assert_eq!(repo.text(file), expected, "{file}");
    }
}

fn create(path: &str, value: &str) -> Value {
    config(
        path,
        json!({"type": "set", "new_text": value, "create_missing": true}),
    )
}

/// Two new keys that sort to one insertion point (or share a new parent) are both created, in
/// sorted order, whatever the order of the operations; a second write to one value is still
/// refused (`config_paths_in_a_batch_request`).
#[test]
fn new_keys_at_one_insertion_point_are_all_created() {
    let cargo = "[package]\nname = \"x\"\n\n[dependencies]\nanyhow = \"1\"\nserde = \"1\"\n";
    both_orders(
        "Cargo.toml",
        cargo,
        [
            create("dependencies.regex", "\"1\""),
            create("dependencies.rand", "\"0.8\""),
        ],
        "[package]\nname = \"x\"\n\n[dependencies]\nanyhow = \"1\"\nrand = \"0.8\"\nregex = \"1\"\nserde = \"1\"\n",
    );
    both_orders(
        "Cargo.toml",
        cargo,
        [create("features.b", "[]"), create("features.a", "[\"b\"]")],
        "[package]\nname = \"x\"\n\n[dependencies]\nanyhow = \"1\"\nserde = \"1\"\n\n[features]\na = [\"b\"]\nb = []\n",
    );
    both_orders(
        "package.json",
        "{\n  \"name\": \"x\",\n  \"dependencies\": {\n    \"react\": \"18\"\n  }\n}\n",
        [
            create("dependencies.zzz", "\"1\""),
            create("dependencies.zod", "\"3\""),
        ],
        "{\n  \"name\": \"x\",\n  \"dependencies\": {\n    \"react\": \"18\",\n    \"zod\": \"3\",\n    \"zzz\": \"1\"\n  }\n}\n",
    );
    both_orders(
        "config.yaml",
        CONFIG,
        [create("service.b", "2"), create("service.a", "true")],
        // The map's keys are sorted: the new ones go first.
        &CONFIG.replace("service:\n", "service:\n  a: true\n  b: 2\n"),
    );
}

/// The seed's preview command, `apply --dry-run --diff --color never`, works as written;
/// `--color` is global (before or after the subcommand), colours a diff only with `always`
/// (as identedit does), and refuses a bad value.
#[test]
fn color_is_accepted_everywhere_and_colours_only_when_always() {
    let repo = Repo::new();
    repo.write("config.yaml", CONFIG).commit();
    let request = json!({"command": "edit", "file": "config.yaml", "operations": [
        config("service.retries", json!({"type": "set", "new_text": "7"}))]});
    let changeset = built(&repo, &request);
    for args in [
        &["apply", "--dry-run", "--diff", "--color", "never", "-"][..],
        &["--color", "always", "apply", "--dry-run", "--diff", "-"],
        &["apply", "--dry-run", "--diff", "--color=auto", "-"],
    ] {
        let out = repo.run_stdin(args, &changeset.to_string());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        let diff = String::from_utf8_lossy(&out.stdout);
        if args.contains(&"always") {
            assert!(
                diff.contains(
                    "\u{1b}[31m-  retries: 3\u{1b}[0m\n\u{1b}[32m+  retries: 7\u{1b}[0m\n"
                ),
                "{diff}"
            );
        } else {
            assert!(diff.contains("-  retries: 3\n+  retries: 7\n"), "{diff}");
            assert!(!diff.contains('\u{1b}'), "coloured: {diff}");
        }
    }
    let (rc, doc) = repo.json(&["read", "--color", "never", "--json", "config.yaml"]);
    assert_eq!(rc, 0, "{doc}");
    let (rc, doc) = repo.json(&["log", "--color", "sometimes"]);
    assert_eq!((rc, code(&doc)), (2, "usage"), "{doc}");
    assert_eq!(repo.text("config.yaml"), CONFIG);
}

/// `--color always` colours diffs only: prose, pages and scripts stay plain text.
#[test]
fn color_always_leaves_text_that_is_not_a_diff_plain() {
    let repo = Repo::new();
    for args in [
        &["--color", "always", "instructions"][..],
        &["--color", "always", "completions", "bash"],
        &["--color", "always", "man"],
    ] {
        let out = repo.run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains('\u{1b}'), "{args:?} coloured: {text}");
    }
}
