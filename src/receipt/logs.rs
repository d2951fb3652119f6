//! Every clone's receipt log read as one: this clone's `refs/identedit/log`, logs pushed into
//! this repository (`refs/identedit/clones/<id>/log`) and fetched ones
//! (`refs/identedit/remotes/<remote>/clones/<id>/log`), merged newest first by receipt time.
//!
//! Each log is a first-parent chain, so the merge keeps one head per log in a heap and reads a
//! receipt only when its log's head is taken: listing `n` receipts of `k` logs loads at most
//! `n + k` receipts. A receipt reachable from two logs (this clone's own log fetched back from
//! a remote, one clone seen through two remotes) is listed once: a walk that reaches a receipt
//! another walk already holds stops there, since the rest of both chains is the same.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};
use std::path::{Path, PathBuf};

use gix::ObjectId;
use serde::Serialize;

use super::LOG_REF;
use super::store::{self, Stored, load};
use crate::error::Result;
use crate::git::ledger::ref_target;
use crate::git::repo::git_error;

/// Where `git identedit fetch` keeps other clones' receipt refs.
pub const FETCHED_PREFIX: &str = "refs/identedit/remotes/";
/// Where `git identedit push` puts each clone's refs on the remote.
const PUSHED_PREFIX: &str = "refs/identedit/clones/";

/// Which log a receipt was read from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Source {
    /// This clone's own log (also when read back from a remote).
    pub local: bool,
    /// The remote it was fetched from; `None` for logs held in this repository.
    pub remote: Option<String>,
    /// The clone that wrote it (`identedit.clone`; `None` for a clone that never pushed).
    pub clone: Option<String>,
}

impl Source {
    /// The short column `log` prints: `local`, `<remote>/<clone id>` or `<clone id>`.
    pub fn short(&self) -> String {
        let clone = self
            .clone
            .as_deref()
            .map_or("?", |c| c.get(..7).unwrap_or(c));
        match (&self.remote, self.local) {
            (_, true) => "local".to_owned(),
            (Some(remote), false) => format!("{remote}/{clone}"),
            (None, false) => clone.to_owned(),
        }
    }
}

/// A receipt of the merged log and the log it came from.
#[derive(Clone, Debug)]
pub struct Entry {
    pub stored: Stored,
    pub source: Source,
}

/// This clone's id (`identedit.clone`), if it has one.
pub fn own_clone(repo: &gix::Repository) -> Option<String> {
    let config = repo.config_snapshot();
    config.string("identedit.clone").map(|v| v.to_string())
}

/// Every log: this clone's first, then the others by ref name, each with its tip.
pub fn sources(repo: &gix::Repository) -> Result<Vec<(Source, ObjectId)>> {
    let own = own_clone(repo);
    let mut out = Vec::new();
    if let Some(tip) = ref_target(repo, LOG_REF)? {
        let source = Source {
            local: true,
            remote: None,
            clone: own.clone(),
        };
        out.push((source, tip));
    }
    for name in log_ref_names(repo)? {
        let source = source_of(&name, own.as_deref());
        if let (Some(source), Some(tip)) = (source, ref_target(repo, &name)?) {
            out.push((source, tip));
        }
    }
    Ok(out)
}

/// The names of the other clones' log refs, sorted. Found without reading the label refs
/// beside them (one per receipt): the loose refs' folders name the clones, and the packed
/// refs are one file already in memory.
fn log_ref_names(repo: &gix::Repository) -> Result<Vec<String>> {
    let refs = repo.common_dir().join("refs").join("identedit");
    let mut names = Vec::new();
    loose_logs(&refs.join("clones"), PUSHED_PREFIX, &mut names);
    fetched_loose(&refs.join("remotes"), FETCHED_PREFIX, &mut names);
    let packed = repo
        .refs
        .cached_packed_buffer()
        .map_err(|e| git_error("reading packed refs", &e))?;
    if let Some(packed) = packed {
        let listed = packed
            .iter_prefixed("refs/identedit/".into())
            .map_err(|e| git_error("reading packed refs", &e))?;
        for r in listed.filter_map(std::result::Result::ok) {
            let name = r.name.as_bstr().to_string();
            if name.ends_with("/log") && source_of(&name, None).is_some() {
                names.push(name);
            }
        }
    }
    names.sort();
    names.dedup();
    Ok(names)
}

/// `<prefix><id>/log` for every folder `<id>` of `dir` holding a loose `log` ref.
fn loose_logs(dir: &Path, prefix: &str, names: &mut Vec<String>) {
    for (id, path) in folders(dir) {
        if path.join("log").is_file() {
            names.push(format!("{prefix}{id}/log"));
        }
    }
}

/// The loose logs under `refs/identedit/remotes/`: a remote's name may hold `/`, so each
/// folder is either the remote's `clones` folder or one more part of a remote's name.
fn fetched_loose(dir: &Path, prefix: &str, names: &mut Vec<String>) {
    for (part, path) in folders(dir) {
        if part == "clones" && prefix != FETCHED_PREFIX {
            loose_logs(&path, &format!("{prefix}clones/"), names);
        } else {
            fetched_loose(&path, &format!("{prefix}{part}/"), names);
        }
    }
}

