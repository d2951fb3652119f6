//! Name rules that a field lookup cannot express: declarators, keys, headings, selectors.
//!
//! Every rule returns `None` when the node has no sensible name; such a node is then not an
//! outline item (a forward declaration, a local variable, a scalar list entry, ...).

use tree_sitter::Node;

use crate::lang::node_text;

fn text(node: Node<'_>, source: &[u8]) -> String {
    node_text(node, source).to_owned()
}

fn field_text(node: Node<'_>, field: &str, source: &[u8]) -> Option<String> {
    node.child_by_field_name(field).map(|n| text(n, source))
}

fn child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).find(|c| c.kind() == kind)
}

fn parent_kind<'t>(node: Node<'t>) -> &'t str {
    node.parent().map_or("", |p| p.kind())
}

/// Text without one pair of surrounding quotes (`"a"`, `'a'`, `` `a` ``).
fn unquote(text: &str) -> &str {
    let text = text.trim();
    for quote in ['"', '\'', '`'] {
        if let Some(inner) = text.strip_prefix(quote).and_then(|t| t.strip_suffix(quote)) {
            return inner;
        }
    }
    text
}

/// Runs of whitespace (newlines included) collapsed to one space.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Position of `node` among its parent's named children that `counts`.
fn index_among(node: Node<'_>, counts: impl Fn(Node<'_>) -> bool) -> Option<String> {
    let parent = node.parent()?;
    let mut cursor = parent.walk();
    let index = parent
        .named_children(&mut cursor)
        .filter(|c| counts(*c))
        .position(|c| c.id() == node.id())?;
    Some(index.to_string())
}

/// The innermost declarator under `node` (through pointers, references, parentheses,
/// arrays and function declarators), and whether a function declarator was on the way.
fn innermost_declarator(node: Node<'_>) -> Option<(Node<'_>, bool)> {
    let mut current = node.child_by_field_name("declarator")?;
    let mut function = false;
    loop {
        function |= current.kind() == "function_declarator";
        let inner = match current.kind() {
            "reference_declarator" | "parenthesized_declarator" => current.named_child(0),
            _ => current.child_by_field_name("declarator"),
        };
        match inner {
            Some(inner) => current = inner,
            None => return Some((current, function)),
        }
    }
}

/// Follows `declarator` fields down to the identifier (C and C++ functions, pointers,
/// references, typedefs); C++ out-of-class definitions keep their scope (`Shape::area`).
pub fn declarator(node: Node<'_>, source: &[u8]) -> Option<String> {
    if in_template(node) {
        return None;
    }
    innermost_declarator(node).map(|(name, _)| text(name, source))
}

/// A C++ declaration inside a `template <...>` is listed as the template, whose span
/// includes the template parameters.
fn in_template(node: Node<'_>) -> bool {
    parent_kind(node) == "template_declaration"
}

/// A C++ template, named by what it declares (`template <class T> T clamp(...)` is `clamp`).
pub fn cpp_template(node: Node<'_>, source: &[u8]) -> Option<String> {
    let last = node.named_child_count().checked_sub(1)?;
    let inner = node.named_child(u32::try_from(last).ok()?)?;
    if inner.kind() == "template_declaration" {
        return cpp_template(inner, source);
    }
    match innermost_declarator(inner) {
        Some((name, _)) => Some(text(name, source)),
        None => field_text(inner, "name", source),
    }
}

/// A C++ `using` alias outside a template.
pub fn cpp_alias(node: Node<'_>, source: &[u8]) -> Option<String> {
    if in_template(node) {
        return None;
    }
    field_text(node, "name", source)
}

/// A function prototype (`int f(void);`, a C++ member declaration `void draw() const;`);
/// variables, fields and declarations inside function bodies have no name.
pub fn prototype(node: Node<'_>, source: &[u8]) -> Option<String> {
    if parent_kind(node) == "compound_statement" || in_template(node) {
        return None;
    }
    let (name, function) = innermost_declarator(node)?;
    function.then(|| text(name, source))
}

