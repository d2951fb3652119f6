//! Resolving an exact find/replace against a file's current text.
//!
//! `find` must occur exactly once unless an occurrence is picked or every one is replaced.
//! The only tolerance is the line-ending rule: in a file whose line breaks are all `\r\n`, a
//! `find` written with `\n` matches (and the reverse in an all-`\n` file); replacements are
//! always written in the file's own line ending. A file that mixes both is never converted.

use crate::error::{Code, Error, Result};
use crate::locate::diagnose;
use crate::locate::lines::{Endings, LineCounter};
use crate::plan::splice::Splice;
use crate::plan::{Digest, Occurrence, TextEdit};

/// Where an edit comes from and which file it targets, for messages.
pub struct EditContext<'a> {
    pub path: &'a str,
    /// `edits[2]`
    pub label: &'a str,
    /// Position of the operation in the plan; stored on its splices.
    pub op: usize,
    pub digest: Digest,
    /// The file's line-ending style, judged once per file and shared by its edits.
    pub endings: &'a std::cell::OnceCell<Endings>,
}

/// The splices one edit resolved to, and how it matched.
#[derive(Debug)]
pub struct Resolved {
    pub splices: Vec<Splice>,
    /// `exact` or `line_endings`.
    pub matched_by: &'static str,
}

/// Resolves `edit` against `text` (the file as read).
pub fn resolve(edit: &TextEdit, text: &str, ctx: &EditContext<'_>) -> Result<Resolved> {
    let endings_of = || *ctx.endings.get_or_init(|| Endings::of(text));
    let mut find = edit.find.as_str();
    let mut matched_by = "exact";
    let mut starts = match_starts(text, find);
    let converted;
    if starts.is_empty() && find.contains('\n') {
        let style = endings_of();
        if matches!(style, Endings::Crlf | Endings::Lf) {
            converted = style.convert(find);
            if converted != find {
                starts = match_starts(text, &converted);
                find = &converted;
                matched_by = "line_endings";
            }
        }
    }
    if starts.is_empty() {
        return Err(missing(edit, text, ctx));
    }
    let chosen = choose(edit.select, &starts, find.len(), text, ctx)?;
    let replacement = if edit.replace.contains('\n') {
        endings_of().convert(&edit.replace)
    } else {
        edit.replace.clone()
    };
    let splices = chosen
        .into_iter()
        .map(|start| Splice {
            range: start..start + find.len(),
            text: replacement.clone(),
            op: ctx.op,
        })
        .collect();
    Ok(Resolved {
        splices,
        matched_by,
    })
}

/// Every start of `needle` in `haystack`, overlapping ones included.
fn match_starts(haystack: &str, needle: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    if needle.is_empty() {
        return starts;
    }
    let finder = memchr::memmem::Finder::new(needle);
    let mut from = 0;
    while let Some(found) = finder.find(&haystack.as_bytes()[from..]) {
        let at = from + found;
        starts.push(at);
        from = at + haystack[at..].chars().next().map_or(1, char::len_utf8);
    }
    starts
}

/// The starts that do not overlap an earlier chosen one, in order.
fn non_overlapping(starts: &[usize], len: usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(starts.len());
    for &start in starts {
        if out.last().is_none_or(|&prev| start >= prev + len) {
            out.push(start);
        }
    }
    out
}

fn choose(
    select: Occurrence,
    starts: &[usize],
    len: usize,
    text: &str,
    ctx: &EditContext<'_>,
) -> Result<Vec<usize>> {
    match select {
        Occurrence::Unique if starts.len() == 1 => Ok(starts.to_vec()),
        Occurrence::Unique => Err(ambiguous(starts, text, ctx)),
        Occurrence::All => Ok(non_overlapping(starts, len)),
        Occurrence::Nth(n) => {
            let distinct = non_overlapping(starts, len);
            distinct.get(n - 1).map(|&s| vec![s]).ok_or_else(|| {
                Error::new(
                    Code::AnchorMissing,
                    format!(
                        "{}: occurrence {n} was asked for, but `find` occurs {} time(s) in {}",
                        ctx.label,
                        distinct.len(),
                        ctx.path
                    ),
                )
                .detail("path", ctx.path)
                .detail("edit", ctx.op)
                .detail("matches", distinct.len())
                .detail("occurrence", n)
                .detail("lines", lines_of(&distinct, text))
                .detail("sha256", ctx.digest.to_hex())
                .hint("Re-read the file and pick an existing occurrence.")
            })
        }
    }
}

fn lines_of(starts: &[usize], text: &str) -> Vec<usize> {
    let mut counter = LineCounter::new(text.as_bytes());
    starts.iter().map(|&s| counter.line_at(s)).collect()
}

