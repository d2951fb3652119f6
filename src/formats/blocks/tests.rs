//! The SEARCH/REPLACE parser on hand-written inputs: paths, fences, dividers, elisions and
//! the refusals of malformed blocks.

use super::*;
use crate::error::Code;

/// `path@line: "search" => "replace"` for every block.
fn blocks(input: &str) -> Vec<String> {
    let plan = parse(input).expect("the input parses");
    assert_eq!(plan.dialect, "blocks");
    let show = |(index, op): (usize, Op)| {
        assert_eq!((op.origin.list, op.origin.index), ("blocks", index));
        assert_eq!(op.path.base, PathBase::Root);
        let OpKind::Block(b) = op.kind else {
            panic!("not a block: {:?}", op.kind)
        };
        let plain = Block {
            search: b.search.clone(),
            replace: b.replace.clone(),
            readings: b.readings.clone(),
            anchors: b.anchors.clone(),
            ..Block::default()
        };
        assert_eq!(b, plain);
        let line = op.origin.input_line.expect("a line");
        let after = match b.anchors.is_empty() {
            true => String::new(),
            false => format!(" after {:?}", b.anchors),
        };
        format!(
            "{}@{line}: {:?} => {:?}{after}",
            op.path.raw, b.search, b.replace
        )
    };
    plan.ops.into_iter().enumerate().map(show).collect()
}

fn paths(input: &str) -> Vec<String> {
    let plan = parse(input).expect("the input parses");
    plan.ops.into_iter().map(|op| op.path.raw).collect()
}

/// The message and input line of a refused input.
fn refused(input: &str) -> (String, Option<u64>) {
    let err = parse(input).expect_err("the input is refused");
    assert_eq!(err.code, Code::PlanMalformed, "{}", err.message);
    let line = err
        .details
        .get("input_line")
        .and_then(serde_json::Value::as_u64);
    (err.message, line)
}

const BODY: &str = "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n";

