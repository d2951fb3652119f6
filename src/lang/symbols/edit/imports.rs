//! `add_use`: one namespace-level import in sorted position, or nothing when the file already
//! has it. PHP `use App\Model\User;`; Python `import os` / `from a.b import C` (written as
//! `os`, `a.b.C` or the whole statement); TypeScript `import { X } from 'm';` (written as
//! `X from m` or the whole statement).

use std::ops::Range;

use tree_sitter::Node;

use super::File;
use crate::error::{Code, Error, Result};
use crate::lang::symbols::layout::line_start;
use crate::lang::symbols::{Lang, children, squash, text};
use crate::plan::splice::Splice;

/// One import statement of the file: its sort key, what it imports, its node range, and its
/// block (PHP: class imports 0, `use function` 1, `use const` 2; sorted within a block).
struct Import {
    key: String,
    names: Vec<String>,
    range: Range<usize>,
    block: u8,
}

/// The import to add, or `None` when the file already has it.
pub fn add_use(file: &File<'_>, name: &str) -> Result<Option<(Range<usize>, String)>> {
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::new(Code::PlanMalformed, "add_use needs a `name`"));
    }
    let root = file.tree.root_node();
    let source = file.text.as_bytes();
    let mut block = 0;
    let (scope, statement, key, names) = match file.lang {
        Lang::Php => {
            let name = name.trim_start_matches("use ").trim_end_matches(';').trim();
            let (kind, name) = match name.split_once(' ') {
                Some((kind @ ("function" | "const"), rest)) => (kind, rest.trim()),
                _ => ("", name),
            };
            let name = name.trim_start_matches('\\');
            block = php_block(kind);
            let key = php_key(kind, name);
            let statement = format!("use {}{name};", php_key(kind, ""));
            (php_scope(root), statement, key.clone(), vec![key])
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
    // A PHP name is imported whatever statement (grouped or not) imports it.
    let keyed = |i: &Import| i.key == key || file.lang == Lang::Php;
    if existing
        .iter()
        .any(|i| keyed(i) && names.iter().all(|n| i.names.contains(n)))
    {
        return Ok(None);
    }
    let eol = file.style.eol;
    let same: Vec<&Import> = existing.iter().filter(|i| i.block == block).collect();
    // Sorted by key, then by what is imported (`from typing import List` before `… Optional`).
    let wanted = (&key, &names);
    if let Some(next) = same.iter().find(|i| (&i.key, &i.names) > wanted) {
        let at = line_start(source, next.range.start);
        return Ok(Some((at..at, format!("{statement}{eol}"))));
    }
    if let Some(last) = same.last() {
        let end = last.range.end;
        return Ok(Some((end..end, format!("{eol}{statement}"))));
    }
    // The first of its block: a blank line apart from the other blocks.
    if let Some(next) = existing.iter().find(|i| i.block > block) {
        let at = line_start(source, next.range.start);
        return Ok(Some((at..at, format!("{statement}{eol}{eol}"))));
    }
    if let Some(last) = existing.last() {
        let end = last.range.end;
        return Ok(Some((end..end, format!("{eol}{eol}{statement}"))));
    }
    Ok(Some(first_import(file, scope, &statement)))
}

/// The block of a PHP import kind (``, `function`, `const`).
fn php_block(kind: &str) -> u8 {
    match kind {
        "function" => 1,
        "const" => 2,
        _ => 0,
    }
}

/// The key of a PHP import: `app\model\user`, `function sprintf`.
fn php_key(kind: &str, name: &str) -> String {
    let name = name.trim_start_matches('\\').to_lowercase();
    if kind.is_empty() {
        name
    } else {
        format!("{kind} {name}")
    }
}

/// A PHP `use` declaration, single or grouped (`use App\{Foo, Bar};`), as its full names.
fn php_import(node: Node<'_>, source: &[u8]) -> Option<Import> {
    let kind = node
        .child_by_field_name("type")
        .map_or("", |t| text(t, source));
    let prefix = children(node)
        .into_iter()
        .find(|c| c.kind() == "namespace_name")
        .map(|p| text(p, source).trim_start_matches('\\').to_owned());
    let clauses = node
        .child_by_field_name("body")
        .map_or_else(|| children(node), children);
    let names: Vec<String> = clauses
        .into_iter()
        .filter(|c| c.kind() == "namespace_use_clause")
        .map(|c| {
            let own = c
                .child_by_field_name("type")
                .map_or(kind, |t| text(t, source));
            let name = c.named_child(0).map_or("", |n| text(n, source));
            match &prefix {
                Some(p) => php_key(own, &format!("{p}\\{name}")),
                None => php_key(own, name),
            }
        })
        .collect();
    let key = match &prefix {
        Some(p) => php_key(kind, p),
        None => names.first()?.clone(),
    };
    // `function` / `const` sits on the declaration or, unbraced, on its clause.
    let block = php_block(key.split_once(' ').map_or("", |(kind, _)| kind));
    Some(Import {
        key,
        names,
        range: node.byte_range(),
        block,
    })
}

/// Several `add_use` edits of one file that land on the same point become one insertion, the
/// statements sorted and deduplicated (otherwise two insertions at one point would overlap).
/// `add_use(op)` says which operations are `add_use` edits.
pub fn coalesce(splices: &mut Vec<Splice>, add_use: impl Fn(usize) -> bool) {
    let mut i = 0;
    while i < splices.len() {
        let at = splices[i].range.clone();
        if !at.is_empty() || !add_use(splices[i].op) {
            i += 1;
            continue;
        }
        let same: Vec<usize> = (i + 1..splices.len())
            .filter(|&j| splices[j].range == at && add_use(splices[j].op))
            .collect();
        if same.is_empty() {
            i += 1;
            continue;
        }
        let first = &splices[i].text;
        let eol = if first.contains("\r\n") { "\r\n" } else { "\n" };
        let lead = &first[..first.len() - first.trim_start().len()];
        let tail = &first[first.trim_end().len()..];
        let (lead, tail) = (lead.to_owned(), tail.to_owned());
        let mut statements: Vec<String> = std::iter::once(i)
            .chain(same.iter().copied())
            .map(|j| splices[j].text.trim().to_owned())
            .collect();
        statements.sort();
        statements.dedup();
        splices[i].text = format!("{lead}{}{tail}", statements.join(eol));
        for j in same.into_iter().rev() {
            splices.remove(j);
        }
        i += 1;
    }
}

/// Where imports go in a file that has none: after the `<?php` tag, `declare` and
/// `namespace` (PHP), the module docstring (Python) and header comments, one blank line
/// around; never between a doc comment and its declaration.
fn first_import(file: &File<'_>, scope: Node<'_>, statement: &str) -> (Range<usize>, String) {
    let eol = file.style.eol;
    let source = file.text.as_bytes();
    let nodes = children(scope);
    let header = |n: &Node<'_>| match file.lang {
        Lang::Php => matches!(
            n.kind(),
            "php_tag" | "declare_statement" | "namespace_definition" | "comment" | "{"
        ),
        Lang::Python => n.kind() == "comment" || is_docstring(*n),
        Lang::TypeScript => n.kind() == "comment",
    };
    // A comment is a header only when a blank line separates it from what follows.
    let detached = |n: &Node<'_>| {
        n.kind() != "comment"
            || n.next_sibling().is_some_and(|next| {
                source[n.end_byte()..next.start_byte()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    > 1
            })
    };
    let anchor = nodes
        .iter()
        .take_while(|n| header(n))
        .filter(|n| detached(n))
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
        (Lang::Php, "namespace_use_declaration") => php_import(node, source),
        (
            Lang::Python,
            "import_statement" | "import_from_statement" | "future_import_statement",
        ) => {
            let (_, key, names) = python_statement(&squash(text(node, source)));
            Some(Import {
                key,
                names,
                range,
                block: 0,
            })
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
                block: 0,
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

#[cfg(test)]
mod tests {
    use super::super::{File, resolve};
    use crate::lang::parse::parse;
    use crate::lang::provider_for;
    use crate::lang::symbols::layout::Style;
    use crate::lang::symbols::{Lang, declarations};
    use crate::plan::splice::apply;
    use crate::plan::symbol::{SymbolEdit, SymbolOp};

    fn add(path: &str, source: &str, name: &str) -> String {
        let provider = provider_for(path).expect("provider");
        let tree = parse(provider, source.as_bytes(), None).expect("parse");
        let decls = declarations(provider, &tree, source.as_bytes()).expect("model");
        let file = File {
            lang: Lang::of(provider).expect("lang"),
            path,
            text: source,
            tree: &tree,
            decls: &decls,
            style: Style::of(source.as_bytes()),
        };
        let edit = SymbolEdit {
            op: SymbolOp::AddUse(name.into()),
            symbol: None,
            code: String::new(),
            reindent: true,
            expected: None,
        };
        let resolved = resolve(&edit, &file, 0).expect("resolves");
        let splices: Vec<_> = resolved.splice.into_iter().collect();
        String::from_utf8(apply(source.as_bytes(), &splices)).expect("utf-8")
    }

    #[test]
    fn first_imports_go_after_headers_never_between_a_doc_comment_and_its_declaration() {
        assert_eq!(
            add(
                "a.php",
                "<?php\n\nnamespace App;\n\n/** Doc. */\nclass A {}\n",
                "App\\B"
            ),
            "<?php\n\nnamespace App;\n\nuse App\\B;\n\n/** Doc. */\nclass A {}\n"
        );
        assert_eq!(
            add("a.php", "<?php\n/* License. */\n\nclass A {}\n", "B"),
            "<?php\n/* License. */\n\nuse B;\n\nclass A {}\n"
        );
        assert_eq!(
            add("a.py", "\"\"\"Doc.\"\"\"\n\n\ndef f():\n    pass\n", "os"),
            "\"\"\"Doc.\"\"\"\n\nimport os\n\n\ndef f():\n    pass\n"
        );
        assert_eq!(
            add("a.ts", "/** Doc. */\nexport class A {}\n", "X from m"),
            "import { X } from 'm';\n\n/** Doc. */\nexport class A {}\n"
        );
    }

    #[test]
    fn add_use_edits_at_one_point_merge_sorted() {
        let splice = |text: &str, op| crate::plan::splice::Splice {
            range: 5..5,
            text: text.into(),
            op,
        };
        let mut splices = vec![
            splice("\r\nuse C;", 0),
            splice("\r\nuse B;", 1),
            splice("\r\nuse C;", 2),
        ];
        super::coalesce(&mut splices, |_| true);
        assert_eq!(splices, vec![splice("\r\nuse B;\r\nuse C;", 0)]);
        let mut first = vec![splice("import b\n\n", 0), splice("import a\n\n", 3)];
        super::coalesce(&mut first, |_| true);
        assert_eq!(first, vec![splice("import a\nimport b\n\n", 0)]);
        let mut other = vec![splice("x", 0), splice("y", 1)];
        super::coalesce(&mut other, |op| op == 0);
        assert_eq!(other.len(), 2);
    }

    #[test]
    fn imports_are_sorted_and_never_doubled() {
        let php = "<?php\nuse A\\B;\nuse C\\D;\n";
        assert_eq!(
            add("a.php", php, "B\\C"),
            "<?php\nuse A\\B;\nuse B\\C;\nuse C\\D;\n"
        );
        assert_eq!(add("a.php", php, "\\c\\d"), php);
        let one = "import os\nfrom typing import Optional\n";
        assert_eq!(
            add("a.py", one, "from typing import List"),
            "import os\nfrom typing import List\nfrom typing import Optional\n"
        );
        let py = "import os\nfrom typing import List, Optional\n";
        assert_eq!(add("a.py", py, "typing.Optional"), py);
        assert_eq!(add("a.py", py, "from typing import List"), py);
        assert_eq!(
            add("a.py", py, "json"),
            "import json\nimport os\nfrom typing import List, Optional\n"
        );
        let ts = "import { a } from \"./a\";\r\nimport { z } from \"./z\";\r\n";
        assert_eq!(add("a.ts", ts, "a from ./a"), ts);
        assert_eq!(
            add("a.ts", ts, "m from ./m"),
            "import { a } from \"./a\";\r\nimport { m } from \"./m\";\r\nimport { z } from \"./z\";\r\n"
        );
    }
}
