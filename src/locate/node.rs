//! Structure targets: a symbol (`Class.method` or a bare name), a node identity from `read`,
//! or a kind + name-glob selector, resolved on the outline of the file as read; and the
//! splices of node operations.
//!
//! Node text is raw: a replacement is written verbatim over the node's bytes (indentation
//! before the node stays), and text inserted before or after it is spliced verbatim at its
//! first or last byte (a payload brings its own line breaks). A node alone on its lines is
//! deleted with those lines.

use serde_json::{Value, json};

use crate::error::{Code, Error, Result};
use crate::lang::outline::Item;
use crate::plan::splice::Splice;
use crate::plan::{NodeOp, Target};

const MAX_CANDIDATES: usize = 16;

/// A resolved node operation.
pub struct Resolved {
    pub splices: Vec<Splice>,
    pub matched_by: &'static str,
    /// The target as found (for `locations`).
    pub item: Item,
    pub regex_replacements: Option<usize>,
}

/// The first non-blank line of a node, at most 120 characters (identedit's `preview`).
fn preview(node: &str) -> String {
    let line = node
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    line.trim().chars().take(120).collect()
}

fn candidates(items: &[&Item], text: &str) -> (Value, Option<Value>) {
    let list: Vec<Value> = items
        .iter()
        .take(MAX_CANDIDATES)
        .map(|i| {
            let node = &text[i.span.clone()];
            let first = node.lines().next().unwrap_or_default();
            json!({"identity": i.identity(text.as_bytes()), "expected_old_hash": i.hash(text.as_bytes()),
                   "kind": i.kind, "name": i.name, "qualified_name": i.qualified_name,
                   "span": {"start": i.span.start, "end": i.span.end},
                   "line": i.start_line, "end_line": i.end_line, "text": first, "preview": preview(node)})
        })
        .collect();
    let summary = (items.len() > MAX_CANDIDATES)
        .then(|| json!({"total": items.len(), "omitted": items.len() - MAX_CANDIDATES}));
    (Value::Array(list), summary)
}

fn ambiguous(what: &str, found: &[&Item], text: &str, path: &str) -> Error {
    let (list, summary) = candidates(found, text);
    let mut err = Error::new(
        Code::AmbiguousTarget,
        format!("{what} matches {} structures in {path}", found.len()),
    )
    .detail("path", path)
    .detail("candidates", list)
    .hint(
        "Use a qualified name (`Outer.inner`), or copy an identity from `candidates` into `--at`.",
    );
    if let Some(summary) = summary {
        err = err.detail("candidate_summary", summary);
    }
    err
}

fn missing(what: &str, items: &[Item], path: &str) -> Error {
    let names: Vec<&str> = items
        .iter()
        .take(40)
        .map(|i| i.qualified_name.as_str())
        .collect();
    Error::new(
        Code::TargetMissing,
        format!("{what} matches no structure in {path}"),
    )
    .detail("path", path)
    .detail("structures", names)
    .hint("Re-read the outline with `git identedit read FILE` and use a name or identity it shows.")
}

/// A glob (`*`, `?`) as an anchored regex.
pub fn glob(pattern: &str) -> Result<regex::Regex> {
    let bad = |why: &str| {
        Error::new(
            Code::PlanMalformed,
            format!("bad name glob `{pattern}`: {why}"),
        )
        .detail("reason", "invalid_selector")
        .typed("invalid_selector")
        .hint("Globs take `*`, `?` and classes `[abc]`, `[a-z]`, `[!x]`; write `[[]` for a literal `[`.")
    };
    let chars: Vec<char> = pattern.chars().collect();
    let mut body = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => body.push_str(".*"),
            '?' => body.push('.'),
            '[' => {
                let (class, next) = glob_class(&chars, i)
                    .ok_or_else(|| bad("`[` opens a character class that is never closed"))?;
                body.push_str(&class);
                i = next;
                continue;
            }
            c => body.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    regex::Regex::new(&format!("^{body}$")).map_err(|e| bad(&e.to_string()))
}

/// The glob class opening at `chars[open]` (`[`) as a regex class, and the index after its
/// `]`; a `]` right after `[` or `[!` is a member. `None` when it is never closed.
fn glob_class(chars: &[char], open: usize) -> Option<(String, usize)> {
    let mut i = open + 1;
    let mut class = String::from("[");
    if matches!(chars.get(i), Some('!' | '^')) {
        class.push('^');
        i += 1;
    }
    let first = i;
    while let Some(&c) = chars.get(i) {
        if c == ']' && i > first {
            class.push(']');
            return Some((class, i + 1));
        }
        match c {
            '-' if i > first && chars.get(i + 1).is_some_and(|&n| n != ']') => class.push('-'),
            c if c.is_ascii_punctuation() => {
                class.push('\\');
                class.push(c);
            }
            c => class.push(c),
        }
        i += 1;
    }
    None
}

/// How `symbol` names `item` (its `matched_by`), if it does: the whole qualified name, its
/// tail (`inner` or `Outer.inner` of `Mod.Outer.inner`), or the structure's own name.
fn symbol_match(item: &Item, symbol: &str) -> Option<&'static str> {
    if item.alias {
        return None;
    }
    let tail = item
        .qualified_name
        .strip_suffix(symbol)
        .is_some_and(|head| head.ends_with('.'));
    if item.qualified_name == symbol {
        Some("symbol")
    } else if tail {
        Some("symbol_suffix")
    } else if item.name == symbol {
        Some("symbol_name")
    } else {
        None
    }
}

