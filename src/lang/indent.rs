//! Python's indentation rule, which tree-sitter's error recovery does not enforce: CPython's
//! tokenizer rejects a block not indented deeper than its header ("expected an indented
//! block"), a line indented deeper without a header ("unexpected indent"), a dedent to a level
//! no enclosing block has ("unindent does not match any outer indentation level"), and
//! indentation whose meaning depends on the tab size (`TabError`).
//!
//! The rule reads the tokens tree-sitter already produced (the tree's leaves; strings are one
//! token, comments are skipped), groups them into logical lines (brackets and `\` continue a
//! line), and replays CPython's indentation stack over the first token of each logical line.
//! A line is a block header when its last token is `:`. Each offending logical line counts as
//! one error. This is not a second parser: it never looks past the first and last token of a
//! line.

use std::sync::OnceLock;

use tree_sitter::{Node, Tree};

use crate::lang::Location;

/// The first token of one logical line, and whether the line opens a block.
struct Logical {
    start: usize,
    row: usize,
    column: usize,
    header: bool,
    /// A line begun by a `\` alone on the row above: the `\`'s start and column. CPython
    /// measures such a line at its first token or at the `\` depending on the context, so the
    /// line is an error only when both fail.
    joined: Option<(usize, usize)>,
}

/// Indentation as CPython measures it: tabs to the next multiple of 8, and tabs as one column
/// (the two must agree on every comparison, or the indentation is ambiguous).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Width {
    col: usize,
    alt: usize,
}

fn width(source: &[u8], line_start: usize, at: usize) -> Width {
    let (mut col, mut alt) = (0, 0);
    let skip = if line_start == 0 && source.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    for &b in &source[line_start + skip.min(at)..at] {
        match b {
            b'\t' => {
                col = (col / 8 + 1) * 8;
                alt += 1;
            }
            0x0c => (col, alt) = (0, 0),
            _ => {
                col += 1;
                alt += 1;
            }
        }
    }
    Width { col, alt }
}

/// Leaves of the tree in document order; strings count as one token, zero-width nodes
/// (tree-sitter's indent and dedent markers, missing nodes) are skipped. A named node on one
/// line without errors counts as one token too: its brackets pair up inside it, it holds no
/// line break, and unless its last token is a header's `:` (an empty block on one line), its
/// leaves cannot change a logical line's first or last token. So does a bracketed expression
/// without errors over several lines: its inner lines continue the logical line it is in,
/// and it ends with its closing bracket.
fn leaves<'t>(tree: &'t Tree, source: &[u8], kinds: &Kinds) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let kind = kinds.of(node);
        let clean = || !node.has_error();
        let one_line = || {
            node.is_named()
                && node.start_position().row == node.end_position().row
                && !ends_with_colon(node, source, kinds)
        };
        let atomic = node.child_count() == 0
            || kind == Kind::String
            || (clean() && (kind == Kind::Bracketed || one_line()));
        if atomic && node.end_byte() > node.start_byte() {
            out.push(node);
        }
        if !atomic && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

/// Expressions that open with a bracket and close with its match (and strings side by side).
const BRACKETED: &[&str] = &[
    "argument_list",
    "parameters",
    "list",
    "tuple",
    "dictionary",
    "set",
    "parenthesized_expression",
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
    "call",
    "concatenated_string",
];

/// The node kinds the rule tells apart, by name as the grammar has them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Other,
    String,
    Bracketed,
    Comment,
    LineContinuation,
    Open,
    Close,
    Colon,
}

/// [`Kind`] of every kind id of a language: a lookup per node instead of comparing the kind's
/// name (which tree-sitter hands out as a C string, measured and checked on every call).
struct Kinds(Vec<Kind>);

impl Kinds {
    /// The table of Python's grammar, the only one this rule reads, made once per process:
    /// the gate checks a many-file plan on hundreds of small regions, and making the table
    /// (every kind's name measured and compared) cost more than a region's rule.
    fn of_python(language: &tree_sitter::Language) -> &'static Self {
        static MADE: OnceLock<Kinds> = OnceLock::new();
        MADE.get_or_init(|| Self::of_language(language))
    }

    fn of_language(language: &tree_sitter::Language) -> Self {
        let count = language.node_kind_count();
        let table = (0..count)
            .map(|id| {
                let id = u16::try_from(id).unwrap_or(u16::MAX);
                match language.node_kind_for_id(id).unwrap_or_default() {
                    "string" => Kind::String,
                    "comment" => Kind::Comment,
                    "line_continuation" => Kind::LineContinuation,
                    "(" | "[" | "{" => Kind::Open,
                    ")" | "]" | "}" => Kind::Close,
                    ":" => Kind::Colon,
                    name if BRACKETED.contains(&name) => Kind::Bracketed,
                    _ => Kind::Other,
                }
            })
            .collect();
        Self(table)
    }

    fn of(&self, node: Node<'_>) -> Kind {
        self.0
            .get(usize::from(node.kind_id()))
            .copied()
            .unwrap_or(Kind::Other)
    }
}

