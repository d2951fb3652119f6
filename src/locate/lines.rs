//! Line facts about a file's text: its line-ending style and the line number of a byte offset.

use std::ops::Range;

/// The line-ending style of a text, judged from every line break in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endings {
    /// No line break at all.
    None,
    Lf,
    Crlf,
    /// Both `\n` and `\r\n` occur: never converted.
    Mixed,
}

impl Endings {
    pub fn of(text: &str) -> Self {
        let bytes = text.as_bytes();
        // Most files hold no `\r` at all: one SIMD scan, not a step per line.
        if memchr::memchr(b'\r', bytes).is_none() {
            return match memchr::memchr(b'\n', bytes) {
                Some(_) => Endings::Lf,
                None => Endings::None,
            };
        }
        let (mut lf, mut crlf) = (0usize, 0usize);
        for i in memchr::memchr_iter(b'\n', bytes) {
            if i > 0 && bytes[i - 1] == b'\r' {
                crlf += 1
            } else {
                lf += 1
            }
            if lf > 0 && crlf > 0 {
                return Endings::Mixed;
            }
        }
        match (lf, crlf) {
            (0, 0) => Endings::None,
            (_, 0) => Endings::Lf,
            _ => Endings::Crlf,
        }
    }

    /// Rewrites the line breaks of `text` in this style; `None` and `Mixed` leave it as is.
    pub fn convert(self, text: &str) -> String {
        match self {
            Endings::Crlf if has_bare_lf(text) => text.replace("\r\n", "\n").replace('\n', "\r\n"),
            Endings::Lf if text.contains("\r\n") => text.replace("\r\n", "\n"),
            _ => text.to_owned(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Endings::None => "none",
            Endings::Lf => "lf",
            Endings::Crlf => "crlf",
            Endings::Mixed => "mixed",
        }
    }
}

/// Whether `text` has a `\n` not preceded by `\r`.
pub fn has_bare_lf(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes
        .iter()
        .enumerate()
        .any(|(i, &b)| b == b'\n' && (i == 0 || bytes[i - 1] != b'\r'))
}

/// Counts lines forward through a text: 1-based line numbers of non-decreasing offsets.
pub struct LineCounter<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            pos: 0,
            line: 1,
        }
    }

    /// Line of `offset`; offsets must not decrease between calls.
    pub fn line_at(&mut self, offset: usize) -> usize {
        let end = offset.min(self.bytes.len());
        if end > self.pos {
            self.line += newlines(&self.bytes[self.pos..end]);
            self.pos = end;
        }
        self.line
    }

    /// Line of the last byte of a non-empty range ending at `end` (exclusive).
    pub fn last_line_of(&mut self, start: usize, end: usize) -> usize {
        self.line_at(if end > start { end - 1 } else { start })
    }
}

/// The number of `\n` in `bytes` (SIMD).
pub fn newlines(bytes: &[u8]) -> usize {
    bytecount::count(bytes, b'\n')
}

/// Line numbers of both versions of a text around its splices (given in ascending order,
/// disjoint). The bytes between splices are the same in both versions, so only the old one is
/// counted up to each splice; the new one's lines are shifted by what earlier splices added.
pub struct SpliceLines<'a> {
    old: LineCounter<'a>,
    old_bytes: &'a [u8],
    new_bytes: &'a [u8],
    shift: isize,
}

/// Where one splice lies on both sides: first and last line (`last < first` for an empty side,
/// which then sits between `last` and `first`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpliceSpan {
    pub old_start: usize,
    pub old_end: usize,
    pub new_start: usize,
    pub new_end: usize,
}

impl<'a> SpliceLines<'a> {
    pub fn new(old: &'a [u8], new: &'a [u8]) -> Self {
        Self {
            old: LineCounter::new(old),
            old_bytes: old,
            new_bytes: new,
            shift: 0,
        }
    }

