//! Regions: the part of a file the syntax gate parses for an edit, so that its cost follows
//! the edit, not the file.
//!
//! A region is a run of whole lines that parses on its own: a sequence of sibling statements
//! or declarations. Candidates are found on the lines alone (no tree of the file is needed):
//!
//! - **Levels.** The edit's level is the smallest indentation of the lines it touches. At a
//!   level above 0 the region lies inside a block: between its header (the nearest line above
//!   with less indentation) and its closer (the nearest line below with less). Only statement
//!   blocks qualify: in brace languages a header ending in `{` after `)`, `=>`, `else`, `try`,
//!   `do` or `finally` (not a class, object, array or type body); in Python a header ending in
//!   `:` of a `def`, `if`, `for`, ... statement. A *top-level class-like body* qualifies too
//!   and is parsed under its own head, so that its members keep their names: a Python
//!   `class`, and in brace languages (not C/C++) a `class`, `interface`, `trait`, `enum` or
//!   Rust `impl` whose head starts at column 0 (`class A extends B {`, a head of a few lines
//!   without `=`, `;` or another brace); the region then ends with a `}`. A PHP array literal's
//!   body qualifies as a list of elements (`Lines::list_body`). Top level (level 0) is the
//!   whole file.
//! - **Boundaries.** Inside a level, a region starts and ends at *sibling starts*: lines at
//!   exactly that indentation that begin a statement (a word, a comment, a string, `$`, `@`,
//!   `#`, `<`; not a closer, an operator or a continuation keyword such as `else`), whose
//!   previous code line ends one (brace languages: `;`, `{` or `}`; Python: not `\`, `,` or an
//!   open bracket, and not a decorator). The file's start and end are always boundaries, and
//!   so is a `}` at the siblings' indentation that closes a block opened before them (a
//!   bundle's IIFE whose statements stand at column 0).
//! - **Widening.** Regions of 1, 4 and 32 siblings around the edit are tried at each level,
//!   then the next level out; the caller takes the first region whose *original* bytes parse
//!   without errors in isolation, or parses the whole file when none does.
//!
//! Isolation needs a little context: PHP regions get `<?php` (and the file's `namespace …;`),
//! class-body regions their class's head and a closing `}`, nested Python regions stand
//! between `if True:` (or the class header) + `pass` and `pass` lines indented as they are.
//! Languages without a block rule (JSON, YAML, TOML, Markdown, Ruby, Bash, ...) have no
//! regions: their files are parsed whole (YAML aliases, Ruby's `end` and shell keywords reach
//! across any line).

use std::ops::Range;

use crate::lang::Provider;
use lines::{Lines, code_of, comment};

mod lines;

/// One candidate region of the original bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub range: Range<usize>,
    /// Parsed in front of the region's bytes.
    pub prefix: String,
    /// Parsed after them.
    pub suffix: String,
    /// Inside a block (not top level).
    pub nested: bool,
    /// The region ends at its block's closer, not before a sibling.
    pub closed_end: bool,
    /// Declarations read from the region are the file's, names and all: a top-level region
    /// (of a PHP file, after its `namespace …;`, which the prefix repeats).
    pub exact_declarations: bool,
    /// A run of a list literal's elements, parsed inside brackets of its own: a sibling
    /// after it follows a `,`.
    pub elements: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Brace,
    /// The elements of a list literal (a region's level inside an array body): siblings
    /// follow a `,`.
    List,
    Python,
    Flat,
}

fn family(provider: &Provider) -> Family {
    match provider.name {
        "python" => Family::Python,
        "javascript" | "typescript" | "tsx" | "php" | "rust" | "go" | "java" | "c" | "cpp"
        | "csharp" => Family::Brace,
        _ => Family::Flat,
    }
}

/// How far the line scans may look from the edit before the whole file is parsed instead.
const SCAN_LIMIT: usize = 4 << 20;
/// Sibling counts tried at each level.
const WIDTHS: [usize; 3] = [1, 4, 32];

/// The candidate regions around `edit` (a byte range of `source`), innermost first, until
/// `accept` takes one; `None` when none was accepted (the caller parses the whole file).
pub fn first_window<T>(
    provider: &Provider,
    source: &[u8],
    edit: Range<usize>,
    mut accept: impl FnMut(&Window) -> Option<T>,
) -> Option<T> {
    let fam = family(provider);
    if fam == Family::Flat {
        return None;
    }
    let lines = Lines { src: source };
    let first = lines.start_of(edit.start);
    let last = lines.start_of(edit.end.saturating_sub(1).max(edit.start));
    let mut level = lines.edit_level(first, last);
    loop {
        let bounds = lines.block(first, last, level)?;
        if let Some(body) = body_of(provider, fam, &lines, &bounds, level) {
            let fam = match body {
                Body::Elements => Family::List,
                _ => fam,
            };
            let mut seen = None;
            for width in WIDTHS {
                let start = lines.siblings_up(fam, first, level, bounds.body.start, width);
                let end = lines.siblings_down(fam, (start, last), level, bounds.body.end, width)?;
                if seen == Some((start, end)) {
                    continue;
                }
                seen = Some((start, end));
                let closed_end = end == bounds.body.end;
                let window = window(provider, &lines, &body, start..end, (level, closed_end));
                if let Some(found) = accept(&window) {
                    return Some(found);
                }
                if start == bounds.body.start && closed_end {
                    break;
                }
            }
        }
        if level == 0 {
            return None;
        }
        level = lines.indent(bounds.header);
    }
}

