//! The config operations of identedit's JSON requests (`patch --json`, `edit --json`): the
//! target `{"type": "config_path", "path", "expected_file_hash"?, "document_index"?}` and the
//! operation `{"type": "set", "new_text", "create_missing"?}`, `{"type": "append",
//! "new_text"}` or `{"type": "delete"}`. `new_text` is JSON text; the file hash is the file's
//! sha256. Unknown keys are refused (the other operations' fields among them).

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

/// A config operation as written.
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
    crate::locate::config::op_kind(config, expected).map_err(|mut e| {
        if e.code == Code::Usage {
            e.code = Code::PlanMalformed;
        }
        e
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::error::Code;

    #[test]
    fn a_config_operation_refuses_the_fields_of_other_operations() {
        let target = json!({"type": "config_path", "path": "a.b"});
        for field in ["text", "pattern", "replacement"] {
            let op = json!({"type": "set", "new_text": "1", field: "x"});
            let err = super::op_kind(&target, &op).err().map(|e| e.code);
            assert_eq!(err, Some(Code::PlanMalformed), "{field}");
        }
        let op = json!({"type": "set", "new_text": "1", "create_missing": true});
        assert!(super::op_kind(&target, &op).is_ok());
    }

    #[test]
    fn a_patch_operation_refuses_create_missing() {
        let request = json!({"file": "a.py", "target": {"type": "file_end", "expected_file_hash": null},
                             "op": {"type": "insert", "new_text": "x\n", "create_missing": true}});
        let err = crate::formats::patch_request::parse(request.to_string().as_bytes()).err();
        let err = err.map(|e| (e.code, e.message));
        assert!(
            matches!(&err, Some((Code::PlanMalformed, m)) if m.contains("create_missing")),
            "{err:?}"
        );
    }
}
