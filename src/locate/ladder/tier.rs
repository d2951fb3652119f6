//! The tiers of the ladder and the search for every window of a file that a block side
//! matches at any of them.
//!
//! Each tier is looser than the one before, so a window is found once, at the strictest tier
//! it passes. The loosest comparison of a line (indentation, trailing whitespace and Unicode
//! punctuation ignored) is its *key*; only windows whose first non-blank line has the right
//! key are compared line by line, and those lines are found without splitting or keying the
//! whole file (`FileText::keyed`): the cost is a few passes of a SIMD search over the file,
//! plus the candidates.
//!
//! Past the ladder, a last resort (`find_rescaled`): the block's indentation drawn at another
//! scale than the file's (4 spaces a level where the file has 2), every line's content equal.

use std::borrow::Cow;

use crate::locate::file_text::{FileText, line_key, punctuation};
use crate::locate::lines::Line;

/// Tab width used when indentation is compared by width.
pub const TAB: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    Exact,
    LineEndings,
    TrailingWhitespace,
    Indentation,
    Punctuation,
    /// Indentation at another scale (`find_rescaled`), punctuation made ASCII.
    Rescaled,
}

impl Tier {
    pub fn name(self) -> &'static str {
        match self {
            Tier::Exact => "exact",
            Tier::LineEndings => "line_endings",
            Tier::TrailingWhitespace => "trailing_whitespace",
            Tier::Indentation => "indentation",
            Tier::Punctuation => "unicode_punctuation",
            Tier::Rescaled => "indentation_rescaled",
        }
    }

    /// Whether changed lines are re-indented as the match maps them, in the file's style.
    pub fn restyles(self) -> bool {
        matches!(self, Tier::Indentation | Tier::Punctuation | Tier::Rescaled)
    }

    /// Whether lines compare with curly quotes, dashes and the like made ASCII.
    pub fn normalizes_punctuation(self) -> bool {
        matches!(self, Tier::Punctuation | Tier::Rescaled)
    }

    /// The text two lines of one block must share to count as the same line at this tier
    /// (relative indentation always counts: it is what the author wrote).
    pub fn line_key(self, line: &str) -> String {
        let (indent, rest) = split_indent(line);
        match self {
            Tier::Exact | Tier::LineEndings => line.to_owned(),
            Tier::TrailingWhitespace => line.trim_end().to_owned(),
            Tier::Indentation => format!("{}\0{}", indent_width(indent), rest.trim_end()),
            Tier::Punctuation | Tier::Rescaled => {
                format!("{}\0{}", indent_width(indent), punctuation(rest.trim_end()))
            }
        }
    }
}

/// One line of a block side: its content and its terminator (empty on an open last line).
#[derive(Clone, Copy, Debug)]
pub struct SideLine<'a> {
    pub text: &'a str,
    pub term: &'a str,
}

impl SideLine<'_> {
    pub fn blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

/// The lines of a block side (a final terminator does not start another line; a byte order
/// mark is no part of the first).
pub fn side_lines(text: &str) -> Vec<SideLine<'_>> {
    crate::locate::lines::content_lines(text)
        .iter()
        .map(|l| SideLine {
            text: &text[l.start..l.content_end],
            term: &text[l.content_end..l.end],
        })
        .collect()
}

/// Whether `a` and `b` are the same with punctuation made ASCII. Every character
/// [`punctuation`] changes is outside ASCII, so two ASCII lines (nearly every line of code)
/// compare as they are, without building either normal form.
pub fn same_punctuated(a: &str, b: &str) -> bool {
    match a.is_ascii() && b.is_ascii() {
        true => a == b,
        false => punctuation(a) == punctuation(b),
    }
}

pub fn indent_width(indent: &str) -> usize {
    indent
        .chars()
        .map(|c| if c == '\t' { TAB } else { 1 })
        .sum()
}

pub fn split_indent(line: &str) -> (&str, &str) {
    let rest = line.trim_start_matches([' ', '\t']);
    (&line[..line.len() - rest.len()], rest)
}

/// One window a side matches: its first line, length in lines, tier and how the block's
/// indentation maps onto the file's.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    pub first: usize,
    pub len: usize,
    pub tier: Tier,
    pub indent: Reindent,
}

