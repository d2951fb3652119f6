//! The capability registry: what this build executes. `capabilities`, `instructions` and the
//! error documentation are all generated from here, so they never drift from the binary.

use serde_json::{Value, json};

use crate::error::{
    CODES, EXIT_APPLY_FAILED, EXIT_BUSY, EXIT_INTERNAL, EXIT_OK, EXIT_REFUSED, EXIT_USAGE,
};
use crate::plan::schema::{CONTRACT_VERSIONS, PLAN_TYPE};
use crate::workspace::failpoint;

/// A subcommand as agents should call it.
pub struct CommandSpec {
    pub name: &'static str,
    pub summary: &'static str,
    pub usage: &'static str,
}

pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "edit",
        summary: "one exact find/replace in one file, checked and applied as a transaction",
        usage: "git identedit edit FILE (--find=TEXT --replace=TEXT [--occurrence N | --all] | --symbol S (--replace-body | --replace-symbol | --insert-member [--position start|end | --after M | --before M] | --remove-symbol) [--text T | --text-file F] [--no-reindent] | --add-use NAME) [--allow-signature-change] [--expected-sha256 H] [--dry-run] [--diff] | git identedit edit --json < request.json > changeset.json",
    },
    CommandSpec {
        name: "patch",
        summary: "one target, one operation: text (--find), a structure (--symbol, --at IDENTITY, --kind/--name), lines (--at LINE:HASH [--end-anchor]), a file boundary (--at file-start|file-end) or a JSON/YAML/TOML key path (--config-path)",
        usage: "git identedit patch FILE (--find=TEXT | --symbol NAME | --at TARGET | --kind K --name GLOB) (--replace [TEXT] | --delete | --insert-before [TEXT] | --insert-after [TEXT] | --insert [TEXT] | --scoped-regex P --scoped-replacement R) [--text-file F | --stdin-text] [--auto-repair] [--allow-signature-change] [--dry-run] [--diff]; config files: git identedit patch FILE --config-path PATH (--set-value [JSON] | --append-value [JSON] | --delete) [--create-missing] [--document-index N]",
    },
    CommandSpec {
        name: "read",
        summary: "the outline (structures with identities), one structure with context, a selector listing, or LINE:HASH anchors",
        usage: "git identedit read FILE... [--symbol NAME [--context N] | --kind K [--name GLOB] | --mode line [--offset N --limit M]] [--json] [--verbose]",
    },
    CommandSpec {
        name: "apply",
        summary: "apply a source_edit_plan, Aider SEARCH/REPLACE blocks (a whole reply is fine), a Codex `*** Begin Patch` patch or a unified diff, all or nothing; `-` reads stdin",
        usage: "git identedit apply INPUT|- [--dialect plan|blocks|codex|diff] [--dry-run] [--diff] [--repair] [--task LABEL] [--stage | --cached]",
    },
    CommandSpec {
        name: "verify",
        summary: "re-prove a receipt (default: the newest): input unchanged, published digests, syntax, observed files; exit 0 passed, 1 failed, 3 incomplete",
        usage: "git identedit verify [LABEL|RECEIPT] [--accept-residue REASON]",
    },
    CommandSpec {
        name: "undo",
        summary: "restore a receipt's pre-images through the same engine, refused when a file drifted; undoing an undo is a redo",
        usage: "git identedit undo [LABEL|RECEIPT] [--dry-run] [--diff]",
    },
    CommandSpec {
        name: "log",
        summary: "the receipts of refs/identedit/log, newest first",
        usage: "git identedit log [-n N] [--json]",
    },
    CommandSpec {
        name: "show",
        summary: "one receipt and the diff of its stored images",
        usage: "git identedit show [LABEL|RECEIPT]",
    },
    CommandSpec {
        name: "schema",
        summary: "JSON Schema of the plan",
        usage: "git identedit schema",
    },
    CommandSpec {
        name: "capabilities",
        summary: "what this build executes",
        usage: "git identedit capabilities",
    },
    CommandSpec {
        name: "instructions",
        summary: "prompt-ready operating procedure (prose; JSON with --format json)",
        usage: "git identedit instructions",
    },
    CommandSpec {
        name: "hook",
        summary: "git hooks: install/uninstall (chains existing hooks), pre-commit (refuses pending recovery, syntax regressions, edit-format residue in staged files), post-commit (notes the receipts a commit contains)",
        usage: "git identedit hook install|uninstall|pre-commit|post-commit",
    },
    CommandSpec {
        name: "man",
        summary: "print the manual page, or install every page where `git identedit --help` finds it",
        usage: "git identedit man [--install | --dir DIR]",
    },
    CommandSpec {
        name: "completions",
        summary: "a shell completion script",
        usage: "git identedit completions bash|zsh|fish",
    },
    CommandSpec {
        name: "recover",
        summary: "show and settle interrupted transactions: rolled back, rolled forward when every file already holds its post-image, unreadable journals quarantined",
        usage: "git identedit recover [--dry-run]",
    },
    CommandSpec {
        name: "mcp",
        summary: "serve read, edit, patch, apply, config_set, verify, undo, log and show as Model Context Protocol tools over stdio",
        usage: "git identedit mcp [--repo PATH]",
    },
];

