//! The API-change guard: the public declarations of every changed PHP, Python and TypeScript
//! file, before and after the plan, compared by symbol. A removed (or renamed) public
//! declaration and a changed signature or shape are API changes; bodies, private members,
//! values and additions never are.
//!
//! Policy: a `source_edit_plan` and `edit` are refused (`api_change_refused`) unless the plan
//! acknowledges the changes (`allow_signature_change`); the text dialects and `patch` only
//! report them, unless `git config identedit.apiGuard` says `all` (refuse everywhere) or `off`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::change::{Action, FileChange};
use crate::error::{Code, Error, Result};
use crate::lang::gate::edited;
use crate::lang::parse::{parse, retire};
use crate::lang::provider_for;
use crate::lang::symbols::{self, Declaration, Kind};
use crate::plan::Plan;
use crate::workspace::Workspace;

/// One fact of a declaration that changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactChange {
    pub fact: String,
    pub before: String,
    pub after: String,
}

/// What happened to a public declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Removed or renamed (or no longer public).
    Removed,
    /// A function's or method's signature changed.
    SignatureChanged,
    /// The shape of a class-like, property, constant, case or type changed.
    ShapeChanged,
}

/// One API change of one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiChange {
    pub path: String,
    pub symbol: String,
    pub kind: Kind,
    pub change: Change,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<FactChange>,
    /// The plan acknowledged it (`allow_signature_change`): applied, not refused.
    pub acknowledged: bool,
}

impl ApiChange {
    /// `removed Greeter::greet()` / `changed Greeter::greet() (parameters, return_type)`.
    pub fn describe(&self) -> String {
        match self.change {
            Change::Removed => format!("removed {} {}", self.kind.as_str(), self.symbol),
            _ => {
                let facts: Vec<&str> = self.facts.iter().map(|f| f.fact.as_str()).collect();
                format!(
                    "changed {} {} ({})",
                    self.kind.as_str(),
                    self.symbol,
                    facts.join(", ")
                )
            }
        }
    }
}

/// The API changes of two versions of one file's declarations.
pub fn compare(path: &str, before: &[Declaration], after: &[Declaration]) -> Vec<ApiChange> {
    let group = |decls: &[Declaration]| {
        let mut map: BTreeMap<String, Vec<Declaration>> = BTreeMap::new();
        for d in decls {
            map.entry(d.key().to_owned()).or_default().push(d.clone());
        }
        map
    };
    let after = group(after);
    let mut changes = Vec::new();
    for (key, olds) in group(before) {
        let Some(old) = olds.iter().find(|d| !d.private) else {
            continue;
        };
        let change = |change, facts| ApiChange {
            path: path.to_owned(),
            symbol: key.clone(),
            kind: old.kind,
            change,
            facts,
            acknowledged: false,
        };
        let Some(news) = after.get(&key) else {
            changes.push(change(Change::Removed, Vec::new()));
            continue;
        };
        let facts = differences(&olds, news);
        if !facts.is_empty() {
            let what = match old.kind {
                Kind::Function | Kind::Method => Change::SignatureChanged,
                _ => Change::ShapeChanged,
            };
            changes.push(change(what, facts));
        }
    }
    changes
}

/// The facts that differ between the declarations of one symbol (usually one on each side;
/// overloads and accessor pairs are compared in order).
fn differences(olds: &[Declaration], news: &[Declaration]) -> Vec<FactChange> {
    let mut out: Vec<FactChange> = Vec::new();
    for (i, old) in olds.iter().enumerate() {
        let Some(new) = news.get(i).or(news.last()) else {
            continue;
        };
        let keys: std::collections::BTreeSet<&&str> =
            old.facts.keys().chain(new.facts.keys()).collect();
        for key in keys {
            let (b, a) = (old.facts.get(*key), new.facts.get(*key));
            if *key == "overloads" && only_added(b, a) {
                continue;
            }
            if b != a && !out.iter().any(|f| f.fact == **key) {
                out.push(FactChange {
                    fact: (*key).to_owned(),
                    before: b.cloned().unwrap_or_default(),
                    after: a.cloned().unwrap_or_default(),
                });
            }
        }
    }
    // Not exported any more, or now inside something private.
    if news.iter().all(|n| n.private) && !out.iter().any(|f| f.fact == "visibility") {
        out.push(FactChange {
            fact: "visibility".into(),
            before: "public".into(),
            after: "private".into(),
        });
    }
    if news.len() < olds.len() {
        out.push(FactChange {
            fact: "declarations".into(),
            before: olds.len().to_string(),
            after: news.len().to_string(),
        });
    }
    out
}

