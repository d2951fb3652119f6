//! Unit tests of the config engine: the path syntax (proptest round trip) and byte-exact
//! edits of small documents in each format.

use proptest::prelude::*;

use super::*;

fn run(format: Format, src: &str, path: &str, action: Action, create: bool) -> Result<String> {
    let request = Request {
        path: ConfigPath::parse(path).map_err(Error::usage)?,
        action,
        create_missing: create,
        document_index: None,
    };
    let edits = plan(format, src, &request)?;
    Ok(apply(src, &edits))
}

fn set(v: &str) -> Action {
    Action::Set(v.into())
}

#[test]
fn paths_parse_keys_indices_and_quoted_keys() {
    let p = ConfigPath::parse(r#"services["sidecar.port"].items[0].name"#).expect("accepted");
    assert_eq!(
        p.0,
        vec![
            Segment::Key("services".into()),
            Segment::Key("sidecar.port".into()),
            Segment::Key("items".into()),
            Segment::Index(0),
            Segment::Key("name".into()),
        ]
    );
    assert_eq!(p.render(), r#"services["sidecar.port"].items[0].name"#);
    assert_eq!(
        ConfigPath::parse(r#"a["q\"uote"]"#).expect("accepted").0[1],
        Segment::Key("q\"uote".into())
    );
    for bad in [
        "", "a.", ".a", "a..b", "a[", "a[x]", "a[-1]", "a b", "a[\"x\"", "a]", "a.[0]", "a[0]b",
    ] {
        assert!(ConfigPath::parse(bad).is_err(), "{bad:?} should be refused");
    }
}

#[test]
fn json_set_changes_only_the_value_bytes() {
    let src = "{\n  // keep\n  \"a\": {\"b\": 1},\n  \"c\": [1, 2]\n}\n";
    let out = run(Format::Json, src, "a.b", set("2"), false).expect("accepted");
    assert_eq!(
        out,
        "{\n  // keep\n  \"a\": {\"b\": 2},\n  \"c\": [1, 2]\n}\n"
    );
}

#[test]
fn json_delete_of_the_last_member_drops_the_comma_before_it() {
    let src = "{\n  \"a\": 1,\n  \"b\": 2\n}\n";
    let out = run(Format::Json, src, "b", Action::Delete, false).expect("accepted");
    assert_eq!(out, "{\n  \"a\": 1\n}\n");
}

#[test]
fn json_creation_follows_sorted_keys_and_layout() {
    let src = "{\n  \"a\": 1,\n  \"c\": 3\n}\n";
    let out = run(Format::Json, src, "b", set("2"), true).expect("accepted");
    assert_eq!(out, "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n");
    let out = run(Format::Json, src, "d.e", set("true"), true).expect("accepted");
    assert_eq!(
        out,
        "{\n  \"a\": 1,\n  \"c\": 3,\n  \"d\": {\n    \"e\": true\n  }\n}\n"
    );
}

#[test]
fn crlf_files_get_crlf_in_new_lines() {
    let src = "a:\r\n  - x\r\n";
    let out = run(
        Format::Yaml,
        src,
        "a",
        Action::Append("\"w\"".into()),
        false,
    )
    .expect("accepted");
    assert_eq!(out, "a:\r\n  - x\r\n  - w\r\n");
}

#[test]
fn byte_order_marks_and_crlf_do_not_shift_new_lines() {
    let yaml = "\u{feff}a: 1\r\n";
    let out = run(Format::Yaml, yaml, "b", set("2"), true).expect("yaml");
    assert_eq!(out, "\u{feff}a: 1\r\nb: 2\r\n");
    let toml = "\u{feff}a = 1\r\n";
    let out = run(Format::Toml, toml, "b", set("2"), true).expect("toml");
    assert_eq!(out, "\u{feff}a = 1\r\nb = 2\r\n");
    let json = "\u{feff}{\r\n  \"a\": 1\r\n}\r\n";
    let out = run(Format::Json, json, "b", set("2"), true).expect("json");
    assert_eq!(out, "\u{feff}{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}\r\n");
}

#[test]
fn yaml_scalars_keep_their_quote_style_and_comments() {
    let src = "a: 'x' # note\nb: \"y\"\nc: z\n";
    assert_eq!(
        run(Format::Yaml, src, "a", set("\"it's\""), false).expect("accepted"),
        "a: 'it''s' # note\nb: \"y\"\nc: z\n"
    );
    assert_eq!(
        run(Format::Yaml, src, "c", set("\"true\""), false).expect("accepted"),
        "a: 'x' # note\nb: \"y\"\nc: \"true\"\n"
    );
}

#[test]
fn toml_refuses_a_result_that_defines_a_key_twice() {
    let src = "[a]\nx = 1\n";
    let request = Request {
        path: ConfigPath::parse("a.x").expect("accepted"),
        action: set("2"),
        create_missing: false,
        document_index: None,
    };
    let edits = plan(Format::Toml, src, &request).expect("accepted");
    assert_eq!(apply(src, &edits), "[a]\nx = 2\n");
    let err = check_result(Format::Toml, "[a]\nx = 1\nx = 2\n").expect_err("refused");
    assert_eq!(err.code, Code::ParseFailure);
}

#[test]
fn invalid_values_and_option_mixes_are_usage_errors() {
    let err = run(Format::Json, "{}", "a", set("bare words"), true).expect_err("refused");
    assert_eq!(err.code, Code::Usage);
    let err = run(Format::Json, "{\"a\": []}", "a", Action::Delete, true).expect_err("refused");
    assert_eq!(err.code, Code::Usage);
    let request = Request {
        path: ConfigPath::parse("a").expect("path"),
        action: set("1"),
        create_missing: false,
        document_index: Some(0),
    };
    let err = plan(Format::Toml, "a = 0\n", &request).expect_err("refused");
    assert_eq!(err.code, Code::Usage);
}

fn segment() -> impl Strategy<Value = Segment> {
    prop_oneof![
        (0usize..1000).prop_map(Segment::Index),
        "[a-z_][a-z0-9_-]{0,6}".prop_map(Segment::Key),
        "[ -~]{0,6}".prop_map(Segment::Key),
        "\\PC{0,4}".prop_map(Segment::Key),
    ]
}

proptest! {
    #[test]
    fn rendered_paths_parse_back(segments in prop::collection::vec(segment(), 1..5)) {
        let path = ConfigPath(segments);
        prop_assert_eq!(ConfigPath::parse(&path.render()), Ok(path));
    }

    #[test]
    fn json_set_on_a_scalar_changes_only_its_bytes(
        before in -1000i64..1000,
        after in "[1-9][0-9]{0,4}",
        pad in "[ \\n]{0,3}",
    ) {
        let src = format!("{{{pad}\"k\":{pad}{before},{pad}\"z\": [true]{pad}}}");
        let out = run(Format::Json, &src, "k", set(&after), false).expect("accepted");
        prop_assert_eq!(out, src.replacen(&before.to_string(), &after, 1));
    }

    #[test]
    fn yaml_and_toml_set_on_a_scalar_change_only_its_bytes(
        before in 0u32..1000,
        after in 1000u32..100_000,
        comment in "[a-z ]{0,8}",
        blank in "\n{0,2}",
    ) {
        let yaml = format!("# {comment}\nk: {before} # {comment}\n{blank}z: [true]\n");
        let out = run(Format::Yaml, &yaml, "k", set(&after.to_string()), false).expect("yaml");
        prop_assert_eq!(out, yaml.replacen(&format!("k: {before}"), &format!("k: {after}"), 1));
        let toml = format!("# {comment}\n[t]\nk = {before} # {comment}\n{blank}z = [true]\n");
        let out = run(Format::Toml, &toml, "t.k", set(&after.to_string()), false).expect("toml");
        prop_assert_eq!(out, toml.replacen(&format!("k = {before}"), &format!("k = {after}"), 1));
    }
}

/// Several config operations on one file in one plan: disjoint ones apply together (each
/// resolved against the original bytes), overlapping ones are refused and nothing is written.
#[test]
fn config_ops_of_one_plan_apply_together_unless_they_overlap() {
    use crate::plan::{ConfigOp, Op, Origin, PathBase, PathSpec, Plan};
    use crate::txn::{Options, execute};
    use crate::workspace::Workspace;

    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let file = root.join("c.toml");
    let before = "[a]\nx = 1\ny = [1, 2]\n";
    std::fs::write(&file, before).expect("write");
    let op = |index: usize, path: &str, action: Action| Op {
        path: PathSpec {
            raw: "c.toml".into(),
            base: PathBase::Root,
        },
        origin: Origin::new("operations", index),
        kind: op_kind(
            ConfigOp {
                path: path.into(),
                action,
                create_missing: false,
                document_index: None,
            },
            None,
        )
        .expect("valid op"),
    };
    let plan = |ops: Vec<Op>| Plan {
        dialect: "test",
        ops,
        ..Plan::default()
    };
    let ws = Workspace::scratch(root.clone());
    let overlapping = plan(vec![
        op(0, "a.y", set("[3]")),
        op(1, "a.y", Action::Append("4".into())),
    ]);
    let err = execute(&ws, &overlapping, Options::default()).expect_err("overlap");
    assert_eq!(err.code, Code::EditsOverlap);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), before);
    let disjoint = plan(vec![
        op(0, "a.x", set("5")),
        op(1, "a.y", Action::Append("3".into())),
    ]);
    execute(&ws, &disjoint, Options::default()).expect("applied");
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        "[a]\nx = 5\ny = [1, 2, 3]\n"
    );
}

