//! TypeScript (and JavaScript) declarations: classes, interfaces, enums, functions, type aliases
//! and `const` / `let` bindings, with their methods, fields, signatures and members, spelled
//! `Class.method` and `function`. Only what the file exports (`export …`, `export { … }`,
//! `export default name`) is public API; `private`, `protected` and `#name` members are private.
//! An overload group (signatures plus implementation) is one declaration.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::{Declaration, Kind, children, declaration, doc_start, squash, text};

const COMMENTS: &[&str] = &["comment"];

/// Names exported by an `export { … }` list or `export default name;`.
type Listed<'a> = std::collections::BTreeSet<&'a str>;

/// Every declaration of the file, in document order.
pub fn declarations(tree: &Tree, source: &[u8]) -> Vec<Declaration> {
    let mut out = Vec::new();
    let listed = exported_names(tree.root_node(), source);
    for node in children(tree.root_node()) {
        let (outer, decl, exported) = match node.kind() {
            "export_statement" => match node.child_by_field_name("declaration") {
                Some(decl) => (node, decl, true),
                None => continue,
            },
            _ => {
                let named = node
                    .child_by_field_name("name")
                    .is_some_and(|n| listed.contains(text(n, source)));
                (node, node, named)
            }
        };
        top_level(outer, decl, (exported, &listed), source, &mut out);
    }
    merge_overloads(out)
}

/// An overload group (`parse(x: string): number; parse(x: number): number; parse(x: any) {…}`)
/// is one declaration: its range spans every signature and the implementation, its body is
/// the implementation's, and the signatures before it become the `overloads` fact.
fn merge_overloads(decls: Vec<Declaration>) -> Vec<Declaration> {
    let mut out: Vec<Declaration> = Vec::new();
    for mut d in decls {
        let Some(prev) = out.last().filter(|p| overloaded_by(p, &d)) else {
            out.push(d);
            continue;
        };
        let facts = &prev.facts;
        let signature = format!(
            "{}{}",
            facts.get("parameters").map_or("", String::as_str),
            facts.get("return_type").map_or("", String::as_str)
        );
        let overloads = match facts.get("overloads") {
            Some(earlier) => format!("{earlier}{OVERLOAD_SEPARATOR}{signature}"),
            None => signature,
        };
        d.facts.insert("overloads", overloads);
        (d.range.start, d.attrs, d.core) = (prev.range.start, prev.attrs, prev.core);
        d.private &= prev.private;
        if let Some(decorators) = prev.facts.get("decorators") {
            d.facts.insert("decorators", decorators.clone());
        }
        out.pop();
        out.push(d);
    }
    for d in out.iter_mut().filter(|d| d.facts.contains_key("overloads")) {
        // Callers see the signatures only: a bodiless last one is an overload too, an
        // implementation's own parameters are not API.
        let own = (
            d.facts.remove("parameters").unwrap_or_default(),
            d.facts.remove("return_type").unwrap_or_default(),
        );
        d.facts.remove("type_parameters");
        let last_signature = d.body.is_none();
        if let Some(list) = d.facts.get_mut("overloads").filter(|_| last_signature) {
            list.push_str(&format!("{OVERLOAD_SEPARATOR}{}{}", own.0, own.1));
        }
    }
    out
}

/// Between the signatures of the `overloads` fact (never inside a squashed signature).
pub const OVERLOAD_SEPARATOR: &str = "; ";

/// `next` continues the overload group `prev` ends: the same function or method, `prev` a
/// signature without a body.
fn overloaded_by(prev: &Declaration, next: &Declaration) -> bool {
    matches!(prev.kind, Kind::Function | Kind::Method)
        && prev.kind == next.kind
        && prev.symbol == next.symbol
        && prev.container == next.container
        && prev.body.is_none()
        && prev.range.end <= next.range.start
}

/// The local names a file exports without exporting their declaration: `export { Repo,
/// helper as h };` and `export default Repo;` (re-exports `… from './x'` name other files).
fn exported_names<'a>(root: Node<'_>, source: &'a [u8]) -> Listed<'a> {
    let mut names = Listed::new();
    for node in children(root) {
        if node.kind() != "export_statement" || node.child_by_field_name("source").is_some() {
            continue;
        }
        if let Some(value) = node
            .child_by_field_name("value")
            .filter(|v| v.kind() == "identifier")
        {
            names.insert(text(value, source));
        }
        for clause in children(node)
            .into_iter()
            .filter(|c| c.kind() == "export_clause")
        {
            for spec in children(clause) {
                if let Some(name) = spec.child_by_field_name("name") {
                    names.insert(text(name, source));
                }
            }
        }
    }
    names
}

