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
mod tests {
    use super::*;
    use crate::error::Code;

    /// `path@line: "search" => "replace"` for every block.
    fn blocks(input: &str) -> Vec<String> {
        let plan = parse(input).expect("the input parses");
        assert_eq!(plan.dialect, "blocks");
        let show = |(index, op): (usize, Op)| {
            assert_eq!((op.origin.list, op.origin.index), ("blocks", index));
            assert_eq!(op.path.base, PathBase::Root);
            let OpKind::Block(b) = op.kind else {
                panic!("not a block: {:?}", op.kind)
            };
            let plain = Block {
                search: b.search.clone(),
                replace: b.replace.clone(),
                readings: b.readings.clone(),
                anchors: b.anchors.clone(),
                ..Block::default()
            };
            assert_eq!(b, plain);
            let line = op.origin.input_line.expect("a line");
            let after = match b.anchors.is_empty() {
                true => String::new(),
                false => format!(" after {:?}", b.anchors),
            };
            format!(
                "{}@{line}: {:?} => {:?}{after}",
                op.path.raw, b.search, b.replace
            )
        };
        plan.ops.into_iter().enumerate().map(show).collect()
    }

    fn paths(input: &str) -> Vec<String> {
        let plan = parse(input).expect("the input parses");
        plan.ops.into_iter().map(|op| op.path.raw).collect()
    }

    /// The message and input line of a refused input.
    fn refused(input: &str) -> (String, Option<u64>) {
        let err = parse(input).expect_err("the input is refused");
        assert_eq!(err.code, Code::PlanMalformed, "{}", err.message);
        let line = err
            .details
            .get("input_line")
            .and_then(serde_json::Value::as_u64);
        (err.message, line)
    }

    const BODY: &str = "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n";

