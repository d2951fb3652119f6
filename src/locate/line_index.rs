//! Lines of a large text found where they are needed, not split all at once: one counting
//! pass notes how many lines start before each 1 KiB block of the text, and a line or a line
//! number is then found by scanning one block. A block found once in a 9 MB file splits the
//! few lines it is compared with, where the whole file is 200,000 lines (about 10 ms and 5 MB
//! of line table). Texts with a `\r` (which may end a line alone) are split whole instead,
//! and so is a text a search finds many candidate lines in (`FileText::keyed`).

use crate::locate::lines::Line;

/// Bytes per counted block.
const BLOCK: usize = 1024;

/// Where the lines of a `\r`-free text start, block by block.
pub struct LineIndex {
    /// Line breaks before each block (block `k` starts at byte `k * BLOCK`).
    before: Vec<usize>,
    /// Lines in the text: one per `\n`, and an unterminated last one.
    count: usize,
    /// Where the first line's content starts (after a byte order mark).
    first_start: usize,
}

impl LineIndex {
    /// The index of `text`; `None` when it holds a `\r`.
    pub fn new(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        if memchr::memchr(b'\r', bytes).is_some() {
            return None;
        }
        let mut before = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let mut breaks = 0;
        for block in bytes.chunks(BLOCK) {
            before.push(breaks);
            breaks += bytecount::count(block, b'\n');
        }
        let open_last = bytes.last().is_some_and(|&b| b != b'\n');
        let bom = '\u{feff}'.len_utf8();
        Some(Self {
            before,
            count: breaks + usize::from(open_last),
            first_start: if text.starts_with('\u{feff}') { bom } else { 0 },
        })
    }

    pub fn count(&self) -> usize {
        self.count
    }

    /// How many lines end at or before `offset` (the index of the line holding that byte).
    pub fn line_at(&self, bytes: &[u8], offset: usize) -> usize {
        let offset = offset.min(bytes.len());
        let Some(&counted) = self.before.get(offset / BLOCK) else {
            return self.count;
        };
        let from = offset / BLOCK * BLOCK;
        let breaks = counted + bytecount::count(&bytes[from..offset], b'\n');
        let open_last_ends_here = offset == bytes.len() && breaks < self.count;
        breaks + usize::from(open_last_ends_here)
    }

    /// [`LineIndex::line_at`] of `offset`, counted on from `known` (an earlier offset and its
    /// line) when that is less than a block back: ascending offsets (a search's hits) cost
    /// one pass over the bytes between them, however many there are.
    pub fn line_at_from(
        &self,
        bytes: &[u8],
        known: Option<(usize, usize)>,
        offset: usize,
    ) -> usize {
        match known {
            Some((at, line)) if at <= offset && offset - at <= BLOCK && offset < bytes.len() => {
                line + bytecount::count(&bytes[at..offset], b'\n')
            }
            _ => self.line_at(bytes, offset),
        }
    }

    /// Line `i`, as [`crate::locate::lines::content_lines`] has it.
    pub fn line(&self, bytes: &[u8], i: usize) -> Option<Line> {
        if i >= self.count {
            return None;
        }
        let start = match i {
            0 => self.first_start,
            _ => self.nth_break(bytes, i - 1) + 1,
        };
        Some(line_from(bytes, start))
    }

    /// Lines `first..first + len` (fewer where the text ends).
    pub fn window(&self, bytes: &[u8], first: usize, len: usize) -> Vec<Line> {
        let mut out = Vec::with_capacity(len);
        let mut next = self.line(bytes, first);
        while let Some(line) = next.filter(|_| out.len() < len) {
            out.push(line);
            next = (line.end < bytes.len()).then(|| line_from(bytes, line.end));
        }
        out
    }

    /// The offset of the `n`-th `\n` (0-based); `n` is below the number of breaks.
    fn nth_break(&self, bytes: &[u8], n: usize) -> usize {
        let block = self.before.partition_point(|&b| b <= n) - 1;
        let from = block * BLOCK;
        let skip = n - self.before[block];
        let found = memchr::memchr_iter(b'\n', &bytes[from..]).nth(skip);
        from + found.unwrap_or(bytes.len() - from)
    }
}

/// The line starting at `start`: up to and with the next `\n`, or to the end.
fn line_from(bytes: &[u8], start: usize) -> Line {
    match memchr::memchr(b'\n', &bytes[start..]) {
        Some(at) => Line {
            start,
            content_end: start + at,
            end: start + at + 1,
        },
        None => Line {
            start,
            content_end: bytes.len(),
            end: bytes.len(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::{BLOCK, LineIndex};
    use crate::locate::lines::content_lines;

    proptest::proptest! {
        /// Every line, window and line number the index gives is the split's.
        #[test]
        fn the_index_agrees_with_splitting_the_text(
            parts in proptest::collection::vec("(\u{feff})?[a é]{0,9}\n?", 0..40),
            long in 0usize..4,
        ) {
            let mut text = parts.concat();
            if long > 0 {
                // Lines across block boundaries.
                text = text.repeat(1 + long * 4 * BLOCK / text.len().max(1));
            }
            let index = LineIndex::new(&text).expect("no \\r");
            let lines = content_lines(&text);
            let bytes = text.as_bytes();
            proptest::prop_assert_eq!(index.count(), lines.len());
            let step = 1 + lines.len() / 64;
            for i in (0..lines.len() + 2).step_by(step) {
                proptest::prop_assert_eq!(index.line(bytes, i), lines.get(i).copied());
                let upto = (i + 3).min(lines.len());
                let want = lines.get(i..upto).unwrap_or_default();
                proptest::prop_assert_eq!(index.window(bytes, i, 3), want.to_vec());
            }
            let mut known = None;
            for at in (0..=bytes.len()).step_by(1 + bytes.len() / 97) {
                let want = lines.partition_point(|l| l.end <= at);
                proptest::prop_assert_eq!(index.line_at(bytes, at), want, "at {}", at);
                let counted = index.line_at_from(bytes, known, at);
                proptest::prop_assert_eq!(counted, want, "at {} from {:?}", at, known);
                known = Some((at, want));
            }
        }
    }

    #[test]
    fn a_text_with_a_carriage_return_is_split_whole() {
        assert!(LineIndex::new("a\r\nb").is_none());
        assert!(LineIndex::new("a\nb").is_some());
    }
}
