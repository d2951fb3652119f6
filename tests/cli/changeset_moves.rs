//! Moves in edit requests: structures within a file and across files (exact bytes plus the
//! literal prefix / suffix, nothing inferred), whole-file moves with chains, cycles and
//! existing destinations. Expected files are written out byte for byte.

use serde_json::{Value, json};

use crate::changeset::{apply, built, handle, node, refused};
use crate::common::{Repo, code, sha256_hex};

fn commit(repo: &Repo, request: &Value) -> Value {
    let changeset = built(repo, request);
    let (status, doc) = apply(repo, &changeset, &[]);
    assert_eq!(status, 0, "{doc}");
    changeset
}

#[test]
fn a_structure_moves_within_its_file_with_literal_prefix_and_suffix() {
    let repo = Repo::new();
    repo.write(
        "m.py",
        "def a():\n    return 1\n\n\ndef b():\n    return 2\n",
    );
    let b = handle(&repo, "m.py", "b");
    let a = handle(&repo, "m.py", "a");
    let request = json!({"command": "edit", "file": "m.py", "operations": [
        {"target": node(&b), "op": {"type": "move_before", "destination": node(&a), "suffix": "\n\n\n"}}]});
    let changeset = commit(&repo, &request);
    let preview = &changeset["files"][0]["operations"][0]["preview"]["move"];
    assert_eq!(preview["from"]["old_hash"], b["expected_old_hash"]);
    assert_eq!(preview["from"]["matched_span"]["start_line"], 5);
    assert_eq!(preview["to"]["new_text"], "def b():\n    return 2\n\n\n");
    assert_eq!(
        repo.text("m.py"),
        "def b():\n    return 2\n\n\ndef a():\n    return 1\n\n\n\n"
    );
}

#[test]
fn a_structure_moves_to_another_file_byte_for_byte() {
    let repo = Repo::new();
    repo.write(
        "x.rs",
        "fn a() {}\n\n/// Doc of b.\nfn b() -> u8 {\n    2\n}\n",
    );
    repo.write("y.rs", "fn c() {}\n");
    repo.write("z.rs", "const Z: u8 = 1;\n");
    let c = handle(&repo, "y.rs", "c");
    let table = json!({"c": {"identity": c["identity"], "kind": c["kind"],
                             "expected_old_hash": c["expected_old_hash"]}});
    let request = json!({"command": "edit", "files": [
        {"file": "y.rs", "handle_table": table, "operations": []},
        {"file": "x.rs", "operations": [
            {"target": {"type": "symbol", "name": "b"},
             "op": {"type": "move_to_after", "destination_file": "y.rs",
                    "destination": {"type": "handle_ref", "ref": "c"}, "prefix": "\n\n"}},
            {"target": {"type": "symbol", "name": "a"},
             "op": {"type": "move_to_before", "destination_file": "z.rs",
                    "destination": {"type": "file_start"}, "suffix": "\n"}}]}]});
    let before = repo.tree();
    let changeset = built(&repo, &request);
    assert_eq!(repo.tree(), before);
    let moved = &changeset["files"][1]["operations"][0]["preview"]["move"];
    let recorded_destination = &changeset["files"][1]["operations"][0]["op"]["destination"];
    assert_eq!(
        recorded_destination["identity"], c["identity"],
        "handle resolved"
    );
    assert_eq!(
        (&moved["from"]["file"], &moved["to"]["file"]),
        (&json!("x.rs"), &json!("y.rs"))
    );
    let (status, doc) = apply(&repo, &changeset, &[]);
    assert_eq!(status, 0, "{doc}");
    assert_eq!(repo.text("x.rs"), "\n\n\n");
    assert_eq!(
        repo.text("y.rs"),
        "fn c() {}\n\n/// Doc of b.\nfn b() -> u8 {\n    2\n}\n"
    );
    assert_eq!(repo.text("z.rs"), "fn a() {}\nconst Z: u8 = 1;\n");
}

