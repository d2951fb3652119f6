//! Issue 13 from the built binary: Python indentation that tree-sitter accepts and CPython
//! rejects is refused on every write, at any file size, and `verify` does not pass it.

use crate::common::{Repo, code};

const EXAMPLE: &str = "class Processor:\n    def __init__(self):\n        self.items = []\n\n    def process_data(self, data):\n        result = []\n        for item in data:\n            if item:\n                result.append(item)\n        return result\n";

fn repo() -> Repo {
    let repo = Repo::new();
    repo.write("src/example.py", EXAMPLE).commit();
    repo
}

fn edit(repo: &Repo, find: &str, replace: &str, extra: &[&str]) -> (i32, serde_json::Value) {
    let find = format!("--find={find}");
    let replace = format!("--replace={replace}");
    let args = [&["edit", "src/example.py", &find, &replace][..], extra].concat();
    repo.json(&args)
}

#[test]
fn each_indentation_class_cpython_rejects_is_refused() {
    let repo = repo();
    let cases = [
        ("        result = []", "      result = []"),
        ("        return result", "      return result"),
        ("        for item in data:", "         for item in data:"),
        (
            "                result.append(item)",
            "            result.append(item)",
        ),
        ("        result = []", "\tresult = []"),
    ];
    for (find, replace) in cases {
        let (rc, doc) = edit(&repo, find, replace, &[]);
        assert_eq!((rc, code(&doc)), (1, "parse_failure"), "{replace:?}: {doc}");
        assert_eq!(repo.text("src/example.py"), EXAMPLE);
    }
    let (rc, doc) = edit(&repo, "        result = []", "        result = [0]", &[]);
    assert_eq!(rc, 0, "{doc}");
}

#[test]
fn a_symbol_body_indented_one_level_too_little_is_refused() {
    let repo = repo();
    repo.write(
        "body.py",
        "def process_data(self, data):\n    result = []\n    for item in data:\n    result.append(item)\n    return result\n",
    );
    let (rc, doc) = repo.json(&[
        "patch",
        "src/example.py",
        "--symbol",
        "Processor.process_data",
        "--replace",
        "--text-file",
        "body.py",
    ]);
    assert_eq!((rc, code(&doc)), (1, "parse_failure"), "{doc}");
    assert_eq!(repo.text("src/example.py"), EXAMPLE);
}

#[test]
fn verify_does_not_pass_a_file_cpython_rejects() {
    let repo = repo();
    let extra = ["--allow-syntax-errors"];
    let (rc, doc) = edit(&repo, "        result = []", "      result = []", &extra);
    assert_eq!(rc, 0, "{doc}");
    let (rc, doc) = repo.json(&["verify"]);
    assert_eq!(rc, 1, "{doc}");
    let syntax = doc["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == "syntax")
        .expect("syntax check");
    assert_eq!(syntax["detail"]["regressions"][0]["path"], "src/example.py");
}

#[test]
fn a_one_line_edit_that_breaks_a_large_file_is_refused() {
    let repo = Repo::new();
    let mut big = String::new();
    for i in 0..4000 {
        big.push_str(&format!(
            "def handler_{i}(request):\n    value = request.get({i})\n    return value * 2\n\n\n"
        ));
    }
    assert!(big.len() > 180_000);
    repo.write("big.py", &big).commit();
    let find = "    value = request.get(3500)";
    for replace in [
        "  value = request.get(3500)",
        "    value = request.get((3500)",
    ] {
        let (rc, doc) = repo.json(&["edit", "big.py", "--find", find, "--replace", replace]);
        assert_eq!((rc, code(&doc)), (1, "parse_failure"), "{doc}");
    }
    let ok = "    value = request.get(3501)";
    let (rc, doc) = repo.json(&["edit", "big.py", "--find", find, "--replace", ok]);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(doc["structure_changes"][0]["status"], "checked");
    assert_eq!(doc["structure_changes"][0]["scope"], "region", "{doc}");
}
