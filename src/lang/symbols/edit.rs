//! The five symbol-addressed operations, resolved against the file as read into the smallest
//! splice each: `replace_body`, `replace_symbol`, `insert_member`, `remove_symbol` and
//! `add_use` (in [`super::imports`]). Code is re-indented to its target and written with the
//! file's line ending.

pub mod imports;

use std::ops::Range;

use tree_sitter::Tree;

use super::layout::{Style, blank, blank_line, indent_at, line_end, line_start, minimal, place};
use super::{Declaration, Lang, find};
use crate::error::{Code, Error, Result};
use crate::lang::gate::SourceTree;
use crate::plan::splice::Splice;
use crate::plan::symbol::{Position, SymbolEdit, SymbolOp};

/// What a symbol edit resolved to: its splice (none when it changes nothing) and the
/// declaration it addressed.
pub struct Resolved {
    pub splice: Option<Splice>,
    pub target: String,
}

/// Everything an operation needs about the file.
pub struct File<'a> {
    pub lang: Lang,
    pub path: &'a str,
    pub text: &'a str,
    pub tree: &'a Tree,
    pub decls: &'a [Declaration],
    pub style: Style,
}

/// Resolves one symbol edit against a parsed file (`op` is its index in the plan).
pub fn resolve_in(
    edit: &SymbolEdit,
    source: &SourceTree,
    path: &str,
    text: &str,
    op: usize,
) -> Result<Resolved> {
    let bytes = text.as_bytes();
    let lang = Lang::of(source.provider).ok_or_else(|| {
        Error::new(
            Code::NoProvider,
            format!(
                "{path}: symbol edits support PHP, Python, TypeScript and JavaScript, not {}",
                source.provider.name
            ),
        )
        .detail("language", source.provider.name)
        .hint("Use a structure target (`symbol`, `node`) or an exact find/replace instead.")
    })?;
    let decls = super::declarations(source.provider, &source.tree, bytes).unwrap_or_default();
    let file = File {
        lang,
        path,
        text,
        tree: &source.tree,
        decls: &decls,
        style: Style::of(bytes),
    };
    resolve(edit, &file, op)
}

/// Resolves one symbol edit (`op` is its index in the plan).
pub fn resolve(edit: &SymbolEdit, file: &File<'_>, op: usize) -> Result<Resolved> {
    if let SymbolOp::AddUse(name) = &edit.op {
        let change = imports::add_use(file, name)?;
        let splice = change.map(|(range, text)| minimal(file.text, range, &text, op));
        return Ok(Resolved {
            splice: splice.filter(|s| !s.range.is_empty() || !s.text.is_empty()),
            target: name.clone(),
        });
    }
    let query = edit.symbol.as_deref().unwrap_or_default();
    let decl = find(file.decls, query, file.lang, file.path)?;
    let (range, text) = match &edit.op {
        SymbolOp::ReplaceBody => replace_body(decl, edit, file)?,
        SymbolOp::ReplaceSymbol => replace_symbol(decl, edit, file)?,
        SymbolOp::InsertMember(position) => insert_member(decl, position, edit, file)?,
        SymbolOp::RemoveSymbol => remove_symbol(decl, file)?,
        SymbolOp::AddUse(_) => return Err(Error::internal("add_use handled above")),
    };
    let splice = minimal(file.text, range, &text, op);
    Ok(Resolved {
        splice: Some(splice).filter(|s| !s.range.is_empty() || !s.text.is_empty()),
        target: decl
            .qualified
            .clone()
            .unwrap_or_else(|| decl.symbol.clone()),
    })
}

fn refused(decl: &Declaration, why: &str) -> Error {
    Error::new(Code::PlanMalformed, format!("`{}` {why}", decl.symbol))
        .detail("symbol", decl.symbol.as_str())
}

type Change = (Range<usize>, String);

