//! Where tree-sitter-bash and bash disagree on words.
//!
//! A closing reserved word where a command begins (a stray `}`, `fi`, `done`, `esac`) is an
//! error to bash and a command's name to the grammar: `stray_closers` counts it.
//!
//! Shell words tree-sitter-bash does not take: an edit that only adds characters to one word
//! of one line, where bash reads them as plain letters, cannot add a syntax error, whatever
//! the grammar says. tree-sitter-bash marks as errors words bash accepts: a `$` ending a word
//! (`$` alone on a line), `@`, `{` or `}` inside a word (`d{ie() {`), `[` as a command (the
//! `test` builtin), letters before a comment's `#` (`end#!/usr/bin/env bash`).
//!
//! The rule is lexical and narrow: one splice, an insertion without line breaks, and the word
//! holding it (the run of characters between blanks and the operators `| & ; < > ( )`; a new
//! word only alone on its line or first before a plain command) made
//! only of letters bash never treats specially there: no quotes, backslashes, `=` or `$`
//! except as the word's last character before a blank; not a reserved word; not starting a
//! comment; no `${`, `[[` or `]]`. Anything else is left to the tree's error count.

use std::ops::Range;

use tree_sitter::Tree;

use crate::lang::Location;

/// Reserved words that close or continue a compound command: bash refuses them where a
/// command begins, tree-sitter-bash takes them there as a command's name.
const CLOSERS: &[&[u8]] = &[
    b"}", b"fi", b"done", b"esac", b"then", b"do", b"else", b"elif",
];

/// Commands named by a closing reserved word (a stray `}`, `fi`, `done`, `esac`, ...), which
/// tree-sitter-bash's grammar accepts as plain commands: how many, and the first.
pub fn stray_closers(tree: &Tree, source: &[u8]) -> (usize, Option<Location>) {
    crate::lang::count_stray(tree, source, |node, text| {
        node.kind() == "command_name" && CLOSERS.contains(&text)
    })
}

const RESERVED: &[&[u8]] = &[
    b"if",
    b"then",
    b"else",
    b"elif",
    b"fi",
    b"do",
    b"done",
    b"case",
    b"esac",
    b"while",
    b"until",
    b"for",
    b"in",
    b"function",
    b"select",
    b"time",
    b"coproc",
    b"!",
    b"{",
    b"}",
    b"[[",
    b"]]",
];

fn ends_word(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b'\r' | b'|' | b'&' | b';' | b'<' | b'>' | b'(' | b')'
    )
}

/// Letters bash takes as themselves inside a word (`#`, `$`, braces checked separately).
fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'_' | b'-'
                | b'.'
                | b'/'
                | b','
                | b':'
                | b'@'
                | b'%'
                | b'+'
                | b'?'
                | b'*'
                | b'~'
                | b'^'
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'#'
                | b'$'
                | b'!'
        )
}

/// The word of `text` around `at..end` (a range of it).
fn word(text: &[u8], at: usize, end: usize) -> Range<usize> {
    let start = text[..at]
        .iter()
        .rposition(|&b| ends_word(b))
        .map_or(0, |i| i + 1);
    let stop = text[end..]
        .iter()
        .position(|&b| ends_word(b))
        .map_or(text.len(), |i| end + i);
    start..stop
}

/// Whether `w` is a word bash reads as plain letters (`next`: the byte after it).
fn literal(w: &[u8], next: Option<u8>) -> bool {
    let doubled = w.windows(2).any(|p| p == b"[[" || p == b"]]");
    if w.is_empty()
        || !w.iter().all(|&b| plain(b))
        || RESERVED.contains(&w)
        || w[0] == b'#'
        || doubled
    {
        return false;
    }
    let dollar_ok = |i: usize| i + 1 == w.len() && next.is_none_or(|b| b.is_ascii_whitespace());
    w.iter()
        .enumerate()
        .all(|(i, &b)| b != b'$' || dollar_ok(i))
}

/// Whether the one splice `(old, new)` of `before` into `after` only adds plain letters to a
/// word (see the module doc).
pub fn word_edit(before: &[u8], after: &[u8], ranges: &[(Range<usize>, Range<usize>)]) -> bool {
    let [(old, new)] = ranges else { return false };
    let inserted = &after[new.clone()];
    if !old.is_empty() || inserted.is_empty() || inserted.iter().any(|&b| ends_word(b)) {
        return false;
    }
    let w = word(after, new.start, new.end);
    if !literal(&after[w.clone()], after.get(w.end).copied()) {
        return false;
    }
    // Letters before a comment's `#`: the comment's text becomes words of the command.
    let was = word(before, old.start, old.end);
    let was_text = &before[was.clone()];
    if was_text.is_empty() {
        return new_word_stands(after, &w);
    }
    if before.get(was.start) != Some(&b'#') && !literal(was_text, None) {
        return false;
    }
    if before.get(was.start) == Some(&b'#') {
        let line_end = before[was.start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(before.len(), |i| was.start + i);
        let rest = &before[was.end..line_end];
        return rest
            .split(|b| b.is_ascii_whitespace())
            .all(|w| w.is_empty() || literal(w, None));
    }
    true
}

/// A whole new word `w` of `text`: taken as plain only alone on its line, or first on it before
/// a command that stays one (its first word plain, no `)` left open: not a case pattern).
fn new_word_stands(text: &[u8], w: &Range<usize>) -> bool {
    let line_start = text[..w.start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = text[w.end..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| w.end + i);
    if !text[line_start..w.start]
        .iter()
        .all(|&b| b == b' ' || b == b'\t')
    {
        return false;
    }
    let rest = &text[w.end..line_end];
    let Some(next) = rest.split(|&b| ends_word(b)).find(|t| !t.is_empty()) else {
        return rest.iter().all(|b| b.is_ascii_whitespace());
    };
    let count = |c: u8| rest.iter().filter(|&&b| b == c).count();
    literal(next, None) && count(b')') <= count(b'(')
}

#[cfg(test)]
mod tests {
    use super::word_edit;

    fn insert(src: &str, at: usize, text: &str) -> bool {
        let after = format!("{}{text}{}", &src[..at], &src[at..]);
        word_edit(
            src.as_bytes(),
            after.as_bytes(),
            &[(at..at, at..at + text.len())],
        )
    }

    #[test]
    fn letters_bash_takes_as_themselves() {
        assert!(insert("die() {\n  exit 1\n}\n", 1, "{"));
        assert!(insert("die() {\n  exit 1\n}\n", 11, "@"));
        assert!(insert("a\n\nb\n", 2, "$"));
        assert!(insert("#!/usr/bin/env bash\nx\n", 0, "end"));
        assert!(insert("    find . | sort\n", 1, "["));
    }

    #[test]
    fn what_bash_may_read_otherwise_is_left_to_the_tree() {
        assert!(!insert("a\n  fi=1\n", 2, "fi "), "an operator or blank");
        assert!(!insert("x\n", 1, "\""), "a quote");
        assert!(!insert("echo $x\n", 6, "{"), "an expansion");
        assert!(!insert("if x; then y; fi\n", 0, "#"), "a comment");
        assert!(!insert("a\nf\n", 2, "i"), "a reserved word");
        assert!(
            !insert("f() {\n  x\n}\n", 10, "::"),
            "a reserved word before"
        );
        assert!(!insert("[[ -d x ]]\n", 8, "]"), "a conditional's brackets");
        assert!(
            !insert("echo a # (\n", 7, "b"),
            "a comment's text that is not plain"
        );
        assert!(!insert("echo (x)\n", 6, "$"), "a substitution");
    }
}
