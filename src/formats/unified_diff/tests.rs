//! Tests of the unified diff parser.
use super::*;

/// `search -> replace h<hint> [eof]` per op (its path when it is no block), or the refusal
/// (`malformed L<input line>`).
fn show(diff: &str) -> Vec<String> {
    let plan = match parse(diff) {
        Ok(plan) => plan,
        Err(e) => {
            let line = e.details.get("input_line").map(ToString::to_string);
            let code = e.code.as_str().trim_start_matches("plan_");
            return vec![format!("{code} L{}", line.unwrap_or_default())];
        }
    };
    let show = |op: &Op| match &op.kind {
        OpKind::Block(b) => {
            let hint = b.hint_line.map(|n| n.to_string()).unwrap_or_default();
            let eof = if b.at_eof { " eof" } else { "" };
            format!("{:?} -> {:?} h{hint}{eof}", b.search, b.replace)
        }
        OpKind::Create { content } => format!("create {} {content:?}", op.path.raw),
        OpKind::Move { to } => format!("move {} -> {}", op.path.raw, to.raw),
        OpKind::Mode { executable } => format!("mode {} exec={executable}", op.path.raw),
        _ => format!("delete {}", op.path.raw),
    };
    plan.ops.iter().map(show).collect()
}

/// A diff of `f` with these hunks; a `\` line is a no-newline marker.
fn f(hunks: &str) -> String {
    format!("--- a/f\n+++ b/f\n{hunks}")
}

fn path(headers: &str) -> String {
    let plan = parse(&format!("{headers}\n@@ -1 +1 @@\n-a\n+b\n")).expect("a valid diff");
    plan.ops[0].path.raw.clone()
}

#[test]
fn reads_a_multi_file_git_diff_after_prose() {
    let diff = concat!(
        "Here is the fix:\n\n",
        "diff --git a/src/lib.rs b/src/lib.rs\nindex 3b18e51..a1b2c3d 100644\n",
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@ mod a;\n fn a() {}\n-fn b() {}\n",
        "+fn b() { 1 }\n fn c() {}\n@@ -10,2 +10,3 @@\n x\n+y\n z\n",
        "diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..e69de29\n",
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n",
        "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\nindex e69de29..0000000\n",
        "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
        "diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n",
    );
    let want = [
        r#""fn a() {}\nfn b() {}\nfn c() {}\n" -> "fn a() {}\nfn b() { 1 }\nfn c() {}\n" h1"#,
        r#""x\nz\n" -> "x\ny\nz\n" h10"#,
        r#"create new.txt "hello\nworld\n""#,
        "delete old.txt",
        r#"create empty """#,
    ];
    assert_eq!(show(diff), want);
    let plan = parse(diff).expect("a valid diff");
    let origins: Vec<_> = plan.ops.iter().map(|op| op.origin.label()).collect();
    let labels = [
        "hunks[0] (line 7)",
        "hunks[1] (line 12)",
        "files[1] (line 16)",
    ];
    assert_eq!(origins[..3], labels);
    assert_eq!(
        (plan.ops[0].path.raw.as_str(), plan.dialect),
        ("src/lib.rs", "diff")
    );
}

