//! The Codex `apply_patch` dialect: a `*** Begin Patch` envelope of file sections.
//!
//! Grammar (Codex's, restated; lines end with LF or CRLF):
//!
//! ```text
//! patch  := "*** Begin Patch" file+ "*** End Patch"
//! file   := add | delete | update
//! add    := "*** Add File: " path ("+" text)*       content: each text + "\n"
//! delete := "*** Delete File: " path
//! update := "*** Update File: " path ("*** Move to: " path)? chunk+
//! chunk  := header* line+ "*** End of File"?     the first chunk may omit its header
//! header := "@@" | "@@ " anchor
//! line   := " " text | "-" text | "+" text | ""    context, removed, added, empty context
//! ```
//!
//! Each chunk becomes one [`Block`] (`chunks[i]`): `search` is its context and removed lines,
//! `replace` its context and added lines, `anchors` the `@@ text` lines before it (several in a
//! row narrow the place step by step), `at_eof` whether `*** End of File` follows. Add and
//! Delete become `Create` / `Delete` (`files[i]`, i counting every file section).
//!
//! Leniency, as in Codex: blank lines around the envelope are ignored; `*** ` markers may carry
//! leading and trailing whitespace; a heredoc wrapper (`<<'EOF'`, `<<EOF`, `<<"EOF"`, any word)
//! and the shell form `apply_patch <<'EOF'` … `EOF` are stripped (`cd dir && …` is not); blank
//! lines before a section or a first chunk are skipped; a blank line inside a chunk is an empty
//! context line. Beyond Codex: a markdown fence around the patch is stripped; blank lines that
//! end a chunk (before `@@`, the next section or `*** End Patch`) are separators and dropped,
//! which is what Codex's retry without a trailing empty line amounts to (before `*** End of
//! File` they are kept: they describe the file's end); consecutive `@@ text` lines accumulate
//! anchors where Codex fails. `*** Move to:` moves the updated file (onto an existing file only
//! with `--overwrite`); naming the file itself (`./` steps aside) it is an in-place update. A
//! last chunk of only `+` lines without context or anchor appends at the end of the file (as
//! Codex does); elsewhere such a chunk has no place and is refused.

use crate::error::{Code, Error, Result};
use crate::plan::{Block, Op, OpKind, Origin, PathBase, PathSpec, Plan, Side};

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const SECTION_HINT: &str = "Sections start with `*** Add File: <path>`, `*** Delete File: <path>` \
    or `*** Update File: <path>`; every line of an added file starts with `+`, empty ones too.";
const CHUNK_HINT: &str = "Chunk lines start with ' ' (context), '-' (removed) or '+' (added); \
    a chunk starts with `@@` or `@@ <a line above it>`.";

/// One line of the input and its 1-based number.
#[derive(Clone, Copy, Debug)]
struct Line<'a> {
    no: usize,
    text: &'a str,
}

