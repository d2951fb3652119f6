//! The tolerance ladder for blocks of the text dialects (SEARCH/REPLACE, Codex, unified diff).
//!
//! Tiers, strictest first: `exact` bytes; `line_endings` (lines compared without their
//! terminators); `trailing_whitespace`; `indentation` (a uniform indentation shift, tabs and
//! spaces counted by width); `unicode_punctuation` (curly quotes, dashes, non-breaking spaces,
//! ellipses). Every window of the file is judged at its strictest tier, and the block applies
//! only when exactly one window matches at any tier: an exact match gets no priority over a
//! tolerant twin (`anchor_ambiguous` lists them all), unless a diff hunk's line number names
//! it (`stated_place`). `--exact` counts exact windows only.
//! When nothing matches, blank lines at the edges of the search text that the file lacks are
//! dropped (from the replacement too) and the rest must match once: `blank_lines`. When that
//! finds nothing either, the block's indentation may be drawn at another scale than the
//! file's (4 spaces a level where the file has 2): lines equal but for a rescaling of their
//! indentation by one ratio must match once, and new lines are rescaled the same way:
//! `indentation_rescaled`.
//!
//! Only the lines the block changes are written (see `render`): lines on both sides keep the
//! file's bytes. Codex anchors restrict matches to after their lines (of several, the one inside
//! the block the last anchor opens: `scope`); `at_eof` to the end of the file. A block is
//! `already_applied` (nothing written) when its replacement occurs exactly once and every match
//! of its search lies inside that occurrence, or the search is absent. When the replacement
//! stands apart from the one match, a diff's line number tells a retry from a copy (`retry`).

mod render;
mod retry;
mod scope;
mod tier;

use crate::error::{Code, Error, Result};
use crate::locate::diagnose;
use crate::locate::file_text::{FileText, line_key};
use crate::locate::lines::{Endings, dominant_terminator};
use crate::plan::splice::Splice;
use crate::plan::{Block, Digest, Side};
use render::{Body, Placed};
use tier::{Found, Scope, SideLine, Tier, find_all, find_rescaled};

/// The splices of one block and the tier that matched.
pub struct Resolved {
    pub splices: Vec<Splice>,
    pub matched_by: &'static str,
}

impl Resolved {
    /// Nothing to write: the block's change is in the file already.
    fn already_applied() -> Self {
        Resolved {
            splices: Vec::new(),
            matched_by: "already_applied",
        }
    }
}

/// Where a block is applied, for messages.
struct Ctx<'a> {
    path: &'a str,
    label: &'a str,
    op: usize,
    digest: Digest,
}

/// First line index after the anchors (0 without anchors); an anchor that is absent is an error.
fn after_anchors(block: &Block, file: &FileText<'_>, ctx: &Ctx<'_>) -> Result<usize> {
    if block.anchors.is_empty() {
        return Ok(0);
    }
    let (text, lines) = (file.text, file.lines());
    let mut from = 0;
    for anchor in &block.anchors {
        let want = anchor.trim();
        let found = (from..lines.len()).find(|&i| {
            tier::same_punctuated(text[lines[i].start..lines[i].content_end].trim(), want)
        });
        from = match found {
            Some(i) => i + 1,
            None => {
                return Err(missing_error(
                    ctx,
                    text,
                    anchor,
                    "the `@@` context line does not occur (after the previous one)",
                ));
            }
        };
    }
    Ok(from)
}

/// Of several matches of a diff hunk, the one its header states: the only exact match, when
/// it starts at the hunk's line number, outranks tolerant twins elsewhere (the hunk names both
/// the bytes and the place, as `git apply` reads it). Two exact matches stay ambiguous.
fn stated_place(found: Vec<Found>, block: &Block) -> Vec<Found> {
    let Some(line) = block.hint_line.filter(|_| found.len() > 1) else {
        return found;
    };
    let mut exact = found.iter().filter(|f| f.tier == Tier::Exact);
    match (exact.next(), exact.next()) {
        (Some(one), None) if one.first + 1 == line => vec![*one],
        _ => found,
    }
}