/// A struct, union, enum or class with a body (not a forward declaration or a use such as
/// `struct point p`); one defined inside a `typedef` is named by the typedef instead.
pub fn tagged_type(node: Node<'_>, source: &[u8]) -> Option<String> {
    let wrapped = matches!(
        parent_kind(node),
        "type_definition" | "template_declaration"
    );
    if node.child_by_field_name("body").is_none() || wrapped {
        return None;
    }
    field_text(node, "name", source)
}

/// A `#define` with a value (include guards, which have none, are not listed).
pub fn macro_with_value(node: Node<'_>, source: &[u8]) -> Option<String> {
    node.child_by_field_name("value")?;
    field_text(node, "name", source)
}

/// The type of a Rust `impl` without generics or path: `impl<T> fmt::Display for Cache<T>`
/// is `Cache`, so that `Cache.new` addresses a method.
pub fn impl_type(node: Node<'_>, source: &[u8]) -> Option<String> {
    let mut ty = node.child_by_field_name("type")?;
    loop {
        let inner = match ty.kind() {
            "generic_type" | "reference_type" => ty.child_by_field_name("type"),
            "scoped_type_identifier" => ty.child_by_field_name("name"),
            _ => None,
        };
        match inner {
            Some(inner) => ty = inner,
            None => return Some(text(ty, source)),
        }
    }
}

/// The `name` field without quotes (TypeScript `declare module "x"`).
pub fn unquoted_name(node: Node<'_>, source: &[u8]) -> Option<String> {
    field_text(node, "name", source).map(|n| unquote(&n).to_owned())
}

/// A braced PHP namespace; `namespace A;` encloses nothing, so it is not listed.
pub fn php_namespace(node: Node<'_>, source: &[u8]) -> Option<String> {
    node.child_by_field_name("body")?;
    field_text(node, "name", source)
}

/// Kinds that declare one name in a field, constant or property declaration.
const DECLARATORS: &[&str] = &["variable_declarator", "const_element", "property_element"];

/// A field, constant or property declaration, named by its first declarator (Java and C#
/// fields and events, PHP `const` and properties such as `$lines`).
pub fn first_declarator(node: Node<'_>, source: &[u8]) -> Option<String> {
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    let declarator = children.iter().find_map(|c| match c.kind() {
        "variable_declaration" => DECLARATORS.iter().find_map(|k| child_of_kind(*c, k)),
        kind if DECLARATORS.contains(&kind) => Some(*c),
        _ => None,
    })?;
    let name = declarator
        .child_by_field_name("name")
        .or_else(|| child_of_kind(declarator, "name"))?;
    Some(text(name, source))
}

/// Values that make a JavaScript/TypeScript variable a function or class declaration.
const JS_CALLABLE: &[&str] = &[
    "arrow_function",
    "function_expression",
    "generator_function",
    "class",
];

/// A JavaScript/TypeScript variable holding a function or class (`const f = () => {}`),
/// or any module-level variable; other locals and destructuring patterns have no name.
pub fn js_variable(node: Node<'_>, source: &[u8]) -> Option<String> {
    let name = node
        .child_by_field_name("name")
        .filter(|n| n.kind() == "identifier")?;
    let value = node.child_by_field_name("value");
    let callable = value.is_some_and(|v| JS_CALLABLE.contains(&v.kind()));
    let module_level = node
        .parent()
        .is_some_and(|d| matches!(parent_kind(d), "program" | "export_statement"));
    (callable || module_level).then(|| text(name, source))
}

/// A Python function or class, unless decorated (then the decorated definition, whose span
/// includes the decorators, is listed instead).
pub fn python_definition(node: Node<'_>, source: &[u8]) -> Option<String> {
    if parent_kind(node) == "decorated_definition" {
        return None;
    }
    field_text(node, "name", source)
}

/// A decorated Python function or class, named by the definition.
pub fn python_decorated(node: Node<'_>, source: &[u8]) -> Option<String> {
    field_text(node.child_by_field_name("definition")?, "name", source)
}

/// A TypeScript property or method signature of an interface or of an object type that a
/// type alias names; inline object types (`<T extends { id: string }>`) are not listed.
pub fn ts_member(node: Node<'_>, source: &[u8]) -> Option<String> {
    let parent = node.parent()?;
    let member = parent.kind() == "interface_body"
        || (parent.kind() == "object_type" && parent_kind(parent) == "type_alias_declaration");
    member.then(|| field_text(node, "name", source))?
}

