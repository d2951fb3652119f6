//! Input dialects. Each one compiles into the same [`crate::plan::Plan`]; none applies anything.
//!
//! `apply` detects the dialect by content: a JSON document is a `source_edit_plan`; a
//! `*** Begin Patch` envelope is a Codex patch; `diff --git` or a `---`/`+++` header pair is a
//! unified diff; `<<<<<<< SEARCH` markers are Aider SEARCH/REPLACE blocks (also inside a
//! markdown reply). `--dialect` overrides detection.

pub mod blocks;
pub mod changeset;
pub mod codex;
pub mod op_wire;
pub mod patch_request;
pub mod plan_json;
pub mod request;
pub mod symbol_edit;
pub mod unified_diff;

use clap::ValueEnum;

use crate::error::{Error, Result};
use crate::plan::{Digest, Plan};

/// The input dialects `apply` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Dialect {
    /// A `source_edit_plan` JSON document.
    Plan,
    /// Aider SEARCH/REPLACE blocks.
    Blocks,
    /// A Codex `*** Begin Patch` patch.
    Codex,
    /// A unified diff (`git diff`, `diff -u`).
    Diff,
    /// A bare JSON list of find/replace edits (`[{"path", "find", "replace"}, …]`), as in a
    /// `source_edit_plan`'s `edits`.
    List,
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Plan => "source_edit_plan",
            Dialect::Blocks => "blocks",
            Dialect::Codex => "codex",
            Dialect::Diff => "diff",
            Dialect::List => "edit_list",
        }
    }

    /// Recognises the dialect of an input by its content.
    pub fn detect(input: &[u8]) -> Option<Self> {
        let text = String::from_utf8_lossy(input);
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') {
            return Some(Dialect::Plan);
        }
        if trimmed.starts_with('[') {
            return Some(Dialect::List);
        }
        if text.lines().any(|l| l.trim() == "*** Begin Patch") {
            return Some(Dialect::Codex);
        }
        // Blocks or a diff: whichever marker comes first (a diff may quote a SEARCH marker in
        // its context lines, and a reply with blocks may quote a diff header in prose later).
        let lines: Vec<&str> = text.lines().collect();
        let first_block = lines.iter().position(|l| is_search_marker(l));
        let first_diff = lines.iter().enumerate().position(|(i, l)| {
            l.starts_with("diff --git ")
                || (l.starts_with("--- ")
                    && lines.get(i + 1).is_some_and(|n| n.starts_with("+++ ")))
        });
        match (first_block, first_diff) {
            (Some(b), Some(d)) if d < b => Some(Dialect::Diff),
            (Some(_), _) => Some(Dialect::Blocks),
            (None, Some(_)) => Some(Dialect::Diff),
            // A Codex file section without its `*** Begin Patch` envelope.
            (None, None) => lines
                .iter()
                .any(|l| {
                    ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
                        .iter()
                        .any(|h| l.starts_with(h))
                })
                .then_some(Dialect::Codex),
        }
    }
}

/// `<<<<<<< SEARCH` with 5 to 9 `<`, indented or not (also `SEARCH>`), as the parser takes it.
fn is_search_marker(line: &str) -> bool {
    let line = line.trim();
    let arrows = line.chars().take_while(|&c| c == '<').count();
    (5..=9).contains(&arrows) && matches!(line[arrows..].trim(), "SEARCH" | "SEARCH>")
}

/// Compiles raw input bytes into a plan, in the given or the detected dialect.
pub fn compile(input: &[u8], dialect: Option<Dialect>) -> Result<Plan> {
    let dialect = dialect.or_else(|| Dialect::detect(input)).ok_or_else(|| {
        Error::malformed("the input is none of the dialects: a source_edit_plan, SEARCH/REPLACE blocks, a Codex patch or a unified diff")
            .hint("Pass --dialect plan|blocks|codex|diff if detection is wrong.")
    })?;
    let mut plan = match dialect {
        Dialect::Plan => plan_json::parse(input)?,
        Dialect::List => edit_list(input)?,
        Dialect::Blocks | Dialect::Codex | Dialect::Diff => text_plan(input, dialect)?,
    };
    // The plan lives through the whole command: a list grown by doubling would keep up to
    // half its room empty (0.9 MB of W4's 5,000 operations).
    plan.ops.shrink_to_fit();
    Ok(plan)
}

/// The plan of a text dialect's input (blocks, a Codex patch or a unified diff).
fn text_plan(input: &[u8], dialect: Dialect) -> Result<Plan> {
    let text =
        std::str::from_utf8(input).map_err(|_| Error::malformed("the input is not valid UTF-8"))?;
    let mut plan = match dialect {
        Dialect::Blocks => blocks::parse(text)?,
        Dialect::Codex => codex::parse(text)?,
        _ => unified_diff::parse(text)?,
    };
    plan.dialect = dialect.name();
    plan.input_sha256 = Some(Digest::of(input));
    Ok(plan)
}

/// A bare list of edits: the `edits` of a `source_edit_plan` without the envelope. It is
/// checked by the same parser (unknown keys refused, `occurrence`, `all`,
/// `expected_source_sha256` honoured) and reported as its own dialect.
fn edit_list(input: &[u8]) -> Result<Plan> {
    let edits: serde_json::Value = serde_json::from_slice(input)
        .map_err(|e| Error::malformed(format!("the edit list is not valid JSON: {e}")))?;
    if !edits.is_array() {
        return Err(Error::malformed("an edit list is a JSON array of edits"));
    }
    let plan = serde_json::json!({"type": crate::plan::schema::PLAN_TYPE,
        "contract_version": crate::plan::schema::CONTRACT_VERSIONS[0], "edits": edits});
    let mut plan = plan_json::parse(plan.to_string().as_bytes())?;
    plan.dialect = Dialect::List.name();
    plan.input_sha256 = Some(Digest::of(input));
    Ok(plan)
}

#[cfg(test)]
mod detection {
    use super::Dialect;

    #[test]
    fn the_first_marker_decides() {
        let detect = |s: &str| Dialect::detect(s.as_bytes());
        assert_eq!(
            detect(" {\"type\": \"source_edit_plan\"}"),
            Some(Dialect::Plan)
        );
        assert_eq!(
            detect("x\n*** Begin Patch\n*** End Patch\n"),
            Some(Dialect::Codex)
        );
        assert_eq!(
            detect("a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"),
            Some(Dialect::Blocks)
        );
        let diff_quoting_a_marker =
            "--- a/m.md\n+++ b/m.md\n@@ -1,2 +1,2 @@\n <<<<<<< SEARCH\n-old\n+new\n";
        assert_eq!(detect(diff_quoting_a_marker), Some(Dialect::Diff));
        assert_eq!(detect("just prose\n"), None);
    }
}
