use super::first_window;
use crate::lang::provider_for;

/// The windows offered around `needle`, as text, innermost first.
fn windows(path: &str, source: &str, needle: &str) -> Vec<String> {
    let provider = provider_for(path).expect("provider");
    let at = source.find(needle).expect("needle");
    let mut seen = Vec::new();
    let none: Option<()> = first_window(provider, source.as_bytes(), at..at + needle.len(), |w| {
        seen.push(format!(
            "{}{}{}",
            w.prefix,
            &source[w.range.clone()],
            w.suffix
        ));
        None
    });
    assert!(none.is_none());
    seen
}

const JS: &str = "function a() {\n  return 1;\n}\n\nfunction b(x) {\n  const y = x;\n  return y;\n}\nconst o = {\n  k: 1,\n};\n";

#[test]
fn a_statement_in_a_function_body_is_its_own_region() {
    let seen = windows("a.js", JS, "const y");
    assert_eq!(seen[0], "  const y = x;\n");
    assert_eq!(seen[1], "  const y = x;\n  return y;\n");
    assert_eq!(seen[2], "function b(x) {\n  const y = x;\n  return y;\n}\n");
    assert_eq!(seen.last().map(String::as_str), Some(JS));
}

#[test]
fn object_bodies_are_not_regions() {
    let seen = windows("a.js", JS, "k: 1");
    assert_eq!(seen[0], "const o = {\n  k: 1,\n};\n");
}

#[test]
fn nested_python_regions_get_a_header_and_class_bodies_their_class() {
    let py =
        "class P:\n    def f(self):\n        a = 1\n        return a\n\n\ndef g():\n    pass\n";
    let seen = windows("a.py", py, "a = 1");
    assert_eq!(
        seen[0],
        "if True:\n        pass\n        a = 1\n\n        pass\n"
    );
    let class_body =
        "class P:\n    pass\n    def f(self):\n        a = 1\n        return a\n\n\n\n    pass\n";
    assert!(seen.contains(&class_body.to_owned()), "{seen:?}");
    assert!(
        seen.iter().all(|w| !w.starts_with("if True:\n    def")),
        "a class body is never a block of statements: {seen:?}"
    );
}

#[test]
fn a_class_header_is_the_whole_statement_and_only_top_level_classes_qualify() {
    let multi = "@dataclass\nclass P(\n    Base,\n):\n    def f(self):\n        return 1\n";
    let seen = windows("a.py", multi, "def f");
    assert!(
        seen[0].starts_with("class P(\n    Base,\n):\n    pass\n    def f(self):"),
        "{seen:?}"
    );
    let nested = "class A:\n    class B:\n        def f(self):\n            return 1\n";
    let seen = windows("a.py", nested, "def f");
    assert_eq!(
        seen[0],
        "class A:\n    pass\n    class B:\n        def f(self):\n            return 1\n\n    pass\n"
    );
    assert!(
        seen.iter().all(|w| !w.contains("class B:\n        pass")),
        "{seen:?}"
    );
}

#[test]
fn php_regions_get_an_open_tag() {
    let php = "<?php\nfunction a() {\n    return 1;\n}\n";
    assert_eq!(
        windows("a.php", php, "return 1")[0],
        "<?php\n    return 1;\n"
    );
}

#[test]
fn a_brace_on_its_own_line_is_judged_by_the_signature_above() {
    let php = "<?php\nclass G\n{\n    public function g(): string\n    {\n        return 'x';\n    }\n}\n";
    assert_eq!(
        windows("a.php", php, "return 'x'")[0],
        "<?php\n        return 'x';\n"
    );
    let seen = windows("a.php", php, "public function");
    assert!(
        seen.iter().all(|w| !w.starts_with("<?php\n    public")),
        "{seen:?}"
    );
}

#[test]
fn trailing_comments_do_not_hide_a_lines_end() {
    let js = "function b(x) { // entry\n  const y = x; /* note */\n  return y; // done\n}\n";
    let seen = windows("a.js", js, "return y");
    assert_eq!(seen[0], "  return y; // done\n");
    let url = "function c() {\n  const u = \"http://x\";\n  return u;\n}\n";
    assert_eq!(windows("a.js", url, "return u")[0], "  return u;\n");
}

