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