/// A `*** ` marker line, recognised after trimming.
enum Marker<'a> {
    Add(&'a str),
    Delete(&'a str),
    Update(&'a str),
    MoveTo(&'a str),
    EndOfFile,
    End,
}

type MakeMarker<'a> = fn(&'a str) -> Marker<'a>;

fn marker<'a>(text: &'a str) -> Option<Marker<'a>> {
    let t = text.trim();
    let headers: [(&str, MakeMarker<'a>); 4] = [
        ("*** Add File:", Marker::Add),
        ("*** Delete File:", Marker::Delete),
        ("*** Update File:", Marker::Update),
        ("*** Move to:", Marker::MoveTo),
    ];
    let header = headers
        .into_iter()
        .find_map(|(p, make)| Some(make(t.strip_prefix(p)?.trim())));
    header.or(match t {
        END => Some(Marker::End),
        "*** End of File" => Some(Marker::EndOfFile),
        _ => None,
    })
}

fn blank(text: &str) -> bool {
    text.trim().is_empty()
}

fn located(code: Code, line: usize, message: impl std::fmt::Display) -> Error {
    Error::new(code, format!("line {line}: {message}")).detail("input_line", line)
}

fn broken(line: usize, message: impl std::fmt::Display) -> Error {
    located(Code::PlanMalformed, line, message)
}

/// Compiles a Codex patch into a plan.
pub fn parse(input: &str) -> Result<Plan> {
    let numbered = input
        .lines()
        .enumerate()
        .map(|(i, text)| Line { no: i + 1, text });
    let lines: Vec<Line<'_>> = numbered.collect();
    let (body, end_line) = envelope(&lines)?;
    let mut compiler = Compiler::default();
    compiler.files(body)?;
    let renames = std::mem::take(&mut compiler.renames);
    for (index, rename) in renames.iter().enumerate() {
        let to = PathSpec {
            raw: rename.to.to_owned(),
            base: PathBase::Root,
        };
        compiler.push(
            rename.from,
            ("moves", index, Some(rename.line)),
            OpKind::Move { to },
        );
    }
    if compiler.ops.is_empty() {
        let message = "the patch changes nothing: it has no file sections";
        return Err(broken(end_line, message).hint(SECTION_HINT));
    }
    let ops = compiler.ops;
    Ok(Plan {
        label: None,
        dialect: "codex",
        ops,
        ..Plan::default()
    })
}

/// Drops blank lines at both ends.
fn trim_blank<'s, 'a>(mut lines: &'s [Line<'a>]) -> &'s [Line<'a>] {
    while let [first, rest @ ..] = lines
        && blank(first.text)
    {
        lines = rest;
    }
    while let [rest @ .., last] = lines
        && blank(last.text)
    {
        lines = rest;
    }
    lines
}

/// The closing line of a wrapper that `text` opens: a heredoc, `apply_patch <<'EOF'`, a fence.
fn opener(text: &str) -> Option<&str> {
    let t = text.trim();
    if t.starts_with("```") {
        return Some("```");
    }
    let t = ["apply_patch", "applypatch"]
        .iter()
        .find_map(|c| t.strip_prefix(c))
        .unwrap_or(t);
    let word = t
        .trim_start()
        .strip_prefix("<<")?
        .trim_start_matches('-')
        .trim();
    let unquoted = ['\'', '"']
        .iter()
        .find_map(|q| word.strip_prefix(*q)?.strip_suffix(*q));
    let word = unquoted.unwrap_or(word);
    let valid = !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some(word)
}

/// A patch quoted in a reply: the one `*** Begin Patch` ... `*** End Patch` among prose and
/// fences (what stands outside is ignored, but not a shell command); or, without markers at
/// all, a reply that starts with a file section (`*** Update File: ...`), up to an
/// `*** End Patch` or its end.
fn quoted<'s, 'a>(lines: &'s [Line<'a>]) -> Option<(&'s [Line<'a>], usize)> {
    let is = |l: &Line<'_>, marker: &str| l.text.trim() == marker;
    let begins: Vec<usize> = (0..lines.len()).filter(|&i| is(&lines[i], BEGIN)).collect();
    // A shell command before the patch (`cd sub && apply_patch <<'EOF'`) may move where its
    // paths point: no prose.
    let shell = |l: &Line<'_>| {
        let t = l.text.trim_start();
        t.contains("<<")
            || t.contains("apply_patch")
            || t.contains("applypatch")
            || t.starts_with("cd ")
    };
    if lines[..begins.first().copied().unwrap_or(0)]
        .iter()
        .any(shell)
    {
        return None;
    }
    match begins.as_slice() {
        [begin] => {
            let end = (begin + 1..lines.len()).find(|&i| is(&lines[i], END))?;
            Some((&lines[begin + 1..end], lines[end].no))
        }
        [] => {
            let first = lines.first()?.text;
            let section = ["*** Update File: ", "*** Add File: ", "*** Delete File: "];
            if !section.iter().any(|h| first.starts_with(h)) {
                return None;
            }
            let end = (0..lines.len()).find(|&i| is(&lines[i], END));
            let body = &lines[..end.unwrap_or(lines.len())];
            Some((body, lines[end.unwrap_or(lines.len() - 1)].no))
        }
        _ => None,
    }
}

