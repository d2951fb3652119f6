//! `hook pre-commit`: the checks of what a commit is about to record.
//!
//! Refused (each problem with its file and line):
//! - an interrupted identedit transaction is pending recovery (a journal whose owner died);
//! - a staged file in a supported language has more syntax errors than its HEAD version (a
//!   new file: any error), judged on the staged blob, never the work tree;
//! - a staged file contains edit-format residue ([`crate::hook::residue`]) and its path does
//!   not carry `identedit-allow-residue`.
//!
//! Warned (the commit proceeds): a staged file differs from what the latest receipt not yet
//! attached to a commit published there; a transaction is running right now.

use std::path::Path;

use serde::Serialize;

use crate::error::Result;
use crate::hook::published::Published;
use crate::hook::residue;
use crate::hook::staged::{self, Attributes, Staged};
use crate::lang::{self, parse};
use crate::txn::journal;

/// Why a commit is refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// `pending_recovery`, `syntax_regression` or `residue`.
    pub check: &'static str,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub message: String,
}

/// Something the committer should know; the commit proceeds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// `differs_from_receipt`, `transaction_running` or `not_parsed`.
    pub check: &'static str,
    pub path: String,
    pub message: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Verdict {
    /// Staged files looked at.
    pub checked: usize,
    pub problems: Vec<Problem>,
    pub warnings: Vec<Warning>,
}

/// Runs every check against the index of `repo`.
pub fn check(repo: &gix::Repository, published: &dyn Published) -> Result<Verdict> {
    let mut verdict = Verdict::default();
    journals(
        &repo.git_dir().join("identedit").join("journal"),
        &mut verdict,
    );
    let staging = staged::read(repo)?;
    let index = &staging.index;
    let mut attributes = None;
    let mut to_git = None;
    for change in &staging.changes {
        verdict.checked += 1;
        let warning = publication_warning(change, published)?
            .filter(|_| !stored_form_matches(repo, index, &mut to_git, change, published));
        verdict.warnings.extend(warning);
        let bytes = staged::blob(repo, change.blob)?;
        if is_binary(&bytes) {
            continue;
        }
        let found = residue::scan(&bytes);
        if !found.is_empty() {
            // Read .gitattributes only when a file needs it.
            let attributes = match &mut attributes {
                Some(a) => a,
                None => attributes.insert(Attributes::new(repo, index)?),
            };
            if !attributes.allows_residue(&change.path)? {
                verdict.problems.extend(found.into_iter().map(|r| Problem {
                    check: "residue",
                    path: change.path.clone(),
                    line: Some(r.line),
                    message: format!("edit-format residue `{}`", r.marker),
                }));
            }
        }
        if bytes.len() > MAX_PARSED && lang::provider_for(&change.path).is_some() {
            verdict.warnings.push(Warning {
                check: "not_parsed",
                path: change.path.clone(),
                message: format!("syntax not checked: larger than {} MiB", MAX_PARSED >> 20),
            });
            continue;
        }
        let base = match change.base {
            Some(id) => Some(staged::blob(repo, id)?),
            None => None,
        };
        verdict
            .problems
            .extend(syntax_regression(&change.path, &bytes, base.as_deref())?);
    }
    Ok(verdict)
}

/// Staged files above this size are not parsed (about two seconds of tree-sitter each).
const MAX_PARSED: usize = 4 << 20;

/// A NUL byte in the first 8000 bytes, as git decides: no residue or syntax check.
fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8000)].contains(&0)
}

fn journals(dir: &Path, verdict: &mut Verdict) {
    for pending in journal::pending(dir) {
        let files: Vec<String> = pending
            .record
            .as_ref()
            .map(|r| r.entries.iter().map(|e| e.rel.clone()).collect())
            .unwrap_or_default();
        let path = files.first().cloned().unwrap_or_default();
        let pid = pending.record.as_ref().map_or(0, |r| r.pid);
        if pending.live {
            verdict.warnings.push(Warning {
                check: "transaction_running",
                path,
                message: format!(
                    "an identedit transaction (pid {pid}) is writing {} right now",
                    files.join(", ")
                ),
            });
        } else {
            verdict.problems.push(Problem {
                check: "pending_recovery",
                path,
                line: None,
                message: format!(
                    "an interrupted identedit transaction (pid {pid}, journal {}) left {} half-written; run `git identedit recover` to settle it (`--dry-run` shows it first), check the files, then commit again",
                    pending.path.display(),
                    files.join(", ")
                ),
            });
        }
    }
}

/// Errors of `bytes` in the language of `path`, and the first one's line; `None` for a file
/// without a provider or a binary blob.
fn errors(path: &str, bytes: &[u8]) -> Result<Option<(usize, Option<usize>)>> {
    let Some(provider) = lang::provider_for(path) else {
        return Ok(None);
    };
    if is_binary(bytes) {
        return Ok(None);
    }
    let tree = parse::parse(provider, bytes, None)?;
    let (count, first) = parse::syntax_errors(provider, &tree, bytes);
    let found = (count, first.map(|l| l.line));
    parse::retire(tree);
    Ok(Some(found))
}

