//! The layer check: every `crate::…`, `super::…` and `self::…` path in `src/**.rs` points
//! down the layers of `LAYERS` (or stays in its own layer), and no two files name each other.
//! `docs/ARCHITECTURE.md` draws the same table; change both together.
//!
//! Test code (`tests.rs`, files under a `tests/` folder, modules declared after
//! `#[cfg(test)]`) may drive the layers above it and is not read. A module and its own
//! submodules may name each other (a parent's shared types, its children's steps).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level modules of `src/`, lowest layer first. A module may name modules of its own
/// layer and of the layers below it, never one above.
const LAYERS: &[&[&str]] = &[
    &["error", "error_types", "alloc"],
    &["plan"],
    &["workspace"],
    &["lang"],
    &["locate"],
    &["formats"],
    &["change"],
    &["git"],
    &["txn"],
    &["receipt"],
    &["hook", "report", "registry"],
    &["cli", "mcp"],
];

/// One file: its path under `src/` (`lang/api.rs`) and its text.
type Files = BTreeMap<String, String>;

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The module path of a file: `lang/symbols/mod.rs` is `lang::symbols`, `lang/api.rs` is
/// `lang::api`, `lib.rs` the crate root.
fn module_of(file: &str) -> Vec<String> {
    let stem = file.strip_suffix(".rs").unwrap_or(file);
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The file that holds the item a module path names: its longest prefix that is a file.
fn file_of(files: &Files, path: &[String]) -> Option<String> {
    (1..=path.len()).rev().find_map(|k| {
        let stem = path[..k].join("/");
        [format!("{stem}.rs"), format!("{stem}/mod.rs")]
            .into_iter()
            .find(|f| files.contains_key(f))
    })
}

/// The text with comments blanked (doc links name no dependency) and test modules cut off.
fn code_of(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut test_next = false;
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("").to_owned();
        let trimmed = code.trim();
        if test_next && trimmed.starts_with("mod ") && trimmed.ends_with('{') {
            break;
        }
        test_next = trimmed == "#[cfg(test)]" || (test_next && trimmed.is_empty());
        lines.push(code);
    }
    lines
}

/// Files declared only for tests (`#[cfg(test)] mod name;`), and every file under them.
fn test_only(files: &Files) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (file, text) in files {
        // `a/b.rs` and `a/b/mod.rs` both declare their submodules in `a/b/`.
        let base = module_of(file);
        let mut test_next = false;
        for line in text.lines().map(str::trim) {
            if test_next {
                let name = line
                    .trim_start_matches("pub(crate) ")
                    .trim_start_matches("pub ")
                    .strip_prefix("mod ")
                    .and_then(|r| r.strip_suffix(';'));
                if let Some(name) = name {
                    let mut child = base.clone();
                    child.push(name.to_owned());
                    out.insert(child.join("/"));
                }
            }
            test_next = line == "#[cfg(test)]";
        }
    }
    files
        .keys()
        .filter(|f| {
            let m = module_of(f).join("/");
            f.ends_with("tests.rs")
                || f.contains("/tests/")
                || out
                    .iter()
                    .any(|t| m == *t || m.starts_with(&format!("{t}/")))
        })
        .cloned()
        .collect()
}

/// Every path a line names, made absolute from the crate root.
fn paths_in(module: &[String], line: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for expanded in expand_uses(line) {
        let segs: Vec<&str> = expanded.split("::").map(str::trim).collect();
        let mut abs: Vec<String> = match segs.first() {
            Some(&"crate") => Vec::new(),
            Some(&"super") => module[..module.len().saturating_sub(1)].to_vec(),
            Some(&"self") => module.to_vec(),
            _ => continue,
        };
        for s in &segs[1..] {
            if *s == "super" {
                abs.pop();
            } else if s.chars().all(|c| c.is_alphanumeric() || c == '_') && !s.is_empty() {
                abs.push((*s).to_owned());
            } else {
                break;
            }
        }
        out.push(abs);
    }
    out
}

/// `crate::a::{b, c::d}` and inline `super::x::y(` written out as whole paths.
fn expand_uses(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let rest: String = bytes[i..].iter().collect();
        let starts = ["crate::", "super::", "self::"]
            .iter()
            .any(|p| rest.starts_with(p));
        let boundary = i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_');
        if starts && boundary {
            let (paths, used) = tree(&rest);
            out.extend(paths);
            i += used.max(1);
        } else {
            i += 1;
        }
    }
    out
}

