//! The tolerance ladder for blocks of the text dialects (SEARCH/REPLACE, Codex, unified diff).
//!
//! Tiers, tried in order; the first tier with any match decides, and its match must be
//! unique: `exact` bytes; `line_endings` (lines compared without their terminators);
//! `trailing_whitespace`; `indentation` (a uniform indentation shift, tabs and spaces counted
//! by width; the replacement is re-indented by the same shift in the file's own style);
//! `unicode_punctuation` (curly quotes, dashes, non-breaking spaces, ellipses). Codex anchors
//! restrict matches to after their lines; `at_eof` to the end of the file. A block whose search
//! is absent but whose replacement is present once is `already_applied`. Replaced and added
//! lines take the file's line endings; the final-newline state is kept.

use crate::error::{Code, Error, Result};
use crate::plan::splice::Splice;
use crate::plan::{Block, Digest};
use crate::target::diagnose;
use crate::target::lines::{Endings, FileText, Line, dominant_terminator, split};

/// The splices of one block and the tier that matched.
pub struct Resolved {
    pub splices: Vec<Splice>,
    pub matched_by: &'static str,
}

/// Where a block is applied, for messages.
struct Ctx<'a> {
    path: &'a str,
    label: &'a str,
    op: usize,
    digest: Digest,
}

const TAB: usize = 4;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tier {
    LineEndings,
    TrailingWhitespace,
    Indentation,
    Punctuation,
}

impl Tier {
    const ALL: [Tier; 4] = [
        Tier::LineEndings,
        Tier::TrailingWhitespace,
        Tier::Indentation,
        Tier::Punctuation,
    ];

    fn name(self) -> &'static str {
        match self {
            Tier::LineEndings => "line_endings",
            Tier::TrailingWhitespace => "trailing_whitespace",
            Tier::Indentation => "indentation",
            Tier::Punctuation => "unicode_punctuation",
        }
    }
}

