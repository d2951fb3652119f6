//! `add_use`: one namespace-level import in sorted position, or nothing when the file already
//! has it. PHP `use App\Model\User;`; Python `import os` / `from a.b import C` (written as
//! `os`, `a.b.C` or the whole statement); TypeScript `import { X } from 'm';` (written as
//! `X from m` or the whole statement).

use std::ops::Range;

use tree_sitter::Node;

use super::edit::File;
use super::layout::line_start;
use super::{Lang, children, squash, text};
use crate::error::{Code, Error, Result};

/// One import statement of the file: its sort key, what it imports, its node range.
struct Import {
    key: String,
    names: Vec<String>,
    range: Range<usize>,
}

/// The import to add, or `None` when the file already has it.
pub fn add_use(file: &File<'_>, name: &str) -> Result<Option<(Range<usize>, String)>> {
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::new(Code::PlanMalformed, "add_use needs a `name`"));
    }
    let root = file.tree.root_node();
    let source = file.text.as_bytes();
    let (scope, statement, key, names) = match file.lang {
        Lang::Php => {
            let name = name
                .trim_start_matches("use ")
                .trim_end_matches(';')
                .trim()
                .trim_start_matches('\\');
            let scope = php_scope(root);
            (
                scope,
                format!("use {name};"),
                name.to_lowercase(),
                vec![name.to_lowercase()],
            )
        }
        Lang::Python => {
            let (statement, key, names) = python_statement(name);
            (root, statement, key, names)
        }
        Lang::TypeScript => {
            let (statement, key, names) = typescript_statement(name, quote_of(file));
            (root, statement, key, names)
        }
    };
    let existing: Vec<Import> = children(scope)
        .into_iter()
        .filter_map(|n| import_of(n, source, file.lang))
        .collect();
    if existing
        .iter()
        .any(|i| i.key == key && names.iter().all(|n| i.names.contains(n)))
    {
        return Ok(None);
    }
    let eol = file.style.eol;
    if let Some(next) = existing.iter().find(|i| i.key > key) {
        let at = line_start(source, next.range.start);
        return Ok(Some((at..at, format!("{statement}{eol}"))));
    }
    if let Some(last) = existing.last() {
        return Ok(Some((
            last.range.end..last.range.end,
            format!("{eol}{statement}"),
        )));
    }
    Ok(Some(first_import(file, scope, &statement)))
}

/// Where imports go in a file that has none: after the namespace / declare / `<?php`, the
/// module docstring, or leading comments; one blank line around.
fn first_import(file: &File<'_>, scope: Node<'_>, statement: &str) -> (Range<usize>, String) {
    let eol = file.style.eol;
    let source = file.text.as_bytes();
    let nodes = children(scope);
    let anchor = nodes
        .iter()
        .take_while(|n| match file.lang {
            Lang::Php => matches!(
                n.kind(),
                "php_tag" | "declare_statement" | "namespace_definition" | "comment" | "{"
            ),
            Lang::Python => n.kind() == "comment" || is_docstring(**n),
            Lang::TypeScript => n.kind() == "comment",
        })
        .last();
    match anchor {
        Some(a) => (a.end_byte()..a.end_byte(), format!("{eol}{eol}{statement}")),
        None => {
            let at = nodes
                .first()
                .map_or(0, |n| line_start(source, n.start_byte()));
            (at..at, format!("{statement}{eol}{eol}"))
        }
    }
}

fn is_docstring(n: Node<'_>) -> bool {
    n.kind() == "expression_statement" && n.named_child(0).is_some_and(|s| s.kind() == "string")
}