fn replace_body(decl: &Declaration, edit: &SymbolEdit, file: &File<'_>) -> Result<Change> {
    let body = decl.body.clone().ok_or_else(|| {
        refused(
            decl,
            "has no body to replace (abstract, a signature or not callable)",
        )
    })?;
    let source = file.text.as_bytes();
    let indent = indent_at(source, decl.core);
    if file.lang.indented_blocks() {
        if !blank(source, line_start(source, body.start)..body.start) {
            return Ok(inline_body(&body, &indent, edit, file));
        }
        let inner = indent_at(source, body.start);
        let code = place(&edit.code, &inner, &file.style, edit.reindent, file.lang);
        let keep = docstring_end(file, &body).filter(|_| !starts_with_string(&edit.code));
        return Ok(match keep {
            None if code.trim().is_empty() => (body.start..body.end, "pass".to_owned()),
            Some(end) if code.trim().is_empty() => (end..body.end, String::new()),
            Some(end) => (end..body.end, format!("{}{code}", file.style.eol)),
            None => (
                body.start..body.end,
                code.trim_start_matches([' ', '\t']).to_owned(),
            ),
        });
    }
    let inner = format!("{indent}{}", file.style.unit);
    let code = place(&edit.code, &inner, &file.style, edit.reindent, file.lang);
    let eol = file.style.eol;
    let text = if code.trim().is_empty() {
        format!("{{{eol}{indent}}}")
    } else {
        format!("{{{eol}{code}{eol}{indent}}}")
    };
    Ok((body, text))
}

/// A Python body written on the signature's line (`def f(self): return 1`): the new body
/// becomes an indented block under the signature (a compound statement cannot follow the
/// `:` on its line); a kept docstring moves into the block with it.
fn inline_body(body: &Range<usize>, indent: &str, edit: &SymbolEdit, file: &File<'_>) -> Change {
    let source = file.text.as_bytes();
    let inner = format!("{indent}{}", file.style.unit);
    let eol = file.style.eol;
    let mut start = body.start;
    while start > 0 && matches!(source[start - 1], b' ' | b'\t') {
        start -= 1;
    }
    let code = place(&edit.code, &inner, &file.style, edit.reindent, file.lang);
    let doc = docstring_end(file, body)
        .filter(|_| !starts_with_string(&edit.code))
        .map(|end| {
            let statement = file.text[body.start..end].trim_end_matches([';', ' ', '\t']);
            format!("{eol}{inner}{statement}")
        })
        .unwrap_or_default();
    let code = if code.trim().is_empty() && doc.is_empty() {
        format!("{eol}{inner}pass")
    } else if code.trim().is_empty() {
        String::new()
    } else {
        // Verbatim code (`reindent: false`) still starts at the block's indentation, as a
        // replaced block body's first line does.
        format!("{eol}{inner}{}", code.trim_start_matches([' ', '\t']))
    };
    (start..body.end, format!("{doc}{code}"))
}

/// The end of a Python body's leading docstring, when it has one.
fn docstring_end(file: &File<'_>, body: &Range<usize>) -> Option<usize> {
    docstring(file, body).map(|d| d.end)
}

/// A Python body's leading docstring statement, when it has one.
fn docstring(file: &File<'_>, body: &Range<usize>) -> Option<Range<usize>> {
    let node = file
        .tree
        .root_node()
        .descendant_for_byte_range(body.start, body.end)?;
    let mut block = node;
    while block.kind() != "block" {
        block = block.parent()?;
    }
    let first = block.named_child(0)?;
    let string = first.named_child(0)?;
    (first.kind() == "expression_statement" && string.kind() == "string")
        .then(|| first.byte_range())
}

fn starts_with_string(code: &str) -> bool {
    let t = code.trim_start();
    ["\"", "'", "r\"", "r'"].iter().any(|p| t.starts_with(p))
}