/// Strips the wrapper and the Begin/End markers: the body lines and the `*** End Patch` line.
fn envelope<'s, 'a>(lines: &'s [Line<'a>]) -> Result<(&'s [Line<'a>], usize)> {
    let mut lines = trim_blank(lines);
    if let Some(first) = lines.first()
        && let Some(close) = opener(first.text)
    {
        match lines {
            [_, inner @ .., last] if last.text.trim() == close => lines = trim_blank(inner),
            _ => {
                return Err(broken(
                    first.no,
                    format!("the wrapper is not closed by `{close}`"),
                ));
            }
        }
    }
    let Some(first) = lines.first() else {
        return Err(Error::malformed("the patch is empty"));
    };
    if first.text.trim() != BEGIN
        && let Some(quoted) = quoted(lines)
    {
        return Ok(quoted);
    }
    if first.text.trim() != BEGIN {
        let message = format!(
            "the patch must start with `{BEGIN}`, not `{}`",
            first.text.trim()
        );
        return Err(broken(first.no, message).hint("Send the patch bare or in a heredoc."));
    }
    match lines.iter().skip(1).position(|l| l.text.trim() == END) {
        Some(i) if i + 2 < lines.len() => {
            Err(broken(lines[i + 2].no, "text after `*** End Patch`"))
        }
        Some(i) => Ok((&lines[1..=i], lines[i + 1].no)),
        None => Err(broken(
            lines[lines.len() - 1].no,
            "the patch ends without `*** End Patch`",
        )),
    }
}

/// `Some(anchor)` for a `@@` line (`Some(None)` for a bare `@@`).
fn chunk_header(text: &str) -> Option<Option<String>> {
    let rest = text.trim_end().strip_prefix("@@")?;
    if rest.is_empty() {
        return Some(None);
    }
    let anchor = rest.strip_prefix([' ', '\t'])?;
    Some((!anchor.is_empty()).then(|| anchor.to_owned()))
}

/// A `*** Move to:` request: the updated file moves there (after its chunks apply).
struct Rename<'a> {
    from: &'a str,
    to: &'a str,
    line: usize,
}

/// The chunk being read.
#[derive(Default)]
struct Pending<'a> {
    start: Option<usize>,
    anchors: Vec<String>,
    body: Vec<&'a str>,
    at_eof: bool,
}

#[derive(Default)]
struct Compiler<'a> {
    ops: Vec<Op>,
    renames: Vec<Rename<'a>>,
    files: usize,
    chunks: usize,
}

