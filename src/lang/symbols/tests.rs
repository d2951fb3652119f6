use super::*;
use crate::lang::parse::parse;
use crate::lang::provider_for;

pub(crate) fn decls_of(path: &str, source: &str) -> Vec<Declaration> {
    let provider = provider_for(path).expect("provider");
    let tree = parse(provider, source.as_bytes(), None).expect("parse");
    declarations(provider, &tree, source.as_bytes()).expect("symbol model")
}

/// What the API guard compares of [`decls_of`].
pub(crate) fn signatures_of(path: &str, source: &str) -> Vec<super::Signature> {
    super::signatures(decls_of(path, source))
}

const PHP: &str = r#"<?php
namespace App\Service;

/** Doc. */
#[AsService]
final class Greeter
{
    public const string PREFIX = 'Hi';
    private int $count = 0;
    public private(set) string $name { get => $this->name; }

    public function __construct(private readonly Clock $clock) {}

    #[Route('/x')]
    public static function greet(?string $name = null): string
    {
        return $name;
    }
}

enum Suit: string
{
    case Hearts = 'H';
}

function helper(int &$a, string ...$rest): void {}
"#;

#[test]
fn php_symbols_are_namespaced_and_spelled_like_agent_edit() {
    let decls = decls_of("a.php", PHP);
    let symbols: Vec<&str> = decls.iter().map(|d| d.symbol.as_str()).collect();
    assert_eq!(
        symbols,
        [
            "Greeter",
            "Greeter::PREFIX",
            "Greeter::$count",
            "Greeter::$name",
            "Greeter::__construct()",
            "Greeter::$clock",
            "Greeter::greet()",
            "Suit",
            "Suit::Hearts",
            "helper()"
        ]
    );
    let greet = &decls[6];
    assert_eq!(
        greet.qualified.as_deref(),
        Some("App\\Service\\Greeter::greet()")
    );
    assert_eq!(greet.facts["parameters"], "(?string $name=null)");
    assert_eq!(greet.facts["static"], "yes");
    assert_eq!(&PHP[greet.attrs..greet.core], "#[Route('/x')]\n    ");
    for d in &decls {
        assert_eq!(&PHP[d.name_range.clone()], d.name, "{}", d.symbol);
    }
    let class = &decls[0];
    assert!(PHP[class.range.clone()].starts_with("/** Doc. */\n#[AsService]\nfinal class"));
    assert_eq!(decls[3].facts["set_visibility"], "private(set)");
    assert!(decls[2].private && decls[5].private && decls[5].embedded);
    assert_eq!(decls[8].facts["value"], "'H'");
    assert_eq!(decls[9].facts["parameters"], "(int&$a, string ...$rest)");
}

#[test]
fn lookup_accepts_short_and_qualified_names_and_lists_declarations() {
    let decls = decls_of("a.php", PHP);
    let name = |q: &str| find(&decls, q, Lang::Php, "a.php").map(|d| d.symbol.clone());
    assert_eq!(
        name("Greeter::greet()").ok().as_deref(),
        Some("Greeter::greet()")
    );
    assert_eq!(
        name("\\App\\Service\\Greeter::greet()").ok().as_deref(),
        Some("Greeter::greet()")
    );
    assert_eq!(
        name("Greeter::greet").ok().as_deref(),
        Some("Greeter::greet()")
    );
    assert_eq!(name("helper()").ok().as_deref(), Some("helper()"));
    let missing = name("Greeter::bye()").expect_err("unknown");
    assert_eq!(missing.code, Code::TargetMissing);
    let listed = missing.details["declarations"]
        .as_array()
        .expect("list")
        .len();
    assert_eq!(listed, decls.len());
}