/// The outline names a symbol may have, in the order tried (`lang::notation`): with a
/// namespace, the braced namespace's form first, then the plain form when the file declares
/// that namespace.
fn symbol_forms(symbol: &str, text: &str) -> Vec<String> {
    let spelled = crate::lang::notation::read(symbol);
    match spelled.namespace {
        None => vec![spelled.canonical],
        Some(ns) => {
            let mut forms = vec![format!("{ns}.{}", spelled.canonical)];
            if crate::lang::notation::declares_namespace(text, &ns) {
                forms.push(spelled.canonical);
            }
            forms
        }
    }
}

/// Picks the one structure a target names.
pub fn find<'i>(
    items: &'i [Item],
    target: &Target,
    text: &str,
    path: &str,
) -> Result<(&'i Item, &'static str)> {
    let one = |found: Vec<&'i Item>, what: &str, how: &'static str| match found.len() {
        1 => Ok(Some((found[0], how))),
        0 => Ok(None),
        _ => Err(ambiguous(what, &found, text, path)),
    };
    match target {
        Target::Symbol(symbol) => {
            // Every structure a spelling of the name (`lang::notation`) could mean counts: an
            // exact qualified name does not win over a method of the same name.
            let what = format!("symbol='{symbol}'");
            for form in symbol_forms(symbol, text) {
                let found: Vec<(&Item, &'static str)> = items
                    .iter()
                    .filter_map(|i| symbol_match(i, &form).map(|how| (i, how)))
                    .collect();
                match found.as_slice() {
                    [] => {}
                    [(item, how)] => return Ok((item, how)),
                    _ => {
                        let all: Vec<&Item> = found.iter().map(|(i, _)| *i).collect();
                        return Err(ambiguous(&what, &all, text, path));
                    }
                }
            }
            Err(missing(&what, items, path))
        }
        Target::Selector {
            kind,
            name,
            exclude_kinds,
        } => {
            let pattern = name.as_deref().map(glob).transpose()?;
            let found: Vec<&Item> = items
                .iter()
                .filter(|i| i.kind == *kind && !exclude_kinds.contains(&i.kind))
                .filter(|i| pattern.as_ref().is_none_or(|p| p.is_match(&i.name)))
                .collect();
            let what = format!(
                "selector kind `{kind}` name `{}`",
                name.as_deref().unwrap_or("*")
            );
            one(found, &what, "selector")?.ok_or_else(|| missing(&what, items, path))
        }
        Target::Node {
            identity,
            kind,
            expected_hash,
            span_hint,
        } => find_node(
            items,
            identity,
            kind.as_deref(),
            expected_hash.as_deref(),
            *span_hint,
            text,
            path,
        ),
        _ => Err(Error::internal("not a structure target")),
    }
}

fn find_node<'i>(
    items: &'i [Item],
    identity: &str,
    kind: Option<&str>,
    expected_hash: Option<&str>,
    span_hint: Option<(usize, usize)>,
    text: &str,
    path: &str,
) -> Result<(&'i Item, &'static str)> {
    let kind_ok = |i: &Item| kind.is_none_or(|k| i.kind == k);
    let mut found: Vec<&Item> = items
        .iter()
        .filter(|i| kind_ok(i) && i.identity(text.as_bytes()) == identity)
        .collect();
    if let (true, Some((start, end))) = (found.len() > 1, span_hint) {
        found.retain(|i| i.span.start == start && i.span.end == end);
    }
    match found.len() {
        1 => return Ok((found[0], "identity")),
        n if n > 1 => {
            return Err(ambiguous(
                &format!("identity {identity}"),
                &found,
                text,
                path,
            ));
        }
        _ => {}
    }
    // The node may have moved (an edit elsewhere changes its qualified name or neighbours):
    // fall back to the one structure of that kind with the expected content hash.
    if let (Some(_), Some(hash)) = (kind, expected_hash) {
        let moved: Vec<&Item> = items
            .iter()
            .filter(|i| kind_ok(i) && i.hash(text.as_bytes()) == hash)
            .collect();
        if moved.len() == 1 {
            return Ok((moved[0], "content_hash"));
        }
    }
    Err(Error::new(Code::TargetMissing, format!("no structure with identity {identity} in {path}"))
        .detail("path", path)
        .detail("identity", identity)
        .hint("The node changed or never existed: re-read with `git identedit read FILE` and copy a fresh identity."))
}

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
mod glob_tests {
    use super::glob;

    #[test]
    fn globs_take_classes_and_refuse_an_unclosed_one() {
        let g = glob("test_[a-c!]*").expect("glob");
        assert!(g.is_match("test_b1") && g.is_match("test_!") && !g.is_match("test_d"));
        let not = glob("[!t]*").expect("glob");
        assert!(not.is_match("alpha") && !not.is_match("test"));
        assert!(glob("[]]x").expect("glob").is_match("]x"));
        assert!(glob("a[[]b").expect("glob").is_match("a[b"));
        assert!(glob("a-b.c").expect("glob").is_match("a-b.c"));
        let err = glob("[bad").expect_err("unclosed");
        assert_eq!(err.code, crate::error::Code::PlanMalformed);
        assert_eq!(err.details["reason"], "invalid_selector");
    }
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
