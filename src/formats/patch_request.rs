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
//!
//! The target and operation are compiled by the edit request's own code, as the one operation
//! of a request on `file` ([`request::single_operation`]); errors point at `/target` and `/op`.
//! A type this build does not know is `plan_unsupported`, as identedit's `patch` reports it.

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Code, Error, Result};
use crate::formats::request::{self, Ctx, ops, targets};
use crate::plan::{Digest, Op, Origin, PathBase, PathSpec, Plan};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    command: Option<String>,
    file: String,
    target: Value,
    op: Value,
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

/// Refuses, as `plan_unsupported`, a target or operation type this build does not know.
fn known_types(target: &Value, op: &Value) -> Result<()> {
    let kind = |v: &Value| v.get("type").and_then(Value::as_str).map(str::to_owned);
    let target_type = kind(target).unwrap_or_else(|| "node".into());
    if target_type == "config_path" {
        return Ok(());
    }
    let unsupported = |what: &str, name: &str| {
        Err(Error::new(
            Code::PlanUnsupported,
            format!("{what} `{name}` is not supported"),
        ))
    };
    if !targets::TYPES.contains(&target_type.as_str()) {
        return unsupported("target type", &target_type);
    }
    match kind(op) {
        Some(name) if !ops::OPERATIONS.contains(&name.as_str()) => unsupported("operation", &name),
        _ => Ok(()),
    }
}

pub fn parse(input: &[u8]) -> Result<PatchRequest> {
    let request: Request = serde_json::from_slice(input)
        .map_err(|e| malformed(format!("the patch request is invalid: {e}")))?;
    if request.command.as_deref().is_some_and(|c| c != "patch") {
        return Err(malformed("`command` must be \"patch\""));
    }
    known_types(&request.target, &request.op)?;
    let ctx = Ctx {
        base: PathBase::Cwd,
        repair: request.options.auto_repair,
    };
    let kinds = request::single_operation(request.target, request.op, &request.file, ctx)?;
    let ops = kinds
        .into_iter()
        .map(|(raw, kind)| Op {
            path: PathSpec {
                raw,
                base: PathBase::Cwd,
            },
            origin: Origin::new("operations", 0),
            kind,
        })
        .collect();
    let plan = Plan {
        dialect: "patch_request",
        input_sha256: Some(Digest::of(input)),
        ops,
        ..Plan::default()
    };
    Ok(PatchRequest {
        plan,
        dry_run: request.options.dry_run,
        no_diff: request.options.no_diff,
        verbose: request.options.verbose,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::error::Code;

    fn patch(target: Value, op: Value) -> crate::error::Result<super::PatchRequest> {
        let doc = json!({"command": "patch", "file": "a.py", "target": target, "op": op});
        super::parse(doc.to_string().as_bytes())
    }

    /// A patch request is the one operation of an edit request: both compile to one plan.
    #[test]
    fn a_patch_request_compiles_as_the_same_edit_operation() {
        let cases = [
            (
                json!({"type": "symbol", "name": "f"}),
                json!({"type": "delete"}),
            ),
            (
                json!({"identity": "0123456789abcdef", "kind": "function_definition"}),
                json!({"type": "replace", "new_text": "x"}),
            ),
            (
                json!({"type": "line", "anchor": "2:0123abcd"}),
                json!({"type": "insert_after", "text": "y\n"}),
            ),
            (
                json!({"type": "file_end"}),
                json!({"type": "insert", "new_text": "z\n"}),
            ),
            (
                json!({"type": "symbol", "name": "f"}),
                json!({"type": "move_after", "destination": {"type": "symbol", "name": "g"}}),
            ),
        ];
        for (target, op) in cases {
            let edit = json!({"command": "edit", "file": "a.py",
                              "operations": [{"target": target, "op": op}]});
            let from_edit = crate::formats::request::parse(edit.to_string().as_bytes());
            let from_patch = patch(target.clone(), op.clone());
            let kinds = |ops: &[crate::plan::Op]| {
                format!(
                    "{:?}",
                    ops.iter().map(|o| (&o.path, &o.kind)).collect::<Vec<_>>()
                )
            };
            match (from_edit, from_patch) {
                (Ok(e), Ok(p)) => {
                    assert_eq!(kinds(&e.plan.ops), kinds(&p.plan.ops), "{target} {op}")
                }
                (e, p) => panic!("{target} {op}: {:?} / {:?}", e.err(), p.err()),
            }
        }
    }

    #[test]
    fn refusals_point_at_the_target_or_the_op() {
        let cases = [
            (
                json!({"identity": "xyz"}),
                json!({"type": "delete"}),
                "/target/identity",
            ),
            (
                json!({"type": "symbol", "nme": "f"}),
                json!({"type": "delete"}),
                "/target/nme",
            ),
            (
                json!({"type": "symbol", "name": "f"}),
                json!({"type": "insert", "new_text": "x", "surprise": 1}),
                "/op/surprise",
            ),
        ];
        for (target, op, pointer) in cases {
            let error = patch(target.clone(), op.clone()).err();
            let error = error.unwrap_or_else(|| panic!("{target} {op} compiled"));
            assert_eq!(error.code, Code::PlanMalformed, "{error:?}");
            assert_eq!(error.details["pointer"], json!(pointer), "{error:?}");
        }
    }

    #[test]
    fn a_type_this_build_does_not_know_is_unsupported() {
        for (target, op) in [
            (json!({"type": "warp"}), json!({"type": "delete"})),
            (
                json!({"type": "symbol", "name": "f"}),
                json!({"type": "explode"}),
            ),
        ] {
            let code = patch(target, op).err().map(|e| e.code);
            assert_eq!(code, Some(Code::PlanUnsupported));
        }
    }
}
