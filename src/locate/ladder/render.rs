//! A matched block turned into splices: one per run of changed lines.
//!
//! The block's two sides are paired line by line (the dialect's own pairing for diff and Codex
//! bodies, otherwise a line diff of `search` against `replace` under the tier that matched).
//! Lines on both sides are not touched at all, so they keep the file's bytes: indentation,
//! trailing whitespace, quotes, their own line ending. Each run of removed and added lines
//! becomes one splice over the removed lines' bytes; the added lines come from the block,
//! re-indented as the match maps indentation (shifted, or rescaled), in the file's style
//! (indentation tiers only), and ended like the lines they replace or sit next to (when the
//! block curled quotes the file has straight, the new lines' curly quotes are straightened
//! too). At the end of the file, the final-newline state is kept unless a diff says
//! otherwise (`\ No newline at end of file` on one side only).

use std::borrow::Cow;
use std::ops::Range;

use super::tier::{Found, SideLine, TAB, Tier, indent_width, split_indent};
use crate::locate::file_text::FileText;
use crate::locate::lines::{Line, dominant_terminator};
use crate::plan::splice::Splice;
use crate::plan::{Block, Side};

/// Both sides of a block as lines, and how they pair (empty: to be diffed).
#[derive(Clone)]
pub struct Body<'a> {
    pub old: Vec<SideLine<'a>>,
    pub new: Vec<SideLine<'a>>,
    script: Vec<Side>,
}

impl<'a> Body<'a> {
    pub fn of(block: &'a Block) -> Self {
        let (old, new) = (
            super::tier::side_lines(&block.search),
            super::tier::side_lines(&block.replace),
        );
        let count = |side| block.script.iter().filter(|s| **s != side).count();
        let consistent = count(Side::New) == old.len() && count(Side::Old) == new.len();
        let script = if consistent {
            block.script.clone()
        } else {
            Vec::new()
        };
        Body { old, new, script }
    }

    /// The body without the blank lines at the edges of its old side (and as many blank lines
    /// at the edges of its new side); `None` when there are none or nothing else would remain.
    pub fn without_blank_edges(&self) -> Option<Self> {
        let lead = self.old.iter().take_while(|l| l.blank()).count();
        if lead == self.old.len() {
            return None;
        }
        let trail = self.old.iter().rev().take_while(|l| l.blank()).count();
        if lead + trail == 0 {
            return None;
        }
        let mut body = self.clone();
        body.drop_edge(lead, true);
        body.drop_edge(trail, false);
        Some(body)
    }

    /// Drops `n` blank old lines at the front (or back) and the blank new lines paired with
    /// them (for a diffed body: as many blank new lines at that edge as there are).
    fn drop_edge(&mut self, n: usize, front: bool) {
        let take = |v: &mut Vec<SideLine<'a>>, k: usize| {
            if front {
                v.drain(..k);
            } else {
                v.truncate(v.len() - k);
            }
        };
        if self.script.is_empty() {
            let blank_new = |v: &Vec<SideLine<'_>>| match front {
                true => v.iter().take_while(|l| l.blank()).count(),
                false => v.iter().rev().take_while(|l| l.blank()).count(),
            };
            let k = blank_new(&self.new).min(n);
            take(&mut self.old, n);
            take(&mut self.new, k);
            return;
        }
        let (mut old_n, mut new_n, mut steps) = (0, 0, 0);
        let order: Vec<Side> = match front {
            true => self.script.clone(),
            false => self.script.iter().rev().copied().collect(),
        };
        for side in order {
            if old_n == n {
                break;
            }
            match side {
                Side::Both => (old_n, new_n) = (old_n + 1, new_n + 1),
                Side::Old => old_n += 1,
                Side::New => break,
            }
            steps += 1;
        }
        take(&mut self.old, old_n);
        take(&mut self.new, new_n);
        let len = self.script.len();
        match front {
            true => self.script.drain(..steps),
            false => self.script.drain(len - steps..),
        };
    }

    /// The pairing: the dialect's, or a line diff under `tier`.
    pub fn script(&self, tier: Tier) -> Cow<'_, [Side]> {
        if !self.script.is_empty() || (self.old.is_empty() && self.new.is_empty()) {
            return Cow::Borrowed(&self.script);
        }
        // Diffed from the end, so that of equal lines the later ones pair up: removing the
        // first of two equal lines keeps the second one's bytes, as a diff would say it.
        let keys = |side: &[SideLine<'_>]| -> Vec<String> {
            side.iter().rev().map(|l| tier.line_key(l.text)).collect()
        };
        let (old, new) = (keys(&self.old), keys(&self.new));
        let mut out = Vec::with_capacity(old.len() + new.len());
        for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new) {
            let (tag, o, n) = op.as_tag_tuple();
            if tag == similar::DiffTag::Equal {
                out.extend(std::iter::repeat_n(Side::Both, o.len()));
            } else {
                out.extend(std::iter::repeat_n(Side::Old, o.len()));
                out.extend(std::iter::repeat_n(Side::New, n.len()));
            }
        }
        out.reverse();
        Cow::Owned(out)
    }
}

