//! The one way a command writes: run the plan through the engine with the ledger watching,
//! then stage it if asked, and report the outcome with its receipt.
//!
//! Inside a git repository every write records a receipt (see `receipt::record`); a dry run
//! returns the receipt it would have written; outside a repository the edit still happens and
//! the output says why nothing was recorded.

use serde_json::{Value, json};

use super::flags::WriteFlags;
use crate::change::{Action, FileChange};
use crate::error::{Error, Result};
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
    let written = Written {
        command,
        input,
        rebased: Vec::new(),
        proof: None,
    };
    run_with(ws, plan, written, options, flags)
}

/// What a write records besides the plan: the command, its input and the operations the
/// command rebased before the engine ran.
pub struct Written<'c> {
    pub command: &'c str,
    pub input: Vec<u8>,
    pub rebased: Vec<Value>,
    /// Checked on the engine's preflight, in the same pass that then commits.
    pub proof: Option<&'c mut dyn Proof>,
}

/// A check of what the engine's preflight resolved, run inside its one pass before the locks
/// (`apply` of a changeset compares its previews): an error refuses the plan; what it returns
/// are the operations it found rebased, for the receipt.
pub trait Proof {
    fn prove(&mut self, files: &[FileChange]) -> Result<Vec<Value>>;
}

/// What the engine reports to while it runs: the proof (if any), and the ledger when
/// recording. The recorder (and with it the repository) is opened only once the engine is
/// about to publish: a refusal never opens the repository.
struct Watch<'w, 'p> {
    proof: Option<&'p mut dyn Proof>,
    ws: &'w Workspace,
    ledger: Ledger,
    /// What the proof found rebased.
    rebased: Vec<Value>,
    api_changes: Vec<crate::lang::api::ApiChange>,
}

enum Ledger {
    Off,
    /// Recording, once there is something to publish.
    Pending(Box<Intent>),
    Open(Box<Recorder>),
}

impl<'w, 'p> Watch<'w, 'p> {
    fn new(ws: &'w Workspace, proof: Option<&'p mut dyn Proof>, intent: Option<Intent>) -> Self {
        Self {
            proof,
            ws,
            ledger: intent.map_or(Ledger::Off, |i| Ledger::Pending(Box::new(i))),
            rebased: Vec::new(),
            api_changes: Vec::new(),
        }
    }

    fn recorder(&self) -> Option<&Recorder> {
        match &self.ledger {
            Ledger::Open(recorder) => Some(recorder),
            _ => None,
        }
    }
}

impl txn::Observer for Watch<'_, '_> {
    fn proven(&mut self, files: &[FileChange]) -> Result<()> {
        if let Some(proof) = self.proof.as_deref_mut() {
            self.rebased = proof.prove(files)?;
        }
        Ok(())
    }

    fn api_changes(&mut self, changes: &[crate::lang::api::ApiChange]) {
        self.api_changes = changes.to_vec();
    }

    fn before_publish(&mut self, files: &[FileChange]) -> Result<()> {
        let Ledger::Pending(intent) = std::mem::replace(&mut self.ledger, Ledger::Off) else {
            return Ok(());
        };
        let mut intent = *intent;
        intent.rebased.extend(self.rebased.iter().cloned());
        let mut recorder = Recorder::open(self.ws, intent)?;
        recorder.api_changes(&self.api_changes);
        let ready = recorder.before_publish(files);
        self.ledger = Ledger::Open(Box::new(recorder));
        ready
    }

    fn after_publish(&mut self, files: &[FileChange], published: Result<(), &Error>) -> Result<()> {
        match &mut self.ledger {
            Ledger::Open(recorder) => recorder.after_publish(files, published),
            _ => Ok(()),
        }
    }
}

/// [`run`], with the operations a command rebased itself (a changeset's) for the receipt.
pub fn run_with(
    ws: &Workspace,
    plan: &Plan,
    written: Written<'_>,
    options: txn::Options,
    flags: &WriteFlags,
) -> Result<(Report, Vec<Recovered>)> {
    let mut intent = Intent::for_plan(written.command, plan, written.input);
    intent.rebased = written.rebased;
    intent.staged = flags.stage;
    if let Some(label) = super::bundle_label(flags.task.as_deref(), flags.output_dir.as_deref()) {
        intent.label = label;
    }
    let proved = written.proof.is_some();
    let result = match run_proved(ws, plan, intent.clone(), options, flags, written.proof) {
        // A proof (a changeset) has its own rebase and repair.
        Err(e) if proved => Err(e),
        Err(e) => match super::stale_anchor::rebase(ws, plan, &e) {
            Some((rebased, moved)) => {
                intent.rebased.extend(moved.iter().cloned());
                run_intent(ws, &rebased, intent, options, flags).map(|(mut report, r)| {
                    report.json.insert("rebased".into(), true.into());
                    report
                        .json
                        .insert("rebased_operations".into(), moved.into());
                    (report, r)
                })
            }
            None => Err(e),
        },
        ok => ok,
    };
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
    run_proved(ws, plan, intent, options, flags, None)
}