/// Of several matches after a Codex anchor, the only one that starts inside the block the
/// last anchor line opens (see `scope`); otherwise all of them, for `anchor_ambiguous`.
fn within_anchor(found: Vec<Found>, block: &Block, file: &FileText<'_>, from: usize) -> Vec<Found> {
    if found.len() < 2 || block.anchors.is_empty() || from == 0 {
        return found;
    }
    let blocks = scope::blocks(file.lines(), file.text, from - 1);
    let inside: Vec<Found> = found
        .iter()
        .copied()
        .filter(|f| blocks.iter().any(|b| b.contains(&f.first)))
        .collect();
    if inside.len() == 1 { inside } else { found }
}

fn missing_error(ctx: &Ctx<'_>, text: &str, wanted: &str, why: &str) -> Error {
    let found = diagnose::missing(text, wanted);
    Error::new(
        Code::AnchorMissing,
        format!("{}: {why} in {}", ctx.label, ctx.path),
    )
    .detail("path", ctx.path)
    .detail("edit", ctx.op)
    .detail("sha256", ctx.digest.to_hex())
    .detail("closest", found.closest_json())
    .detail("whitespace_variant_line", found.whitespace_line)
    .hint("Re-read the file; copy its current lines into the block.")
}

fn ends_with_break(s: &str) -> bool {
    s.ends_with('\n') || s.ends_with('\r')
}

/// An empty search inserts: after the last anchor line, at the end of the file (`at_eof`), or
/// into an empty file.
fn insertion(block: &Block, file: &FileText<'_>, from: usize, ctx: &Ctx<'_>) -> Result<Resolved> {
    let text = file.text;
    let term = dominant_terminator(text);
    let payload = Endings::of(text).convert(&block.replace);
    let (at, matched_by) = if !block.anchors.is_empty() {
        let after = from.checked_sub(1).and_then(|i| file.line(i));
        (after.map_or(0, |l| l.end), "anchor")
    } else if text.is_empty() {
        (0, "insertion")
    } else if block.at_eof {
        (text.len(), "end_of_file")
    } else {
        return Err(Error::new(
            Code::AnchorMissing,
            format!(
                "{}: an empty search cannot place text in the non-empty file {}",
                ctx.label, ctx.path
            ),
        )
        .detail("path", ctx.path)
        .detail("sha256", ctx.digest.to_hex())
        .hint("Put the lines the new text goes next to in SEARCH, and repeat them in REPLACE."));
    };
    let needs_break = at > 0 && !ends_with_break(&text[..at]);
    let text_new = if needs_break {
        format!("{term}{payload}")
    } else {
        payload
    };
    let splices = vec![Splice {
        range: at..at,
        text: text_new,
        op: ctx.op,
    }];
    Ok(Resolved {
        splices,
        matched_by,
    })
}

/// A retried insertion: its text already stands right after its anchor lines, or (an append)
/// at the end of the file.
fn inserted_before(block: &Block, file: &FileText<'_>, from: usize, exact: bool) -> bool {
    let appends = block.anchors.is_empty() && block.at_eof;
    if block.replace.is_empty() || (!appends && block.anchors.is_empty()) {
        return false;
    }
    let scope = Scope {
        from,
        at_eof: appends,
        exact_only: exact,
    };
    let hits = find_all(file, &tier::side_lines(&block.replace), scope);
    hits.iter().any(|f| appends || f.first == from)
}

/// The windows a body's old side matches, and the body they apply with (blank edges dropped
/// for the `blank_lines` tier); when none does, those it matches with its indentation
/// rescaled. When nothing matches at all, the body without its blank edges, if it has any, is
/// the one a retry is looked for with (`already_applied`).
fn matches<'b>(file: &FileText<'_>, body: Body<'b>, scope: Scope) -> (Vec<Found>, Body<'b>, bool) {
    let found = find_all(file, &body.old, scope);
    if !found.is_empty() || scope.exact_only {
        return (found, body, false);
    }
    let trimmed = match body.without_blank_edges() {
        Some(trimmed) => {
            let found = find_all(file, &trimmed.old, scope);
            if !found.is_empty() {
                return (found, trimmed, true);
            }
            Some(trimmed)
        }
        None => None,
    };
    let rescaled = find_rescaled(file, &body.old, scope);
    match trimmed {
        Some(trimmed) if rescaled.is_empty() => (rescaled, trimmed, true),
        _ => (rescaled, body, false),
    }
}

