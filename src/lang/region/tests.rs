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
fn nested_python_regions_get_a_header_and_classes_are_skipped() {
    let py =
        "class P:\n    def f(self):\n        a = 1\n        return a\n\n\ndef g():\n    pass\n";
    let seen = windows("a.py", py, "a = 1");
    assert_eq!(
        seen[0],
        "if True:\n        pass\n        a = 1\n\n        pass\n"
    );
    assert!(
        seen.iter().all(|w| !w.starts_with("if True:\n    def")),
        "{seen:?}"
    );
    assert!(
        seen.contains(
            &"class P:\n    def f(self):\n        a = 1\n        return a\n\n\n".to_owned()
        )
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
