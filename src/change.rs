//! What the engine decided to do to one file, proven against the bytes it read: the pre-image,
//! the post-image and a report of every edit. The engine hands these to its caller so that a
//! ledger can record them without reading a file again.

use std::borrow::Cow;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use crate::plan::Digest;
use crate::workspace::path::TargetPath;
use crate::workspace::snapshot::Snapshot;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Modified,
    Created,
    Deleted,
    /// Every edit of the file left its bytes as they were: nothing to write.
    Unchanged,
}

/// Lines an edit touched: `old` in the file as read, `new` in the result (1-based, inclusive;
/// when the new text is empty, `new_end` is `new_start - 1`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LineSpan {
    pub old_start: usize,
    pub old_end: usize,
    pub new_start: usize,
    pub new_end: usize,
}

/// What one plan operation did to its file.
#[derive(Clone, Debug)]
pub struct EditReport {
    /// Index of the operation in the plan.
    pub op: usize,
    /// JSON Pointer of the operation in its input (`/edits/0`).
    pub pointer: String,
    /// The line of the input where a block or hunk starts (text dialects).
    pub input_line: Option<usize>,
    pub matched_by: &'static str,
    pub spans: Vec<LineSpan>,
    /// Matches of a scoped regex.
    pub regex_replacements: Option<usize>,
    /// Stale line anchors remapped with `--auto-repair`: (from, to).
    pub repaired: Vec<(usize, usize)>,
    /// The qualified name of the structure a structure target resolved to.
    pub target: Option<String>,
    /// Byte ranges of the operation's splices: in the file as read, and where the new text
    /// landed in the result.
    pub byte_ranges: Vec<(Range<usize>, Range<usize>)>,
    /// The structure a structure target resolved to.
    pub node: Option<Box<NodeFacts>>,
    /// The file changed elsewhere after the edit was read and the edit's region was found
    /// again, unchanged, in the current bytes.
    pub rebased: Option<Rebased>,
}

/// Where a rebased edit's region was (lines in the file as first read) and is (lines in the
/// file it was applied to): 1-based, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rebased {
    pub from: (usize, usize),
    pub to: (usize, usize),
}

impl Rebased {
    pub fn json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// `{"from": {"start_line", "end_line"}, "to": {…}}`, as reports and receipts print it.
impl serde::Serialize for Rebased {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        struct Lines {
            start_line: usize,
            end_line: usize,
        }
        #[derive(serde::Serialize)]
        struct Shape {
            from: Lines,
            to: Lines,
        }
        let lines = |(start_line, end_line)| Lines {
            start_line,
            end_line,
        };
        let shape = Shape {
            from: lines(self.from),
            to: lines(self.to),
        };
        shape.serialize(serializer)
    }
}

/// What a structure target resolved to, as `read` would show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeFacts {
    pub kind: String,
    pub identity: String,
    pub hash: String,
    pub span: Range<usize>,
}

/// One file's validated change.
#[derive(Clone, Debug)]
pub struct FileChange {
    pub path: TargetPath,
    pub action: Action,
    /// The file as read (absent for a created file).
    pub before: Option<Snapshot>,
    /// The bytes to publish (absent for a deleted file): read them through
    /// [`FileChange::after_bytes`].
    pub after: Option<PostImage>,
    /// sha256 of `after` (of `before` when unchanged; absent when deleted).
    pub after_digest: Option<Digest>,
    pub edits: Vec<EditReport>,
    /// Every replaced byte range: in the file as read, and where its new text landed.
    pub ranges: Vec<(Range<usize>, Range<usize>)>,
    /// Directories a created file needs, outermost first.
    pub new_dirs: Vec<PathBuf>,
    /// Permissions of a file that has no pre-image (a moved file keeps its source's).
    pub new_permissions: Option<std::fs::Permissions>,
    /// What the syntax gate observed (absent for deleted and unchanged files).
    pub syntax: Option<Box<crate::lang::gate::Checked>>,
    /// The other end of a move: the source (on the destination's change) or the destination
    /// (on the source's), root-relative.
    pub moved: Option<Moved>,
}

/// One side of a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Moved {
    From(String),
    To(String),
}

impl FileChange {
    pub fn digest_before(&self) -> Option<Digest> {
        self.before.as_ref().map(|s| s.digest)
    }

    pub fn digest_after(&self) -> Option<Digest> {
        self.after_digest
    }