/// A Python module constant or class attribute (`LIMIT = 10`, `sku: str`).
pub fn python_assignment(node: Node<'_>, source: &[u8]) -> Option<String> {
    let left = node
        .child_by_field_name("left")
        .filter(|n| n.kind() == "identifier")?;
    let statement = node
        .parent()
        .filter(|p| p.kind() == "expression_statement")?;
    let scope = statement.parent()?;
    let top = scope.kind() == "module" || parent_kind(scope) == "class_definition";
    top.then(|| text(left, source))
}

/// A Ruby constant assignment (`VERSION = "1.0"`).
pub fn ruby_constant(node: Node<'_>, source: &[u8]) -> Option<String> {
    let left = node
        .child_by_field_name("left")
        .filter(|n| n.kind() == "constant")?;
    Some(text(left, source))
}

/// The `type_spec`/`const_spec`/`var_spec` children of a Go declaration.
fn go_specs(declaration: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = declaration.walk();
    let mut specs = Vec::new();
    for child in declaration.named_children(&mut cursor) {
        if child.kind() == "var_spec_list" {
            let mut inner = child.walk();
            specs.extend(
                child
                    .named_children(&mut inner)
                    .filter(|c| c.kind() == "var_spec"),
            );
        } else if child.kind().ends_with("_spec") {
            specs.push(child);
        }
    }
    specs
}

/// A package-level Go declaration with a single spec (`type Queue struct {...}`), named by
/// it, so that its span includes the keyword.
pub fn go_declaration(node: Node<'_>, source: &[u8]) -> Option<String> {
    if parent_kind(node) != "source_file" {
        return None;
    }
    match go_specs(node).as_slice() {
        [spec] => field_text(*spec, "name", source),
        _ => None,
    }
}

/// One spec of a grouped package-level Go declaration (`type ( A int; B string )`).
pub fn go_spec(node: Node<'_>, source: &[u8]) -> Option<String> {
    let mut declaration = node.parent()?;
    if declaration.kind() == "var_spec_list" {
        declaration = declaration.parent()?;
    }
    if parent_kind(declaration) != "source_file" || go_specs(declaration).len() < 2 {
        return None;
    }
    field_text(node, "name", source)
}

/// The key of a JSON pair or YAML mapping pair, without quotes.
pub fn key(node: Node<'_>, source: &[u8]) -> Option<String> {
    field_text(node, "key", source).map(|k| unquote(&k).to_owned())
}

/// A JSON object or array inside an array, named by its index (`panels.0.title`).
pub fn json_element(node: Node<'_>, _source: &[u8]) -> Option<String> {
    if parent_kind(node) != "array" {
        return None;
    }
    index_among(node, |c| c.kind() != "comment")
}

/// A YAML sequence entry holding a mapping or sequence, named by its index
/// (`steps.1.name`); scalar entries are not listed.
pub fn yaml_item(node: Node<'_>, _source: &[u8]) -> Option<String> {
    let value = node
        .named_child(0)
        .filter(|v| v.kind() == "block_node" || v.kind() == "flow_node")?;
    let mut cursor = value.walk();
    let nested = value
        .named_children(&mut cursor)
        .any(|c| c.kind().ends_with("mapping") || c.kind().ends_with("sequence"));
    nested.then_some(())?;
    index_among(node, |c| c.kind() == "block_sequence_item")
}

/// A TOML key as a dotted path, each part without quotes (`a."b c"` is `a.b c`).
fn toml_key_text(key: Node<'_>, source: &[u8]) -> String {
    if key.kind() != "dotted_key" {
        return unquote(node_text(key, source)).to_owned();
    }
    let mut cursor = key.walk();
    let parts: Vec<String> = key
        .named_children(&mut cursor)
        .map(|k| toml_key_text(k, source))
        .collect();
    parts.join(".")
}

fn toml_key(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .find(|c| matches!(c.kind(), "bare_key" | "quoted_key" | "dotted_key"))
}

