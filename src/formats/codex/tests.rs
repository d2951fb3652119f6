//! Tests of the Codex patch parser.
use super::*;

fn wrap(body: &str) -> String {
    format!("*** Begin Patch\n{body}\n*** End Patch\n")
}

fn ok(input: &str) -> Vec<Op> {
    parse(input).expect("the patch parses").ops
}

fn blocks(ops: Vec<Op>) -> Vec<Block> {
    // The pairing is checked on its own (`chunk_lines_pair_up`); here the sides are compared.
    let block = |op: Op| match op.kind {
        OpKind::Block(block) => Some(Block {
            script: Vec::new(),
            ..block
        }),
        _ => None,
    };
    ops.into_iter().filter_map(block).collect()
}

fn b(search: &str, replace: &str, anchors: &[&str], at_eof: bool) -> Block {
    let anchors = anchors.iter().map(|a| (*a).to_owned()).collect();
    let (search, replace) = (search.to_owned(), replace.to_owned());
    Block {
        search,
        replace,
        anchors,
        at_eof,
        ..Block::default()
    }
}

fn labels(ops: &[Op]) -> Vec<String> {
    ops.iter().map(|op| op.origin.label()).collect()
}

/// Code, `input_line` and message of a refused patch.
fn err(input: &str) -> (Code, Option<u64>, String) {
    let e = parse(input).expect_err("the patch is refused");
    let line = e.details.get("input_line").and_then(|v| v.as_u64());
    (e.code, line, e.message)
}

#[test]
fn add_delete_and_update_in_one_patch() {
    let plan = parse(&wrap("*** Add File: docs/new.md\n+# T\n+\n*** Delete File: old.txt\n*** Update File: a.rs\n@@\n fn a() {\n-    1\n+    2\n }")).expect("parses");
    assert_eq!(plan.dialect, "codex");
    let ops = plan.ops;
    assert!(matches!(&ops[0].kind, OpKind::Create { content } if content == "# T\n\n"));
    assert!(matches!(&ops[1].kind, OpKind::Delete { expected: None }));
    let raw: Vec<&str> = ops.iter().map(|o| o.path.raw.as_str()).collect();
    assert_eq!(raw, ["docs/new.md", "old.txt", "a.rs"]);
    assert!(ops.iter().all(|o| o.path.base == PathBase::Root));
    let want = [
        "files[0] (line 2)",
        "files[1] (line 5)",
        "chunks[0] (line 7)",
    ];
    assert_eq!(labels(&ops), want, "file sections and chunks count apart");
    let change = b("fn a() {\n    1\n}\n", "fn a() {\n    2\n}\n", &[], false);
    assert_eq!(blocks(ops), [change]);
}

#[test]
fn chunks_with_and_without_anchors() {
    let ops = ok(&wrap(
        "*** Update File: m.py\n x = 1\n-y = 2\n+y = 3\n@@ class A:\n@@   def f(self):\n-    pass\n+    return 1\n@@\n-z\n+Z\n@@ def g():\n+    # added",
    ));
    let lines: Vec<Option<usize>> = ops.iter().map(|op| op.origin.input_line).collect();
    assert_eq!(lines, [Some(3), Some(6), Some(10), Some(13)]);
    let want = [
        b("x = 1\ny = 2\n", "x = 1\ny = 3\n", &[], false),
        b(
            "    pass\n",
            "    return 1\n",
            &["class A:", "  def f(self):"],
            false,
        ),
        b("z\n", "Z\n", &[], false),
        b("", "    # added\n", &["def g():"], false),
    ];
    assert_eq!(blocks(ops), want);
}

#[test]
fn end_of_file_and_blank_lines() {
    let ops = ok(&wrap(
        "*** Update File: t\n@@\n-last\n+final\n*** End of File\n\n@@\n-x\n+y\n\n*** End of File\n*** Update File: u\n\n@@ head\n one\n\n-two\n+2\n\n   \n@@ a\n\n@@ b\n+new\n",
    ));
    let want = [
        b("last\n", "final\n", &[], true),
        b("x\n\n", "y\n\n", &[], true),
        b("one\n\ntwo\n", "one\n\n2\n", &["head"], false),
        b("", "new\n", &["a", "b"], false),
    ];
    assert_eq!(labels(&ops)[3], "chunks[3] (line 22)");
    assert_eq!(blocks(ops), want);
}

#[test]
fn padded_markers_and_crlf_are_accepted() {
    let ops = ok(
        "\n  *** Begin Patch  \r\n  *** Update File: f.txt \r\n@@  \r\n-one\r\n+two\r\n  *** End of File \r\n\t*** Add File:  g.txt\r\n+g\r\n *** End Patch \r\n\n",
    );
    let paths: Vec<&str> = ops.iter().map(|o| o.path.raw.as_str()).collect();
    assert_eq!(paths, ["f.txt", "g.txt"]);
    assert!(matches!(&ops[1].kind, OpKind::Create { content } if content == "g\n"));
    assert_eq!(labels(&ops), ["chunks[0] (line 4)", "files[1] (line 8)"]);
    assert_eq!(blocks(ops), [b("one\n", "two\n", &[], true)]);
}

