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

/// A name to look for. In Markdown a `member` name (a method, property or constant without
/// its class) counts only where it reads as code: `->run`, `::run`, `.run`, `$run`, `` `run``
/// or `run(`, so that ordinary words in prose are not residue; templates are code throughout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub member: bool,
}

impl Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

/// Scans the documents and templates under `root` for whole-word mentions of `names` (e.g.
/// `Greeter::greet`, `greet`), in a stable order (paths sorted).
pub fn scan(root: &Path, names: &[Name]) -> Residue {
    let names: Vec<(&str, bool)> = names
        .iter()
        .map(|n| (n.text.trim().trim_end_matches("()"), n.member))
        .filter(|(n, _)| !n.is_empty())
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
        let lower = file_name.to_ascii_lowercase();
        let prose = lower.ends_with(".md") || lower.ends_with(".markdown");
        for (start, name) in matches(&text, &names, prose) {
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

/// The spellings of removed symbols worth looking for, each once: `App\Greeter::greet()`
/// gives `App\Greeter::greet`, `Greeter::greet` and the member `greet`; `User.save` gives
/// `User.save` and the member `save`; `helper()` gives `helper`.
pub fn names_for(symbols: &[String]) -> Vec<Name> {
    let mut names: Vec<Name> = Vec::new();
    let mut add = |text: &str, member: bool| {
        if !text.is_empty() && !names.iter().any(|n| n.text == text) {
            names.push(Name {
                text: text.to_owned(),
                member,
            });
        }
    };
    for symbol in symbols {
        let bare = symbol.trim().trim_end_matches("()");
        add(bare, false);
        let short = bare.rsplit_once('\\').map_or(bare, |(_, s)| s);
        add(short, false);
        let member = short
            .rsplit_once("::")
            .or_else(|| short.rsplit_once('.'))
            .map(|(_, m)| m);
        if let Some(member) = member {
            add(member.trim_start_matches('$'), true);
        }
    }
    names
}

/// Every whole-word occurrence of one of `names`, in text order; at one position the longest
/// name wins.
fn matches<'n>(text: &str, names: &[(&'n str, bool)], prose: bool) -> Vec<(usize, &'n str)> {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut found: Vec<(usize, &str)> = Vec::new();
    for &(name, member) in names {
        let mut from = 0;
        while let Some(i) = text[from..].find(name) {
            let start = from + i;
            let end = start + name.len();
            let before = text[..start].chars().next_back();
            let after = text[end..].chars().next();
            let starts_word = !name.starts_with(word) || !before.is_some_and(word);
            let code_like = || {
                let head = &text[..start];
                ["->", "::", ".", "$", "`"]
                    .iter()
                    .any(|p| head.ends_with(p))
                    || after == Some('(')
            };
            let starts_word = starts_word || (member && before == Some('$'));
            if starts_word && !after.is_some_and(word) && (!member || !prose || code_like()) {
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
        let names = names_for(&["Greeter::greet()".to_owned()]);
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

    fn texts(symbols: &[&str]) -> Vec<(String, bool)> {
        let symbols: Vec<String> = symbols.iter().map(|s| (*s).to_owned()).collect();
        names_for(&symbols)
            .into_iter()
            .map(|n| (n.text, n.member))
            .collect()
    }

    #[test]
    fn names_for_removed_symbols() {
        let own = |list: &[(&str, bool)]| -> Vec<(String, bool)> {
            list.iter().map(|(t, m)| ((*t).to_owned(), *m)).collect()
        };
        assert_eq!(
            texts(&["App\\Greeter::greet()"]),
            own(&[
                ("App\\Greeter::greet", false),
                ("Greeter::greet", false),
                ("greet", true)
            ])
        );
        assert_eq!(
            texts(&["User.save"]),
            own(&[("User.save", false), ("save", true)])
        );
        assert_eq!(texts(&["helper()"]), own(&[("helper", false)]));
        assert_eq!(texts(&["Greeter"]), own(&[("Greeter", false)]));
        assert_eq!(
            texts(&["Greeter::$count"]),
            own(&[("Greeter::$count", false), ("count", true)])
        );
        // Every name once, also across symbols.
        assert_eq!(
            texts(&["A::run()", "B::run()", "A::run()"]),
            own(&[("A::run", false), ("run", true), ("B::run", false)])
        );
    }

    #[test]
    fn member_names_count_only_where_they_read_as_code() {
        let dir = tempfile::tempdir().expect("temp dir");
        let text = "Run it: we run the job.\nCall `$job->run()`, `Job::run`, job.run or run().\nThe $count and count, `count`.\n";
        std::fs::write(dir.path().join("README.md"), text).expect("write");
        let names = names_for(&["Job::run()".to_owned(), "Job::$count".to_owned()]);
        let residue = scan(dir.path(), &names);
        let seen: Vec<(usize, &str)> = residue
            .hits
            .iter()
            .map(|h| (h.line, &text[h.start..h.end]))
            .collect();
        assert_eq!(
            seen,
            [
                (2, "run"),
                (2, "Job::run"),
                (2, "run"),
                (2, "run"),
                (3, "count"),
                (3, "count")
            ]
        );
    }
}