/// What the block at one level holds, which decides how its regions are parsed.
enum Body {
    /// The whole file (level 0).
    Top,
    /// A top-level class-like body: its members, parsed under the class's head (these bytes).
    Class(Range<usize>),
    /// A block of statements.
    Statements,
    /// A list literal's elements (see [`Lines::list_body`]).
    Elements,
}

/// How the block `bounds` at `level` is parsed in regions; `None` when it cannot be (an
/// object or type body, a parameter list).
fn body_of(
    provider: &Provider,
    fam: Family,
    lines: &Lines<'_>,
    bounds: &lines::Block,
    level: usize,
) -> Option<Body> {
    if level == 0 {
        return Some(Body::Top);
    }
    if lines.list_body(provider, bounds) {
        return Some(Body::Elements);
    }
    let class = match fam {
        Family::Python => lines.top_class(bounds.header),
        _ => lines.braced_class(provider, bounds.header),
    };
    match class {
        Some(head) => Some(Body::Class(head)),
        None => lines
            .header_ok(fam, bounds.header)
            .then_some(Body::Statements),
    }
}

/// The region `range` of a block holding `body`, with what it is parsed between. A run of
/// elements stands in brackets of its own, as an expression statement, which declares
/// nothing.
fn window(
    provider: &Provider,
    lines: &Lines<'_>,
    body: &Body,
    range: Range<usize>,
    (level, closed_end): (usize, bool),
) -> Window {
    if let Body::Elements = body {
        return Window {
            range,
            prefix: "<?php\n[\n".into(),
            suffix: "\n];\n".into(),
            nested: true,
            closed_end,
            exact_declarations: false,
            elements: true,
        };
    }
    let head = match body {
        Body::Class(head) => Some(&lines.src[head.clone()]),
        _ => None,
    };
    let (prefix, suffix, exact) = context(provider, lines, range.start, level > 0, head);
    Window {
        range,
        prefix,
        suffix,
        nested: level > 0,
        closed_end,
        exact_declarations: exact && matches!(body, Body::Top | Body::Class(_)),
        elements: false,
    }
}

/// The bytes around a region that let it parse on its own. A nested Python region sits
/// between two `pass` lines indented as its first line, so that a line of it indented
/// differently from its siblings outside is an error in the region too; its header is the
/// class's own (`class_head`, so that its methods keep their names) or `if True:`. A region
/// of a braced class body stands under the class's head and before a `}`.
/// The third value: whether declarations read in the region keep their names (false after
/// a braced PHP namespace, whose name the region cannot repeat).
fn context(
    provider: &Provider,
    lines: &Lines<'_>,
    start: usize,
    nested: bool,
    class_head: Option<&[u8]>,
) -> (String, String, bool) {
    let (mut prefix, exact) = match provider.name {
        "php" if start > 0 => match php_namespace(&lines.src[..start]) {
            Some(line) if line.ends_with(';') => (format!("<?php\n{line}\n"), true),
            Some(_) => ("<?php\n".into(), false),
            None => ("<?php\n".into(), true),
        },
        "python" if nested => {
            let text = lines.text(start);
            let indent = &text[..text.len() - text.trim_start_matches([' ', '\t']).len()];
            let head = class_head.map_or("if True:\n".into(), String::from_utf8_lossy);
            let prefix = format!("{head}{indent}pass\n");
            return (prefix, format!("\n{indent}pass\n"), true);
        }
        _ => (String::new(), true),
    };
    let Some(head) = class_head else {
        return (prefix, String::new(), exact);
    };
    prefix.push_str(&String::from_utf8_lossy(head));
    (prefix, "\n}\n".into(), exact)
}

/// The last `namespace …` line of a PHP file's head, trimmed.
fn php_namespace(head: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(head).ok()?;
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with("namespace ") && (l.ends_with(';') || l.ends_with('{')))
        .map(str::to_owned)
}

/// Whether the last code line of region `window`'s new text ends a statement (an element,
/// in a list), so that the sibling after the region still starts one (an edit may leave a
/// `\\`, an open bracket or a missing `,` there).
pub fn ends_sibling(provider: &Provider, window: &Window, text: &[u8]) -> bool {
    let fam = match window.elements {
        true => Family::List,
        false => family(provider),
    };
    let text = std::str::from_utf8(text).unwrap_or_default();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty() && !comment(fam, l));
    let Some(code) = last.map(|l| code_of(fam, l)) else {
        return true;
    };
    match fam {
        Family::Brace => code.ends_with([';', '{', '}']),
        Family::Python => !code.starts_with('@') && !code.ends_with(['\\', ',', '(', '[', '{']),
        Family::List => code.ends_with(','),
        Family::Flat => true,
    }
}

#[cfg(test)]
mod tests;
