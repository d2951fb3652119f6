//! The units a hunk is matched against: each receipt that changed a file, and each chain of
//! such receipts where one's pre-image is the previous one's post-image (several edits of one
//! file that a single commit holds); and the judgement of one hunk against them.

use std::collections::HashMap;

use super::cover::{Cover, Hunk};
use super::{FailedReceipt, ReceiptRef, ledger};
use crate::change::Action;
use crate::error::Result;
use crate::receipt::store::Stored;

/// The longest chain of receipts of one file that is tried as one change.
const MAX_CHAIN: usize = 32;

/// One receipt, or a chain of them, on one file: its pre- and post-image as git stores them.
#[derive(Clone, Debug)]
pub struct Unit {
    pub receipts: Vec<ReceiptRef>,
    pub before: Vec<u8>,
    pub after: Vec<u8>,
    /// The members that do not verify (empty: the unit verifies).
    pub failed: Vec<FailedReceipt>,
}

/// Builds (once per path) the units of the receipts of a range.
pub struct Builder<'a> {
    repo: &'a gix::Repository,
    receipts: &'a [Stored],
    to_git: Option<crate::git::index::ToGit<'a>>,
    cache: HashMap<String, Vec<Unit>>,
}

impl<'a> Builder<'a> {
    pub fn new(repo: &'a gix::Repository, receipts: &'a [Stored]) -> Self {
        Self {
            repo,
            receipts,
            to_git: crate::git::index::ToGit::new(repo).ok(),
            cache: HashMap::new(),
        }
    }

    /// The units of `path`: every single receipt (oldest first), then every chain, shortest
    /// first.
    pub fn for_path(&mut self, path: &str) -> Result<&[Unit]> {
        if !self.cache.contains_key(path) {
            let singles = self.singles(path)?;
            let mut units = chains(&singles);
            units.splice(0..0, singles);
            // The fewest receipts that account for a hunk name it.
            units.sort_by_key(|u| u.receipts.len());
            self.cache.insert(path.to_owned(), units);
        }
        Ok(self.cache.get(path).map_or(&[], Vec::as_slice))
    }

    fn singles(&mut self, path: &str) -> Result<Vec<Unit>> {
        let mut out = Vec::new();
        for stored in self.receipts {
            let Some(record) = stored.receipt.files.iter().find(|f| f.path == path) else {
                continue;
            };
            let (images, problems) = ledger::images(self.repo, stored, record)?;
            let reference = ReceiptRef {
                label: stored.receipt.label.clone(),
                receipt: stored.commit.to_string(),
            };
            let side = |bytes: Option<Vec<u8>>, absent: bool| match absent {
                true => Vec::new(),
                false => bytes.unwrap_or_default(),
            };
            let before = side(images.before, record.action == Action::Created);
            let after = side(images.after, record.action == Action::Deleted);
            let failed = (!problems.is_empty())
                .then(|| FailedReceipt {
                    label: reference.label.clone(),
                    receipt: reference.receipt.clone(),
                    path: path.to_owned(),
                    problems,
                })
                .into_iter()
                .collect();
            out.push(Unit {
                receipts: vec![reference],
                before: self.convert(path, before),
                after: self.convert(path, after),
                failed,
            });
        }
        Ok(out)
    }

    /// Work-tree bytes as git stores them (the receipt holds what the work tree held).
    fn convert(&mut self, path: &str, bytes: Vec<u8>) -> Vec<u8> {
        match self.to_git.as_mut().map(|t| t.convert(path, &bytes)) {
            Some(Ok(converted)) => converted,
            _ => bytes,
        }
    }
}

/// Every chain of two or more receipts, each starting at one receipt and taking the next
/// receipt whose pre-image is the chain's post-image.
fn chains(singles: &[Unit]) -> Vec<Unit> {
    let mut out = Vec::new();
    for (start, first) in singles.iter().enumerate() {
        let mut chain = first.clone();
        let mut at = start;
        while chain.receipts.len() < MAX_CHAIN {
            let Some(offset) = singles[at + 1..]
                .iter()
                .position(|u| u.before == chain.after)
            else {
                break;
            };
            at += 1 + offset;
            let next = &singles[at];
            chain.receipts.extend(next.receipts.iter().cloned());
            chain.failed.extend(next.failed.iter().cloned());
            chain.after.clone_from(&next.after);
            out.push(chain.clone());
        }
    }
    out
}

/// The verdict on one hunk.
pub struct Judged<'u> {
    pub covered_by: Option<String>,
    pub receipts: Vec<ReceiptRef>,
    pub unverified: Vec<ReceiptRef>,
    pub unverified_units: Vec<&'u Unit>,
}

/// Covered by the first verified unit that accounts for every line of `hunk`; else by the
/// verified units together when every line is someone's (the label is the one accounting for
/// the most lines); else by hand. Units that do not verify but account for lines are named.
pub fn judge<'u>(units: &'u [Unit], covers: &[Cover], hunk: &Hunk) -> Judged<'u> {
    let mut judged = Judged {
        covered_by: None,
        receipts: Vec::new(),
        unverified: Vec::new(),
        unverified_units: Vec::new(),
    };
    for (unit, cover) in units.iter().zip(covers) {
        if !unit.failed.is_empty() && cover.lines_of(hunk) > 0 {
            judged.unverified_units.push(unit);
            for f in &unit.failed {
                let r = ReceiptRef {
                    label: f.label.clone(),
                    receipt: f.receipt.clone(),
                };
                if !judged.unverified.contains(&r) {
                    judged.unverified.push(r);
                }
            }
        }
    }
    let verified = || {
        units
            .iter()
            .zip(covers)
            .filter(|(u, _)| u.failed.is_empty())
    };
    if let Some((unit, _)) = verified().find(|(_, c)| c.covers(hunk)) {
        judged.covered_by = unit.receipts.last().map(|r| r.label.clone());
        judged.receipts.clone_from(&unit.receipts);
        return judged;
    }
    let together = |i: usize, side_old: bool| {
        verified().any(|(_, c)| if side_old { c.removed[i] } else { c.written[i] })
    };
    let all =
        hunk.old.clone().all(|i| together(i, true)) && hunk.new.clone().all(|i| together(i, false));
    if !all {
        return judged;
    }
    let mut best: Option<(usize, &Unit)> = None;
    for (unit, cover) in verified() {
        let n = cover.lines_of(hunk);
        if n == 0 {
            continue;
        }
        for r in &unit.receipts {
            if !judged.receipts.contains(r) {
                judged.receipts.push(r.clone());
            }
        }
        if best.is_none_or(|(m, _)| n > m) {
            best = Some((n, unit));
        }
    }
    judged.covered_by = best.and_then(|(_, u)| u.receipts.last().map(|r| r.label.clone()));
    judged
}
