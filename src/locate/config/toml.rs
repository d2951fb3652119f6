//! TOML: keys are resolved with TOML's rules over tree-sitter-toml's nodes (table headers,
//! dotted keys, inline tables and arrays); `toml_edit` checks what tree-sitter does not
//! (a key defined twice). Pairs of standard tables are whole lines; items of arrays and
//! inline tables go through the comma-aware `flow` edits. New keys go after the table's last
//! key (to their sorted place when the keys are sorted); a missing table becomes a new
//! standard table after its parent's tables. Paths into arrays of tables (`[[x]]`) are
//! `config_unsupported`.

use serde_json::Value;
use tree_sitter::{Node, Tree};

use super::flow::Flow;
use super::text::{
    alone_before, content_end, indent_at, indent_unit, line_start, next_line, remove_lines,
};
use super::{Action, ConfigPath, Edit, Job, Segment, mismatch, missing, unsupported};
use crate::error::{Error, Result};

const COMMENTS: &[&str] = &["#"];

/// The TOML rules a result breaks that tree-sitter accepts (duplicate keys, redefined tables).
pub fn semantic_error(src: &str) -> Option<String> {
    src.parse::<toml_edit::DocumentMut>()
        .err()
        .map(|e| e.message().to_owned())
}

/// A table of the document: the root, a `[header]` or a `[[header]]`, and its pairs.
struct Table<'t> {
    header: Vec<String>,
    node: Node<'t>,
    array: bool,
    pairs: Vec<Node<'t>>,
}

/// Decoded parts of a key node (`a`, `"a.b"`, `a.b.c`).
fn key_parts(src: &str, node: Node<'_>) -> Vec<String> {
    match node.kind() {
        "dotted_key" => {
            let mut cursor = node.walk();
            let kids: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            kids.into_iter().flat_map(|k| key_parts(src, k)).collect()
        }
        "quoted_key" => {
            let text = &src[node.byte_range()];
            if text.starts_with('\'') {
                vec![text[1..text.len().saturating_sub(1)].to_owned()]
            } else {
                vec![serde_json::from_str(text).unwrap_or_else(|_| text.to_owned())]
            }
        }
        _ => vec![src[node.byte_range()].to_owned()],
    }
}

fn is_key(node: Node<'_>) -> bool {
    matches!(node.kind(), "bare_key" | "quoted_key" | "dotted_key")
}

/// The key and value of a pair.
fn pair_parts<'t>(src: &str, pair: Node<'t>) -> (Vec<String>, Option<Node<'t>>) {
    let mut cursor = pair.walk();
    let kids: Vec<Node<'t>> = pair.named_children(&mut cursor).collect();
    let key = kids
        .iter()
        .find(|k| is_key(**k))
        .map(|k| key_parts(src, *k));
    let value = kids
        .iter()
        .rev()
        .find(|k| !is_key(**k) && k.kind() != "comment");
    (key.unwrap_or_default(), value.copied())
}

fn tables<'t>(src: &str, tree: &'t Tree) -> Vec<Table<'t>> {
    let root = tree.root_node();
    let mut out = vec![Table {
        header: Vec::new(),
        node: root,
        array: false,
        pairs: Vec::new(),
    }];
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        match child.kind() {
            "pair" => out[0].pairs.push(child),
            "table" | "table_array_element" => {
                let mut c = child.walk();
                let kids: Vec<Node<'t>> = child.named_children(&mut c).collect();
                out.push(Table {
                    header: kids
                        .iter()
                        .find(|k| is_key(**k))
                        .map(|k| key_parts(src, *k))
                        .unwrap_or_default(),
                    node: child,
                    array: child.kind() == "table_array_element",
                    pairs: kids.into_iter().filter(|k| k.kind() == "pair").collect(),
                });
            }
            _ => {}
        }
    }
    out
}

/// The leading keys of a path (up to its first index).
fn leading_keys(path: &ConfigPath) -> Vec<&str> {
    path.0
        .iter()
        .map_while(|s| match s {
            Segment::Key(k) => Some(k.as_str()),
            Segment::Index(_) => None,
        })
        .collect()
}

/// `long` begins with `short`.
fn starts_with(long: &[impl AsRef<str>], short: &[impl AsRef<str>]) -> bool {
    long.len() >= short.len()
        && long
            .iter()
            .zip(short)
            .all(|(a, b)| a.as_ref() == b.as_ref())
}

fn same(a: &[String], b: &[&str]) -> bool {
    a.len() == b.len() && starts_with(a, b)
}

/// Where a found value sits: a pair on its own line(s) of table `t`, or an item of a
/// bracketed collection.
enum Holder<'t> {
    Line { table: usize, pair: usize },
    Flow(Node<'t>, usize),
}

