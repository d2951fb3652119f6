//! The one transaction engine: every plan, whatever its front-end, is applied here.
//!
//! `preflight (no lock) → lock every file in stable order → roll back dead journals that name
//! our files → re-read and, if anything moved, rebase the whole plan onto the current bytes
//! (`rebase`: every touched region unchanged and unique, else refused) → journal → stage →
//! publish → commit`. A dry run stops after the preflight. The caller gets every pre-image and
//! post-image back in the [`Outcome`].

pub mod guard;
pub mod journal;
pub mod mode;
pub mod moves;
mod overlap;
mod parallel;
pub mod prepare;
pub mod publish;
pub mod rebase;
pub mod record;
pub mod resolve;
pub mod restore;

use crate::change::{Action, FileChange};
use crate::error::{Error, Result};
use crate::plan::Plan;
use crate::workspace::Workspace;
use crate::workspace::snapshot::Stamp;
use crate::workspace::{failpoint, lock};
use journal::Recovered;

/// How to run a plan.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    pub dry_run: bool,
    /// Text edits may add syntax errors to files in supported languages.
    pub allow_syntax_errors: bool,
    /// Blocks of the text dialects match exact bytes only (no tolerance ladder).
    pub exact: bool,
    /// Creations and moves may replace an existing file.
    pub overwrite: bool,
    /// The plan is only built, not committed (`edit --json`): the final parse of results
    /// with structure targets is left to the commit, which checks it.
    pub build_only: bool,
    /// Operations are bound to the bytes the preflight read (a changeset's `apply`, see
    /// [`pin`]): when a file moved before the locks, its targeted and config operations refuse
    /// instead of being rebased.
    pub pinned: bool,
}

/// What a plan did (or, in a dry run, would do).
#[derive(Debug)]
pub struct Outcome {
    pub dry_run: bool,
    /// Every file the plan names, sorted by path.
    pub files: Vec<FileChange>,
    /// Interrupted transactions this run rolled back while holding the plan's locks.
    pub recovered: Vec<Recovered>,
    /// API changes the guard found and did not refuse (acknowledged, or only reported).
    pub api_changes: Vec<crate::lang::api::ApiChange>,
}

/// Watches a transaction from inside its locks: the ledger observes the work tree just before
/// and just after the files are published, and records what happened while no other identedit
/// writer can touch the plan's files.
pub trait Observer {
    /// The preflight proved the plan (before the API guard and the locks). An error refuses
    /// the plan. `apply` of a changeset compares its previews here, so one pass of the engine
    /// both proves and commits.
    fn proven(&mut self, _files: &[FileChange]) -> Result<()> {
        Ok(())
    }
    /// The plan is proven and about to be published.
    /// An error refuses the plan: nothing is written.
    fn before_publish(&mut self, files: &[FileChange]) -> Result<()>;
    /// Publishing ended: `Ok` when every file was written, `Err` when it failed and every file
    /// was restored. An error returned after a successful publish means the files stay
    /// written but unrecorded.
    fn after_publish(&mut self, files: &[FileChange], published: Result<(), &Error>) -> Result<()>;
    /// The API changes the guard let through (acknowledged, or only reported), told before
    /// `before_publish` so that a receipt can carry them.
    fn api_changes(&mut self, _changes: &[crate::lang::api::ApiChange]) {}
}

/// Proves and applies `plan` in `ws`, all or nothing.
pub fn execute(ws: &Workspace, plan: &Plan, options: Options) -> Result<Outcome> {
    execute_observed(ws, plan, options, None)
}

/// [`execute`], with an observer called under the locks around the publish.
pub fn execute_observed(
    ws: &Workspace,
    plan: &Plan,
    options: Options,
    mut observer: Option<&mut dyn Observer>,
) -> Result<Outcome> {
    // A write proves the plan on the files as its caller read them, when it says (an MCP
    // session); a file that changed since is then rebased below, under the locks.
    let files = match options.dry_run {
        true => prepare::prepare(ws, plan, &options)?,
        false => crate::workspace::as_read::preflight(|| prepare::prepare(ws, plan, &options))?,
    };
    if let Some(observer) = observer.as_deref_mut() {
        observer.proven(&files)?;
    }
    let api_changes = guard::guard(ws, plan, &files)?;
    let writes = files.iter().any(|c| c.action != Action::Unchanged);
    if options.dry_run || !writes {
        return Ok(Outcome {
            dry_run: options.dry_run,
            files,
            recovered: Vec::new(),
            api_changes,
        });
    }
    let keys: Vec<String> = files.iter().map(|c| c.path.key.clone()).collect();
    let real: Vec<String> = keys.iter().map(|k| ws.lock_key(k)).collect();
    let key_refs: Vec<&str> = real.iter().map(String::as_str).collect();
    let _locks = lock::acquire(&ws.lock_dir(), &key_refs, lock::timeout)
        .map_err(|e| busy_path(e, &real, &keys))?;
    failpoint::hit("after_lock").map_err(|e| Error::io("failpoint", &e))?;
    let recovered = journal::settle(&ws.journal_dir(), &keys);
    let (mut files, api_changes) = if unchanged_since(&files) {
        (files, api_changes)
    } else {
        let bound = match options.pinned {
            true => rebase::bind(ws, &pin(ws, plan, &files), &files)?,
            false => rebase::bind(ws, plan, &files)?,
        };
        let mut rebased = prepare::prepare(ws, &bound, &options)?;
        rebase::mark(&files, &mut rebased)?;
        let api_changes = guard::guard(ws, plan, &rebased)?;
        (rebased, api_changes)
    };
    shed_declarations(&mut files);
    let writes: Vec<&FileChange> = files
        .iter()
        .filter(|c| c.action != Action::Unchanged)
        .collect();
    if !writes.is_empty() {
        match observer {
            Some(observer) => {
                observer.api_changes(&api_changes);
                observer.before_publish(&files)?;
                let published = publish::publish(&ws.journal_dir(), &writes, keys);
                // The staging threads' freed buffers, before the receipt allocates its own.
                return_free_pages(&files);
                let recorded = observer.after_publish(&files, published.as_ref().map(|_| ()));
                let leftovers = published?;
                recorded?;
                drop(leftovers);
            }
            None => drop(publish::publish(&ws.journal_dir(), &writes, keys)?),
        }
    }
    Ok(Outcome {
        dry_run: false,
        files,
        recovered,
        api_changes,
    })
}

