//! What `read` prints: the outline, a structure with context, or line anchors, as text an
//! agent can copy from (`# node --at IDENTITY`, `LINE:HASH|content`) or as JSON handles.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use crate::lang::Location;
use crate::lang::hash::line_hash;
use crate::lang::outline::Item;
use crate::report::Report;
use crate::workspace::path::TargetPath;
use crate::workspace::snapshot::Snapshot;

/// One line with its anchor.
pub struct LineView {
    pub line: usize,
    pub hash: String,
    pub text: String,
}

impl LineView {
    pub fn of(line: usize, content: &str) -> Self {
        Self {
            line,
            hash: line_hash(content.as_bytes()),
            text: content.to_owned(),
        }
    }

    fn anchor(&self) -> String {
        format!("{}:{}", self.line, self.hash)
    }

    fn json(&self, path: &str) -> Value {
        json!({"target_type": "line", "file": path, "line": self.line, "anchor": self.anchor(),
               "hash": self.hash, "text": self.text})
    }
}

/// What is shown of one file.
pub enum Focus {
    Outline {
        items: Vec<Item>,
    },
    Symbol {
        item: Box<Item>,
        before: Vec<LineView>,
        body: Vec<LineView>,
        after: Vec<LineView>,
    },
    Lines {
        shown: Vec<LineView>,
        omitted_before: usize,
        omitted_after: usize,
        total: usize,
    },
}