/// Splits code into its doc comment, its attribute lines and the rest (byte offsets of where
/// the attributes and the rest start).
fn split_leading(code: &str, lang: Lang) -> (usize, usize) {
    let mut pos = 0;
    let mut doc_end = 0;
    let skip_ws = |p: usize| p + code[p..].len() - code[p..].trim_start().len();
    let mut at = skip_ws(0);
    // Doc comments: `/** … */` and `//` / `#` comment lines.
    loop {
        let rest = &code[at..];
        let end = if rest.starts_with("/*") {
            rest.find("*/").map(|e| at + e + 2)
        } else if rest.starts_with("//")
            || (lang != Lang::TypeScript && rest.starts_with('#') && !rest.starts_with("#["))
        {
            Some(at + rest.find('\n').unwrap_or(rest.len()))
        } else {
            None
        };
        match end {
            Some(e) => {
                doc_end = e;
                pos = skip_ws(e);
                at = pos;
            }
            None => break,
        }
    }
    let attrs_start = if doc_end == 0 { 0 } else { pos };
    // Attributes / decorators: whole lines starting with `#[` (PHP) or `@`.
    loop {
        let rest = &code[at..];
        let attribute = match lang {
            Lang::Php => rest.starts_with("#["),
            _ => rest.starts_with('@'),
        };
        if !attribute {
            break;
        }
        let line_end = rest.find('\n').map_or(code.len(), |e| at + e);
        at = skip_ws(line_end);
    }
    (attrs_start, at)
}

fn replace_symbol(decl: &Declaration, edit: &SymbolEdit, file: &File<'_>) -> Result<Change> {
    if file.decls.iter().filter(|d| d.range == decl.range).count() > 1 {
        return Err(refused(
            decl,
            "is declared together with others (`public $a, $b;`); replace the declaration with a find/replace edit",
        ));
    }
    let source = file.text.as_bytes();
    let indent = indent_at(source, decl.range.start);
    // Python: the docstring is the doc comment; code without one keeps the existing one.
    let old_doc = decl.body.as_ref().and_then(|b| docstring(file, b));
    let code = match old_doc.filter(|_| file.lang == Lang::Python) {
        Some(doc) => {
            let flat = place(&edit.code, "", &file.style, edit.reindent, file.lang);
            let old_indent = indent_at(source, doc.start);
            let doc = &file.text[doc];
            super::python::keep_docstring(&flat, doc, &old_indent, file.style.eol).unwrap_or(flat)
        }
        None => edit.code.clone(),
    };
    let code = place(&code, &indent, &file.style, edit.reindent, file.lang);
    let code = code.trim_start_matches([' ', '\t']);
    if code.trim().is_empty() {
        return Err(refused(
            decl,
            "needs `code`; use remove_symbol to delete it",
        ));
    }
    let (attrs, core) = split_leading(code, file.lang);
    let old = |r: Range<usize>| &file.text[r];
    let doc = if attrs > 0 {
        &code[..attrs]
    } else {
        old(decl.range.start..decl.attrs)
    };
    let attributes = if core > attrs {
        &code[attrs..core]
    } else {
        old(decl.attrs..decl.core)
    };
    let text = format!("{doc}{attributes}{}", &code[core..]);
    Ok((decl.range.clone(), text))
}

fn insert_member(
    container: &Declaration,
    position: &Position,
    edit: &SymbolEdit,
    file: &File<'_>,
) -> Result<Change> {
    let members = container.members.clone().ok_or_else(|| {
        refused(
            container,
            "is not a class, interface, trait or enum: it takes no members",
        )
    })?;
    let source = file.text.as_bytes();
    let eol = file.style.eol;
    let sep = file.lang.separator();
    let member = |name: &str| {
        let query = format!("{}{sep}{name}", container.symbol);
        find(file.decls, &query, file.lang, file.path)
    };
    // Indentation of members: an existing member's, or one level below the container.
    // (A member that shares its line with the `{` says nothing about indentation.)
    let first_member = file
        .decls
        .iter()
        .find(|d| d.container.as_deref() == Some(container.symbol.as_str()) && !d.embedded)
        .filter(|m| blank(source, line_start(source, m.range.start)..m.range.start));
    let indent = match (first_member, file.lang.indented_blocks()) {
        (Some(m), _) => indent_at(source, m.range.start),
        (None, true) => indent_at(source, members.start),
        (None, false) => format!("{}{}", indent_at(source, container.core), file.style.unit),
    };
    let code = place(&edit.code, &indent, &file.style, edit.reindent, file.lang);
    if code.trim().is_empty() {
        return Err(refused(container, "insert_member needs `code`"));
    }
    let (open, close) = inner(file, &members);
    let content = file.text[open..close].trim_start_matches(|c: char| c.is_whitespace());
    let content_start = close - content.len();
    let content_end = open + file.text[open..close].trim_end().len();
    let empty = content.trim().is_empty();
    // One blank line of separation on each side that has an adjacent neighbour.
    let after = |at: usize| {
        let tail = if glued_below(file, at) { eol } else { "" };
        (at..at, format!("{eol}{eol}{code}{tail}"))
    };
    let before = |at: usize| {
        let start = line_start(source, at);
        let head = if opens_block(file, start) || blank_above(source, start) {
            ""
        } else {
            eol
        };
        (start..start, format!("{head}{code}{eol}{eol}"))
    };
    let change = match position {
        _ if empty && file.lang.indented_blocks() => after(content_end),
        _ if empty => {
            let breaks = file.text[open..close].contains('\n');
            let tail = if breaks {
                String::new()
            } else {
                format!("{eol}{}", indent_at(source, container.core))
            };
            (open..open, format!("{eol}{code}{tail}"))
        }
        Position::End => after(content_end),
        Position::Start => {
            match docstring_end(file, &members).filter(|_| file.lang.indented_blocks()) {
                Some(end) => after(end),
                None => before(content_start),
            }
        }
        Position::After(name) => after(member(name)?.range.end),
        Position::Before(name) => before(member(name)?.range.start),
    };
    Ok(change)
}

