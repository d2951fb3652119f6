//! Aider SEARCH/REPLACE blocks, as agents write them: alone, or inside a whole markdown reply.
//!
//! ```text
//! reply   := (prose-line | block)*
//! block   := [path-line] [fence] [path-line] head search divider replace tail [fence]
//! head    := <{5,9} "SEARCH" [">"]          every marker is matched on the stripped line
//! divider := ={5,9}
//! tail    := >{5,9} "REPLACE" [fence]
//! search, replace := whole lines, copied byte for byte (terminators kept, CRLF included)
//! ```
//! The path is looked for on the (at most 3, blank lines skipped) lines above the head, back to
//! the previous block: fences (```` ``` ````, ```` ```` ````, `~~~`) are stepped over, and
//! ```` ```name ```` counts when the name has a `.` or `/`; the first other line is the last
//! candidate. `#`, trailing `:`, and surrounding backticks, asterisks and quotes are removed; the
//! rest must hold no whitespace unless it was quoted (prose is not a path). A block without a
//! path inherits the previous block's, so one fence may hold several blocks. An empty SEARCH
//! creates the file or fills an empty one (the engine decides).
//!
//! A block runs from its head to the first tail; that tail must be the only one before the next
//! head, so a stray `>>>>>>> REPLACE` is refused rather than guessed around. Between head and
//! tail, several `=======` lines may stand (the code may contain one): see `pick_divider`; the
//! readings it cannot tell apart travel with the block and the file decides.

use std::fmt::Display;

use crate::error::{Error, Result};
use crate::plan::{Block, Op, OpKind, Origin, PathBase, PathSpec, Plan};

const HINT: &str = "Write each block as: the file path alone on a line, `<<<<<<< SEARCH`, the \
exact current lines, `=======`, the new lines, `>>>>>>> REPLACE`.";

/// What one input line is, judged on its stripped text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Head,
    Divider,
    Tail,
    Text,
}

/// The count of leading `c` when it is 5 to 9, and the rest of the line.
fn run(text: &str, c: char) -> Option<(usize, &str)> {
    let count = text.chars().take_while(|&x| x == c).count();
    (5..=9).contains(&count).then(|| (count, &text[count..]))
}

fn kind(line: &str) -> Kind {
    let text = line.trim();
    let Some(first) = text.chars().next() else {
        return Kind::Text;
    };
    let Some((_, rest)) = run(text, first) else {
        return Kind::Text;
    };
    match first {
        '<' if matches!(rest.trim(), "SEARCH" | "SEARCH>") => Kind::Head,
        '=' if rest.is_empty() => Kind::Divider,
        '>' if rest.trim_end_matches('`').trim() == "REPLACE" => Kind::Tail,
        _ => Kind::Text,
    }
}

/// A `plan_malformed` error pointing at a line (0-based index in, 1-based line out).
fn malformed(index: usize, message: impl Display) -> Error {
    Error::malformed(format!("line {}: {message}", index + 1))
        .detail("input_line", index + 1)
        .hint(HINT)
}

/// Compiles SEARCH/REPLACE blocks (and the prose around them) into a plan.
pub fn parse(input: &str) -> Result<Plan> {
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    let lines: Vec<&str> = input.split_inclusive('\n').collect();
    let kinds: Vec<Kind> = lines.iter().map(|line| kind(line)).collect();
    let mut ops: Vec<Op> = Vec::new();
    let mut current: Option<String> = None;
    let mut last: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < lines.len() {
        match kinds[i] {
            Kind::Tail => return Err(stray_tail(i, last)),
            Kind::Head => {
                let (dividers, tail) = block_bounds(&lines, &kinds, i)?;
                let above = &lines[last.map_or(0, |(_, tail)| tail + 1)..i];
                let path = filename(above)
                    .or_else(|| current.clone())
                    .ok_or_else(|| no_path(i, ops.len()))?;
                let block = Span {
                    lines: &lines,
                    head: i,
                    dividers: &dividers,
                    tail,
                };
                block.push_ops(&path, &mut ops);
                current = Some(path);
                last = Some((i, tail));
                i = tail + 1;
            }
            Kind::Divider | Kind::Text => i += 1,
        }
    }
    if ops.is_empty() {
        return Err(Error::malformed("no SEARCH/REPLACE blocks found").hint(HINT));
    }
    Ok(Plan {
        label: None,
        dialect: "blocks",
        ops,
        ..Plan::default()
    })
}

/// The refusal of a block that neither names a file nor follows one that did.
fn no_path(index: usize, block: usize) -> Error {
    malformed(index, "the block has no file path")
        .detail("block", block)
        .hint("Put the file path alone on the line before the opening fence (or before `<<<<<<< SEARCH`).")
}

