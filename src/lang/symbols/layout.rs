//! Layout of code written by symbol edits: the file's line ending and indentation unit, code
//! re-indented to its target depth, line arithmetic, and the reduction of a replacement to its
//! smallest changed byte range.

use std::ops::Range;

use super::Lang;
use crate::plan::splice::Splice;

/// How a file writes lines: its line ending and one level of indentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Style {
    pub eol: &'static str,
    pub unit: String,
}

impl Style {
    /// The file's style: CRLF when its first line break is one; tabs when more indented lines
    /// start with a tab than with spaces, else the smallest space indentation (4 if none).
    pub fn of(source: &[u8]) -> Self {
        let eol = match source.iter().position(|&b| b == b'\n') {
            Some(i) if i > 0 && source[i - 1] == b'\r' => "\r\n",
            _ => "\n",
        };
        Self {
            eol,
            unit: unit_of(source.split(|&b| b == b'\n')),
        }
    }
}

/// The indentation unit of some lines (see [`Style::of`]).
fn unit_of<'a>(lines: impl Iterator<Item = &'a [u8]>) -> String {
    let (mut tabs, mut spaced, mut smallest) = (0, 0, usize::MAX);
    for line in lines {
        match line.first() {
            Some(b'\t') => tabs += 1,
            Some(b' ') => {
                let n = line.iter().take_while(|&&b| b == b' ').count();
                // ` * text` continues a doc comment; it says nothing about the unit.
                let rest = &line[n..];
                if n == line.len() || rest.starts_with(b"*") {
                    continue;
                }
                spaced += 1;
                smallest = smallest.min(n);
            }
            _ => {}
        }
    }
    if tabs > spaced {
        "\t".to_owned()
    } else if smallest == usize::MAX {
        "    ".to_owned()
    } else {
        " ".repeat(smallest)
    }
}