    /// The lines of the splice that replaced `old` by `new` (byte ranges of each version);
    /// call in ascending order. An empty old range ends on its start line, an empty new range
    /// on the line before.
    pub fn span(&mut self, old: &Range<usize>, new: &Range<usize>) -> SpliceSpan {
        let old_start = self.old.line_at(old.start);
        let old_end = self.old.last_line_of(old.start, old.end);
        let new_start = old_start.saturating_add_signed(self.shift);
        let new_end = if new.is_empty() {
            new_start.saturating_sub(1)
        } else {
            new_start + newlines(&self.new_bytes[new.start..new.end - 1])
        };
        let added = newlines(&self.new_bytes[new.clone()]) as isize;
        self.shift += added - newlines(&self.old_bytes[old.clone()]) as isize;
        SpliceSpan {
            old_start,
            old_end,
            new_start,
            new_end,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judges_endings_and_converts() {
        assert_eq!(Endings::of("a"), Endings::None);
        assert_eq!(Endings::of("a\nb\n"), Endings::Lf);
        assert_eq!(Endings::of("a\r\nb\r\n"), Endings::Crlf);
        assert_eq!(Endings::of("a\r\nb\n"), Endings::Mixed);
        assert_eq!(Endings::of("a\rb"), Endings::None);
        assert_eq!(Endings::of("a\rb\n"), Endings::Lf);
        assert_eq!(Endings::Crlf.convert("x\ny\r\nz"), "x\r\ny\r\nz");
        assert_eq!(Endings::Lf.convert("x\r\ny"), "x\ny");
        assert_eq!(Endings::Mixed.convert("x\ny"), "x\ny");
    }

    #[test]
    fn counts_lines() {
        let mut c = LineCounter::new(b"a\nb\nc");
        assert_eq!(c.line_at(0), 1);
        assert_eq!(c.line_at(2), 2);
        assert_eq!(c.last_line_of(2, 4), 2);
        assert_eq!(c.line_at(4), 3);
    }

    /// Splice spans equal what counting both versions from the start gives.
    #[test]
    fn splice_lines_match_counting_both_versions() {
        let old = b"a\nb\nc\nd\ne\n";
        // Replace "b\n" by "x\ny\nz\n", delete "d\n", insert "w\n" before "e".
        let new = b"a\nx\ny\nz\nc\nw\ne\n";
        let splices = [(2..4, 2..8), (6..8, 10..10), (8..8, 10..12)];
        let mut lines = SpliceLines::new(old, new);
        let (mut o, mut n) = (LineCounter::new(old), LineCounter::new(new));
        for (old_r, new_r) in &splices {
            let got = lines.span(old_r, new_r);
            let new_start = n.line_at(new_r.start);
            let want = SpliceSpan {
                old_start: o.line_at(old_r.start),
                old_end: o.last_line_of(old_r.start, old_r.end),
                new_start,
                new_end: if new_r.is_empty() {
                    new_start - 1
                } else {
                    n.last_line_of(new_r.start, new_r.end)
                },
            };
            assert_eq!(got, want, "{old_r:?} -> {new_r:?}");
        }
    }
}

/// One line of a text: its content and its terminator (`\n`, `\r\n`, a lone `\r`, or none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    pub start: usize,
    /// End of the content (start of the terminator).
    pub content_end: usize,
    /// End of the terminator.
    pub end: usize,
}

/// Splits a text into lines; `\n`, `\r\n` and a lone `\r` all end a line. A final line
/// without terminator is a line; an empty text has no lines.
pub fn split(text: &str) -> Vec<Line> {
    let bytes = text.as_bytes();
    let mut lines = Vec::with_capacity(bytes.len() / 32);
    let mut start = 0;
    for at in memchr::memchr2_iter(b'\n', b'\r', bytes) {
        if at < start {
            // The `\n` of a `\r\n` already taken.
            continue;
        }
        let crlf = bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n');
        let end = at + 1 + usize::from(crlf);
        lines.push(Line {
            start,
            content_end: at,
            end,
        });
        start = end;
    }
    if start < bytes.len() {
        lines.push(Line {
            start,
            content_end: bytes.len(),
            end: bytes.len(),
        });
    }
    lines
}

/// The first line terminator of a text, `\n` when it has none.
pub fn dominant_terminator(text: &str) -> &str {
    let bytes = text.as_bytes();
    match memchr::memchr2(b'\n', b'\r', bytes) {
        Some(at) if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') => "\r\n",
        Some(at) if bytes[at] == b'\r' => "\r",
        _ => "\n",
    }
}

/// The lines of a file's text, the first one starting after a byte order mark.
pub fn content_lines(text: &str) -> Vec<Line> {
    let mut lines = split(text);
    if let Some(first) = lines.first_mut()
        && text.starts_with('\u{feff}')
    {
        first.start = '\u{feff}'.len_utf8();
    }
    lines
}

#[cfg(test)]
mod split_tests {
    use super::*;

    #[test]
    fn every_terminator_ends_a_line() {
        let text = "a\nb\r\nc\rd";
        let parts: Vec<(&str, &str)> = split(text)
            .iter()
            .map(|l| (&text[l.start..l.content_end], &text[l.content_end..l.end]))
            .collect();
        assert_eq!(parts, [("a", "\n"), ("b", "\r\n"), ("c", "\r"), ("d", "")]);
        assert!(split("").is_empty());
        assert_eq!(dominant_terminator("x\r\ny\n"), "\r\n");
        assert_eq!(dominant_terminator("x\ny\r\n"), "\n");
        assert_eq!(dominant_terminator("x\ry\n"), "\r");
        assert_eq!(dominant_terminator("xy"), "\n");
        let parts: Vec<(usize, usize, usize)> = split("\r\r\n\n\r")
            .iter()
            .map(|l| (l.start, l.content_end, l.end))
            .collect();
        assert_eq!(parts, [(0, 0, 1), (1, 1, 3), (3, 3, 4), (4, 4, 5)]);
    }

    proptest::proptest! {
        /// The lines tile the text, and each ends at its first terminator.
        #[test]
        fn lines_tile_the_text(text in "[ab\r\n]{0,40}") {
            let lines = split(&text);
            let mut at = 0;
            for l in &lines {
                proptest::prop_assert_eq!(l.start, at);
                let content = &text[l.start..l.content_end];
                proptest::prop_assert!(!content.contains(['\r', '\n']));
                let end = &text[l.content_end..l.end];
                let expected = if text[l.content_end..].starts_with("\r\n") {
                    "\r\n"
                } else {
                    &text[l.content_end..(l.content_end + 1).min(text.len())]
                };
                proptest::prop_assert_eq!(end, expected);
                at = l.end;
            }
            proptest::prop_assert_eq!(at, text.len());
        }
    }
}
