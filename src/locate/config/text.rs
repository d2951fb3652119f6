//! Line facts the config edits need: line starts and ends, indentation, blank lines, the
//! document's indentation unit, and the removal of whole lines that keeps blank-line groups.

use std::ops::Range;

/// `end` moved back over trailing whitespace (tree-sitter-yaml nodes may end after a newline).
pub fn trimmed_end(src: &str, end: usize) -> usize {
    src[..end].trim_end().len()
}

/// Start of the line holding `pos`.
pub fn line_start(src: &str, pos: usize) -> usize {
    src[..pos].rfind('\n').map_or(0, |i| i + 1)
}

/// End of the content of the line holding `pos` (before `\r\n` / `\n`).
pub fn content_end(src: &str, pos: usize) -> usize {
    let end = src[pos..].find('\n').map_or(src.len(), |i| pos + i);
    // Before the `\r` of a `\r\n`, also when `pos` is just after it (nodes may end there).
    if end > 0 && src.as_bytes()[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// Just after the line break ending the line holding `pos` (or the end of the text).
pub fn next_line(src: &str, pos: usize) -> usize {
    src[pos..].find('\n').map_or(src.len(), |i| pos + i + 1)
}

/// The whitespace that starts the line holding `pos`.
pub fn indent_at(src: &str, pos: usize) -> &str {
    let start = line_start(src, pos);
    let line = &src[start..];
    let len = line
        .find(|c: char| c != ' ' && c != '\t')
        .unwrap_or(line.len());
    &line[..len]
}

/// Column (in bytes) of `pos` on its line, a byte-order mark not counted.
pub fn column(src: &str, pos: usize) -> usize {
    let start = line_start(src, pos);
    let bom = if start == 0 && src.starts_with('\u{feff}') {
        3
    } else {
        0
    };
    pos.saturating_sub(start + bom)
}

/// Only spaces and tabs between the start of the line and `pos`.
pub fn alone_before(src: &str, pos: usize) -> bool {
    src[line_start(src, pos)..pos]
        .chars()
        .all(|c| c == ' ' || c == '\t')
}

/// Only whitespace, or a comment, between `pos` and the end of its line.
pub fn trivia_after(src: &str, pos: usize, comments: &[&str]) -> bool {
    let rest = src[pos..content_end(src, pos)].trim_start();
    rest.is_empty() || comments.iter().any(|c| rest.starts_with(c))
}

fn blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// The line starting at `start` (which must be a line start), without its break.
fn line_at(src: &str, start: usize) -> &str {
    &src[start..content_end(src, start)]
}

/// Whole lines from the line of `from` through the line of `to` (inclusive), as a range to
/// remove. Blank-line groups survive: when the lines sit between two blank lines, one of them
/// goes too; when they close their group (`last` in the container) after a blank line, the
/// blank line before them goes.
pub fn remove_lines(src: &str, from: usize, to: usize, last: bool) -> Range<usize> {
    let to = trimmed_end(src, to).max(from);
    let start = line_start(src, from);
    let mut end = next_line(src, to);
    let blank_before = start > 0 && {
        let prev = line_start(src, start - 1);
        blank(line_at(src, prev))
    };
    let blank_after = end < src.len() && blank(line_at(src, end));
    if blank_before && blank_after {
        end = next_line(src, end);
    } else if blank_before && last && start > 0 {
        return line_start(src, start - 1)..end;
    }
    start..end
}

/// The indentation unit of a document: a tab, or the smallest indentation of a line.
pub fn indent_unit(src: &str) -> String {
    let mut smallest: Option<usize> = None;
    for line in src.lines().take(400) {
        if line.starts_with('\t') {
            return "\t".into();
        }
        let n = line.len() - line.trim_start_matches(' ').len();
        if n > 0 && n < line.len() {
            smallest = Some(smallest.map_or(n, |s| s.min(n)));
        }
    }
    " ".repeat(smallest.unwrap_or(2))
}
