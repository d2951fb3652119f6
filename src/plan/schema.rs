//! The JSON Schema of `source_edit_plan` 1.0, as `git identedit schema` prints it.
//!
//! It describes exactly what `formats::plan_json` accepts; a test walks the schema's
//! properties against the parser so the two cannot drift.

use serde_json::{Value, json};

/// Plan type and contract versions this build executes.
pub const PLAN_TYPE: &str = "source_edit_plan";
pub const CONTRACT_VERSIONS: &[&str] = &["1.0"];

fn sha256_property() -> Value {
    json!({
        "type": "string",
        "pattern": "^(sha256:)?[0-9a-fA-F]{64}$",
        "description": "sha256 of the whole file as read; refuses a file that changed since"
    })
}

fn path_property() -> Value {
    json!({
        "type": "string",
        "minLength": 1,
        "description": "Relative to the repository root (the current directory outside a repository); no `..`, no absolute paths, nothing under .git/"
    })
}

/// The schema document.
pub fn plan_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:git-identedit:source_edit_plan:1.0",
        "title": "source_edit_plan 1.0",
        "description": "Exact-text and symbol-addressed edits, new files and deletions that commit together or not at all.",
        "type": "object",
        "additionalProperties": false,
        "required": ["type", "contract_version"],
        "properties": {
            "$schema": {"type": "string"},
            "type": {"const": PLAN_TYPE},
            "contract_version": {"enum": CONTRACT_VERSIONS},
            "target_id": {"type": "string", "description": "Caller's label for the change"},
            "allow_signature_change": {"type": "boolean",
                "description": "Apply edits that change public declarations (callers checked by the caller) and report them in `api_changes`; without it they are refused with api_change_refused"},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "description": "Without `op`: an exact find/replace. With `op`: a symbol-addressed edit of a PHP, Python or TypeScript declaration",
                    "properties": {
                        "path": path_property(),
                        "find": {"type": "string", "minLength": 1,
                                 "description": "Exact text; must occur once unless `occurrence` or `all`"},
                        "replace": {"type": "string"},
                        "occurrence": {"type": "integer", "minimum": 1,
                                       "description": "Replace only the n-th occurrence (1-based)"},
                        "all": {"type": "boolean", "description": "Replace every occurrence"},
                        "expected_source_sha256": sha256_property(),
                        "op": {"enum": ["replace_body", "replace_symbol", "insert_member", "remove_symbol", "add_use"]},
                        "symbol": {"type": "string", "minLength": 1,
                                   "description": "`Class`, `Class::method()`, `Class::$property`, `Class::CONSTANT`, `Enum::CASE`, `function()` (PHP, short or namespace-qualified); `Class.method`, `function` (Python, TypeScript)"},
                        "code": {"type": "string", "description": "The new body, declaration or member; re-indented to its target"},
                        "name": {"type": "string", "minLength": 1, "description": "add_use: `App\\Model\\User` (PHP), `os` or `typing.Optional` (Python: `import os`, `from typing import Optional`), `X from module` (TypeScript), or a whole import statement"},
                        "position": {"enum": ["start", "end"], "description": "insert_member: where in the class (default end)"},
                        "after": {"type": "string", "description": "insert_member: after this member (`greet()`, `$count`, `method`)"},
                        "before": {"type": "string", "description": "insert_member: before this member"},
                        "reindent": {"type": "boolean", "description": "false: write `code` verbatim (default true)"}
                    },
                    "oneOf": [
                        {"required": ["path", "find", "replace"], "not": {"anyOf": [{"required": ["op"]}, {"required": ["occurrence", "all"]}]}},
                        {"required": ["path", "op"]}
                    ]
                }
            },
            "creates": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["path", "content"],
                    "properties": {"path": path_property(), "content": {"type": "string"}}
                }
            },
            "deletes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["path"],
                    "properties": {
                        "path": path_property(),
                        "expected_source_sha256": sha256_property()
                    }
                }
            }
        }
    })
}
