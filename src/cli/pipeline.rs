//! The build / commit split of identedit's edit requests, on the one engine:
//! `edit --json` compiles a request, proves it with a dry run and prints the changeset
//! (never writes); `apply` of a changeset re-proves every operation on the current files,
//! compares the previews, binds each file to the bytes just proven and commits.

use serde_json::{Map, Value, json};

use super::entries;
use super::flags::WriteFlags;
use crate::error::{Code, Error, Result};
use crate::formats::changeset::{self, Loaded};
use crate::formats::request;
use crate::plan::{PathBase, Plan};
use crate::report::{self, Report};
use crate::txn::{self, Options, journal::Recovered};
use crate::workspace::Workspace;
use crate::workspace::path;

/// `edit --json`: the changeset of the request in `input`.
/// `allow_signature_change` acknowledges API changes (`edit --json --allow-signature-change`).
pub fn build(
    ws: &Workspace,
    input: &[u8],
    options: Options,
    allow_signature_change: bool,
) -> Result<Report> {
    let mut compiled = request::parse(input)?;
    compiled.plan.allow_signature_change = allow_signature_change;
    entries::check_entries(ws, &compiled, PathBase::Cwd)?;
    // `edit` only builds: a result that would not parse is refused by `apply`, not here.
    let dry = Options {
        dry_run: true,
        build_only: true,
        ..options
    };
    let outcome =
        txn::execute(ws, &compiled.plan, dry).map_err(|e| located(ws, &compiled.plan, e))?;
    let doc = report::changeset::build(ws, &compiled, &outcome, PathBase::Cwd)?;
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    let Value::Object(json) = doc else {
        return Err(Error::internal("a changeset is an object"));
    };
    Ok(Report::new(json, text).raw(true))
}

/// What `apply` asks of a changeset's commit.
pub struct Commit<'a> {
    pub write: &'a WriteFlags,
    /// `--repair`: stale line anchors may move to their one new line.
    pub repair: bool,
    /// `--allow-signature-change`.
    pub allow_signature_change: bool,
}

/// `apply` of a JSON changeset (applied), an edit request or another tool's changeset
/// (refused); `None` for every other input.
pub fn route(
    ws: &Workspace,
    input: &[u8],
    args: &Commit<'_>,
) -> Option<Result<(Report, Vec<Recovered>)>> {
    match changeset::classify(input) {
        changeset::Kind::Changeset(doc) => Some(apply(ws, doc, input, args)),
        changeset::Kind::Request => Some(Err(Error::new(
            Code::NeedsChangeset,
            "this is an edit request, not a changeset: `apply` commits what `edit --json` built",
        )
        .hint("Run `git identedit edit --json < request.json > changeset.json`, inspect it, then `git identedit apply changeset.json`."))),
        changeset::Kind::Foreign => Some(Err(Error::new(
            Code::PlanUnsupported,
            "this changeset was not built by this build's `edit --json` (no `type`, `digest` or previews to re-prove)",
        )
        .hint("Rebuild it from its edit request: `git identedit edit --json < request.json > changeset.json`, then `git identedit apply changeset.json`."))),
        changeset::Kind::Other => None,
    }
}

/// `apply CHANGESET [--repair]`: one pass of the engine proves it (the previews compared on
/// what the preflight resolved) and commits it pinned to the bytes it was proven on.
fn apply(
    ws: &Workspace,
    doc: Map<String, Value>,
    input: &[u8],
    args: &Commit<'_>,
) -> Result<(Report, Vec<Recovered>)> {
    let mut loaded = changeset::load(doc, input, args.repair)?;
    loaded.compiled.plan.label = args.write.task.clone();
    loaded.compiled.plan.allow_signature_change |= args.allow_signature_change;
    entries::check_entries(ws, &loaded.compiled, PathBase::Root)?;
    let options = Options {
        pinned: true,
        ..args.write.options()
    };
    let mut proof = Previews {
        loaded: &loaded,
        verified: None,
    };
    let written = super::write::Written {
        command: "apply",
        input: input.to_vec(),
        rebased: Vec::new(),
        proof: Some(&mut proof),
    };
    let plan = &loaded.compiled.plan;
    let (mut report, recovered) = super::write::run_with(ws, plan, written, options, args.write)
        .map_err(|e| changed_since_built(ws, &loaded.doc, located(ws, plan, e)))?;
    if let Some(verified) = &proof.verified {
        add_verification(&mut report, &loaded, verified);
    }
    Ok((report, recovered))
}

