//! identedit's patch request (`patch --json` on stdin), one target and one operation:
//!
//! ```json
//! {"command": "patch", "file": "example.py",
//!  "target": {"type": "node", "identity": "…16 hex…", "kind": "function_definition",
//!             "expected_old_hash": "…16 hex…", "span_hint": {"start": 10, "end": 80}},
//!  "op": {"type": "replace", "new_text": "…"},
//!  "options": {"auto_repair": false, "dry_run": false, "verbose": false, "no_diff": false}}
//! ```
//! Targets: `node` (the default when `type` is omitted), `symbol {name}`,
//! `selector {kind, name?, exclude_kinds?}`, `line {anchor, end_anchor?}`,
//! `file_start` / `file_end` (`expected_file_hash`: the file's sha256). Operations: `replace`,
//! `set_line`, `replace_lines`, `replace_range` (`new_text`), `delete`, `insert_before`,
//! `insert_after` (`new_text` or `text`), `insert` (`new_text`), `scoped_regex
//! {pattern, replacement}`. Unknown keys are refused. `file` is relative to the current directory.
//! A `config_path` target takes `set` / `append` / `delete` (see `formats::op_wire`).

use serde::Deserialize;

use crate::error::{Code, Error, Result};
use crate::formats::op_wire::{self, OpWire};
use crate::plan::{Digest, LineAnchor, NodeOp, OpKind, Plan, Target};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    command: Option<String>,
    file: String,
    target: serde_json::Value,
    op: serde_json::Value,
    #[serde(default)]
    options: OptionsWire,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct OptionsWire {
    #[serde(default)]
    auto_repair: bool,
    #[serde(default)]
    dry_run: bool,
    #[serde(default)]
    verbose: bool,
    #[serde(default)]
    no_diff: bool,
}

#[derive(Deserialize)]
struct SpanWire {
    start: usize,
    end: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetWire {
    #[serde(rename = "type")]
    kind_of_target: Option<String>,
    identity: Option<String>,
    kind: Option<String>,
    expected_old_hash: Option<String>,
    span_hint: Option<SpanWire>,
    name: Option<String>,
    exclude_kinds: Option<Vec<String>>,
    anchor: Option<String>,
    end_anchor: Option<String>,
    expected_file_hash: Option<String>,
}

/// A compiled request: the plan and whether it asked for a dry run.
pub struct PatchRequest {
    pub plan: Plan,
    pub dry_run: bool,
    /// `options.no_diff`: leave the committed write's `diff` view out.
    pub no_diff: bool,
    /// `options.verbose`: add the `applied` list.
    pub verbose: bool,
}

fn malformed(message: impl Into<String>) -> Error {
    Error::malformed(message)
        .hint("See the request shape in `git identedit patch --help` and README.md.")
}

fn required(value: Option<String>, what: &str) -> Result<String> {
    value.ok_or_else(|| malformed(format!("`{what}` is required")))
}

fn target(wire: TargetWire) -> Result<(Target, Option<Digest>)> {
    let anchor = |text: String| LineAnchor::parse(&text).map_err(malformed);
    let file_hash = wire
        .expected_file_hash
        .as_deref()
        .map(Digest::parse)
        .transpose()?;
    let target = match wire.kind_of_target.as_deref().unwrap_or("node") {
        "node" => Target::Node {
            identity: required(wire.identity, "target.identity")?,
            kind: wire.kind,
            expected_hash: wire.expected_old_hash,
            span_hint: wire.span_hint.map(|s| (s.start, s.end)),
        },
        "symbol" => Target::Symbol(required(wire.name, "target.name")?),
        "selector" => Target::Selector {
            kind: required(wire.kind, "target.kind")?,
            name: wire.name,
            exclude_kinds: wire.exclude_kinds.unwrap_or_default(),
        },
        "line" => Target::Lines {
            start: anchor(required(wire.anchor, "target.anchor")?)?,
            end: wire.end_anchor.map(anchor).transpose()?,
        },
        "file_start" => Target::FileStart,
        "file_end" => Target::FileEnd,
        other => {
            return Err(Error::new(
                Code::PlanUnsupported,
                format!("target type `{other}` is not supported"),
            ));
        }
    };
    Ok((target, file_hash))
}

/// The fields each operation takes besides `type`; any other field contradicts the operation.
/// `None` for an operation this build does not know (`operation` refuses it as unsupported).
fn op_fields(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "replace" | "set_line" | "replace_lines" | "replace_range" | "insert" => &["new_text"],
        "insert_before" | "insert_after" | "insert_after_line" | "line_insert_after" => {
            &["new_text", "text"]
        }
        "scoped_regex" => &["pattern", "replacement"],
        "delete" => &[],
        _ => return None,
    })
}

