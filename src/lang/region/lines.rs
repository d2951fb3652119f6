//! The line scans behind regions: blocks, their headers and the sibling starts inside them,
//! read from indentation and line ends alone (no tree).

use std::ops::Range;

use super::{Family, SCAN_LIMIT};

use crate::lang::Provider;

/// The lines of a block at one level: its header line, and the lines between it and its closer.
pub(super) struct Block {
    pub(super) header: usize,
    pub(super) body: Range<usize>,
}

pub(super) struct Lines<'a> {
    pub(super) src: &'a [u8],
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

impl Lines<'_> {
    /// Whether a block header opens a block of statements (a `{` alone on its line is judged
    /// by the line before: a signature or a condition, not a type).
    pub(super) fn header_ok(&self, fam: Family, header: usize) -> bool {
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
            Family::List | Family::Flat => false,
        }
    }

    /// The first line of the statement whose last line is `header` (`class A(\n    B,\n):`
    /// starts two lines up): the nearest line above at its indentation that starts one, or
    /// that begins with `class` or `def` (after a decorator).
    pub(super) fn statement_start(&self, fam: Family, header: usize) -> usize {
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
    pub(super) fn top_class(&self, header: usize) -> Option<Range<usize>> {
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
    pub(super) fn braced_class(&self, provider: &Provider, header: usize) -> Option<Range<usize>> {
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

    pub(super) fn start_of(&self, at: usize) -> usize {
        let at = at.min(self.src.len());
        self.src[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
    }

    /// Start of the next line (or the end of the file).
    pub(super) fn next(&self, line: usize) -> usize {
        self.src[line..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.src.len(), |i| line + i + 1)
    }

    pub(super) fn prev(&self, line: usize) -> Option<usize> {
        (line > 0).then(|| self.start_of(line - 1))
    }

    pub(super) fn text(&self, line: usize) -> &str {
        let end = self.next(line);
        std::str::from_utf8(&self.src[line..end]).unwrap_or_default()
    }

    /// Whether the line is whitespace only. Read byte by byte (these scans visit every line
    /// of a block, often more than once); a line with other than ASCII is read as text.
    pub(super) fn blank(&self, line: usize) -> bool {
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
    pub(super) fn indent(&self, line: usize) -> usize {
        let rest = &self.src[line.min(self.src.len())..];
        rest.iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count()
    }

    /// The smallest indentation of the non-blank lines from `first` to `last`; the next
    /// non-blank line's when all are blank.
    pub(super) fn edit_level(&self, first: usize, last: usize) -> usize {
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
    pub(super) fn block(&self, first: usize, last: usize, level: usize) -> Option<Block> {
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
    pub(super) fn starts(&self, fam: Family, line: usize, level: usize) -> bool {
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
    pub(super) fn level_braces(
        &self,
        fam: Family,
        line: usize,
        level: usize,
        depth: usize,
    ) -> Option<usize> {
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
    pub(super) fn after_statement(&self, fam: Family, line: usize) -> bool {
        let mut prev = self.prev(line);
        while let Some(p) = prev.filter(|&p| self.blank(p) || comment(fam, self.text(p))) {
            prev = self.prev(p);
        }
        let Some(p) = prev else { return true };
        let code = code_of(fam, self.text(p));
        match fam {
            Family::Brace => code.ends_with([';', '{', '}']),
            Family::Python => !code.starts_with('@') && !code.ends_with(['\\', ',', '(', '[', '{']),
            Family::List => code.ends_with([',', '[']),
            Family::Flat => true,
        }
    }

    /// Whether `block` is the body of a PHP array literal whose elements are free of any
    /// declaration's signature: its header ends with `[` after `=`, `=>` or `return` (a
    /// constant's, a property's or a variable's value, an element, a returned array; not a
    /// parameter's default, whose header leaves a `(` open), and its closer starts with `]`.
    pub(super) fn list_body(&self, provider: &Provider, block: &Block) -> bool {
        if provider.name != "php" || block.body.end >= self.src.len() {
            return false;
        }
        let code = code_of(Family::Brace, self.text(block.header));
        let Some(head) = code.strip_suffix('[').map(str::trim_end) else {
            return false;
        };
        let valued = head.ends_with('=') || head.ends_with("=>") || head.ends_with("return");
        let balanced = ["()", "[]", "{}"].iter().all(|pair| {
            let (open, close) = (pair.as_bytes()[0], pair.as_bytes()[1]);
            let count = |b: u8| head.bytes().filter(|&c| c == b).count();
            count(open) == count(close)
        });
        let closer = code_of(Family::Brace, self.text(block.body.end));
        valued && balanced && closer.starts_with(']')
    }

    /// The start of the `width`-th sibling at or above `first`, not before `floor`.
    pub(super) fn siblings_up(
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
    pub(super) fn siblings_down(
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
pub(super) fn code_of(fam: Family, line: &str) -> &str {
    let mut code = line.trim();
    if matches!(fam, Family::Brace | Family::List)
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

pub(super) fn comment(fam: Family, line: &str) -> bool {
    let t = line.trim_start();
    match fam {
        Family::Python => t.starts_with('#'),
        _ => t.starts_with("//") || t.starts_with("/*") || t.starts_with('*'),
    }
}