/// The inside of a member list: after `{` and before `}`, or the whole Python block.
fn inner(file: &File<'_>, members: &Range<usize>) -> (usize, usize) {
    let text = &file.text[members.clone()];
    if !file.lang.indented_blocks() && text.starts_with('{') && text.ends_with('}') {
        (members.start + 1, members.end - 1)
    } else {
        (members.start, members.end)
    }
}

fn remove_symbol(decl: &Declaration, file: &File<'_>) -> Result<Change> {
    if decl.embedded {
        return Err(refused(
            decl,
            "shares its declaration with others (a promoted or grouped declaration); replace the declaration instead",
        ));
    }
    let source = file.text.as_bytes();
    let range = decl.range.clone();
    let start = line_start(source, range.start);
    let end = line_end(source, range.end);
    let own_lines = blank(source, start..range.start)
        && source[range.end..end].iter().all(u8::is_ascii_whitespace);
    if !own_lines {
        return Ok((range, String::new()));
    }
    // The blank lines around the removed lines become one gap as wide as the wider of the
    // two (groups stay apart, nothing doubles), or none next to a block's start or end.
    let (mut from, mut above) = (start, 0);
    while from > 0 && blank_line(source, line_start(source, from - 1)) {
        from = line_start(source, from - 1);
        above += 1;
    }
    let (mut to, mut below) = (end, 0);
    while blank_line(source, to) {
        to = line_end(source, to);
        below += 1;
    }
    let next = &file.text[to..line_end(source, to)];
    let edge = opens_block(file, from)
        || to >= source.len()
        || next.trim_start().starts_with(['}', ']', ')']);
    let keep = if edge { 0 } else { above.max(below) };
    Ok((from..to, file.style.eol.repeat(keep)))
}

/// Whether the line before `start` opens a block (ends with `{`, `(`, `[`, or a Python `:`),
/// or there is none: what follows the removed lines would start the block.
fn opens_block(file: &File<'_>, start: usize) -> bool {
    if start == 0 {
        return true;
    }
    let source = file.text.as_bytes();
    let prev = file.text[line_start(source, start - 1)..start].trim_end();
    prev.ends_with(['{', '(', '[']) || (file.lang.indented_blocks() && prev.ends_with(':'))
}

/// Whether the line above `start` is blank.
fn blank_above(source: &[u8], start: usize) -> bool {
    start > 0 && blank_line(source, line_start(source, start - 1))
}

/// Whether the line after the one holding `at` is a neighbour: not blank, not a closer (and
/// nothing follows `at` on its own line).
fn glued_below(file: &File<'_>, at: usize) -> bool {
    let source = file.text.as_bytes();
    let next = line_end(source, at);
    if !file.text[at..next].trim().is_empty() {
        return false;
    }
    let line = file.text[next..line_end(source, next)].trim();
    !line.is_empty() && !line.starts_with(['}', ']', ')'])
}
