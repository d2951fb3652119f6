//! `read` end to end: outlines, structures with context and line anchors, as JSON handles and
//! as the text an agent copies from.

use serde_json::{Value, json};

use crate::common::sha256_hex;
use crate::syntax::{PY, anchor, handles, py_repo};

#[test]
fn read_outline_symbol_and_lines_follow_the_hash_contract() {
    let repo = py_repo();
    let (rc, doc) = repo.json(&["read", "m.py"]);
    assert_eq!(rc, 0, "{doc}");
    let names: Vec<Value> = handles(&doc)
        .iter()
        .map(|h| h["qualified_name"].clone())
        .collect();
    assert_eq!(
        names,
        [
            json!("A"),
            json!("A.run"),
            json!("B"),
            json!("B.run"),
            json!("helper")
        ]
    );
    let helper = &handles(&doc)[4];
    let text = "def helper(x):\n    return x * 2";
    assert_eq!(
        helper["expected_old_hash"],
        sha256_hex(text.as_bytes())[..16]
    );
    let identity_input = format!("function_definition\nhelper\n{text}");
    assert_eq!(
        helper["identity"],
        sha256_hex(identity_input.as_bytes())[..16]
    );
    assert_eq!(doc["files"][0]["sha256"], sha256_hex(PY.as_bytes()));

    let out = repo.run(&["read", "m.py", "--symbol", "B.run", "--context", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("# node --at "), "{text}");
    assert!(
        text.contains(&format!(
            "{}|    def run(self):",
            anchor(10, "    def run(self):")
        )),
        "{text}"
    );
    assert!(text.contains("# context before\n9:"), "{text}");

    let out = repo.run(&[
        "read", "--mode", "line", "m.py", "--offset", "14", "--limit", "1",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text,
        format!(
            "# 13 line(s) omitted before\n{}|def helper(x):\n# 1 line(s) omitted after\n",
            anchor(14, "def helper(x):")
        )
    );
}

#[test]
fn read_selects_by_kind_and_name_glob() {
    let repo = py_repo();
    let (_, doc) = repo.json(&[
        "read",
        "m.py",
        "--kind",
        "function_definition",
        "--name",
        "r?n",
    ]);
    let names: Vec<Value> = handles(&doc)
        .iter()
        .map(|h| h["qualified_name"].clone())
        .collect();
    assert_eq!(names, [json!("A.run"), json!("B.run")]);
    let (_, doc) = repo.json(&["read", "m.py", "--exclude-kind", "function_definition"]);
    assert_eq!(handles(&doc).len(), 2);
}

/// The identity `read` prints for a structure: sha256 of kind, qualified name and text.
fn identity(kind: &str, name: &str, text: &str) -> String {
    sha256_hex(format!("{kind}\n{name}\n{text}").as_bytes())[..16].to_owned()
}

#[test]
fn read_text_output_is_byte_exact_for_outlines_and_symbols() {
    let repo = py_repo();
    let header = format!("## m.py  sha256:{}\n", sha256_hex(PY.as_bytes()));
    let b_run = identity(
        "function_definition",
        "B.run",
        "def run(self):\n        return 2",
    );
    let out = repo.run(&["read", "m.py", "--symbol", "B.run", "--context", "1"]);
    let expected = format!(
        "{header}# node --at {b_run}  function_definition B.run [10-11]\n\
         # context before\n{}|class B:\n# symbol\n{}|    def run(self):\n{}|        return 2\n\
         # context after\n{}|\n",
        anchor(9, "class B:"),
        anchor(10, "    def run(self):"),
        anchor(11, "        return 2"),
        anchor(12, ""),
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);

    let out = repo.run(&["read", "m.py"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], header.trim_end());
    assert_eq!(
        lines[4],
        format!("  {b_run} function_definition B.run [10-11]")
    );
    assert_eq!(lines.len(), 6, "{text}");
}