/// Input dialects `apply` understands.
pub const DIALECTS: &[&str] = &[
    PLAN_TYPE,
    "blocks",
    "codex",
    "diff",
    "edit_list",
    "identedit_changeset",
];

/// Languages with a syntax provider, their extensions and file names.
fn languages() -> Value {
    crate::lang::languages::PROVIDERS
        .iter()
        .map(|p| {
            json!({"name": p.name, "extensions": p.extensions, "file_names": p.file_names,
                        "structures": p.structures.iter().map(|s| s.kind).collect::<Vec<_>>()})
        })
        .collect()
}

fn exit_codes() -> Value {
    json!({
        "ok": EXIT_OK, "refused": EXIT_REFUSED, "usage_or_malformed_plan": EXIT_USAGE,
        "busy": EXIT_BUSY, "apply_failed": EXIT_APPLY_FAILED, "internal": EXIT_INTERNAL,
    })
}

fn error_codes() -> Value {
    CODES
        .iter()
        .map(|c| json!({"code": c.name, "type": c.code.error_type(), "next_action": c.next_action, "exit": c.exit, "meaning": c.meaning}))
        .collect()
}

fn plan_types() -> Value {
    json!([{
        "type": PLAN_TYPE,
        "contract_versions": CONTRACT_VERSIONS,
        "operations": {
            "edits": "exact find/replace: {path, find, replace, occurrence?, all?, expected_source_sha256?}",
            "creates": "new file: {path, content}",
            "deletes": "remove a file: {path, expected_source_sha256?}",
            "symbol_edits": "edits with an op (PHP, Python, TypeScript): replace_body|replace_symbol {path, symbol, code}, insert_member {path, symbol, code, position?|after?|before?}, remove_symbol {path, symbol}, add_use {path, name}; reindent?, expected_source_sha256?",
            "allow_signature_change": "acknowledge API changes (otherwise api_change_refused)",
        },
    }])
}

/// `git identedit capabilities`.
pub fn capabilities() -> Value {
    json!({
        "tool": "git-identedit",
        "version": env!("CARGO_PKG_VERSION"),
        "plan_types": plan_types(),
        "input_dialects": DIALECTS,
        "languages": languages(),
        "targets": ["find", "symbol", "node_identity", "selector", "line_anchor", "file_start", "file_end", "config_path"],
        "operations": ["replace", "delete", "insert_before", "insert_after", "insert", "scoped_regex", "move_before", "move_after", "move_to_before", "move_to_after", "move", "set", "append"],
        "syntax_gate": {"structure_targets": "source and result must parse", "other_edits": "may not raise the error count (--allow-syntax-errors)", "scope": "the regions around the edits when they parse on their own, else the whole file"},
        "commands": COMMANDS.iter().map(|c| json!({"name": c.name, "summary": c.summary, "usage": c.usage})).collect::<Vec<_>>(),
        "output_formats": ["json", "text"],
        // A release build without the `failpoints` feature honours none.
        "failpoints": failpoint::STEPS.iter().filter(|_| failpoint::ENABLED).map(|(name, what)| json!({"step": name, "state": what})).collect::<Vec<_>>(),
        "error_codes": error_codes(),
        "error_types": error_types(),
        "exit_codes": exit_codes(),
    })
}