#[test]
fn filename_above_the_fence() {
    let input =
        "src/a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n";
    assert_eq!(blocks(input), [r#"src/a.py@3: "x = 1\n" => "x = 2\n""#]);
}

#[test]
fn filename_inside_the_fence_and_after_fence_runs() {
    let inside = format!("```python\nsrc/a.py\n{BODY}```\n");
    assert_eq!(blocks(&inside), [r#"src/a.py@3: "a\n" => "b\n""#]);
    let deepseek = format!("```python\nfoo.txt\n```\n```python\n{BODY}```\n");
    assert_eq!(paths(&deepseek), ["foo.txt"]);
    assert_eq!(paths(&format!("```src/b.rs\n{BODY}```\n")), ["src/b.rs"]);
}

#[test]
fn path_decorations_are_removed_but_dot_slash_is_kept() {
    for (line, path) in [
        ("# src/a.py", "src/a.py"),
        ("## `src/a.py`", "src/a.py"),
        ("`src/a.py`:", "src/a.py"),
        ("**src/a.py**:", "src/a.py"),
        ("**`./src/a.py`**", "./src/a.py"),
        ("\"docs/my notes.md\"", "docs/my notes.md"),
        ("Makefile", "Makefile"),
    ] {
        assert_eq!(
            paths(&format!("{line}\n\n```\n{BODY}```\n")),
            [path],
            "{line}"
        );
    }
}

#[test]
fn marker_variants() {
    let input = "a.txt\n<<<<< SEARCH\nold\n=====\nnew\n>>>>> REPLACE\nb.txt\n<<<<<<<<< SEARCH>\nold\n=========\nnew\n>>>>>>>>> REPLACE```\nc.txt\n  <<<<<<< SEARCH  \nold\n  =======\nnew\n  >>>>>>> REPLACE\n";
    assert_eq!(
        blocks(input),
        [
            r#"a.txt@2: "old\n" => "new\n""#,
            r#"b.txt@8: "old\n" => "new\n""#,
            r#"c.txt@14: "old\n" => "new\n""#
        ]
    );
    let too_short = "a.txt\n<<<< SEARCH\nold\n====\nnew\n>>>> REPLACE\n";
    assert_eq!(refused(too_short).0, "no SEARCH/REPLACE blocks found");
}

#[test]
fn quad_fence_holds_triple_fences_in_the_code() {
    let input = "README.md\n````markdown\n<<<<<<< SEARCH\n```sh\nmake\n```\n=======\n```sh\nmake all\n```\n>>>>>>> REPLACE\n````\n";
    assert_eq!(
        blocks(input),
        [r#"README.md@3: "```sh\nmake\n```\n" => "```sh\nmake all\n```\n""#]
    );
}

#[test]
fn several_blocks_per_fence_and_inheritance_across_fences() {
    let input = format!(
        "src/a.py\n```python\n{BODY}{BODY}```\n\nAnd further down:\n\n```python\n{BODY}```\n"
    );
    let expected: Vec<String> = [3, 8, 18]
        .iter()
        .map(|l| format!(r#"src/a.py@{l}: "a\n" => "b\n""#))
        .collect();
    assert_eq!(blocks(&input), expected);
}

#[test]
fn several_files_and_empty_sections() {
    let input = "a.txt\n```\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n```\nb/c.txt\n```\n<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n```\nold.txt\n<<<<<<< SEARCH\ngone\n=======\n>>>>>>> REPLACE";
    assert_eq!(
        blocks(input),
        [
            r#"a.txt@3: "1\n" => "2\n""#,
            r#"b/c.txt@11: "" => "new\n""#,
            r#"old.txt@17: "gone\n" => """#
        ]
    );
}

#[test]
fn crlf_input_keeps_crlf_contents() {
    let input = "src\\a.txt\r\n```\r\n<<<<<<< SEARCH\r\none\r\ntwo\r\n=======\r\nuno\r\n>>>>>>> REPLACE\r\n```";
    assert_eq!(
        blocks(input),
        [r#"src\a.txt@3: "one\r\ntwo\r\n" => "uno\r\n""#]
    );
}

#[test]
fn blocks_inside_a_long_prose_reply() {
    let input = "\u{feff}Sure! I'll rename the helper and update its caller.\n\nPlan\n=======\n\n1. Rename `add` in `calc.py`.\n2. Update the test:\n\n```bash\npytest -q\n```\n\nHere are the edits.\n\ncalc.py\n```python\n<<<<<<< SEARCH\ndef add(a, b):\n=======\ndef plus(a, b):\n>>>>>>> REPLACE\n```\n\nNow update the test:\n```python\n<<<<<<< SEARCH\nassert add(1, 2) == 3\n=======\nassert plus(1, 2) == 3\n>>>>>>> REPLACE\n```\n\n**tests/test_calc.py**\n```python\n<<<<<<< SEARCH\nfrom calc import add\n=======\nfrom calc import plus\n>>>>>>> REPLACE\n```\n\nThat's it. Run the tests with `pytest`.\n";
    // "Now update the test:" is prose, not a path: that block inherits `calc.py`.
    assert_eq!(paths(input), ["calc.py", "calc.py", "tests/test_calc.py"]);
    assert_eq!(
        blocks(input)[0],
        r#"calc.py@17: "def add(a, b):\n" => "def plus(a, b):\n""#
    );
}

#[test]
fn divider_lines_inside_the_code() {
    // In REPLACE only: the first candidate is the divider.
    let added = "doc.rst\n<<<<<<< SEARCH\nTitle\n=======\nTitle\n=======\n>>>>>>> REPLACE\n";
    assert_eq!(
        blocks(added),
        [r#"doc.rst@2: "Title\n" => "Title\n=======\n""#]
    );
    // Written unlike the head (`=====`, indented): code, wherever it stands.
    let styled =
        "doc.md\n<<<<<<< SEARCH\nTitle\n=====\n=======\nHeading\n  =======\n>>>>>>> REPLACE\n";
    assert_eq!(
        blocks(styled),
        [r#"doc.md@2: "Title\n=====\n" => "Heading\n  =======\n""#]
    );
    // A merge conflict in SEARCH can be resolved.
    let conflict = "a.txt\n<<<<<<< SEARCH\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> topic\n=======\nours\n>>>>>>> REPLACE\n";
    let resolved = r#"a.txt@2: "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> topic\n" => "ours\n""#;
    assert_eq!(blocks(conflict), [resolved]);
    // Still ambiguous: the first reading leads, the other travels with it (the file
    // decides which SEARCH part matches).
    let ambiguous = "a.md\n<<<<<<< SEARCH\nA\n=======\nB\n=======\nC\n>>>>>>> REPLACE\n";
    assert_eq!(blocks(ambiguous), [r#"a.md@2: "A\n" => "B\n=======\nC\n""#]);
    let plan = parse(ambiguous).expect("parses");
    let OpKind::Block(block) = &plan.ops[0].kind else {
        panic!("a block")
    };
    assert_eq!(
        block.readings,
        [("A\n=======\nB\n".to_owned(), "C\n".to_owned())]
    );
}

#[test]
fn dots_split_a_block_into_pieces() {
    let input = "a.py\n```\n<<<<<<< SEARCH\ndef f():\n...\n    return 1\n=======\ndef f():\n...\n    return 2\n>>>>>>> REPLACE\n```\n";
    assert_eq!(
        blocks(input),
        [r#"a.py@3: "    return 1\n" => "    return 2\n" after ["def f():"]"#]
    );
}

#[test]
fn missing_filename_is_refused_with_its_line() {
    let (message, line) = refused(&format!("Here is the change:\n\n```python\n{BODY}```\n"));
    assert_eq!(line, Some(4), "{message}");
    assert!(message.contains("no file path"), "{message}");
}

#[test]
fn broken_blocks_are_refused_with_their_line() {
    assert_eq!(refused("a.txt\n<<<<<<< SEARCH\na\n=======\nb\n").1, Some(2));
    let (message, line) = refused(&format!(
        "a.txt\n<<<<<<< SEARCH\na\n=======\nb\nb.txt\n{BODY}"
    ));
    assert_eq!(line, Some(2));
    assert!(message.contains("line 7"), "{message}");
    assert_eq!(
        refused("a.txt\n<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n").1,
        Some(2)
    );
    let (message, line) = refused(&format!("a.txt\n{BODY}c\n>>>>>>> REPLACE\n"));
    assert_eq!(line, Some(8));
    assert!(message.contains("ended at line 6"), "{message}");
    assert_eq!(
        refused("just prose\n=======\n").0,
        "no SEARCH/REPLACE blocks found"
    );
    assert_eq!(refused("").0, "no SEARCH/REPLACE blocks found");
}
