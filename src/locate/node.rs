//! Structure targets: a symbol (`Class.method` or a bare name), a node identity from `read`,
//! or a kind + name-glob selector, resolved on the outline of the file as read; and the
//! splices of node operations.
//!
//! Node text is raw: a replacement is written verbatim over the node's bytes (indentation
//! before the node stays), and text inserted before or after it is spliced verbatim at its
//! first or last byte (a payload brings its own line breaks). A node alone on its lines is
//! deleted with those lines (`splice`).

mod splice;

pub use splice::{moved_text, splice};

use serde_json::{Value, json};

use crate::error::{Code, Error, Result};
use crate::lang::gate::SourceTree;
use crate::lang::outline::Item;
use crate::plan::Target;
use crate::plan::splice::Splice;

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

/// Picks the one structure a target names in a parsed file. Where names occur verbatim in
/// their structures (`Provider::names_are_verbatim`), a symbol's match must hold its last
/// segment (a qualified name ends with the structure's own name), so the outline is walked
/// only around that segment's occurrences; the whole outline answers a selector, an identity,
/// or a symbol found nowhere (whose error lists the nearest names).
pub fn find_in(
    source: &SourceTree,
    target: &Target,
    text: &str,
    path: &str,
) -> Result<(Item, &'static str)> {
    let bytes = text.as_bytes();
    if let Target::Symbol(symbol) = target
        && source.provider.names_are_verbatim()
    {
        let near = source.items_near(bytes, &occurrences(symbol, text));
        match find(&near, target, text, path) {
            Ok((item, how)) => return Ok((item.clone(), how)),
            Err(e) if e.code != Code::TargetMissing => return Err(e),
            Err(_) => {}
        }
    }
    find(source.items(bytes), target, text, path).map(|(item, how)| (item.clone(), how))
}

/// Where the last segment of each outline name `symbol` may have occurs in `text`, in order.
fn occurrences(symbol: &str, text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for form in symbol_forms(symbol, text) {
        let last = form.rsplit('.').next().unwrap_or(&form);
        if last.is_empty() {
            continue;
        }
        out.extend(memchr::memmem::find_iter(text.as_bytes(), last).map(|at| at..at + last.len()));
    }
    out.sort_by_key(|r| (r.start, r.end));
    out
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
mod find_tests {
    use super::{find, find_in};
    use crate::lang::gate::SourceTree;
    use crate::lang::languages::PROVIDERS;
    use crate::plan::Target;

    /// In each language whose names are verbatim, every structure's name occurs in its bytes,
    /// and the walk near a symbol's last segment finds what the whole outline finds, for
    /// every qualified and bare name of every sample (ambiguities and misses included).
    #[test]
    fn a_symbol_found_near_its_name_is_the_one_the_whole_outline_finds() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lang");
        let mut checked = 0;
        for provider in PROVIDERS.iter().filter(|p| p.names_are_verbatim()) {
            let dir = std::fs::read_dir(root.join(provider.name)).expect("fixture dir");
            let path = dir
                .map(|e| e.expect("entry").path())
                .find(|p| p.file_stem().is_some_and(|s| s == "sample"))
                .expect("sample");
            let text = std::fs::read_to_string(&path).expect("sample");
            let source = SourceTree::parse(provider, text.as_bytes()).expect("parse");
            let items = source.items(text.as_bytes()).to_vec();
            let fresh = || SourceTree::parse(provider, text.as_bytes()).expect("parse");
            for item in items.iter().filter(|i| !i.alias) {
                let bytes = &text[item.span.start..item.node_end];
                assert!(
                    bytes.contains(&item.name),
                    "{}: {}",
                    provider.name,
                    item.name
                );
                let missing = format!("{}_absent", item.name);
                for symbol in [&item.qualified_name, &item.name, &missing] {
                    let target = Target::Symbol(symbol.clone());
                    let near = find_in(&fresh(), &target, &text, "f");
                    let whole = find(&items, &target, &text, "f");
                    match (near, whole) {
                        (Ok((a, how_a)), Ok((b, how_b))) => {
                            assert_eq!((a.span, how_a), (b.span.clone(), how_b), "{symbol}");
                        }
                        (Err(a), Err(b)) => assert_eq!(a.code, b.code, "{symbol}"),
                        (a, b) => panic!("{symbol}: {:?} vs {:?}", a.is_ok(), b.is_ok()),
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{checked} lookups");
    }
}
