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
//!   without `=`, `;` or another brace); the region then ends with a `}`. Top level (level 0)
//!   is the whole file.
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
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Brace,
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
        let class = match fam {
            _ if level == 0 => None,
            Family::Python => lines.top_class(bounds.header),
            _ => lines.braced_class(provider, bounds.header),
        };
        if level == 0 || class.is_some() || lines.header_ok(fam, bounds.header) {
            let mut seen = None;
            for width in WIDTHS {
                let start = lines.siblings_up(fam, first, level, bounds.body.start, width);
                let end = lines.siblings_down(fam, (start, last), level, bounds.body.end, width)?;
                if seen == Some((start, end)) {
                    continue;
                }
                seen = Some((start, end));
                let head = class.clone().map(|r| &lines.src[r]);
                let (prefix, suffix, exact) = context(provider, &lines, start, level > 0, head);
                let window = Window {
                    range: start..end,
                    prefix,
                    suffix,
                    nested: level > 0,
                    closed_end: end == bounds.body.end,
                    exact_declarations: exact && (level == 0 || class.is_some()),
                };
                if let Some(found) = accept(&window) {
                    return Some(found);
                }
                if start == bounds.body.start && end == bounds.body.end {
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

/// The lines of a block at one level: its header line, and the lines between it and its closer.
struct Block {
    header: usize,
    body: Range<usize>,
}

struct Lines<'a> {
    src: &'a [u8],
}

/// First words of the Python statements whose blocks hold statements (not a class body,
/// whose members are declarations: see [`Lines::top_class`]).
const PYTHON_BLOCKS: &[&str] = &[
    "def", "async", "if", "elif", "else", "for", "while", "try", "except", "finally", "with",
    "match", "case",
];

const CONTINUATIONS: &[&str] = &[
    "else", "elif", "except", "finally", "catch", "case", "default",
];

/// Whether the last code line of a region's new text ends a statement, so that the sibling
/// after the region still starts one (an edit may leave a `\\` or an open bracket there).
pub fn ends_statement(provider: &Provider, text: &[u8]) -> bool {
    let fam = family(provider);
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
        Family::Flat => true,
    }
}

impl Lines<'_> {
    /// Whether a block header opens a block of statements (a `{` alone on its line is judged
    /// by the line before: a signature or a condition, not a type).
    fn header_ok(&self, fam: Family, header: usize) -> bool {
        let code = code_of(fam, self.text(header));
        match fam {
            Family::Python => {
                let start = self.statement_start(fam, header);
                code.ends_with(':') && PYTHON_BLOCKS.contains(&first_word(self.text(start)))
            }
            Family::Brace if code == "{" => self.prev(header).is_some_and(|p| {
                let above = self.text(p);
                let typed = [
                    "class ",
                    "interface ",
                    "trait ",
                    "enum ",
                    "struct ",
                    "namespace ",
                ];
                above.contains('(') && !typed.iter().any(|t| above.contains(t))
            }),
            Family::Brace => {
                let Some(head) = code.strip_suffix('{').map(str::trim_end) else {
                    return false;
                };
                head.ends_with(')')
                    || head.ends_with("=>")
                    || ["else", "try", "do", "finally"]
                        .iter()
                        .any(|w| head == *w || head.ends_with(&format!("}} {w}")))
            }
            Family::Flat => false,
        }
    }

    /// The first line of the statement whose last line is `header` (`class A(\n    B,\n):`
    /// starts two lines up): the nearest line above at its indentation that starts one, or
    /// that begins with `class` or `def` (after a decorator).
    fn statement_start(&self, fam: Family, header: usize) -> usize {
        let level = self.indent(header);
        let definition = |line: usize| {
            self.indent(line) == level
                && matches!(first_word(self.text(line)), "class" | "def" | "async")
        };
        let mut line = header;
        while !definition(line) && !self.starts(fam, line, level) {
            match self.prev(line).filter(|&p| header - p <= SCAN_LIMIT) {
                Some(p) => line = p,
                None => return header,
            }
        }
        line
    }

    /// The header of a top-level Python class whose body `header` opens (the statement's
    /// lines, from `class` to the `:` line), or `None`.
    fn top_class(&self, header: usize) -> Option<Range<usize>> {
        let start = self.statement_start(Family::Python, header);
        let opens = code_of(Family::Python, self.text(header)).ends_with(':');
        let class = self.indent(start) == 0 && first_word(self.text(start)) == "class";
        (opens && class).then(|| start..self.next(header))
    }

    /// The head of a top-level braced class-like body that `header` opens (`class A extends B`
    /// and its `{` line), as its bytes: PHP, Java, C#, TypeScript and JavaScript classes,
    /// interfaces, traits and enums, Rust `impl` and `trait` blocks. Its members are
    /// declarations, not statements, so a region of them is parsed under this real head (and
    /// a closing `}`), where they keep their names. C and C++ are left out (`public:` labels
    /// break the levels, and their bodies end with `};`).
    fn braced_class(&self, provider: &Provider, header: usize) -> Option<Range<usize>> {
        if matches!(provider.name, "c" | "cpp")
            || !code_of(Family::Brace, self.text(header)).ends_with('{')
        {
            return None;
        }
        let alone = code_of(Family::Brace, self.text(header)) == "{";
        let mut start = if alone { self.prev(header)? } else { header };
        for _ in 0..16 {
            if !self.blank(start) && self.indent(start) == 0 {
                break;
            }
            start = self.prev(start)?;
        }
        let (start_line, end) = (self.text(start), self.next(header));
        let at_column_0 = self.indent(start) == 0 && !self.blank(start);
        let head = std::str::from_utf8(&self.src[start..end]).ok()?;
        let one_brace = head.matches('{').count() == 1 && !head.contains('}');
        let plain = !head.contains(['=', ';']) && one_brace;
        (at_column_0 && plain && class_like(start_line)).then_some(start..end)
    }

    fn start_of(&self, at: usize) -> usize {
        let at = at.min(self.src.len());
        self.src[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
    }

    /// Start of the next line (or the end of the file).
    fn next(&self, line: usize) -> usize {
        self.src[line..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.src.len(), |i| line + i + 1)
    }

    fn prev(&self, line: usize) -> Option<usize> {
        (line > 0).then(|| self.start_of(line - 1))
    }

    fn text(&self, line: usize) -> &str {
        let end = self.next(line);
        std::str::from_utf8(&self.src[line..end]).unwrap_or_default()
    }

    /// Whether the line is whitespace only. Read byte by byte (these scans visit every line
    /// of a block, often more than once); a line with other than ASCII is read as text.
    fn blank(&self, line: usize) -> bool {
        let bytes = &self.src[line..self.next(line)];
        match bytes
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
        {
            None => true,
            Some(b) if b.is_ascii() => false,
            Some(_) => self.text(line).trim().is_empty(),
        }
    }

    /// The width of the line's leading spaces and tabs, in bytes.
    fn indent(&self, line: usize) -> usize {
        let rest = &self.src[line.min(self.src.len())..];
        rest.iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count()
    }

    /// The smallest indentation of the non-blank lines from `first` to `last`; the next
    /// non-blank line's when all are blank.
    fn edit_level(&self, first: usize, last: usize) -> usize {
        let mut line = first;
        let mut level = None::<usize>;
        while line <= last && line < self.src.len() {
            if !self.blank(line) {
                level = Some(level.map_or(self.indent(line), |l| l.min(self.indent(line))));
            }
            line = self.next(line);
        }
        if let Some(level) = level {
            return level;
        }
        while line < self.src.len() && self.blank(line) {
            line = self.next(line);
        }
        if line < self.src.len() {
            self.indent(line)
        } else {
            0
        }
    }

    /// The block around lines `first..=last` at `level`: `None` when a scan goes too far.
    fn block(&self, first: usize, last: usize, level: usize) -> Option<Block> {
        if level == 0 {
            return Some(Block {
                header: 0,
                body: 0..self.src.len(),
            });
        }
        let shallower = |l: usize| !self.blank(l) && self.indent(l) < level;
        let mut header = self.prev(first);
        while let Some(h) = header.filter(|&h| !shallower(h)) {
            if first - h > SCAN_LIMIT {
                return None;
            }
            header = self.prev(h);
        }
        let header = header?;
        let mut closer = self.next(last);
        while closer < self.src.len() && !shallower(closer) {
            if closer - last > SCAN_LIMIT {
                return None;
            }
            closer = self.next(closer);
        }
        Some(Block {
            header,
            body: self.next(header)..closer,
        })
    }

    /// Whether `line` begins a sibling at `level`.
    fn starts(&self, fam: Family, line: usize, level: usize) -> bool {
        if self.blank(line) || self.indent(line) != level {
            return false;
        }
        let code = self.text(line).trim();
        let first_ok = code
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || "_$@#/\"'<".contains(c));
        let word_end = code
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(code.len());
        first_ok && !CONTINUATIONS.contains(&&code[..word_end]) && self.after_statement(fam, line)
    }

    /// The braces opened by the siblings' own lines (at `level`) after `line`, given `depth`
    /// before it: a line ending in `{` opens one, a line starting with `}` closes one. `None`
    /// when `line` closes a block opened before the siblings: a block that does not indent its
    /// body (a bundle's IIFE whose statements stand at column 0) ends there, and what follows
    /// belongs to the enclosing construct.
    fn level_braces(&self, fam: Family, line: usize, level: usize, depth: usize) -> Option<usize> {
        if fam != Family::Brace || self.blank(line) || self.indent(line) != level {
            return Some(depth);
        }
        let code = code_of(fam, self.text(line));
        let depth = match code.starts_with('}') {
            true => depth.checked_sub(1)?,
            false => depth,
        };
        Some(depth + usize::from(code.ends_with('{')))
    }

    /// Whether the code line before `line` ends a statement (comments and blanks skipped).
    fn after_statement(&self, fam: Family, line: usize) -> bool {
        let mut prev = self.prev(line);
        while let Some(p) = prev.filter(|&p| self.blank(p) || comment(fam, self.text(p))) {
            prev = self.prev(p);
        }
        let Some(p) = prev else { return true };
        let code = code_of(fam, self.text(p));
        match fam {
            Family::Brace => code.ends_with([';', '{', '}']),
            Family::Python => !code.starts_with('@') && !code.ends_with(['\\', ',', '(', '[', '{']),
            Family::Flat => true,
        }
    }

    /// The start of the `width`-th sibling at or above `first`, not before `floor`.
    fn siblings_up(
        &self,
        fam: Family,
        first: usize,
        level: usize,
        floor: usize,
        width: usize,
    ) -> usize {
        let (mut line, mut found) = (first, 0);
        loop {
            if self.starts(fam, line, level) {
                found += 1;
                if found == width {
                    return line;
                }
            }
            match self
                .prev(line)
                .filter(|&p| p >= floor && first - p <= SCAN_LIMIT)
            {
                Some(p) => line = p,
                None => return floor,
            }
        }
    }

    /// The start of the `width`-th sibling after `last`, or `ceiling`.
    fn siblings_down(
        &self,
        fam: Family,
        (start, last): (usize, usize),
        level: usize,
        ceiling: usize,
        width: usize,
    ) -> Option<usize> {
        let mut depth = 0usize;
        let mut line = start;
        while line <= last && line < self.src.len() {
            depth = self.level_braces(fam, line, level, depth).unwrap_or(0);
            line = self.next(line);
        }
        let (mut line, mut found) = (self.next(last).max(line), 0);
        while line < ceiling {
            if line - last > SCAN_LIMIT {
                return None;
            }
            match self.level_braces(fam, line, level, depth) {
                Some(d) => depth = d,
                // The close of a block opened before the siblings (see `level_braces`).
                None if self.after_statement(fam, line) => return Some(line),
                None => {}
            }
            if self.starts(fam, line, level) {
                found += 1;
                if found == width {
                    return Some(line);
                }
            }
            line = self.next(line);
        }
        Some(ceiling)
    }
}