/// A problem when the staged bytes have more syntax errors than the base (none for a new file).
pub fn syntax_regression(
    path: &str,
    staged: &[u8],
    base: Option<&[u8]>,
) -> Result<Option<Problem>> {
    let Some((count, line)) = errors(path, staged)? else {
        return Ok(None);
    };
    if count == 0 {
        return Ok(None);
    }
    let before = match base {
        Some(bytes) => errors(path, bytes)?.map_or(0, |(n, _)| n),
        None => 0,
    };
    if count <= before {
        return Ok(None);
    }
    Ok(Some(Problem {
        check: "syntax_regression",
        path: path.to_owned(),
        line,
        message: format!("{count} syntax error(s) staged, {before} in HEAD"),
    }))
}

/// Whether the staged blob is what the receipt published once converted as `git add` would
/// (`text=auto`, `core.autocrlf`: the receipt holds work-tree bytes, the index git's form).
fn stored_form_matches<'r>(
    repo: &'r gix::Repository,
    index: &gix::index::State,
    to_git: &mut Option<crate::git::index::ToGit<'r>>,
    change: &Staged,
    published: &dyn Published,
) -> bool {
    let Some(id) = published
        .latest_published(&change.path)
        .ok()
        .flatten()
        .and_then(|p| p.blob)
    else {
        return false;
    };
    // Attributes are looked up in the entries already read (the .gitattributes entries are
    // among them).
    if to_git.is_none() {
        *to_git = crate::git::index::ToGit::of(repo, index).ok();
    }
    let (Some(to_git), Ok(bytes)) = (to_git.as_mut(), staged::blob(repo, id)) else {
        return false;
    };
    to_git
        .convert_in(&change.path, &bytes, index)
        .ok()
        .and_then(|converted| crate::git::ledger::blob_id(repo, &converted))
        == Some(change.blob)
}

/// A warning when the staged blob is not what the latest receipt naming the path published.
pub fn publication_warning(change: &Staged, published: &dyn Published) -> Result<Option<Warning>> {
    let Some(p) = published.latest_published(&change.path)? else {
        return Ok(None);
    };
    if p.blob == Some(change.blob) {
        return Ok(None);
    }
    let short = p.receipt.to_hex_with_len(12).to_string();
    let what = match p.blob {
        Some(_) => "differs from what receipt",
        None => "exists although receipt",
    };
    let published = if p.blob.is_some() {
        "published"
    } else {
        "deleted it"
    };
    Ok(Some(Warning {
        check: "differs_from_receipt",
        path: change.path.clone(),
        message: format!(
            "staged {} {what} {short} ({}) {published}",
            change.path, p.label
        ),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::published::Publication;
    use gix::ObjectId;

    fn oid(n: u8) -> ObjectId {
        ObjectId::from_hex(format!("{n:02x}").repeat(20).as_bytes()).expect("hex")
    }

    /// A test double: one fixed publication for one path.
    struct One(&'static str, Option<ObjectId>);

    impl Published for One {
        fn latest_published(&self, path: &str) -> Result<Option<Publication>> {
            Ok((path == self.0).then(|| Publication {
                receipt: oid(0xab),
                label: "fix-typo".to_owned(),
                blob: self.1,
            }))
        }
    }

    fn staged(path: &str, blob: u8) -> Staged {
        Staged {
            path: path.to_owned(),
            blob: oid(blob),
            base: None,
        }
    }

    #[test]
    fn a_staged_blob_equal_to_the_published_one_is_quiet() {
        assert_eq!(
            publication_warning(&staged("a.py", 1), &One("a.py", Some(oid(1)))).expect("read"),
            None
        );
        assert_eq!(
            publication_warning(&staged("b.py", 1), &One("a.py", Some(oid(2)))).expect("read"),
            None
        );
    }

    #[test]
    fn a_staged_blob_other_than_the_published_one_warns() {
        let w = publication_warning(&staged("a.py", 1), &One("a.py", Some(oid(2))))
            .expect("read")
            .expect("warning");
        assert_eq!(w.check, "differs_from_receipt");
        assert_eq!(
            w.message,
            "staged a.py differs from what receipt abababababab (fix-typo) published"
        );
        let w = publication_warning(&staged("a.py", 1), &One("a.py", None))
            .expect("read")
            .expect("warning");
        assert_eq!(
            w.message,
            "staged a.py exists although receipt abababababab (fix-typo) deleted it"
        );
    }

    #[test]
    fn syntax_is_judged_against_the_base() {
        let broken = b"def f(:\n    pass\n";
        let fine = b"def f():\n    pass\n";
        let p = syntax_regression("a.py", broken, None)
            .expect("parse")
            .expect("problem");
        assert_eq!((p.check, p.line), ("syntax_regression", Some(1)));
        assert_eq!(
            syntax_regression("a.py", broken, Some(broken)).expect("parse"),
            None
        );
        assert!(
            syntax_regression("a.py", broken, Some(fine))
                .expect("parse")
                .is_some()
        );
        assert_eq!(syntax_regression("a.py", fine, None).expect("parse"), None);
        assert_eq!(
            syntax_regression("a.txt", broken, None).expect("parse"),
            None
        );
    }
}