    /// The bytes to publish (absent for a deleted file), rebuilt from the pre-image when only
    /// the new text of the changed ranges is held.
    pub fn after_bytes(&self) -> Option<Cow<'_, [u8]>> {
        match self.after.as_ref()? {
            PostImage::Whole(bytes) => Some(Cow::Borrowed(bytes.as_slice())),
            PostImage::Spliced(_) => {
                let before = self.before_bytes();
                Some(Cow::Owned(self.after_segments(&before)?.concat()))
            }
        }
    }

    /// [`FileChange::after_bytes`] on the pre-image's bytes `before`, rebuilt into `buffer`
    /// when held as pieces: a reader of many files reuses one buffer.
    pub fn after_into<'a>(&'a self, before: &[u8], buffer: &'a mut Vec<u8>) -> Option<&'a [u8]> {
        match self.after.as_ref()? {
            PostImage::Whole(bytes) => Some(bytes.as_slice()),
            PostImage::Spliced(_) => {
                buffer.clear();
                for segment in self.after_segments(before)? {
                    buffer.extend_from_slice(segment);
                }
                Some(buffer.as_slice())
            }
        }
    }

    /// [`FileChange::before_bytes`], unpacked into `buffer` when held compressed: a reader of
    /// many files reuses one buffer.
    pub fn before_into<'a>(&'a self, buffer: &'a mut Vec<u8>) -> &'a [u8] {
        self.before
            .as_ref()
            .map_or(&[][..], |b| b.bytes.get_into(buffer))
    }

    /// The pre-image's bytes (none for a created file), unpacked when held compressed.
    pub fn before_bytes(&self) -> Cow<'_, [u8]> {
        self.before
            .as_ref()
            .map_or(Cow::Borrowed(&[][..]), |b| b.bytes.get())
    }

    /// The bytes to publish (absent for a deleted file) as the stretches that make them up, in
    /// order: the whole post-image, or the unchanged stretches of `before` (the pre-image's
    /// bytes, from [`FileChange::before_bytes`]) around the new text of each changed range. A
    /// writer takes them as they are; nothing is rebuilt.
    pub fn after_segments<'a>(&'a self, before: &'a [u8]) -> Option<Vec<&'a [u8]>> {
        match self.after.as_ref()? {
            PostImage::Whole(bytes) => Some(vec![bytes.as_slice()]),
            PostImage::Spliced(pieces) => Some(segments(before, &self.ranges, pieces)),
        }
    }

    /// [`FileChange::after_bytes`], shared when held whole.
    pub fn after_arc(&self) -> Option<Arc<Vec<u8>>> {
        match self.after.as_ref()? {
            PostImage::Whole(bytes) => Some(bytes.clone()),
            PostImage::Spliced(_) => self.after_bytes().map(|b| Arc::new(b.into_owned())),
        }
    }

    /// How many bytes [`FileChange::after_bytes`] holds, without rebuilding them.
    pub fn after_len(&self) -> Option<usize> {
        match self.after.as_ref()? {
            PostImage::Whole(bytes) => Some(bytes.len()),
            PostImage::Spliced(pieces) => {
                let before = self.before.as_ref().map_or(0, |b| b.bytes.len());
                let replaced: usize = self.ranges.iter().map(|(old, _)| old.len()).sum();
                Some(before - replaced + pieces.len())
            }
        }
    }

    /// Keeps only the new text of the changed ranges of a modified file's post-image (the rest
    /// is the pre-image's), when that is provably all it differs by, and the pre-image
    /// compressed. A plan of many files would otherwise hold every file twice, at full size,
    /// until it is published.
    pub fn shrink(&mut self) {
        let Some(before) = &mut self.before else {
            return;
        };
        if let Some(PostImage::Whole(after)) = &self.after {
            let Some(pieces) = pieces(&before.bytes.get(), after, &self.ranges) else {
                return;
            };
            self.after = Some(PostImage::Spliced(Arc::new(pieces)));
        }
        before.bytes.pack();
    }

    /// This change with its lasting data (images, reports, paths) allocated anew by the
    /// calling thread; what the syntax gate observed is moved, not copied (mostly the
    /// declarations read for the API guard, let go right after the guard: copying them too
    /// made W4 7 % slower). A plan of many files is prepared on worker threads, each
    /// allocating from its own glibc arena, where a file's lasting data lands between the
    /// pages its parses used and freed: kept there, a few bytes of it pin each page, and the
    /// arenas stay as large as the parses ever made them. Moved out as each file is done, it
    /// is packed together in the calling thread's arena, and the workers reuse their pages.
    pub fn relocated(&mut self) -> Self {
        let mut gate = self.syntax.take();
        let mut copy = self.clone();
        if let Some(before) = &mut copy.before {
            before.bytes = before.bytes.deep_copy();
            before.marks = before.marks.deep_copy();
        }
        copy.after = self.after.as_ref().map(PostImage::deep_copy);
        copy.syntax = (gate.as_mut()).map(|checked| Box::new(std::mem::take(&mut **checked)));
        // The emptied box stays with the original, for the thread that made it to free.
        self.syntax = gate;
        copy
    }

    /// Empties the pre-image and the post-image, once everything that reads them (the
    /// ledger, a diff) is done: the digests, the spans and the edit reports stay.
    pub fn drop_images(&mut self) {
        if let Some(before) = &mut self.before {
            before.bytes = Default::default();
        }
        if self.after.is_some() {
            self.after = Some(PostImage::Whole(Arc::default()));
        }
    }
}