/// A run of changed lines: old lines (relative to the window) and the new lines replacing them.
struct Run {
    old: Range<usize>,
    new: Range<usize>,
}

fn runs(script: &[Side]) -> Vec<Run> {
    let (mut out, mut o, mut n) = (Vec::new(), 0, 0);
    let mut open: Option<Run> = None;
    for side in script {
        match side {
            Side::Both => {
                out.extend(open.take());
                (o, n) = (o + 1, n + 1);
                continue;
            }
            Side::Old => o += 1,
            Side::New => n += 1,
        }
        let run = open.get_or_insert(Run {
            old: o - usize::from(*side == Side::Old)..o,
            new: n - usize::from(*side == Side::New)..n,
        });
        (run.old.end, run.new.end) = (o, n);
    }
    out.extend(open);
    out
}

/// What the splices of one match are computed from.
pub struct Placed<'f, 't, 'b> {
    pub file: &'f FileText<'t>,
    pub found: Found,
    pub body: &'b Body<'b>,
    /// The block addresses the end of the file (a diff's no-newline marker may then add or
    /// remove the final newline).
    at_eof: bool,
    op: usize,
    /// The file's lines the match covers.
    window: Vec<Line>,
}

impl<'f, 't, 'b> Placed<'f, 't, 'b> {
    pub fn new(
        file: &'f FileText<'t>,
        found: Found,
        body: &'b Body<'b>,
        at_eof: bool,
        op: usize,
    ) -> Self {
        let window = file.window(found.first, found.len).into_owned();
        Self {
            file,
            found,
            body,
            at_eof,
            op,
            window,
        }
    }
}

