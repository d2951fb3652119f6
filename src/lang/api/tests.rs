use super::*;
use crate::lang::symbols::tests::signatures_of as decls_of;

fn changes(path: &str, before: &str, after: &str) -> Vec<String> {
    let (b, a) = (decls_of(path, before), decls_of(path, after));
    compare(path, &b, &a)
        .iter()
        .map(ApiChange::describe)
        .collect()
}

const PHP: &str = "<?php\nclass A\n{\n    public const X = 1;\n    protected int $p = 0;\n    private int $q = 0;\n    public function f(int $a = 1): int { return $a; }\n    private function g(): void {}\n}\nenum E: string { case H = 'h'; }\n";

#[test]
fn php_rules() {
    let same = |from: &str, to: &str| changes("a.php", PHP, &PHP.replace(from, to));
    assert!(same("return $a;", "return $a + 1;").is_empty(), "bodies");
    assert!(same("X = 1", "X = 2").is_empty(), "values");
    assert!(same("$p = 0", "$p = 5").is_empty(), "property values");
    assert!(
        same("private function g(): void {}", "").is_empty(),
        "private members"
    );
    assert!(same("private int $q", "private string $q").is_empty());
    assert!(
        same("}\nenum", "    public function h() {}\n}\nenum").is_empty(),
        "additions"
    );
    assert_eq!(
        same("function f(", "function f2("),
        ["removed method A::f()"]
    );
    assert_eq!(
        same("int $a = 1", "int $a = 2"),
        ["changed method A::f() (parameters)"]
    );
    assert_eq!(
        same("int $a = 1", "int &$a = 1"),
        ["changed method A::f() (parameters)"]
    );
    assert_eq!(
        same("): int {", "): ?int {"),
        ["changed method A::f() (return_type)"]
    );
    assert_eq!(
        same("public function f", "public static function f"),
        ["changed method A::f() (static)"]
    );
    assert_eq!(
        same("public function f", "private function f"),
        ["changed method A::f() (visibility)"]
    );
    assert_eq!(
        same("protected int $p", "protected ?int $p"),
        ["changed property A::$p (type)"]
    );
    assert_eq!(
        same("protected int $p", "protected readonly int $p"),
        ["changed property A::$p (readonly)"]
    );
    assert_eq!(
        same("public const X", "protected const X"),
        ["changed constant A::X (visibility)"]
    );
    assert_eq!(
        same("case H = 'h'", "case H = 'x'"),
        ["changed case E::H (value)"]
    );
    assert_eq!(
        same("class A", "final class A"),
        ["changed class A (final)"]
    );
    assert_eq!(
        same("enum E", "enum F"),
        ["removed enum E", "removed case E::H"]
    );
}

#[test]
fn python_and_typescript_rules() {
    let py = "class A:\n    def f(self, a=1):\n        return a\n\n    def _g(self):\n        pass\n\n\ndef _h():\n    pass\n";
    let same = |from: &str, to: &str| changes("a.py", py, &py.replace(from, to));
    assert!(same("return a", "return a + 1").is_empty());
    assert!(same("def _g(self)", "def _g(self, b)").is_empty());
    assert!(same("def _h():", "def _i():").is_empty());
    assert_eq!(same("a=1", "a=2"), ["changed method A.f (parameters)"]);
    assert_eq!(same("def f(", "def f2("), ["removed method A.f"]);

    let ts = "export class A {\n  private p = 0;\n  greet(a: string): string { return a; }\n}\nfunction local(a: number) {}\n";
    let same = |from: &str, to: &str| changes("a.ts", ts, &ts.replace(from, to));
    assert!(same("return a;", "return a + a;").is_empty());
    assert!(
        same("local(a: number)", "local(b: string)").is_empty(),
        "not exported"
    );
    assert!(same("private p = 0", "private p = 1").is_empty());
    assert_eq!(
        same("greet(a: string)", "greet(a?: string)"),
        ["changed method A.greet (parameters)"]
    );
    assert_eq!(
        same("  greet(", "  static greet("),
        ["changed method A.greet (modifiers)"]
    );
    assert_eq!(
        same("export class", "class"),
        [
            "changed class A (visibility)",
            "changed method A.greet (visibility)"
        ]
    );
}

#[test]
fn typescript_bindings_and_type_aliases() {
    let vars = "export const LIMIT: number = 10;\nexport type Id = string;\n";
    let same = |from: &str, to: &str| changes("v.ts", vars, &vars.replace(from, to));
    assert!(same("= 10", "= 20").is_empty(), "values");
    assert_eq!(
        same("LIMIT: number", "LIMIT: string"),
        ["changed constant LIMIT (type)"]
    );
    assert_eq!(
        same("Id = string", "Id = number"),
        ["changed type Id (type)"]
    );
    assert_eq!(
        same("export const", "const"),
        ["changed constant LIMIT (visibility)"]
    );
    assert_eq!(same("export type Id = string;\n", ""), ["removed type Id"]);
}

#[test]
fn class_likes_and_round_trip() {
    let php = "<?php\ninterface I { public function f(): void; }\ntrait T {}\nenum E: string { case A = 'a'; }\n";
    let same = |from: &str, to: &str| changes("a.php", php, &php.replace(from, to));
    assert_eq!(
        same("interface I", "interface J"),
        ["removed interface I", "removed method I::f()"]
    );
    assert_eq!(same("trait T {}\n", ""), ["removed trait T"]);
    assert_eq!(
        same("enum E: string", "enum E: int"),
        ["changed enum E (backing_type)"]
    );
    assert_eq!(
        same("interface I", "abstract class I"),
        ["changed interface I (abstract, kind)"]
    );
    let (b, a) = (
        decls_of("a.php", php),
        decls_of("a.php", &php.replace("void", "int")),
    );
    let found = compare("a.php", &b, &a);
    let json = serde_json::to_string(&found).expect("serializes");
    assert!(json.contains("\"change\":\"signature_changed\""), "{json}");
    let back: Vec<ApiChange> = serde_json::from_str(&json).expect("deserializes");
    assert_eq!(back, found);
}

#[test]
fn php_84_property_shapes() {
    let php = "<?php\nclass P\n{\n    public private(set) string $name { get => $this->name; }\n    public static int $n = 0;\n    final public const A = 1;\n    public function __construct(public readonly int $id) {}\n}\n";
    let same = |from: &str, to: &str| changes("p.php", php, &php.replace(from, to));
    assert!(
        same("get => $this->name;", "get => strtoupper($this->name);").is_empty(),
        "hook bodies"
    );
    assert_eq!(
        same("public private(set) string", "public string"),
        ["changed property P::$name (set_visibility)"]
    );
    assert_eq!(
        same("public static int $n", "public int $n"),
        ["changed property P::$n (static)"]
    );
    assert_eq!(
        same("final public const", "public const"),
        ["changed constant P::A (final)"]
    );
    assert_eq!(
        same("public readonly int $id", "public int $id"),
        [
            "changed property P::$id (readonly)",
            "changed method P::__construct() (parameters)"
        ]
    );
}
