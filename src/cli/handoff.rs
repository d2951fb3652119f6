//! `patch --from-diff failed.diff FILE`: identedit's failed-diff handoff. Never writes. For each
//! changed block of a single-file diff it lists where the block could apply in FILE (`unique`,
//! `ambiguous` or `missing`), with previews, each candidate as an exact find/replace edit and as
//! identedit's line `target` + `replace_lines` `op` (for `patch --json`), and a
//! `source_edit_plan` of the unique ones that `git identedit apply -` takes as it is.

use serde_json::{Map, Value, json};

use crate::error::{Code, Error, Result};
use crate::formats::{self, Dialect};
use crate::lang::hash::line_hash;
use crate::locate::ladder::{self, Candidate};
use crate::locate::lines::{Line, split};
use crate::plan::schema::{CONTRACT_VERSIONS, PLAN_TYPE};
use crate::plan::{Block, Op, OpKind, PathBase, PathSpec};
use crate::report::Report;
use crate::workspace::Workspace;
use crate::workspace::{path, snapshot};

const PREVIEW_LINES: usize = 2;

/// Lines around a candidate, for the preview.
fn preview(text: &str, c: &Candidate) -> Value {
    let before_start = text[..c.range.start]
        .lines()
        .count()
        .saturating_sub(PREVIEW_LINES);
    let before: Vec<&str> = text[..c.range.start].lines().skip(before_start).collect();
    let after: Vec<&str> = text[c.range.end..].lines().take(PREVIEW_LINES).collect();
    json!({"before": before.join("\n"), "matched": &text[c.range.clone()], "after": after.join("\n")})
}

/// A candidate as identedit's `target` (a line range by anchors) and `op` (`replace_lines`),
/// ready for `patch --json`.
fn line_request(text: &str, lines: &[Line], c: &Candidate) -> (Value, Value) {
    let anchor = |n: usize| {
        let hash = lines.get(n.wrapping_sub(1)).map_or_else(String::new, |l| {
            line_hash(&text.as_bytes()[l.start..l.content_end])
        });
        format!("{n}:{hash}")
    };
    (
        json!({"type": "line", "anchor": anchor(c.start_line), "end_anchor": anchor(c.end_line)}),
        json!({"type": "replace_lines", "new_text": c.replacement}),
    )
}

/// How many changes were found once, several times or not at all, and the candidates in all.
#[derive(Default)]
struct Tally {
    unique: usize,
    ambiguous: usize,
    missing: usize,
    candidates: usize,
}

/// One file's text and the edits the unique candidates make of it.
struct Search<'a> {
    rel: &'a str,
    text: &'a str,
    lines: Vec<Line>,
    edits: Vec<Value>,
    tally: Tally,
}

impl Search<'_> {
    /// One change of the diff: its status and every candidate place, each as an exact edit and
    /// as identedit's line request.
    fn change(&mut self, index: usize, op: &Op, block: &Block) -> Value {
        let found = ladder::candidates(block, self.text);
        let status = match found.len() {
            0 => "missing",
            1 => "unique",
            _ => "ambiguous",
        };
        match status {
            "unique" => self.tally.unique += 1,
            "missing" => self.tally.missing += 1,
            _ => self.tally.ambiguous += 1,
        }
        self.tally.candidates += found.len();
        let candidates: Vec<Value> = found
            .iter()
            .enumerate()
            .map(|(i, c)| self.candidate(i, c, status == "unique"))
            .collect();
        json!({"change_index": index, "input_line": op.origin.input_line, "hint_line": block.hint_line,
               "status": status, "candidates": candidates})
    }

    fn candidate(&mut self, i: usize, c: &Candidate, unique: bool) -> Value {
        let text = self.text;
        let edit =
            json!({"path": self.rel, "find": &text[c.range.clone()], "replace": c.replacement});
        if unique {
            self.edits.push(edit.clone());
        }
        let (line_target, line_op) = line_request(text, &self.lines, c);
        json!({"candidate_index": i, "start_line": c.start_line, "end_line": c.end_line,
               "matched_by": c.matched_by, "preview": preview(text, c), "edit": edit,
               "target": line_target, "op": line_op})
    }
}

pub fn run(ws: &Workspace, diff_path: &str, file: &str) -> Result<Report> {
    let input = std::fs::read(ws.cwd.join(diff_path))
        .map_err(|e| Error::io(&format!("reading {diff_path}"), &e))?;
    let plan = formats::compile(&input, Some(Dialect::Diff))?;
    single_file(&plan)?;
    let spec = PathSpec {
        raw: file.to_owned(),
        base: PathBase::Cwd,
    };
    let target = path::resolve(ws, &spec)?;
    let snapshot = snapshot::read_text(&target)?;
    let text = snapshot.text();
    let text = &*text;
    let mut search = Search {
        rel: &target.rel,
        text,
        lines: split(text),
        edits: Vec::new(),
        tally: Tally::default(),
    };
    let mut changes = Vec::new();
    for (index, op) in plan.ops.iter().enumerate() {
        let OpKind::Block(block) = &op.kind else {
            return Err(Error::new(Code::PlanUnsupported, "--from-diff takes a diff that changes one existing file (no creates, deletes or renames)")
                .detail("input_line", op.origin.input_line));
        };
        changes.push(search.change(index, op, block));
    }
    let Search { edits, tally, .. } = search;
    Ok(handoff_report(
        &target.rel,
        &snapshot.digest.to_hex(),
        changes,
        edits,
        &tally,
    ))
}

/// The handoff's report: every change with its candidates, the tally, and the plan of the
/// unique ones.
fn handoff_report(
    rel: &str,
    sha256: &str,
    changes: Vec<Value>,
    edits: Vec<Value>,
    t: &Tally,
) -> Report {
    let count = changes.len();
    let mut doc = Map::new();
    doc.insert("mode".into(), "failed_diff_handoff".into());
    doc.insert("file".into(), rel.into());
    doc.insert("sha256".into(), sha256.into());
    doc.insert("preview_only".into(), true.into());
    doc.insert("changes".into(), Value::Array(changes));
    doc.insert("summary".into(), json!({"changes": count, "unique": t.unique, "ambiguous": t.ambiguous, "missing": t.missing, "candidates": t.candidates}));
    doc.insert(
        "plan".into(),
        json!({"type": PLAN_TYPE, "contract_version": CONTRACT_VERSIONS[0], "edits": edits}),
    );
    let text_out = format!(
        "{rel}: {count} change(s): {} unique, {} ambiguous, {} missing ({} candidate(s)); nothing was written\n",
        t.unique, t.ambiguous, t.missing, t.candidates
    );
    Report::new(doc, text_out)
}

/// The handoff searches one file: a diff touching several is refused, naming them.
fn single_file(plan: &crate::plan::Plan) -> Result<()> {
    let mut paths: Vec<&str> = plan.ops.iter().map(|op| op.path.raw.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    if paths.len() < 2 {
        return Ok(());
    }
    Err(Error::new(
        Code::PlanUnsupported,
        format!(
            "--from-diff takes a single-file diff; this one touches {} files ({})",
            paths.len(),
            paths.join(", ")
        ),
    )
    .detail("files", paths)
    .hint("Split the diff per file and run `patch --from-diff PART FILE` for each."))
}
