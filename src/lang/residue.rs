//! Residue: mentions of removed or renamed symbols left in documentation and templates
//! (Markdown; Twig, Blade and Smarty for PHP; Jinja for Python). A pure scan for `verify` to
//! call after an edit that removed or renamed declarations: it reads files, writes nothing,
//! and classifies each hit `open`, or `historical` in changelog-style files, which never block.

use std::path::Path;

use serde::Serialize;

/// Directories never scanned: VCS data, dependencies and build output.
const SKIPPED_DIRS: &[&str] = &[
    "node_modules",
    "vendor",
    "target",
    "dist",
    "build",
    "__pycache__",
];

/// File names (upper case, without extension) whose mentions are history, not residue.
const HISTORICAL: &[&str] = &[
    "CHANGELOG",
    "CHANGES",
    "HISTORY",
    "NEWS",
    "UPGRADING",
    "UPGRADE",
    "RELEASES",
    "RELEASE-NOTES",
    "RELEASE_NOTES",
];

/// At most this many hits are listed (the counts stay exact).
const MAX_LISTED: usize = 200;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Open,
    Historical,
}

/// One mention of an old name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Hit {
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// Byte range of the match in the file.
    pub start: usize,
    pub end: usize,
    pub name: String,
    pub status: Status,
    /// The line, trimmed (at most 200 bytes).
    pub text: String,
}

/// What a scan found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Residue {
    pub open: usize,
    pub historical: usize,
    pub scanned_files: usize,
    /// More hits exist than `hits` lists.
    pub truncated: bool,
    pub hits: Vec<Hit>,
}

/// Whether `name` (a file name) is a document or template the scan reads.
fn scanned(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [
        ".md",
        ".markdown",
        ".twig",
        ".blade.php",
        ".tpl",
        ".jinja",
        ".jinja2",
        ".j2",
    ]
    .iter()
    .any(|ext| lower.ends_with(ext))
}

/// Jinja templates of Python projects are usually `.html` files under `templates/`.
fn jinja_html(rel: &str) -> bool {
    let lower = rel.to_ascii_lowercase();
    lower.ends_with(".html") && (lower.starts_with("templates/") || lower.contains("/templates/"))
}

fn historical(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name).to_ascii_uppercase();
    HISTORICAL.contains(&stem.as_str())
}

/// Scans the documents and templates under `root` for whole-word mentions of `names` (e.g.
/// `Greeter::greet`, `greet`), in a stable order (paths sorted).
pub fn scan(root: &Path, names: &[String]) -> Residue {
    let names: Vec<&str> = names
        .iter()
        .map(|n| n.trim().trim_end_matches("()"))
        .filter(|n| !n.is_empty())
        .collect();
    let mut files = Vec::new();
    collect(root, root, &mut files);
    files.sort();
    let mut out = Residue::default();
    for rel in files {
        let Ok(text) = std::fs::read_to_string(root.join(&rel)) else {
            continue;
        };
        out.scanned_files += 1;
        let file_name = rel.rsplit('/').next().unwrap_or(&rel);
        let status = if historical(file_name) {
            Status::Historical
        } else {
            Status::Open
        };
        for (start, name) in matches(&text, &names) {
            match status {
                Status::Open => out.open += 1,
                Status::Historical => out.historical += 1,
            }
            if out.hits.len() >= MAX_LISTED {
                out.truncated = true;
                continue;
            }
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
            let mut line_text = text[line_start..line_end].trim().to_owned();
            if line_text.len() > 200 {
                let mut cut = 200;
                while !line_text.is_char_boundary(cut) {
                    cut -= 1;
                }
                line_text.truncate(cut);
            }
            out.hits.push(Hit {
                path: rel.clone(),
                line: text[..start].matches('\n').count() + 1,
                start,
                end: start + name.len(),
                name: name.to_owned(),
                status,
                text: line_text,
            });
        }
    }
    out
}

