//! Property test across dialects: one random line edit, written as a `source_edit_plan`, as
//! SEARCH/REPLACE blocks, as a Codex patch and as a unified diff, gives the same bytes through
//! the engine, and the same bytes as a plain splice of the lines.

use proptest::prelude::*;

use crate::formats::{Dialect, compile};
use crate::txn::{Options, execute};
use crate::workspace::Workspace;

/// A file of unique lines, and an edit: lines `start..end` become `new` (with one line of
/// context kept on each side where there is one).
#[derive(Debug, Clone)]
struct Case {
    lines: Vec<String>,
    start: usize,
    end: usize,
    new: Vec<String>,
    crlf: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        3usize..20,
        any::<bool>(),
        prop::collection::vec("[a-z ]{0,12}", 0..4),
        any::<u64>(),
    )
        .prop_map(|(n, crlf, new, seed)| {
            let lines: Vec<String> = (0..n)
                .map(|i| format!("line {i} {}", seed.rotate_left(i as u32) % 97))
                .collect();
            let start = 1 + (seed as usize % (n - 2));
            let end = (start + (seed as usize / 7) % 3).min(n - 1);
            let new = new.into_iter().map(|l| format!("new {l}")).collect();
            Case {
                lines,
                start,
                end,
                new,
                crlf,
            }
        })
}

fn joined(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Context before and after the edited lines, the removed and the added lines.
fn parts(c: &Case) -> (String, String, String, String) {
    (
        joined(&c.lines[c.start - 1..c.start]),
        joined(&c.lines[c.end..c.end + 1]),
        joined(&c.lines[c.start..c.end]),
        joined(&c.new),
    )
}

fn prefixed(text: &str, mark: char) -> String {
    text.lines().map(|l| format!("{mark}{l}\n")).collect()
}

fn render(c: &Case, dialect: Dialect) -> String {
    let (before, after, old, new) = parts(c);
    let (search, replace) = (
        format!("{before}{old}{after}"),
        format!("{before}{new}{after}"),
    );
    match dialect {
        Dialect::Plan => serde_json::json!({"type": "source_edit_plan", "contract_version": "1.0",
            "edits": [{"path": "f.txt", "find": search, "replace": replace}]})
        .to_string(),
        Dialect::List => {
            serde_json::json!([{"path": "f.txt", "find": search, "replace": replace}]).to_string()
        }
        Dialect::Blocks => {
            format!("f.txt\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n")
        }
        Dialect::Codex => format!(
            "*** Begin Patch\n*** Update File: f.txt\n@@\n{}{}{}{}*** End Patch\n",
            prefixed(&before, ' '),
            prefixed(&old, '-'),
            prefixed(&new, '+'),
            prefixed(&after, ' ')
        ),
        Dialect::Diff => {
            let (old_n, new_n) = (search.lines().count(), replace.lines().count());
            format!(
                "--- a/f.txt\n+++ b/f.txt\n@@ -{},{old_n} +{},{new_n} @@\n{}{}{}{}",
                c.start,
                c.start,
                prefixed(&before, ' '),
                prefixed(&old, '-'),
                prefixed(&new, '+'),
                prefixed(&after, ' ')
            )
        }
    }
}

fn with_endings(text: &str, crlf: bool) -> String {
    if crlf {
        text.replace('\n', "\r\n")
    } else {
        text.to_owned()
    }
}

fn apply_in_temp(original: &str, input: &str, dialect: Dialect) -> Result<String, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::write(dir.path().join("f.txt"), original).map_err(|e| e.to_string())?;
    let ws = Workspace::scratch(std::fs::canonicalize(dir.path()).map_err(|e| e.to_string())?);
    let plan = compile(input.as_bytes(), Some(dialect)).map_err(|e| e.message)?;
    execute(&ws, &plan, Options::default()).map_err(|e| e.message)?;
    std::fs::read_to_string(dir.path().join("f.txt")).map_err(|e| e.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn every_dialect_gives_the_same_bytes(c in case()) {
        let original = with_endings(&joined(&c.lines), c.crlf);
        let mut expected_lines = c.lines[..c.start].to_vec();
        expected_lines.extend(c.new.iter().cloned());
        expected_lines.extend(c.lines[c.end..].iter().cloned());
        let expected = with_endings(&joined(&expected_lines), c.crlf);
        for dialect in [
            Dialect::Plan,
            Dialect::List,
            Dialect::Blocks,
            Dialect::Codex,
            Dialect::Diff,
        ] {
            let got = apply_in_temp(&original, &render(&c, dialect), dialect);
            prop_assert_eq!(got.as_deref(), Ok(expected.as_str()), "{:?}\n{}", dialect, render(&c, dialect));
        }
    }
}
