//! Text errors carry the fix: the code, the cause, the nearest place (closest lines with their
//! numbers, candidates, the structures a file has, every failing block) and the next action in
//! the terms of the command that was run.

use crate::common::Repo;

fn error_text(repo: &Repo, args: &[&str], stdin: &str) -> String {
    let out = repo.run_stdin(&[args, &["--format", "text"]].concat(), stdin);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn repo() -> Repo {
    let repo = Repo::new();
    repo.write("a.txt", "a - b\nx\na - b\n")
        .write(
            "m.py",
            "def f():\n    return 1\n\ndef f2():\n    return 2\n",
        )
        .commit();
    repo
}

#[test]
fn flag_form_errors_name_flags_not_plan_fields() {
    let repo = repo();
    let text = error_text(
        &repo,
        &["edit", "a.txt", "--find", "a - b", "--replace", "q"],
        "",
    );
    assert_eq!(
        text,
        "error[anchor_ambiguous]: `--find` occurs 2 times in a.txt (lines 1, 3)\n\
         hint: Nothing was changed. `--find` matches more than once; add surrounding lines to \
         make it unique, or pass `--occurrence N` (1-based) or `--all`.\n"
    );
    let text = error_text(
        &repo,
        &["edit", "nope.txt", "--find", "a", "--replace", "q"],
        "",
    );
    assert!(
        text.starts_with("error[input_not_found]: nope.txt does not exist\n"),
        "{text}"
    );
    assert!(text.contains("relative to the current directory") && !text.contains("in a plan"));
    // A plan keeps its own terms.
    let plan = crate::common::plan(serde_json::json!(
        {"edits": [{"path": "a.txt", "find": "a - b", "replace": "q"}]}));
    let text = error_text(&repo, &["apply", "-"], &plan);
    assert!(
        text.contains("or set `occurrence` (1-based) or `all`"),
        "{text}"
    );
}

#[test]
fn a_missing_text_shows_the_closest_lines_with_their_numbers() {
    let repo = repo();
    let text = error_text(
        &repo,
        &["patch", "a.txt", "--find", "a + c", "--replace", "q"],
        "",
    );
    assert!(
        text.contains("  closest in a.txt at line 1 (similarity 0.25):\n        1 | a - b\n"),
        "{text}"
    );
    assert!(
        text.contains("copy the exact current text into `--find`"),
        "{text}"
    );
    let blocks = "a.txt\n<<<<<<< SEARCH\na * b\nx\n=======\nz\n>>>>>>> REPLACE\n\
                  a.txt\n<<<<<<< SEARCH\nqq\n=======\nz\n>>>>>>> REPLACE\n";
    let text = error_text(&repo, &["apply", "-"], blocks);
    assert!(text.contains("\n  - blocks[0] (line 2): "), "{text}");
    assert!(text.contains("\n  - blocks[1] (line 9): "), "{text}");
    assert!(
        text.contains("          1 | a - b\n          2 | x\n"),
        "{text}"
    );
}

#[test]
fn a_structure_miss_lists_what_the_file_has_and_ambiguity_the_candidates() {
    let repo = repo();
    let text = error_text(
        &repo,
        &["patch", "m.py", "--symbol", "g", "--replace", "x"],
        "",
    );
    assert!(text.contains("\n  structures in m.py: f, f2\n"), "{text}");
    let args = [
        "patch",
        "m.py",
        "--kind",
        "function_definition",
        "--name",
        "f*",
        "--replace",
        "x",
    ];
    let text = error_text(&repo, &args, "");
    assert!(
        text.contains("  candidates (use one identity with `--at`):\n"),
        "{text}"
    );
    assert!(
        text.contains("  function_definition f2  line 4\n"),
        "{text}"
    );
}

#[test]
fn a_stale_line_anchor_shows_the_line_as_it_is_now_and_where_it_moved() {
    let repo = Repo::new();
    repo.write("a.txt", "a\nb\nc\n").commit();
    let text = error_text(
        &repo,
        &["patch", "a.txt", "--at", "2:deadbeef", "--replace", "x"],
        "",
    );
    assert!(text.contains("\n  line 2 is now 2:3e23e816\n"), "{text}");
    repo.write("a.txt", "z\na\nb\nc\n");
    let text = error_text(
        &repo,
        &["patch", "a.txt", "--at", "2:3e23e816", "--replace", "x"],
        "",
    );
    assert!(
        text.contains("\n  the anchored line moved to line 3\n"),
        "{text}"
    );
}