#[test]
fn impossible_moves_are_refused_with_their_pointer() {
    let repo = Repo::new();
    repo.write("m.py", "class C:\n    def m(self):\n        return 1\n");
    repo.write("n.py", "x = 1\n");
    let class = handle(&repo, "m.py", "C");
    let method = handle(&repo, "m.py", "C.m");
    let into_itself = json!({"command": "edit", "file": "m.py", "operations": [
        {"target": node(&class), "op": {"type": "move_after", "destination": node(&method)}}]});
    let doc = refused(&repo, &["edit", "--json"], &into_itself.to_string());
    assert_eq!(code(&doc), "edits_overlap", "{doc}");
    assert_eq!(doc["error"]["request_pointers"], json!(["/operations/0"]));
    let same_file = json!({"command": "edit", "file": "m.py", "operations": [
        {"target": node(&method), "op": {"type": "move_to_after", "destination_file": "./m.py",
                                         "destination": {"type": "file_end"}}}]});
    let doc = refused(&repo, &["edit", "--json"], &same_file.to_string());
    assert_eq!(code(&doc), "plan_malformed", "{doc}");
    let from_lines = json!({"command": "edit", "file": "n.py", "operations": [
        {"target": {"type": "file_start"}, "op": {"type": "move_after", "destination": {"type": "file_end"}}}]});
    let doc = refused(&repo, &["edit", "--json"], &from_lines.to_string());
    assert_eq!(doc["error"]["request_pointers"], json!(["/operations/0"]));
}

fn rename(from: &str, to: &str) -> Value {
    json!({"file": from, "operations": [{"target": {"type": "file"}, "op": {"type": "move", "to": to}}]})
}