/// Provider name, and (error count, first error) when the file does not parse cleanly.
pub type Language = Option<(&'static str, Option<(usize, Option<Location>)>)>;

pub struct FileView {
    path: String,
    sha256: String,
    text: String,
    /// Provider name, and (error count, first error) when the file does not parse cleanly.
    language: Language,
    focus: Focus,
}

impl FileView {
    pub fn new(path: &TargetPath, snapshot: &Snapshot, language: Language, focus: Focus) -> Self {
        let text = match focus {
            Focus::Lines { .. } => String::new(),
            _ => snapshot.text().into_owned(),
        };
        Self {
            path: path.rel.clone(),
            sha256: snapshot.digest.to_hex(),
            text,
            language,
            focus,
        }
    }
}

fn item_json(item: &Item, view: &FileView, verbose: bool) -> Value {
    let mut v = json!({
        "target_type": "node", "file": view.path, "kind": item.kind, "name": (!item.name.is_empty()).then_some(&item.name),
        "qualified_name": item.qualified_name, "start_line": item.start_line, "end_line": item.end_line,
        "span": {"start": item.span.start, "end": item.span.end},
        "identity": item.identity(view.text.as_bytes()), "expected_old_hash": item.hash(view.text.as_bytes()),
    });
    if verbose {
        v["text"] = json!(view.text.get(item.span.clone()).unwrap_or_default());
    }
    v
}

fn file_json(view: &FileView, verbose: bool) -> Value {
    let mut v = json!({"file": view.path, "sha256": view.sha256});
    if let Some((language, errors)) = &view.language {
        v["language"] = json!(language);
        if let Some((count, at)) = errors {
            v["parse_errors"] = json!({"count": count, "first": at});
        }
    }
    match &view.focus {
        Focus::Outline { items } => {
            v["handles"] = items.iter().map(|i| item_json(i, view, verbose)).collect()
        }
        Focus::Symbol {
            item,
            before,
            body,
            after,
        } => {
            let mut handle = item_json(item, view, verbose);
            handle["text"] = json!(view.text.get(item.span.clone()).unwrap_or_default());
            v["handles"] = json!([handle]);
            v["context_before"] = before.iter().map(|l| l.json(&view.path)).collect();
            v["lines"] = body.iter().map(|l| l.json(&view.path)).collect();
            v["context_after"] = after.iter().map(|l| l.json(&view.path)).collect();
        }
        Focus::Lines {
            shown,
            omitted_before,
            omitted_after,
            total,
        } => {
            v["handles"] = shown.iter().map(|l| l.json(&view.path)).collect();
            v["total_lines"] = json!(total);
            v["omitted_before"] = json!(omitted_before);
            v["omitted_after"] = json!(omitted_after);
        }
    }
    v
}

fn lines_text(out: &mut String, lines: &[LineView]) {
    for l in lines {
        let _ = writeln!(out, "{}:{}|{}", l.line, l.hash, l.text);
    }
}

/// One item's kind, name and line range, as outlines and symbol headers print it after its
/// identity.
fn item_tail(item: &Item) -> String {
    format!(
        "{} {} [{}-{}]",
        item.kind, item.qualified_name, item.start_line, item.end_line
    )
}

fn file_text(view: &FileView, several: bool, verbose: bool) -> String {
    let mut out = String::new();
    if let Some((_, Some((count, at)))) = &view.language {
        let at = at.map_or(String::new(), |l| {
            format!(" (first at line {}, column {})", l.line, l.column)
        });
        let _ = writeln!(out, "# {count} syntax error(s){at}");
    }
    let header = format!("## {}  sha256:{}\n", view.path, view.sha256);
    match &view.focus {
        Focus::Outline { items } => {
            out.push_str(&header);
            outline_text(&mut out, items, &view.text, verbose);
        }
        Focus::Symbol {
            item,
            before,
            body,
            after,
        } => {
            out.push_str(&header);
            let identity = item.identity(view.text.as_bytes());
            let _ = writeln!(out, "# node --at {identity}  {}", item_tail(item));
            symbol_text(&mut out, before, body, after);
        }
        Focus::Lines {
            shown,
            omitted_before,
            omitted_after,
            ..
        } => {
            if several {
                out.push_str(&header);
            }
            omitted(&mut out, *omitted_before, "before");
            lines_text(&mut out, shown);
            omitted(&mut out, *omitted_after, "after");
        }
    }
    out
}

/// An outline, one item a line indented by depth; `verbose` adds each item's source.
fn outline_text(out: &mut String, items: &[Item], text: &str, verbose: bool) {
    for i in items {
        let indent = "  ".repeat(i.depth);
        let identity = i.identity(text.as_bytes());
        let _ = writeln!(out, "{indent}{identity} {}", item_tail(i));
        if verbose {
            out.push_str(text.get(i.span.clone()).unwrap_or_default());
            out.push('\n');
        }
    }
}

/// A symbol's lines, with the context shown around it.
fn symbol_text(out: &mut String, before: &[LineView], body: &[LineView], after: &[LineView]) {
    if !before.is_empty() {
        out.push_str("# context before\n");
        lines_text(out, before);
    }
    out.push_str("# symbol\n");
    lines_text(out, body);
    if !after.is_empty() {
        out.push_str("# context after\n");
        lines_text(out, after);
    }
}

/// The note of lines left out `before` or `after` the shown ones, when any were.
fn omitted(out: &mut String, count: usize, side: &str) {
    if count > 0 {
        let _ = writeln!(out, "# {count} line(s) omitted {side}");
    }
}

/// The report of a `read`: JSON handles or text, whichever will be printed.
pub fn render(views: &[FileView], json_mode: bool, verbose: bool, several: bool) -> Report {
    let mut json = Map::new();
    let mut text = String::new();
    if json_mode {
        let files: Vec<Value> = views.iter().map(|v| file_json(v, verbose)).collect();
        let handles: usize = files
            .iter()
            .map(|f| f["handles"].as_array().map_or(0, Vec::len))
            .sum();
        // identedit's flat shape too: every handle, and each file's whole-file hash.
        let flat: Vec<Value> = files
            .iter()
            .flat_map(|f| f["handles"].as_array().cloned().unwrap_or_default())
            .collect();
        let preconditions: Vec<Value> = files
            .iter()
            .map(|f| json!({"file": f["file"], "expected_file_hash": f["sha256"]}))
            .collect();
        json.insert("handles".into(), Value::Array(flat));
        json.insert("file_preconditions".into(), Value::Array(preconditions));
        json.insert("files".into(), Value::Array(files));
        json.insert(
            "summary".into(),
            json!({"files_scanned": views.len(), "matches": handles}),
        );
    } else {
        text = views
            .iter()
            .map(|v| file_text(v, several, verbose))
            .collect();
    }
    Report::new(json, text)
}
