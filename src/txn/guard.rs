//! The API-change guard's policy: after the preflight, the declarations of every changed PHP,
//! Python and TypeScript file (from `lang::api`) are compared across the plan's files, and
//! the plan is refused, or its changes reported.
//!
//! A `source_edit_plan` and `edit` are refused (`api_change_refused`) unless the plan
//! acknowledges the changes (`allow_signature_change`); the text dialects and `patch` only
//! report them, unless `git config identedit.apiGuard` says `all` (refuse everywhere) or `off`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::change::{Action, FileChange};
use crate::error::{Code, Error, Result};
use crate::lang::api::{self, ApiChange};
use crate::lang::symbols::{Declarations, Signature};
use crate::plan::Plan;
use crate::workspace::Workspace;

/// The declarations the syntax gate already read for `file`. A moved file's gate report
/// belongs to its source, so it is not used.
fn gated(file: &FileChange) -> Option<&Declarations> {
    file.syntax
        .as_ref()
        .and_then(|s| s.declarations.as_ref())
        .filter(|_| file.moved.is_none())
}

/// Declarations borrowed from the gate's report, or read here.
type Decls<'f> = Cow<'f, [Signature]>;

/// The declarations of a changed file before and after (see [`api::versions`]), taken from
/// the gate's report when it read them.
fn versions(file: &FileChange) -> Result<Option<(Decls<'_>, Decls<'_>)>> {
    if let Some(d) = gated(file).filter(|_| file.action == Action::Modified) {
        let after = d.after_clean.then_some(d.after.as_slice());
        return Ok(d
            .before
            .as_deref()
            .zip(after)
            .map(|(b, a)| (Cow::Borrowed(b), Cow::Borrowed(a))));
    }
    let Some(before) = file.before.as_ref() else {
        return Ok(None);
    };
    let after = file.after_bytes();
    let read = api::versions(
        &file.path.rel,
        &before.bytes.get(),
        after.as_deref(),
        &file.ranges,
    )?;
    Ok(read.map(|(b, a)| (Cow::Owned(b), Cow::Owned(a))))
}

/// The guard's setting (`git config identedit.apiGuard`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Refuse for plans and `edit`, report for text dialects and `patch`.
    Default,
    All,
    Off,
}

/// Read lazily (only a plan that changes an API pays for it), through gix, from the
/// repository that holds `ws` (also from the scratch tree of `--cached`, which lives inside
/// the git directory).
fn configured_mode(ws: &Workspace) -> Mode {
    let found = ws
        .repo
        .clone()
        .or_else(|| crate::workspace::discover::discover(&ws.root));
    let Some(Ok(repo)) = found.as_ref().map(crate::git::repo::open_found) else {
        return Mode::Default;
    };
    let value = repo
        .config_snapshot()
        .string("identedit.apiGuard")
        .map(|v| v.to_string().trim().to_lowercase());
    match value.as_deref() {
        Some("all") => Mode::All,
        Some("off" | "false" | "none") => Mode::Off,
        _ => Mode::Default,
    }
}

/// Dialects whose every edit the guard refuses by default: plans and `edit` (flags, and the
/// edit requests of `edit --json` with the changesets built from them).
const GUARDED: &[&str] = &[
    "source_edit_plan",
    "edit_flags",
    "edit_request",
    "changeset",
];

/// Runs the guard over the prepared changes of `plan`: the API changes it finds (acknowledged
/// when the plan allows them), or `api_change_refused`.
pub fn guard(ws: &Workspace, plan: &Plan, files: &[FileChange]) -> Result<Vec<ApiChange>> {
    let guarded = GUARDED.contains(&plan.dialect);
    let mut setting = None;
    let mut mode = || *setting.get_or_insert_with(|| configured_mode(ws));
    // Files the gate checked on regions carry the regions' declarations (or none when a
    // region held public ones: those files are read whole here).
    let mut changes = declared_changes(files)?;
    if changes.is_empty() || mode() == Mode::Off {
        return Ok(Vec::new());
    }
    let refuses = mode() == Mode::All || guarded;
    if refuses && !plan.allow_signature_change {
        return Err(refusal(&changes));
    }
    for c in &mut changes {
        c.acknowledged = plan.allow_signature_change;
    }
    Ok(changes)
}

/// The API changes of the whole plan. Declarations are compared across the plan's files, so
/// a class moved to another file (a file move, or cut and paste) is not a removal.
fn declared_changes(files: &[FileChange]) -> Result<Vec<ApiChange>> {
    let (mut before, mut after): (Vec<Decls<'_>>, Vec<Decls<'_>>) = (Vec::new(), Vec::new());
    let mut owners: Vec<&str> = Vec::new();
    for file in files.iter().filter(|f| f.action != Action::Unchanged) {
        if let Some((old, new)) = versions(file)? {
            before.push(old);
            after.push(new);
            owners.push(&file.path.rel);
        }
    }
    if before.iter().flat_map(|d| d.iter()).all(|d| d.private) {
        return Ok(Vec::new());
    }
    for file in files.iter().filter(|f| f.action == Action::Created) {
        let Some(bytes) = file.after_bytes() else {
            continue;
        };
        match gated(file) {
            Some(d) => after.push(Cow::Borrowed(&d.after)),
            None => after.push(Cow::Owned(api::declared(&file.path.rel, &bytes)?)),
        }
    }
    let mut changes = api::compare(
        "",
        before.iter().flat_map(|d| d.iter()),
        after.iter().flat_map(|d| d.iter()),
    );
    // The file each symbol was declared in before.
    let mut paths: BTreeMap<&str, &str> = BTreeMap::new();
    for (declared, path) in before.iter().zip(owners) {
        for d in declared.iter() {
            paths.entry(&d.key).or_insert(path);
        }
    }
    for c in &mut changes {
        c.path = paths
            .get(c.symbol.as_str())
            .map_or_else(String::new, |p| (*p).to_owned());
    }
    changes.sort_by(|a, b| (&a.path, &a.symbol).cmp(&(&b.path, &b.symbol)));
    Ok(changes)
}

fn refusal(changes: &[ApiChange]) -> Error {
    let listed: Vec<String> = changes.iter().map(ApiChange::describe).collect();
    Error::new(
        Code::ApiChangeRefused,
        format!(
            "the edit would change the public API: {}",
            listed.join("; ")
        ),
    )
    .detail("api_changes", serde_json::json!(changes))
    .hint(
        "Check the callers, then acknowledge with \"allow_signature_change\": true \
         (--allow-signature-change), or change only bodies and private members.",
    )
}
