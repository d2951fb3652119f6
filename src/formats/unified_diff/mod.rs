//! Unified diffs (`git diff`, `diff -u`), compiled into blocks that the tolerance ladder finds
//! by content. The line numbers in a diff are only hints.
//!
//! ```text
//! diff  := prose* file+          (prose, e.g. a chat reply, before and between files is ignored)
//! file  := git? pair? hunk*
//! git   := "diff --git " old " " new NL ext*
//! ext   := "index " ... | "similarity index " ... | "dissimilarity index " ...
//!        | "new file mode " (100644 | 100755) | "deleted file mode " mode
//!        | "old mode " mode | "new mode " (100644 | 100755)  (the executable bit, with the hunks)
//!        | "rename from|to " (a move after the hunks) | "copy from|to " -> plan_unsupported
//!        | "Binary files " ... " differ" | "GIT binary patch"               -> plan_unsupported
//! pair  := "--- " path ["\t" stamp] NL "+++ " path ["\t" stamp] NL
//! path  := raw | "C-quoted" | /dev/null
//! hunk  := "@@ -" l ["," s] " +" l ["," s] " @@" [section] NL body  |  "@@" [" @@"] NL body
//! body  := (" " text | "-" text | "+" text | "" | "\ No newline at end of file")+
//! ```
//! - Each file becomes ops: `--- /dev/null` (or `new file mode`) a `files[i]` create of the added
//!   lines; `+++ /dev/null` (or `deleted file mode`) a `files[i]` delete; otherwise one
//!   `hunks[j]` block per hunk: `search` = context + removed lines, `replace` = context + added
//!   lines, `hint_line` = the old start line. `i` counts file sections, `j` every `@@` header.
//! - A line followed by the no-newline marker has no terminator on its side(s); the hunk then
//!   reaches the end of the file on both sides, so the block gets `at_eof`. `\r` stays part of
//!   the line text: the engine handles line endings.
//! - Paths: `a/` and `b/` are stripped when both sides carry them (`/dev/null` counts as either);
//!   otherwise they are used as given (`-p0`). A leading `./` is dropped. Git-style sides
//!   naming two paths (or `rename from/to`) are a rename: the hunks apply to the old path,
//!   which then moves. `new mode` / `new file mode 100755` set the executable bit (with the hunks,
//!   or alone); symlinks, submodules, copies and binary patches are refused. A plain
//!   `diff -u x.orig x` takes the new side's path.
//! - Counts: the body is the run of body-shaped lines after the header. Bare empty lines are
//!   empty context (agents and editors strip the leading space); trailing ones only count when
//!   the header counts need them. When the counts disagree with the body but the body is clearly
//!   complete (the next line is a `@@`/file header, a closing "```" fence or the end), the body
//!   is recounted, because agents often miscount; otherwise the hunk is malformed. A bare `@@`
//!   without numbers is accepted on the same terms. A `--- ` line directly followed by a
//!   `+++ ` line always starts the next file, even where the counts say the hunk goes on.

use crate::error::{Code, Error, Result};
use crate::plan::{Block, Op, OpKind, Origin, PathBase, PathSpec, Plan, Side};

/// One hunk: its index among all hunks, its header line and its block.
struct Hunk {
    index: usize,
    at: usize,
    block: Block,
}

/// The headers of one file section, paths still raw.
#[derive(Default)]
struct Header {
    at: usize,
    git: Option<String>,
    pair: Option<(String, String)>,
    /// `rename from` / `rename to` of a git rename.
    rename: (Option<String>, Option<String>),
    new_file: bool,
    deleted: bool,
    /// The executable bit a mode change (`new mode`, `new file mode`) gives the file.
    executable: Option<bool>,
}

#[derive(Default)]
struct Parser<'a> {
    lines: Vec<&'a str>,
    pos: usize,
    ops: Vec<Op>,
    hunks: usize,
    files: usize,
}

/// Compiles a unified diff into a plan.
pub fn parse(input: &str) -> Result<Plan> {
    let mut lines: Vec<&str> = input.split('\n').collect();
    if input.is_empty() || input.ends_with('\n') {
        lines.pop();
    }
    let mut parser = Parser {
        lines,
        ..Parser::default()
    };
    while parser.pos < parser.lines.len() {
        parser.step()?;
    }
    if parser.ops.is_empty() {
        let hint = "Send `--- a/PATH` and `+++ b/PATH` headers, each followed by `@@` hunks.";
        return Err(Error::malformed("the diff has no file with hunks").hint(hint));
    }
    let ops = parser.ops;
    Ok(Plan {
        dialect: "diff",
        ops,
        ..Plan::default()
    })
}

