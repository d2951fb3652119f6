//! The receipts not yet attached to a commit, read from the operation log.
//!
//! Receipts are commits chained on `refs/identedit/log` (parent = previous receipt; the tree
//! holds `receipt.json`). `refs/identedit/noted` marks the newest receipt already attached to
//! a commit as a note, so the receipts from the log's tip back to it are exactly the ones the
//! next commit contains. Only the fields this module needs are read from `receipt.json`
//! (`label`, `status`, `files[].path`, `files[].blob_after`), so a newer receipt schema with
//! more fields reads the same.

use gix::ObjectId;
use gix::bstr::ByteSlice;
use std::cell::RefCell;

use serde::Deserialize;

use crate::error::Result;
use crate::hook::git_error;

pub use crate::receipt::LOG_REF;
/// The newest receipt already attached to a commit.
pub const NOTED_REF: &str = "refs/identedit/noted";

/// One receipt of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Receipt {
    pub id: ObjectId,
    /// `receipt.json`'s `label`, else the commit's subject line.
    pub label: String,
    /// `receipt.json`'s `status`, else `unknown`.
    pub status: String,
    /// Each file the receipt names, with the blob it published (`None`: deleted or unknown).
    pub files: Vec<(String, Option<ObjectId>)>,
}

/// What the latest receipt naming a path published there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Publication {
    pub receipt: ObjectId,
    pub label: String,
    /// The blob it left at the path; `None` when it deleted the path.
    pub blob: Option<ObjectId>,
}

/// Where the pre-commit check learns what receipts published. The ledger may provide its own
/// implementation; [`Unnoted`] reads the operation log directly.
pub trait Published {
    /// The newest applied receipt naming `path`, if any.
    fn latest_published(&self, path: &str) -> Result<Option<Publication>>;
}

/// The receipts not yet attached to a commit, newest first.
#[derive(Clone, Debug, Default)]
pub struct Unnoted {
    pub tip: Option<ObjectId>,
    pub noted: Option<ObjectId>,
    pub receipts: Vec<Receipt>,
}

impl Published for Unnoted {
    fn latest_published(&self, path: &str) -> Result<Option<Publication>> {
        Ok(latest_in(&self.receipts, path))
    }
}

/// The newest applied receipt of `receipts` (newest first) naming `path`.
fn latest_in(receipts: &[Receipt], path: &str) -> Option<Publication> {
    receipts
        .iter()
        .filter(|r| r.status == "applied")
        .find_map(|r| {
            let (_, blob) = r.files.iter().find(|(p, _)| p == path)?;
            Some(Publication {
                receipt: r.id,
                label: r.label.clone(),
                blob: *blob,
            })
        })
}

use crate::git::ledger::ref_target;

/// Walks the log from its tip back to (not including) the noted receipt; without a noted
/// receipt, the whole log. What post-commit attaches.
pub fn unnoted(repo: &gix::Repository) -> Result<Unnoted> {
    let mut log = Log::open(repo, None)?;
    let mut receipts = Vec::new();
    while let Some(r) = log.next_receipt()? {
        receipts.push(r);
    }
    Ok(Unnoted {
        tip: log.tip,
        noted: log.noted,
        receipts,
    })
}

/// The receipts written since HEAD was committed (and not noted), read newest first and only
/// as far back as the questions asked need: what pre-commit compares with. When only
/// pre-commit is installed (the pre-commit framework), `refs/identedit/noted` never moves;
/// the time floor keeps the walk to the receipts since the last commit, and the laziness to
/// the newest receipt naming each staged path.
pub fn since_head(repo: &gix::Repository) -> Result<SinceHead<'_>> {
    let floor = match repo.head_commit() {
        Ok(head) => Some(
            head.time()
                .map_err(|e| git_error("HEAD's time", e))?
                .seconds,
        ),
        Err(_) => None,
    };
    Ok(SinceHead {
        log: RefCell::new(Log::open(repo, floor)?),
        read: RefCell::new(Vec::new()),
    })
}

/// [`since_head`]'s answer: the receipts read so far and the walk that reads more.
pub struct SinceHead<'r> {
    log: RefCell<Log<'r>>,
    read: RefCell<Vec<Receipt>>,
}

impl Published for SinceHead<'_> {
    fn latest_published(&self, path: &str) -> Result<Option<Publication>> {
        if let Some(found) = latest_in(&self.read.borrow(), path) {
            return Ok(Some(found));
        }
        let mut log = self.log.borrow_mut();
        while let Some(r) = log.next_receipt()? {
            let found = latest_in(std::slice::from_ref(&r), path);
            self.read.borrow_mut().push(r);
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }
}