/// A post-image as held in memory.
#[derive(Clone, Debug)]
pub enum PostImage {
    /// Every byte.
    Whole(Arc<Vec<u8>>),
    /// Only the new text of the change's `ranges`, one after the other; every other byte is
    /// the pre-image's.
    Spliced(Arc<Vec<u8>>),
}

impl PostImage {
    /// A copy whose bytes are allocated anew, by the calling thread.
    fn deep_copy(&self) -> Self {
        match self {
            Self::Whole(bytes) => Self::Whole(Arc::new(bytes.to_vec())),
            Self::Spliced(pieces) => Self::Spliced(Arc::new(pieces.to_vec())),
        }
    }
}

/// The new text of every range of `after`, when `after` is `before` with exactly those ranges
/// replaced (ranges in order, not overlapping); `None` otherwise.
fn pieces(before: &[u8], after: &[u8], ranges: &[(Range<usize>, Range<usize>)]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let (mut old_at, mut new_at) = (0, 0);
    for (old, new) in ranges {
        let kept = old.start.checked_sub(old_at)?;
        if new.start.checked_sub(new_at)? != kept
            || before.get(old_at..old.start)? != after.get(new_at..new.start)?
        {
            return None;
        }
        out.extend_from_slice(after.get(new.clone())?);
        (old_at, new_at) = (old.end, new.end);
    }
    (before.get(old_at..)? == after.get(new_at..)?).then_some(out)
}

/// The stretches that make up `before` with every range of `ranges` replaced by its new text
/// (taken in order from `pieces`; the inverse of [`pieces`]): each unchanged stretch, then the
/// next range's new text, and the unchanged tail.
fn segments<'a>(
    before: &'a [u8],
    ranges: &[(Range<usize>, Range<usize>)],
    pieces: &'a [u8],
) -> Vec<&'a [u8]> {
    let mut out = Vec::with_capacity(2 * ranges.len() + 1);
    let (mut old_at, mut taken) = (0, 0);
    for (old, new) in ranges {
        out.push(&before[old_at..old.start]);
        out.push(&pieces[taken..taken + new.len()]);
        (old_at, taken) = (old.end, taken + new.len());
    }
    out.push(&before[old_at..]);
    out
}

#[cfg(test)]
fn rebuild(before: &[u8], ranges: &[(Range<usize>, Range<usize>)], pieces: &[u8]) -> Vec<u8> {
    segments(before, ranges, pieces).concat()
}

#[cfg(test)]
mod tests {
    use super::{pieces, rebuild};
    use crate::plan::splice::{Splice, apply, changed_ranges};
    use proptest::prelude::*;

    proptest! {
        /// The new text of the changed ranges, with the pre-image, gives back the post-image.
        #[test]
        fn the_pieces_rebuild_the_post_image(
            text in "[ab\n]{0,24}",
            raw in prop::collection::vec((0usize..6, 0usize..4, "[ab\n]{0,4}"), 0..5),
        ) {
            let mut splices = Vec::new();
            let mut at = 0;
            for (op, (skip, len, new)) in raw.into_iter().enumerate() {
                let start = (at + skip).min(text.len());
                let end = (start + len).min(text.len());
                splices.push(Splice { range: start..end, text: new, op });
                at = end + 1;
            }
            let after = apply(text.as_bytes(), &splices);
            let ranges = changed_ranges(text.as_bytes(), &splices);
            let kept = pieces(text.as_bytes(), &after, &ranges).expect("the ranges are all that changed");
            prop_assert!(kept.len() <= after.len());
            prop_assert_eq!(rebuild(text.as_bytes(), &ranges, &kept), after);
        }

        /// Ranges that do not say everything that changed keep nothing (the image stays whole).
        #[test]
        fn ranges_that_miss_a_change_are_refused(
            before in "[ab]{0,12}",
            after in "[ab]{0,12}",
            old in (0usize..13, 0usize..13),
            new in (0usize..13, 0usize..13),
        ) {
            let ranges = [(old.0.min(old.1)..old.0.max(old.1), new.0.min(new.1)..new.0.max(new.1))];
            if let Some(kept) = pieces(before.as_bytes(), after.as_bytes(), &ranges) {
                prop_assert_eq!(rebuild(before.as_bytes(), &ranges, &kept), after.as_bytes());
            }
        }
    }
}