/// A malformed-diff error at 1-based input line `at`.
fn malformed(at: usize, message: impl AsRef<str>) -> Error {
    Error::malformed(format!("line {at}: {}", message.as_ref())).detail("input_line", at)
}

/// "`what` are not executable by this build", at input line `at`.
fn unsupported(at: usize, what: &str) -> Error {
    let message = format!("line {at}: {what} are not executable by this build");
    Error::new(Code::PlanUnsupported, message).detail("input_line", at)
}

/// Whether a git mode is the executable one; modes other than a regular file's are refused.
fn regular(mode: &str, at: usize) -> Result<bool> {
    match mode.trim() {
        "100644" => Ok(false),
        "100755" => Ok(true),
        _ => Err(unsupported(at, "symlinks and submodules")),
    }
}

/// Refuses the header lines of changes this build cannot execute.
fn refuse(line: &str, at: usize) -> Result<()> {
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| line.starts_with(p));
    let binary = line.starts_with("Binary files ") && line.ends_with(" differ");
    if binary || starts(&["GIT binary patch"]) {
        return Err(unsupported(at, "binary patches"));
    }
    if starts(&["copy from ", "copy to "]) {
        let hint = "Copy the file first, then send the content change.";
        return Err(unsupported(at, "copies").hint(hint));
    }
    Ok(())
}