/// The statements a PHP import belongs among: the (first) braced namespace body, or the file.
fn php_scope(root: Node<'_>) -> Node<'_> {
    children(root)
        .into_iter()
        .find(|n| n.kind() == "namespace_definition")
        .and_then(|n| n.child_by_field_name("body"))
        .unwrap_or(root)
}

fn import_of(node: Node<'_>, source: &[u8], lang: Lang) -> Option<Import> {
    let range = node.byte_range();
    match (lang, node.kind()) {
        (Lang::Php, "namespace_use_declaration") => {
            let clauses: Vec<String> = children(node)
                .into_iter()
                .filter(|c| c.kind() == "namespace_use_clause")
                .map(|c| {
                    let name = c.named_child(0).map_or("", |n| text(n, source));
                    name.trim_start_matches('\\').to_lowercase()
                })
                .collect();
            let grouped = children(node)
                .iter()
                .any(|c| matches!(c.kind(), "function" | "const" | "namespace_use_group"));
            if grouped {
                return None;
            }
            Some(Import {
                key: clauses.first()?.clone(),
                names: clauses,
                range,
            })
        }
        (
            Lang::Python,
            "import_statement" | "import_from_statement" | "future_import_statement",
        ) => {
            let (_, key, names) = python_statement(&squash(text(node, source)));
            Some(Import { key, names, range })
        }
        (Lang::TypeScript, "import_statement") => {
            let module = node
                .child_by_field_name("source")
                .map(|s| text(s, source).trim_matches(['\'', '"']).to_owned())?;
            let names = children(node)
                .into_iter()
                .find(|c| c.kind() == "import_clause")
                .map(|c| import_names(c, source))
                .unwrap_or_default();
            Some(Import {
                key: module,
                names,
                range,
            })
        }
        _ => None,
    }
}

fn import_names(clause: Node<'_>, source: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    let mut stack = vec![clause];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "import_specifier" | "namespace_import" | "identifier" => {
                names.push(squash(text(n, source)))
            }
            _ => stack.extend(children(n)),
        }
    }
    names
}

/// `(statement, sort key, imported names)` of a Python import written as a dotted name or as
/// a statement.
fn python_statement(name: &str) -> (String, String, Vec<String>) {
    let name = name.trim();
    if let Some(rest) = name.strip_prefix("from ") {
        let (module, list) = rest.split_once(" import ").unwrap_or((rest, ""));
        let names = list
            .trim_matches(['(', ')', ' '])
            .split(',')
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
            .collect();
        return (name.to_owned(), module.trim().to_owned(), names);
    }
    if let Some(rest) = name.strip_prefix("import ") {
        let names: Vec<String> = rest.split(',').map(|n| n.trim().to_owned()).collect();
        let key = names.first().cloned().unwrap_or_default();
        return (name.to_owned(), key, names);
    }
    match name.rsplit_once('.') {
        Some((module, item)) => (
            format!("from {module} import {item}"),
            module.to_owned(),
            vec![item.to_owned()],
        ),
        None => (
            format!("import {name}"),
            name.to_owned(),
            vec![name.to_owned()],
        ),
    }
}

/// `(statement, module, imported names)` of a TypeScript import written as `X from m`, as
/// `m` alone (a side-effect import) or as a statement.
fn typescript_statement(name: &str, quote: char) -> (String, String, Vec<String>) {
    let name = name.trim().trim_end_matches(';');
    if name.starts_with("import ") {
        let module = name
            .rsplit(['\'', '"'])
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        let names = name
            .split_once('{')
            .and_then(|(_, r)| r.split_once('}'))
            .map(|(list, _)| {
                list.split(',')
                    .map(|n| n.trim().to_owned())
                    .filter(|n| !n.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        return (format!("{name};"), module, names);
    }
    match name.split_once(" from ") {
        Some((item, module)) => {
            let module = module.trim().trim_matches(['\'', '"']);
            let item = item.trim().trim_matches(['{', '}', ' ']);
            let names = item.split(',').map(|n| n.trim().to_owned()).collect();
            (
                format!("import {{ {item} }} from {quote}{module}{quote};"),
                module.to_owned(),
                names,
            )
        }
        None => (
            format!("import {quote}{name}{quote};"),
            name.to_owned(),
            Vec::new(),
        ),
    }
}

/// The quote the file's imports use (single by default).
fn quote_of(file: &File<'_>) -> char {
    let double = file
        .text
        .lines()
        .filter(|l| l.starts_with("import "))
        .any(|l| l.contains('"'));
    if double { '"' } else { '\'' }
}
