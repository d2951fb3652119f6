//! Config operations in identedit's JSON shapes, for `patch --json` and `edit --json`
//! requests: the target `{"type": "config_path", "path", "expected_file_hash"?,
//! "document_index"?}` and the operation `{"type": "set", "new_text", "create_missing"?}`,
//! `{"type": "append", "new_text"}` or `{"type": "delete"}`. `new_text` is JSON text; the
//! file hash is the file's sha256. Unknown keys are refused.

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Code, Error, Result};
use crate::plan::{ConfigAction, ConfigOp, Digest, OpKind};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetWire {
    #[serde(rename = "type")]
    kind: String,
    path: String,
    expected_file_hash: Option<String>,
    document_index: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpWire {
    #[serde(rename = "type")]
    kind: String,
    new_text: Option<String>,
    create_missing: Option<bool>,
}

/// Whether a request target is a config path (`"type": "config_path"`).
pub fn is_config_target(target: &Value) -> bool {
    target.get("type").and_then(Value::as_str) == Some("config_path")
}

fn malformed(message: String) -> Error {
    Error::malformed(message).hint(
        "A config operation is {\"target\": {\"type\": \"config_path\", \"path\": \"a.b\"}, \"op\": {\"type\": \"set\", \"new_text\": \"5\"}}.",
    )
}

/// The plan operation of a config target and its operation object.
pub fn op_kind(target: &Value, op: &Value) -> Result<OpKind> {
    let target: TargetWire = serde_json::from_value(target.clone())
        .map_err(|e| malformed(format!("bad config_path target: {e}")))?;
    let op: OpWire = serde_json::from_value(op.clone())
        .map_err(|e| malformed(format!("bad config operation: {e}")))?;
    if target.kind != "config_path" {
        return Err(malformed(format!(
            "target type `{}` is not config_path",
            target.kind
        )));
    }
    let text = |t: Option<String>| t.ok_or_else(|| malformed("`op.new_text` is required".into()));
    let action = match op.kind.as_str() {
        "set" | "replace" => ConfigAction::Set(text(op.new_text)?),
        "append" => ConfigAction::Append(text(op.new_text)?),
        "delete" => ConfigAction::Delete,
        other => {
            return Err(Error::new(
                Code::PlanUnsupported,
                format!("config operation `{other}` is not supported (set, append, delete)"),
            ));
        }
    };
    let expected = target
        .expected_file_hash
        .as_deref()
        .map(Digest::parse)
        .transpose()?;
    let config = ConfigOp {
        path: target.path,
        action,
        create_missing: op.create_missing.unwrap_or(false),
        document_index: target.document_index,
    };
    super::op_kind(config, expected).map_err(|mut e| {
        if e.code == Code::Usage {
            e.code = Code::PlanMalformed;
        }
        e
    })
}