/// The spellings of a removed symbol worth looking for: `App\Greeter::greet()` gives
/// `App\Greeter::greet`, `Greeter::greet` and `greet`; `User.save` gives `User.save`, `save`.
pub fn names_for(symbol: &str) -> Vec<String> {
    let bare = symbol.trim().trim_end_matches("()");
    let mut names = vec![bare.to_owned()];
    let short = bare.rsplit_once('\\').map_or(bare, |(_, s)| s);
    names.push(short.to_owned());
    let member = short
        .rsplit_once("::")
        .or_else(|| short.rsplit_once('.'))
        .map(|(_, m)| m);
    if let Some(member) = member {
        names.push(member.trim_start_matches('$').to_owned());
    }
    names.dedup();
    names
}

/// Every whole-word occurrence of one of `names`, in text order; at one position the longest
/// name wins.
fn matches<'n>(text: &str, names: &[&'n str]) -> Vec<(usize, &'n str)> {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut found: Vec<(usize, &str)> = Vec::new();
    for &name in names {
        let mut from = 0;
        while let Some(i) = text[from..].find(name) {
            let start = from + i;
            let end = start + name.len();
            let before = text[..start].chars().next_back();
            let after = text[end..].chars().next();
            let starts_word = !name.starts_with(word) || !before.is_some_and(word);
            if starts_word && !after.is_some_and(word) {
                found.push((start, name));
            }
            from = end;
        }
    }
    found.sort_by_key(|(start, name)| (*start, std::cmp::Reverse(name.len())));
    let mut kept: Vec<(usize, &str)> = Vec::new();
    for (start, name) in found {
        if kept.last().is_none_or(|(s, n)| start >= s + n.len()) {
            kept.push((start, name));
        }
    }
    kept
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_str()) {
                collect(root, &path, out);
            }
            continue;
        }
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if kind.is_file() && (scanned(&name) || jinja_html(&rel)) {
            out.push(rel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_open_and_historical_mentions_in_docs_and_templates() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        };
        write(
            "README.md",
            "Call `Greeter::greet()` or greet().\nNot greeting, not greeter.\n",
        );
        write("CHANGELOG.md", "- Added Greeter::greet\n");
        write("templates/page.html.twig", "{{ greeter.greet(name) }}\n");
        write("app/templates/index.html", "{{ greet }}\n");
        write("src/Greeter.php", "greet\n");
        write("node_modules/x/README.md", "greet\n");
        write("docs/notes.txt", "greet\n");
        let names = vec!["Greeter::greet()".to_owned(), "greet".to_owned()];
        let residue = scan(root, &names);
        let seen: Vec<(&str, usize, &str, Status)> = residue
            .hits
            .iter()
            .map(|h| (h.path.as_str(), h.line, h.name.as_str(), h.status))
            .collect();
        assert_eq!(
            seen,
            [
                ("CHANGELOG.md", 1, "Greeter::greet", Status::Historical),
                ("README.md", 1, "Greeter::greet", Status::Open),
                ("README.md", 1, "greet", Status::Open),
                ("app/templates/index.html", 1, "greet", Status::Open),
                ("templates/page.html.twig", 1, "greet", Status::Open),
            ]
        );
        assert_eq!(
            (residue.open, residue.historical, residue.scanned_files),
            (4, 1, 4)
        );
        assert_eq!(
            &std::fs::read_to_string(root.join("README.md")).expect("read")
                [residue.hits[1].start..residue.hits[1].end],
            "Greeter::greet"
        );
        assert!(!residue.truncated);
    }

    #[test]
    fn names_for_removed_symbols() {
        assert_eq!(
            names_for("App\\Greeter::greet()"),
            ["App\\Greeter::greet", "Greeter::greet", "greet"]
        );
        assert_eq!(names_for("User.save"), ["User.save", "save"]);
        assert_eq!(names_for("helper()"), ["helper"]);
        assert_eq!(names_for("Greeter::$count"), ["Greeter::$count", "count"]);
    }
}
