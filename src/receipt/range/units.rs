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
    cache: HashMap<String, Entry>,
}

/// The units of one path: the receipts alone, and with their chains once asked for.
struct Entry {
    singles: Vec<Unit>,
    all: Option<Vec<Unit>>,
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

    /// The units of `path`: every single receipt (oldest first); `with_chains`, then every
    /// chain, shortest first (built on the first call that asks).
    pub fn units(&mut self, path: &str, with_chains: bool) -> Result<&[Unit]> {
        if !self.cache.contains_key(path) {
            let singles = self.singles(path)?;
            self.cache
                .insert(path.to_owned(), Entry { singles, all: None });
        }
        let Some(entry) = self.cache.get_mut(path) else {
            return Ok(&[]);
        };
        if !with_chains {
            return Ok(&entry.singles);
        }
        let all = entry.all.get_or_insert_with(|| {
            let mut units = chains(&entry.singles);
            units.splice(0..0, entry.singles.iter().cloned());
            // The fewest receipts that account for a hunk name it.
            units.sort_by_key(|u| u.receipts.len());
            units
        });
        Ok(all)
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
pub struct Judged {
    pub covered_by: Option<String>,
    pub receipts: Vec<ReceiptRef>,
    pub unverified: Vec<ReceiptRef>,
    /// The members of `unverified`, with what does not verify.
    pub failed: Vec<FailedReceipt>,
}

/// Covered by the first verified unit that accounts for every line of `hunk`; else by the
/// verified units together when every line is someone's (the label is the one accounting for
/// the most lines); else by hand. Units that do not verify but account for lines are named.
pub fn judge(units: &[Unit], covers: &[Cover], hunk: &Hunk) -> Judged {
    let (unverified, failed) = unverified_claims(units, covers, hunk);
    let verified: Vec<(&Unit, &Cover)> = units
        .iter()
        .zip(covers)
        .filter(|(u, _)| u.failed.is_empty())
        .collect();
    let (covered_by, receipts) = match verified.iter().find(|(_, c)| c.covers(hunk)) {
        Some((unit, _)) => (
            unit.receipts.last().map(|r| r.label.clone()),
            unit.receipts.clone(),
        ),
        None => together(&verified, hunk),
    };
    Judged {
        covered_by,
        receipts,
        unverified,
        failed,
    }
}

/// The failed members of units that do not verify but account for lines of `hunk`.
fn unverified_claims(
    units: &[Unit],
    covers: &[Cover],
    hunk: &Hunk,
) -> (Vec<ReceiptRef>, Vec<FailedReceipt>) {
    let (mut refs, mut failed) = (Vec::new(), Vec::new());
    for (unit, cover) in units.iter().zip(covers) {
        if unit.failed.is_empty() || cover.lines_of(hunk) == 0 {
            continue;
        }
        for f in &unit.failed {
            if !failed.contains(f) {
                failed.push(f.clone());
            }
            let r = ReceiptRef {
                label: f.label.clone(),
                receipt: f.receipt.clone(),
            };
            if !refs.contains(&r) {
                refs.push(r);
            }
        }
    }
    (refs, failed)
}

/// Coverage by several verified units: every line of `hunk` removed or written by one of them.
fn together(verified: &[(&Unit, &Cover)], hunk: &Hunk) -> (Option<String>, Vec<ReceiptRef>) {
    let removed = |i: usize| verified.iter().any(|(_, c)| c.removed[i]);
    let written = |i: usize| verified.iter().any(|(_, c)| c.written[i]);
    if !(hunk.old.clone().all(removed) && hunk.new.clone().all(written)) {
        return (None, Vec::new());
    }
    let mut receipts: Vec<ReceiptRef> = Vec::new();
    let mut best: Option<(usize, &Unit)> = None;
    for (unit, cover) in verified {
        let n = cover.lines_of(hunk);
        if n == 0 {
            continue;
        }
        for r in &unit.receipts {
            if !receipts.contains(r) {
                receipts.push(r.clone());
            }
        }
        if best.is_none_or(|(m, _)| n > m) {
            best = Some((n, unit));
        }
    }
    let label = best.and_then(|(_, u)| u.receipts.last().map(|r| r.label.clone()));
    (label, receipts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::receipt::range::cover::{cover, hunks, lines};

    fn unit(label: &str, before: &str, after: &str, failed: bool) -> Unit {
        let receipt = ReceiptRef {
            label: label.to_owned(),
            receipt: format!("{label}-id"),
        };
        let failed = failed
            .then(|| FailedReceipt {
                label: label.to_owned(),
                receipt: receipt.receipt.clone(),
                path: "f".to_owned(),
                problems: vec!["forged".to_owned()],
            })
            .into_iter()
            .collect();
        Unit {
            receipts: vec![receipt],
            before: before.as_bytes().to_vec(),
            after: after.as_bytes().to_vec(),
            failed,
        }
    }

    fn judged(p: &str, c: &str, units: &[Unit]) -> Vec<(Option<String>, Vec<String>)> {
        let (pl, cl) = (lines(p.as_bytes()), lines(c.as_bytes()));
        let covers: Vec<Cover> = units
            .iter()
            .map(|u| cover(&pl, &cl, &lines(&u.before), &lines(&u.after)))
            .collect();
        hunks(&pl, &cl)
            .iter()
            .map(|h| {
                let j = judge(units, &covers, h);
                (
                    j.covered_by,
                    j.unverified.into_iter().map(|r| r.label).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn two_receipts_with_a_hand_edit_between_cover_one_hunk_together() {
        // r1 changed b, e was changed by hand, then r2 changed c, next to r1's line.
        let p = "a\nb\nc\nd\ne\n";
        let r1 = unit("r1", p, "a\nB\nc\nd\ne\n", false);
        let r2 = unit("r2", "a\nB\nc\nd\nE\n", "a\nB\nC\nd\nE\n", false);
        let got = judged(p, "a\nB\nC\nd\nE\n", &[r1, r2]);
        // Each accounts for two lines of the hunk; the older one names it.
        assert_eq!(got[0], (Some("r1".to_owned()), vec![]));
        // The line e → E was neither's: by hand.
        assert_eq!(got[1], (None, vec![]));
    }

    #[test]
    fn a_receipt_that_does_not_verify_covers_nothing_and_is_named() {
        let p = "a\nb\n";
        let got = judged(p, "a\nB\n", &[unit("bad", p, "a\nB\n", true)]);
        assert_eq!(got, [(None, vec!["bad".to_owned()])]);
    }
}