#[test]
fn python_and_typescript_symbols() {
    let py = "class Greeter:\n    count: int = 0\n\n    @staticmethod\n    def greet(name: str) -> str:\n        return name\n\n    def _hidden(self):\n        pass\n\n    def __init__(self):\n        pass\n\n\nclass _Private:\n    def open(self):\n        pass\n\n\nasync def helper(a):\n    return a\n";
    let decls = decls_of("a.py", py);
    let seen: Vec<(&str, bool)> = decls
        .iter()
        .map(|d| (d.symbol.as_str(), d.private))
        .collect();
    assert_eq!(
        seen,
        [
            ("Greeter", false),
            ("Greeter.count", false),
            ("Greeter.greet", false),
            ("Greeter._hidden", true),
            ("Greeter.__init__", false),
            ("_Private", true),
            ("_Private.open", true),
            ("helper", false)
        ]
    );
    assert_eq!(decls[2].facts["decorators"], "@staticmethod");
    assert_eq!(decls[7].facts["async"], "yes");

    let ts = "export class Greeter {\n  private count = 0;\n  #secret = 1;\n  static greet(name?: string): string {\n    return name;\n  }\n}\nexport interface Shape { area(): number }\nfunction local() {}\nexport enum Color { Red = 1 }\n";
    let decls = decls_of("a.ts", ts);
    let seen: Vec<(&str, bool)> = decls
        .iter()
        .map(|d| (d.symbol.as_str(), d.private))
        .collect();
    assert_eq!(
        seen,
        [
            ("Greeter", false),
            ("Greeter.count", true),
            ("Greeter.#secret", true),
            ("Greeter.greet", false),
            ("Shape", false),
            ("Shape.area", false),
            ("local", true),
            ("Color", false),
            ("Color.Red", false)
        ]
    );
    assert_eq!(decls[3].facts["modifiers"], "static");
    let more = decls_of(
        "b.ts",
        "export const A: number = 1;\nlet b = 2;\nexport type Id = string | number;\n",
    );
    let seen: Vec<(&str, Kind, bool)> = more
        .iter()
        .map(|d| (d.symbol.as_str(), d.kind, d.private))
        .collect();
    assert_eq!(
        seen,
        [
            ("A", Kind::Constant, false),
            ("b", Kind::Constant, true),
            ("Id", Kind::Type, false)
        ]
    );
    assert_eq!(
        (
            more[0].facts["kind"].as_str(),
            more[0].facts["type"].as_str()
        ),
        ("const", ":number")
    );
    assert_eq!(more[2].facts["type"], "string|number");
    assert_eq!(decls[3].facts["parameters"], "(name?:string)");
}

#[test]
fn squash_ignores_layout_only() {
    assert_eq!(
        squash("( int  $a ,\n  string $b , )"),
        squash("(int $a, string $b)")
    );
    assert_ne!(squash("(int $a)"), squash("(int $b)"));
}

/// The file after one symbol edit.
pub(crate) fn edited(
    path: &str,
    source: &str,
    op: SymbolOp,
    symbol: &str,
    code: &str,
    reindent: bool,
) -> Result<String> {
    let provider = provider_for(path).expect("provider");
    let tree = parse(provider, source.as_bytes(), None).expect("parse");
    let decls = declarations(provider, &tree, source.as_bytes()).expect("model");
    let file = edit::File {
        lang: Lang::of(provider).expect("lang"),
        path,
        text: source,
        tree: &tree,
        decls: &decls,
        style: layout::Style::of(source.as_bytes()),
    };
    let request = crate::plan::symbol::SymbolEdit {
        op,
        symbol: Some(symbol.into()),
        code: code.into(),
        reindent,
        expected: None,
    };
    let resolved = edit::resolve(&request, &file, 0)?;
    let splices: Vec<_> = resolved.splice.into_iter().collect();
    Ok(String::from_utf8(crate::plan::splice::apply(source.as_bytes(), &splices)).expect("utf-8"))
}

use crate::plan::symbol::{Position, SymbolOp};

#[test]
fn removal_leaves_no_doubled_or_dangling_blank_line() {
    let php = "<?php\nclass A\n{\n    public $a;\n\n    public function f() {}\n\n    public function g() {}\n}\n";
    let remove =
        |symbol: &str| edited("a.php", php, SymbolOp::RemoveSymbol, symbol, "", true).expect("ok");
    assert_eq!(
        remove("A::$a"),
        "<?php\nclass A\n{\n    public function f() {}\n\n    public function g() {}\n}\n"
    );
    assert_eq!(
        remove("A::f()"),
        "<?php\nclass A\n{\n    public $a;\n\n    public function g() {}\n}\n"
    );
    assert_eq!(
        remove("A::g()"),
        "<?php\nclass A\n{\n    public $a;\n\n    public function f() {}\n}\n"
    );
    let grouped = "<?php\nclass A\n{\n    public $a, $b;\n}\n";
    let err =
        edited("a.php", grouped, SymbolOp::RemoveSymbol, "A::$a", "", true).expect_err("grouped");
    assert_eq!(err.code, Code::PlanMalformed);
}