#[test]
fn reads_plain_diff_u_and_detects_the_strip_level() {
    let cases = [
        (
            "--- src/x.c\t2024-01-01 10:00:00 +0100\n+++ src/x.c\t2024-01-02 10:00:00 +0100",
            "src/x.c",
        ),
        ("diff --git a/x b/x\n--- a/x\n+++ b/x", "x"),
        ("--- ./a/x\n+++ ./a/x", "a/x"),
        ("--- a/x\n+++ x", "x"),
        ("--- x.orig\n+++ x", "x"),
        (
            "--- \"a/caf\\303\\251 \\\"q\\\"\"\n+++ \"b/caf\\303\\251 \\\"q\\\"\"",
            "café \"q\"",
        ),
    ];
    for (headers, want) in cases {
        assert_eq!(path(headers), want, "{headers}");
    }
    let no_prefix = "diff --git x y/z x y/z\nnew file mode 100644\n";
    assert_eq!(show(no_prefix), [r#"create x y/z """#]);
    assert_eq!(
        show("--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+n\n"),
        [r#"create n "n\n""#]
    );
}

#[test]
fn keeps_no_newline_markers_per_side() {
    let cases = [
        (
            "@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n",
            r#""x\ny" -> "x\ny\n" h1 eof"#,
        ),
        ("@@ -1 +1 @@\n-y\n+y\n\\\n", r#""y\n" -> "y" h1 eof"#),
        (
            "@@ -1,2 +1,2 @@\n-x\n+X\n y\n\\\n",
            r#""x\ny" -> "X\ny" h1 eof"#,
        ),
        ("@@ -1,2 +1,2 @@\n-x\n\\\n y\n+y\n", "malformed L6"),
        ("@@ -1 +1 @@\n\\\n-x\n", "malformed L4"),
    ];
    for (hunks, want) in cases {
        assert_eq!(show(&f(hunks)), [want], "{hunks}");
    }
}

#[test]
fn recounts_complete_hunks_and_refuses_open_ones() {
    let cases = [
        (
            "@@ -1,9 +1,9 @@\n a\n-b\n+c\n",
            r#""a\nb\n" -> "a\nc\n" h1"#,
        ),
        (
            "@@ -1 +1 @@\n a\n-b\n\n d\n@@ -20 +20 @@\n-e\n",
            r#""a\nb\n\nd\n" -> "a\n\nd\n" h1"#,
        ),
        (
            "@@ -1,5 +1,5 @@\n-b\n+c\n```\nDone.\n",
            r#""b\n" -> "c\n" h1"#,
        ),
        ("@@ -1,5 +1,5 @@\n-b\n+c\nDone.\n", "malformed L3"),
        ("@@ -1,2 +1,2 @@\n-b\n+c\n\n\n", r#""b\n\n" -> "c\n\n" h1"#),
        ("@@\n a\n\n-b\n\n", r#""a\n\nb\n" -> "a\n\n" h"#),
        ("@@ -5,0 +6 @@\n+n\n", r#""" -> "n\n" h6"#),
    ];
    for (hunks, want) in cases {
        assert_eq!(show(&f(hunks))[0], want, "{hunks}");
    }
}

#[test]
fn keeps_carriage_returns_in_line_text() {
    let crlf = concat!(
        "--- a/w\r\n+++ b/w\r\n@@ -1,2 +1,2 @@\r\n a\r\n",
        "-b\r\n\\ No newline at end of file\r\n+B\r\n\r\n",
    );
    assert_eq!(show(crlf), [r#""a\r\nb\r" -> "a\r\nB\r\n" h1 eof"#]);
    assert_eq!(path("--- a/w x\r\n+++ b/w x\r"), "w x");
}

#[test]
fn refuses_renames_modes_binaries_and_non_diffs() {
    let cases = [
        (
            "diff --git a/x b/y\nsimilarity index 90%\ncopy from x\n",
            "unsupported L3",
        ),
        (
            "diff --git a/x b/y\ncopy from x\ncopy to y\n",
            "unsupported L2",
        ),
        (
            "diff --git a/x b/x\nGIT binary patch\nliteral 0\n",
            "unsupported L2",
        ),
        (
            "diff --git a/x b/x\nnew file mode 120000\n",
            "unsupported L2",
        ),
        ("Binary files a/x and b/y differ\n", "unsupported L1"),
        ("--- a/x\n+++ b/x\n@@@ -1 -1 +1 @@@\n", "unsupported L3"),
        ("just prose\n- a bullet\n", "malformed L"),
        ("", "malformed L"),
        ("--- a/f\n+++ b/f\n", "malformed L1"),
        ("text\n@@ -1 +1 @@\n-a\n+b\n", "malformed L2"),
        ("--- a/f\n+++ b/f\n@@ -1,x +1 @@\n-a\n", "malformed L3"),
        (
            "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+a\n b\n",
            "malformed L3",
        ),
    ];
    for (diff, want) in cases {
        assert_eq!(show(diff), [want], "{diff}");
    }
}

#[test]
fn renames_move_the_file_after_its_hunks() {
    let pure = "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n";
    assert_eq!(show(pure), ["move x -> y"]);
    let edited = "--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(show(edited), ["\"a\\n\" -> \"b\\n\" h1", "move x -> y"]);
}

/// Header and body shapes, including broken quoting, stray markers and `\r`.
const LINES: &str = concat!(
    "(diff --git a/é b/é|--- \"a/\\\\3|\\+\\+\\+ b/x|new file mode 100644|",
    "@@ -1,2 \\+1 @@|@@|[ +\\\\-]?[aé\r]{0,2}|)",
);

proptest::proptest! {
    #[test]
    fn never_panics(lines in proptest::collection::vec(LINES, 0..12)) {
        let _ = parse(&lines.join("\n"));
    }
}

#[test]
fn mode_changes_set_the_executable_bit() {
    assert_eq!(
        show("diff --git a/x b/x\nold mode 100644\nnew mode 100755\n"),
        ["mode x exec=true"]
    );
    assert_eq!(
        show(
            "diff --git a/x b/x\nold mode 100755\nnew mode 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
        ),
        ["\"a\\n\" -> \"b\\n\" h1", "mode x exec=false"]
    );
    assert_eq!(
        show(
            "diff --git a/run.sh b/run.sh\nnew file mode 100755\n--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1 @@\n+echo\n"
        ),
        ["create run.sh \"echo\\n\"", "mode run.sh exec=true"]
    );
    assert_eq!(
        show("diff --git a/x b/x\nold mode 100644\nnew mode 120000\n"),
        ["unsupported L3"]
    );
}
