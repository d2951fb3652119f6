//! Regression tests for the defects of the issue #7 review (one test or more per finding).

use super::tests::{decls_of, edited, signatures_of as sigs};
use super::*;
use crate::plan::symbol::{Position, SymbolOp};

#[test]
fn a_namespace_in_the_query_must_be_the_declarations_own() {
    let source = "<?php\nnamespace App\\Controller;\n\nenum Status: string\n{\n    case Paid = 'paid';\n}\n\nclass OrderController\n{\n    public function index() {}\n}\n\nfunction helper_fn() {}\n";
    let decls = decls_of("a.php", source);
    let code = |q: &str| find(&decls, q, Lang::Php, "a.php").map(|d| d.symbol.clone());
    for wrong in [
        "Wrong\\Ns\\OrderController::index()",
        "Wrong\\helper_fn()",
        "\\Wrong\\Status::Paid",
        "App\\OrderController::index",
    ] {
        let err = code(wrong).expect_err(wrong);
        assert_eq!(err.code, Code::TargetMissing, "{wrong}");
        assert!(
            err.details["declarations"]
                .as_array()
                .is_some_and(|l| !l.is_empty())
        );
    }
    for right in [
        "App\\Controller\\OrderController::index",
        "\\App\\Controller\\helper_fn()",
        "OrderController::index",
    ] {
        assert!(code(right).is_ok(), "{right}");
    }
    let two = "<?php\nnamespace A {\n    class X\n    {\n        public function f() {}\n    }\n}\nnamespace B {\n    class X\n    {\n        public function f() {}\n    }\n}\n";
    let decls = decls_of("b.php", two);
    let code = |q: &str| find(&decls, q, Lang::Php, "b.php").map(|d| d.qualified.clone());
    assert_eq!(code("C\\X::f()").expect_err("C").code, Code::TargetMissing);
    assert_eq!(code("B\\X::f").ok().flatten().as_deref(), Some("B\\X::f()"));
    assert_eq!(code("X::f()").expect_err("X").code, Code::AmbiguousTarget);
}

#[test]
fn insert_after_a_member_that_shares_its_line_adds_no_trailing_blank() {
    let source = "<?php\nclass A { const X = 1; }\nclass B {}\n";
    let out = edited(
        "a.php",
        source,
        SymbolOp::InsertMember(Position::After("X".into())),
        "A",
        "const Y = 2;",
        true,
    )
    .expect("edit");
    assert_eq!(
        out,
        "<?php\nclass A { const X = 1;\n\n    const Y = 2; }\nclass B {}\n"
    );
}

#[test]
fn the_guard_compares_an_overload_group_by_its_signatures() {
    let before = "export function fmt(a: string): string;\nexport function fmt(a: number): string;\nexport function fmt(a: any): string {\n  return String(a);\n}\n";
    let changes = |after: &str| -> Vec<String> {
        crate::lang::api::compare("f.ts", &sigs("f.ts", before), &sigs("f.ts", after))
            .iter()
            .map(|c| c.describe())
            .collect()
    };
    let widened = before.replace("(a: any)", "(a: unknown)");
    assert!(
        changes(&widened).is_empty(),
        "the implementation is not API"
    );
    let added = before.replace(
        "export function fmt(a: any)",
        "export function fmt(a: boolean): string;\nexport function fmt(a: any)",
    );
    assert!(changes(&added).is_empty(), "a new overload is an addition");
    let dropped = before.replace("export function fmt(a: number): string;\n", "");
    assert_eq!(changes(&dropped), ["changed function fmt (overloads)"]);
    let decls = decls_of("f.ts", before);
    assert_eq!(decls.len(), 1);
    assert_eq!(
        decls[0].facts.get("overloads").map(String::as_str),
        Some("(a:string):string; (a:number):string")
    );
    let port = decls_of(
        "p.ts",
        "export interface Port {\n  send(a: string): void;\n  send(a: number): void;\n}\n",
    );
    let send: Vec<_> = port.iter().filter(|d| d.symbol == "Port.send").collect();
    assert_eq!(send.len(), 1);
    assert_eq!(
        send[0].facts.get("overloads").map(String::as_str),
        Some("(a:string):void; (a:number):void")
    );
}

#[test]
fn one_line_python_bodies_become_blocks_also_verbatim_and_with_crlf() {
    let source = "class A:\r\n    def f(self): return 1\r\n";
    let body = |code: &str, reindent: bool| {
        edited("a.py", source, SymbolOp::ReplaceBody, "A.f", code, reindent).expect("edit")
    };
    assert_eq!(
        body("x = 1\nif x:\n    return x\nreturn 0", true),
        "class A:\r\n    def f(self):\r\n        x = 1\r\n        if x:\r\n            return x\r\n        return 0\r\n"
    );
    assert_eq!(
        body("return 2\n        # verbatim", false),
        "class A:\r\n    def f(self):\r\n        return 2\r\n        # verbatim\r\n"
    );
    assert_eq!(
        body("", true),
        "class A:\r\n    def f(self):\r\n        pass\r\n"
    );
}

#[test]
fn removal_keeps_the_wider_gap_around_it_and_never_doubles_it() {
    let module = "def a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n";
    let remove = |path: &str, source: &str, symbol: &str| {
        edited(path, source, SymbolOp::RemoveSymbol, symbol, "", true).expect("edit")
    };
    assert_eq!(
        remove("m.py", module, "b"),
        "def a():\n    pass\n\n\ndef c():\n    pass\n"
    );
    assert_eq!(
        remove("m.py", module, "a"),
        "def b():\n    pass\n\n\ndef c():\n    pass\n"
    );
    assert_eq!(
        remove("m.py", module, "c"),
        "def a():\n    pass\n\n\ndef b():\n    pass\n"
    );
    let php = "<?php\nclass A\n{\n    const X = 1;\n    const Y = 2;\n\n    private $p;\n}\n";
    assert_eq!(
        remove("a.php", php, "A::Y"),
        "<?php\nclass A\n{\n    const X = 1;\n\n    private $p;\n}\n"
    );
    assert_eq!(
        remove("a.php", php, "A::$p"),
        "<?php\nclass A\n{\n    const X = 1;\n    const Y = 2;\n}\n"
    );
}

/// Decorator arguments are values: changing them is not an API change; adding or removing a
/// decorator is.
#[test]
fn decorator_arguments_are_values_but_decorators_are_api() {
    let before = "class T:\n    @skipUnless(vendor == \"mysql\", \"why\")\n    def test_a(self):\n        pass\n";
    let args = before.replace("\"mysql\"", "\"pg\"");
    let removed = before.replace("    @skipUnless(vendor == \"mysql\", \"why\")\n", "");
    let old = sigs("t.py", before);
    let changes = |after: &str| crate::lang::api::compare("t.py", &old, &sigs("t.py", after));
    assert!(changes(&args).is_empty());
    assert_eq!(changes(&removed).len(), 1);
}