#[test]
fn heredoc_shell_and_fence_wrappers_are_stripped() {
    let body = wrap("*** Delete File: x.txt");
    for (open, close) in [
        ("<<'EOF'", "EOF"),
        ("<<EOF", "EOF"),
        ("<<\"PATCH\"", "PATCH"),
        ("apply_patch <<'EOF'", "EOF"),
        ("  applypatch <<-EOF", "  EOF"),
        ("```diff", "```"),
    ] {
        let ops = ok(&format!("{open}\n{body}{close}\n"));
        assert_eq!(ops[0].path.raw, "x.txt", "{open}");
        assert_eq!(labels(&ops), ["files[0] (line 3)"], "{open}");
    }
    let (code, line, _) = err(&format!("apply_patch <<'EOF'\n{body}"));
    assert_eq!((code, line), (Code::PlanMalformed, Some(1)));
    let (_, line, _) = err(&format!("cd sub && apply_patch <<'EOF'\n{body}EOF"));
    assert_eq!(line, Some(1));
}

#[test]
fn errors_name_the_line() {
    let (code, line, _) = err("hello\n*** Begin Patch\n*** Delete File: a\n*** Delete File: b");
    assert_eq!(
        (code, line),
        (Code::PlanMalformed, Some(1)),
        "must start with Begin"
    );
    // Prose around one whole envelope is a reply quoting the patch.
    let ops =
        ok("Here it is:\n\n```\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n```\nDone.\n");
    assert_eq!(labels(&ops), ["files[0] (line 5)"]);
    let (code, _, _) = err(
        "git -C sub apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n",
    );
    assert_eq!(code, Code::PlanMalformed);
    let cases = [
        ("*** Delete File: a\n\n", 2, "ends without"),
        ("*** Delete File: a\n*** End Patch\nmore", 4, "text after"),
        ("\n*** End Patch\n", 3, "changes nothing"),
        ("*** Update File: a\n*** End Patch", 2, "has no chunks"),
        (
            "*** Update File: a\n\n*** Delete File: b\n*** End Patch",
            2,
            "has no chunks",
        ),
        (
            "*** Update File: a\n@@ ctx\n*** End Patch",
            3,
            "has no lines",
        ),
        ("*** Rename File: a\n*** End Patch", 2, "not a file header"),
        (
            "*** Add File: a\n+x\ny\n*** End Patch",
            4,
            "not a file header",
        ),
        (
            "*** Update File: a\n-x\n*** Bogus\n*** End Patch",
            4,
            "not a file header",
        ),
        (
            "*** Update File: a\n-x\nplain\n*** End Patch",
            4,
            "unexpected line",
        ),
        (
            "*** Update File: a\n@@ x\n*** End of File\n*** End Patch",
            4,
            "End of File",
        ),
        ("*** Add File:\n+x\n*** End Patch", 2, "names no path"),
        ("*** Move to: b\n*** End Patch", 2, "must follow"),
    ];
    for (body, line, text) in cases {
        let (code, at, message) = err(&format!("*** Begin Patch\n{body}"));
        let want = (Code::PlanMalformed, Some(line));
        assert_eq!((code, at), want, "{body}: {message}");
        assert!(message.contains(text), "{body}: {message}");
    }
    assert_eq!(err(" \n").0, Code::PlanMalformed);
}

#[test]
fn move_to_follows_the_chunks_of_its_file() {
    let plan = parse(&wrap("*** Update File: a\n  *** Move to: b\n@@\n-x\n+y")).expect("parses");
    let kinds: Vec<(&str, String)> = plan
        .ops
        .iter()
        .map(|op| match &op.kind {
            OpKind::Move { to } => ("move", format!("{}->{}", op.path.raw, to.raw)),
            _ => ("chunk", op.path.raw.clone()),
        })
        .collect();
    assert_eq!(
        kinds,
        [("chunk", "a".to_owned()), ("move", "a->b".to_owned())]
    );
    let (code, ..) = err(&wrap("*** Update File: a\n*** Move to: b"));
    assert_eq!(
        code,
        Code::PlanMalformed,
        "an empty update is refused first"
    );
}

#[test]
fn chunk_lines_pair_up() {
    let ops = ok(&wrap(
        "*** Update File: a.txt\n@@\n keep\n-old\n+new\n\n+added",
    ));
    let OpKind::Block(block) = &ops[0].kind else {
        panic!("a block")
    };
    use crate::plan::Side::{Both, New, Old};
    assert_eq!(block.script, [Both, Old, New, Both, New]);
}