impl Placed<'_, '_, '_> {
    fn window(&self) -> &[Line] {
        &self.window
    }

    fn term(&self, i: usize) -> &str {
        let l = &self.window()[i];
        &self.file.text[l.content_end..l.end]
    }

    /// The line ending of window line `i`, or of the nearest line above it that has one.
    fn eol(&self, i: usize) -> &str {
        let found = (0..=i).rev().map(|j| self.term(j)).find(|t| !t.is_empty());
        found.unwrap_or_else(|| dominant_terminator(self.file.text))
    }

    /// Indentation in tabs: the window's indented lines start with one.
    fn tabs(&self) -> bool {
        let text = self.file.text;
        self.window()
            .iter()
            .any(|l| text[l.start..].starts_with('\t'))
    }

    /// Every splice of the match (none when the block changes nothing).
    pub fn splices(&self) -> Vec<Splice> {
        let script = self.body.script(self.found.tier);
        runs(&script).iter().map(|r| self.splice(r)).collect()
    }

    fn splice(&self, run: &Run) -> Splice {
        let (w, m) = (self.window(), self.found.len);
        let Range { start: a, end: b } = run.old;
        let start = if a < m { w[a].start } else { w[m - 1].end };
        let end = if a < b { w[b - 1].end } else { start };
        let last_open = w[m - 1].end == w[m - 1].content_end;
        let mut text = String::new();
        if a == m && last_open && !run.new.is_empty() {
            text.push_str(self.eol(m - 1));
        }
        let new = &self.body.new[run.new.clone()];
        let (tabs, straighten) = (self.tabs(), self.curled());
        for (k, line) in new.iter().enumerate() {
            text.push_str(&self.restyled(line.text, tabs, straighten));
            let term = if k + 1 == new.len() && b == m {
                self.final_term(run, last_open, a + k)
            } else {
                self.neighbour_eol(a + k, run)
            };
            text.push_str(term);
        }
        Splice {
            range: start..end,
            text,
            op: self.op,
        }
    }

    /// The ending of a new line standing at window position `i` of `run`.
    fn neighbour_eol(&self, i: usize, run: &Run) -> &str {
        let Range { start: a, end: b } = run.old;
        if i < b {
            self.eol(i)
        } else if b > a {
            self.eol(b - 1)
        } else {
            self.eol(a.saturating_sub(1).min(self.found.len - 1))
        }
    }

    /// The ending of the last new line of a run that reaches the end of the window.
    fn final_term(&self, run: &Run, last_open: bool, i: usize) -> &str {
        let m = self.found.len;
        let at_file_end = self.found.first + m == self.file.line_count();
        let old_open = self.body.old.last().is_some_and(|l| l.term.is_empty());
        let new_open = self.body.new.last().is_some_and(|l| l.term.is_empty());
        let explicit = self.at_eof && at_file_end;
        if last_open {
            let add = explicit && old_open && !new_open;
            return if add { self.eol(m - 1) } else { "" };
        }
        if explicit && new_open && !old_open {
            return "";
        }
        self.neighbour_eol(i, run)
    }

    /// A new line, re-indented as the match maps indentation, in the file's style, on the
    /// indentation tiers (kept as written when nothing moves and it is already in that
    /// style). When the block's quotes were curled where the file has straight ones, its new
    /// lines' are too, and are straightened like them.
    fn restyled(&self, line: &str, tabs: bool, straighten: bool) -> String {
        let line = match straighten {
            true => line
                .chars()
                .map(|c| match c {
                    '\u{2018}' | '\u{2019}' => '\'',
                    '\u{201c}' | '\u{201d}' => '"',
                    c => c,
                })
                .collect(),
            false => line.to_owned(),
        };
        let (indent, rest) = split_indent(&line);
        let reindent = self.found.indent;
        if !self.found.tier.restyles() || rest.is_empty() {
            return line;
        }
        let styled = if tabs {
            !indent.trim_start_matches('\t').contains('\t')
                && indent.trim_start_matches('\t').len() < TAB
        } else {
            !indent.contains('\t')
        };
        if reindent.is_identity() && styled {
            return line;
        }
        let width = reindent.width(indent_width(indent));
        let indent = if tabs {
            "\t".repeat(width / TAB) + &" ".repeat(width % TAB)
        } else {
            " ".repeat(width)
        };
        format!("{indent}{rest}")
    }

    /// The block's old side has curly quotes and the matched file lines have none.
    fn curled(&self) -> bool {
        const CURLY: [char; 4] = ['\u{2018}', '\u{2019}', '\u{201c}', '\u{201d}'];
        if !self.found.tier.normalizes_punctuation() {
            return false;
        }
        let text = self.file.text;
        let w = self.window();
        let window = &text[w[0].start..w[w.len() - 1].end];
        !window.contains(CURLY) && self.body.old.iter().any(|l| l.text.contains(CURLY))
    }
}
