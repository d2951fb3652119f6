//! Per-language provider tests: every grammar loads and parses its sample in
//! `fixtures/lang/<provider>/` without errors, the sample's outline matches `outline.txt`
//! (`UPDATE_OUTLINES=1` rewrites it), every structure kind exists in its grammar, the
//! extension and file-name registry is complete and unambiguous, and a broken variant of
//! each sample is reported as broken.

use std::path::PathBuf;

use crate::lang::languages::PROVIDERS;
use crate::lang::outline::{Item, outline};
use crate::lang::parse::{error_count, parse};
use crate::lang::{NameRule, Provider, provider_for};

fn fixture_dir(provider: &Provider) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/lang")
        .join(provider.name)
}

/// The path and bytes of `fixtures/lang/<provider>/sample.<ext>`.
fn sample(provider: &Provider) -> (PathBuf, Vec<u8>) {
    let dir = fixture_dir(provider);
    let path = std::fs::read_dir(&dir)
        .expect("the provider has a fixture directory")
        .map(|entry| entry.expect("a readable fixture entry").path())
        .find(|p| p.file_stem().is_some_and(|s| s == "sample"))
        .expect("the fixture directory has a sample.<ext>");
    let bytes = std::fs::read(&path).expect("the sample is readable");
    (path, bytes)
}

fn render(items: &[Item]) -> String {
    items
        .iter()
        .map(|i| {
            let indent = "  ".repeat(i.depth);
            format!(
                "{indent}{} {} {}-{}\n",
                i.kind, i.qualified_name, i.start_line, i.end_line
            )
        })
        .collect()
}

fn provider(name: &str) -> &'static Provider {
    PROVIDERS
        .iter()
        .find(|p| p.name == name)
        .expect("a provider by that name")
}

fn errors_in(provider: &'static Provider, source: &[u8]) -> usize {
    error_count(&parse(provider, source, None).expect("the grammar parses"))
}

#[test]
fn every_sample_parses_without_errors() {
    for provider in PROVIDERS {
        let (path, source) = sample(provider);
        assert!(
            !source.contains(&b'\r'),
            "{}: the sample uses LF line endings",
            path.display()
        );
        let lines = source.iter().filter(|b| **b == b'\n').count();
        assert!(
            (30..=80).contains(&lines),
            "{}: {lines} lines, expected 30-80",
            path.display()
        );
        assert_eq!(
            errors_in(provider, &source),
            0,
            "{} has syntax errors",
            path.display()
        );
    }
}