impl<'a> Parser<'a> {
    /// Line `i` without a trailing `\r`, for header checks; empty past the end.
    fn header(&self, i: usize) -> &'a str {
        self.lines.get(i).map_or("", |l| l.trim_end_matches('\r'))
    }

    fn is_pair(&self, i: usize) -> bool {
        self.header(i).starts_with("--- ") && self.header(i + 1).starts_with("+++ ")
    }

    fn is_file_start(&self, i: usize) -> bool {
        self.header(i).starts_with("diff --git ") || self.is_pair(i)
    }

    fn is_body(&self, i: usize) -> bool {
        let line = self.lines.get(i).copied().unwrap_or("@");
        let shaped = is_blank(&line) || line.starts_with([' ', '+', '-', '\\']);
        shaped && !self.is_pair(i)
    }

    /// Whether a hunk body that stops before line `i` is clearly complete.
    fn complete_at(&self, i: usize) -> bool {
        let line = self.header(i);
        let next = line.starts_with("@@") || self.is_file_start(i) || line.trim() == "```";
        next || i >= self.lines.len()
    }

    fn step(&mut self) -> Result<()> {
        let (line, at) = (self.header(self.pos), self.pos + 1);
        if self.is_file_start(self.pos) {
            return self.file();
        }
        if line.starts_with("@@") {
            return Err(malformed(at, "a hunk before any `---`/`+++` header"));
        }
        refuse(line, at)?;
        self.pos += 1;
        Ok(())
    }

    fn file(&mut self) -> Result<()> {
        let mut header = Header {
            at: self.pos + 1,
            ..Header::default()
        };
        if let Some(rest) = self.header(self.pos).strip_prefix("diff --git ") {
            header.git = Some(rest.to_owned());
            self.pos += 1;
            self.extended(&mut header)?;
        }
        if self.is_pair(self.pos) {
            let old = path_field(&self.header(self.pos)[4..], self.pos + 1)?;
            let new = path_field(&self.header(self.pos + 1)[4..], self.pos + 2)?;
            header.pair = Some((old, new));
            self.pos += 2;
        }
        let mut hunks = Vec::new();
        while self.header(self.pos).starts_with("@@") {
            hunks.push(self.hunk()?);
        }
        self.emit(&header, hunks)
    }

    /// The extended header lines after `diff --git`.
    fn extended(&mut self, header: &mut Header) -> Result<()> {
        while self.pos < self.lines.len() && !self.is_file_start(self.pos) {
            let (line, at) = (self.header(self.pos), self.pos + 1);
            refuse(line, at)?;
            if let Some(mode) = line.strip_prefix("new file mode ") {
                header.new_file = true;
                header.executable = Some(regular(mode, at)?).filter(|&x| x);
            } else if let Some(mode) = line.strip_prefix("new mode ") {
                header.executable = Some(regular(mode, at)?);
            } else if let Some(mode) = line.strip_prefix("old mode ") {
                regular(mode, at)?;
            } else if line.starts_with("deleted file mode ") {
                header.deleted = true;
            } else if let Some(from) = line.strip_prefix("rename from ") {
                header.rename.0 = Some(rename_path(from, at)?);
            } else if let Some(to) = line.strip_prefix("rename to ") {
                header.rename.1 = Some(rename_path(to, at)?);
            } else if !line.starts_with("index ") && !line.contains("similarity index ") {
                break;
            }
            self.pos += 1;
        }
        Ok(())
    }

    fn hunk(&mut self) -> Result<Hunk> {
        let at = self.pos + 1;
        let ranges = hunk_header(self.header(self.pos), at)?;
        self.pos = at;
        while self.pos < self.lines.len() && self.is_body(self.pos) {
            self.pos += 1;
        }
        let counts = ranges.map(|[(_, old), (_, new)]| (old, new));
        let raw = &self.lines[at..self.pos];
        let body = &raw[..fit(raw, counts, self.complete_at(self.pos), at, self.pos + 1)?];
        if body.is_empty() {
            return Err(malformed(at, "the hunk has no lines"));
        }
        let (search, old_open) = side_text(body, at + 1, true)?;
        let (replace, new_open) = side_text(body, at + 1, false)?;
        // `-l,0` inserts after line l: its place starts at line l + 1.
        let hint_line = ranges.map(|[(line, count), _]| line + usize::from(count == 0));
        let at_eof = old_open || new_open;
        let block = Block {
            search,
            replace,
            at_eof,
            hint_line,
            script: script(body),
            ..Block::default()
        };
        let index = self.hunks;
        self.hunks += 1;
        Ok(Hunk { index, at, block })
    }

    fn emit(&mut self, header: &Header, hunks: Vec<Hunk>) -> Result<()> {
        let file = ("files", self.files, header.at);
        self.files += 1;
        let (path, kind) = match paths(header)? {
            (None, None) => return Err(malformed(header.at, "both sides are /dev/null")),
            (None, Some(path)) => {
                one_sided(&hunks, '+')?;
                let content = hunks.iter().map(|h| h.block.replace.as_str()).collect();
                self.ops.push(op(&path, file, OpKind::Create { content }));
                if header.executable == Some(true) {
                    self.ops
                        .push(op(&path, file, OpKind::Mode { executable: true }));
                }
                return Ok(());
            }
            (Some(path), None) => {
                one_sided(&hunks, '-')?;
                (path, OpKind::Delete { expected: None })
            }
            (Some(old), Some(path)) if hunks.is_empty() && old == path => {
                let Some(executable) = header.executable else {
                    return Err(malformed(header.at, format!("`{path}` has no hunks")));
                };
                (path, OpKind::Mode { executable })
            }
            (Some(old), Some(new)) if old != new && header.executable.is_some() => {
                let what = "mode changes of renamed files";
                return Err(unsupported(header.at, what)
                    .hint("Send the rename and the mode change as two diffs."));
            }
            (Some(old), Some(new)) => {
                // The hunks address the file as it is (the old path); a rename moves it after.
                for Hunk { index, at, block } in hunks {
                    self.ops
                        .push(op(&old, ("hunks", index, at), OpKind::Block(block)));
                }
                if old != new {
                    let to = PathSpec {
                        raw: new,
                        base: PathBase::Root,
                    };
                    self.ops.push(op(&old, file, OpKind::Move { to }));
                }
                if let Some(executable) = header.executable {
                    self.ops.push(op(&old, file, OpKind::Mode { executable }));
                }
                return Ok(());
            }
        };
        self.ops.push(op(&path, file, kind));
        Ok(())
    }
}

/// A created file's hunks may only add lines (`+`), a deleted file's only remove them (`-`).
fn one_sided(hunks: &[Hunk], sign: char) -> Result<()> {
    let other_side = |b: &Block| [b.search.len(), b.replace.len()][usize::from(sign == '-')];
    let Some(hunk) = hunks.iter().find(|h| other_side(&h.block) > 0) else {
        return Ok(());
    };
    let message = format!("every line of a created or deleted file must start with `{sign}`");
    Err(malformed(hunk.at, message))
}

