//! Tests of the tolerance ladder.
use super::*;
use crate::target::lines::FileText;

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
