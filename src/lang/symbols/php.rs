//! PHP declarations: classes, interfaces, traits and enums with their methods, properties
//! (promoted constructor properties included), constants and cases, and functions; spelled
//! `Class`, `Class::method()`, `Class::$property`, `Class::CONSTANT`, `Enum::CASE`,
//! `function()`, qualified by the namespace they are declared in.

use tree_sitter::{Node, Tree};

use super::{Declaration, Kind, children, declaration, doc_start, squash, text};

const COMMENTS: &[&str] = &["comment"];

/// Every declaration of the file, in document order.
pub fn declarations(tree: &Tree, source: &[u8]) -> Vec<Declaration> {
    let mut out = Vec::new();
    statements(tree.root_node(), source, "", &mut out);
    out
}

fn statements(parent: Node<'_>, source: &[u8], namespace: &str, out: &mut Vec<Declaration>) {
    let mut namespace = namespace.to_owned();
    for node in children(parent) {
        match node.kind() {
            "namespace_definition" => {
                let name = node
                    .child_by_field_name("name")
                    .map_or(String::new(), |n| text(n, source).to_owned());
                match node.child_by_field_name("body") {
                    Some(body) => statements(body, source, &name, out),
                    None => namespace = name,
                }
            }
            "class_declaration"
            | "interface_declaration"
            | "trait_declaration"
            | "enum_declaration" => class_like(node, source, &namespace, out),
            "function_definition" => {
                if let Some(mut d) = callable(node, source, Kind::Function, None) {
                    d.qualified = qualify(&namespace, &d.symbol);
                    out.push(d);
                }
            }
            _ => {}
        }
    }
}

fn qualify(namespace: &str, symbol: &str) -> Option<String> {
    (!namespace.is_empty()).then(|| format!("{namespace}\\{symbol}"))
}

/// The common frame of a declaration node: doc comment, attribute list, core start.
fn framed(node: Node<'_>, source: &[u8], kind: Kind, name: &str, symbol: String) -> Declaration {
    let start = doc_start(node, source, COMMENTS);
    let mut end = node.end_byte();
    if let Some(next) = node.next_sibling().filter(|n| n.kind() == ";") {
        end = next.end_byte();
    }
    let mut d = declaration(kind, name, symbol, start..end);
    d.attrs = node.start_byte();
    d.core = node
        .child_by_field_name("attributes")
        .and_then(|a| a.next_sibling())
        .map_or(node.start_byte(), |n| n.start_byte());
    d
}

fn class_like(node: Node<'_>, source: &[u8], namespace: &str, out: &mut Vec<Declaration>) {
    let Some(name) = node.child_by_field_name("name").map(|n| text(n, source)) else {
        return;
    };
    let kind = match node.kind() {
        "interface_declaration" => Kind::Interface,
        "trait_declaration" => Kind::Trait,
        "enum_declaration" => Kind::Enum,
        _ => Kind::Class,
    };
    let mut class = framed(node, source, kind, name, name.to_owned());
    class.qualified = qualify(namespace, name);
    class.members = node.child_by_field_name("body").map(|b| b.byte_range());
    for child in children(node) {
        match child.kind() {
            "abstract_modifier" | "final_modifier" | "readonly_modifier" => {
                class.facts.insert(modifier(child.kind()), "yes".into());
            }
            "primitive_type" | "named_type" => {
                class
                    .facts
                    .insert("backing_type", squash(text(child, source)));
            }
            _ => {}
        }
    }
    class.facts.insert("kind", kind.as_str().into());
    let body = node.child_by_field_name("body");
    out.push(class);
    for member in body.map(children).unwrap_or_default() {
        members(member, source, name, namespace, out);
    }
}

fn modifier(kind: &str) -> &'static str {
    match kind {
        "abstract_modifier" => "abstract",
        "final_modifier" => "final",
        "readonly_modifier" => "readonly",
        "static_modifier" => "static",
        _ => "modifier",
    }
}

fn members(
    node: Node<'_>,
    source: &[u8],
    class: &str,
    namespace: &str,
    out: &mut Vec<Declaration>,
) {
    let mut found: Vec<Declaration> = match node.kind() {
        "method_declaration" => {
            let mut list: Vec<Declaration> = callable(node, source, Kind::Method, Some(class))
                .into_iter()
                .collect();
            if list.first().is_some_and(|d| d.name == "__construct") {
                promoted(node, source, class, &mut list);
            }
            list
        }
        "property_declaration" => property(node, source, class),
        "const_declaration" => constants(node, source, class),
        "enum_case" => node
            .child_by_field_name("name")
            .map(|n| {
                let name = text(n, source);
                let mut d = framed(node, source, Kind::Case, name, format!("{class}::{name}"));
                let value = node.child_by_field_name("value");
                d.facts.insert(
                    "value",
                    value.map_or(String::new(), |v| squash(text(v, source))),
                );
                d
            })
            .into_iter()
            .collect(),
        _ => Vec::new(),
    };
    for d in &mut found {
        d.container = Some(class.to_owned());
        d.qualified = qualify(namespace, &d.symbol);
    }
    out.append(&mut found);
}

