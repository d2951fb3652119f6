//! Contradictory or incomplete `patch` command lines, refused before anything is read or
//! written: each rule is a condition on the flags and the fix the caller should make.
//!
//! The families: a target (`--find`, `--symbol`, `--at`, `--kind` + `--name`,
//! `--config-path`), one operation, at most one payload source, and the output flags
//! (`--diff` previews only, so it needs `--dry-run`). `--json` and `--from-diff` take their
//! request from elsewhere and accept none of the flag-form target, operation or payload.

use super::PatchArgs;
use crate::error::{Error, Result};

/// The names of the flags that were given.
fn present(flags: &[(&'static str, bool)]) -> Vec<&'static str> {
    flags
        .iter()
        .filter(|(_, on)| *on)
        .map(|(flag, _)| *flag)
        .collect()
}

/// The flag-form target, operation and payload flags that are given.
fn request_flags(args: &PatchArgs) -> Vec<&'static str> {
    let given = [
        ("--find", args.find.is_some()),
        ("--symbol", args.symbol.is_some()),
        ("--at", args.at.is_some()),
        ("--end-anchor", args.end_anchor.is_some()),
        ("--kind", args.kind.is_some()),
        ("--name", args.name.is_some()),
        ("--config-path", args.config_path.is_some()),
        ("--replace", args.replace.is_some()),
        ("--set-line", args.set_line.is_some()),
        ("--replace-range", args.replace_range.is_some()),
        ("--insert-after-line", args.insert_after_line.is_some()),
        ("--delete", args.delete),
        ("--insert-before", args.insert_before.is_some()),
        ("--insert-after", args.insert_after.is_some()),
        ("--insert", args.insert.is_some()),
        ("--scoped-regex", args.scoped_regex.is_some()),
        ("--scoped-replacement", args.scoped_replacement.is_some()),
        ("--set-value", args.set_value.is_some()),
        ("--append-value", args.append_value.is_some()),
        ("--create-missing", args.create_missing),
        ("--document-index", args.document_index.is_some()),
        ("--text-file", args.text_file.is_some()),
        ("--stdin-text", args.stdin_text),
        ("--occurrence", args.find_flags.occurrence.is_some()),
        ("--all", args.find_flags.all),
    ];
    present(&given)
}

/// The operation flags given (`--delete` counts once, for a config path too).
fn operations(args: &PatchArgs) -> Vec<&'static str> {
    present(&[
        ("--replace", args.replace.is_some()),
        ("--set-line", args.set_line.is_some()),
        ("--replace-range", args.replace_range.is_some()),
        ("--insert-after-line", args.insert_after_line.is_some()),
        ("--delete", args.delete),
        ("--insert-before", args.insert_before.is_some()),
        ("--insert-after", args.insert_after.is_some()),
        ("--insert", args.insert.is_some()),
        ("--scoped-regex", args.scoped_regex.is_some()),
        ("--set-value", args.set_value.is_some()),
        ("--append-value", args.append_value.is_some()),
    ])
}

/// The target families given.
fn targets(args: &PatchArgs) -> Vec<&'static str> {
    present(&[
        ("--find", args.find.is_some()),
        ("--symbol", args.symbol.is_some()),
        ("--at", args.at.is_some()),
        ("--kind", args.kind.is_some()),
        ("--config-path", args.config_path.is_some()),
    ])
}

/// Whether the one operation given takes text and has no inline value (so a `--text-file`
/// or `--stdin-text` is its payload).
fn takes_payload(args: &PatchArgs) -> bool {
    let open = |v: &Option<Option<String>>| v.as_ref().is_some_and(Option::is_none);
    open(&args.replace)
        || open(&args.set_line)
        || open(&args.replace_range)
        || open(&args.insert_after_line)
        || open(&args.insert_before)
        || open(&args.insert_after)
        || open(&args.insert)
        || open(&args.set_value)
        || open(&args.append_value)
        || args.scoped_regex.is_some() && open(&args.scoped_replacement)
        || args.find.is_some() && args.replace.is_none()
}

fn refuse(message: String) -> Error {
    crate::cli::usage_error(message)
}

/// Refuses a `patch` command line whose flags contradict each other or leave the request
/// incomplete. Runs before stdin, a payload file or the target file is read.
pub fn check(args: &PatchArgs) -> Result<()> {
    let flags = request_flags(args);
    let listed = flags.join(", ");
    if args.from_diff.is_some() {
        let extra = args.json || args.auto_repair || args.write.dry_run || args.write.diff;
        if extra || !flags.is_empty() {
            return Err(refuse(format!(
                "--from-diff only lists candidates and never writes: drop {}",
                if flags.is_empty() {
                    "--json, --auto-repair, --dry-run and --diff".to_owned()
                } else {
                    listed
                }
            )));
        }
        return Ok(());
    }
    if args.json {
        if args.write.diff {
            return Err(refuse(
                "--diff is not available with --json: JSON mode always returns JSON (use the flag form with --dry-run --diff, or read `diff` from the JSON result)"
                    .into(),
            ));
        }
        if !flags.is_empty() || args.file.is_some() {
            let what = if flags.is_empty() { "FILE" } else { &listed };
            return Err(refuse(format!(
                "--json reads the whole request (file, target, op, payload) from stdin: flag-mode targets, operations and text-source options (--text-file, --stdin-text) are flag mode only; drop {what}"
            )));
        }
        return Ok(());
    }
    check_flags(args)
}

