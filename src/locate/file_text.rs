//! A file's text as the edits of one command read it: its lines, line numbers and the
//! ladder's line keys, each computed once on first use and shared by every edit of the file.

use std::borrow::Cow;

use crate::locate::line_index::LineIndex;
use crate::locate::lines::{Endings, Line, content_lines};

/// Above one candidate line in this many, a search splits the whole file into lines: a
/// line found through the index costs about as much as splitting 8 to 16 lines.
const SPLIT_FROM: usize = 16;

/// A file's text and the line facts its edits need (a plan of many blocks reads the file's
/// lines once, not per block). Lines are found through a [`LineIndex`] until something needs
/// all of them at once.
pub struct FileText<'a> {
    pub text: &'a str,
    pub endings: std::cell::OnceCell<Endings>,
    lines: std::cell::OnceCell<Vec<Line>>,
    index: std::cell::OnceCell<Option<LineIndex>>,
    keys: std::cell::OnceCell<Vec<Cow<'a, str>>>,
    /// The lines holding a non-ASCII character (found once, for every [`FileText::keyed`]).
    non_ascii: std::cell::OnceCell<Vec<usize>>,
}

impl<'a> FileText<'a> {
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            endings: std::cell::OnceCell::new(),
            lines: std::cell::OnceCell::new(),
            index: std::cell::OnceCell::new(),
            keys: std::cell::OnceCell::new(),
            non_ascii: std::cell::OnceCell::new(),
        }
    }

    /// Every line; a byte order mark is no part of the first one (edits match and write
    /// after it).
    pub fn lines(&self) -> &[Line] {
        self.lines.get_or_init(|| content_lines(self.text))
    }

    /// The index to find single lines with, while no full split exists (none for a text with
    /// a `\r`: it is split whole).
    fn index(&self) -> Option<&LineIndex> {
        if self.lines.get().is_some() {
            return None;
        }
        self.index
            .get_or_init(|| LineIndex::new(self.text))
            .as_ref()
    }

    pub fn line_count(&self) -> usize {
        match self.index() {
            Some(index) => index.count(),
            None => self.lines().len(),
        }
    }

    /// Line `i`.
    pub fn line(&self, i: usize) -> Option<Line> {
        match self.index() {
            Some(index) => index.line(self.text.as_bytes(), i),
            None => self.lines().get(i).copied(),
        }
    }

    /// Lines `first..first + len` (fewer where the text ends).
    pub fn window(&self, first: usize, len: usize) -> Cow<'_, [Line]> {
        match self.index() {
            Some(index) => index.window(self.text.as_bytes(), first, len).into(),
            None => {
                let lines = self.lines();
                let first = first.min(lines.len());
                lines[first..(first + len).min(lines.len())].into()
            }
        }
    }

    /// The index of the line holding byte `offset` (how many lines end at or before it),
    /// counted on from `known` (an earlier offset and its line): for ascending offsets, such
    /// as a search's hits.
    fn line_at_from(&self, known: Option<(usize, usize)>, offset: usize) -> usize {
        match self.index() {
            Some(index) => index.line_at_from(self.text.as_bytes(), known, offset),
            None => self.lines().partition_point(|l| l.end <= offset),
        }
    }

    /// The lines whose key (the loosest comparison form, the ladder's prefilter) is `want`.
    /// Unless every line's key is at hand already, an ASCII `want` is first looked for as a
    /// substring: a line whose key it is contains it, or has non-ASCII characters (which its
    /// key normalises); only those lines are keyed. One edit in a large file keys a few lines,
    /// not all of them.
    pub fn keyed(&self, want: &str) -> Vec<usize> {
        let equal = |keys: &[Cow<'a, str>]| {
            let hits = keys.iter().enumerate().filter(|(_, key)| **key == want);
            hits.map(|(i, _)| i).collect()
        };
        if let Some(keys) = self.keys.get() {
            return equal(keys);
        }
        if want.is_empty() || !want.is_ascii() {
            return equal(self.keys());
        }
        let bytes = self.text.as_bytes();
        let mut known = None;
        let mut candidates: Vec<usize> = memchr::memmem::find_iter(bytes, want.as_bytes())
            .map(|at| {
                let line = self.line_at_from(known, at);
                known = Some((at, line));
                line
            })
            .collect();
        let non_ascii = self.non_ascii.get_or_init(|| self.non_ascii_lines());
        candidates.extend(non_ascii);
        candidates.sort_unstable();
        candidates.dedup();
        if candidates.len() > self.line_count() / SPLIT_FROM {
            // A short, common key: finding each line through the index would cost more than
            // splitting the file once (every later lookup then reads the table).
            self.lines();
        }
        candidates.retain(|&i| self.line(i).is_some_and(|l| self.key_of(&l) == want));
        candidates
    }

    /// The lines that hold a byte outside ASCII, found a page at a time.
    fn non_ascii_lines(&self) -> Vec<usize> {
        const PAGE: usize = 4096;
        let bytes = self.text.as_bytes();
        let mut out = Vec::new();
        let mut at = 0;
        let mut known = None;
        while at < bytes.len() {
            let end = (at + PAGE).min(bytes.len());
            // `is_ascii` tests a word at a time; most pages of most files pass.
            let page = &bytes[at..end];
            let Some(off) = (!page.is_ascii())
                .then(|| page.iter().position(|b| !b.is_ascii()))
                .flatten()
            else {
                at = end;
                continue;
            };
            let line = self.line_at_from(known, at + off);
            known = Some((at + off, line));
            out.push(line);
            at = self
                .line(line)
                .map_or(bytes.len(), |l| l.end.max(at + off + 1));
        }
        out
    }

    /// The key of line `i`, from the keys of every line when they are at hand.
    pub fn key_at(&self, i: usize) -> Option<Cow<'a, str>> {
        match self.keys.get() {
            Some(keys) => keys.get(i).cloned(),
            None => self.line(i).map(|l| self.key_of(&l)),
        }
    }

    fn key_of(&self, line: &Line) -> Cow<'a, str> {
        line_key(&self.text[line.start..line.content_end])
    }

    /// The loosest comparison form of every line (the ladder's prefilter).
    pub fn keys(&self) -> &[Cow<'a, str>] {
        self.keys.get_or_init(|| {
            let text = self.text;
            self.lines()
                .iter()
                .map(|l| line_key(&text[l.start..l.content_end]))
                .collect()
        })
    }
}