enum Walk<'t> {
    Found(Node<'t>, Holder<'t>),
    Missing(usize),
    /// The path names a table, not a value.
    Table,
}

fn walk<'t>(src: &str, tables: &[Table<'t>], path: &ConfigPath) -> Result<Walk<'t>> {
    let keys = leading_keys(path);
    let related = |t: &&Table<'_>| {
        t.array && (starts_with(&keys, &t.header) || starts_with(&t.header, &keys))
    };
    if let Some(t) = tables.iter().find(related) {
        return Err(unsupported(
            path,
            format!(
                "`[[{}]]` is an array of tables; edit it with line edits",
                t.header.join(".")
            ),
        ));
    }
    for (ti, t) in tables.iter().enumerate().filter(|(_, t)| !t.array) {
        if !starts_with(&keys, &t.header) {
            continue;
        }
        for (pi, pair) in t.pairs.iter().enumerate() {
            let (mut full, value) = pair_parts(src, *pair);
            full.splice(0..0, t.header.iter().cloned());
            if full.len() <= keys.len() && same(&full, &keys[..full.len()]) {
                let value = value.ok_or_else(|| Error::internal("a TOML pair without value"))?;
                return inside(
                    src,
                    value,
                    Holder::Line {
                        table: ti,
                        pair: pi,
                    },
                    path,
                    full.len(),
                );
            }
        }
    }
    let names_table = tables.iter().any(|t| starts_with(&t.header, &keys))
        || tables.iter().any(|t| {
            t.pairs.iter().any(|p| {
                let mut full = pair_parts(src, *p).0;
                full.splice(0..0, t.header.iter().cloned());
                full.len() > keys.len() && starts_with(&full, &keys)
            })
        });
    if names_table && keys.len() == path.0.len() {
        return Ok(Walk::Table);
    }
    let depth = (0..=keys.len())
        .rev()
        .find(|&m| tables.iter().any(|t| starts_with(&t.header, &keys[..m])))
        .unwrap_or(0);
    Ok(Walk::Missing(depth.min(path.0.len() - 1)))
}

/// Continues the walk inside a value (arrays and inline tables) from segment `depth`.
fn inside<'t>(
    src: &str,
    mut value: Node<'t>,
    mut holder: Holder<'t>,
    path: &ConfigPath,
    from: usize,
) -> Result<Walk<'t>> {
    for (depth, segment) in path.0.iter().enumerate().skip(from) {
        let mut cursor = value.walk();
        let items: Vec<Node<'t>> = value
            .named_children(&mut cursor)
            .filter(|n| n.kind() != "comment")
            .collect();
        let next = match (segment, value.kind()) {
            (Segment::Index(n), "array") => items.get(*n).map(|v| (*v, *n)),
            (Segment::Key(k), "inline_table") => items.iter().enumerate().find_map(|(i, p)| {
                let (key, v) = pair_parts(src, *p);
                (key.len() == 1 && key[0] == *k)
                    .then_some(v?)
                    .map(|v| (v, i))
            }),
            _ => return Err(mismatch(path, depth, kind_name(value))),
        };
        let Some((v, i)) = next else {
            return Ok(Walk::Missing(depth));
        };
        holder = Holder::Flow(value, i);
        value = v;
    }
    Ok(Walk::Found(value, holder))
}