fn check_flags(args: &PatchArgs) -> Result<()> {
    let blank = |v: &Option<String>| v.as_deref().is_some_and(|s| s.trim().is_empty());
    for (flag, value) in [
        ("--symbol", &args.symbol),
        ("--at", &args.at),
        ("--kind", &args.kind),
        ("--name", &args.name),
        ("--config-path", &args.config_path),
    ] {
        if blank(value) {
            return Err(refuse(format!("{flag} must not be empty")));
        }
    }
    if args.write.diff && !args.write.dry_run {
        return Err(refuse(
            "--diff previews and never writes: add --dry-run (then rerun without both to apply)"
                .into(),
        ));
    }
    let targets = targets(args);
    if args.config_path.is_some() && targets.len() > 1 {
        let others: Vec<&str> = targets
            .iter()
            .copied()
            .filter(|t| *t != "--config-path")
            .collect();
        return Err(refuse(format!(
            "--config-path cannot be combined with {}: Choose exactly one target selector",
            others.join(", ")
        )));
    }
    if targets.len() != 1 {
        return Err(refuse(format!(
            "Choose exactly one target selector: --find, --symbol, --at, --kind with --name, or --config-path (given: {})",
            none_or(&targets)
        )));
    }
    if args.kind.is_some() != args.name.is_some() {
        return Err(refuse(
            "--kind and --name go together: add the other one. Example: --kind function_definition --name 'process_*' (`--name '*'` for any name)"
                .into(),
        ));
    }
    let line_at = args.at.as_deref().is_some_and(|a| a.contains(':'));
    if args.end_anchor.is_some() && !line_at {
        return Err(refuse(
            "--end-anchor ends a line range that --at LINE:HASH starts; structure targets take --replace, --delete, --insert-before, --insert-after or --scoped-regex"
                .into(),
        ));
    }
    check_line_ops(args, line_at)?;
    let ops = operations(args);
    check_operation(args, &ops)?;
    check_payload(args, &ops)
}

/// `--set-line`, `--replace-range` and `--insert-after-line` (identedit's line verbs) need a
/// line target; only `--replace-range` takes `--end-anchor`, and it needs one.
fn check_line_ops(args: &PatchArgs, line_at: bool) -> Result<()> {
    let line_ops = [
        ("--set-line", args.set_line.is_some()),
        ("--replace-range", args.replace_range.is_some()),
        ("--insert-after-line", args.insert_after_line.is_some()),
    ];
    let Some((flag, _)) = line_ops.iter().find(|(_, on)| *on) else {
        return Ok(());
    };
    if !line_at {
        return Err(refuse(format!(
            "{flag} is a line operation: target a line with --at LINE:HASH (from `read --mode line`), or use --replace / --insert-after for a structure"
        )));
    }
    match (*flag == "--replace-range", args.end_anchor.is_some()) {
        (true, false) => Err(refuse(
            "--replace-range needs --end-anchor LINE:HASH".into(),
        )),
        (false, true) => Err(refuse(format!(
            "{flag} takes one line: drop --end-anchor, or use --replace-range"
        ))),
        _ => Ok(()),
    }
}

fn none_or(flags: &[&str]) -> String {
    if flags.is_empty() {
        "none".to_owned()
    } else {
        flags.join(", ")
    }
}

fn check_operation(args: &PatchArgs, ops: &[&str]) -> Result<()> {
    if args.scoped_replacement.is_some() && args.scoped_regex.is_none() {
        return Err(refuse(
            "--scoped-replacement goes with --scoped-regex PATTERN".into(),
        ));
    }
    let find = args.find.is_some();
    let config = args.config_path.is_some();
    let allowed_with_find = ops.iter().all(|op| *op == "--replace");
    if find && !allowed_with_find {
        return Err(refuse(format!(
            "--find replaces text: use --replace (given: {})",
            ops.join(", ")
        )));
    }
    let boundary = args.at.as_deref().is_some_and(|a| {
        matches!(
            a.to_ascii_lowercase().as_str(),
            "file-start" | "file-end" | "file_start" | "file_end"
        )
    });
    if boundary && ops.iter().any(|op| *op != "--insert") {
        return Err(refuse(format!(
            "File target mode supports only --insert (--at file-start / file-end; given: {})",
            ops.join(", ")
        )));
    }
    if !find && ops.len() != 1 {
        return Err(refuse(format!(
            "Choose exactly one node operation: --replace, --delete, --insert-before, --insert-after, --insert or --scoped-regex (given: {})",
            none_or(ops)
        )));
    }
    let config_op = args.set_value.is_some() || args.append_value.is_some();
    let config_modifier = args.create_missing || args.document_index.is_some();
    if (config_op || config_modifier) && !config {
        return Err(refuse(
            "--set-value, --append-value, --create-missing and --document-index go with --config-path"
                .into(),
        ));
    }
    if config && !(config_op || args.delete) {
        return Err(refuse(
            "--config-path takes --set-value, --append-value or --delete".into(),
        ));
    }
    let find_modifier = args.find_flags.occurrence.is_some() || args.find_flags.all;
    if find_modifier && !find {
        return Err(refuse("--occurrence and --all go with --find".into()));
    }
    Ok(())
}

fn check_payload(args: &PatchArgs, ops: &[&str]) -> Result<()> {
    let source = match (&args.text_file, args.stdin_text) {
        (Some(_), _) => "--text-file",
        (None, true) => "--stdin-text",
        (None, false) => return Ok(()),
    };
    if !takes_payload(args) {
        return Err(refuse(format!(
            "{} takes no external text (or has its value inline): drop {source} (--text-file and --stdin-text feed --replace, --insert-before, --insert-after, --insert, --scoped-replacement, --set-value and --append-value)",
            ops.first().copied().unwrap_or("the operation")
        )));
    }
    Ok(())
}