#[test]
fn members_go_into_empty_classes_and_bodies_can_be_emptied() {
    let insert = |src: &str| {
        edited(
            "a.php",
            src,
            SymbolOp::InsertMember(Position::End),
            "A",
            "public function f() {}",
            true,
        )
        .expect("ok")
    };
    assert_eq!(
        insert("<?php\nclass A\n{\n}\n"),
        "<?php\nclass A\n{\n    public function f() {}\n}\n"
    );
    assert_eq!(
        insert("<?php\nclass A {}\n"),
        "<?php\nclass A {\n    public function f() {}\n}\n"
    );
    let body = "<?php\nfunction f(): void\n{\n    echo 1;\n}\n";
    let emptied = edited("a.php", body, SymbolOp::ReplaceBody, "f()", "", true).expect("ok");
    assert_eq!(emptied, "<?php\nfunction f(): void\n{\n}\n");
    let abstract_method =
        "<?php\nabstract class A\n{\n    abstract public function f(): void;\n}\n";
    let err = edited(
        "a.php",
        abstract_method,
        SymbolOp::ReplaceBody,
        "A::f()",
        "x();",
        true,
    )
    .expect_err("no body");
    assert_eq!(err.code, Code::PlanMalformed);
}

#[test]
fn verbatim_code_and_crlf_python() {
    let py = "class A:\r\n\tdef f(self):\r\n\t\treturn 1\r\n";
    let out = edited(
        "a.py",
        py,
        SymbolOp::ReplaceBody,
        "A.f",
        "x = 1\n    return x",
        true,
    )
    .expect("ok");
    assert_eq!(
        out,
        "class A:\r\n\tdef f(self):\r\n\t\tx = 1\r\n\t\t\treturn x\r\n"
    );
    let out = edited(
        "a.py",
        py,
        SymbolOp::ReplaceBody,
        "A.f",
        "x = 1\nreturn x",
        true,
    )
    .expect("ok");
    assert_eq!(
        out,
        "class A:\r\n\tdef f(self):\r\n\t\tx = 1\r\n\t\treturn x\r\n"
    );
    let php = "<?php\nclass A\n{\n    function f()\n    {\n        return 1;\n    }\n}\n";
    let out = edited(
        "a.php",
        php,
        SymbolOp::ReplaceBody,
        "A::f()",
        "return 2;",
        false,
    )
    .expect("ok");
    assert_eq!(
        out,
        "<?php\nclass A\n{\n    function f()\n    {\nreturn 2;\n    }\n}\n"
    );
}

#[test]
fn replace_symbol_keeps_or_replaces_doc_and_attributes() {
    let php = "<?php\nclass A\n{\n    /** Old. */\n    #[Old]\n    public function f() {}\n}\n";
    let replace = |code: &str| {
        edited("a.php", php, SymbolOp::ReplaceSymbol, "A::f()", code, true).expect("ok")
    };
    assert_eq!(
        replace("public function f() { return 1; }"),
        php.replace("f() {}", "f() { return 1; }")
    );
    assert_eq!(
        replace("#[New]\npublic function f() {}"),
        php.replace("#[Old]", "#[New]")
    );
    assert_eq!(
        replace("/** New. */\npublic function f() {}"),
        php.replace("Old. */", "New. */")
    );
    let both = replace("/** New. */\n#[New]\npublic function f() {}");
    assert_eq!(
        both,
        php.replace("Old. */", "New. */")
            .replace("#[Old]", "#[New]")
    );
}

#[test]
fn python_bodies_keep_their_docstring_and_never_end_empty() {
    let py = "class A:\r\n\tdef f(self):\r\n\t\treturn 1\r\n";
    let emptied = edited("a.py", py, SymbolOp::ReplaceBody, "A.f", "", true).expect("ok");
    assert_eq!(emptied, "class A:\r\n\tdef f(self):\r\n\t\tpass\r\n");
    let documented = "def f():\n    \"\"\"Doc.\"\"\"\n    return 1\n";
    let kept = edited(
        "a.py",
        documented,
        SymbolOp::ReplaceBody,
        "f",
        "return 2",
        true,
    )
    .expect("ok");
    assert_eq!(kept, "def f():\n    \"\"\"Doc.\"\"\"\n    return 2\n");
    let replaced = edited(
        "a.py",
        documented,
        SymbolOp::ReplaceBody,
        "f",
        "'''New.'''\nreturn 2",
        true,
    )
    .expect("ok");
    assert_eq!(replaced, "def f():\n    '''New.'''\n    return 2\n");
}