#[test]
fn file_moves_chain_in_any_order_and_never_replace_a_file() {
    for order in [["a.txt", "b.txt"], ["b.txt", "a.txt"]] {
        let repo = Repo::new();
        repo.write("a.txt", "A\n").write("b.txt", "B\n");
        let entries: Vec<Value> = order
            .iter()
            .map(|f| {
                if *f == "a.txt" {
                    rename("a.txt", "b.txt")
                } else {
                    rename("b.txt", "c.txt")
                }
            })
            .collect();
        let changeset = commit(&repo, &json!({"command": "edit", "files": entries}));
        let previews: Vec<&Value> = changeset["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| &f["operations"][0]["preview"]["move"])
            .collect();
        assert!(previews.contains(&&json!({"from": "a.txt", "to": "b.txt"})));
        assert!(!repo.exists("a.txt"));
        assert_eq!(
            (repo.text("b.txt"), repo.text("c.txt")),
            ("A\n".into(), "B\n".into())
        );
    }
    let repo = Repo::new();
    repo.write("a.txt", "A\n")
        .write("b.txt", "B\n")
        .write("c.txt", "C\n");
    let cycle =
        json!({"command": "edit", "files": [rename("a.txt", "b.txt"), rename("b.txt", "a.txt")]});
    let doc = refused(&repo, &["edit", "--json"], &cycle.to_string());
    assert_eq!(code(&doc), "plan_malformed", "{doc}");
    assert_eq!(
        doc["error"]["request_pointers"],
        json!(["/files/0/operations/0", "/files/1/operations/0"])
    );
    let both =
        json!({"command": "edit", "files": [rename("a.txt", "d.txt"), rename("b.txt", "./d.txt")]});
    let doc = refused(&repo, &["edit", "--json"], &both.to_string());
    assert_eq!(code(&doc), "plan_malformed", "{doc}");
    assert_eq!(
        doc["error"]["request_pointers"],
        json!(["/files/0/operations/0", "/files/1/operations/0"])
    );
    let onto = json!({"command": "edit", "files": [rename("a.txt", "c.txt")]});
    let doc = refused(&repo, &["edit", "--json"], &onto.to_string());
    assert_eq!(code(&doc), "target_exists", "{doc}");
    // `--overwrite` does not apply to edit requests: the hint does not offer it.
    let hint = doc["error"]["hint"].as_str().expect("hint");
    assert!(
        hint.contains("never replace") && !hint.contains("pass --overwrite"),
        "{hint}"
    );
    let mixed = json!({"command": "edit", "file": "a.txt", "operations": [
        {"target": {"type": "file"}, "op": {"type": "move", "to": "d.txt"}},
        {"target": {"type": "file_end"}, "op": {"type": "insert", "new_text": "x\n"}}]});
    let doc = refused(&repo, &["edit", "--json"], &mixed.to_string());
    assert_eq!(
        doc["error"]["request_pointers"],
        json!(["/operations/0", "/operations/1"])
    );
}

#[test]
fn a_file_move_is_bound_to_the_bytes_it_was_built_on() {
    let repo = Repo::new();
    repo.write("a.txt", "A\n");
    let request = json!({"command": "edit", "files": [rename("a.txt", "sub/a.txt")]});
    let changeset = built(&repo, &request);
    assert_eq!(
        changeset["files"][0]["operations"][0]["target"]["expected_file_hash"],
        sha256_hex(b"A\n")
    );
    repo.write("a.txt", "changed\n");
    let doc = refused(&repo, &["apply", "-"], &changeset.to_string());
    assert_eq!(code(&doc), "evidence_changed", "{doc}");
    repo.write("a.txt", "A\n");
    let (status, doc) = apply(&repo, &changeset, &[]);
    assert_eq!(status, 0, "{doc}");
    assert_eq!(repo.text("sub/a.txt"), "A\n");
    assert!(!repo.exists("a.txt"));
}

#[test]
fn a_structure_moves_beside_a_line_and_its_preview_is_guarded() {
    let repo = Repo::new();
    repo.write("m.py", "def a():\n    return 1\n\n# tail\n");
    let (status, lines) = repo.json(&["read", "--mode", "line", "--json", "m.py"]);
    assert_eq!(status, 0);
    let tail = lines["files"][0]["handles"][3]["anchor"].clone();
    let a = handle(&repo, "m.py", "a");
    let request = json!({"command": "edit", "file": "m.py", "operations": [
        {"target": node(&a), "op": {"type": "move_after",
            "destination": {"type": "line", "anchor": tail}, "suffix": "\n"}}]});
    let changeset = built(&repo, &request);
    let mut forged = changeset.clone();
    forged["files"][0]["operations"][0]["preview"]["move"]["to"]["new_text"] = json!("import os\n");
    crate::changeset::redigest(&mut forged); // a forger who recomputes the digest
    let doc = refused(&repo, &["apply", "-"], &forged.to_string());
    assert_eq!(code(&doc), "changeset_tampered", "{doc}");
    let (status, doc) = apply(&repo, &changeset, &[]);
    assert_eq!(status, 0, "{doc}");
    assert_eq!(repo.text("m.py"), "\n\n# tail\ndef a():\n    return 1\n");
}

/// A line destination on the moved structure's own lines (its first or its last line, either
/// side) is inside or at the edge of it: refused, and nothing is written.
#[test]
fn a_line_destination_on_the_moved_structure_is_refused() {
    let repo = Repo::new();
    repo.write(
        "a.py",
        "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n",
    );
    let alpha = handle(&repo, "a.py", "alpha");
    let line =
        |n: usize| json!({"type": "line", "anchor": crate::changeset::anchor(&repo, "a.py", n)});
    let before = repo.tree();
    for (kind, n) in [
        ("move_after", 2),
        ("move_before", 2),
        ("move_after", 1),
        ("move_before", 1),
    ] {
        let request = json!({"command": "edit", "file": "a.py", "operations": [
            {"target": node(&alpha), "op": {"type": kind, "destination": line(n), "prefix": "\n"}}]});
        let doc = refused(&repo, &["edit", "--json"], &request.to_string());
        assert_eq!(code(&doc), "edits_overlap", "{kind} {n}: {doc}");
        assert_eq!(doc["error"]["request_pointers"], json!(["/operations/0"]));
    }
    assert_eq!(repo.tree(), before);
    let request = json!({"command": "edit", "file": "a.py", "operations": [
        {"target": node(&alpha), "op": {"type": "move_after", "destination": line(6),
                                        "prefix": "\n\n", "suffix": "\n"}}]});
    commit(&repo, &request);
    assert_eq!(
        repo.text("a.py"),
        "\n\n\ndef beta():\n    return 2\n\n\ndef alpha():\n    return 1\n"
    );
}
