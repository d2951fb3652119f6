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
//! anchors where Codex fails. `*** Move to:` is parsed but refused: the engine cannot move
//! files yet.

use crate::error::{Code, Error, Result};
use crate::plan::{Block, Op, OpKind, Origin, PathBase, PathSpec, Plan};

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
    if let Some(rename) = compiler.renames.first() {
        let (from, to) = (rename.from, rename.to);
        let message = format!("`*** Move to: {to}` renames {from}; this build cannot rename yet");
        return Err(located(Code::PlanUnsupported, rename.line, message).hint(
            "Add the new file with `*** Add File:`; remove the old one with `*** Delete File:`.",
        ));
    }
    if compiler.ops.is_empty() {
        let message = "the patch changes nothing: it has no file sections";
        return Err(broken(end_line, message).hint(SECTION_HINT));
    }
    let ops = compiler.ops;
    Ok(Plan {
        label: None,
        dialect: "codex",
        input_sha256: None,
        ops,
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

/// A `*** Move to:` request, kept so that renames can be enabled once the engine moves files.
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
                        self.renames.push(Rename {
                            from,
                            to,
                            line: next.no,
                        });
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
mod tests {
    use super::*;

    fn wrap(body: &str) -> String {
        format!("*** Begin Patch\n{body}\n*** End Patch\n")
    }

    fn ok(input: &str) -> Vec<Op> {
        parse(input).expect("the patch parses").ops
    }

    fn blocks(ops: Vec<Op>) -> Vec<Block> {
        let block = |op: Op| match op.kind {
            OpKind::Block(block) => Some(block),
            _ => None,
        };
        ops.into_iter().filter_map(block).collect()
    }

    fn b(search: &str, replace: &str, anchors: &[&str], at_eof: bool) -> Block {
        let anchors = anchors.iter().map(|a| (*a).to_owned()).collect();
        let (search, replace) = (search.to_owned(), replace.to_owned());
        Block {
            search,
            replace,
            anchors,
            at_eof,
            ..Block::default()
        }
    }

    fn labels(ops: &[Op]) -> Vec<String> {
        ops.iter().map(|op| op.origin.label()).collect()
    }

    /// Code, `input_line` and message of a refused patch.
    fn err(input: &str) -> (Code, Option<u64>, String) {
        let e = parse(input).expect_err("the patch is refused");
        let line = e.details.get("input_line").and_then(|v| v.as_u64());
        (e.code, line, e.message)
    }

    #[test]
    fn add_delete_and_update_in_one_patch() {
        let plan = parse(&wrap("*** Add File: docs/new.md\n+# T\n+\n*** Delete File: old.txt\n*** Update File: a.rs\n@@\n fn a() {\n-    1\n+    2\n }")).expect("parses");
        assert_eq!(plan.dialect, "codex");
        let ops = plan.ops;
        assert!(matches!(&ops[0].kind, OpKind::Create { content } if content == "# T\n\n"));
        assert!(matches!(&ops[1].kind, OpKind::Delete { expected: None }));
        let raw: Vec<&str> = ops.iter().map(|o| o.path.raw.as_str()).collect();
        assert_eq!(raw, ["docs/new.md", "old.txt", "a.rs"]);
        assert!(ops.iter().all(|o| o.path.base == PathBase::Root));
        let want = [
            "files[0] (line 2)",
            "files[1] (line 5)",
            "chunks[0] (line 7)",
        ];
        assert_eq!(labels(&ops), want, "file sections and chunks count apart");
        let change = b("fn a() {\n    1\n}\n", "fn a() {\n    2\n}\n", &[], false);
        assert_eq!(blocks(ops), [change]);
    }

    #[test]
    fn chunks_with_and_without_anchors() {
        let ops = ok(&wrap(
            "*** Update File: m.py\n x = 1\n-y = 2\n+y = 3\n@@ class A:\n@@   def f(self):\n-    pass\n+    return 1\n@@\n-z\n+Z\n@@ def g():\n+    # added",
        ));
        let lines: Vec<Option<usize>> = ops.iter().map(|op| op.origin.input_line).collect();
        assert_eq!(lines, [Some(3), Some(6), Some(10), Some(13)]);
        let want = [
            b("x = 1\ny = 2\n", "x = 1\ny = 3\n", &[], false),
            b(
                "    pass\n",
                "    return 1\n",
                &["class A:", "  def f(self):"],
                false,
            ),
            b("z\n", "Z\n", &[], false),
            b("", "    # added\n", &["def g():"], false),
        ];
        assert_eq!(blocks(ops), want);
    }

    #[test]
    fn end_of_file_and_blank_lines() {
        let ops = ok(&wrap(
            "*** Update File: t\n@@\n-last\n+final\n*** End of File\n\n@@\n-x\n+y\n\n*** End of File\n*** Update File: u\n\n@@ head\n one\n\n-two\n+2\n\n   \n@@ a\n\n@@ b\n+new\n",
        ));
        let want = [
            b("last\n", "final\n", &[], true),
            b("x\n\n", "y\n\n", &[], true),
            b("one\n\ntwo\n", "one\n\n2\n", &["head"], false),
            b("", "new\n", &["a", "b"], false),
        ];
        assert_eq!(labels(&ops)[3], "chunks[3] (line 22)");
        assert_eq!(blocks(ops), want);
    }

    #[test]
    fn padded_markers_and_crlf_are_accepted() {
        let ops = ok(
            "\n  *** Begin Patch  \r\n  *** Update File: f.txt \r\n@@  \r\n-one\r\n+two\r\n  *** End of File \r\n\t*** Add File:  g.txt\r\n+g\r\n *** End Patch \r\n\n",
        );
        let paths: Vec<&str> = ops.iter().map(|o| o.path.raw.as_str()).collect();
        assert_eq!(paths, ["f.txt", "g.txt"]);
        assert!(matches!(&ops[1].kind, OpKind::Create { content } if content == "g\n"));
        assert_eq!(labels(&ops), ["chunks[0] (line 4)", "files[1] (line 8)"]);
        assert_eq!(blocks(ops), [b("one\n", "two\n", &[], true)]);
    }

    #[test]
    fn heredoc_shell_and_fence_wrappers_are_stripped() {
        let body = wrap("*** Delete File: x.txt");
        for (open, close) in [
            ("<<'EOF'", "EOF"),
            ("<<EOF", "EOF"),
            ("<<\"PATCH\"", "PATCH"),
            ("apply_patch <<'EOF'", "EOF"),
            ("  applypatch <<-EOF", "  EOF"),
            ("```diff", "```"),
        ] {
            let ops = ok(&format!("{open}\n{body}{close}\n"));
            assert_eq!(ops[0].path.raw, "x.txt", "{open}");
            assert_eq!(labels(&ops), ["files[0] (line 3)"], "{open}");
        }
        let (code, line, _) = err(&format!("apply_patch <<'EOF'\n{body}"));
        assert_eq!((code, line), (Code::PlanMalformed, Some(1)));
        let (_, line, _) = err(&format!("cd sub && apply_patch <<'EOF'\n{body}EOF"));
        assert_eq!(line, Some(1));
    }

    #[test]
    fn errors_name_the_line() {
        let (code, line, _) = err("hello\n*** Begin Patch\n*** Delete File: a\n*** End Patch");
        assert_eq!(
            (code, line),
            (Code::PlanMalformed, Some(1)),
            "must start with Begin"
        );
        let cases = [
            ("*** Delete File: a\n\n", 2, "ends without"),
            ("*** Delete File: a\n*** End Patch\nmore", 4, "text after"),
            ("\n*** End Patch\n", 3, "changes nothing"),
            ("*** Update File: a\n*** End Patch", 2, "has no chunks"),
            (
                "*** Update File: a\n\n*** Delete File: b\n*** End Patch",
                2,
                "has no chunks",
            ),
            (
                "*** Update File: a\n@@ ctx\n*** End Patch",
                3,
                "has no lines",
            ),
            ("*** Rename File: a\n*** End Patch", 2, "not a file header"),
            (
                "*** Add File: a\n+x\ny\n*** End Patch",
                4,
                "not a file header",
            ),
            (
                "*** Update File: a\n-x\n*** Bogus\n*** End Patch",
                4,
                "not a file header",
            ),
            (
                "*** Update File: a\n-x\nplain\n*** End Patch",
                4,
                "unexpected line",
            ),
            (
                "*** Update File: a\n@@ x\n*** End of File\n*** End Patch",
                4,
                "End of File",
            ),
            ("*** Add File:\n+x\n*** End Patch", 2, "names no path"),
            ("*** Move to: b\n*** End Patch", 2, "must follow"),
        ];
        for (body, line, text) in cases {
            let (code, at, message) = err(&format!("*** Begin Patch\n{body}"));
            let want = (Code::PlanMalformed, Some(line));
            assert_eq!((code, at), want, "{body}: {message}");
            assert!(message.contains(text), "{body}: {message}");
        }
        assert_eq!(err(" \n").0, Code::PlanMalformed);
    }

    #[test]
    fn move_to_is_parsed_but_refused() {
        let (code, line, message) = err(&wrap("*** Update File: a\n  *** Move to: b\n@@\n-x\n+y"));
        assert_eq!((code, line), (Code::PlanUnsupported, Some(3)));
        assert!(message.contains("renames a"), "{message}");
        let (code, ..) = err(&wrap("*** Update File: a\n*** Move to: b"));
        assert_eq!(
            code,
            Code::PlanMalformed,
            "an empty update is refused first"
        );
    }
}