/// Resolves `block` against `text`; `exact` turns the tolerance tiers off.
pub fn resolve(
    block: &Block,
    file: &FileText<'_>,
    path: &str,
    op: usize,
    label: &str,
    digest: Digest,
    exact: bool,
) -> Result<Resolved> {
    let ctx = Ctx {
        path,
        label,
        op,
        digest,
    };
    if !block.readings.is_empty() {
        return readings(block, file, &ctx, exact);
    }
    let from = after_anchors(block, file, &ctx)?;
    if block.search.is_empty() {
        if inserted_before(block, file, from, exact) {
            return Ok(Resolved::already_applied());
        }
        return insertion(block, file, from, &ctx);
    }
    let scope = Scope {
        from,
        at_eof: block.at_eof,
        exact_only: exact,
    };
    let (found, body, trimmed) = matches(file, Body::of(block), scope);
    if already_applied(file, &found, &body, scope) {
        return Ok(Resolved::already_applied());
    }
    let found = stated_place(within_anchor(found, block, file, from), block);
    match found.as_slice() {
        [one] => {
            let placed = Placed::new(file, *one, &body, block.at_eof, op);
            one_match(&placed, block, scope, trimmed, &ctx)
        }
        [] => Err(missing(block, file, &ctx)),
        several => Err(ambiguous(several, &ctx, trimmed)),
    }
}

/// The one window a block's SEARCH matches: applied there, unless its replacement already
/// stands there (a retried edit) or at a twin (then both places are named).
fn one_match(
    placed: &Placed<'_, '_, '_>,
    block: &Block,
    scope: Scope,
    trimmed: bool,
    ctx: &Ctx<'_>,
) -> Result<Resolved> {
    let one = &placed.found;
    match retry::read(placed.file, block, one, placed.body, scope) {
        retry::Reading::Match => {}
        retry::Reading::Applied => return Ok(Resolved::already_applied()),
        retry::Reading::Ambiguous(done) => {
            let mut both = [*one, done];
            both.sort_by_key(|f| f.first);
            return Err(ambiguous(&both, ctx, trimmed).hint(
                "The replacement already stands at the second place: if the edit was applied there, there is nothing to do; otherwise add surrounding lines so the search matches once.",
            ));
        }
    }
    Ok(Resolved {
        splices: placed.splices(),
        matched_by: if trimmed {
            "blank_lines"
        } else {
            one.tier.name()
        },
    })
}