/// A line without its trailing comment (`// …`, `/* … */`, Python's `# …`), trimmed; a
/// comment marker inside a string literal is not one (quotes are counted, roughly).
fn code_of(fam: Family, line: &str) -> &str {
    let mut code = line.trim();
    if fam == Family::Brace
        && code.ends_with("*/")
        && let Some(open) = code.rfind("/*")
    {
        code = code[..open].trim_end();
    }
    let marker = if fam == Family::Python { "#" } else { "//" };
    let mut from = 0;
    while let Some(i) = code[from..].find(marker) {
        let at = from + i;
        let quotes = code[..at]
            .chars()
            .filter(|c| matches!(c, '"' | '\'' | '`'))
            .count();
        if quotes % 2 == 0 {
            return code[..at].trim_end();
        }
        from = at + marker.len();
    }
    code
}

/// Whether a line declares a class-like type: its first word after modifiers opens one.
fn class_like(line: &str) -> bool {
    const MODIFIERS: &[&str] = &[
        "export", "default", "abstract", "final", "readonly", "public", "internal", "sealed",
        "partial", "static", "pub", "unsafe", "declare",
    ];
    const KINDS: &[&str] = &["class", "interface", "trait", "enum", "impl"];
    let mut rest = line.trim_start();
    loop {
        let word = first_word(rest);
        if !MODIFIERS.contains(&word) || word.is_empty() {
            return KINDS.contains(&word);
        }
        rest = rest[word.len()..].trim_start();
    }
}

/// The word a line begins with (after its indentation).
fn first_word(line: &str) -> &str {
    let t = line.trim_start();
    let end = t
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(t.len());
    &t[..end]
}

fn comment(fam: Family, line: &str) -> bool {
    let t = line.trim_start();
    match fam {
        Family::Python => t.starts_with('#'),
        _ => t.starts_with("//") || t.starts_with("/*") || t.starts_with('*'),
    }
}

#[cfg(test)]
mod tests;
