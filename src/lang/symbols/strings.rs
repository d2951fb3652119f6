//! Which lines of a code fragment continue a multi-line string literal: a PHP quoted string,
//! heredoc or nowdoc, a Python triple-quoted string, a TypeScript template literal. Re-indenting
//! such a line would change the string's value (or, for a PHP heredoc, its closing marker's
//! indentation rule), so `layout::place` keeps them verbatim. A small lexer, not a parser: it
//! tracks quotes, escapes and comments, which is all that decides where a string ends.

use super::Lang;

/// The lexer's state between characters.
#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    Code,
    /// `/* … */`.
    BlockComment,
    /// `'…'` / `"…"` (multi-line in PHP; in Python and TypeScript only with a `\` at line end).
    Quoted(u8),
    /// Python `'''…'''` / `"""…"""`; `true` for a docstring (a string that is a statement of
    /// its own), whose indentation is not part of its value (PEP 257) and follows the code.
    Triple(u8, bool),
    /// TypeScript `` `…` ``.
    Template,
    /// PHP heredoc / nowdoc body, until a line starting (after indentation) with the marker.
    Heredoc(String),
}

/// One flag per line of `code.lines()`: the line starts inside a string literal.
pub fn continued_lines(code: &str, lang: Lang) -> Vec<bool> {
    let mut state = State::Code;
    let mut flags = Vec::new();
    // A docstring is the first statement of a block: the fragment's first, or after a `:`.
    let mut block_start = true;
    for line in code.lines() {
        flags.push(!matches!(
            state,
            State::Code | State::BlockComment | State::Triple(_, true)
        ));
        let from_code = state == State::Code;
        state = match scan_line(line, state, lang) {
            State::Triple(q, true) if from_code && !block_start => State::Triple(q, false),
            other => other,
        };
        if !line.trim().is_empty() {
            block_start = line.trim_end().ends_with(':');
        }
    }
    flags
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The state after one line, given the state at its start.
fn scan_line(line: &str, mut state: State, lang: Lang) -> State {
    let b = line.as_bytes();
    if let State::Heredoc(marker) = &state {
        let rest = line.trim_start().as_bytes();
        let closes = rest.starts_with(marker.as_bytes())
            && !rest.get(marker.len()).copied().is_some_and(is_ident);
        if !closes {
            return state;
        }
        let skip = line.len() - line.trim_start().len() + marker.len();
        return scan_from(b, skip, State::Code, lang);
    }
    state = scan_from(b, 0, state, lang);
    match state {
        // An unterminated one-line string ends with its line unless escaped.
        State::Quoted(_) if lang != Lang::Php && !line.ends_with('\\') => State::Code,
        other => other,
    }
}

fn scan_from(b: &[u8], mut i: usize, mut state: State, lang: Lang) -> State {
    while i < b.len() {
        let c = b[i];
        match &state {
            State::Code => {
                let next = b.get(i + 1).copied();
                if c == b'/' && next == Some(b'*') {
                    state = State::BlockComment;
                    i += 2;
                    continue;
                }
                let hash_comment = c == b'#' && lang != Lang::TypeScript && next != Some(b'[');
                if (c == b'/' && next == Some(b'/') && lang != Lang::Python) || hash_comment {
                    return State::Code;
                }
                let opener = b[i..].starts_with(b"<<<") && lang == Lang::Php;
                if let Some(marker) = b.get(i + 3..).filter(|_| opener).and_then(heredoc_marker) {
                    return State::Heredoc(marker);
                }
                if lang == Lang::Python && (c == b'\'' || c == b'"') && b[i..].starts_with(&[c; 3])
                {
                    let head = std::str::from_utf8(&b[..i]).unwrap_or("x").trim_start();
                    let docstring = head.len() <= 2 && head.chars().all(|p| "rRuUfFbB".contains(p));
                    state = State::Triple(c, docstring);
                    i += 3;
                    continue;
                }
                if c == b'`' && lang == Lang::TypeScript {
                    state = State::Template;
                } else if c == b'\'' || c == b'"' {
                    state = State::Quoted(c);
                }
            }
            State::BlockComment if c == b'*' && b.get(i + 1) == Some(&b'/') => {
                state = State::Code;
                i += 1;
            }
            State::Quoted(_) | State::Triple(..) | State::Template if c == b'\\' => i += 1,
            State::Quoted(q) if c == *q => state = State::Code,
            State::Triple(q, _) if b[i..].starts_with(&[*q; 3]) => {
                state = State::Code;
                i += 2;
            }
            State::Template if c == b'`' => state = State::Code,
            _ => {}
        }
        i += 1;
    }
    state
}

/// The marker of `<<<ID`, `<<<"ID"` or `<<<'ID'` when it ends the line (a heredoc opener).
fn heredoc_marker(rest: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(rest).ok()?.trim();
    let bare = text.trim_matches(|c| c == '"' || c == '\'');
    let quoted_ok = text.len() == bare.len()
        || (text.len() == bare.len() + 2 && text.starts_with(text.chars().last()?));
    let ident =
        !bare.is_empty() && !bare.as_bytes()[0].is_ascii_digit() && bare.bytes().all(is_ident);
    (quoted_ok && ident).then(|| bare.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn php_heredocs_nowdocs_and_quoted_strings() {
        let code = "$a = <<<EOT\n  x\n    y\n  EOT;\n$b = <<<'N'\nz\nN;\n$c = 'p\nq';\n$d = \"<<<X\";\n// 'no\nend();";
        assert_eq!(
            continued_lines(code, Lang::Php),
            [
                false, true, true, true, false, true, true, false, true, false, false, false
            ]
        );
    }

    #[test]
    fn python_triple_quotes_and_typescript_templates() {
        let py = "s = \"\"\"a\n  b\"\"\"\n# '''\nt = 'x'\nu = '''\n'''\ndef f():\n    r\"\"\"Doc.\n\n      More.\n    \"\"\"\n    g(\n        \"\"\"\n  value\n\"\"\")";
        assert_eq!(
            continued_lines(py, Lang::Python),
            [
                false, true, false, false, false, true, false, false, false, false, false, false,
                false, true, true
            ]
        );
        assert_eq!(
            continued_lines("\"\"\"Doc.\n  x\"\"\"\nreturn 1", Lang::Python),
            [false, false, false]
        );
        let ts = "const s = `a\n  ${b}\n`;\n/* ` */\nf('`');\nconst t = `\\``;";
        assert_eq!(
            continued_lines(ts, Lang::TypeScript),
            [false, true, true, false, false, false]
        );
    }

    proptest::proptest! {
        #[test]
        fn one_flag_per_line_and_no_panic(code in "[a<'\"`#/*\\\n EOT;]{0,40}") {
            for lang in [Lang::Php, Lang::Python, Lang::TypeScript] {
                proptest::prop_assert_eq!(continued_lines(&code, lang).len(), code.lines().count());
            }
        }
    }
}