fn punctuation(s: &str) -> String {
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

fn indent_width(indent: &str) -> usize {
    indent
        .chars()
        .map(|c| if c == '\t' { TAB } else { 1 })
        .sum()
}

fn split_indent(line: &str) -> (&str, &str) {
    let rest = line.trim_start_matches([' ', '\t']);
    (&line[..line.len() - rest.len()], rest)
}

/// Whether `file` lines match `search` lines at `tier`; for the indentation tiers, the shift
/// (file width minus search width) that makes them match.
fn window_matches(file: &[&str], search: &[&str], tier: Tier) -> Option<isize> {
    let mut shift: Option<isize> = None;
    for (f, s) in file.iter().zip(search) {
        match tier {
            Tier::LineEndings if f != s => return None,
            Tier::TrailingWhitespace if f.trim_end() != s.trim_end() => return None,
            Tier::Indentation | Tier::Punctuation => {
                let (fi, fr) = split_indent(f);
                let (si, sr) = split_indent(s);
                let same = if tier == Tier::Punctuation {
                    punctuation(fr.trim_end()) == punctuation(sr.trim_end())
                } else {
                    fr.trim_end() == sr.trim_end()
                };
                if !same {
                    return None;
                }
                if fr.trim().is_empty() {
                    continue;
                }
                let d = indent_width(fi) as isize - indent_width(si) as isize;
                if *shift.get_or_insert(d) != d {
                    return None;
                }
            }
            _ => {}
        }
    }
    Some(shift.unwrap_or(0))
}

/// Line contents of a block side (a final terminator does not start another line).
fn side_lines(text: &str) -> Vec<&str> {
    split(text)
        .iter()
        .map(|l| &text[l.start..l.content_end])
        .collect()
}

/// First line index after the anchors (0 without anchors); an anchor that is absent is an error.
fn after_anchors(block: &Block, lines: &[Line], text: &str, ctx: &Ctx<'_>) -> Result<usize> {
    let mut from = 0;
    for anchor in &block.anchors {
        let want = punctuation(anchor.trim());
        let found = (from..lines.len())
            .find(|&i| punctuation(text[lines[i].start..lines[i].content_end].trim()) == want);
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

/// One match: the window's first line, its length in lines, the tier and indentation shift.
struct Found {
    first: usize,
    tier: &'static str,
    shift: isize,
}

/// Every match of `search` at the first tier that has any; exact byte matches first.
fn find(
    text: &str,
    lines: &[Line],
    search: &str,
    from: usize,
    at_eof: bool,
    exact_only: bool,
) -> Vec<Found> {
    let wanted = side_lines(search);
    if wanted.is_empty() {
        return Vec::new();
    }
    let contents: Vec<&str> = lines
        .iter()
        .map(|l| &text[l.start..l.content_end])
        .collect();
    let m = wanted.len();
    let last_start = contents.len().saturating_sub(m);
    let starts: Vec<usize> = (from..=last_start)
        .filter(|&i| i + m <= contents.len() && (!at_eof || i + m == contents.len()))
        .collect();
    let exact: Vec<Found> = starts
        .iter()
        .copied()
        .filter(|&i| {
            let (start, end) = (lines[i].start, lines[i + m - 1].end);
            text[start..end].starts_with(search) || text[start..].starts_with(search)
        })
        .map(|first| Found {
            first,
            tier: "exact",
            shift: 0,
        })
        .collect();
    if !exact.is_empty() || exact_only {
        return exact;
    }
    for tier in Tier::ALL {
        let hits = tier_hits(&contents, &wanted, starts.iter().copied(), tier);
        if !hits.is_empty() {
            return hits;
        }
    }
    Vec::new()
}

/// The windows starting at `starts` whose lines match `wanted` at `tier`.
fn tier_hits(
    contents: &[&str],
    wanted: &[&str],
    starts: impl Iterator<Item = usize>,
    tier: Tier,
) -> Vec<Found> {
    let m = wanted.len();
    starts
        .filter_map(|i| {
            let shift = window_matches(&contents[i..i + m], wanted, tier)?;
            Some(Found {
                first: i,
                tier: tier.name(),
                shift,
            })
        })
        .collect()
}

/// `replace` written with `term`; when `restyle` is set (the indentation tiers), re-indented
/// by `shift` in the file's style (`tabs`).
fn render(
    replace: &str,
    shift: isize,
    restyle: bool,
    tabs: bool,
    term: &str,
    terminated: bool,
) -> String {
    let lines: Vec<String> = side_lines(replace)
        .into_iter()
        .map(|line| {
            let (indent, rest) = split_indent(line);
            if !restyle || rest.is_empty() {
                return line.to_owned();
            }
            let width = (indent_width(indent) as isize + shift).max(0) as usize;
            let indent = if tabs {
                "\t".repeat(width / TAB) + &" ".repeat(width % TAB)
            } else {
                " ".repeat(width)
            };
            format!("{indent}{rest}")
        })
        .collect();
    let mut out = lines.join(term);
    if terminated && !lines.is_empty() {
        out.push_str(term);
    }
    out
}

fn ends_with_break(s: &str) -> bool {
    s.ends_with('\n') || s.ends_with('\r')
}

/// The splice that replaces the matched window.
fn splice_for(found: &Found, block: &Block, text: &str, lines: &[Line], op: usize) -> Splice {
    let m = side_lines(&block.search).len();
    let (first, last) = (&lines[found.first], &lines[found.first + m - 1]);
    let file_term = &text[last.content_end..last.end];
    let term = if file_term.is_empty() {
        dominant_terminator(text)
    } else {
        file_term
    };
    let own_term = &text[first.content_end..first.end];
    let term = if own_term.is_empty() { term } else { own_term };
    // Keep the file's final-newline state: a window ending without a terminator gets none.
    let terminated = ends_with_break(&block.replace) && !file_term.is_empty();
    let end = if ends_with_break(&block.search) || file_term.is_empty() {
        last.end
    } else {
        last.content_end
    };
    let window = &lines[found.first..found.first + m];
    let tabs = window.iter().any(|l| text[l.start..].starts_with('\t'));
    let restyle = matches!(found.tier, "indentation" | "unicode_punctuation");
    let terminated =
        terminated || (!ends_with_break(&block.search) && ends_with_break(&block.replace));
    let new = if found.tier == "exact" && Endings::of(text) == Endings::Mixed {
        block.replace.clone()
    } else {
        render(&block.replace, found.shift, restyle, tabs, term, terminated)
    };
    Splice {
        range: first.start..end,
        text: new,
        op,
    }
}

/// An empty search inserts: after the last anchor line, at the end of the file (`at_eof`), or
/// into an empty file.
fn insertion(
    block: &Block,
    text: &str,
    lines: &[Line],
    from: usize,
    ctx: &Ctx<'_>,
) -> Result<Resolved> {
    let term = dominant_terminator(text);
    let payload = Endings::of(text).convert(&block.replace);
    let at = if !block.anchors.is_empty() {
        lines.get(from.wrapping_sub(1)).map_or(0, |l| l.end)
    } else if block.at_eof || text.is_empty() {
        text.len()
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
        matched_by: if block.anchors.is_empty() {
            "insertion"
        } else {
            "anchor"
        },
    })
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
    let (text, lines) = (file.text, file.lines());
    let from = after_anchors(block, lines, text, &ctx)?;
    if block.search.is_empty() {
        return insertion(block, text, lines, from, &ctx);
    }
    let found = find(text, lines, &block.search, from, block.at_eof, exact);
    match found.len() {
        1 => {
            let splice = splice_for(&found[0], block, text, lines, op);
            return Ok(Resolved {
                splices: vec![splice],
                matched_by: found[0].tier,
            });
        }
        0 => {}
        n => {
            let shown: Vec<usize> = found.iter().map(|f| f.first + 1).collect();
            return Err(Error::new(Code::AnchorAmbiguous, format!("{label}: the search text matches {n} places in {path} at tier {} (lines {shown:?})", found[0].tier))
                .detail("path", path)
                .detail("edit", op)
                .detail("lines", shown)
                .detail("matched_by", found[0].tier)
                .detail("sha256", digest.to_hex())
                .hint("Add surrounding lines to the search so it matches once."));
        }
    }
    if !block.replace.is_empty()
        && find(text, lines, &block.replace, from, block.at_eof, exact).len() == 1
    {
        return Ok(Resolved {
            splices: Vec::new(),
            matched_by: "already_applied",
        });
    }
    let error = missing_error(
        &ctx,
        text,
        &block.search,
        "the search text does not occur at any tier",
    );
    Err(match nearest(text, lines, &block.search) {
        Some((tier, matched, of, line)) => error.detail(
            "nearest",
            serde_json::json!({"tier": tier, "matched_lines": matched, "of": of, "line": line}),
        ),
        None => error,
    })
}

/// The tier under which the longest run of the block's first lines matches somewhere, how many
/// lines that is, and where (1-based): what came nearest to applying.
fn nearest(
    text: &str,
    lines: &[Line],
    search: &str,
) -> Option<(&'static str, usize, usize, usize)> {
    let wanted = side_lines(search);
    // Only on the failure path, and bounded: a huge file and a long block skip the report.
    if lines.len().saturating_mul(wanted.len()) > 2_000_000 {
        return None;
    }
    let contents: Vec<&str> = lines
        .iter()
        .map(|l| &text[l.start..l.content_end])
        .collect();
    let mut best: Option<(&'static str, usize, usize, usize)> = None;
    for tier in Tier::ALL {
        for start in 0..contents.len() {
            let run = (1..=wanted.len().min(contents.len() - start))
                .take_while(|&k| {
                    window_matches(&contents[start..start + k], &wanted[..k], tier).is_some()
                })
                .last()
                .unwrap_or(0);
            if run > best.map_or(0, |b| b.1) {
                best = Some((tier.name(), run, wanted.len(), start + 1));
            }
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

/// Every window where `block` matches at any tier (each window once, at its best tier).
pub fn candidates(block: &Block, text: &str) -> Vec<Candidate> {
    let lines = split(text);
    let m = side_lines(&block.search).len();
    if m == 0 {
        return Vec::new();
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    let mut from_tier = |found: Vec<Found>| {
        for f in found {
            if seen.insert(f.first) {
                let splice = splice_for(&f, block, text, &lines, 0);
                out.push(Candidate {
                    start_line: f.first + 1,
                    end_line: f.first + m,
                    matched_by: f.tier,
                    range: splice.range,
                    replacement: splice.text,
                });
            }
        }
    };
    from_tier(find(text, &lines, &block.search, 0, block.at_eof, true));
    let contents: Vec<&str> = lines
        .iter()
        .map(|l| &text[l.start..l.content_end])
        .collect();
    let wanted = side_lines(&block.search);
    for tier in Tier::ALL {
        from_tier(tier_hits(
            &contents,
            &wanted,
            0..contents.len().saturating_sub(m - 1),
            tier,
        ));
    }
    out.sort_by_key(|c| c.start_line);
    out
}

#[cfg(test)]
mod tests;
