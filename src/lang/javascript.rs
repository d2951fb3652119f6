//! JavaScript's early errors that tree-sitter-javascript's grammar takes (Node rejects them
//! before running anything): a name bound twice in one scope where one binding is lexical
//! (`let`, `const`, `class`, `import`), a second `export default`, a private name (`#x`)
//! declared twice in one class (a getter and a setter excepted) or used outside every class
//! that declares it.
//!
//! These rules read a whole scope, which a region may hold only part of: `bindings` lists
//! what they count, and a region whose list changes is decided on the whole file
//! (`lang::regional`).

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use crate::lang::{Location, count_stray};

/// Nodes whose direct children share one lexical scope.
const SCOPES: &[&str] = &[
    "program",
    "statement_block",
    "switch_case",
    "switch_default",
];

/// The early errors above: how many, and the first.
/// A duplicate binding is located at its second binding, not at its scope.
pub fn early_errors(tree: &Tree, source: &[u8]) -> (usize, Option<Location>) {
    let mut earliest: Option<Location> = None;
    let (count, first) = count_stray(tree, source, |node, _| {
        let found = match node.kind() {
            k if SCOPES.contains(&k) => duplicate_binding(node, source),
            "private_property_identifier" => {
                (!private_declared(node, source)).then(|| Location::of(node))
            }
            "class_body" => duplicate_private(node, source).then(|| Location::of(node)),
            _ => None,
        };
        earliest = Location::earlier(earliest, found);
        found.is_some()
    });
    (count, earliest.or(first))
}

/// What the rules count, in a stable order: every binding of every scope, `export default`s
/// and private names declared or used. Two versions with the same list have the same errors
/// outside what a region shows.
pub fn bindings(tree: &Tree, source: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    count_stray(tree, source, |node, text| {
        if SCOPES.contains(&node.kind()) {
            out.extend(scope_names(node, source).into_iter().map(|b| b.name));
        } else if node.kind() == "private_property_identifier" {
            out.push(String::from_utf8_lossy(text).into_owned());
        }
        false
    });
    out.sort();
    out
}

/// One name a statement binds.
struct Binding {
    name: String,
    /// `let`, `const`, `class` or `import` (not `var` or `function`).
    lexical: bool,
    at: Location,
}

/// Where a name is bound twice in `scope` with one of the bindings lexical, or `export
/// default` appears twice in it: the earliest second binding.
fn duplicate_binding(scope: Node<'_>, source: &[u8]) -> Option<Location> {
    let mut seen: HashMap<String, (Vec<Location>, bool)> = HashMap::new();
    for b in scope_names(scope, source) {
        let e = seen.entry(b.name).or_default();
        e.0.push(b.at);
        e.1 |= b.lexical;
    }
    seen.into_values()
        .filter(|(at, lexical)| at.len() > 1 && *lexical)
        .map(|(at, _)| at[1])
        .min_by_key(|at| at.byte)
}

/// The names `scope`'s own statements bind; `export default` counts as a lexical binding
/// named `default`.
fn scope_names(scope: Node<'_>, source: &[u8]) -> Vec<Binding> {
    let mut out = Vec::new();
    let mut cursor = scope.walk();
    for child in scope.named_children(&mut cursor) {
        let mut statement = child;
        if child.kind() == "export_statement" {
            let mut c = child.walk();
            if child.children(&mut c).any(|k| k.kind() == "default") {
                out.push(Binding {
                    name: "default".to_owned(),
                    lexical: true,
                    at: Location::of(child),
                });
            }
            match child.child_by_field_name("declaration") {
                Some(d) => statement = d,
                None => continue,
            }
        }
        statement_names(statement, source, &mut out);
    }
    out
}

fn statement_names(statement: Node<'_>, source: &[u8], out: &mut Vec<Binding>) {
    let binding = |n: Node<'_>, lexical| Binding {
        name: String::from_utf8_lossy(&source[n.byte_range()]).into_owned(),
        lexical,
        at: Location::of(n),
    };
    let mut cursor = statement.walk();
    match statement.kind() {
        "lexical_declaration" | "variable_declaration" => {
            let lexical = statement.kind() == "lexical_declaration";
            for d in statement.named_children(&mut cursor) {
                if let Some(name) = d.child_by_field_name("name") {
                    let mut names = Vec::new();
                    pattern_names(name, &mut names);
                    out.extend(names.into_iter().map(|n| binding(n, lexical)));
                }
            }
        }
        "class_declaration" | "function_declaration" | "generator_function_declaration" => {
            let lexical = statement.kind() == "class_declaration";
            if let Some(name) = statement.child_by_field_name("name") {
                out.push(binding(name, lexical));
            }
        }
        "import_statement" => {
            for clause in statement.named_children(&mut cursor) {
                if clause.kind() == "import_clause" {
                    import_names(clause, &mut |n| out.push(binding(n, true)));
                }
            }
        }
        _ => {}
    }
}

/// The identifiers a binding pattern binds (default values and property keys left out).
fn pattern_names<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    match node.kind() {
        "identifier" | "shorthand_property_identifier_pattern" => out.push(node),
        "pair_pattern" => {
            if let Some(v) = node.child_by_field_name("value") {
                pattern_names(v, out);
            }
        }
        "assignment_pattern" | "object_assignment_pattern" => {
            if let Some(l) = node.child_by_field_name("left") {
                pattern_names(l, out);
            }
        }
        "object_pattern" | "array_pattern" | "rest_pattern" => {
            let mut cursor = node.walk();
            for c in node.named_children(&mut cursor) {
                pattern_names(c, out);
            }
        }
        _ => {}
    }
}

