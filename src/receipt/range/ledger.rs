//! Every receipt a range can be checked against: this clone's log and every log fetched from
//! other clones (`refs/identedit/remotes/<remote>/clones/<id>/log`, and
//! `refs/identedit/clones/<id>/log` as a remote itself holds them), each receipt once; and the
//! integrity of one receipt's record of one file.

use std::collections::{BTreeSet, HashSet};

use gix::ObjectId;

use crate::error::Result;
use crate::git::ledger::{blob_id, ref_target};
use crate::git::repo::git_error;
use crate::plan::Digest;
use crate::receipt::store::{self, Stored};
use crate::receipt::{FileRecord, LOG_REF, Status};

/// The tips of every receipt log in the repository.
fn log_tips(repo: &gix::Repository) -> Result<Vec<ObjectId>> {
    let mut tips: Vec<ObjectId> = ref_target(repo, LOG_REF)?.into_iter().collect();
    let refs = repo
        .references()
        .map_err(|e| git_error("reading refs", &e))?;
    for prefix in ["refs/identedit/remotes/", "refs/identedit/clones/"] {
        let found = refs
            .prefixed(prefix)
            .map_err(|e| git_error("reading refs", &e))?;
        for r in found.filter_map(std::result::Result::ok) {
            if r.name().as_bstr().ends_with(b"/log")
                && let Some(id) = r.target().try_id()
            {
                tips.push(id.to_owned());
            }
        }
    }
    Ok(tips)
}

/// The applied receipts that changed any of `paths`, oldest first (by time, then log order). Only the
/// receipts' trees are read for the others: `receipt.json` is parsed for candidates alone.
pub fn receipts_for(repo: &gix::Repository, paths: &BTreeSet<String>) -> Result<Vec<Stored>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for tip in log_tips(repo)? {
        let mut log = Vec::new();
        let mut next = Some(tip);
        while let Some(commit) = next {
            if !seen.insert(commit) {
                break;
            }
            let (parent, touches) = touches(repo, commit, paths)?;
            next = parent;
            if touches {
                let stored = store::load(repo, commit)?;
                if stored.receipt.status == Status::Applied {
                    log.push(stored);
                }
            }
        }
        out.extend(log.into_iter().rev());
    }
    // Stable: receipts of one second keep their log's order.
    out.sort_by(|a, b| a.receipt.time.cmp(&b.receipt.time));
    Ok(out)
}

/// The receipt commit's parent, and whether its tree holds an image of one of `paths` (whole,
/// as splices, or as a reference to an earlier receipt's).
fn touches(
    repo: &gix::Repository,
    commit: ObjectId,
    paths: &BTreeSet<String>,
) -> Result<(Option<ObjectId>, bool)> {
    let object = repo
        .find_commit(commit)
        .map_err(|e| git_error("reading the receipt log", &e))?;
    let parent = object.parent_ids().next().map(gix::Id::detach);
    let tree = object
        .tree()
        .map_err(|e| git_error("reading a receipt", &e))?;
    for path in paths {
        for side in ["after", "before", "splices", "prior"] {
            let entry = tree
                .lookup_entry_by_path(format!("{side}/{path}"))
                .map_err(|e| git_error("reading a receipt tree", &e))?;
            if entry.is_some() {
                return Ok((parent, true));
            }
        }
    }
    Ok((parent, false))
}

/// A receipt's images of one file, as stored (work-tree bytes).
pub struct Images {
    pub before: Option<Vec<u8>>,
    pub after: Option<Vec<u8>>,
}

/// The images `stored` holds for `record`, and what in them does not verify: the input's
/// digest, and each image's presence, sha256 and blob id against `receipt.json`.
pub fn images(
    repo: &gix::Repository,
    stored: &Stored,
    record: &FileRecord,
) -> Result<(Images, Vec<String>)> {
    let mut problems = Vec::new();
    match store::stored_file(repo, stored.commit, "input")? {
        Some(input) if Digest::of(&input).to_hex() == stored.receipt.input.sha256 => {}
        Some(_) => problems.push("the stored input does not hash to input.sha256".to_owned()),
        None => problems.push("the receipt holds no input".to_owned()),
    }
    let read_before = |path: &str| match store::before_image(repo, stored.commit, path) {
        Err(e) if e.code == crate::error::Code::ReceiptNotFound => Ok(None),
        other => other,
    };
    let mut before = read_before(&record.path)?;
    if let (None, Some(from)) = (&before, &record.moved_from) {
        before = read_before(from)?;
    }
    let after = store::stored_after(repo, stored.commit, record)?;
    if matches!(after, store::Image::Broken) {
        problems.push("the after image's splices do not rebuild it".to_owned());
    }
    let after = after.bytes();
    let expected = [
        (
            "before",
            &before,
            &record.sha256_before,
            &record.blob_before,
        ),
        ("after", &after, &record.sha256_after, &record.blob_after),
    ];
    for (side, bytes, sha, blob) in expected {
        let actual_sha = bytes.as_deref().map(|b| Digest::of(b).to_hex());
        let actual_blob = bytes
            .as_deref()
            .and_then(|b| blob_id(repo, b))
            .map(|id| id.to_string());
        if sha.is_some() && actual_sha != *sha {
            problems.push(format!("the {side} image does not hash to sha256_{side}"));
        }
        if blob.is_some() && actual_blob != *blob {
            problems.push(format!("the {side} image is not blob_{side}"));
        }
    }
    Ok((Images { before, after }, problems))
}
