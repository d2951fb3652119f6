//! The gate's regional check: a text edit of a file that has not been parsed yet is checked on
//! the regions around its edits (`lang::region`) instead of the whole file.
//!
//! Rule: each cluster of nearby edits gets the innermost region whose original bytes parse
//! without errors on their own; the region's new bytes (same boundaries, the edits applied)
//! must parse without errors too. Outside the regions both versions are byte for byte the
//! same, and every region starts and ends between siblings, so the edit cannot have added an
//! error. Clusters whose regions overlap are merged and searched again. When no region parses
//! cleanly, or when a new region has errors, the caller decides on the whole file (a refusal
//! is always confirmed on the whole file, so a region can never refuse what the compiler
//! accepts). An edit whose new text writes an edge of a token that may span lines (triple
//! quotes, a backtick, a block comment's, a heredoc's) is left to the whole file: a region
//! inside such a token parses as code on its own.
//!
//! Budget: the regions of one file may parse at most what the whole-file check parses (both
//! versions once, `2 × len`). Many edits whose regions are as wide as the file (inside one
//! large object literal, whose statement is the only region) would otherwise parse the file
//! twice per edit; past the budget the whole file decides. A cluster that falls inside the
//! region found for the one before it reuses that region: its original is known to parse, so
//! only the new bytes are parsed again, with both clusters' edits applied.

use std::ops::Range;

use tree_sitter::Tree;

use crate::error::Result;
use crate::lang::Provider;
use crate::lang::outline::{Item, outline_near};
use crate::lang::parse::{parse, retire, scope_facts, syntax_errors};
use crate::lang::region::{Window, first_window};
use crate::lang::symbols::Declarations;
use crate::lang::symbols::{self, Declaration, Lang, Signature, signatures};

/// Edits closer than this share a region search (the regions of clusters further apart
/// are merged only when they overlap).
const CLUSTER_GAP: usize = 256;

/// What the regions showed: both versions clean there.
pub struct Clean {
    pub items_before: Vec<Item>,
    pub items_after: Vec<Item>,
    /// `None` when a nested region holds public declarations, whose names it cannot know,
    /// or when a TypeScript / JavaScript file may export by an `export { … }` list (the API
    /// guard then reads the file).
    pub declarations: Option<Declarations>,
    /// What the regions cost: the bytes of the original's windows tried, twice (each new
    /// side is about as long), against a budget of both whole versions.
    pub spent: usize,
}

/// One parsed region of one version.
struct Parsed {
    tree: Tree,
    bytes: Vec<u8>,
    /// Where the region's own bytes start in `bytes` (after the prefix).
    offset: usize,
}

impl Parsed {
    /// Parses a region's bytes `text` (of either version) on their own.
    fn new(provider: &'static Provider, window: &Window, text: &[u8]) -> Result<(Self, usize)> {
        Self::framed(provider, window, text, |_| None)
    }

    /// The new side of a region whose original `old` parsed: the region's edits (file
    /// coordinates; `bases`: where the region starts in the original and in the result) are
    /// applied to a copy of the original's tree, and only what they touched is parsed again.
    fn reparsed(
        provider: &'static Provider,
        old: &Parsed,
        window: &Window,
        text: &[u8],
        edits: &[(Range<usize>, Range<usize>)],
        bases: (usize, usize),
    ) -> Result<(Self, usize)> {
        let offset = window.prefix.len();
        let local: Vec<(Range<usize>, Range<usize>)> = edits
            .iter()
            .map(|(o, n)| {
                let o = o.start - bases.0 + offset..o.end - bases.0 + offset;
                (o, n.start - bases.1 + offset..n.end - bases.1 + offset)
            })
            .collect();
        Self::framed(provider, window, text, |bytes| {
            Some(crate::lang::parse::edited(
                &old.tree, &old.bytes, bytes, &local,
            ))
        })
    }

    /// `text` between the window's prefix and suffix, parsed (from the tree `base` makes of
    /// those bytes, if any), and its error count.
    fn framed(
        provider: &'static Provider,
        window: &Window,
        text: &[u8],
        base: impl FnOnce(&[u8]) -> Option<Tree>,
    ) -> Result<(Self, usize)> {
        let mut bytes = Vec::with_capacity(window.prefix.len() + text.len() + window.suffix.len());
        bytes.extend_from_slice(window.prefix.as_bytes());
        bytes.extend_from_slice(text);
        bytes.extend_from_slice(window.suffix.as_bytes());
        let old = base(&bytes);
        let tree = parse(provider, &bytes, old.as_ref())?;
        if let Some(old) = old {
            retire(old);
        }
        let errors = syntax_errors(provider, &tree, &bytes).0;
        let offset = window.prefix.len();
        Ok((
            Self {
                tree,
                bytes,
                offset,
            },
            errors,
        ))
    }