    #[test]
    fn filename_above_the_fence() {
        let input =
            "src/a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n";
        assert_eq!(blocks(input), [r#"src/a.py@3: "x = 1\n" => "x = 2\n""#]);
    }

    #[test]
    fn filename_inside_the_fence_and_after_fence_runs() {
        let inside = format!("```python\nsrc/a.py\n{BODY}```\n");
        assert_eq!(blocks(&inside), [r#"src/a.py@3: "a\n" => "b\n""#]);
        let deepseek = format!("```python\nfoo.txt\n```\n```python\n{BODY}```\n");
        assert_eq!(paths(&deepseek), ["foo.txt"]);
        assert_eq!(paths(&format!("```src/b.rs\n{BODY}```\n")), ["src/b.rs"]);
    }

    #[test]
    fn path_decorations_are_removed_but_dot_slash_is_kept() {
        for (line, path) in [
            ("# src/a.py", "src/a.py"),
            ("## `src/a.py`", "src/a.py"),
            ("`src/a.py`:", "src/a.py"),
            ("**src/a.py**:", "src/a.py"),
            ("**`./src/a.py`**", "./src/a.py"),
            ("\"docs/my notes.md\"", "docs/my notes.md"),
            ("Makefile", "Makefile"),
        ] {
            assert_eq!(
                paths(&format!("{line}\n\n```\n{BODY}```\n")),
                [path],
                "{line}"
            );
        }
    }

    #[test]
    fn marker_variants() {
        let input = "a.txt\n<<<<< SEARCH\nold\n=====\nnew\n>>>>> REPLACE\nb.txt\n<<<<<<<<< SEARCH>\nold\n=========\nnew\n>>>>>>>>> REPLACE```\nc.txt\n  <<<<<<< SEARCH  \nold\n  =======\nnew\n  >>>>>>> REPLACE\n";
        assert_eq!(
            blocks(input),
            [
                r#"a.txt@2: "old\n" => "new\n""#,
                r#"b.txt@8: "old\n" => "new\n""#,
                r#"c.txt@14: "old\n" => "new\n""#
            ]
        );
        let too_short = "a.txt\n<<<< SEARCH\nold\n====\nnew\n>>>> REPLACE\n";
        assert_eq!(refused(too_short).0, "no SEARCH/REPLACE blocks found");
    }

    #[test]
    fn quad_fence_holds_triple_fences_in_the_code() {
        let input = "README.md\n````markdown\n<<<<<<< SEARCH\n```sh\nmake\n```\n=======\n```sh\nmake all\n```\n>>>>>>> REPLACE\n````\n";
        assert_eq!(
            blocks(input),
            [r#"README.md@3: "```sh\nmake\n```\n" => "```sh\nmake all\n```\n""#]
        );
    }

    #[test]
    fn several_blocks_per_fence_and_inheritance_across_fences() {
        let input = format!(
            "src/a.py\n```python\n{BODY}{BODY}```\n\nAnd further down:\n\n```python\n{BODY}```\n"
        );
        let expected: Vec<String> = [3, 8, 18]
            .iter()
            .map(|l| format!(r#"src/a.py@{l}: "a\n" => "b\n""#))
            .collect();
        assert_eq!(blocks(&input), expected);
    }

    #[test]
    fn several_files_and_empty_sections() {
        let input = "a.txt\n```\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n```\nb/c.txt\n```\n<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n```\nold.txt\n<<<<<<< SEARCH\ngone\n=======\n>>>>>>> REPLACE";
        assert_eq!(
            blocks(input),
            [
                r#"a.txt@3: "1\n" => "2\n""#,
                r#"b/c.txt@11: "" => "new\n""#,
                r#"old.txt@17: "gone\n" => """#
            ]
        );
    }

    #[test]
    fn crlf_input_keeps_crlf_contents() {
        let input = "src\\a.txt\r\n```\r\n<<<<<<< SEARCH\r\none\r\ntwo\r\n=======\r\nuno\r\n>>>>>>> REPLACE\r\n```";
        assert_eq!(
            blocks(input),
            [r#"src\a.txt@3: "one\r\ntwo\r\n" => "uno\r\n""#]
        );
    }

    #[test]
    fn blocks_inside_a_long_prose_reply() {
        let input = "\u{feff}Sure! I'll rename the helper and update its caller.\n\nPlan\n=======\n\n1. Rename `add` in `calc.py`.\n2. Update the test:\n\n```bash\npytest -q\n```\n\nHere are the edits.\n\ncalc.py\n```python\n<<<<<<< SEARCH\ndef add(a, b):\n=======\ndef plus(a, b):\n>>>>>>> REPLACE\n```\n\nNow update the test:\n```python\n<<<<<<< SEARCH\nassert add(1, 2) == 3\n=======\nassert plus(1, 2) == 3\n>>>>>>> REPLACE\n```\n\n**tests/test_calc.py**\n```python\n<<<<<<< SEARCH\nfrom calc import add\n=======\nfrom calc import plus\n>>>>>>> REPLACE\n```\n\nThat's it. Run the tests with `pytest`.\n";
        // "Now update the test:" is prose, not a path: that block inherits `calc.py`.
        assert_eq!(paths(input), ["calc.py", "calc.py", "tests/test_calc.py"]);
        assert_eq!(
            blocks(input)[0],
            r#"calc.py@17: "def add(a, b):\n" => "def plus(a, b):\n""#
        );
    }

    #[test]
    fn divider_lines_inside_the_code() {
        // In REPLACE only: the first candidate is the divider.
        let added = "doc.rst\n<<<<<<< SEARCH\nTitle\n=======\nTitle\n=======\n>>>>>>> REPLACE\n";
        assert_eq!(
            blocks(added),
            [r#"doc.rst@2: "Title\n" => "Title\n=======\n""#]
        );
        // Written unlike the head (`=====`, indented): code, wherever it stands.
        let styled =
            "doc.md\n<<<<<<< SEARCH\nTitle\n=====\n=======\nHeading\n  =======\n>>>>>>> REPLACE\n";
        assert_eq!(
            blocks(styled),
            [r#"doc.md@2: "Title\n=====\n" => "Heading\n  =======\n""#]
        );
        // A merge conflict in SEARCH can be resolved.
        let conflict = "a.txt\n<<<<<<< SEARCH\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> topic\n=======\nours\n>>>>>>> REPLACE\n";
        let resolved =
            r#"a.txt@2: "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> topic\n" => "ours\n""#;
        assert_eq!(blocks(conflict), [resolved]);
        // Still ambiguous: the first reading leads, the other travels with it (the file
        // decides which SEARCH part matches).
        let ambiguous = "a.md\n<<<<<<< SEARCH\nA\n=======\nB\n=======\nC\n>>>>>>> REPLACE\n";
        assert_eq!(blocks(ambiguous), [r#"a.md@2: "A\n" => "B\n=======\nC\n""#]);
        let plan = parse(ambiguous).expect("parses");
        let OpKind::Block(block) = &plan.ops[0].kind else {
            panic!("a block")
        };
        assert_eq!(
            block.readings,
            [("A\n=======\nB\n".to_owned(), "C\n".to_owned())]
        );
    }

    #[test]
    fn dots_split_a_block_into_pieces() {
        let input = "a.py\n```\n<<<<<<< SEARCH\ndef f():\n...\n    return 1\n=======\ndef f():\n...\n    return 2\n>>>>>>> REPLACE\n```\n";
        assert_eq!(
            blocks(input),
            [r#"a.py@3: "    return 1\n" => "    return 2\n" after ["def f():"]"#]
        );
    }

    #[test]
    fn missing_filename_is_refused_with_its_line() {
        let (message, line) = refused(&format!("Here is the change:\n\n```python\n{BODY}```\n"));
        assert_eq!(line, Some(4), "{message}");
        assert!(message.contains("no file path"), "{message}");
    }

    #[test]
    fn broken_blocks_are_refused_with_their_line() {
        assert_eq!(refused("a.txt\n<<<<<<< SEARCH\na\n=======\nb\n").1, Some(2));
        let (message, line) = refused(&format!(
            "a.txt\n<<<<<<< SEARCH\na\n=======\nb\nb.txt\n{BODY}"
        ));
        assert_eq!(line, Some(2));
        assert!(message.contains("line 7"), "{message}");
        assert_eq!(
            refused("a.txt\n<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n").1,
            Some(2)
        );
        let (message, line) = refused(&format!("a.txt\n{BODY}c\n>>>>>>> REPLACE\n"));
        assert_eq!(line, Some(8));
        assert!(message.contains("ended at line 6"), "{message}");
        assert_eq!(
            refused("just prose\n=======\n").0,
            "no SEARCH/REPLACE blocks found"
        );
        assert_eq!(refused("").0, "no SEARCH/REPLACE blocks found");
    }
}