impl<'a> Compiler<'a> {
    fn files(&mut self, body: &[Line<'a>]) -> Result<()> {
        let mut i = 0;
        while let Some(&line) = body.get(i) {
            i += 1;
            match marker(line.text) {
                _ if blank(line.text) => {}
                Some(Marker::Add(path)) => {
                    let n = body[i..]
                        .iter()
                        .take_while(|l| l.text.starts_with('+'))
                        .count();
                    let content = body[i..i + n].iter().map(|l| format!("{}\n", &l.text[1..]));
                    let content = content.collect();
                    i += n;
                    self.file(path, line, OpKind::Create { content })?;
                }
                Some(Marker::Delete(path)) => {
                    self.file(path, line, OpKind::Delete { expected: None })?;
                }
                Some(Marker::Update(path)) => {
                    let from = checked(path, line)?;
                    self.files += 1;
                    if let Some(&next) = body.get(i)
                        && let Some(Marker::MoveTo(to)) = marker(next.text)
                    {
                        let to = checked(to, next)?;
                        if normal(to) != normal(from) {
                            self.renames.push(Rename {
                                from,
                                to,
                                line: next.no,
                            });
                        }
                        i += 1;
                    }
                    i += self.update(from, line.no, &body[i..])?;
                }
                Some(Marker::MoveTo(_)) => {
                    return Err(broken(
                        line.no,
                        "`*** Move to:` must follow `*** Update File:`",
                    ));
                }
                _ => {
                    let message = format!("`{}` is not a file header", line.text.trim());
                    return Err(broken(line.no, message).hint(SECTION_HINT));
                }
            }
        }
        Ok(())
    }

    fn file(&mut self, path: &str, line: Line<'_>, kind: OpKind) -> Result<()> {
        let path = checked(path, line)?;
        self.files += 1;
        self.push(path, ("files", self.files - 1, Some(line.no)), kind);
        Ok(())
    }

    fn push(&mut self, path: &str, at: (&'static str, usize, Option<usize>), kind: OpKind) {
        let path = PathSpec {
            raw: path.to_owned(),
            base: PathBase::Root,
        };
        let (list, index, input_line) = at;
        let origin = Origin {
            list,
            index,
            input_line,
            parent: None,
        };
        self.ops.push(Op { path, origin, kind });
    }

    /// Reads the chunks of one Update section; returns how many lines they took.
    fn update(&mut self, path: &str, header: usize, lines: &[Line<'a>]) -> Result<usize> {
        let before = self.ops.len();
        let mut chunk = Pending::default();
        let mut used = 0;
        for line in lines {
            let text = line.text;
            match marker(text) {
                Some(Marker::EndOfFile) if chunk.body.is_empty() => {
                    return Err(broken(line.no, "`*** End of File` follows no chunk lines"));
                }
                Some(Marker::EndOfFile) => {
                    chunk.at_eof = true;
                    self.flush(path, &mut chunk);
                }
                Some(_) => break,
                None if text.starts_with('*') => break,
                None => match chunk_header(text) {
                    Some(anchor) => {
                        self.flush(path, &mut chunk);
                        chunk.start.get_or_insert(line.no);
                        chunk.anchors.extend(anchor);
                    }
                    None if chunk.start.is_none() && blank(text) => {}
                    None if matches!(text.chars().next(), None | Some(' ' | '+' | '-')) => {
                        chunk.start.get_or_insert(line.no);
                        chunk.body.push(text);
                    }
                    None => {
                        let message = format!("unexpected line in a chunk of {path}: `{text}`");
                        return Err(broken(line.no, message).hint(CHUNK_HINT));
                    }
                },
            }
            used += 1;
        }
        self.flush(path, &mut chunk);
        self.append_last(before);
        if let Some(start) = chunk.start {
            return Err(broken(
                start,
                format!("the `@@` chunk of {path} has no lines"),
            ));
        }
        if self.ops.len() == before {
            let message = format!("`*** Update File: {path}` has no chunks");
            return Err(broken(header, message).hint(CHUNK_HINT));
        }
        Ok(used)
    }

    /// A last chunk of only added lines, without context or anchor, appends to the file
    /// (Codex's way to add lines at the end).
    fn append_last(&mut self, section_start: usize) {
        if self.ops.len() == section_start {
            return;
        }
        if let Some(Op {
            kind: OpKind::Block(block),
            ..
        }) = self.ops.last_mut()
            && block.search.is_empty()
            && block.anchors.is_empty()
        {
            block.at_eof = true;
        }
    }

    /// Emits the chunk as a block once it has lines; its trailing blank lines are separators
    /// and dropped, unless `*** End of File` follows.
    fn flush(&mut self, path: &str, chunk: &mut Pending<'_>) {
        while !chunk.at_eof && chunk.body.last().is_some_and(|t| blank(t)) {
            chunk.body.pop();
        }
        if chunk.body.is_empty() {
            return;
        }
        let pending = std::mem::take(chunk);
        let (anchors, at_eof) = (pending.anchors, pending.at_eof);
        let mut block = Block {
            anchors,
            at_eof,
            ..Block::default()
        };
        for text in pending.body {
            let rest = text.get(1..).unwrap_or_default();
            block.script.push(match text.as_bytes().first() {
                Some(b'+') => Side::New,
                Some(b'-') => Side::Old,
                _ => Side::Both,
            });
            for (side, skip) in [(&mut block.search, '+'), (&mut block.replace, '-')] {
                if !text.starts_with(skip) {
                    side.push_str(rest);
                    side.push('\n');
                }
            }
        }
        self.chunks += 1;
        let at = ("chunks", self.chunks - 1, pending.start);
        self.push(path, at, OpKind::Block(block));
    }
}

/// A path without leading `./` steps, to tell whether a move names the file itself.
fn normal(path: &str) -> &str {
    let mut path = path;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest.trim_start_matches('/');
    }
    path
}

/// The path of a section header, which must not be empty.
fn checked<'p>(path: &'p str, line: Line<'_>) -> Result<&'p str> {
    match path {
        "" => Err(broken(
            line.no,
            format!("`{}` names no path", line.text.trim()),
        )),
        path => Ok(path),
    }
}

#[cfg(test)]
mod tests;