#[test]
fn members_at_the_start_follow_a_docstring_and_precede_the_first_member() {
    let py = "class A:\n    \"\"\"Doc.\"\"\"\n\n    def f(self):\n        pass\n";
    let out = edited(
        "a.py",
        py,
        SymbolOp::InsertMember(Position::Start),
        "A",
        "x: int = 0",
        true,
    )
    .expect("ok");
    assert_eq!(
        out,
        "class A:\n    \"\"\"Doc.\"\"\"\n\n    x: int = 0\n\n    def f(self):\n        pass\n"
    );
    let ts = "export class A {\n\tb = 1;\n}\n";
    let out = edited(
        "a.ts",
        ts,
        SymbolOp::InsertMember(Position::Start),
        "A",
        "a = 0;",
        true,
    )
    .expect("ok");
    assert_eq!(out, "export class A {\n\ta = 0;\n\n\tb = 1;\n}\n");
    let err = edited(
        "a.ts",
        ts,
        SymbolOp::InsertMember(Position::After("c".into())),
        "A",
        "a = 0;",
        true,
    )
    .expect_err("unknown member");
    assert_eq!(err.code, Code::TargetMissing);
}

fn never_panics(path: &str, source: &str) {
    let provider = provider_for(path).expect("provider");
    let tree = parse(provider, source.as_bytes(), None).expect("parse");
    let decls = declarations(provider, &tree, source.as_bytes()).expect("model");
    let mut ops = vec![
        SymbolOp::ReplaceBody,
        SymbolOp::ReplaceSymbol,
        SymbolOp::RemoveSymbol,
        SymbolOp::InsertMember(Position::Start),
        SymbolOp::InsertMember(Position::End),
        SymbolOp::AddUse("A\\B".into()),
    ];
    if let Some(first) = decls.first() {
        ops.push(SymbolOp::InsertMember(Position::After(first.name.clone())));
    }
    for d in &decls {
        for op in &ops {
            let _ = edited(
                path,
                source,
                op.clone(),
                &d.symbol,
                "/** x */\n#[Y]\n@z\nreturn 1;",
                true,
            );
        }
    }
}

proptest::proptest! {
    #[test]
    fn symbol_edits_never_panic_on_odd_php(parts in proptest::collection::vec(proptest::sample::select(vec![
        "<?php\n", "class A", "{", "}", "function f()", "public ", "$x", ";", "\n", "    ", "/** d */", "#[X]",
        "const C = 1", "enum E", "case K", "use A\\B;", "namespace N;", "(", ")", "é", "\r\n", "\t", "private(set) ",
    ]), 0..40)) {
        never_panics("a.php", &parts.concat());
    }

    #[test]
    fn symbol_edits_never_panic_on_odd_python_and_typescript(parts in proptest::collection::vec(proptest::sample::select(vec![
        "class A", ":", "\n", "    ", "def f(self)", "\"\"\"d\"\"\"", "@dec", "import os", "x: int = 1", "é", "\t",
        "export ", "{", "}", "function g()", ";", "private ", "#p = 1", "import { a } from 'm';", "type T = number",
    ]), 0..40)) {
        let source = parts.concat();
        never_panics("a.py", &source);
        never_panics("a.ts", &source);
    }
}

#[test]
fn javascript_plugs_into_the_typescript_model() {
    let js = "import a from './a.js';\n\nexport class Cart {\n  #items = [];\n  total = 0;\n\n  add(item) {\n    this.#items.push(item);\n  }\n}\n\nfunction local() {}\n";
    let decls = decls_of("cart.js", js);
    let seen: Vec<(&str, bool)> = decls
        .iter()
        .map(|d| (d.symbol.as_str(), d.private))
        .collect();
    assert_eq!(
        seen,
        [
            ("Cart", false),
            ("Cart.#items", true),
            ("Cart.total", false),
            ("Cart.add", false),
            ("local", true)
        ]
    );
    let out = edited(
        "cart.js",
        js,
        SymbolOp::ReplaceBody,
        "Cart.add",
        "this.#items.push(item);\nthis.total += item.price;",
        true,
    )
    .expect("ok");
    assert!(
        out.contains(
            "  add(item) {\n    this.#items.push(item);\n    this.total += item.price;\n  }\n"
        ),
        "{out}"
    );
}