/// Whether `source` may export local declarations by name, away from them: a line whose
/// first word is `export` followed by `{`, `type {` or `default <identifier>` ending there.
/// A region of the file cannot see such a list, so its declarations' publicity is then
/// unknown. One SIMD scan of the bytes; a string or comment that looks like a list counts
/// too (the caller then reads the whole file, which is never wrong).
pub fn may_list_exports(source: &[u8]) -> bool {
    memchr::memmem::find_iter(source, b"export").any(|at| lists_at(source, at))
}

/// [`may_list_exports`] of `after`, a new version of a file in which no line lists exports,
/// that differs from it only in `changed` (byte ranges of `after`, ascending). A line that
/// lists exports must then be one an edit reaches: `export` on the rest of the line a change
/// ends on, or just before a change (through the words and spaces between them, as the
/// check reads them). Only those places are read, so an edit costs its neighbourhood.
pub fn may_list_exports_near(after: &[u8], changed: impl Iterator<Item = Range<usize>>) -> bool {
    let finder = memchr::memmem::Finder::new(b"export");
    changed.into_iter().any(|range| {
        let from = reach_back(after, range.start.min(after.len()));
        let end = range.end.min(after.len());
        let line_end = memchr::memchr(b'\n', &after[end..]).map_or(after.len(), |i| end + i);
        let window = &after[from..(line_end + 6).min(after.len())];
        finder
            .find_iter(window)
            .any(|at| from + at <= line_end && lists_at(after, from + at))
    })
}

/// Where an `export` whose check reads up to `at` can start at the latest: back over up to
/// three words and the blanks around them (`export default name`; `export` is a word too).
fn reach_back(source: &[u8], mut at: usize) -> usize {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    for _ in 0..3 {
        while at > 0 && source[at - 1].is_ascii_whitespace() {
            at -= 1;
        }
        while at > 0 && word(source[at - 1]) {
            at -= 1;
        }
    }
    at
}