/// The local names an import clause binds (`a`, `* as b`, `{ c, d as e }`).
fn import_names(clause: Node<'_>, found: &mut impl FnMut(Node<'_>)) {
    let mut cursor = clause.walk();
    for part in clause.named_children(&mut cursor) {
        match part.kind() {
            "identifier" => found(part),
            "namespace_import" => {
                let mut c = part.walk();
                part.named_children(&mut c)
                    .filter(|n| n.kind() == "identifier")
                    .for_each(&mut *found);
            }
            "named_imports" => {
                let mut c = part.walk();
                for spec in part.named_children(&mut c) {
                    let local = spec
                        .child_by_field_name("alias")
                        .or_else(|| spec.child_by_field_name("name"));
                    if let Some(n) = local.filter(|n| n.kind() == "identifier") {
                        found(n);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The private names a class body declares, each with its accessor kind (`get`, `set` or
/// empty).
fn private_members(body: Node<'_>, source: &[u8]) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        let field = match member.kind() {
            "field_definition" => "property",
            "method_definition" => "name",
            _ => continue,
        };
        let Some(name) = member
            .child_by_field_name(field)
            .filter(|n| n.kind() == "private_property_identifier")
        else {
            continue;
        };
        let mut c = member.walk();
        let accessor = member
            .children(&mut c)
            .find_map(|k| match k.kind() {
                "get" => Some("get"),
                "set" => Some("set"),
                _ => None,
            })
            .unwrap_or("");
        out.push((
            String::from_utf8_lossy(&source[name.byte_range()]).into_owned(),
            accessor,
        ));
    }
    out
}

/// Whether a private name is declared twice in one class (other than as one getter and one
/// setter).
fn duplicate_private(body: Node<'_>, source: &[u8]) -> bool {
    let members = private_members(body, source);
    members.iter().enumerate().any(|(i, (name, kind))| {
        members[i + 1..].iter().any(|(other, other_kind)| {
            other == name && (kind.is_empty() || other_kind.is_empty() || kind == other_kind)
        })
    })
}

/// Whether a private name (declared or used) is declared by a class around it.
fn private_declared(node: Node<'_>, source: &[u8]) -> bool {
    let name = &source[node.byte_range()];
    let mut up = node.parent();
    while let Some(n) = up {
        if n.kind() == "class_body"
            && private_members(n, source)
                .iter()
                .any(|(m, _)| m.as_bytes() == name)
        {
            return true;
        }
        up = n.parent();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::early_errors;
    use crate::lang::parse::parse;
    use crate::lang::provider_for;

    fn errors(source: &str) -> usize {
        let provider = provider_for("a.js").expect("js");
        let tree = parse(provider, source.as_bytes(), None).expect("parses");
        early_errors(&tree, source.as_bytes()).0
    }

    #[test]
    fn a_lexical_name_bound_twice_in_one_scope_is_an_error() {
        assert_eq!(errors("let n = 0;\nlet n = 0;\n"), 1);
        assert_eq!(errors("export const A = 1;\nexport const A = 1;\n"), 1);
        assert_eq!(
            errors("import { a } from 'x';\nimport { a } from 'x';\n"),
            1
        );
        assert_eq!(
            errors("function f() {\n  const [a, b] = g();\n  let b;\n}\n"),
            1
        );
        assert_eq!(errors("class C {}\nvar C;\n"), 1);
    }

    #[test]
    fn names_in_different_scopes_or_non_lexical_repeats_are_not() {
        assert_eq!(errors("let n = 0;\n{\n  let n = 1;\n}\n"), 0);
        assert_eq!(
            errors("var v = 1;\nvar v = 2;\nfunction f() {}\nfunction f() {}\n"),
            0
        );
        assert_eq!(
            errors("const { a: b, c = d } = o;\nconst a = 1, d = 2;\n"),
            0
        );
        assert_eq!(
            errors("for (let i = 0; ; ) {}\nfor (let i = 0; ; ) {}\n"),
            0
        );
    }

    #[test]
    fn a_name_bound_twice_is_located_at_its_second_binding() {
        let source = "const a = 1;\nfunction f() {\n  let b = 1;\n  let b = 2;\n}\nconst a = 2;\n";
        let provider = provider_for("a.js").expect("provider");
        let tree = parse(provider, source.as_bytes(), None).expect("parses");
        let (count, at) = early_errors(&tree, source.as_bytes());
        assert_eq!(count, 2);
        let at = at.expect("a location");
        assert_eq!((at.line, at.column), (4, 7));
    }

    #[test]
    fn a_second_export_default_is_an_error() {
        assert_eq!(errors("export default 1;\n"), 0);
        assert_eq!(errors("export default 1;\nexport default 2;\n"), 1);
    }

    #[test]
    fn private_names_are_declared_once_by_an_enclosing_class() {
        let ok = "class A {\n  #h = [];\n  get #g() { return 1; }\n  set #g(v) {}\n  f() { return this.#h.length + this.#g; }\n}\n";
        assert_eq!(errors(ok), 0);
        assert_eq!(errors("class A {\n  f() { return this.#h; }\n}\n"), 1);
        assert_eq!(errors("class A {\n  #h = [];\n  #h = [];\n}\n"), 1);
        let nested = "class A {\n  #h = 1;\n  f() { return class { g(a) { return a.#h; } }; }\n}\n";
        assert_eq!(errors(nested), 0);
    }
}