/// The operating procedure, one step a line (`instructions`, in JSON and as prose).
pub const PROCEDURE: &[&str] = &[
    "Read before you edit: `git identedit read FILE` lists structures with identities; `read FILE --symbol Class.method --context 3` shows one with LINE:HASH anchors; `read --mode line FILE` anchors every line.",
    "Change a structure by name: `git identedit patch FILE --symbol Class.method --replace --text-file new.txt` (the text replaces the node verbatim; start it at the declaration, keep the file's indentation on later lines). Lines: `patch FILE --at LINE:HASH --replace 'text'`.",
    "For exact text, copy what you read into `find`, indentation and line breaks included.",
    "Config values (JSON, YAML, TOML) by key path: `git identedit patch config.yaml --config-path service.retries --set-value 5` (values are JSON text: `'\"x\"'` for a string); `--append-value V`, `--delete`, `--create-missing` for new keys, `--document-index N` for YAML streams. Comments and layout stay.",
    "One change in one file: `git identedit edit FILE --find=OLD --replace=NEW --format=json`.",
    "Several changes or files, new files, deletions: write one source_edit_plan and run `git identedit apply - --format=json` with the plan on stdin; everything commits together or not at all.",
    "Batches of structure, line and file edits (and moves): `git identedit edit --json < request.json > changeset.json` builds a changeset without writing; `apply --dry-run --diff changeset.json` previews; `apply changeset.json` re-proves every precondition and commits. Never edit a changeset by hand (`changeset_tampered`); pass `apply` the changeset, not the request.",
    "Add `--dry-run --diff` to see the exact diff before writing; add `expected_source_sha256` (from an earlier output) to refuse a file that changed since you read it.",
    "Edits of one file all resolve against the file as read, never against each other's results; they must not overlap.",
    "Name a declaration instead of copying it (PHP, Python, TypeScript): `git identedit edit FILE --symbol 'Greeter::greet()' --replace-body --text-file body.php`, or plan edits with an `op` (replace_body, replace_symbol, insert_member, remove_symbol, add_use); code is re-indented for you. Changing or removing a public declaration is refused (`api_change_refused`, `details.api_changes`) unless you checked its callers and pass `allow_signature_change` / `--allow-signature-change`.",
    "SEARCH/REPLACE blocks, Codex patches and unified diffs go to `git identedit apply -` as they are: blocks and hunks match exactly, then tolerating line endings, trailing whitespace, indentation and Unicode punctuation, always uniquely; a block already applied is reported `already_applied` and not applied twice; if any block fails, nothing is written and `error.details.failures` lists every one.",
    "Every write inside a git repository records a receipt (`receipt.commit`, `receipt.label` in the output): `git identedit verify LABEL` re-proves it, `git identedit undo LABEL` reverses it unless the files changed since.",
    "On `ok: false`, follow `error.next_action`; nothing was written. `anchor_missing` names the closest lines; `anchor_ambiguous` lists every match: add context or set `occurrence`.",
];

/// Each identedit error type with the codes reported under it (`error.type` / `error.code`).
fn error_types() -> Value {
    crate::error_types::ERROR_TYPES
        .iter()
        .map(|t| {
            let codes: Vec<&str> = CODES
                .iter()
                .filter(|c| c.code.error_type() == *t)
                .map(|c| c.name)
                .collect();
            json!({"type": t, "codes": codes})
        })
        .collect()
}

/// `git identedit instructions`: a short operating procedure for a coding agent.
pub fn instructions() -> Value {
    let usage: Vec<&str> = COMMANDS
        .iter()
        .filter(|c| {
            matches!(
                c.name,
                "edit" | "apply" | "read" | "patch" | "verify" | "undo"
            )
        })
        .map(|c| c.usage)
        .collect();
    json!({
        "tool": "git-identedit",
        "version": env!("CARGO_PKG_VERSION"),
        "scope": "exactly what this build executes (generated from its capability registry)",
        "procedure": PROCEDURE,
        "commands": usage,
        "plan_types": plan_types(),
        "plan_example": {
            "type": PLAN_TYPE, "contract_version": CONTRACT_VERSIONS[0], "target_id": "fix-add",
            "edits": [{"path": "src/Calc.php", "find": "return $a - $b;", "replace": "return $a + $b;"}],
            "creates": [{"path": "tests/CalcTest.php", "content": "<?php\n"}],
        },
        "next_actions": CODES.iter().map(|c| json!({"code": c.name, "next_action": c.next_action})).collect::<Vec<_>>(),
    })
}