/// [`run_intent`] with a proof of the preflight.
fn run_proved(
    ws: &Workspace,
    plan: &Plan,
    intent: Intent,
    options: txn::Options,
    flags: &WriteFlags,
    proof: Option<&mut dyn Proof>,
) -> Result<(Report, Vec<Recovered>)> {
    if (flags.stage || flags.cached) && ws.repo.is_none() {
        return Err(crate::git::repo::not_a_repository(&ws.cwd));
    }
    let label = intent.label.clone();
    let input_sha256 = intent.input_digest.to_hex();
    let (mut report, recovered) = if flags.cached {
        cached(ws, plan, intent, options, (flags, proof))?
    } else {
        work_tree(ws, plan, intent, options, (flags, proof))?
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
    mut intent: Intent,
    options: txn::Options,
    (flags, proof): (&WriteFlags, Option<&mut dyn Proof>),
) -> Result<(Report, Vec<Recovered>)> {
    let (mut outcome, receipt) = if ws.repo.is_none() {
        let outcome =
            txn::execute_observed(ws, plan, options, Some(&mut Watch::new(ws, proof, None)))?;
        let receipt = json!({"recorded": false, "reason": "not inside a git repository"});
        (outcome, receipt)
    } else if options.dry_run {
        let mut watch = Watch::new(ws, proof, None);
        let outcome = txn::execute_observed(ws, plan, options, Some(&mut watch))?;
        intent.rebased.extend(watch.rebased);
        let repo = crate::git::repo::open(ws)?;
        if flags.stage {
            crate::git::index::check_matches(&repo, &outcome.files)?;
        }
        intent.acknowledged_api_changes =
            crate::receipt::record::acknowledged(&outcome.api_changes);
        let would = crate::receipt::record::preview(&repo, ws, &intent, &outcome.files);
        let receipt = json!({"recorded": false, "reason": "dry run", "would_record": would});
        (outcome, receipt)
    } else {
        let mut watch = Watch::new(ws, proof, Some(intent));
        let outcome = txn::execute_observed(ws, plan, options, Some(&mut watch))?;
        let receipt = recorded_json(watch.recorder(), &outcome);
        (outcome, receipt)
    };
    let diff = (!flags.diff && !flags.no_diff && !outcome.dry_run)
        .then(|| report::commit_diff(&mut outcome.files));
    if !flags.diff {
        txn::drop_images(&mut outcome.files);
    }
    let mut report = report::outcome(plan, &outcome, flags.diff);
    if let Some(diff) = diff {
        report.splice("diff", report::Part::Diff(diff));
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
    (flags, proof): (&WriteFlags, Option<&mut dyn Proof>),
) -> Result<(Report, Vec<Recovered>)> {
    intent.applied_to = AppliedTo::Index;
    let repo = crate::git::repo::open(ws)?;
    let scratch = crate::git::cached::materialize(ws, &repo, plan)?;
    let mut watch = Watch::new(&scratch.ws, proof, None);
    let outcome = txn::execute_observed(&scratch.ws, plan, options, Some(&mut watch))?;
    intent.rebased.extend(watch.rebased);
    intent.acknowledged_api_changes = crate::receipt::record::acknowledged(&outcome.api_changes);
    let receipt = if outcome.dry_run {
        let would = crate::receipt::record::preview(&repo, ws, &intent, &outcome.files);
        json!({"recorded": false, "reason": "dry run", "would_record": would})
    } else {
        let mut recorder = Recorder::with_repo(repo, ws, intent);
        txn::Observer::api_changes(&mut recorder, &outcome.api_changes);
        let changed = crate::git::cached::write_back(recorder.repo(), &outcome.files)?;
        if changed.is_empty() {
            json!({"recorded": false, "reason": "nothing changed"})
        } else {
            recorder.record_index(&outcome.files, changed)?;
            recorded_json(Some(&recorder), &outcome)
        }
    };
    drop(scratch);
    let mut report = report::outcome(plan, &outcome, flags.diff);
    report.json.insert("receipt".into(), receipt);
    report.json.insert("applied_to".into(), "index".into());
    Ok((report, outcome.recovered))
}

fn recorded_json(recorder: Option<&Recorder>, outcome: &Outcome) -> Value {
    match recorder.and_then(|r| r.recorded.as_ref()) {
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