/// The sub-folders of `dir` by name (none when it does not exist).
fn folders(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(std::result::Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .collect()
}

/// The source a log ref names, if `name` is another clone's log.
pub fn source_of(name: &str, own: Option<&str>) -> Option<Source> {
    split_clone(name, own)
        .filter(|(_, rest)| *rest == "log")
        .map(|(source, _)| source)
}

/// A ref of another clone's namespace: its source and the rest of its name (`log`,
/// `receipts/<label>`).
fn split_clone<'a>(name: &'a str, own: Option<&str>) -> Option<(Source, &'a str)> {
    let (remote, rest) = match name.strip_prefix(FETCHED_PREFIX) {
        Some(rest) => {
            let (remote, rest) = rest.split_once("/clones/")?;
            (Some(remote.to_owned()), rest)
        }
        None => (None, name.strip_prefix(PUSHED_PREFIX)?),
    };
    let (clone, rest) = rest.split_once('/')?;
    let source = Source {
        local: own == Some(clone),
        remote,
        clone: Some(clone.to_owned()),
    };
    Some((source, rest))
}

/// The receipt `name` names (a label, a receipt id; absent: the newest of every log) and the
/// log it came from, when a label ref says so.
pub fn resolve(repo: &gix::Repository, name: Option<&str>) -> Result<(Stored, Option<Source>)> {
    let Some(name) = name else {
        return match newest(repo)? {
            Some(entry) => Ok((entry.stored, Some(entry.source))),
            None => store::resolve(repo, None).map(|stored| (stored, None)),
        };
    };
    let stored = store::resolve(repo, Some(name))?;
    let source = label_source(repo, name, stored.commit)?;
    Ok((stored, source))
}

/// Which clone's label ref named `commit` as `label`: this clone's, else a fetched one.
fn label_source(repo: &gix::Repository, label: &str, commit: ObjectId) -> Result<Option<Source>> {
    let own = own_clone(repo);
    let safe = super::ref_safe_label(label);
    let local = format!("{}{safe}", super::LABEL_REF_PREFIX);
    if ref_target(repo, &local)? == Some(commit) {
        let clone = own.clone();
        return Ok(Some(Source {
            local: true,
            remote: None,
            clone,
        }));
    }
    let refs = repo
        .references()
        .map_err(|e| git_error("reading refs", &e))?;
    let fetched = refs
        .prefixed(FETCHED_PREFIX)
        .map_err(|e| git_error("reading refs", &e))?
        .filter_map(std::result::Result::ok)
        .filter(|r| r.target().try_id() == Some(commit.as_ref()))
        .find_map(|r| {
            let name = r.name().as_bstr().to_string();
            let (source, rest) = split_clone(&name, own.as_deref())?;
            (rest.strip_prefix("receipts/") == Some(safe.as_str())).then_some(source)
        });
    Ok(fetched)
}

/// The merged log, newest first, at most `limit` receipts.
pub fn merged(repo: &gix::Repository, limit: usize) -> Result<Vec<Entry>> {
    let sources = sources(repo)?;
    let mut claimed = HashSet::new();
    let mut heap = BinaryHeap::new();
    for (index, (_, tip)) in sources.iter().enumerate() {
        if claimed.insert(*tip) {
            heap.push(Head::new(load(repo, *tip)?, index));
        }
    }
    let mut out = Vec::new();
    while out.len() < limit {
        let Some(head) = heap.pop() else { break };
        if let Some(parent) = head.stored.parent
            && claimed.insert(parent)
        {
            heap.push(Head::new(load(repo, parent)?, head.source));
        }
        let source = sources[head.source].0.clone();
        out.push(Entry {
            stored: head.stored,
            source,
        });
    }
    Ok(out)
}

/// The newest receipt of every log, if there is one.
pub fn newest(repo: &gix::Repository) -> Result<Option<Entry>> {
    Ok(merged(repo, 1)?.into_iter().next())
}

/// One log's next receipt: the heap orders heads by time, then this clone's log first, then
/// by ref name.
struct Head {
    stored: Stored,
    source: usize,
}

impl Head {
    fn new(stored: Stored, source: usize) -> Self {
        Self { stored, source }
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        let time = self.stored.receipt.time.cmp(&other.stored.receipt.time);
        time.then_with(|| other.source.cmp(&self.source))
    }
}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_refs_name_their_source() {
        let fetched = source_of(
            "refs/identedit/remotes/origin/clones/abc123def456/log",
            None,
        );
        assert_eq!(
            fetched.as_ref().map(Source::short).as_deref(),
            Some("origin/abc123d")
        );
        let own = source_of(
            "refs/identedit/remotes/up/stream/clones/abc123def456/log",
            Some("abc123def456"),
        );
        let own = own.expect("a log");
        assert!(own.local);
        assert_eq!(own.remote.as_deref(), Some("up/stream"));
        assert_eq!(own.short(), "local");
        let pushed = source_of("refs/identedit/clones/0123456789ab/log", None);
        assert_eq!(pushed.map(|s| s.short()).as_deref(), Some("0123456"));
        for not_a_log in [
            "refs/identedit/remotes/origin/clones/abc/receipts/x",
            "refs/identedit/clones/abc/receipts/log",
            "refs/identedit/log",
            "refs/identedit/noted",
        ] {
            assert_eq!(source_of(not_a_log, None), None, "{not_a_log}");
        }
    }
}