/// Curly quotes, dashes, non-breaking spaces and ellipses as their ASCII forms.
pub fn punctuation(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{2032}' => '\'',
            '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{2033}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{00a0}' | '\u{2007}' | '\u{202f}' => ' ',
            c => c,
        })
        .collect::<String>()
        .replace('\u{2026}', "...")
}

/// The loosest form of a line: trimmed, punctuation made ASCII.
pub fn line_key(line: &str) -> Cow<'_, str> {
    let t = line.trim();
    if t.is_ascii() {
        Cow::Borrowed(t)
    } else {
        Cow::Owned(punctuation(t).trim().to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::FileText;

    proptest::proptest! {
        /// The lines keyed `want` are the lines whose key is `want`, whether or not every
        /// line's key was computed first.
        #[test]
        fn keyed_lines_are_the_lines_with_that_key(
            text in "\u{feff}?([ a\t“”—x]{0,6}(\n|\r\n)){0,12}[ ax]{0,3}",
            want in "(a|x|a x|\"a\"|x-a)",
        ) {
            let fast = FileText::new(&text).keyed(&want);
            let full = FileText::new(&text);
            let expected: Vec<usize> = full.keys().iter().enumerate()
                .filter(|(_, k)| **k == want).map(|(i, _)| i).collect();
            proptest::prop_assert_eq!(&fast, &expected);
            proptest::prop_assert_eq!(full.keyed(&want), expected);
        }
    }
}
