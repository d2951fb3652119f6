//! Verify: re-prove a receipt against the repository as it is now.
//!
//! Checks, each `passed`, `failed` or `incomplete`: the receipt recorded a completed write;
//! its stored input still hashes to the recorded sha256; no later receipt undid it; every file
//! still has its published digest (deleted files are still absent); files in supported
//! languages parse with no more errors than their pre-images (a created file that does not
//! parse leaves the verdict incomplete); the observed changed files were
//! exactly the plan's files. The verdict is the worst check. Nothing is stored, so a failed
//! verify can never leave an earlier "passed" behind.

use serde::Serialize;
use serde_json::{Value, json};

use super::store::{self, Stored};
use super::{FileRecord, Kind, Status};
use crate::change::Action;
use crate::error::Result;
use crate::plan::Digest;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Passed,
    Incomplete,
    Failed,
}

#[derive(Debug, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub status: Verdict,
    pub detail: Value,
}

impl Check {
    fn new(name: &'static str, status: Verdict, detail: Value) -> Self {
        Self {
            name,
            status,
            detail,
        }
    }
}

/// The verdict on one receipt and the checks behind it.
#[derive(Debug)]
pub struct Verification {
    pub verdict: Verdict,
    pub checks: Vec<Check>,
}

pub fn verify(
    repo: &gix::Repository,
    root: &std::path::Path,
    stored: &Stored,
    accept_residue: Option<&str>,
) -> Result<Verification> {
    let receipt = &stored.receipt;
    let mut checks = vec![status_check(stored)];
    checks.push(input_check(repo, stored)?);
    checks.push(undone_check(repo, stored)?);
    let mut drifted = Vec::new();
    let (mut syntax, mut unproven) = (Vec::new(), Vec::new());
    for file in &receipt.files {
        if let Some(d) = digest_drift(repo, root, receipt, file) {
            drifted.push(d);
        }
        if let Some(problem) = syntax_problem(repo, stored, root, file)? {
            if file.action == Action::Created && file.moved_from.is_none() {
                unproven.push(problem);
            } else {
                syntax.push(problem);
            }
        }
    }
    checks.push(Check::new(
        "digests",
        if drifted.is_empty() {
            Verdict::Passed
        } else {
            Verdict::Failed
        },
        json!({"files": receipt.files.len(), "drifted": drifted}),
    ));
    let syntax_verdict = match (syntax.is_empty(), unproven.is_empty()) {
        (false, _) => Verdict::Failed,
        (true, false) => Verdict::Incomplete,
        (true, true) => Verdict::Passed,
    };
    checks.push(Check::new(
        "syntax",
        syntax_verdict,
        json!({"regressions": syntax, "created_unparsed": unproven,
               "reason": (!unproven.is_empty()).then_some(
                   "a file the plan created does not parse (placeholder content?): it cannot be proven")}),
    ));
    checks.push(scope_check(repo, stored)?);
    checks.push(residue_check(root, stored, accept_residue));
    let verdict = checks
        .iter()
        .map(|c| c.status)
        .max()
        .unwrap_or(Verdict::Passed);
    Ok(Verification { verdict, checks })
}

fn status_check(stored: &Stored) -> Check {
    match stored.receipt.status {
        Status::Applied => Check::new("status", Verdict::Passed, json!({"status": "applied"})),
        other => Check::new(
            "status",
            Verdict::Failed,
            json!({"status": other, "reason": "the write failed and was rolled back; nothing was published",
                   "error": stored.receipt.error}),
        ),
    }
}

fn input_check(repo: &gix::Repository, stored: &Stored) -> Result<Check> {
    let input = store::stored_file(repo, stored.commit, "input")?;
    let expected = &stored.receipt.input.sha256;
    Ok(match input {
        Some(bytes) if Digest::of(&bytes).to_hex() == *expected => {
            Check::new("input", Verdict::Passed, json!({"sha256": expected}))
        }
        Some(bytes) => Check::new(
            "input",
            Verdict::Failed,
            json!({"expected_sha256": expected, "actual_sha256": Digest::of(&bytes).to_hex()}),
        ),
        None => Check::new(
            "input",
            Verdict::Incomplete,
            json!({"reason": "the receipt holds no input blob"}),
        ),
    })
}

