//! The splices of node operations on a resolved structure: replacements over the node's
//! bytes, deletions of its whole lines, insertions beside its extent, moves and scoped regex
//! replacements.

use crate::error::{Code, Error, Result};
use crate::lang::outline::Item;
use crate::plan::NodeOp;
use crate::plan::splice::Splice;

/// Start of the line holding `at`.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1)
}

/// End of the line content holding `at`, and the end of its terminator.
fn line_end(text: &str, at: usize) -> (usize, usize) {
    let content_end = text[at..].find(['\n', '\r']).map_or(text.len(), |i| at + i);
    let rest = &text[content_end..];
    let term = if rest.starts_with("\r\n") {
        2
    } else {
        usize::from(!rest.is_empty())
    };
    (content_end, content_end + term)
}

/// The whole-line range a deletion removes: the structure's lines, and one neighbouring blank
/// line when it would otherwise leave a doubled blank line, or a blank line dangling before
/// the end of the file or a closing bracket.
fn deleted_lines(text: &str, start: usize, end: usize) -> std::ops::Range<usize> {
    let prev_start = (start > 0).then(|| line_start(text, start - 1));
    let before_blank =
        prev_start.is_some_and(|p| blank(text[p..start].trim_end_matches(['\n', '\r'])));
    let (next_end, next_after) = line_end(text, end);
    let next = &text[end..next_end];
    let closing =
        end == text.len() || next.trim_start().starts_with(['}', ']', ')']) || next.trim() == "end";
    match prev_start {
        Some(_) if before_blank && end < text.len() && blank(next) => start..next_after,
        Some(p) if before_blank && closing => p..end,
        _ => start..end,
    }
}

fn blank(s: &str) -> bool {
    s.chars().all(|c| c == ' ' || c == '\t')
}

/// The splice of `op` on the structure `item`: a replacement covers the node; a deletion
/// and insertions use its extent (with its `export`, attributes, comments, `;` or `,`).
pub fn splice(
    item: &Item,
    extent: std::ops::Range<usize>,
    op: &NodeOp,
    text: &str,
    index: usize,
) -> Result<(Splice, Option<usize>)> {
    let at = |range: std::ops::Range<usize>, text: String| Splice {
        range,
        text,
        op: index,
    };
    let (a, b) = (extent.start, extent.end);
    let ls = line_start(text, a);
    let (le, after_term) = line_end(text, b);
    let own_lines = blank(&text[ls..a]) && blank(&text[b..le]);
    let result = match op {
        NodeOp::Replace(new) => at(item.span.clone(), new.clone()),
        NodeOp::ScopedRegex {
            pattern,
            replacement,
        } => return scoped_regex(item, pattern, replacement, text, index),
        NodeOp::Delete if own_lines && after_term > le => {
            at(deleted_lines(text, ls, after_term), String::new())
        }
        NodeOp::Delete if own_lines && ls > 0 => {
            let prev_term = if text[..ls].ends_with("\r\n") { 2 } else { 1 };
            at(ls - prev_term..le, String::new())
        }
        NodeOp::Delete => at(a..b, String::new()),
        // Payloads are verbatim at the structure's byte boundary: no line break of ours.
        NodeOp::InsertBefore(new) => at(a..a, new.clone()),
        NodeOp::InsertAfter(new) => at(b..b, new.clone()),
        NodeOp::MoveOut => at(a..b, String::new()),
        NodeOp::MoveIn(m) => {
            let point = if m.after { b } else { a };
            at(point..point, moved_text(m)?)
        }
        NodeOp::Insert(_) => {
            return Err(Error::new(
                Code::PlanMalformed,
                "`insert` works on file boundaries only",
            ));
        }
    };
    Ok((result, None))
}

/// The text a move inserts; the engine fills in the moved bytes before resolving.
pub fn moved_text(m: &crate::plan::MoveIn) -> Result<String> {
    m.text()
        .ok_or_else(|| Error::internal("a move's bytes were not read before resolving"))
}

/// The most a scoped regex may write (or 64 times the node, if that is more).
const MAX_REGEX_OUTPUT: usize = 16 << 20;

/// Refuses a replacement that names a group the pattern does not have: `$this` in a PHP
/// replacement would silently become nothing. `$$` writes a literal `$`.
fn check_replacement(re: &regex::Regex, replacement: &str, pattern: &str) -> Result<()> {
    let bytes = replacement.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        let rest = &replacement[i + 1..];
        if rest.starts_with('$') {
            i += 2;
            continue;
        }
        let (name, used) = match rest.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => ("", 0),
            },
            None => {
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                (&rest[..len], len)
            }
        };
        let known = match name.parse::<usize>() {
            Ok(n) => n < re.captures_len(),
            Err(_) => re.capture_names().flatten().any(|n| n == name),
        };
        if !name.is_empty() && !known {
            return Err(Error::new(
                Code::InvalidRequest,
                format!("the replacement refers to `${name}`, which the pattern does not capture"),
            )
            .detail("pattern", pattern)
            .detail("replacement", replacement)
            .hint("`$N` and `${name}` insert a captured group; write `$$` for a literal `$` (e.g. `$$this`)."));
        }
        i += 1 + used.max(1);
    }
    Ok(())
}