/// `(format, before, path, action, create_missing, after)`, each written by hand.
#[test]
fn edge_layouts_are_edited_in_place() {
    let append = |v: &str| Action::Append(v.into());
    let cases: Vec<(Format, &str, &str, Action, bool, &str)> = vec![
        (
            Format::Yaml,
            "a:\n  only: 1\nb: 2\n",
            "a.only",
            Action::Delete,
            false,
            "a: {}\nb: 2\n",
        ),
        (
            Format::Yaml,
            "a: [1]\n",
            "a[0]",
            Action::Delete,
            false,
            "a: []\n",
        ),
        (
            Format::Yaml,
            "- k: 1\n",
            "[0].k",
            set("{\"a\": 1}"),
            false,
            "- k:\n    a: 1\n",
        ),
        (
            Format::Yaml,
            "- k:\n",
            "[0].k",
            set("[1]"),
            false,
            "- k:\n    - 1\n",
        ),
        (
            Format::Yaml,
            "a: 1\nc: 3\n",
            "b",
            set("2"),
            true,
            "a: 1\nb: 2\nc: 3\n",
        ),
        (
            Format::Yaml,
            "m: {k: v}\n",
            "m.z",
            set("1"),
            true,
            "m: {k: v, z: 1}\n",
        ),
        (
            Format::Toml,
            "[d]\na = 1\nc = 3\n",
            "d.b",
            set("2"),
            true,
            "[d]\na = 1\nb = 2\nc = 3\n",
        ),
        (
            Format::Yaml,
            "a:\n  - x\n",
            "a",
            set("\"s\""),
            false,
            "a: s\n",
        ),
        (Format::Yaml, "", "a.b", set("1"), true, "a:\n  b: 1\n"),
        (
            Format::Yaml,
            "# c\n",
            "a",
            set("[1]"),
            true,
            "# c\na:\n  - 1\n",
        ),
        (
            Format::Yaml,
            "a:\nb: 1\n",
            "a",
            set("{\"k\": [1]}"),
            false,
            "a:\n  k:\n    - 1\nb: 1\n",
        ),
        (
            Format::Yaml,
            "- a\n- b\n",
            "[0]",
            set("{\"k\":1,\"j\":2}"),
            false,
            "- k: 1\n  j: 2\n- b\n",
        ),
        (
            Format::Yaml,
            "- a\n- b\n",
            "[1]",
            Action::Delete,
            false,
            "- a\n",
        ),
        (
            Format::Yaml,
            "a: 1\n\nb: 2\n\nc: 3\n",
            "b",
            Action::Delete,
            false,
            "a: 1\n\nc: 3\n",
        ),
        (
            Format::Yaml,
            "k: v\n",
            "k",
            set("\"a: b\""),
            false,
            "k: \"a: b\"\n",
        ),
        (Format::Yaml, "k: v\n", "k", set("\"-x\""), false, "k: -x\n"),
        (
            Format::Yaml,
            "k: v\n",
            "k",
            set("\"no\""),
            false,
            "k: \"no\"\n",
        ),
        (
            Format::Toml,
            "x = [\n  1,\n  2,\n]\n",
            "x",
            append("3"),
            false,
            "x = [\n  1,\n  2,\n  3,\n]\n",
        ),
        (
            Format::Toml,
            "x = [\n  1,\n  2,\n]\n",
            "x[1]",
            Action::Delete,
            false,
            "x = [\n  1,\n]\n",
        ),
        (
            Format::Toml,
            "[t]\na = 1\n",
            "top",
            set("\"v\""),
            true,
            "top = \"v\"\n\n[t]\na = 1\n",
        ),
        (
            Format::Toml,
            "a = 1\n\n[b]\nc = 2\n",
            "b.d.e",
            set("1"),
            true,
            "a = 1\n\n[b]\nc = 2\n\n[b.d]\ne = 1\n",
        ),
        (
            Format::Toml,
            "[a]\nx = 1\n\n[z]\n",
            "a.b.c",
            set("1"),
            true,
            "[a]\nx = 1\n\n[a.b]\nc = 1\n\n[z]\n",
        ),
        (
            Format::Toml,
            "p.q = 1\n",
            "p.r",
            set("2"),
            true,
            "p.q = 1\np.r = 2\n",
        ),
        (
            Format::Toml,
            "t = { a = 1 }\n",
            "t.b",
            set("\"x\""),
            true,
            "t = { a = 1, b = \"x\" }\n",
        ),
        (
            Format::Toml,
            "t = { a = 1 }\n",
            "t.a",
            Action::Delete,
            false,
            "t = { }\n",
        ),
        (
            Format::Json,
            "{\n  \"a\": [\n  ]\n}\n",
            "a",
            append("1"),
            false,
            "{\n  \"a\": [\n    1\n  ]\n}\n",
        ),
        (
            Format::Json,
            "{\n}\n",
            "a",
            set("1"),
            true,
            "{\n  \"a\": 1\n}\n",
        ),
        (
            Format::Json,
            "{}",
            "a.b",
            set("1"),
            true,
            "{\"a\": {\"b\": 1}}",
        ),
        (
            Format::Json,
            "[1, 2, 3]",
            "[1]",
            Action::Delete,
            false,
            "[1, 3]",
        ),
        (
            Format::Json,
            "[1, 2, 3]",
            "[2]",
            Action::Delete,
            false,
            "[1, 2]",
        ),
        (
            Format::Json,
            "[\n  1, // one\n  2\n]",
            "[1]",
            Action::Delete,
            false,
            "[\n  1 // one\n]",
        ),
        (
            Format::Json,
            "[\n  1 // one\n]",
            "",
            append("2"),
            false,
            "[\n  1, // one\n  2\n]",
        ),
        (
            Format::Yaml,
            "s: |\n    a\n    b\nt: 1\n",
            "s",
            set("\"x\\n\\ny\""),
            false,
            "s: |-\n    x\n\n    y\nt: 1\n",
        ),
        (
            Format::Yaml,
            "- a\n",
            "[0]",
            set("\"x\\ny\\n\""),
            false,
            "- |\n  x\n  y\n",
        ),
        (
            Format::Yaml,
            "k: v\n",
            "k",
            set("\" lead\\ny\""),
            false,
            "k: \" lead\\ny\"\n",
        ),
        (
            Format::Yaml,
            "k: v\n",
            "k",
            set("\"x\\n\\n\""),
            false,
            "k: \"x\\n\\n\"\n",
        ),
        (
            Format::Yaml,
            "k: [a]\n",
            "k[0]",
            set("\"x\\ny\""),
            false,
            "k: [\"x\\ny\"]\n",
        ),
    ];
    for (format, before, path, action, create, after) in cases {
        let request = Request {
            path: if path.is_empty() {
                ConfigPath(Vec::new())
            } else {
                ConfigPath::parse(path).expect("path")
            },
            action: action.clone(),
            create_missing: create,
            document_index: None,
        };
        let got = plan(format, before, &request).map(|e| apply(before, &e));
        assert_eq!(
            got.ok().as_deref(),
            Some(after),
            "{format:?} {before:?} {path} {action:?}"
        );
    }
}