/// Whether the `export` at `at` is a line's first word and starts an export list.
fn lists_at(source: &[u8], at: usize) -> bool {
    let line = source[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    source[line..at].iter().all(u8::is_ascii_whitespace) && lists(&source[at + 6..])
}

/// What follows `export` starts an export list or `export default name`.
fn lists(rest: &[u8]) -> bool {
    let rest = rest.trim_ascii_start();
    let after_type = rest.strip_prefix(b"type").map(<[u8]>::trim_ascii_start);
    if rest.starts_with(b"{") || after_type.is_some_and(|r| r.starts_with(b"{")) {
        return true;
    }
    let Some(value) = rest
        .strip_prefix(b"default")
        .filter(|r| r.first().is_some_and(u8::is_ascii_whitespace))
        .map(<[u8]>::trim_ascii_start)
    else {
        return false;
    };
    let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$';
    let len = value.iter().take_while(|b| word(b)).count();
    let name = &value[..len];
    let declares = [
        &b"class"[..],
        b"function",
        b"async",
        b"abstract",
        b"interface",
        b"enum",
    ];
    let end = value[len..].iter().find(|b| !matches!(b, b' ' | b'\t'));
    len > 0 && !declares.contains(&name) && end.is_none_or(|b| matches!(b, b';' | b'\n' | b'\r'))
}

/// `exported`: the statement exports the declaration, or the names an export list names.
fn top_level(
    outer: Node<'_>,
    decl: Node<'_>,
    (exported, listed): (bool, &Listed<'_>),
    source: &[u8],
    out: &mut Vec<Declaration>,
) {
    let kind = match decl.kind() {
        "class_declaration" | "abstract_class_declaration" => Kind::Class,
        "interface_declaration" => Kind::Interface,
        "enum_declaration" => Kind::Enum,
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            Kind::Function
        }
        "type_alias_declaration" => Kind::Type,
        "lexical_declaration" | "variable_declaration" => {
            return variables(outer, decl, (exported, listed), source, out);
        }
        _ => return,
    };
    let Some(name) = decl.child_by_field_name("name").map(|n| text(n, source)) else {
        return;
    };
    let mut d = framed(outer, source, kind, name, name.to_owned());
    d.private = !exported;
    d.facts.insert("kind", kind.as_str().into());
    if decl.kind() == "abstract_class_declaration" {
        d.facts.insert("abstract", "yes".into());
    }
    signature(decl, source, &mut d);
    if let Some(value) = decl
        .child_by_field_name("value")
        .filter(|_| kind == Kind::Type)
    {
        d.facts.insert("type", squash(text(value, source)));
    }
    let body = decl.child_by_field_name("body");
    if kind.is_container() {
        d.members = body.map(|b| b.byte_range());
    } else {
        d.body = body.map(|b| b.byte_range());
    }
    let private = d.private;
    out.push(d);
    if !kind.is_container() {
        return;
    }
    for member in body.map(children).unwrap_or_default() {
        if let Some(mut m) = member_of(member, source, name) {
            m.private |= private;
            m.container = Some(name.to_owned());
            out.push(m);
        }
    }
}

/// Doc comment and decorators above `node` (siblings in a class body, or the decorators of an
/// `export` statement), and the `;` that ends it.
fn framed(node: Node<'_>, source: &[u8], kind: Kind, name: &str, symbol: String) -> Declaration {
    let mut first = node;
    while let Some(p) = first.prev_sibling().filter(|p| p.kind() == "decorator") {
        first = p;
    }
    let start = doc_start(first, source, COMMENTS);
    let mut end = node.end_byte();
    if let Some(next) = node.next_sibling().filter(|n| n.kind() == ";") {
        end = next.end_byte();
    }
    let mut d = declaration(kind, name, symbol, start..end);
    d.attrs = first.start_byte();
    d.core = children(node)
        .into_iter()
        .find(|c| c.kind() != "decorator")
        .filter(|_| first == node)
        .map_or(node.start_byte(), |c| c.start_byte());
    super::decorators_fact(node, source, &mut d);
    // In a class body a member's decorators are its siblings, not its children.
    let mut siblings = Vec::new();
    let mut at = Some(first).filter(|f| *f != node);
    while let Some(decorator) = at.filter(|a| a.kind() == "decorator") {
        siblings.push(super::decorator_name(text(decorator, source)));
        at = decorator.next_sibling();
    }
    if !siblings.is_empty() {
        siblings.extend(d.facts.remove("decorators"));
        d.facts.insert("decorators", siblings.join(" "));
    }
    d
}

/// `export const A = …, b: T = …;`: one constant per declarator (a declaration of several is
/// `embedded`: compared, not edited alone).
fn variables(
    outer: Node<'_>,
    decl: Node<'_>,
    (exported, listed): (bool, &Listed<'_>),
    source: &[u8],
    out: &mut Vec<Declaration>,
) {
    let declarators: Vec<Node<'_>> = children(decl)
        .into_iter()
        .filter(|c| c.kind() == "variable_declarator")
        .collect();
    let keyword = children(decl)
        .first()
        .map_or("", |k| text(*k, source))
        .to_owned();
    let many = declarators.len() > 1;
    for declarator in declarators {
        let Some(name) = declarator
            .child_by_field_name("name")
            .filter(|n| n.kind() == "identifier")
            .map(|n| text(n, source))
        else {
            continue;
        };
        let mut d = framed(outer, source, Kind::Constant, name, name.to_owned());
        d.private = !exported && !listed.contains(name);
        d.embedded = many;
        d.facts.insert("kind", keyword.clone());
        if let Some(ty) = declarator.child_by_field_name("type") {
            d.facts.insert("type", squash(text(ty, source)));
        }
        out.push(d);
    }
}

fn signature(node: Node<'_>, source: &[u8], d: &mut Declaration) {
    for field in ["type_parameters", "parameters", "return_type", "type"] {
        if let Some(n) = node.child_by_field_name(field) {
            let key = match field {
                "type_parameters" => "type_parameters",
                "parameters" => "parameters",
                "return_type" => "return_type",
                _ => "type",
            };
            d.facts.insert(key, squash(text(n, source)));
        }
    }
    let mut modifiers: Vec<String> = Vec::new();
    for child in children(node) {
        let word = text(child, source);
        match child.kind() {
            "accessibility_modifier" | "override_modifier" => modifiers.push(word.to_owned()),
            "static" | "readonly" | "abstract" | "async" | "get" | "set" | "declare" | "?"
            | "*" => {
                modifiers.push(word.to_owned());
            }
            _ => {}
        }
    }
    d.private |= modifiers.iter().any(|m| m == "private" || m == "protected");
    if !modifiers.is_empty() {
        d.facts.insert("modifiers", modifiers.join(" "));
    }
}

fn member_of(node: Node<'_>, source: &[u8], class: &str) -> Option<Declaration> {
    let kind = match node.kind() {
        "method_definition" | "method_signature" | "abstract_method_signature" => Kind::Method,
        "public_field_definition" | "property_signature" | "field_definition" => Kind::Property,
        "enum_assignment" => Kind::Case,
        "property_identifier" => Kind::Case,
        _ => return None,
    };
    let name_node = match node.kind() {
        "property_identifier" => node,
        // JavaScript fields name their property `property`.
        "field_definition" => node.child_by_field_name("property")?,
        _ => node.child_by_field_name("name")?,
    };
    let name = text(name_node, source);
    let mut d = framed(node, source, kind, name, format!("{class}.{name}"));
    if kind == Kind::Case {
        let value = node.child_by_field_name("value");
        d.facts.insert(
            "value",
            value.map_or(String::new(), |v| squash(text(v, source))),
        );
        return Some(d);
    }
    signature(node, source, &mut d);
    d.private |= name.starts_with('#');
    d.body = node.child_by_field_name("body").map(|b| b.byte_range());
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::{may_list_exports, may_list_exports_near};
    use crate::plan::splice::{self, Splice};

    const PIECES: &str = "(export|default|type|name|class|[{};]| |\n|// )";

    /// Changes that turn a line into an export list from either side of it: (file, the text
    /// replaced, its replacement).
    #[test]
    fn a_change_at_either_end_of_an_export_line_is_read() {
        let cases = [
            ("x\n  export default name {\n", " {", ""),
            ("x\nexport default\n\n  name = 1;\n", " = 1", ""),
            ("// export {a}\n", "// ", ""),
            ("y\n  export type x {\n", "x ", ""),
        ];
        for (before, old, new) in cases {
            assert!(!may_list_exports(before.as_bytes()));
            let start = before.find(old).unwrap_or_default();
            let range = start..start + old.len();
            let splices = [Splice {
                range,
                text: new.into(),
                op: 0,
            }];
            let after = splice::apply(before.as_bytes(), &splices);
            assert!(
                may_list_exports(&after),
                "{}",
                String::from_utf8_lossy(&after)
            );
            let ranges = splice::changed_ranges(before.as_bytes(), &splices);
            let near = may_list_exports_near(&after, ranges.iter().map(|r| r.1.clone()));
            assert!(near, "{}", String::from_utf8_lossy(&after));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Read near its changes, a version of a file without export lists lists exports
        /// exactly when reading all of it says so.
        #[test]
        fn reading_near_the_changes_is_reading_the_file(
            before in proptest::collection::vec(PIECES, 0..16),
            edits in proptest::collection::vec((0usize..60, 0usize..8, proptest::collection::vec(PIECES, 0..3)), 1..3),
        ) {
            let before = before.concat().into_bytes();
            proptest::prop_assume!(!may_list_exports(&before));
            let mut splices: Vec<Splice> = Vec::new();
            let mut at = 0;
            for (skip, len, text) in edits {
                let start = (at + skip).min(before.len());
                let end = (start + len).min(before.len());
                splices.push(Splice { range: start..end, text: text.concat(), op: 0 });
                at = end + 1;
                if at > before.len() {
                    break;
                }
            }
            let after = splice::apply(&before, &splices);
            let ranges = splice::changed_ranges(&before, &splices);
            let near = may_list_exports_near(&after, ranges.iter().map(|r| r.1.clone()));
            proptest::prop_assert_eq!(near, may_list_exports(&after));
        }
    }
}
