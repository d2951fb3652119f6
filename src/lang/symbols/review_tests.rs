//! Regression tests for the defects of the issue #7 review (one test or more per finding).

use super::tests::{decls_of, edited};
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
