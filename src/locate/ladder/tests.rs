//! Tests of the tolerance ladder.
use super::*;
use crate::locate::file_text::FileText;

fn run(
    text: &str,
    search: &str,
    replace: &str,
) -> std::result::Result<(String, &'static str), &'static str> {
    let block = Block {
        search: search.into(),
        replace: replace.into(),
        ..Block::default()
    };
    let r = resolve(
        &block,
        &FileText::new(text),
        "f",
        0,
        "blocks[0]",
        Digest::of(b""),
        false,
    )
    .map_err(|e| e.code.as_str())?;
    Ok((
        String::from_utf8_lossy(&crate::plan::splice::apply(text.as_bytes(), &r.splices))
            .into_owned(),
        r.matched_by,
    ))
}

#[test]
fn climbs_the_ladder() {
    assert_eq!(
        run("a\nb\nc\n", "b\n", "B\n"),
        Ok(("a\nB\nc\n".into(), "exact"))
    );
    assert_eq!(
        run("a\r\nb\r\nc\r\n", "a\nb\n", "x\ny\n"),
        Ok(("x\r\ny\r\nc\r\n".into(), "line_endings"))
    );
    assert_eq!(
        run("a  \nb\n", "a\nb\n", "A\nB\n"),
        Ok(("A\nB\n".into(), "trailing_whitespace"))
    );
    assert_eq!(
        run(
            "fn f() {\n        x();\n        y();\n}\n",
            "x();\ny();\n",
            "x();\nz();\n"
        ),
        Ok((
            "fn f() {\n        x();\n        z();\n}\n".into(),
            "indentation"
        ))
    );
    assert_eq!(
        run("if a:\n\tgo()\n", "if a:\n    go()\n", "if b:\n    go()\n"),
        Ok(("if b:\n\tgo()\n".into(), "indentation"))
    );
    assert_eq!(
        run(
            "say(\u{201c}hi\u{201d})\n",
            "say(\"hi\")\n",
            "say(\"ho\")\n"
        ),
        Ok(("say(\"ho\")\n".into(), "unicode_punctuation"))
    );
}

#[test]
fn refuses_ambiguity_and_reports_already_applied() {
    assert_eq!(run("x\nx\n", "x\n", "y\n"), Err("anchor_ambiguous"));
    assert_eq!(
        run("a\nB\n", "b\n", "B\n"),
        Ok(("a\nB\n".into(), "already_applied"))
    );
    assert_eq!(run("a\n", "q\n", "r\n"), Err("anchor_missing"));
}

#[test]
fn keeps_the_final_newline_state() {
    assert_eq!(
        run("a\nb", "b\n", "c\n"),
        Ok(("a\nc".into(), "line_endings"))
    );
}

#[test]
fn anchors_and_pure_additions() {
    let block = Block {
        search: String::new(),
        replace: "new\n".into(),
        anchors: vec!["def f():".into()],
        ..Block::default()
    };
    let r = resolve(
        &block,
        &FileText::new("x\ndef f():\n    pass\n"),
        "f",
        0,
        "c",
        Digest::of(b""),
        false,
    )
    .expect("anchor");
    assert_eq!(
        crate::plan::splice::apply(b"x\ndef f():\n    pass\n", &r.splices),
        b"x\ndef f():\nnew\n    pass\n"
    );
    let twice = Block {
        search: "pass\n".into(),
        replace: "return 1\n".into(),
        anchors: vec!["def g():".into()],
        ..Block::default()
    };
    let text = "def f():\n    pass\ndef g():\n    pass\n";
    let r = resolve(
        &twice,
        &FileText::new(text),
        "f",
        0,
        "c",
        Digest::of(b""),
        false,
    )
    .expect("after anchor");
    assert_eq!(
        crate::plan::splice::apply(text.as_bytes(), &r.splices),
        b"def f():\n    pass\ndef g():\n    return 1\n"
    );
}

fn run_block(
    text: &str,
    block: &Block,
    exact: bool,
) -> std::result::Result<(String, &'static str), &'static str> {
    let r = resolve(
        block,
        &FileText::new(text),
        "f",
        0,
        "blocks[0]",
        Digest::of(b""),
        exact,
    )
    .map_err(|e| e.code.as_str())?;
    let out = crate::plan::splice::apply(text.as_bytes(), &r.splices);
    Ok((String::from_utf8_lossy(&out).into_owned(), r.matched_by))
}

#[test]
fn unchanged_lines_keep_the_files_bytes() {
    assert_eq!(
        run("a()   \nb\nc\t\n", "a()\nb\nc\n", "a()\nB\nc\n"),
        Ok(("a()   \nB\nc\t\n".into(), "trailing_whitespace"))
    );
    assert_eq!(
        run(
            "say(\"hi\")\nx = 1\n",
            "say(\u{201c}hi\u{201d})\nx = 1\n",
            "say(\u{201c}hi\u{201d})\nx = 2\n"
        ),
        Ok(("say(\"hi\")\nx = 2\n".into(), "unicode_punctuation"))
    );
    assert_eq!(
        run(
            "one\r\ntwo\nthree\r\nfour\n",
            "two\nthree\nfour\n",
            "two\nTHREE\nfour\nfive\n"
        ),
        Ok(("one\r\ntwo\nTHREE\r\nfour\nfive\n".into(), "line_endings"))
    );
    assert_eq!(
        run(
            "    if x:\n        go()   \n",
            "if x:\n    go()\n",
            "if x:\n    stop()\n    go()\n"
        ),
        Ok((
            "    if x:\n        stop()\n        go()   \n".into(),
            "indentation"
        ))
    );
}

#[test]
fn a_dialects_pairing_decides_which_line_goes() {
    use crate::plan::Side::{Both, Old};
    let block = Block {
        search: "same\nsame\n".into(),
        replace: "same\n".into(),
        script: vec![Old, Both],
        ..Block::default()
    };
    assert_eq!(
        run_block("same\r\nsame\n", &block, false),
        Ok(("same\n".into(), "line_endings"))
    );
}

#[test]
fn an_exact_match_has_no_priority_over_a_tolerant_twin() {
    let text = "if a:\n    x()\n    y()\nx()\ny()\n";
    let block = Block {
        search: "x()\ny()\n".into(),
        replace: "x()\nz()\n".into(),
        ..Block::default()
    };
    assert_eq!(run_block(text, &block, false), Err("anchor_ambiguous"));
    assert_eq!(
        run_block(text, &block, true),
        Ok(("if a:\n    x()\n    y()\nx()\nz()\n".into(), "exact"))
    );
}

#[test]
fn blank_edges_the_file_lacks_are_dropped() {
    assert_eq!(
        run("a\nb\nc\n", "\nb\n\n", "\nB\n\n"),
        Ok(("a\nB\nc\n".into(), "blank_lines"))
    );
    assert_eq!(
        run("a\nb\n\nb\n", "\nb\nc\n", "\nB\nc\n"),
        Err("anchor_missing")
    );
}

#[test]
fn retries_never_duplicate() {
    assert_eq!(
        run("a\nc\n", "a\n", "a\nb\n"),
        Ok(("a\nb\nc\n".into(), "exact"))
    );
    assert_eq!(
        run("a\nb\nc\n", "a\n", "a\nb\n"),
        Ok(("a\nb\nc\n".into(), "already_applied"))
    );
    assert_eq!(
        run("a\nb\nc\n", "c\n", "b\nc\n"),
        Ok(("a\nb\nc\n".into(), "already_applied"))
    );
    assert_eq!(
        run("a\nc\n", "a\nb\nc\n", "a\nc\n"),
        Ok(("a\nc\n".into(), "already_applied"))
    );
    // Only whitespace changes: the search still matches, so it applies.
    assert_eq!(
        run("f()   \n", "f()   \n", "f()\n"),
        Ok(("f()\n".into(), "exact"))
    );
}

#[test]
fn removing_one_of_two_equal_lines_in_a_block() {
    assert_eq!(
        run("same\r\nsame\n", "same\nsame\n", "same\n"),
        Ok(("same\n".into(), "line_endings"))
    );
}

#[test]
fn quotes_curled_everywhere_are_straightened_in_changed_lines_too() {
    assert_eq!(
        run(
            "x = \"a\"\ny = 'b'\n",
            "x = \u{201c}a\u{201d}\ny = \u{2018}b\u{2019}\n",
            "x = \u{201c}a\u{201d}\ny = \u{2018}c\u{2019}\n"
        ),
        Ok(("x = \"a\"\ny = 'c'\n".into(), "unicode_punctuation"))
    );
    // The file has curly quotes of its own: the block's new lines are taken as written.
    assert_eq!(
        run(
            "s = \"\u{201c}a\u{201d}\"\nt = 1\n",
            "s = \"\u{201c}a\u{201d}\"\nt = 1\n",
            "s = \"\u{201c}b\u{201d}\"\nt = 1\n"
        ),
        Ok(("s = \"\u{201c}b\u{201d}\"\nt = 1\n".into(), "exact"))
    );
}

#[test]
fn a_stale_deletion_is_not_already_applied() {
    // Retried: the removed line is gone.
    assert_eq!(
        run(
            "a = 1\nb = 2\nend()\n",
            "a = 1\nb = 2\nold_call(x)\n",
            "a = 1\nb = 2\n"
        ),
        Ok(("a = 1\nb = 2\nend()\n".into(), "already_applied"))
    );
    // Stale: the line to remove was changed meanwhile and still stands there.
    assert_eq!(
        run(
            "a = 1\nb = 2\nold_call(y)\n",
            "a = 1\nb = 2\nold_call(x)\n",
            "a = 1\nb = 2\n"
        ),
        Err("anchor_missing")
    );
}

#[test]
fn retried_appends_and_anchored_insertions_are_already_applied() {
    let append = Block {
        replace: "tue\n".into(),
        at_eof: true,
        ..Block::default()
    };
    assert_eq!(
        run_block("mon\n", &append, false),
        Ok(("mon\ntue\n".into(), "end_of_file"))
    );
    assert_eq!(
        run_block("mon\ntue\n", &append, false),
        Ok(("mon\ntue\n".into(), "already_applied"))
    );
    let anchored = Block {
        replace: "    x = 1\n".into(),
        anchors: vec!["def f():".into()],
        ..Block::default()
    };
    assert_eq!(
        run_block("def f():\n    x = 1\n", &anchored, false),
        Ok(("def f():\n    x = 1\n".into(), "already_applied"))
    );
    // The same line elsewhere is no evidence.
    assert_eq!(
        run_block("def f():\n    y = 2\n    x = 1\n", &anchored, false),
        Ok((
            "def f():\n    x = 1\n    y = 2\n    x = 1\n".into(),
            "anchor"
        ))
    );
}

/// Of a block's divider readings, one that really matches wins over a longer one that only
/// finds its replacement already standing in the file.
#[test]
fn a_matching_reading_beats_an_already_applied_one() {
    let block = Block {
        search: "A\n".into(),
        replace: "B\n=======\nC\n".into(),
        readings: vec![("A\n=======\nB\n".into(), "C\n".into())],
        ..Block::default()
    };
    let text = "A\nx\nC\n";
    let r = resolve(
        &block,
        &FileText::new(text),
        "f",
        0,
        "blocks[0]",
        Digest::of(b""),
        false,
    )
    .map_err(|e| e.code.as_str());
    let r = r.expect("the first reading matches");
    assert_eq!(r.matched_by, "exact");
    assert_eq!(
        String::from_utf8_lossy(&crate::plan::splice::apply(text.as_bytes(), &r.splices)),
        "B\n=======\nC\nx\nC\n"
    );
}

#[test]
fn a_block_drawn_at_another_indentation_scale_is_rescaled_to_the_files() {
    // A 2-space file, the block written with 4 spaces a level: new lines take the file's scale.
    let js = "function f(d) {\n  return d.x;\n}\n";
    assert_eq!(
        run(
            js,
            "function f(d) {\n    return d.x;\n}\n",
            "function f(d) {\n    if (!d) {\n        return 0;\n    }\n    return d.x;\n}\n"
        ),
        Ok((
            "function f(d) {\n  if (!d) {\n    return 0;\n  }\n  return d.x;\n}\n".into(),
            "indentation_rescaled"
        ))
    );
    // A 4-space file inside a class, the block at 2 spaces a level and no base indentation.
    let py = "class A:\n    def f(self):\n        return 1\n";
    assert_eq!(
        run(
            py,
            "def f(self):\n  return 1\n",
            "def f(self):\n  x = 1\n  return x\n"
        ),
        Ok((
            "class A:\n    def f(self):\n        x = 1\n        return x\n".into(),
            "indentation_rescaled"
        ))
    );
    // A tab-indented file (a tab is 4 wide), the block at 2 spaces a level: tabs again.
    assert_eq!(
        run(
            "if a {\n\tgo()\n}\n",
            "if a {\n  go()\n}\n",
            "if a {\n  go()\n  stop()\n}\n"
        ),
        Ok((
            "if a {\n\tgo()\n\tstop()\n}\n".into(),
            "indentation_rescaled"
        ))
    );
}

#[test]
fn rescaling_is_a_last_resort_that_must_match_once() {
    let search = "if a:\n    b()\n";
    // The same lines at two scales in the file, neither as written: both are named.
    assert_eq!(
        run("if a:\n  b()\nif a:\n b()\n", search, "if a:\n    c()\n"),
        Err("anchor_ambiguous")
    );
    // A match on the ladder (here exact) is never weighed against rescaled places.
    assert_eq!(
        run("if a:\n  b()\nif a:\n    b()\n", search, "if a:\n    c()\n"),
        Ok(("if a:\n  b()\nif a:\n    c()\n".into(), "exact"))
    );
    // Applied before, at the file's scale: a retry writes nothing.
    assert_eq!(
        run("if a:\n  c()\n", search, "if a:\n    c()\n"),
        Ok(("if a:\n  c()\n".into(), "already_applied"))
    );
    // Levels that no single ratio relates (2 then 3 more in the file, 4 then 4 in the block)
    // are not a rescaling.
    assert_eq!(
        run(
            "a:\n  b:\n     c\n",
            "a:\n    b:\n        c\n",
            "a:\n    b:\n        d\n"
        ),
        Err("anchor_missing")
    );
}

#[test]
fn a_retried_block_with_a_blank_edge_the_file_lacks_is_already_applied() {
    let (search, replace) = ("\n    x = 1\n", "\n    x = 2\n");
    let (once, how) = run("def f():\n    x = 1\n", search, replace).expect("first");
    assert_eq!(
        (once.as_str(), how),
        ("def f():\n    x = 2\n", "blank_lines")
    );
    assert_eq!(
        run(&once, search, replace),
        Ok(("def f():\n    x = 2\n".into(), "already_applied"))
    );
}
