//! The block an anchor line opens, for Codex `@@ def foo` anchors: when a chunk's context
//! matches several places after its anchor, the one place that starts inside the anchor's own
//! block (before the next line indented no deeper than the anchor) is the one meant. That is
//! also the first match after the anchor, the one Codex itself would take. When the anchor line
//! occurs again later, a match inside that later block counts too (so it stays ambiguous).

use crate::locate::lines::Line;

/// Index of the first line after `anchor` that is past its block: a non-blank line indented no
/// deeper than the anchor line, except opening brackets and closing parentheses on their own
/// line (`{` of an Allman-style body, `) {` or `):` ending a wrapped signature); a closing `}`
/// at that depth still belongs to the block.
pub fn end(lines: &[Line], text: &str, anchor: usize) -> usize {
    let content = |i: usize| &text[lines[i].start..lines[i].content_end];
    let indent = |s: &str| s.len() - s.trim_start().len();
    let Some(first) = lines.get(anchor) else {
        return lines.len();
    };
    let depth = indent(&text[first.start..first.content_end]);
    let close = (anchor + 1..lines.len()).find(|&i| {
        let line = content(i);
        let body = line.trim_start();
        !body.is_empty() && indent(line) <= depth && !body.starts_with(['{', '(', ')', ']'])
    });
    match close {
        // A closing brace at the anchor's depth is the block's own last line.
        Some(i) if content(i).trim_start().starts_with('}') => i + 1,
        Some(i) => i,
        None => lines.len(),
    }
}

/// The line ranges of the blocks opened by the anchor line at `anchor` and by every later line
/// that reads the same (trimmed): a chunk inside two of them is still ambiguous.
pub fn blocks(lines: &[Line], text: &str, anchor: usize) -> Vec<std::ops::Range<usize>> {
    let trimmed = |i: usize| text[lines[i].start..lines[i].content_end].trim();
    let Some(_) = lines.get(anchor) else {
        return Vec::new();
    };
    let want = trimmed(anchor);
    (anchor..lines.len())
        .filter(|&i| trimmed(i) == want)
        .map(|i| i + 1..end(lines, text, i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::end;
    use crate::locate::lines::split;

    fn close(text: &str, anchor: usize) -> usize {
        end(&split(text), text, anchor)
    }

    #[test]
    fn a_python_method_ends_at_the_next_method() {
        let text = "class A:\n    def f(self):\n        x = 1\n\n        y = 2\n\n    def g(self):\n        x = 1\n";
        assert_eq!(close(text, 1), 6);
        assert_eq!(close(text, 0), 8);
    }

    #[test]
    fn an_allman_brace_body_ends_at_its_closing_brace() {
        let text = "    public function f(\n        int $a,\n    ): int\n    {\n        return $a;\n    }\n    public function g()\n";
        assert_eq!(close(text, 0), 6);
    }
}