/// Start of the line holding `pos`.
pub fn line_start(source: &[u8], pos: usize) -> usize {
    source[..pos]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// End of the line holding `pos`, after its line break (or the end of the file).
pub fn line_end(source: &[u8], pos: usize) -> usize {
    source[pos..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(source.len(), |i| pos + i + 1)
}

/// The indentation of the line holding `pos`.
pub fn indent_at(source: &[u8], pos: usize) -> String {
    let start = line_start(source, pos);
    let n = source[start..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    String::from_utf8_lossy(&source[start..start + n]).into_owned()
}

/// Whether `range` holds only spaces and tabs.
pub fn blank(source: &[u8], range: Range<usize>) -> bool {
    source[range].iter().all(|&b| b == b' ' || b == b'\t')
}

/// Whether the line starting at `start` is empty or whitespace only.
pub fn blank_line(source: &[u8], start: usize) -> bool {
    start < source.len()
        && source[start..line_end(source, start)]
            .iter()
            .all(u8::is_ascii_whitespace)
}

/// `code` as lines at `indent` (one more `style.unit` per level the code nests), joined with
/// the file's line ending, without a final line break; blank lines stay empty. Lines that
/// continue a multi-line string literal or heredoc (in `lang`'s syntax) are kept as written.
/// Without `reindent` all lines are kept as written (only line endings change).
pub fn place(code: &str, indent: &str, style: &Style, reindent: bool, lang: Lang) -> String {
    let all: Vec<&str> = code.lines().collect();
    let in_string = super::strings::continued_lines(code, lang);
    let last = all
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(0, |i| i + 1);
    let first = all
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(last);
    let (lines, in_string) = (&all[first..last], &in_string[first..last]);
    if !reindent {
        return lines.join(style.eol);
    }
    let code_lines = || {
        lines
            .iter()
            .zip(in_string)
            .filter(|(_, verbatim)| !**verbatim)
            .map(|(l, _)| *l)
    };
    let unit = unit_of(code_lines().map(str::as_bytes));
    let width = |l: &str| -> (usize, usize) {
        let lead: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
        let tabs = lead.chars().filter(|c| *c == '\t').count();
        let spaces = lead.len() - tabs;
        if unit == "\t" {
            (tabs + spaces / 4, spaces % 4)
        } else {
            let u = unit.len().max(1);
            (tabs + spaces / u, spaces % u)
        }
    };
    let base = code_lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| width(l).0)
        .min()
        .unwrap_or(0);
    let out: Vec<String> = lines
        .iter()
        .zip(in_string)
        .map(|(l, verbatim)| {
            if *verbatim {
                return (*l).to_owned();
            }
            if l.trim().is_empty() {
                return String::new();
            }
            let (level, extra) = width(l);
            format!(
                "{indent}{}{}{}",
                style.unit.repeat(level.saturating_sub(base)),
                " ".repeat(extra),
                l.trim_start_matches([' ', '\t'])
            )
        })
        .collect();
    out.join(style.eol)
}

/// The smallest splice that turns `source[range]` into `text`: their common prefix and suffix
/// are left alone (on character boundaries).
pub fn minimal(source: &str, range: Range<usize>, text: &str, op: usize) -> Splice {
    let old = &source[range.clone()];
    let mut prefix = old
        .bytes()
        .zip(text.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(prefix) || !text.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let (old_rest, new_rest) = (&old[prefix..], &text[prefix..]);
    let mut suffix = old_rest
        .bytes()
        .rev()
        .zip(new_rest.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    while !old_rest.is_char_boundary(old_rest.len() - suffix)
        || !new_rest.is_char_boundary(new_rest.len() - suffix)
    {
        suffix -= 1;
    }
    Splice {
        range: range.start + prefix..range.end - suffix,
        text: new_rest[..new_rest.len() - suffix].to_owned(),
        op,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_line_endings_and_units() {
        assert_eq!(Style::of(b"a\r\n\tb\r\n").eol, "\r\n");
        assert_eq!(Style::of(b"a\n\tb\n").unit, "\t");
        assert_eq!(Style::of(b"a\n  b\n    c\n").unit, "  ");
        assert_eq!(Style::of(b"/**\n * x\n */\na\n").unit, "    ");
    }

    #[test]
    fn reindents_between_tabs_and_spaces() {
        let tabs = Style {
            eol: "\r\n",
            unit: "\t".into(),
        };
        let code = "  if (x) {\n    y();\n  }\n";
        assert_eq!(
            place(code, "\t\t", &tabs, true, Lang::Php),
            "\t\tif (x) {\r\n\t\t\ty();\r\n\t\t}"
        );
        let spaces = Style {
            eol: "\n",
            unit: "    ".into(),
        };
        assert_eq!(
            place("\tx();\n\n\t\ty();", "    ", &spaces, true, Lang::Php),
            "    x();\n\n        y();"
        );
        assert_eq!(
            place("/**\n * d\n */", "  ", &spaces, true, Lang::Php),
            "  /**\n   * d\n   */"
        );
        assert_eq!(
            place("  a\n b", "    ", &spaces, false, Lang::Php),
            "  a\n b"
        );
    }

    proptest::proptest! {
        #[test]
        fn minimal_splices_give_the_same_bytes(
            source in "[ab\n\u{e9}]{0,12}",
            text in "[ab\n\u{e9}]{0,12}",
            cut in (0usize..13, 0usize..13),
        ) {
            let mut bounds: Vec<usize> = (0..=source.len()).filter(|&i| source.is_char_boundary(i)).collect();
            bounds.dedup();
            let (a, b) = (bounds[cut.0 % bounds.len()], bounds[cut.1 % bounds.len()]);
            let range = a.min(b)..a.max(b);
            let splice = minimal(&source, range.clone(), &text, 0);
            let want = format!("{}{text}{}", &source[..range.start], &source[range.end..]);
            let got = crate::plan::splice::apply(source.as_bytes(), std::slice::from_ref(&splice));
            proptest::prop_assert_eq!(got, want.into_bytes());
            proptest::prop_assert!(splice.range.start >= range.start && splice.range.end <= range.end);
        }

        #[test]
        fn placed_code_has_the_target_indent_and_line_ending(
            lines in proptest::collection::vec("( {0,8}|\t{0,2})[a-z]{1,4}", 1..6),
            crlf in proptest::bool::ANY,
        ) {
            let style = Style { eol: if crlf { "\r\n" } else { "\n" }, unit: "\t".into() };
            let placed = place(&lines.join("\n"), "\t", &style, true, Lang::Php);
            for line in placed.split(style.eol) {
                proptest::prop_assert!(line.starts_with('\t') && !line.contains('\n'), "{line:?}");
            }
            proptest::prop_assert_eq!(placed.split(style.eol).count(), lines.len());
        }
    }

    #[test]
    fn minimal_keeps_common_ends() {
        let s = minimal("{ return 1; }", 0..13, "{ return 2; }", 3);
        assert_eq!((s.range, s.text.as_str(), s.op), (9..10, "2", 3));
        let same = minimal("abc", 0..3, "abc", 0);
        assert_eq!((same.range, same.text.as_str()), (3..3, ""));
        let utf = minimal("é", 0..2, "è", 0);
        assert_eq!(utf.range, 0..2);
    }
}