fn scoped_regex(
    item: &Item,
    pattern: &str,
    replacement: &str,
    text: &str,
    index: usize,
) -> Result<(Splice, Option<usize>)> {
    let re = regex::Regex::new(pattern).map_err(|e| {
        Error::new(Code::PlanMalformed, format!("invalid scoped regex: {e}"))
            .detail("pattern", pattern)
    })?;
    let node = &text[item.span.clone()];
    let count = re.find_iter(node).count();
    if count == 0 {
        return Err(Error::new(
            Code::InvalidRequest,
            format!("the pattern matches nothing inside {}", item.qualified_name),
        )
        .detail("pattern", pattern)
        .detail("qualified_name", item.qualified_name.as_str())
        .hint("The regex is bounded to the node's text; re-read the node with `read --symbol`."));
    }
    check_replacement(&re, replacement, pattern)?;
    let new = re.replace_all(node, replacement).into_owned();
    if new.len() > MAX_REGEX_OUTPUT.max(node.len().saturating_mul(64)) {
        return Err(Error::new(
            Code::InvalidRequest,
            format!(
                "the scoped regex would write {} bytes into {}",
                new.len(),
                item.qualified_name
            ),
        )
        .detail("pattern", pattern)
        .detail("output_bytes", new.len())
        .hint("A replacement this large is likely a mistake; write the new text with `replace`."));
    }
    Ok((
        Splice {
            range: item.span.clone(),
            text: new,
            op: index,
        },
        Some(count),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(text: &str, needle: &str) -> Item {
        let start = text.find(needle).expect("needle");
        Item {
            kind: "function_definition".into(),
            name: "f".into(),
            qualified_name: "f".into(),
            span: start..start + needle.len(),
            node_end: start + needle.len(),
            start_line: 1,
            end_line: 1,
            depth: 0,
            alias: false,
        }
    }

    fn run(text: &str, needle: &str, op: NodeOp) -> String {
        let item = item(text, needle);
        let (s, _) = splice(&item, item.span.clone(), &op, text, 0).expect("splice");
        String::from_utf8(crate::plan::splice::apply(text.as_bytes(), &[s])).expect("utf8")
    }

    #[test]
    fn whole_line_nodes_take_their_lines_with_them() {
        let text = "a\n    def f(): pass\nb\n";
        assert_eq!(run(text, "def f(): pass", NodeOp::Delete), "a\nb\n");
        assert_eq!(run("x = f(1) + 2\n", "f(1)", NodeOp::Delete), "x =  + 2\n");
        assert_eq!(run("a\r\nfn f() {}", "fn f() {}", NodeOp::Delete), "a");
    }

    #[test]
    fn inserted_payloads_are_spliced_verbatim_at_the_node_boundary() {
        let text = "a\n    def f(): pass\nb\n";
        let before = NodeOp::InsertBefore("# c\n    ".into());
        assert_eq!(
            run(text, "def f(): pass", before),
            "a\n    # c\n    def f(): pass\nb\n"
        );
        let after = NodeOp::InsertAfter("\n# e2e-after".into());
        assert_eq!(
            run(text, "def f(): pass", after),
            "a\n    def f(): pass\n# e2e-after\nb\n"
        );
        let glued = NodeOp::InsertAfter("fn g() {}".into());
        assert_eq!(
            run("a\r\nfn f() {}", "fn f() {}", glued),
            "a\r\nfn f() {}fn g() {}"
        );
    }

    #[test]
    fn scoped_regex_stays_inside_the_node() {
        let text = "old\nfn f() { old(); old(); }\nold\n";
        assert_eq!(
            run(
                text,
                "fn f() { old(); old(); }",
                NodeOp::ScopedRegex {
                    pattern: "old".into(),
                    replacement: "new".into()
                }
            ),
            "old\nfn f() { new(); new(); }\nold\n"
        );
    }

    #[test]
    fn a_replacement_naming_an_unknown_group_is_refused_and_dollar_dollar_is_literal() {
        let text = "fn f() { old(); }\n";
        let op = |replacement: &str| NodeOp::ScopedRegex {
            pattern: "(o)ld".into(),
            replacement: replacement.into(),
        };
        assert_eq!(
            run(text, "fn f() { old(); }", op("$$this->$1")),
            "fn f() { $this->o(); }\n"
        );
        assert_eq!(
            run(text, "fn f() { old(); }", op("${1}x")),
            "fn f() { ox(); }\n"
        );
        let re = regex::Regex::new("(o)ld").expect("re");
        for bad in ["$this", "$2", "${name}"] {
            assert!(
                super::check_replacement(&re, bad, "(o)ld").is_err(),
                "{bad}"
            );
        }
    }
}
