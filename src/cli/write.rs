//! The one way a command writes: run the plan through the engine with the ledger watching,
//! then stage it if asked, and report the outcome with its receipt.
//!
//! Inside a git repository every write records a receipt (see `receipt::record`); a dry run
//! returns the receipt it would have written; outside a repository the edit still happens and
//! the output says why nothing was recorded.

use serde_json::{Value, json};

use super::flags::WriteFlags;
use crate::change::Action;
use crate::error::Result;
use crate::plan::Plan;
use crate::receipt::AppliedTo;
use crate::receipt::record::{Intent, Recorder};
use crate::report::{self, Report};
use crate::txn::{self, Outcome, journal::Recovered};
use crate::workspace::Workspace;

/// Applies `plan` compiled from `input` and reports it.
pub fn run(
    ws: &Workspace,
    command: &str,
    plan: &Plan,
    input: Vec<u8>,
    options: txn::Options,
    flags: &WriteFlags,
) -> Result<(Report, Vec<Recovered>)> {
    let mut intent = Intent::for_plan(command, plan, input);
    intent.staged = flags.stage;
    if let Some(label) = super::bundle_label(flags.task.as_deref(), flags.output_dir.as_deref()) {
        intent.label = label;
    }
    let result = run_intent(ws, plan, intent, options, flags);
    match plan.dialect {
        "edit_flags" | "patch_flags" => result.map_err(super::flags::in_flag_terms),
        _ => result,
    }
}

/// [`run`] with a prepared intent (undo builds its own).
pub fn run_intent(
    ws: &Workspace,
    plan: &Plan,
    intent: Intent,
    options: txn::Options,
    flags: &WriteFlags,
) -> Result<(Report, Vec<Recovered>)> {
    if (flags.stage || flags.cached) && ws.repo.is_none() {
        return Err(crate::git::repo::not_a_repository(&ws.cwd));
    }
    let label = intent.label.clone();
    let input_sha256 = crate::plan::Digest::of(&intent.input).to_hex();
    let (mut report, recovered) = if flags.cached {
        cached(ws, plan, intent, options, flags)?
    } else {
        work_tree(ws, plan, intent, options, flags)?
    };
    // The plan as the receipt names it: its label and the sha256 of the recorded input.
    if let Some(Value::Object(named)) = report.json.get_mut("plan") {
        named.insert("label".into(), label.into());
        named.insert("sha256".into(), input_sha256.into());
    }
    let line = receipt_line(report.json.get("receipt"));
    if flags.diff {
        report.note.push_str(&line);
    } else {
        report.text.push_str(&line);
    }
    Ok((report, recovered))
}

/// One line for text output: the receipt written, or why none was.
fn receipt_line(receipt: Option<&Value>) -> String {
    let Some(receipt) = receipt else {
        return String::new();
    };
    let text = |key: &str| receipt[key].as_str().unwrap_or_default().to_owned();
    if receipt["recorded"] == true {
        let commit = text("commit");
        format!(
            "receipt {} {} (git identedit verify {0}; git identedit undo {0})\n",
            commit.get(..12).unwrap_or(&commit),
            text("label")
        )
    } else {
        format!("no receipt recorded: {}\n", text("reason"))
    }
}

/// A write to the work tree (and, with `--stage`, the index), recorded when in a repository.
fn work_tree(
    ws: &Workspace,
    plan: &Plan,
    intent: Intent,
    options: txn::Options,
    flags: &WriteFlags,
) -> Result<(Report, Vec<Recovered>)> {
    let (outcome, receipt) = if ws.repo.is_none() {
        let outcome = txn::execute(ws, plan, options)?;
        let receipt = json!({"recorded": false, "reason": "not inside a git repository"});
        (outcome, receipt)
    } else if options.dry_run {
        let outcome = txn::execute(ws, plan, options)?;
        if flags.stage {
            crate::git::index::check_matches(&crate::git::repo::open(ws)?, &outcome.files)?;
        }
        let mut intent = intent;
        intent.acknowledged_api_changes =
            crate::receipt::record::acknowledged(&outcome.api_changes);
        let would = crate::receipt::record::preview(ws, &intent, &outcome.files);
        let receipt = json!({"recorded": false, "reason": "dry run", "would_record": would});
        (outcome, receipt)
    } else {
        let mut recorder = Recorder::open(ws, intent)?;
        let outcome = txn::execute_observed(ws, plan, options, Some(&mut recorder))?;
        let receipt = recorded_json(&recorder, &outcome);
        (outcome, receipt)
    };
    let mut report = report::outcome(plan, &outcome, flags.diff);
    if !flags.diff && !flags.no_diff && !outcome.dry_run {
        report::commit_diff(&mut report, &outcome);
    }
    report.json.insert("receipt".into(), receipt);
    if flags.stage {
        report
            .json
            .insert("staged".into(), (!outcome.dry_run).into());
    }
    Ok((report, outcome.recovered))
}

/// `--cached`: the engine runs on a scratch copy of the index versions; the results go back
/// into the index, and the receipt says so.
fn cached(
    ws: &Workspace,
    plan: &Plan,
    mut intent: Intent,
    options: txn::Options,
    flags: &WriteFlags,
) -> Result<(Report, Vec<Recovered>)> {
    intent.applied_to = AppliedTo::Index;
    let mut recorder = Recorder::open(ws, intent.clone())?;
    let scratch = crate::git::cached::materialize(ws, recorder.repo(), plan)?;
    let outcome = txn::execute(&scratch.ws, plan, options)?;
    intent.acknowledged_api_changes = crate::receipt::record::acknowledged(&outcome.api_changes);
    txn::Observer::api_changes(&mut recorder, &outcome.api_changes);
    let receipt = if outcome.dry_run {
        let would = crate::receipt::record::preview(ws, &intent, &outcome.files);
        json!({"recorded": false, "reason": "dry run", "would_record": would})
    } else {
        let changed = crate::git::cached::write_back(recorder.repo(), &outcome.files)?;
        if changed.is_empty() {
            json!({"recorded": false, "reason": "nothing changed"})
        } else {
            recorder.record_index(&outcome.files, changed)?;
            recorded_json(&recorder, &outcome)
        }
    };
    drop(scratch);
    let mut report = report::outcome(plan, &outcome, flags.diff);
    report.json.insert("receipt".into(), receipt);
    report.json.insert("applied_to".into(), "index".into());
    Ok((report, outcome.recovered))
}

fn recorded_json(recorder: &Recorder, outcome: &Outcome) -> Value {
    match &recorder.recorded {
        Some(recorded) => json!({
            "recorded": true,
            "commit": recorded.commit,
            "label": recorded.receipt.label,
            "ref": recorded.label_ref,
            "log": crate::receipt::LOG_REF,
            "observed": recorded.receipt.observed,
        }),
        None if outcome.files.iter().all(|c| c.action == Action::Unchanged) => {
            json!({"recorded": false, "reason": "nothing changed"})
        }
        None => json!({"recorded": false, "reason": "not recorded"}),
    }
}
