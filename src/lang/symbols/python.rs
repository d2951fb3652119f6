//! Python declarations: module-level classes and functions, methods, and annotated class
//! attributes (properties), spelled `Class.method` and `function`. A leading underscore makes
//! a name private (dunder names such as `__init__` are public); members of a private class
//! are private.

use tree_sitter::{Node, Tree};

use super::{Declaration, Kind, children, declaration, doc_start, squash, text};

const COMMENTS: &[&str] = &["comment"];

/// Every declaration of the file, in document order.
pub fn declarations(tree: &Tree, source: &[u8]) -> Vec<Declaration> {
    let mut out = Vec::new();
    for node in children(tree.root_node()) {
        let (outer, def) = unwrap(node);
        match def.kind() {
            "class_definition" => class(outer, def, source, &mut out),
            "function_definition" => out.extend(function(outer, def, source, None)),
            _ => {}
        }
    }
    out
}

/// A decorated definition and the definition inside it.
fn unwrap(node: Node<'_>) -> (Node<'_>, Node<'_>) {
    match node.kind() {
        "decorated_definition" => (node, node.child_by_field_name("definition").unwrap_or(node)),
        _ => (node, node),
    }
}

pub(crate) fn private_name(name: &str) -> bool {
    name.starts_with('_') && !(name.starts_with("__") && name.ends_with("__") && name.len() > 4)
}

fn framed(
    outer: Node<'_>,
    def: Node<'_>,
    source: &[u8],
    kind: Kind,
    name: &str,
    symbol: String,
) -> Declaration {
    let start = doc_start(outer, source, COMMENTS);
    let mut d = declaration(kind, name, symbol, start..outer.end_byte());
    d.attrs = outer.start_byte();
    d.core = def.start_byte();
    super::decorators_fact(outer, source, &mut d);
    d
}

fn class(outer: Node<'_>, def: Node<'_>, source: &[u8], out: &mut Vec<Declaration>) {
    let Some(name) = def.child_by_field_name("name").map(|n| text(n, source)) else {
        return;
    };
    let mut c = framed(outer, def, source, Kind::Class, name, name.to_owned());
    c.private = private_name(name);
    c.members = def.child_by_field_name("body").map(|b| b.byte_range());
    let private = c.private;
    out.push(c);
    let body = def.child_by_field_name("body");
    for member in body.map(children).unwrap_or_default() {
        let (m_outer, m_def) = unwrap(member);
        let found = match m_def.kind() {
            "function_definition" => function(m_outer, m_def, source, Some(name)),
            "expression_statement" => attribute(member, source, name),
            _ => None,
        };
        if let Some(mut d) = found {
            d.private |= private;
            d.container = Some(name.to_owned());
            out.push(d);
        }
    }
}

fn function(
    outer: Node<'_>,
    def: Node<'_>,
    source: &[u8],
    class: Option<&str>,
) -> Option<Declaration> {
    let name = text(def.child_by_field_name("name")?, source);
    let (kind, symbol) = match class {
        Some(class) => (Kind::Method, format!("{class}.{name}")),
        None => (Kind::Function, name.to_owned()),
    };
    let mut d = framed(outer, def, source, kind, name, symbol);
    d.private = private_name(name);
    let field = |f: &str| {
        def.child_by_field_name(f)
            .map_or(String::new(), |n| squash(text(n, source)))
    };
    d.facts.insert("parameters", field("parameters"));
    d.facts.insert("return_type", field("return_type"));
    if children(def).first().is_some_and(|c| c.kind() == "async") {
        d.facts.insert("async", "yes".into());
    }
    d.body = def.child_by_field_name("body").map(|b| b.byte_range());
    Some(d)
}

/// `name: Type = value` in a class body.
fn attribute(statement: Node<'_>, source: &[u8], class: &str) -> Option<Declaration> {
    let assignment = statement
        .named_child(0)
        .filter(|a| a.kind() == "assignment")?;
    let ty = assignment.child_by_field_name("type")?;
    let left = assignment
        .child_by_field_name("left")
        .filter(|l| l.kind() == "identifier")?;
    let name = text(left, source);
    let mut d = framed(
        statement,
        statement,
        source,
        Kind::Property,
        name,
        format!("{class}.{name}"),
    );
    d.private = private_name(name);
    d.facts.insert("type", squash(text(ty, source)));
    Some(d)
}

/// `code` (one definition, at column 0) with `docstring` (written at `old_indent`) as the
/// first statement of its body,
/// or `None` when its body already starts with a string, is on the signature's line, or the
/// code holds no definition.
pub fn keep_docstring(code: &str, docstring: &str, old_indent: &str, eol: &str) -> Option<String> {
    let provider = crate::lang::provider_for("code.py")?;
    let tree = crate::lang::parse::parse(provider, code.as_bytes(), None).ok()?;
    let node = children(tree.root_node())
        .into_iter()
        .find(|n| n.kind() != "comment")?;
    let (_, def) = unwrap(node);
    let first = def.child_by_field_name("body")?.named_child(0)?;
    let string = first.named_child(0).is_some_and(|s| s.kind() == "string");
    if first.kind() == "expression_statement" && string {
        return None;
    }
    let at = first.start_byte();
    let line = super::layout::line_start(code.as_bytes(), at);
    let indent = code
        .get(line..at)
        .filter(|i| i.trim().is_empty() && !i.is_empty())?;
    // The docstring's later lines move from its old indentation to the new body's.
    let docstring: Vec<String> = docstring
        .split('\n')
        .enumerate()
        .map(|(i, line)| match line.strip_prefix(old_indent) {
            Some(rest) if i > 0 && !line.trim().is_empty() => format!("{indent}{rest}"),
            _ => line.to_owned(),
        })
        .collect();
    let docstring = docstring.join("\n");
    Some(format!(
        "{}{docstring}{eol}{indent}{}",
        &code[..at],
        &code[at..]
    ))
}