/// A TOML pair or `[table]`, named by its key.
pub fn toml_name(node: Node<'_>, source: &[u8]) -> Option<String> {
    toml_key(node).map(|k| toml_key_text(k, source))
}

/// A TOML `[[array.table]]` element, named by its key and its index among the elements
/// with that key (`workers.1`).
pub fn toml_array_element(node: Node<'_>, source: &[u8]) -> Option<String> {
    let name = toml_name(node, source)?;
    let same = |n: Node<'_>| {
        n.kind() == node.kind() && toml_name(n, source).as_deref() == Some(name.as_str())
    };
    let index = index_among(node, same)?;
    Some(format!("{name}.{index}"))
}

/// The text of a Markdown heading, without markers (`## Usage ##` is `Usage`).
fn heading_text(heading: Node<'_>, source: &[u8]) -> Option<String> {
    let content = heading.child_by_field_name("heading_content")?;
    let text = node_text(content, source).trim();
    let text = match text.trim_end_matches('#') {
        stripped if stripped.ends_with([' ', '\t']) || stripped.is_empty() => stripped,
        _ => text,
    };
    Some(collapse(text))
}

/// A Markdown section, named by its heading, so that nesting gives `Intro.Details`.
pub fn md_section(node: Node<'_>, source: &[u8]) -> Option<String> {
    let first = node.named_child(0)?;
    matches!(first.kind(), "atx_heading" | "setext_heading").then_some(())?;
    heading_text(first, source)
}

/// A setext heading the grammar did not open a section for (one inside a section).
pub fn md_setext(node: Node<'_>, source: &[u8]) -> Option<String> {
    let opens_section = node
        .parent()
        .is_some_and(|p| p.kind() == "section" && p.named_child(0) == Some(node));
    if opens_section {
        return None;
    }
    heading_text(node, source)
}

/// The tag name and `id` attribute of an HTML element's start tag.
fn html_tag(node: Node<'_>, source: &[u8]) -> Option<(String, Option<String>)> {
    let tag =
        child_of_kind(node, "start_tag").or_else(|| child_of_kind(node, "self_closing_tag"))?;
    let name = node_text(child_of_kind(tag, "tag_name")?, source).to_owned();
    let mut cursor = tag.walk();
    let id = tag
        .named_children(&mut cursor)
        .filter(|a| a.kind() == "attribute")
        .find(|a| child_of_kind(*a, "attribute_name").is_some_and(|n| node_text(n, source) == "id"))
        .and_then(|a| a.named_child(1))
        .map(|v| unquote(node_text(v, source)).to_owned());
    Some((name, id))
}

/// An HTML element with an `id`, named `tag#id`.
pub fn html_element(node: Node<'_>, source: &[u8]) -> Option<String> {
    let (tag, id) = html_tag(node, source)?;
    id.filter(|id| !id.is_empty())
        .map(|id| format!("{tag}#{id}"))
}

/// An inline `<script>` or `<style>`, named `tag#id`, or `tag` without an id; an empty
/// one (`<script src=...>`) is not listed.
pub fn html_raw_element(node: Node<'_>, source: &[u8]) -> Option<String> {
    let raw = child_of_kind(node, "raw_text")?;
    if node_text(raw, source).trim().is_empty() {
        return None;
    }
    match html_tag(node, source)? {
        (tag, Some(id)) if !id.is_empty() => Some(format!("{tag}#{id}")),
        (tag, _) => Some(tag),
    }
}

/// A CSS rule set, named by its selectors (`.panel, .card`).
pub fn css_selectors(node: Node<'_>, source: &[u8]) -> Option<String> {
    child_of_kind(node, "selectors").map(|s| collapse(node_text(s, source)))
}

/// A CSS at-rule, named by its prelude (`@media (max-width: 600px)`, `@keyframes pulse`).
pub fn css_at_rule(node: Node<'_>, source: &[u8]) -> Option<String> {
    let body =
        child_of_kind(node, "block").or_else(|| child_of_kind(node, "keyframe_block_list"))?;
    let prelude = source.get(node.start_byte()..body.start_byte())?;
    Some(collapse(std::str::from_utf8(prelude).ok()?))
}