#[test]
fn braced_class_bodies_are_regions_under_their_own_head() {
    let php = "<?php\nnamespace App;\n\nclass G\n{\n    private $a = 1;\n\n    public function g()\n    {\n        return 'x';\n    }\n}\n";
    let seen = windows("a.php", php, "public function");
    assert_eq!(
        seen[0],
        "<?php\nnamespace App;\nclass G\n{\n    public function g()\n    {\n        return 'x';\n    }\n\n}\n"
    );
    let java = "public final class A\n    extends B {\n  int f() {\n    return 1;\n  }\n}\n";
    let seen = windows("A.java", java, "int f");
    assert!(
        seen[0].starts_with("public final class A\n    extends B {\n  int f() {"),
        "{seen:?}"
    );
    let rust = "impl<T: Clone> S<T> {\n    fn f(&self) -> u8 {\n        1\n    }\n}\n";
    let seen = windows("a.rs", rust, "fn f");
    assert!(
        seen[0].starts_with("impl<T: Clone> S<T> {\n    fn f"),
        "{seen:?}"
    );
    assert!(seen[0].ends_with("\n}\n"), "{seen:?}");
}

#[test]
fn object_literals_nested_classes_and_cpp_bodies_are_not_class_regions() {
    let js = "const o = class {\n  m() {\n    return 1;\n  }\n};\n";
    let seen = windows("a.js", js, "m()");
    assert!(
        seen.iter()
            .all(|w| !w.starts_with("const o = class {\n  m"))
            || seen[0] == js
    );
    let nested =
        "class A {\n  m() {}\n  static B = class {\n    n() {\n      return 2;\n    }\n  };\n}\n";
    let seen = windows("a.ts", nested, "n()");
    assert!(
        seen.iter()
            .filter(|w| w.contains("n() {"))
            .all(|w| w.contains("  };\n")),
        "B's body is never parsed under a head that holds A's members: {seen:?}"
    );
    let cpp = "class A {\n public:\n  int f() {\n    return 1;\n  }\n};\n";
    let seen = windows("a.cpp", cpp, "int f");
    assert!(
        seen.iter().all(|w| !w.starts_with("class A {\n  int")),
        "{seen:?}"
    );
}

#[test]
fn siblings_end_at_the_close_of_a_block_that_does_not_indent_its_body() {
    let js = "var lib = {};\n((module) => {\nfunction a() {\n  return 1;\n}\nmodule.exports = {\n  a,\n};\n})(lib);\n//# sourceMappingURL=x.map\n";
    let seen = windows("a.js", js, "  a,");
    assert_eq!(seen[0], "module.exports = {\n  a,\n};\n");
    assert!(
        seen.iter().all(|w| !w.contains("})(lib)") || w == js),
        "{seen:?}"
    );
}

const PHP_MAP: &str = "<?php\nclass M\n{\n    private const MAP = [\n        'a' => ['x', 'y'],\n        'b' => [\n            'z',\n        ],\n        'c' => ['w'],\n    ];\n\n    public function f(array $o = [\n        'k' => 1,\n    ]) {\n        return $o;\n    }\n}\n";

#[test]
fn an_element_of_a_php_array_value_is_a_region_in_brackets_of_its_own() {
    let seen = windows("m.php", PHP_MAP, "'c' =>");
    assert_eq!(seen[0], "<?php\n[\n        'c' => ['w'],\n\n];\n");
    // Four siblings around it are the whole body; then the constant, in its class.
    assert!(seen[1].contains("'a' => ['x', 'y'],"), "{seen:?}");
    assert!(seen[2].starts_with("<?php\nclass M\n{\n    private const MAP"));
    // An element of several lines is one sibling; its inner lines are another list's.
    let seen = windows("m.php", PHP_MAP, "'z'");
    assert_eq!(seen[0], "<?php\n[\n            'z',\n\n];\n");
    assert_eq!(
        seen[1],
        "<?php\n[\n        'b' => [\n            'z',\n        ],\n\n];\n"
    );
}

#[test]
fn a_parameters_default_array_is_no_list_region() {
    let seen = windows("m.php", PHP_MAP, "'k' => 1");
    assert!(
        seen.iter().all(|w| !w.starts_with("<?php\n[\n")),
        "{seen:?}"
    );
}