fn ambiguous(starts: &[usize], text: &str, ctx: &EditContext<'_>) -> Error {
    let lines = lines_of(starts, text);
    let shown: Vec<String> = lines.iter().take(20).map(ToString::to_string).collect();
    Error::new(
        Code::AnchorAmbiguous,
        format!("{}: `find` occurs {} times in {} (lines {})", ctx.label, starts.len(), ctx.path, shown.join(", ")),
    )
    .detail("path", ctx.path)
    .detail("edit", ctx.op)
    .detail("matches", starts.len())
    .detail("lines", lines)
    .detail("sha256", ctx.digest.to_hex())
    .hint("`find` matches more than once; add surrounding lines to make it unique, or set `occurrence` (1-based) or `all`.")
}

fn missing(edit: &TextEdit, text: &str, ctx: &EditContext<'_>) -> Error {
    let found = diagnose::missing(text, &edit.find);
    let mut message = format!("{}: `find` does not occur in {}", ctx.label, ctx.path);
    let hint = if let Some(line) = found.line_endings_line {
        message.push_str(&format!(
            "; the same text exists at line {line} with other line endings"
        ));
        "The file mixes line endings, so `find` is not converted: copy the exact bytes (\\r\\n or \\n) of that line."
    } else if let Some(line) = found.whitespace_line {
        message.push_str(&format!(
            "; the same text exists at line {line} with different whitespace"
        ));
        "Copy the file's exact text, indentation and spaces included, from the line named."
    } else if let Some(best) = found.closest.first() {
        message.push_str(&format!(
            "; closest is line {}: `{}`",
            best.line,
            diagnose::shorten(&best.text, 80)
        ));
        "Re-read the file and copy the exact current text into `find`."
    } else {
        "Re-read the file and copy the exact current text into `find`."
    };
    Error::new(Code::AnchorMissing, message)
        .detail("path", ctx.path)
        .detail("edit", ctx.op)
        .detail("sha256", ctx.digest.to_hex())
        .detail("whitespace_variant_line", found.whitespace_line)
        .detail("line_endings_variant_line", found.line_endings_line)
        .detail("closest", found.closest_json())
        .hint(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> EditContext<'static> {
        EditContext {
            path: "f",
            label: "edits[0]",
            op: 0,
            digest: Digest::of(b""),
            endings: Box::leak(Box::default()),
        }
    }

    fn run(
        text: &str,
        find: &str,
        replace: &str,
        select: Occurrence,
    ) -> std::result::Result<String, &'static str> {
        let edit = TextEdit {
            find: find.into(),
            replace: replace.into(),
            select,
        };
        let mut resolved = resolve(&edit, text, &ctx()).map_err(|e| e.code.as_str())?;
        crate::plan::splice::order(&mut resolved.splices).map_err(|_| "overlap")?;
        Ok(String::from_utf8_lossy(&crate::plan::splice::apply(
            text.as_bytes(),
            &resolved.splices,
        ))
        .into_owned())
    }

    #[test]
    fn starts_overlap_and_fall_on_characters() {
        assert_eq!(match_starts("aaaa", "aa"), [0, 1, 2]);
        assert_eq!(match_starts("éé-éé", "éé"), [0, 5]);
        assert_eq!(match_starts("abc", ""), Vec::<usize>::new());
    }

    #[test]
    fn unique_nth_all() {
        assert_eq!(
            run("a-b a-b", "a-b", "x", Occurrence::Unique),
            Err("anchor_ambiguous")
        );
        assert_eq!(
            run("a-b a-b", "a-b", "x", Occurrence::Nth(2)),
            Ok("a-b x".into())
        );
        assert_eq!(
            run("a-b a-b", "a-b", "x", Occurrence::Nth(3)),
            Err("anchor_missing")
        );
        assert_eq!(
            run("a-b a-b", "a-b", "x", Occurrence::All),
            Ok("x x".into())
        );
        assert_eq!(
            run("aaa", "aa", "b", Occurrence::Unique),
            Err("anchor_ambiguous")
        );
        assert_eq!(
            run("q", "z", "b", Occurrence::Unique),
            Err("anchor_missing")
        );
    }

    #[test]
    fn line_endings_follow_the_file() {
        assert_eq!(
            run("a\r\nb\r\nc\r\n", "a\nb", "x\ny", Occurrence::Unique),
            Ok("x\r\ny\r\nc\r\n".into())
        );
        assert_eq!(
            run("a\nb\n", "a\r\nb", "x\r\ny", Occurrence::Unique),
            Ok("x\ny\n".into())
        );
        assert_eq!(
            run("a\r\nb\nc", "a\nb", "x", Occurrence::Unique),
            Err("anchor_missing")
        );
        assert_eq!(
            run("a\r\nb\nc", "b\nc", "y\nz", Occurrence::Unique),
            Ok("a\r\ny\nz".into())
        );
    }
}