/// One use tree from the start of `s`: its whole paths and the characters it spans.
fn tree(s: &str) -> (Vec<String>, usize) {
    let mut prefix = String::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' || c == ':' {
            prefix.push(c);
            i += 1;
        } else if c == '{' && prefix.ends_with("::") {
            let (mut paths, mut depth, mut item) = (Vec::new(), 0, String::new());
            i += 1;
            while i < chars.len() {
                let c = chars[i];
                i += 1;
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        paths.extend(sub(&prefix, &item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            paths.extend(sub(&prefix, &item));
            return (paths, i);
        } else {
            break;
        }
    }
    (vec![prefix.trim_end_matches(':').to_owned()], i)
}

fn sub(prefix: &str, item: &str) -> Vec<String> {
    let item = item.trim();
    if item.is_empty() || item == "self" {
        return vec![prefix.trim_end_matches(':').to_owned()];
    }
    let whole = format!("{prefix}{item}");
    let (paths, _) = tree(&whole);
    paths
}

/// Every upward import (`file:line: a names b`) and every pair of files that name each other.
fn check(files: &Files) -> Vec<String> {
    let tests = test_only(files);
    let mut problems = Vec::new();
    let mut edges: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (file, text) in files.iter().filter(|(f, _)| !tests.contains(*f)) {
        let module = module_of(file);
        let from = module.first().cloned().unwrap_or_default();
        for (n, line) in code_of(text).iter().enumerate() {
            for path in paths_in(&module, line) {
                let Some(to) = path.first() else { continue };
                if let (Some(a), Some(b)) = (layer_of(&from), layer_of(to))
                    && b > a
                {
                    problems.push(format!(
                        "{file}:{}: {from} names {to}, a higher layer: {}",
                        n + 1,
                        line.trim()
                    ));
                }
                if let Some(target) = file_of(files, &path).filter(|t| t != file) {
                    edges.entry((file.clone(), target)).or_insert(n + 1);
                }
            }
        }
    }
    for ((a, b), line) in &edges {
        let nested = |x: &str, y: &str| {
            let (x, y) = (module_of(x).join("/"), module_of(y).join("/"));
            y.starts_with(&format!("{x}/")) || x.is_empty()
        };
        if a < b && edges.contains_key(&(b.clone(), a.clone())) && !nested(a, b) && !nested(b, a) {
            let back = edges[&(b.clone(), a.clone())];
            problems.push(format!(
                "{a}:{line} and {b}:{back} name each other (a two-way import)"
            ));
        }
    }
    problems
}

fn read_tree(dir: &Path, base: &Path, files: &mut Files) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src/ reads")
        .map(|e| e.expect("an entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_tree(&path, base, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(base).expect("under src");
            let text = std::fs::read_to_string(&path).expect("a source file reads");
            files.insert(rel.to_string_lossy().replace('\\', "/"), text);
        }
    }
}

#[test]
fn every_dependency_points_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Files::new();
    read_tree(&src, &src, &mut files);
    assert!(files.len() > 50, "src/ was read");
    for file in files.keys() {
        let top = module_of(file);
        if let Some(m) = top.first() {
            assert!(
                layer_of(m).is_some(),
                "{file}: `{m}` is in no layer of LAYERS"
            );
        }
    }
    let problems = check(&files);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn synthetic(files: &[(&str, &str)]) -> Files {
    files
        .iter()
        .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
        .collect()
}

#[test]
fn an_upward_import_is_named_with_its_line() {
    let files = synthetic(&[
        ("lang/mod.rs", "pub mod api;\n"),
        (
            "lang/api.rs",
            "//! Doc: crate::txn::x is prose.\nuse crate::plan::Plan;\nuse crate::{error::Error, txn::change::FileChange};\n",
        ),
        ("txn/mod.rs", "use crate::lang::api;\n"),
        ("plan/mod.rs", "pub fn f() { crate::git::repo::open(); }\n"),
        ("git/repo.rs", "pub fn open() {}\n"),
    ]);
    let problems = check(&files);
    assert_eq!(
        problems,
        [
            "lang/api.rs:3: lang names txn, a higher layer: use crate::{error::Error, txn::change::FileChange};",
            "plan/mod.rs:1: plan names git, a higher layer: pub fn f() { crate::git::repo::open(); }",
            "lang/api.rs:3 and txn/mod.rs:1 name each other (a two-way import)",
        ]
    );
}

#[test]
fn two_files_naming_each_other_are_named() {
    let files = synthetic(&[
        (
            "txn/mod.rs",
            "pub mod moves;\npub mod prepare;\nuse prepare::x;\n",
        ),
        ("txn/moves.rs", "use super::prepare::Prepared;\n"),
        (
            "txn/prepare.rs",
            "use super::Options;\n\nfn f() { super::moves::bind(); }\n#[cfg(test)]\nmod tests {\n    use crate::cli::x;\n}\n",
        ),
        ("cli/mod.rs", ""),
    ]);
    assert_eq!(
        check(&files),
        ["txn/moves.rs:1 and txn/prepare.rs:3 name each other (a two-way import)"]
    );
}

#[test]
fn test_code_may_drive_higher_layers() {
    let files = synthetic(&[
        ("locate/mod.rs", "#[cfg(test)]\nmod props;\nmod config;\n"),
        ("locate/props.rs", "use crate::txn::execute;\n"),
        ("locate/config/tests.rs", "use crate::txn::execute;\n"),
        ("txn/mod.rs", "use crate::locate::x;\n"),
    ]);
    assert!(check(&files).is_empty());
}