/// The log newest first, from its tip down to the noted receipt or the first receipt older
/// than `floor` (seconds), whichever comes first.
struct Log<'r> {
    repo: &'r gix::Repository,
    tip: Option<ObjectId>,
    noted: Option<ObjectId>,
    floor: Option<i64>,
    next: Option<ObjectId>,
}

impl<'r> Log<'r> {
    fn open(repo: &'r gix::Repository, floor: Option<i64>) -> Result<Self> {
        let tip = ref_target(repo, LOG_REF)?;
        Ok(Self {
            repo,
            tip,
            noted: ref_target(repo, NOTED_REF)?,
            floor,
            next: tip,
        })
    }

    fn next_receipt(&mut self) -> Result<Option<Receipt>> {
        let Some(id) = self.next.take().filter(|id| Some(*id) != self.noted) else {
            return Ok(None);
        };
        let commit = self
            .repo
            .find_commit(id)
            .map_err(|e| git_error(&format!("receipt {id}"), e))?;
        let time = commit
            .time()
            .map_err(|e| git_error(&format!("receipt {id}"), e))?;
        if self.floor.is_some_and(|f| time.seconds < f) {
            return Ok(None);
        }
        self.next = commit.parent_ids().next().map(|p| p.detach());
        Ok(Some(read(self.repo, &commit)))
    }
}

/// The fields of `receipt.json` read here; every other field is skipped unread.
#[derive(Default, Deserialize)]
struct Doc {
    label: Option<String>,
    status: Option<String>,
    #[serde(default)]
    files: Vec<DocFile>,
}

#[derive(Deserialize)]
struct DocFile {
    path: Option<String>,
    blob_after: Option<String>,
}

fn read(repo: &gix::Repository, commit: &gix::Commit<'_>) -> Receipt {
    let subject = commit
        .message_raw_sloppy()
        .lines()
        .next()
        .unwrap_or_default()
        .to_str_lossy()
        .trim()
        .to_owned();
    let doc = receipt_json(repo, commit).unwrap_or_default();
    let files = doc
        .files
        .into_iter()
        .filter_map(|f| {
            let blob = f
                .blob_after
                .and_then(|h| ObjectId::from_hex(h.as_bytes()).ok());
            Some((f.path?, blob))
        })
        .collect();
    // One note line per receipt: a label may not break the line.
    let label = doc.label.unwrap_or(subject).replace(['\n', '\r'], " ");
    Receipt {
        id: commit.id,
        label,
        status: doc.status.unwrap_or_else(|| "unknown".to_owned()),
        files,
    }
}

fn receipt_json(repo: &gix::Repository, commit: &gix::Commit<'_>) -> Option<Doc> {
    let tree = commit.tree().ok()?;
    let entry = tree.find_entry("receipt.json")?;
    let blob = repo.find_blob(entry.object_id()).ok()?;
    serde_json::from_slice(&blob.data).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oid(n: u8) -> ObjectId {
        ObjectId::from_hex(format!("{n:02x}").repeat(20).as_bytes()).expect("hex")
    }

    fn receipt(n: u8, status: &str, files: &[(&str, Option<u8>)]) -> Receipt {
        Receipt {
            id: oid(n),
            label: format!("r{n}"),
            status: status.to_owned(),
            files: files
                .iter()
                .map(|(p, b)| ((*p).to_owned(), b.map(oid)))
                .collect(),
        }
    }

    #[test]
    fn the_newest_applied_receipt_naming_the_path_wins() {
        let log = Unnoted {
            receipts: vec![
                receipt(3, "failed", &[("a.py", Some(9))]),
                receipt(2, "applied", &[("a.py", Some(7)), ("b.py", None)]),
                receipt(1, "applied", &[("a.py", Some(5))]),
            ],
            ..Unnoted::default()
        };
        let a = log.latest_published("a.py").expect("read").expect("a.py");
        assert_eq!(
            (a.receipt, a.label.as_str(), a.blob),
            (oid(2), "r2", Some(oid(7)))
        );
        assert_eq!(
            log.latest_published("b.py").expect("read").map(|p| p.blob),
            Some(None)
        );
        assert_eq!(log.latest_published("c.py").expect("read"), None);
    }
}