fn check_fields(wire: &OpWire) -> Result<()> {
    let given = [
        ("new_text", wire.new_text.is_some()),
        ("text", wire.text.is_some()),
        ("pattern", wire.pattern.is_some()),
        ("replacement", wire.replacement.is_some()),
        ("create_missing", wire.create_missing.is_some()),
    ];
    let Some(allowed) = op_fields(&wire.kind) else {
        return Ok(());
    };
    if let Some((field, _)) = given.iter().find(|(f, on)| *on && !allowed.contains(f)) {
        return Err(malformed(format!(
            "operation `{}` takes no `{field}`: drop it, or choose the operation that uses it",
            wire.kind
        )));
    }
    if wire.new_text.is_some() && wire.text.is_some() {
        return Err(malformed("give `new_text` or `text`, not both"));
    }
    Ok(())
}

fn operation(wire: OpWire) -> Result<NodeOp> {
    check_fields(&wire)?;
    let text = |wire_text: Option<String>| required(wire_text, "op.new_text");
    Ok(match wire.kind.as_str() {
        "replace" | "set_line" | "replace_lines" | "replace_range" => {
            NodeOp::Replace(text(wire.new_text)?)
        }
        "delete" => NodeOp::Delete,
        "insert_before" => NodeOp::InsertBefore(text(wire.new_text.or(wire.text))?),
        "insert_after" | "insert_after_line" | "line_insert_after" => {
            NodeOp::InsertAfter(text(wire.new_text.or(wire.text))?)
        }
        "insert" => NodeOp::Insert(text(wire.new_text)?),
        "scoped_regex" => NodeOp::ScopedRegex {
            pattern: required(wire.pattern, "op.pattern")?,
            replacement: required(wire.replacement, "op.replacement")?,
        },
        other => {
            return Err(Error::new(
                Code::PlanUnsupported,
                format!("operation `{other}` is not supported"),
            ));
        }
    })
}

pub fn parse(input: &[u8]) -> Result<PatchRequest> {
    let request: Request = serde_json::from_slice(input)
        .map_err(|e| malformed(format!("the patch request is invalid: {e}")))?;
    if request.command.as_deref().is_some_and(|c| c != "patch") {
        return Err(malformed("`command` must be \"patch\""));
    }
    let kind = if op_wire::is_config_target(&request.target) {
        op_wire::op_kind(&request.target, &request.op)?
    } else {
        let wire = |e: serde_json::Error| malformed(format!("the patch request is invalid: {e}"));
        let (target, expected) = target(serde_json::from_value(request.target).map_err(wire)?)?;
        let op_wire: OpWire = serde_json::from_value(request.op).map_err(wire)?;
        let op_name = op_wire.kind.clone();
        let op = operation(op_wire)?;
        op.check(&target).map_err(malformed)?;
        crate::plan::check_line_op(&op_name, &target).map_err(malformed)?;
        OpKind::Targeted {
            target,
            op,
            expected,
            repair: request.options.auto_repair,
        }
    };
    let mut plan = Plan::single("patch_request", request.file, "operations", kind);
    plan.input_sha256 = Some(Digest::of(input));
    Ok(PatchRequest {
        plan,
        dry_run: request.options.dry_run,
        no_diff: request.options.no_diff,
        verbose: request.options.verbose,
    })
}