/// `plan` with every targeted and config operation bound to the digest each file had when
/// `files` were read (an operation that already expects a digest keeps it): `apply` of a
/// changeset commits exactly what its dry run proved. (A plain run rebases instead: see
/// [`rebase`].)
pub fn pin(ws: &Workspace, plan: &Plan, files: &[FileChange]) -> Plan {
    use crate::plan::OpKind;
    let mut plan = plan.clone();
    let digests: std::collections::HashMap<&str, crate::plan::Digest> = files
        .iter()
        .filter_map(|c| Some((c.path.key.as_str(), c.digest_before()?)))
        .collect();
    for op in &mut plan.ops {
        let Ok(path) = crate::workspace::path::resolve(ws, &op.path) else {
            continue;
        };
        let digest = digests.get(path.key.as_str()).copied();
        match &mut op.kind {
            OpKind::Targeted { expected, .. } | OpKind::Config { expected, .. }
                if expected.is_none() =>
            {
                *expected = digest
            }
            _ => {}
        }
    }
    plan
}

/// The guard has decided: the declarations the gate read for it are not needed again (on a
/// plan of many files they are megabytes that would otherwise live through the publish).
fn shed_declarations(files: &mut [FileChange]) {
    let shed: Vec<_> = (files.iter_mut().filter_map(|c| c.syntax.as_mut()))
        .filter_map(|syntax| syntax.declarations.take())
        .collect();
    // Those of a plan of many files were made on worker threads (see `FileChange::relocated`).
    match files.len() >= prepare::SHRINK_FROM {
        true => crate::alloc::drop_elsewhere(shed),
        false => drop(shed),
    }
    return_free_pages(files);
}

/// Lets every file's images go once the ledger and the diff have them: the rest of a report
/// needs only their digests, and a plan of many files need not hold them while it is built.
pub fn drop_images(files: &mut [FileChange]) {
    files.iter_mut().for_each(FileChange::drop_images);
    return_free_pages(files);
}

/// After a plan of many files, prepared (and staged) on worker threads, dropped what those
/// threads allocated: their arenas' free pages go back to the system (the main thread cannot
/// reuse them). A plan of a few files was prepared on the main thread and keeps its pages.
fn return_free_pages(files: &[FileChange]) {
    if files.len() >= prepare::SHRINK_FROM {
        crate::alloc::return_free_pages();
    }
}

/// A busy lock names the file by its root-relative path, not by the real path it is keyed by.
fn busy_path(mut error: Error, real: &[String], keys: &[String]) -> Error {
    let at = error.details.get("path").and_then(|p| p.as_str());
    if let Some(i) = at.and_then(|p| real.iter().position(|r| r == p)) {
        error.details.insert("path".into(), keys[i].clone().into());
    }
    error
}

/// Whether every file still has the bytes (or the absence) the preflight saw. Compares in
/// chunks, so a large file is not held twice more in memory.
fn unchanged_since(files: &[FileChange]) -> bool {
    files.iter().all(|c| match &c.before {
        Some(before) => {
            let now = std::fs::symlink_metadata(&c.path.abs).map(|m| Stamp::of(&m));
            let proven = before.stamp.settled(before.read_at)
                && now.as_ref().is_ok_and(|s| *s == before.stamp);
            proven || same_content(&c.path.abs, &before.bytes.get())
        }
        None => std::fs::symlink_metadata(&c.path.abs).is_err(),
    })
}

fn same_content(path: &std::path::Path, expected: &[u8]) -> bool {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut buf = vec![0u8; 1 << 16];
    let mut seen = 0;
    loop {
        match file.read(&mut buf) {
            Ok(0) => return seen == expected.len(),
            Ok(n) if expected.get(seen..seen + n) == Some(&buf[..n]) => seen += n,
            Ok(_) | Err(_) => return false,
        }
    }
}

#[cfg(test)]
mod tests;