/// Whether the last token of `node` (zero-width ones skipped) is an anonymous `:`. Every
/// byte of a node is a token's or whitespace, so unless its last non-blank byte is a `:`
/// its tokens are not walked.
fn ends_with_colon(node: Node<'_>, source: &[u8], kinds: &Kinds) -> bool {
    let bytes = source.get(node.byte_range()).unwrap_or_default();
    if bytes.iter().rev().find(|b| !b.is_ascii_whitespace()) != Some(&b':') {
        return false;
    }
    let mut current = node;
    loop {
        let count = current.child_count();
        let last = (0..count)
            .rev()
            .filter_map(|i| current.child(i))
            .find(|c| c.end_byte() > c.start_byte());
        match last {
            Some(child) => current = child,
            None => return kinds.of(current) == Kind::Colon && !current.is_named(),
        }
    }
}

fn logical_lines(tree: &Tree, source: &[u8]) -> Vec<Logical> {
    let kinds = Kinds::of_python(&tree.language());
    let mut lines: Vec<Logical> = Vec::new();
    let (mut depth, mut last_row) = (0usize, None::<usize>);
    // The row of a `\` that continues the logical line: it joins the next row only, so a
    // token further down (after a blank row) begins a new line, as CPython reads it.
    let mut continued: Option<usize> = None;
    // A `\` first on its line: the logical line it begins is measured at its first token,
    // else at the `\`.
    let mut bare: Option<Node<'_>> = None;
    for leaf in leaves(tree, source, kinds) {
        let kind = kinds.of(leaf);
        let row = leaf.start_position().row;
        let joined_here = continued.is_some_and(|r| row <= r + 1);
        let starts = depth == 0 && !joined_here && last_row.is_none_or(|r| row > r);
        match kind {
            Kind::Comment => continue,
            Kind::LineContinuation => {
                bare = starts.then_some(leaf);
                continued = Some(row);
                continue;
            }
            _ => {}
        }
        let mut first = starts.then_some((leaf, None));
        if let Some(b) = bare.take() {
            // Joined to the next physical line; a blank one ends the (empty) logical line.
            let joined = row == b.start_position().row + 1;
            let from = (b.start_byte(), b.start_position().column);
            first = Some((leaf, joined.then_some(from)));
        }
        if let Some((at, joined)) = first {
            lines.push(Logical {
                start: at.start_byte(),
                row: at.start_position().row,
                column: at.start_position().column,
                header: false,
                joined,
            });
        }
        match kind {
            Kind::Open => depth += 1,
            Kind::Close => depth = depth.saturating_sub(1),
            _ => {}
        }
        if let Some(line) = lines.last_mut() {
            line.header = kind == Kind::Colon && !leaf.is_named();
        }
        continued = None;
        last_row = Some(leaf.end_position().row);
    }
    lines
}

/// The indentation errors of a Python tree: how many, and where the first one is.
pub fn python_errors(tree: &Tree, source: &[u8]) -> (usize, Option<Location>) {
    let mut stack = vec![Width { col: 0, alt: 0 }];
    let (mut count, mut first) = (0, None);
    let mut after_header = false;
    for line in logical_lines(tree, source) {
        let w = width(source, line.start - line.column, line.start);
        let mut tried = stack.clone();
        let ok = line_ok(&mut tried, w, after_header);
        let ok = match line.joined {
            Some((start, column)) if !ok => line_ok(
                &mut stack,
                width(source, start - column, start),
                after_header,
            ),
            _ => {
                stack = tried;
                ok
            }
        };
        if !ok {
            count += 1;
            first.get_or_insert(Location {
                line: line.row + 1,
                column: line.column + 1,
                byte: line.start,
            });
        }
        after_header = line.header;
    }
    // A header on the last line: tree-sitter reports the missing block itself, if it parsed.
    if after_header && !tree.root_node().has_error() {
        count += 1;
    }
    (count, first)
}