fn kind_name(node: Node<'_>) -> &'static str {
    match node.kind() {
        "array" => "an array",
        "inline_table" => "an inline table",
        "string" => "a string",
        "boolean" => "a boolean",
        "integer" | "float" => "a number",
        _ => "a date or time",
    }
}

pub fn plan(src: &str, tree: &Tree, job: &Job<'_>) -> Result<Vec<Edit>> {
    let tables = tables(src, tree);
    let unit = indent_unit(src);
    let value = job.payload.as_ref().map(|p| &p.value);
    let walked = walk(src, &tables, job.path)?;
    match (walked, job.action) {
        (Walk::Found(old, _), Action::Set(_)) => {
            let literal = src[old.byte_range()].starts_with('\'')
                && !src[old.byte_range()].starts_with("'''");
            let text = render(value.unwrap_or(&Value::Null), literal)?;
            Ok(vec![Edit::new(old.byte_range(), text)])
        }
        (Walk::Found(old, _), Action::Append(_)) => {
            if old.kind() != "array" {
                return Err(missing(
                    job.path,
                    job.path.0.len() - 1,
                    &format!("is {}, not an array", kind_name(old)),
                )
                .detail("reason", "not_array"));
            }
            let text = render(value.unwrap_or(&Value::Null), false)?;
            Ok(Flow::of(old).append(src, &text, &unit, COMMENTS))
        }
        (Walk::Found(_, Holder::Flow(node, i)), Action::Delete) => {
            Ok(Flow::of(node).delete(src, i, COMMENTS))
        }
        (Walk::Found(_, Holder::Line { table, pair }), Action::Delete) => {
            let t = &tables[table];
            let node = t.pairs[pair];
            let last = pair + 1 == t.pairs.len();
            Ok(vec![Edit::new(
                remove_lines(src, node.start_byte(), node.end_byte(), last),
                "",
            )])
        }
        (Walk::Table, Action::Delete) => delete_table(src, &tables, job.path),
        (Walk::Table, _) => Err(Error::usage(format!(
            "config path `{}` names a table: set or append its keys instead",
            job.path
        ))),
        (Walk::Missing(_), Action::Set(_)) if job.create_missing => {
            create(src, &tables, job.path, value.unwrap_or(&Value::Null), &unit)
        }
        (Walk::Missing(depth), _) => Err(missing(job.path, depth, "does not exist")),
    }
}

/// Removes the standard table named by `path` and its sub-tables.
fn delete_table(src: &str, tables: &[Table<'_>], path: &ConfigPath) -> Result<Vec<Edit>> {
    let keys = leading_keys(path);
    let doomed: Vec<&Table<'_>> = tables
        .iter()
        .filter(|t| !t.header.is_empty() && starts_with(&t.header, &keys))
        .collect();
    if doomed.is_empty() || doomed.iter().any(|t| t.array) {
        return Err(unsupported(
            path,
            "only standard tables (`[x]`) are deleted whole",
        ));
    }
    let mut edits: Vec<Edit> = Vec::new();
    for t in doomed {
        let end = t.pairs.last().map_or(t.node.start_byte(), |p| p.end_byte());
        let last = tables.last().is_some_and(|l| l.node == t.node);
        let range = remove_lines(src, t.node.start_byte(), end, last);
        match edits.last_mut() {
            Some(prev) if prev.range.end >= range.start => {
                prev.range.end = range.end.max(prev.range.end)
            }
            _ => edits.push(Edit::new(range, "")),
        }
    }
    Ok(edits)
}

/// A key as TOML writes it: bare when it can be.
fn key(k: &str) -> String {
    let bare = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare { k.to_owned() } else { basic(k) }
}

fn basic(s: &str) -> String {
    serde_json::to_string(s)
        .unwrap_or_default()
        .replace('\u{7f}', "\\u007F")
}

/// A JSON value as a TOML value (inline tables and arrays on one line).
fn render(value: &Value, literal: bool) -> Result<String> {
    Ok(match value {
        Value::Null => {
            return Err(Error::usage("TOML has no null: delete the key instead")
                .detail("reason", "invalid_value"));
        }
        Value::String(s) if literal && !s.contains('\'') && !s.chars().any(char::is_control) => {
            format!("'{s}'")
        }
        Value::String(s) => basic(s),
        Value::Array(items) => {
            let parts: Result<Vec<String>> = items.iter().map(|v| render(v, false)).collect();
            format!("[{}]", parts?.join(", "))
        }
        Value::Object(map) if map.is_empty() => "{}".into(),
        Value::Object(map) => {
            let parts: Result<Vec<String>> = map
                .iter()
                .map(|(k, v)| Ok(format!("{} = {}", key(k), render(v, false)?)))
                .collect();
            format!("{{ {} }}", parts?.join(", "))
        }
        Value::Number(n) => super::number::toml(n),
        other => other.to_string(),
    })
}

fn dotted(keys: &[&str]) -> String {
    keys.iter().map(|k| key(k)).collect::<Vec<_>>().join(".")
}

/// Creates the missing keys of `path` (all keys: arrays never grow).
fn create(
    src: &str,
    tables: &[Table<'_>],
    path: &ConfigPath,
    value: &Value,
    unit: &str,
) -> Result<Vec<Edit>> {
    let keys = leading_keys(path);
    if keys.len() != path.0.len() {
        return Err(missing(path, keys.len(), "does not exist")
            .hint("--create-missing creates keys and tables, never array elements."));
    }
    let text_value = render(value, false)?;
    for m in (0..keys.len()).rev() {
        let (prefix, rest) = keys.split_at(m);
        for (ti, t) in tables.iter().enumerate().filter(|(_, t)| !t.array) {
            for pair in &t.pairs {
                let (mut full, v) = pair_parts(src, *pair);
                full.splice(0..0, t.header.iter().cloned());
                if same(&full, prefix) {
                    let v = v.ok_or_else(|| Error::internal("a TOML pair without value"))?;
                    if v.kind() != "inline_table" {
                        return Err(mismatch(path, m, kind_name(v)));
                    }
                    let entry = format!("{} = {text_value}", dotted(rest));
                    return Ok(Flow::of(v).append(src, &entry, unit, COMMENTS));
                }
            }
            let dotted_here = t.pairs.iter().rev().find(|p| {
                let mut full = pair_parts(src, **p).0;
                full.splice(0..0, t.header.iter().cloned());
                full.len() > prefix.len()
                    && starts_with(&full, prefix)
                    && t.header.len() < prefix.len().max(1)
            });
            if let (Some(after), false) = (dotted_here, prefix.is_empty()) {
                let local: Vec<&str> = keys[t.header.len()..].to_vec();
                return Ok(vec![new_pair_after(
                    src,
                    *after,
                    &format!("{} = {text_value}", dotted(&local)),
                )]);
            }
            if same(&t.header, prefix) && (!prefix.is_empty() || ti == 0) && rest.len() == 1 {
                return Ok(vec![pair_in_table(src, tables, ti, rest[0], &text_value)]);
            }
            if same(&t.header, prefix) && (!prefix.is_empty() || ti == 0) {
                let header = dotted(&keys[..keys.len() - 1]);
                let body = format!("[{header}]\n{} = {text_value}\n", key(keys[keys.len() - 1]));
                return Ok(vec![new_table(src, tables, prefix, &body)]);
            }
        }
    }
    Err(missing(path, 0, "does not exist"))
}

/// The separator between key and value used by the first pair of the file.
fn equals(src: &str, tables: &[Table<'_>]) -> String {
    let first = tables.iter().flat_map(|t| t.pairs.first()).next();
    first
        .and_then(|p| {
            let mut cursor = p.walk();
            let kids: Vec<Node<'_>> = p.children(&mut cursor).collect();
            let eq = kids.iter().position(|k| k.kind() == "=")?;
            let (before, after) = (kids.get(eq.checked_sub(1)?)?, kids.get(eq + 1)?);
            Some(src[before.end_byte()..after.start_byte()].to_owned())
        })
        .filter(|s| !s.contains('\n'))
        .unwrap_or_else(|| " = ".into())
}

fn new_pair_after(src: &str, after: Node<'_>, entry: &str) -> Edit {
    let indent = indent_at(src, after.start_byte()).to_owned();
    Edit::insert(
        content_end(src, after.end_byte()),
        format!("\n{indent}{entry}"),
    )
}

/// `name = value` in table `ti`: at its sorted place when its keys are sorted, else last.
fn pair_in_table(src: &str, tables: &[Table<'_>], ti: usize, name: &str, value: &str) -> Edit {
    let t = &tables[ti];
    let entry = format!("{}{}{value}", key(name), equals(src, tables));
    let names: Vec<String> = t
        .pairs
        .iter()
        .map(|p| pair_parts(src, *p).0.join("."))
        .collect();
    let sorted = names.len() >= 2 && names.windows(2).all(|w| w[0] <= w[1]);
    let before = names
        .iter()
        .position(|n| sorted && n.as_str() > name)
        .map(|i| t.pairs[i]);
    if let Some(next) = before.filter(|n| alone_before(src, n.start_byte())) {
        let indent = indent_at(src, next.start_byte()).to_owned();
        return Edit::insert(
            line_start(src, next.start_byte()) + indent.len(),
            format!("{entry}\n{indent}"),
        );
    }
    if let Some(last) = t.pairs.last() {
        return new_pair_after(src, *last, &entry);
    }
    if ti == 0 {
        let first_table = tables
            .get(1)
            .map_or(src.len(), |t| line_start(src, t.node.start_byte()));
        let gap = if first_table < src.len() { "\n" } else { "" };
        return Edit::insert(first_table, format!("{entry}\n{gap}"));
    }
    let header_end = content_end(src, t.node.start_byte());
    Edit::insert(header_end, format!("\n{entry}"))
}

/// A new standard table after the last table under `prefix` (at the end of the file when none).
fn new_table(src: &str, tables: &[Table<'_>], prefix: &[&str], body: &str) -> Edit {
    let last_under = tables
        .iter()
        .skip(1)
        .rposition(|t| starts_with(&t.header, prefix) && !prefix.is_empty())
        .map(|i| &tables[i + 1]);
    match last_under {
        Some(t) if tables.last().is_some_and(|l| l.node != t.node) => {
            let end = t.pairs.last().map_or(t.node.start_byte(), |p| p.end_byte());
            Edit::insert(next_line(src, end), format!("\n{body}"))
        }
        _ => {
            let lead = match (src.is_empty(), src.ends_with('\n')) {
                (true, _) => "",
                (false, true) => "\n",
                (false, false) => "\n\n",
            };
            Edit::insert(src.len(), format!("{lead}{body}"))
        }
    }
}