#[test]
fn every_outline_matches_its_fixture() {
    let update = std::env::var_os("UPDATE_OUTLINES").is_some_and(|v| v == "1");
    let mut mismatches = Vec::new();
    for provider in PROVIDERS {
        let (path, source) = sample(provider);
        let tree = parse(provider, &source, None).expect("the grammar parses");
        let rendered = render(&outline(provider, &tree, &source));
        assert!(
            !rendered.is_empty(),
            "{}: the outline is empty",
            path.display()
        );
        let expected_path = fixture_dir(provider).join("outline.txt");
        if update {
            std::fs::write(&expected_path, &rendered).expect("outline.txt is writable");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != rendered {
            mismatches.push(format!(
                "== {}\n-- expected\n{expected}-- actual\n{rendered}",
                provider.name
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "outlines differ (UPDATE_OUTLINES=1 rewrites them):\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn every_extension_and_file_name_maps_to_its_provider() {
    let mut seen = std::collections::HashMap::new();
    for provider in PROVIDERS {
        for ext in provider.extensions {
            assert_eq!(
                ext.to_ascii_lowercase(),
                *ext,
                "{}: extensions are lower case",
                provider.name
            );
            let claimed = seen.insert(format!(".{ext}"), provider.name);
            assert!(claimed.is_none(), "extension {ext} is claimed twice");
            for path in [
                format!("src/deep/file.{ext}"),
                format!("FILE.{}", ext.to_ascii_uppercase()),
            ] {
                assert_eq!(
                    provider_for(&path).map(|p| p.name),
                    Some(provider.name),
                    "{path}"
                );
            }
        }
        for name in provider.file_names {
            let claimed = seen.insert((*name).to_owned(), provider.name);
            assert!(claimed.is_none(), "file name {name} is claimed twice");
            for path in [(*name).to_owned(), format!("/abs/dir/{name}")] {
                assert_eq!(
                    provider_for(&path).map(|p| p.name),
                    Some(provider.name),
                    "{path}"
                );
            }
        }
    }
    for path in [
        "notes.txt",
        "Makefile",
        "README",
        "archive.tar.gz",
        ".gitignore",
    ] {
        assert!(provider_for(path).is_none(), "{path} has no provider");
    }
}

#[test]
fn every_structure_kind_and_field_exists_in_its_grammar() {
    let mut names = std::collections::HashSet::new();
    for provider in PROVIDERS {
        assert!(
            names.insert(provider.name),
            "provider {} is listed twice",
            provider.name
        );
        assert!(
            !provider.structures.is_empty(),
            "{} has no structures",
            provider.name
        );
        let language = (provider.language)();
        for structure in provider.structures {
            let id = language.id_for_node_kind(structure.kind, true);
            assert_ne!(
                id, 0,
                "{}: no node kind `{}`",
                provider.name, structure.kind
            );
            if let NameRule::Field(field) = structure.name {
                assert!(
                    language.field_id_for_name(field).is_some(),
                    "{}: no field `{field}`",
                    provider.name
                );
            }
        }
    }
}

/// Text appended to each sample to break it: an unclosed construct of that language (the
/// YAML one is an unclosed flow sequence).
const BREAKERS: &[(&str, &str)] = &[
    ("php", "<?php\nfunction broken( {\n"),
    ("python", "\ndef broken(:\n"),
    ("javascript", "\nfunction broken( {\n"),
    ("typescript", "\nfunction broken( {\n"),
    ("tsx", "\nfunction broken( {\n"),
    ("rust", "\nfn broken( {\n"),
    ("go", "\nfunc broken( {\n"),
    ("java", "\nclass Broken {\n"),
    ("c", "\nint broken( {\n"),
    ("cpp", "\nint broken( {\n"),
    ("csharp", "\nclass Broken {\n"),
    ("ruby", "\ndef broken(\n"),
    ("bash", "\nbroken() {\n"),
    ("json", "\n{\"broken\": \n"),
    ("yaml", "broken: [unclosed\n"),
    ("toml", "\n[broken\n"),
    // The HTML grammar accepts unclosed elements, but not an unterminated attribute value.
    ("html", "<div class=\"broken\n"),
    ("css", "\n.broken { color: red;\n"),
    // The Markdown block grammar accepts any text (unclosed fences, stray markers and tags
    // are all valid Markdown); the only error it reports is a NUL byte.
    ("markdown", "\nbroken \0 text\n"),
];

#[test]
fn every_broken_sample_has_errors() {
    for provider in PROVIDERS {
        let (_, breaker) = BREAKERS
            .iter()
            .find(|(name, _)| *name == provider.name)
            .expect("every provider has a breaker");
        let (path, mut source) = sample(provider);
        source.extend_from_slice(breaker.as_bytes());
        assert!(
            errors_in(provider, &source) > 0,
            "{} with {breaker:?} appended parses cleanly",
            path.display()
        );
    }
}

/// Small sources whose outline pins down a naming rule the samples do not show.
const EDGE_CASES: &[(&str, &str, &str)] = &[
    (
        "c",
        "#ifndef BUF_H\n#define BUF_H\nstruct buf;\nint buf_len(const struct buf *b);\n\
         typedef int (*cmp_fn)(const void *, const void *);\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#endif\n",
        "declaration buf_len 4-4\ntype_definition cmp_fn 5-5\npreproc_function_def MAX 6-6\n",
    ),
    (
        "cpp",
        "template <typename T>\nclass Box {\n  T value;\n};\ntemplate <class T> using Vec = Box<T>;\n\
         namespace {\nint hidden() { return 1; }\n}\n",
        "template_declaration Box 1-4\ntemplate_declaration Vec 5-5\nfunction_definition hidden 7-7\n",
    ),
    (
        "csharp",
        "namespace A.B;\n\npublic class C\n{\n    public void M() {}\n}\n",
        "class_declaration C 3-6\n  method_declaration C.M 5-5\n",
    ),
    (
        "markdown",
        "# Title #\n\n## C# ##\n\ntext\n",
        "section Title 1-5\n  section Title.C# 3-5\n",
    ),
    (
        "go",
        "package p\n\nconst (\n\tA = 1\n\tB = 2\n)\n\nfunc f() {\n\tvar local = 1\n\t_ = local\n}\n",
        "const_spec A 4-4\nconst_spec B 5-5\nfunction_declaration f 8-11\n",
    ),
    (
        "rust",
        "impl<T> fmt::Display for Wrapper<T> {\n    fn fmt(&self) {}\n}\n",
        "impl_item Wrapper 1-3\n  function_item Wrapper.fmt 2-2\n",
    ),
    (
        "typescript",
        "type Props = { a: string; f(): void };\nlet x: { b: number };\n",
        "type_alias_declaration Props 1-1\n  property_signature Props.a 1-1\n  method_signature Props.f 1-1\n\
         variable_declarator x 2-2\n",
    ),
    (
        "javascript",
        "function outer() {\n  const local = 1;\n  const inner = () => local;\n  return inner;\n}\n",
        "function_declaration outer 1-5\n  variable_declarator outer.inner 3-3\n",
    ),
];

#[test]
fn edge_case_outlines() {
    for (name, source, expected) in EDGE_CASES {
        let provider = provider(name);
        let tree = parse(provider, source.as_bytes(), None).expect("the grammar parses");
        assert_eq!(error_count(&tree), 0, "{name}: {source}");
        assert_eq!(
            render(&outline(provider, &tree, source.as_bytes())),
            *expected,
            "{name}: {source}"
        );
    }
}

/// The gate's count: the tree's errors and the language's own rules.
fn gate_errors(provider: &'static Provider, source: &[u8]) -> usize {
    let tree = parse(provider, source, None).expect("the grammar parses");
    crate::lang::parse::syntax_errors(provider, &tree, source).0
}

#[test]
fn a_second_java_package_declaration_is_an_error() {
    let java = provider("java");
    let one = "package a.b;\nclass C {}\n";
    assert_eq!(gate_errors(java, one.as_bytes()), 0);
    let two = "package a.b;\npackage a.b;\nclass C {}\n";
    assert_eq!(gate_errors(java, two.as_bytes()), 1);
}

#[test]
fn only_a_hash_alone_on_its_line_is_a_c_null_directive() {
    for name in ["c", "cpp"] {
        let p = provider(name);
        assert_eq!(gate_errors(p, b"int a;\n#\nint b;\n"), 0, "{name}");
        assert!(
            gate_errors(p, b"int f(void) {\n  return 1;\n}#\n") > 0,
            "{name}"
        );
        assert!(
            gate_errors(p, b"int f(void) {\n  return 1;\n#}\n") > 0,
            "{name}"
        );
    }
}

#[test]
fn a_block_at_a_c_files_top_level_is_an_error() {
    for name in ["c", "cpp"] {
        let p = provider(name);
        assert_eq!(
            gate_errors(p, b"int f(void)\n{\n  return 1;\n}\n"),
            0,
            "{name}"
        );
        assert!(gate_errors(p, b"int a;\n{\n  return 1;\n}\n") > 0, "{name}");
    }
}
