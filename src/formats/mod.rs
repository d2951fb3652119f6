//! Input dialects. Each one compiles into the same [`crate::plan::Plan`]; none applies anything.
//!
//! `apply` detects the dialect by content: a JSON document is a `source_edit_plan`; a
//! `*** Begin Patch` envelope is a Codex patch; `diff --git` or a `---`/`+++` header pair is a
//! unified diff; `<<<<<<< SEARCH` markers are Aider SEARCH/REPLACE blocks (also inside a
//! markdown reply). `--dialect` overrides detection.

pub mod blocks;
pub mod codex;
pub mod patch_request;
pub mod plan_json;
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
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Plan => "source_edit_plan",
            Dialect::Blocks => "blocks",
            Dialect::Codex => "codex",
            Dialect::Diff => "diff",
        }
    }

    /// Recognises the dialect of an input by its content.
    pub fn detect(input: &[u8]) -> Option<Self> {
        let text = String::from_utf8_lossy(input);
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') {
            return Some(Dialect::Plan);
        }
        if text.lines().any(|l| l.trim() == "*** Begin Patch") {
            return Some(Dialect::Codex);
        }
        if text.lines().any(is_search_marker) {
            return Some(Dialect::Blocks);
        }
        let lines: Vec<&str> = text.lines().collect();
        let diff_header = lines.iter().any(|l| l.starts_with("diff --git "))
            || lines
                .windows(2)
                .any(|w| w[0].starts_with("--- ") && w[1].starts_with("+++ "));
        diff_header.then_some(Dialect::Diff)
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
    if dialect == Dialect::Plan {
        return plan_json::parse(input);
    }
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

#[cfg(test)]
mod roundtrip;