/// How an indentation width of the block becomes the file's: `to + (width - from) * num / den`.
/// The ladder's tiers shift by a constant (`num == den`); the last resort also rescales.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reindent {
    from: isize,
    to: isize,
    num: isize,
    den: isize,
}

impl Reindent {
    /// File width minus block width, the same on every line.
    pub const fn shift(by: isize) -> Self {
        Self {
            from: 0,
            to: by,
            num: 1,
            den: 1,
        }
    }

    /// Whether every width stays as it is.
    pub fn is_identity(&self) -> bool {
        self.num == self.den && self.from == self.to
    }

    /// The file's width for a block line indented `width` (rounded down where a rescaled width
    /// falls between two, never below 0).
    pub fn width(&self, width: usize) -> usize {
        let scaled = (width as isize - self.from) * self.num;
        (self.to + scaled.div_euclid(self.den)).max(0) as usize
    }
}

/// The largest numerator and denominator of a rescaling (2 to 4 spaces a level is 2/1).
const MAX_SCALE: isize = 4;

impl Found {
    /// Whether this window lies inside `outer`.
    pub fn inside(&self, outer: &Found) -> bool {
        self.first >= outer.first && self.first + self.len <= outer.first + outer.len
    }
}

/// Where windows may lie: from line `from` on, ending at the end of the file when `at_eof`;
/// `exact_only` turns the tolerant tiers off.
#[derive(Clone, Copy)]
pub struct Scope {
    pub from: usize,
    pub at_eof: bool,
    pub exact_only: bool,
}

/// Every window of the file that `wanted` matches, each at its strictest tier.
pub fn find_all(file: &FileText<'_>, wanted: &[SideLine<'_>], scope: Scope) -> Vec<Found> {
    judged(file, wanted, scope, |window| {
        classify(file.text, window, wanted, scope.exact_only)
    })
}

/// Every window whose lines equal `wanted`'s once the block's indentation is drawn at the
/// file's scale (`Tier::Rescaled`): the last resort, for a block that matches nowhere on the
/// ladder. Nothing under `exact_only`.
pub fn find_rescaled(file: &FileText<'_>, wanted: &[SideLine<'_>], scope: Scope) -> Vec<Found> {
    if scope.exact_only {
        return Vec::new();
    }
    judged(file, wanted, scope, |window| {
        let pairs = window
            .iter()
            .map(|l| &file.text[l.start..l.content_end])
            .zip(wanted.iter().map(|w| w.text));
        Some((Tier::Rescaled, rescaled(pairs)?))
    })
}

/// The candidate windows (`windows`) that `judge` matches, with the tier and indentation
/// mapping it found.
fn judged(
    file: &FileText<'_>,
    wanted: &[SideLine<'_>],
    scope: Scope,
    judge: impl Fn(&[Line]) -> Option<(Tier, Reindent)>,
) -> Vec<Found> {
    windows(file, wanted, scope)
        .into_iter()
        .filter_map(|first| {
            let (tier, indent) = judge(&file.window(first, wanted.len()))?;
            Some(Found {
                first,
                len: wanted.len(),
                tier,
                indent,
            })
        })
        .collect()
}

/// The first lines of the windows in `scope` whose line at the place of `wanted`'s longest
/// non-blank line has its key (every window, when `wanted` is blank). Every tier matches line
/// for line with equal keys, so any non-blank line of `wanted` finds every window that can
/// match; the longest is usually the rarest (a hunk's first context line is often a lone `}`
/// or ` */`, found on thousands of lines).
fn windows(file: &FileText<'_>, wanted: &[SideLine<'_>], scope: Scope) -> Vec<usize> {
    let (n, m) = (file.line_count(), wanted.len());
    if m == 0 || m > n {
        return Vec::new();
    }
    let keys = wanted
        .iter()
        .enumerate()
        .filter(|(_, w)| !w.blank())
        .map(|(k, w)| (k, line_key(w.text)));
    let longest = keys.fold(
        None,
        |best: Option<(usize, Cow<'_, str>)>, (k, key)| match best {
            Some((_, ref b)) if b.len() >= key.len() => best,
            _ => Some((k, key)),
        },
    );
    let starts: Vec<usize> = match longest {
        Some((k, key)) => {
            let hits = file.keyed(&key);
            hits.into_iter().filter_map(|j| j.checked_sub(k)).collect()
        }
        None => (0..n).collect(),
    };
    starts
        .into_iter()
        .filter(|&i| i >= scope.from && i + m <= n)
        .filter(|&i| !scope.at_eof || i + m == n)
        .collect()
}