/// One block's lines: its `<<<<<<< SEARCH` head, its `=======` dividers and its tail.
struct Span<'a> {
    lines: &'a [&'a str],
    head: usize,
    dividers: &'a [usize],
    tail: usize,
}

impl Span<'_> {
    /// The SEARCH and REPLACE text on either side of the divider at `d`.
    fn side(&self, d: usize) -> (String, String) {
        let lines = self.lines;
        (
            lines[self.head + 1..d].concat(),
            lines[d + 1..self.tail].concat(),
        )
    }

    /// Appends the block's operations: one, or one per piece of an elided block.
    fn push_ops(&self, path: &str, ops: &mut Vec<Op>) {
        let readings: Vec<(String, String)> =
            self.dividers[1..].iter().map(|&d| self.side(d)).collect();
        let pieces = match readings.is_empty() {
            true => {
                let first = self.dividers[0];
                elided_pieces(
                    &self.lines[self.head + 1..first],
                    &self.lines[first + 1..self.tail],
                )
            }
            false => {
                let (search, replace) = self.side(self.dividers[0]);
                vec![(search, replace, Vec::new())]
            }
        };
        for (search, replace, anchors) in pieces {
            let kind = OpKind::Block(Block {
                search,
                replace,
                readings: readings.clone(),
                anchors,
                ..Block::default()
            });
            ops.push(self.op(path, ops.len(), kind));
        }
    }

    /// One operation of this block, numbered `index` in the plan.
    fn op(&self, path: &str, index: usize, kind: OpKind) -> Op {
        Op {
            path: PathSpec {
                raw: path.to_owned(),
                base: PathBase::Root,
            },
            origin: Origin {
                list: "blocks",
                index,
                input_line: Some(self.head + 1),
                parent: None,
            },
            kind,
        }
    }
}

/// Aider's `...` elision: when SEARCH and REPLACE both contain elision lines (see
/// [`is_elision`]), as many in each, the pieces between them pair up and apply as separate
/// blocks. Pieces that are the same on both sides change nothing and are dropped, but every
/// piece stays evidence: the lines of the SEARCH pieces before a piece are its anchors (they
/// must occur in order before it, and the block its last line opens decides between twins).
/// Otherwise the block is taken whole.
fn elided_pieces(search: &[&str], replace: &[&str]) -> Vec<(String, String, Vec<String>)> {
    let is_dots = |l: &&str| is_elision(l);
    let (s, r): (Vec<&[&str]>, Vec<&[&str]>) = (
        search.split(is_dots).collect(),
        replace.split(is_dots).collect(),
    );
    if s.len() == 1 || s.len() != r.len() {
        return vec![(search.concat(), replace.concat(), Vec::new())];
    }
    let mut before: Vec<String> = Vec::new();
    let mut pieces = Vec::new();
    for (old, new) in s.into_iter().zip(r) {
        let (old_text, new_text) = (old.concat(), new.concat());
        if old_text != new_text {
            // An empty piece has no place of its own: not right after its anchors (refused).
            let anchors = if old_text.trim().is_empty() {
                Vec::new()
            } else {
                before.clone()
            };
            pieces.push((old_text, new_text, anchors));
        }
        let lines = old.iter().map(|l| l.trim()).filter(|l| !l.is_empty());
        before.extend(lines.map(str::to_owned));
    }
    pieces
}

/// An elision line: `...` (or `…`) alone, or a comment that starts with it, as agents write
/// `# ... existing code ...` or `// ... rest of the method`.
fn is_elision(line: &str) -> bool {
    let dots = |s: &str| s.starts_with("...") || s.starts_with('\u{2026}');
    let line = line.trim();
    if line == "..." || line == "\u{2026}" {
        return true;
    }
    let body = ["#", "//", "/*", "<!--", "--", ";"]
        .iter()
        .find_map(|leader| line.strip_prefix(leader));
    body.is_some_and(|rest| dots(rest.trim_start()))
}

fn stray_tail(index: usize, last: Option<(usize, usize)>) -> Error {
    let context = match last {
        Some((head, tail)) => format!(
            " (the block at line {} already ended at line {})",
            head + 1,
            tail + 1
        ),
        None => String::new(),
    };
    malformed(
        index,
        format!("`>>>>>>> REPLACE` without a `<<<<<<< SEARCH` before it{context}"),
    )
}