/// The proof of a changeset: every preview rebuilt from the preflight and compared with the
/// recorded one (a tampered changeset is refused before the API guard decides).
struct Previews<'l> {
    loaded: &'l Loaded,
    verified: Option<report::changeset::Verified>,
}

impl super::write::Proof for Previews<'_> {
    fn prove(&mut self, files: &[crate::change::FileChange]) -> Result<Vec<Value>> {
        let verified = report::changeset::verify(self.loaded, files)?;
        let rebased = verified.rebased.clone();
        self.verified = Some(verified);
        Ok(rebased)
    }
}

/// A target the changeset resolved that is gone from a file whose bytes changed since the
/// changeset was built is a failed precondition (re-read and rebuild), as identedit reports it.
fn changed_since_built(ws: &Workspace, doc: &Map<String, Value>, error: Error) -> Error {
    use crate::error::Code;
    if !matches!(error.code, Code::TargetMissing | Code::AnchorMissing) {
        return error;
    }
    let Some(Value::String(rel)) = error.details.get("path") else {
        return error;
    };
    let recorded = doc.get("files_read").and_then(|f| f.get(rel.as_str()));
    let now = std::fs::read(ws.root.join(rel)).map(|b| crate::plan::Digest::of(&b).to_hex());
    match (recorded.and_then(Value::as_str), now) {
        (Some(built), Ok(now)) if built != now => error
            .typed("precondition_failed")
            .detail("changed_since_built", true)
            .hint("The file changed since `edit --json` built this changeset: re-read it and rebuild."),
        _ => error,
    }
}

/// An engine error with `request_pointers`: the operations it names, or else every operation
/// of the file it is about (a result that does not parse).
fn located(ws: &Workspace, plan: &Plan, error: Error) -> Error {
    let error = request::pointed(error);
    let rel = match error.details.get("path") {
        Some(Value::String(rel)) if !error.details.contains_key("request_pointers") => rel.clone(),
        _ => return error,
    };
    let mut pointers: Vec<String> = Vec::new();
    for op in &plan.ops {
        let pointer = op.origin.pointer();
        if path::resolve(ws, &op.path).is_ok_and(|p| p.rel == rel) && !pointers.contains(&pointer) {
            pointers.push(pointer);
        }
    }
    match pointers.is_empty() {
        true => error,
        false => error.detail("request_pointers", pointers),
    }
}

fn add_verification(report: &mut Report, loaded: &Loaded, verified: &report::changeset::Verified) {
    report.json.insert(
        "changeset".into(),
        json!({
            "verified": true,
            "operations": loaded.compiled.ops.len(),
            "previews_refreshed": verified.refreshed,
            "repaired": verified.repaired,
            "rebased": verified.rebased,
        }),
    );
    if !verified.rebased.is_empty() {
        report.json.insert("rebased".into(), true.into());
    }
    let mut lines = String::new();
    for r in &verified.repaired {
        lines.push_str(&format!(
            "repaired {}: line anchor {} moved to line {}\n",
            r["pointer"].as_str().unwrap_or_default(),
            r["from_line"],
            r["to_line"]
        ));
    }
    for r in &verified.rebased {
        let at = |side: &str| {
            let l = &r[side];
            format!("{}-{}", l["start_line"], l["end_line"])
        };
        lines.push_str(&format!(
            "rebased {}: lines {} -> {}\n",
            r["pointer"].as_str().unwrap_or_default(),
            at("from"),
            at("to")
        ));
    }
    if report.note.is_empty() {
        report.text.push_str(&lines);
    } else {
        report.note.push_str(&lines);
    }
}