/// The strictest tier at which the file lines `window` match `wanted`, and its uniform shift.
pub fn classify(
    text: &str,
    window: &[Line],
    wanted: &[SideLine<'_>],
    exact_only: bool,
) -> Option<(Tier, Reindent)> {
    let content = |l: &Line| &text[l.start..l.content_end];
    let term = |l: &Line| &text[l.content_end..l.end];
    let last = wanted.len() - 1;
    let exact = window.iter().zip(wanted).enumerate().all(|(i, (f, w))| {
        content(f) == w.text && (term(f) == w.term || (i == last && w.term.is_empty()))
    });
    if exact {
        return Some((Tier::Exact, Reindent::shift(0)));
    }
    if exact_only {
        return None;
    }
    let pairs = || {
        window
            .iter()
            .map(content)
            .zip(wanted.iter().map(|w| w.text))
    };
    if pairs().all(|(f, w)| f == w) {
        return Some((Tier::LineEndings, Reindent::shift(0)));
    }
    if pairs().all(|(f, w)| f.trim_end() == w.trim_end()) {
        return Some((Tier::TrailingWhitespace, Reindent::shift(0)));
    }
    for tier in [Tier::Indentation, Tier::Punctuation] {
        if let Some(shift) = shifted(pairs(), tier) {
            return Some((tier, Reindent::shift(shift)));
        }
    }
    None
}

/// The uniform indentation shift under which every pair matches at `tier`, if there is one.
fn shifted<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>, tier: Tier) -> Option<isize> {
    let mut shift: Option<isize> = None;
    for (f, w) in pairs {
        let ((fi, fr), (wi, wr)) = (split_indent(f), split_indent(w));
        let same = match tier {
            Tier::Punctuation => same_punctuated(fr.trim_end(), wr.trim_end()),
            _ => fr.trim_end() == wr.trim_end(),
        };
        if !same {
            return None;
        }
        if fr.trim().is_empty() {
            continue;
        }
        let d = indent_width(fi) as isize - indent_width(wi) as isize;
        if *shift.get_or_insert(d) != d {
            return None;
        }
    }
    Some(shift.unwrap_or(0))
}

/// The rescaling under which every pair of (file line, block line) matches with punctuation
/// made ASCII: the non-blank lines' indentation relative to the first one's, in the file,
/// is the block's times one ratio of whole numbers up to `MAX_SCALE` other than 1 (so levels
/// keep their order and nesting). `None` when the lines differ, or no such ratio holds them
/// all (a uniform shift is the ladder's).
fn rescaled<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> Option<Reindent> {
    let mut anchor: Option<(isize, isize)> = None;
    let mut ratio: Option<(isize, isize)> = None;
    for (f, w) in pairs {
        let ((fi, fr), (wi, wr)) = (split_indent(f), split_indent(w));
        if !same_punctuated(fr.trim_end(), wr.trim_end()) {
            return None;
        }
        if fr.trim().is_empty() {
            continue;
        }
        let (file, block) = (indent_width(fi) as isize, indent_width(wi) as isize);
        let Some((block0, file0)) = anchor else {
            anchor = Some((block, file));
            continue;
        };
        let (db, df) = (block - block0, file - file0);
        match ratio {
            _ if db == 0 && df == 0 => {}
            Some((num, den)) if df * den == db * num => {}
            None if db != 0 && df != 0 && (db > 0) == (df > 0) => {
                let g = gcd(db.abs(), df.abs());
                ratio = Some((df.abs() / g, db.abs() / g));
            }
            _ => return None,
        }
    }
    let (num, den) = ratio.filter(|&(n, d)| n != d && n <= MAX_SCALE && d <= MAX_SCALE)?;
    let (from, to) = anchor?;
    Some(Reindent { from, to, num, den })
}

fn gcd(a: isize, b: isize) -> isize {
    if b == 0 { a } else { gcd(b, a % b) }
}