fn op(path: &str, (list, index, at): (&'static str, usize, usize), kind: OpKind) -> Op {
    let origin = Origin {
        list,
        index,
        input_line: Some(at),
        parent: None,
    };
    let path = PathSpec {
        raw: path.to_owned(),
        base: PathBase::Root,
    };
    Op { path, origin, kind }
}

/// `@@ -l,s +l,s @@ section` → the old and new `(line, count)`; a bare `@@` (or `@@ ... @@`)
/// → `None`.
fn hunk_header(line: &str, at: usize) -> Result<Option<[(usize, usize); 2]>> {
    if line.starts_with("@@@") {
        return Err(unsupported(at, "combined (merge) diffs"));
    }
    let rest = line.trim_start_matches('@').trim();
    // `@@ ... @@`: an agent that left the numbers out, as a bare `@@`.
    let elided = rest
        .trim_end_matches('@')
        .trim()
        .chars()
        .all(|c| matches!(c, '.' | '\u{2026}'));
    if rest.is_empty() || rest == "@@" || elided {
        return Ok(None);
    }
    let range = |text: &str| match text.split_once(',') {
        Some((line, count)) => Some((line.parse().ok()?, count.parse().ok()?)),
        None => Some((text.parse().ok()?, 1)),
    };
    let parsed = rest.split_once(" @@").and_then(|(ranges, _)| {
        let (old, new) = ranges.split_once(" +")?;
        Some([range(old.strip_prefix('-')?)?, range(new)?])
    });
    let bad = || malformed(at, format!("`{line}` is not `@@ -l,s +l,s @@`"));
    parsed.map(Some).ok_or_else(bad)
}

/// Whether a body line is on the old (or new) side, and its text after the marker column.
/// A bare empty line is empty context.
fn classify(line: &str, old: bool) -> (bool, &str) {
    match line.as_bytes().first() {
        Some(b'-') => (old, &line[1..]),
        Some(b'+') => (!old, &line[1..]),
        Some(b' ') => (true, &line[1..]),
        _ => (true, line),
    }
}

fn is_marker(line: &&str) -> bool {
    line.starts_with('\\')
}

/// A bare empty line (its leading space lost).
fn is_blank(line: &&str) -> bool {
    line.is_empty() || *line == "\r"
}

/// How many raw body lines the hunk keeps, after reconciling them with the header counts (see
/// the module doc).
fn fit(
    raw: &[&str],
    counts: Option<(usize, usize)>,
    complete: bool,
    at: usize,
    stop: usize,
) -> Result<usize> {
    let trailing = raw.iter().rev().take_while(|l| is_blank(l)).count();
    let trimmed = raw.len() - trailing;
    let count = |old| {
        raw[..trimmed]
            .iter()
            .filter(|l| !is_marker(l) && classify(l, old).0)
            .count()
    };
    let (old, new) = (count(true), count(false));
    if let Some(extra) = (0..=trailing).find(|&n| counts == Some((old + n, new + n))) {
        return Ok(trimmed + extra);
    }
    if complete {
        return Ok(trimmed);
    }
    let said = counts.map_or("no counts".into(), |(o, n)| format!("-{o} +{n}"));
    let message = format!("the hunk header says {said}, the body has -{old} +{new} lines");
    let hint = "Fix the `@@` counts, or end the hunk at the next header or the end of the input.";
    Err(malformed(at, message).detail("stopped_at", stop).hint(hint))
}

/// One side of a hunk body (its first line is input line `first`) as text; `true` when its
/// last line is followed by a no-newline marker and so has no terminator.
fn side_text(body: &[&str], first: usize, old: bool) -> Result<(String, bool)> {
    let (mut text, mut open) = (String::new(), false);
    for (i, line) in body.iter().enumerate() {
        let (at, previous) = (first + i, i.checked_sub(1).and_then(|p| body.get(p)));
        if is_marker(line) && previous.is_none_or(is_marker) {
            return Err(malformed(
                at,
                "a no-newline marker without a line before it",
            ));
        }
        let (on_side, line_text) = classify(line, old);
        if is_marker(line) || !on_side {
            continue;
        }
        if open {
            return Err(malformed(
                at,
                "a line after a no-newline marker on its side",
            ));
        }
        text.push_str(line_text);
        open = body.get(i + 1).is_some_and(is_marker);
        if !open {
            text.push('\n');
        }
    }
    // Kept with the plan for the whole command: no room grown by doubling left empty.
    text.shrink_to_fit();
    Ok((text, open))
}

/// The side of every body line (no-newline markers are on none).
fn script(body: &[&str]) -> Vec<Side> {
    let side = |line: &&str| match line.as_bytes().first() {
        Some(b'\\') => None,
        Some(b'-') => Some(Side::Old),
        Some(b'+') => Some(Side::New),
        _ => Some(Side::Both),
    };
    body.iter().filter_map(side).collect()
}

/// A `rename from` / `rename to` path (C-quoted or raw, relative to the repository).
fn rename_path(text: &str, at: usize) -> Result<String> {
    let path = if text.starts_with('"') {
        unquote(text).map(|(p, _)| p)
    } else {
        Some(text.trim_end().to_owned())
    };
    path.filter(|p| !p.is_empty())
        .ok_or_else(|| malformed(at, "a bad rename path"))
}

/// The old and new path of a file section (`None` for `/dev/null`), prefixes stripped.
fn paths(header: &Header) -> Result<(Option<String>, Option<String>)> {
    if let (Some(from), Some(to)) = &header.rename {
        return Ok((Some(from.clone()), Some(to.clone())));
    }
    let (old, new) = match &header.pair {
        Some(pair) => pair.clone(),
        None => header.git.as_deref().and_then(git_paths).ok_or_else(|| {
            malformed(header.at, "cannot tell the two paths of `diff --git` apart")
        })?,
    };
    let old = Some(old).filter(|p| p != "/dev/null" && !header.new_file);
    let new = Some(new).filter(|p| p != "/dev/null" && !header.deleted);
    let prefixed = old.as_deref().is_none_or(|p| p.starts_with("a/"))
        && new.as_deref().is_none_or(|p| p.starts_with("b/"));
    let clean = |path: String| {
        let path = if prefixed { &path[2..] } else { path.as_str() };
        let path = path.strip_prefix("./").unwrap_or(path);
        if path.is_empty() {
            return Err(malformed(header.at, "an empty path"));
        }
        Ok(path.to_owned())
    };
    let (old, new) = (old.map(clean).transpose()?, new.map(clean).transpose()?);
    if let (Some(o), Some(n), false) = (&old, &new, prefixed || header.git.is_some()) {
        // A plain `diff -u x.orig x` names a backup on the old side: the new side is the file.
        if o != n {
            return Ok((Some(n.clone()), Some(n.clone())));
        }
    }
    Ok((old, new))
}

/// A `---`/`+++` path: C-quoted, or raw up to a tab (a timestamp follows).
fn path_field(text: &str, at: usize) -> Result<String> {
    if text.starts_with('"') {
        let path = unquote(text).map(|(path, _)| path);
        return path.ok_or_else(|| malformed(at, "a badly quoted path"));
    }
    let path = text.split_once('\t').map_or(text, |(path, _)| path);
    Ok(path.trim_end().to_owned())
}

/// The two paths of `diff --git a/x b/x`: quoted, or split where both halves name one path.
fn git_paths(rest: &str) -> Option<(String, String)> {
    if let Some((old, tail)) = unquote(rest) {
        let tail = tail.strip_prefix(' ')?;
        let new = unquote(tail).map_or_else(|| tail.to_owned(), |(new, _)| new);
        return Some((old, new));
    }
    let mid = rest.len() / 2;
    let (old, new) = (rest.get(..mid)?, rest.get(mid + 1..)?);
    let same =
        old == new || (old.starts_with("a/") && new.starts_with("b/") && old[2..] == new[2..]);
    let split = rest.len() % 2 == 1 && rest.as_bytes().get(mid) == Some(&b' ');
    (split && same).then(|| (old.to_owned(), new.to_owned()))
}

/// A git C-quoted string (`"a/caf\303\251"`) and the text after it.
fn unquote(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let bytes = body.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while let Some(&byte) = bytes.get(i) {
        let (value, used) = match (byte, *bytes.get(i + 1).unwrap_or(&0)) {
            (b'"', _) => return String::from_utf8(out).ok().map(|p| (p, &body[i + 1..])),
            (b'\\', b'0'..=b'7') => (u8::from_str_radix(body.get(i + 1..i + 4)?, 8).ok()?, 4),
            (b'\\', b'n') => (b'\n', 2),
            (b'\\', b't') => (b'\t', 2),
            (b'\\', other) => (other, 2),
            (other, _) => (other, 1),
        };
        out.push(value);
        i += used;
    }
    None
}

#[cfg(test)]
mod tests;