/// The undo in force against `stored`, if a later receipt undid it.
pub(crate) fn undone_by_later(repo: &gix::Repository, stored: &Stored) -> Result<Option<String>> {
    let newer = later_receipts(repo, stored)?;
    Ok(undone_by(&newer, &stored.commit.to_string()))
}

/// Failed when a later receipt undid this one and that undo is still in force (an undo is out
/// of force once it was undone itself: a redo).
fn undone_check(repo: &gix::Repository, stored: &Stored) -> Result<Check> {
    let newer = later_receipts(repo, stored)?;
    let by = undone_by(&newer, &stored.commit.to_string());
    Ok(match by {
        Some(by) => Check::new("undone", Verdict::Failed, json!({"undone_by": by})),
        None => Check::new("undone", Verdict::Passed, json!({})),
    })
}

/// The undo in force against `target` among `newer` (newest first), if any.
fn undone_by(newer: &[Stored], target: &str) -> Option<String> {
    newer.iter().enumerate().find_map(|(i, later)| {
        let undoes = later.receipt.undoes.as_ref()?;
        let applies = later.receipt.kind == Kind::Undo && later.receipt.status == Status::Applied;
        let id = later.commit.to_string();
        (applies && undoes.receipt == target && undone_by(&newer[..i], &id).is_none()).then_some(id)
    })
}

/// Receipts recorded after `stored`, newest first (every clone's log down to `stored`: an
/// undo made in another clone and fetched counts too).
fn later_receipts(repo: &gix::Repository, stored: &Stored) -> Result<Vec<Stored>> {
    let mut out = Vec::new();
    for entry in super::logs::merged(repo, usize::MAX)? {
        let entry = entry.stored;
        if entry.commit == stored.commit {
            return Ok(out);
        }
        out.push(entry);
    }
    Ok(out)
}

/// How `file` differs from what its receipt published, if it does.
pub(crate) fn digest_drift(
    repo: &gix::Repository,
    root: &std::path::Path,
    receipt: &crate::receipt::Receipt,
    file: &FileRecord,
) -> Option<Value> {
    let exists = receipt.exists(repo, root, &file.path);
    if file.action == Action::Deleted {
        return exists
            .then(|| json!({"path": file.path, "expected": "absent", "actual": "present"}));
    }
    let actual = receipt
        .current_bytes(repo, root, &file.path)
        .map(|b| Digest::of(&b).to_hex());
    (actual != file.sha256_after).then(|| {
        json!({"path": file.path, "expected_sha256": file.sha256_after,
               "actual_sha256": actual, "exists": exists})
    })
}

/// A file that parses with more errors than its pre-image (or with errors, when created).
fn syntax_problem(
    repo: &gix::Repository,
    stored: &Stored,
    root: &std::path::Path,
    file: &FileRecord,
) -> Result<Option<Value>> {
    let Some(provider) = crate::lang::provider_for(&file.path) else {
        return Ok(None);
    };
    if file.action == Action::Deleted {
        return Ok(None);
    }
    let Some(now) = stored.receipt.current_bytes(repo, root, &file.path) else {
        return Ok(None);
    };
    let errors = |bytes: &[u8]| {
        crate::lang::parse::parse(provider, bytes, None)
            .map(|tree| crate::lang::parse::syntax_errors(provider, &tree, bytes).0)
    };
    let after = errors(&now)?;
    if after == 0 {
        return Ok(None);
    }
    let before_path = file.moved_from.as_deref().unwrap_or(&file.path);
    let before = match store::before_image(repo, stored.commit, before_path)? {
        Some(bytes) => errors(&bytes)?,
        None => 0,
    };
    Ok((after > before)
        .then(|| json!({"path": file.path, "errors_before": before, "errors_now": after})))
}