/// Replays one line on the indentation stack; false when CPython would reject it.
fn line_ok(stack: &mut Vec<Width>, w: Width, after_header: bool) -> bool {
    let top = *stack.last().unwrap_or(&Width { col: 0, alt: 0 });
    if w.col > top.col {
        stack.push(w);
        return after_header && w.alt > top.alt;
    }
    if after_header {
        return false;
    }
    while stack.last().is_some_and(|t| w.col < t.col) {
        stack.pop();
    }
    stack.last() == Some(&w)
}

#[cfg(test)]
mod tests {
    use super::python_errors;
    use crate::lang::parse::parse;
    use crate::lang::provider_for;

    fn errors(source: &str) -> usize {
        let provider = provider_for("x.py").expect("python");
        let tree = parse(provider, source.as_bytes(), None).expect("parses");
        python_errors(&tree, source.as_bytes()).0
    }

    const GOOD: &str = "class P:\n    def f(self, data):\n        result = []\n        for i in data:\n            if i:\n                result.append(i)\n        return result\n";

    #[test]
    fn valid_python_has_no_indentation_errors() {
        assert_eq!(errors(GOOD), 0);
        let brackets = "x = [\n  1,\n      2,\n]\ny = f(a,\n b)\nz = 1 + \\\n    2\ns = '''\n  a\nb'''\nif x: y = 1\nz = 2\n";
        assert_eq!(errors(brackets), 0);
        assert_eq!(errors("if x:\n    # c\n  # d\n    y = 1\n"), 0);
        assert_eq!(errors("if x:\n\tpass\nelse:\n\tpass\n"), 0);
        let bare = "class A:\n    def f(self):\n        return 1\n\\\n\nclass B:\n    pass\n";
        assert_eq!(errors(bare), 0, "a `\\` alone before a blank line");
        let ended = "def f():\n    return 1 \\\n\ndef g():\n    return 2\n";
        assert_eq!(errors(ended), 0, "a `\\` ending a line before a blank one");
        assert_eq!(
            errors("if x:\n    y = 1\n\\\nz = 2\n"),
            0,
            "a `\\` joining the next line"
        );
        assert_eq!(
            errors("if x:\n\\\n    y = 1\n"),
            0,
            "measured at the joined token"
        );
        assert_eq!(errors("if x:\n    \\\ny = 1\n"), 0, "measured at the `\\`");
        let body = "class I:\n    \"\"\"Doc.\"\"\"\n\\\n    sku: str\n    n: int = 0\n";
        assert_eq!(errors(body), 0, "measured at the token, the block goes on");
        assert_eq!(
            errors("if x:\n    y = 1\n  \\\n   z = 2\n"),
            1,
            "neither matches"
        );
    }

    #[test]
    fn a_line_after_a_multi_line_expression_is_still_measured() {
        let calls = "def f():\n    x = g(\n  1,\n        h(2,\n3),\n    )\n    return {\n 'a': (1,\n   2),\n    }\n";
        assert_eq!(errors(calls), 0);
        let after = calls.replace("    return {", "      return {");
        assert_eq!(errors(&after), 1, "unexpected indent after a call");
        let header = "if g(\n  1,\n):\n    pass\nwhile [\n]:\npass\n";
        assert_eq!(
            errors(header),
            1,
            "a header ending after a bracketed condition"
        );
    }

    #[test]
    fn each_class_cpython_rejects_is_counted() {
        let dedent = GOOD.replace("        result = []", "      result = []");
        assert_eq!(errors(&dedent), 1, "expected an indented block");
        let unindent = GOOD.replace("        return result", "      return result");
        assert_eq!(errors(&unindent), 1, "unindent does not match");
        let unexpected = GOOD.replace("        return result", "          return result");
        assert_eq!(errors(&unexpected), 1, "unexpected indent");
        assert_eq!(errors("if x:\n        a = 1\n\tb = 2\n"), 1, "tab error");
        assert_eq!(errors("if x:\ny = 1\n"), 1, "block not indented");
        assert!(errors("def f():\n") >= 1, "header at the end");
    }

    #[test]
    fn a_stray_ruby_end_is_an_error_and_a_method_named_end_is_not() {
        let provider = provider_for("x.rb").expect("ruby");
        let count = |src: &str| {
            let tree = parse(provider, src.as_bytes(), None).expect("parses");
            crate::lang::parse::syntax_errors(provider, &tree, src.as_bytes()).0
        };
        assert_eq!(count("module M\n  def a\n    1\n  end\nend\n"), 0);
        assert_eq!(count("module M\n    1\n  end\nend\n"), 1);
        assert_eq!(count("r = (1..2)\nr.end\nx&.then\n"), 0);
    }
}