/// Whether a TypeScript overload list only gained signatures (an addition, not a change).
fn only_added(before: Option<&String>, after: Option<&String>) -> bool {
    let sep = symbols::typescript::OVERLOAD_SEPARATOR;
    match (before, after) {
        (Some(b), Some(a)) => {
            let now: Vec<&str> = a.split(sep).collect();
            b.split(sep).all(|s| now.contains(&s))
        }
        _ => false,
    }
}

/// The declarations of a file before and after its change, when its language has a symbol
/// model and both versions parse (a file with syntax errors has no reliable declarations).
/// The result is parsed incrementally from the source's tree.
/// The declarations the syntax gate already read for `file`. A moved file's gate report
/// belongs to its source, so it is not used.
fn gated(file: &FileChange) -> Option<&crate::lang::gate::Declarations> {
    file.syntax
        .as_ref()
        .and_then(|s| s.declarations.as_ref())
        .filter(|_| file.moved.is_none())
}

fn versions(file: &FileChange) -> Result<Option<(Vec<Declaration>, Vec<Declaration>)>> {
    if let Some(d) = gated(file).filter(|_| file.action == Action::Modified) {
        let after = d.after_clean.then(|| d.after.clone());
        return Ok(d.before.clone().zip(after));
    }
    let (Some(provider), Some(before)) = (provider_for(&file.path.rel), file.before.as_ref())
    else {
        return Ok(None);
    };
    if symbols::Lang::of(provider).is_none() {
        return Ok(None);
    }
    let before = &before.bytes[..];
    let tree = parse(provider, before, None)?;
    let old =
        symbols::declarations(provider, &tree, before).filter(|_| !tree.root_node().has_error());
    let new = match (&old, file.after.as_deref()) {
        (None, _) => None,
        (Some(_), None) => Some(Vec::new()),
        (Some(_), Some(after)) => {
            let base =
                (!file.ranges.is_empty()).then(|| edited(&tree, before, after, &file.ranges));
            let new_tree = parse(provider, after, base.as_ref())?;
            let decls = symbols::declarations(provider, &new_tree, after)
                .filter(|_| !new_tree.root_node().has_error());
            retire(new_tree);
            if let Some(base) = base {
                retire(base);
            }
            decls
        }
    };
    retire(tree);
    Ok(old.zip(new))
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
    let Ok(repo) = crate::git::repo::discover(&ws.root) else {
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
    let (mut before, mut after) = (Vec::new(), Vec::new());
    let mut paths: BTreeMap<String, String> = BTreeMap::new();
    for file in files.iter().filter(|f| f.action != Action::Unchanged) {
        if let Some((old, new)) = versions(file)? {
            for d in &old {
                paths
                    .entry(d.key().to_owned())
                    .or_insert_with(|| file.path.rel.clone());
            }
            before.extend(old);
            after.extend(new);
        }
    }
    if before.iter().all(|d| d.private) {
        return Ok(Vec::new());
    }
    for file in files.iter().filter(|f| f.action == Action::Created) {
        let (Some(provider), Some(bytes)) = (provider_for(&file.path.rel), file.after.as_deref())
        else {
            continue;
        };
        if let Some(d) = gated(file) {
            after.extend(d.after.iter().cloned());
        } else if symbols::Lang::of(provider).is_some() {
            let tree = parse(provider, bytes, None)?;
            after.extend(symbols::declarations(provider, &tree, bytes).unwrap_or_default());
            retire(tree);
        }
    }
    let mut changes = compare("", &before, &after);
    for c in &mut changes {
        c.path = paths.get(&c.symbol).cloned().unwrap_or_default();
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

#[cfg(test)]
mod tests;
