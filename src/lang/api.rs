//! The API-change guard: the public declarations of every changed PHP, Python and TypeScript
//! file, before and after the plan, compared by symbol. A removed (or renamed) public
//! declaration and a changed signature or shape are API changes; bodies, private members,
//! values and additions never are.
//!
//! This module answers what the declarations are and how two versions differ; what to do
//! about a change (refuse, report, acknowledge) is the engine's policy, in `txn::guard`.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::lang::parse::edited;
use crate::lang::parse::{parse, retire};
use crate::lang::provider_for;
use crate::lang::symbols::{self, Kind, Signature, signatures};

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

/// The API changes of two versions of declarations: one file's, or gathered from several
/// files (`path` is then empty), borrowed where they are (a plan of a thousand files would
/// otherwise hold each file's declarations several times).
pub fn compare<'d>(
    path: &str,
    before: impl IntoIterator<Item = &'d Signature>,
    after: impl IntoIterator<Item = &'d Signature>,
) -> Vec<ApiChange> {
    fn group<'d>(
        decls: impl IntoIterator<Item = &'d Signature>,
    ) -> BTreeMap<&'d str, Vec<&'d Signature>> {
        let mut map: BTreeMap<&str, Vec<&Signature>> = BTreeMap::new();
        for d in decls {
            map.entry(&d.key).or_default().push(d);
        }
        map
    }
    let after = group(after);
    let mut changes = Vec::new();
    for (key, olds) in group(before) {
        let Some(old) = olds.iter().find(|d| !d.private) else {
            continue;
        };
        let change = |change, facts| ApiChange {
            path: path.to_owned(),
            symbol: key.to_owned(),
            kind: old.kind,
            change,
            facts,
            acknowledged: false,
        };
        let Some(news) = after.get(key) else {
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
fn differences(olds: &[&Signature], news: &[&Signature]) -> Vec<FactChange> {
    let mut out: Vec<FactChange> = Vec::new();
    for (i, old) in olds.iter().enumerate() {
        let Some(new) = news.get(i).or(news.last()) else {
            continue;
        };
        let keys: std::collections::BTreeSet<&str> =
            old.facts.keys().chain(new.facts.keys()).collect();
        for key in keys {
            let (b, a) = (old.facts.get(key), new.facts.get(key));
            if key == "overloads" && only_added(b, a) {
                continue;
            }
            if b != a && !out.iter().any(|f| f.fact == key) {
                out.push(FactChange {
                    fact: key.to_owned(),
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

/// The public and private declarations of one file before and after its change, when its
/// language has a symbol model and both versions parse (a file with syntax errors has no
/// reliable declarations; a deleted file has none after). `ranges` are the replaced byte
/// ranges (as read, and in the result): when given, the result is parsed incrementally from
/// the source's tree.
pub fn versions(
    path: &str,
    before: &[u8],
    after: Option<&[u8]>,
    ranges: &[(Range<usize>, Range<usize>)],
) -> Result<Option<(Vec<Signature>, Vec<Signature>)>> {
    let Some(provider) = provider_for(path).filter(|p| symbols::Lang::of(p).is_some()) else {
        return Ok(None);
    };
    let tree = parse(provider, before, None)?;
    let old = symbols::declarations(provider, &tree, before)
        .filter(|_| !tree.root_node().has_error())
        .map(signatures);
    let new = match (&old, after) {
        (None, _) => None,
        (Some(_), None) => Some(Vec::new()),
        (Some(_), Some(after)) => {
            let base = (!ranges.is_empty()).then(|| edited(&tree, before, after, ranges));
            let new_tree = parse(provider, after, base.as_ref())?;
            let decls = symbols::declarations(provider, &new_tree, after)
                .filter(|_| !new_tree.root_node().has_error())
                .map(signatures);
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

/// The declarations of a new file (none when its language has no symbol model).
pub fn declared(path: &str, bytes: &[u8]) -> Result<Vec<Signature>> {
    let Some(provider) = provider_for(path).filter(|p| symbols::Lang::of(p).is_some()) else {
        return Ok(Vec::new());
    };
    let tree = parse(provider, bytes, None)?;
    let decls = symbols::declarations(provider, &tree, bytes).unwrap_or_default();
    retire(tree);
    Ok(signatures(decls))
}

#[cfg(test)]
mod tests;
