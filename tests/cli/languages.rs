//! Per-language end-to-end cases, one directory per provider under `fixtures/lang/<language>/`:
//! `sample.<ext>` with its `outline.txt`, and `cases.json` naming a replace, a delete and an
//! insert (each with a hand-made `expected_*` result) and a replacement that does not parse.
//!
//! For every language, each in a fresh repository with the sample committed:
//! 1. `read FILE` lists the structures of `outline.txt`, in order;
//! 2. the replace, delete and insert leave the file byte-identical to the expected file and
//!    report the file as `checked` in `structure_changes`;
//! 3. the broken replacement is refused (`parse_failure` at `proposed_result`, exit 1) and the
//!    work tree is untouched.
//!
//! A sub-case marked `"known_bug": "<description>"` is skipped with a note on stderr. Failures
//! are collected across languages (panics included) and reported together at the end.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{Repo, code};

/// Providers with a sample: fewer case files means one went missing.
const MIN_LANGUAGES: usize = 19;

type Step = Result<(), String>;

struct Lang {
    name: String,
    dir: PathBuf,
    file: String,
    cases: Value,
}

impl Lang {
    fn fixture(&self, rel: &str) -> Vec<u8> {
        let path = self.dir.join(rel);
        std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
    }

    fn case_str(&self, case: &str, key: &str) -> Result<&str, String> {
        self.cases[case][key]
            .as_str()
            .ok_or_else(|| format!("cases.json: `{case}.{key}` is missing or not a string"))
    }

    /// A fresh repository with the sample committed under its file name.
    fn repo(&self) -> Repo {
        let repo = Repo::new();
        repo.write(&self.file, self.fixture(&self.file)).commit();
        repo
    }
}

/// Every `fixtures/lang/*/cases.json`, sorted by language.
fn languages() -> Vec<Lang> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lang");
    let mut langs: Vec<Lang> = std::fs::read_dir(&root)
        .expect("fixtures/lang is readable")
        .flatten()
        .map(|entry| entry.path())
        .filter(|dir| dir.join("cases.json").is_file())
        .map(|dir| {
            let json = std::fs::read_to_string(dir.join("cases.json")).expect("cases.json");
            let cases: Value = serde_json::from_str(&json)
                .unwrap_or_else(|e| panic!("{}/cases.json: {e}", dir.display()));
            Lang {
                name: dir.file_name().expect("dir name").to_string_lossy().into(),
                file: cases["file"]
                    .as_str()
                    .expect("cases.json: `file`")
                    .to_owned(),
                dir,
                cases,
            }
        })
        .collect();
    langs.sort_by(|a, b| a.name.cmp(&b.name));
    langs
}

/// The qualified names of `outline.txt` (`{indent}{kind} {qualified_name} {start}-{end}`).
fn outline_names(outline: &str) -> Vec<String> {
    outline
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (_kind, rest) = line.trim_start().split_once(' ').expect("kind and name");
            let (name, _lines) = rest.rsplit_once(' ').expect("name and line range");
            name.to_owned()
        })
        .collect()
}

fn outline(lang: &Lang) -> Step {
    let repo = lang.repo();
    let (rc, doc) = repo.json(&["read", &lang.file]);
    if rc != 0 || doc["ok"] != true {
        return Err(format!("read exited {rc}: {doc}"));
    }
    let names: Vec<String> = doc["files"][0]["handles"]
        .as_array()
        .map(|handles| {
            let name = |h: &Value| h["qualified_name"].as_str().unwrap_or("<none>").to_owned();
            handles.iter().map(name).collect()
        })
        .unwrap_or_default();
    let expected = outline_names(&String::from_utf8_lossy(&lang.fixture("outline.txt")));
    if names != expected {
        return Err(format!("names {names:?}, outline.txt {expected:?}"));
    }
    Ok(())
}