    /// `ranges` of the file, in this region's coordinates (`base`: the region's file offset).
    fn local(&self, ranges: &[Range<usize>], base: usize) -> Vec<Range<usize>> {
        ranges
            .iter()
            .map(|r| r.start - base + self.offset..r.end - base + self.offset)
            .collect()
    }
}

/// The clusters of `ranges` (old and new ranges, ascending), as index ranges.
fn clusters(ranges: &[(Range<usize>, Range<usize>)]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for (i, (old, _)) in ranges.iter().enumerate() {
        match out.last_mut() {
            Some(c) if old.start <= ranges[c.end - 1].0.end + CLUSTER_GAP => c.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// Where `at` (a region boundary of the original) lies in the result: shifted by the edits
/// that begin before it, and by all of the region's own (`own`: an insertion at the end of
/// the file begins at the region's end but belongs to it).
fn shifted(at: usize, ranges: &[(Range<usize>, Range<usize>)], own: &Range<usize>) -> usize {
    let mut delta: isize = 0;
    for (i, (old, new)) in ranges.iter().enumerate() {
        if old.start < at || own.contains(&i) {
            delta += new.len() as isize - old.len() as isize;
        }
    }
    at.saturating_add_signed(delta)
}

/// Checks every cluster of edits on its region; `None` when the whole file must decide.
pub fn check(
    provider: &'static Provider,
    before: &[u8],
    after: &[u8],
    ranges: &[(Range<usize>, Range<usize>)],
) -> Result<Option<Clean>> {
    if writes_a_long_token_edge(provider, after, ranges) {
        return Ok(None);
    }
    // An export list elsewhere in the file can make a region's declarations public.
    let knowable = match Lang::of(provider) {
        Some(Lang::TypeScript) => {
            let changed = ranges.iter().map(|r| r.1.clone());
            !symbols::typescript::may_list_exports(before)
                && !symbols::typescript::may_list_exports_near(after, changed)
        }
        lang => lang.is_some(),
    };
    let mut clean = Clean {
        items_before: Vec::new(),
        items_after: Vec::new(),
        declarations: knowable.then(|| Declarations {
            before: Some(Vec::new()),
            after: Vec::new(),
            after_clean: true,
        }),
        spent: 0,
    };
    // Clusters whose regions overlap are merged and searched again.
    let mut found: Vec<(Range<usize>, Window, Seen)> = Vec::new();
    let mut pending = clusters(ranges).into_iter();
    let mut next = pending.next();
    let mut budget = 2 * before.len();
    let versions = (before, after);
    while let Some(cluster) = next {
        // A cluster whose edits the last region's new bytes already hold.
        if found.last().is_some_and(|last| cluster.end <= last.0.end) {
            next = pending.next();
            continue;
        }
        // A cluster inside the last region: that region's original is known to parse, so
        // only its new bytes are parsed again, with the edits of both.
        if let Some((held, window, Seen::Trees(old, new))) = found.last_mut()
            && ranges[cluster.end - 1].0.end < window.range.end
            && window.range.len() <= budget
        {
            budget -= window.range.len();
            let merged = held.start..cluster.end;
            match new_side(provider, window, old, versions, ranges, &merged)? {
                NewSide::Clean(fresh, now_held) => {
                    retire(std::mem::replace(new, fresh).tree);
                    *held = now_held;
                    next = pending.next();
                    continue;
                }
                NewSide::Dirty => return Ok(None),
                NewSide::Wider => {}
            }
        }
        let Some((window, old, (new, held))) =
            region_of(provider, versions, ranges, &cluster, &mut budget)?
        else {
            return Ok(None);
        };
        match found.pop() {
            Some((previous, last, ..)) if overlaps(&last.range, &window.range, ranges) => {
                next = Some(previous.start..cluster.end);
                continue;
            }
            Some(last) => found.push(read_out(provider, last, ranges, knowable)),
            None => {}
        }
        found.push((held, window, Seen::Trees(old, new)));
        next = pending.next();
    }
    for (.., seen) in found
        .into_iter()
        .map(|f| read_out(provider, f, ranges, knowable))
    {
        if let Seen::Read(reading) = seen {
            clean.absorb(reading);
        }
    }
    clean.spent = 2 * before.len() - budget;
    Ok(Some(clean))
}

/// Whether the regions of two clusters share bytes, or meet where an insertion lies, which
/// both would hold: then they are merged and searched again.
fn overlaps(
    last: &Range<usize>,
    window: &Range<usize>,
    ranges: &[(Range<usize>, Range<usize>)],
) -> bool {
    let at = window.start;
    at < last.end || (at == last.end && ranges.iter().any(|(o, _)| o.is_empty() && o.start == at))
}

/// What opens or closes a token that may span lines (a triple-quoted or template string, a
/// block comment, a heredoc, a raw string), by language.
fn long_token_edges(provider: &Provider) -> &'static [&'static str] {
    match provider.name {
        "python" => &["\"\"\"", "'''"],
        "javascript" | "typescript" | "tsx" | "go" => &["`", "/*", "*/"],
        "php" => &["/*", "*/", "<<<"],
        "rust" => &["/*", "*/", "r\"", "r#", "\"#"],
        "java" => &["\"\"\"", "/*", "*/"],
        "c" | "cpp" => &["/*", "*/", "R\""],
        "csharp" => &["\"\"\"", "@\"", "/*", "*/"],
        _ => &[],
    }
}

/// Whether the new text of an edit holds an edge of a token that may span lines. A region
/// is chosen by lines; one inside such a token (a docstring's lines) parses as code on its
/// own, so there an edit that closes the token and opens another (a line of two triple
/// quotes around ` if `) looks clean while the file is not. Only the whole file shows where
/// such a token now ends.
fn writes_a_long_token_edge(
    provider: &Provider,
    after: &[u8],
    ranges: &[(Range<usize>, Range<usize>)],
) -> bool {
    let edges = long_token_edges(provider);
    ranges.iter().any(|(_, new)| {
        let text = &after[new.clone()];
        edges
            .iter()
            .any(|edge| memchr::memmem::find(text, edge.as_bytes()).is_some())
    })
}

/// The innermost region around the edits of `cluster` whose original and new bytes both
/// parse cleanly, with the edits it holds; `None` when the whole file must decide.
fn region_of(
    provider: &'static Provider,
    (before, after): (&[u8], &[u8]),
    ranges: &[(Range<usize>, Range<usize>)],
    cluster: &Range<usize>,
    budget: &mut usize,
) -> Result<Option<(Window, Parsed, Held)>> {
    let edits = &ranges[cluster.clone()];
    let mut span = edits[0].0.start..edits[edits.len() - 1].0.end;
    if continues_line_above(before, after, &edits[0]) {
        span.start -= 1;
    }
    let mut failure = None;
    let found = first_window(provider, before, span, |w| {
        // Both versions of the window are parsed (the new one about as long).
        let cost = 2 * w.range.len();
        if cost > *budget {
            return Some(None);
        }
        *budget -= cost;
        match try_window(provider, w, (before, after), ranges, cluster) {
            Ok(Some(pair)) => Some(Some((w.clone(), pair))),
            Ok(None) => None,
            Err(e) => {
                failure = Some(e);
                Some(None)
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(match found {
        Some(Some((window, (Some(old), Some(new))))) => Some((window, old, new)),
        _ => None,
    })
}

/// Whether an edit inserts whole lines at a line's start, the first indented at least as
/// deep as the line above, with no quote, backslash or `<`: then the region is searched
/// from that line (where a diff's narrowed hunk or a find ending with its line anchored
/// it), not from the line below, which may open another block and so a wider region.
fn continues_line_above(
    before: &[u8],
    after: &[u8],
    (old, new): &(Range<usize>, Range<usize>),
) -> bool {
    let text = &after[new.clone()];
    if !old.is_empty() || old.start == 0 || before[old.start - 1] != b'\n' || !text.ends_with(b"\n")
    {
        return false;
    }
    // Lines that could open or close a string or heredoc keep the search where it was: a
    // region found from the line above may lie inside a multi-line string, where only
    // text that cannot end the string leaves the file as it parsed.
    if text.iter().any(|b| b"\"'`\\<".contains(b)) {
        return false;
    }
    let above = &before[..old.start - 1];
    let above = &above[above.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)..];
    let first = text.split(|&b| b == b'\n').next().unwrap_or_default();
    indent_len(first) >= indent_len(above)
}

/// The length of a line's leading whitespace.
fn indent_len(line: &[u8]) -> usize {
    line.len() - line.trim_ascii_start().len()
}

/// Whether every non-blank line of a Python region's new text begins with the indentation
/// of the region's first original line, and one of them is code (not a comment).
fn stays_inside(old: &[u8], new: &[u8]) -> bool {
    let first = old.split(|&b| b == b'\n').next().unwrap_or_default();
    let indent = &first[..indent_len(first)];
    let mut code = false;
    for line in new.split(|&b| b == b'\n') {
        let t = line.trim_ascii_start();
        if t.is_empty() {
            continue;
        }
        if !line.starts_with(indent) {
            return false;
        }
        code |= t[0] != b'#';
    }
    code
}

/// A window's new bytes parsed, with the edits they hold.
type Held = (Parsed, Range<usize>);

/// A window's original parsed, and its new bytes when clean.
type Pair = (Option<Parsed>, Option<Held>);

/// Parses a window's original bytes: `None` (try a wider one) when they have errors;
/// otherwise the new bytes too, `(Some, None)` when those have errors.
fn try_window(
    provider: &'static Provider,
    w: &Window,
    versions: (&[u8], &[u8]),
    ranges: &[(Range<usize>, Range<usize>)],
    own: &Range<usize>,
) -> Result<Option<Pair>> {
    let (old, errors) = Parsed::new(provider, w, &versions.0[w.range.clone()])?;
    if errors > 0 {
        retire(old.tree);
        return Ok(None);
    }
    Ok(match new_side(provider, w, &old, versions, ranges, own)? {
        NewSide::Wider => {
            retire(old.tree);
            None
        }
        NewSide::Dirty => Some((Some(old), None)),
        NewSide::Clean(new, held) => Some((Some(old), Some((new, held)))),
    })
}

/// What a window's new bytes show.
enum NewSide {
    /// The window proves nothing about them: a wider one decides.
    Wider,
    /// They have errors (or a scope rule's counts changed): the whole file decides.
    Dirty,
    /// Clean, with the edits the window holds (its own and any later one inside it).
    Clean(Parsed, Range<usize>),
}

/// Parses the new bytes of window `w` (the edits of `own` and every other edit inside the
/// window applied), whose original `old` parsed cleanly.
fn new_side(
    provider: &'static Provider,
    w: &Window,
    old: &Parsed,
    (before, after): (&[u8], &[u8]),
    ranges: &[(Range<usize>, Range<usize>)],
    own: &Range<usize>,
) -> Result<NewSide> {
    let Some(own) = inside(ranges, &w.range, own) else {
        return Ok(NewSide::Wider);
    };
    let new_start = shifted(w.range.start, ranges, &(0..0));
    let new_range = new_start..shifted(w.range.end, ranges, &own);
    let open_end = (w.range.end < before.len() && !w.closed_end) || provider.name == "python";
    let text = &after[new_range];
    if open_end && !crate::lang::region::ends_sibling(provider, w, text) {
        return Ok(NewSide::Wider);
    }
    // A nested Python region stands between `pass` lines of its own indentation: it proves
    // something only while all its lines keep that indentation, and some code between them
    // (else the block may have been left empty). Otherwise a wider region decides.
    if w.nested && provider.name == "python" && !stays_inside(&before[w.range.clone()], text) {
        return Ok(NewSide::Wider);
    }
    let bases = (w.range.start, new_start);
    let (new, errors) = Parsed::reparsed(provider, old, w, text, &ranges[own.clone()], bases)?;
    // A rule on a whole scope sees only the region here: when what it counts changed for a
    // name the rest of the file also holds, the whole file decides.
    let facts = |p: &Parsed| scope_facts(provider, &p.tree, &p.bytes);
    let (was, now) = (facts(old), facts(&new));
    if errors > 0 || (was != now && !unseen_outside(&was, &now, before, &w.range)) {
        retire(new.tree);
        return Ok(NewSide::Dirty);
    }
    Ok(NewSide::Clean(new, own))
}

/// The edits whose bytes lie in window `region` of the original, as an index range: its own
/// (`own`) and any other that falls in it, since the window's new bytes hold those too;
/// `None` when an edit straddles an edge of the window.
fn inside(
    ranges: &[(Range<usize>, Range<usize>)],
    region: &Range<usize>,
    own: &Range<usize>,
) -> Option<Range<usize>> {
    let mut start = own.start;
    while start > 0 && ranges[start - 1].0.start >= region.start {
        start -= 1;
    }
    let mut end = own.end;
    while ranges.get(end).is_some_and(|(o, _)| o.start < region.end) {
        end += 1;
    }
    let into_start = start
        .checked_sub(1)
        .is_some_and(|i| ranges[i].0.end > region.start);
    let past_end = ranges[start..end].iter().any(|(o, _)| o.end > region.end);
    (!into_start && !past_end).then_some(start..end)
}

/// Whether every name whose count differs between `was` and `now` (both sorted) is absent
/// from the file outside `region`, as a whole word. A scope rule relates bindings to names
/// (a name bound twice, a private name used but not declared), and across a region's edge
/// that takes the name written on both sides of it; inside the region, the region's own
/// errors show it.
fn unseen_outside(was: &[String], now: &[String], file: &[u8], region: &Range<usize>) -> bool {
    let outside = [&file[..region.start], &file[region.end..]];
    let unseen = |name: &String| {
        outside
            .iter()
            .all(|part| !holds_word(part, name.as_bytes()))
    };
    beyond(was, now).all(unseen) && beyond(now, was).all(unseen)
}

/// The names of sorted `now` beyond those of sorted `was`, counted with repeats.
fn beyond<'a>(was: &'a [String], now: &'a [String]) -> impl Iterator<Item = &'a String> {
    let mut was = was.iter().peekable();
    now.iter().filter(move |name| {
        while was.next_if(|w| w < name).is_some() {}
        was.next_if(|w| w == name).is_none()
    })
}

/// Whether `word` occurs in `text` with no identifier character right before or after it.
fn holds_word(text: &[u8], word: &[u8]) -> bool {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    memchr::memmem::find_iter(text, word).any(|at| {
        let before = at.checked_sub(1).map(|i| text[i]);
        let after = text.get(at + word.len()).copied();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// A region found clean: its pair of trees while it is the last one found (a later cluster
/// inside it is parsed again from its original's tree), then only what was read from them. A
/// file with several large regions (two tables of a 180 KB PHP file) would otherwise hold
/// every region's trees until the last region is found.
enum Seen {
    Trees(Parsed, Parsed),
    Read(Reading),
}

/// What one clean region showed.
struct Reading {
    items_before: Vec<Item>,
    items_after: Vec<Item>,
    /// The declarations of both versions; `None` when they were not read, or when the region
    /// is nested and holds public ones, whose names it cannot know.
    declarations: Option<(Vec<Signature>, Vec<Signature>)>,
}

impl Clean {
    /// Adds what a region showed, regions in file order.
    fn absorb(&mut self, reading: Reading) {
        self.items_before.extend(reading.items_before);
        self.items_after.extend(reading.items_after);
        let Some(d) = self.declarations.as_mut() else {
            return;
        };
        match reading.declarations {
            Some((b, a)) => {
                d.before.get_or_insert_with(Vec::new).extend(b);
                d.after.extend(a);
            }
            None => self.declarations = None,
        }
    }
}

/// `found` with its trees read (`knowable`: its declarations are wanted) and let go.
fn read_out(
    provider: &'static Provider,
    (cluster, window, seen): (Range<usize>, Window, Seen),
    ranges: &[(Range<usize>, Range<usize>)],
    knowable: bool,
) -> (Range<usize>, Window, Seen) {
    let Seen::Trees(old, new) = seen else {
        return (cluster, window, seen);
    };
    let new_base = shifted(window.range.start, ranges, &(0..0));
    let edits = &ranges[cluster.clone()];
    let olds: Vec<Range<usize>> = edits.iter().map(|(o, _)| o.clone()).collect();
    let news: Vec<Range<usize>> = edits.iter().map(|(_, n)| n.clone()).collect();
    let (old_local, new_local) = (
        old.local(&olds, window.range.start),
        new.local(&news, new_base),
    );
    let read = |p: &Parsed| -> Vec<Declaration> {
        symbols::declarations(provider, &p.tree, &p.bytes).unwrap_or_default()
    };
    let declarations = knowable
        .then(|| (read(&old), read(&new)))
        .filter(|(b, a)| window.exact_declarations || b.iter().chain(a).all(|d| d.private))
        .map(|(b, a)| (signatures(b), signatures(a)));
    let reading = Reading {
        items_before: outline_near(provider, &old.tree, &old.bytes, &old_local),
        items_after: outline_near(provider, &new.tree, &new.bytes, &new_local),
        declarations,
    };
    retire(old.tree);
    retire(new.tree);
    (cluster, window, Seen::Read(reading))
}

#[cfg(test)]
mod tests;