/// A block whose divider is one of several `=======` lines: the reading whose SEARCH part
/// matches the file applies (of several, the one with the longest SEARCH part, which holds the
/// others); two matching readings of that length are ambiguous.
fn readings(block: &Block, file: &FileText<'_>, ctx: &Ctx<'_>, exact: bool) -> Result<Resolved> {
    let first = (block.search.clone(), block.replace.clone());
    let all = std::iter::once(first).chain(block.readings.iter().cloned());
    let mut matched = Vec::new();
    let mut first_error = None;
    for (n, (search, replace)) in all.enumerate() {
        let reading = Block {
            search,
            replace,
            readings: Vec::new(),
            ..block.clone()
        };
        let len = reading.search.len();
        match resolve(
            &reading, file, ctx.path, ctx.op, ctx.label, ctx.digest, exact,
        ) {
            Ok(resolved) => matched.push((len, n, resolved)),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    // A reading that really matches beats one that finds its edit already made; among those, a
    // longer SEARCH part holds the shorter ones (a SEARCH part cut at an earlier `=======` is a
    // prefix of it): the longest one is the evidence.
    let rank = |m: &(usize, usize, Resolved)| (m.2.matched_by != "already_applied", m.0);
    let best = matched.iter().map(rank).max();
    matched.retain(|m| Some(rank(m)) == best);
    if matched.len() > 1 {
        let which: Vec<usize> = matched.iter().map(|(_, n, _)| n + 1).collect();
        return Err(Error::new(
            Code::AnchorAmbiguous,
            format!(
                "{}: the block holds several `=======` lines, and {} readings of it match {}",
                ctx.label,
                which.len(),
                ctx.path
            ),
        )
        .detail("path", ctx.path)
        .detail("edit", ctx.op)
        .detail("readings", which)
        .hint("Indent or reword the code's own `=======` line, or split the block."));
    }
    match (matched.pop(), first_error) {
        (Some((_, _, resolved)), _) => Ok(resolved),
        (None, Some(e)) => Err(e),
        (None, None) => Err(Error::internal("a block without readings")),
    }
}

/// The replacement occurs once, and every match of the search lies inside it (or there is
/// none): the block was applied before. Not when the search is absent and a line it removes
/// at its edge still stands, changed, beside the occurrence: that is stale text.
fn already_applied(file: &FileText<'_>, found: &[Found], body: &Body<'_>, scope: Scope) -> bool {
    let old_len = found.first().map_or(0, |f| f.len);
    let new = &body.new;
    if new.is_empty() || (!found.is_empty() && new.len() <= old_len) {
        return false;
    }
    // A block whose search is gone may have been applied rescaled (the last resort's retry).
    let occurrences = match find_all(file, new, scope) {
        hits if hits.is_empty() && found.is_empty() => find_rescaled(file, new, scope),
        hits => hits,
    };
    match occurrences.as_slice() {
        [occurrence] if found.is_empty() => !stale_edge(file, occurrence, body),
        [occurrence] => found.iter().all(|f| f.inside(occurrence)),
        _ => false,
    }
}

/// Whether a line the block removes at its first (last) line resembles the file line just
/// above (below) the replacement's occurrence: the same start, at least half of the shorter.
fn stale_edge(file: &FileText<'_>, occurrence: &Found, body: &Body<'_>) -> bool {
    let script = body.script(tier::Tier::TrailingWhitespace);
    let resembles = |removed: &SideLine<'_>, at: Option<usize>| {
        let Some(line) = at.and_then(|i| file.key_at(i)) else {
            return false;
        };
        let removed = line_key(removed.text);
        let common = line
            .chars()
            .zip(removed.chars())
            .take_while(|(a, b)| a == b)
            .count();
        let shorter = line.chars().count().min(removed.chars().count());
        shorter > 0 && (common == shorter || common >= 4.max(shorter / 2))
    };
    // Only a run of removed lines at an edge (a replaced edge line stands in the replacement).
    let removes = |run: &mut dyn Iterator<Item = &Side>| {
        let edge: Vec<&Side> = run.take_while(|s| **s != Side::Both).collect();
        !edge.is_empty() && edge.iter().all(|s| **s == Side::Old)
    };
    let above = occurrence.first.checked_sub(1);
    let below = Some(occurrence.first + occurrence.len);
    let first =
        removes(&mut script.iter()) && body.old.first().is_some_and(|l| resembles(l, above));
    let last =
        removes(&mut script.iter().rev()) && body.old.last().is_some_and(|l| resembles(l, below));
    first || last
}

fn ambiguous(found: &[Found], ctx: &Ctx<'_>, trimmed: bool) -> Error {
    let tier = |f: &Found| {
        if trimmed {
            "blank_lines"
        } else {
            f.tier.name()
        }
    };
    let listed: Vec<serde_json::Value> = found
        .iter()
        .map(|f| serde_json::json!({"start_line": f.first + 1, "end_line": f.first + f.len, "matched_by": tier(f)}))
        .collect();
    let shown: Vec<String> = found
        .iter()
        .map(|f| format!("{}-{} ({})", f.first + 1, f.first + f.len, tier(f)))
        .collect();
    let n = found.len();
    Error::new(
        Code::AnchorAmbiguous,
        format!(
            "{}: the search text matches {n} places in {}: lines {}",
            ctx.label,
            ctx.path,
            shown.join(", ")
        ),
    )
    .detail("path", ctx.path)
    .detail("edit", ctx.op)
    .detail(
        "lines",
        found.iter().map(|f| f.first + 1).collect::<Vec<_>>(),
    )
    .detail("candidates", listed)
    .detail("sha256", ctx.digest.to_hex())
    .hint("Add surrounding lines to the search so it matches once (with --exact, only exact bytes count).")
}

fn missing(block: &Block, file: &FileText<'_>, ctx: &Ctx<'_>) -> Error {
    let error = missing_error(
        ctx,
        file.text,
        &block.search,
        "the search text does not occur at any tier",
    );
    match nearest(file, &tier::side_lines(&block.search)) {
        Some((tier, matched, of, line)) => error.detail(
            "nearest",
            serde_json::json!({"tier": tier, "matched_lines": matched, "of": of, "line": line}),
        ),
        None => error,
    }
}

/// The tier under which the longest run of the block's first lines matches somewhere, how many
/// lines that is, and where (1-based): what came nearest to applying.
fn nearest(
    file: &FileText<'_>,
    wanted: &[SideLine<'_>],
) -> Option<(&'static str, usize, usize, usize)> {
    let lines = file.lines();
    // Only on the failure path, and bounded: a huge file and a long block skip the report.
    if lines.len().saturating_mul(wanted.len()) > 2_000_000 {
        return None;
    }
    let mut best: Option<(&'static str, usize, usize, usize)> = None;
    // A run starts where the first line matches at the loosest tier: where the keys agree.
    let first = line_key(wanted.first()?.text);
    let keys = file.keys();
    for start in (0..lines.len()).filter(|&i| keys[i] == first) {
        let longest = (1..=wanted.len().min(lines.len() - start))
            .take_while(|&k| {
                tier::classify(file.text, &lines[start..start + k], &wanted[..k], false).is_some()
            })
            .last();
        let Some(k) = longest else { continue };
        if k > best.map_or(0, |b| b.1) {
            let (tier, _) =
                tier::classify(file.text, &lines[start..start + k], &wanted[..k], false)?;
            best = Some((tier.name(), k, wanted.len(), start + 1));
        }
    }
    best
}

/// A place a block could apply, for the failed-diff handoff.
pub struct Candidate {
    /// 1-based lines of the matched window.
    pub start_line: usize,
    pub end_line: usize,
    pub matched_by: &'static str,
    /// The exact bytes matched and what they would become.
    pub range: std::ops::Range<usize>,
    pub replacement: String,
}

/// Every window where `block` matches at any tier (each window once, at its strictest tier).
pub fn candidates(block: &Block, text: &str) -> Vec<Candidate> {
    let file = FileText::new(text);
    let scope = Scope {
        from: 0,
        at_eof: block.at_eof,
        exact_only: false,
    };
    let (found, body, trimmed) = matches(&file, Body::of(block), scope);
    let lines = file.lines();
    found
        .into_iter()
        .map(|f| {
            let range = lines[f.first].start..lines[f.first + f.len - 1].end;
            let placed = Placed::new(&file, f, &body, block.at_eof, 0);
            let mut splices = placed.splices();
            for s in &mut splices {
                s.range = s.range.start - range.start..s.range.end - range.start;
            }
            let window = text[range.clone()].as_bytes();
            let replaced = crate::plan::splice::apply(window, &splices);
            Candidate {
                start_line: f.first + 1,
                end_line: f.first + f.len,
                matched_by: if trimmed {
                    "blank_lines"
                } else {
                    f.tier.name()
                },
                range,
                replacement: String::from_utf8_lossy(&replaced).into_owned(),
            }
        })
        .collect()
}

#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;