/// The first line where `actual` differs from `expected`, for a readable failure.
fn first_difference(expected: &[u8], actual: &[u8]) -> String {
    let (expected, actual) = (
        String::from_utf8_lossy(expected),
        String::from_utf8_lossy(actual),
    );
    let (mut e, mut a) = (expected.split_inclusive('\n'), actual.split_inclusive('\n'));
    for line in 1.. {
        match (e.next(), a.next()) {
            (None, None) => break,
            (want, got) if want != got => {
                return format!("line {line}: expected {want:?}, got {got:?}");
            }
            _ => {}
        }
    }
    "identical".to_owned()
}

/// Runs the `replace`, `delete` or `insert` case and compares the file with its expected result.
fn edit(lang: &Lang, op: &str) -> Step {
    if let Some(bug) = lang.cases[op]["known_bug"].as_str() {
        eprintln!("languages: skipping {}/{op}, known bug: {bug}", lang.name);
        return Ok(());
    }
    let symbol = lang.case_str(op, "symbol")?;
    let mut args = vec!["patch", lang.file.as_str(), "--symbol", symbol];
    match op {
        "replace" => args.extend(["--replace", lang.case_str(op, "text")?]),
        "delete" => args.push("--delete"),
        _ => {
            let flag = match lang.case_str(op, "where")? {
                "before" => "--insert-before",
                "after" => "--insert-after",
                other => return Err(format!("cases.json: `insert.where` is {other:?}")),
            };
            args.extend([flag, lang.case_str(op, "text")?]);
        }
    }
    let repo = lang.repo();
    let (rc, doc) = repo.json(&args);
    if rc != 0 || doc["ok"] != true {
        return Err(format!("exited {rc} ({}): {doc}", code(&doc)));
    }
    let checked = doc["structure_changes"].as_array().is_some_and(|changes| {
        changes
            .iter()
            .any(|c| c["path"] == lang.file.as_str() && c["status"] == "checked")
    });
    if !checked {
        return Err(format!("no `checked` structure change: {doc}"));
    }
    let expected = lang.fixture(lang.case_str(op, "expected")?);
    let actual = repo.read(&lang.file);
    if actual != expected {
        return Err(first_difference(&expected, &actual));
    }
    Ok(())
}

/// The replacement that does not parse is refused and changes nothing.
fn broken(lang: &Lang) -> Step {
    let symbol = lang.case_str("broken", "symbol")?;
    let text = lang.case_str("broken", "text")?;
    let repo = lang.repo();
    let before = repo.tree();
    // The payload goes through stdin: it may hold bytes an argument cannot (markdown: NUL).
    let args = [
        "patch",
        &lang.file,
        "--symbol",
        symbol,
        "--replace",
        "--stdin-text",
    ];
    let (rc, doc) = repo.json_stdin(&args, text);
    let stage = doc["error"]["stage"].as_str().unwrap_or("<none>");
    if (rc, code(&doc), stage) != (1, "parse_failure", "proposed_result") {
        return Err(format!(
            "expected exit 1, parse_failure at proposed_result: {doc}"
        ));
    }
    if repo.tree() != before {
        return Err("the refused edit changed the work tree".to_owned());
    }
    Ok(())
}

/// Runs one step, turning a panic (say, from the harness) into a failure.
fn run(step: impl FnOnce() -> Step) -> Step {
    catch_unwind(AssertUnwindSafe(step)).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("<non-string panic>");
        Err(format!("panicked: {message}"))
    })
}

#[test]
fn every_language_reads_edits_and_refuses_broken_results() {
    let langs = languages();
    assert!(
        langs.len() >= MIN_LANGUAGES,
        "only {} fixtures/lang/*/cases.json, expected at least {MIN_LANGUAGES}",
        langs.len()
    );
    let mut failures = Vec::new();
    for lang in &langs {
        let steps: [(&str, Step); 5] = [
            ("outline", run(|| outline(lang))),
            ("replace", run(|| edit(lang, "replace"))),
            ("delete", run(|| edit(lang, "delete"))),
            ("insert", run(|| edit(lang, "insert"))),
            ("broken", run(|| broken(lang))),
        ];
        for (step, result) in steps {
            if let Err(why) = result {
                failures.push(format!("{}/{step}: {why}", lang.name));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing step(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