/// Mentions of removed or renamed symbols left in documents and templates: open ones make
/// the verdict incomplete unless accepted with a reason; changelog-style files never block.
fn residue_check(root: &std::path::Path, stored: &Stored, accept: Option<&str>) -> Check {
    let removed = &stored.receipt.removed_symbols;
    if removed.is_empty() || stored.receipt.status != Status::Applied {
        return Check::new(
            "residue",
            Verdict::Passed,
            json!({"status": "clear", "names": []}),
        );
    }
    let names = crate::lang::residue::names_for(removed);
    let found = crate::lang::residue::scan(root, &names);
    let (verdict, status) = match (found.open, accept) {
        (0, _) => (Verdict::Passed, "clear"),
        (_, Some(_)) => (Verdict::Passed, "accepted"),
        _ => (Verdict::Incomplete, "open"),
    };
    Check::new(
        "residue",
        verdict,
        json!({"status": status, "names": names, "open": found.open,
               "historical": found.historical, "scanned_files": found.scanned_files,
               "truncated": found.truncated, "hits": found.hits,
               "disposition": accept.filter(|_| found.open > 0)}),
    )
}

/// The observation recorded at publish time must show exactly the plan's files.
///
/// A file another identedit transaction wrote at the same moment (a concurrent agent working
/// in the same directory) is accounted for by that transaction's own receipt, found among the
/// receipts recorded just before or after this one; any other extra file fails the check.
fn scope_check(repo: &gix::Repository, stored: &Stored) -> Result<Check> {
    let observed = &stored.receipt.observed;
    if stored.receipt.status != Status::Applied {
        return Ok(Check::new(
            "scope",
            Verdict::Passed,
            json!({"changed_files": []}),
        ));
    }
    if observed.method == "none" {
        return Ok(Check::new(
            "scope",
            Verdict::Incomplete,
            json!({"reason": "the write was not observed"}),
        ));
    }
    let planned = stored.receipt.planned_paths();
    let mut accounted = Vec::new();
    let mut unexplained = Vec::new();
    let neighbours = if observed.extra_files.is_empty() {
        Vec::new()
    } else {
        neighbours(repo, stored)?
    };
    for extra in &observed.extra_files {
        let by = neighbours
            .iter()
            .find(|n| n.receipt.files.iter().any(|f| &f.path == extra));
        match by {
            Some(n) => accounted.push(json!({"path": extra, "receipt": n.commit.to_string()})),
            None => unexplained.push(extra.clone()),
        }
    }
    let mut seen: Vec<String> = observed
        .changed_files
        .iter()
        .filter(|p| !observed.extra_files.contains(p))
        .cloned()
        .collect();
    seen.sort();
    let exact = unexplained.is_empty() && observed.mismatched_files.is_empty();
    Ok(Check::new(
        "scope",
        if exact && seen == planned {
            Verdict::Passed
        } else {
            Verdict::Failed
        },
        json!({"method": observed.method, "planned": planned, "observed": seen,
               "extra_files": unexplained, "accounted_for": accounted,
               "mismatched_files": observed.mismatched_files}),
    ))
}

/// How many receipts on each side of a receipt may account for its extra files.
const NEIGHBOURS: usize = 64;

/// The receipts recorded just after and just before `stored`.
fn neighbours(repo: &gix::Repository, stored: &Stored) -> Result<Vec<Stored>> {
    let mut out = later_receipts(repo, stored)?;
    let keep = out.len().saturating_sub(NEIGHBOURS);
    out.drain(..keep);
    let mut next = stored.parent;
    for _ in 0..NEIGHBOURS {
        let Some(commit) = next else { break };
        let older = store::load(repo, commit)?;
        next = older.parent;
        out.push(older);
    }
    Ok(out)
}