/// Visibility and the other modifier keywords among a node's children.
fn modifiers(node: Node<'_>, source: &[u8], d: &mut Declaration) {
    let mut visibility = "public".to_owned();
    for child in children(node) {
        match child.kind() {
            "visibility_modifier" => {
                let v = squash(text(child, source)).to_lowercase();
                if v.ends_with("(set)") {
                    d.facts.insert("set_visibility", v);
                } else {
                    visibility = v;
                }
            }
            "static_modifier" | "abstract_modifier" | "final_modifier" | "readonly_modifier" => {
                d.facts.insert(modifier(child.kind()), "yes".into());
            }
            "reference_modifier" => {
                d.facts.insert("by_reference", "yes".into());
            }
            _ => {}
        }
    }
    d.private = visibility == "private";
    d.facts.insert("visibility", visibility);
}

fn callable(node: Node<'_>, source: &[u8], kind: Kind, class: Option<&str>) -> Option<Declaration> {
    let name = text(node.child_by_field_name("name")?, source);
    let symbol = match class {
        Some(class) => format!("{class}::{name}()"),
        None => format!("{name}()"),
    };
    let mut d = framed(node, source, kind, name, symbol);
    modifiers(node, source, &mut d);
    let field = |f: &str| {
        node.child_by_field_name(f)
            .map_or(String::new(), |n| squash(text(n, source)))
    };
    d.facts.insert("parameters", parameters(node, source));
    d.facts.insert("return_type", field("return_type"));
    d.body = node.child_by_field_name("body").map(|b| b.byte_range());
    Some(d)
}

/// The parameter list as the guard compares it: types, by-reference, variadic, names and
/// defaults, without attributes and comments.
fn parameters(node: Node<'_>, source: &[u8]) -> String {
    let Some(list) = node.child_by_field_name("parameters") else {
        return String::new();
    };
    let params: Vec<String> = children(list)
        .into_iter()
        .filter(|p| p.is_named() && p.kind() != "comment")
        .map(|p| {
            let start = p
                .child_by_field_name("attributes")
                .and_then(|a| a.next_sibling())
                .map_or(p.start_byte(), |n| n.start_byte());
            squash(std::str::from_utf8(&source[start..p.end_byte()]).unwrap_or_default())
        })
        .collect();
    format!("({})", params.join(", "))
}

fn promoted(method: Node<'_>, source: &[u8], class: &str, out: &mut Vec<Declaration>) {
    let Some(list) = method.child_by_field_name("parameters") else {
        return;
    };
    for p in children(list)
        .into_iter()
        .filter(|p| p.kind() == "property_promotion_parameter")
    {
        let Some(name) = p.child_by_field_name("name").map(|n| text(n, source)) else {
            continue;
        };
        let mut d = framed(p, source, Kind::Property, name, format!("{class}::{name}"));
        modifiers(p, source, &mut d);
        for (fact, field) in [("readonly", "readonly"), ("visibility", "visibility")] {
            if let Some(n) = p.child_by_field_name(field) {
                let v = squash(text(n, source)).to_lowercase();
                if fact == "visibility" {
                    d.private = v == "private";
                    d.facts.insert(fact, v);
                } else {
                    d.facts.insert(fact, "yes".into());
                }
            }
        }
        let ty = p.child_by_field_name("type");
        d.facts.insert(
            "type",
            ty.map_or(String::new(), |t| squash(text(t, source))),
        );
        d.embedded = true;
        out.push(d);
    }
}

fn property(node: Node<'_>, source: &[u8], class: &str) -> Vec<Declaration> {
    elements(node, source, class, Kind::Property, |e| {
        (e.kind() == "property_element").then(|| e.child_by_field_name("name"))?
    })
}

fn constants(node: Node<'_>, source: &[u8], class: &str) -> Vec<Declaration> {
    elements(node, source, class, Kind::Constant, |e| {
        (e.kind() == "const_element")
            .then(|| children(e).into_iter().find(|c| c.kind() == "name"))?
    })
}

/// The declarations of one property or constant statement, one per element (`public $a, $b;`
/// declares two, each marked `embedded`); `name_of` picks an element's name node.
fn elements(
    node: Node<'_>,
    source: &[u8],
    class: &str,
    kind: Kind,
    name_of: impl Fn(Node<'_>) -> Option<Node<'_>>,
) -> Vec<Declaration> {
    let names: Vec<Node<'_>> = children(node).into_iter().filter_map(name_of).collect();
    let many = names.len() > 1;
    names
        .into_iter()
        .map(|name_node| {
            let name = text(name_node, source);
            let mut d = framed(node, source, kind, name, format!("{class}::{name}"));
            modifiers(node, source, &mut d);
            let ty = node.child_by_field_name("type");
            d.facts.insert(
                "type",
                ty.map_or(String::new(), |t| squash(text(t, source))),
            );
            d.embedded = many;
            d
        })
        .collect()
}