/// The divider candidates (best first; several when they cannot be told apart) and the tail
/// of the block whose head is at `head`.
fn block_bounds(lines: &[&str], kinds: &[Kind], head: usize) -> Result<(Vec<usize>, usize)> {
    let next_head = (head + 1..kinds.len()).find(|&j| kinds[j] == Kind::Head);
    let end = next_head.unwrap_or(kinds.len());
    let Some(tail) = (head + 1..end).find(|&j| kinds[j] == Kind::Tail) else {
        let why = match next_head {
            Some(next) => format!("the next `<<<<<<< SEARCH` (line {}) comes first", next + 1),
            None => "the input ends first".to_owned(),
        };
        return Err(malformed(
            head,
            format!("the block is not closed by `>>>>>>> REPLACE`: {why}"),
        ));
    };
    let candidates: Vec<usize> = (head + 1..tail)
        .filter(|&j| kinds[j] == Kind::Divider)
        .collect();
    match pick_divider(lines, head, &candidates) {
        dividers if !dividers.is_empty() => Ok((dividers, tail)),
        _ => Err(malformed(
            head,
            format!(
                "the block has no `=======` between `<<<<<<< SEARCH` and `>>>>>>> REPLACE` (line {})",
                tail + 1
            ),
        )),
    }
}

/// Chooses the divider among the `=======` lines between head and tail. Every candidate leaves
/// exactly one tail after it (the block is cut at its first tail), so the rest parses for all of
/// them; the code's own `=======` lines are told apart by, in order:
/// 1. a merge-conflict region: a candidate after a `<<<<<<< ours` line of the SEARCH text and
///    before its `>>>>>>> theirs` belongs to the code (so conflicts can be resolved);
/// 2. the marker's layout: the divider is written like the head (same indentation, as many `=`
///    as the head has `<`); a `=====` underline or an indented line is code.
///
/// The candidates that remain equal are all returned, first first: the file decides between
/// them (the reading whose SEARCH part matches it; see [`Block::readings`]).
fn pick_divider(lines: &[&str], head: usize, candidates: &[usize]) -> Vec<usize> {
    let layout = |line: &str, c: char| {
        let indent = line.len() - line.trim_start().len();
        (indent, run(line.trim(), c).map(|(n, _)| n))
    };
    let head_layout = layout(lines[head], '<');
    let rank = |j: usize| {
        let before = &lines[head + 1..j];
        let opens = before.iter().filter(|l| l.starts_with("<<<<<<<")).count();
        let closes = before.iter().filter(|l| l.starts_with(">>>>>>>")).count();
        (opens > closes, layout(lines[j], '=') != head_layout)
    };
    let best = candidates.iter().map(|&j| rank(j)).min();
    let tied = candidates
        .iter()
        .copied()
        .filter(|&j| Some(rank(j)) == best);
    tied.collect()
}

/// The path named above a head, if any: `above` holds the lines back to the previous block.
fn filename(above: &[&str]) -> Option<String> {
    let mut found = Vec::new();
    let lines = above.iter().map(|l| l.trim()).filter(|l| !l.is_empty());
    for text in lines.rev().take(3) {
        if let Some(rest) = fence_rest(text) {
            if rest.contains(['.', '/']) {
                found.extend(clean_path(rest));
            }
            continue;
        }
        found.extend(clean_path(text));
        break;
    }
    let pathlike = found.iter().position(|name| name.contains(['.', '/']));
    let chosen = pathlike.unwrap_or(0);
    (chosen < found.len()).then(|| found.swap_remove(chosen))
}

/// The info string of a fence line (```` ```python ````, ```` ````src/a.rs ````, `~~~`).
fn fence_rest(text: &str) -> Option<&str> {
    ['`', '~'].into_iter().find_map(|c| {
        let count = text.chars().take_while(|&x| x == c).count();
        (count >= 3).then(|| text[count..].trim())
    })
}

/// `` `src/a.py` ``, `**src/a.py**:`, `# src/a.py`, `"my file.txt"` → the bare path; `None`
/// when what remains is not a plausible path (empty, `...`, prose with spaces).
fn clean_path(raw: &str) -> Option<String> {
    const WRAP: [char; 4] = ['`', '*', '"', '\''];
    let mut name = raw.trim();
    let mut quoted = false;
    loop {
        let before = name;
        name = name.trim_start_matches('#').trim();
        name = name.strip_suffix(':').unwrap_or(name).trim_end();
        let unwrapped = name.trim_matches(WRAP);
        let prefix = name.len() - name.trim_start_matches(WRAP).len();
        quoted |= name[..prefix].contains(['`', '"', '\'']);
        name = unwrapped;
        if name == before {
            break;
        }
    }
    let spaced = name.contains(char::is_whitespace);
    let plausible = !name.is_empty() && !name.ends_with('.') && (quoted || !spaced);
    plausible.then(|| name.to_owned())
}

#[cfg(test)]
mod tests;
