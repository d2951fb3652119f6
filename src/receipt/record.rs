//! Recording a write: the [`Recorder`] watches the transaction from inside its locks (a
//! [`txn::Observer`]), observes the work tree around the publish and writes the receipt.
//!
//! A refusal before any mutation never reaches the recorder, so nothing is recorded. A publish
//! that failed and was rolled back is recorded as `failed` with no files. When the receipt
//! cannot be written after the files were published, the command fails with
//! `receipt_not_recorded` and the list of changed files.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use super::images::{self, Images, Placing};
use super::observe::{self, Scan};
use super::{
    AppliedTo, FileRecord, Input, Kind, LABEL_REF_PREFIX, LOG_REF, Observed, RECEIPT_SCHEMA,
    Receipt, Reference, Status, Tool, ref_safe_label,
};
use crate::change::{Action, FileChange, Moved};
use crate::error::{Code, Error, Result};
use crate::git::ledger::{self, TreeFiles};
use crate::plan::{Digest, Plan};
use crate::txn;
use crate::workspace::Workspace;
use crate::workspace::image::Image;

/// What the command knows about its write before it happens.
#[derive(Clone, Debug)]
pub struct Intent {
    pub command: String,
    pub kind: Kind,
    pub label: String,
    pub dialect: String,
    /// The raw bytes the plan was compiled from (the command line, as JSON, for flag forms),
    /// shared: a retried intent is a copy of the first. An input of megabytes (a plan of
    /// thousands of edits) waits for its receipt compressed.
    pub input: Image,
    /// Their sha256, computed once.
    pub input_digest: Digest,
    pub undoes: Option<Reference>,
    pub acknowledged_api_changes: Vec<serde_json::Value>,
    /// Symbols removed or renamed away (see [`Receipt::removed_symbols`]).
    pub removed_symbols: Vec<String>,
    pub applied_to: AppliedTo,
    pub staged: bool,
    /// Operations rebased before the engine ran (a changeset built on older bytes): their
    /// pointers and line ranges, as `apply` reports them.
    pub rebased: Vec<serde_json::Value>,
}

impl Intent {
    /// The intent of a plan compiled from `input`; the label is `--task`, the plan's own, or
    /// `plan-<first 12 hex of the input's sha256>`.
    pub fn for_plan(command: &str, plan: &Plan, input: Vec<u8>) -> Self {
        let digest = Digest::of(&input);
        let mut input = Image::from(input);
        input.pack();
        let label = plan
            .label
            .clone()
            .unwrap_or_else(|| format!("plan-{}", digest.hex_prefix(12)));
        Self {
            command: command.to_owned(),
            kind: Kind::Apply,
            label,
            dialect: plan.dialect.to_owned(),
            input,
            input_digest: digest,
            undoes: None,
            acknowledged_api_changes: Vec::new(),
            removed_symbols: removed_by_plan(plan),
            applied_to: AppliedTo::WorkTree,
            staged: false,
            rebased: Vec::new(),
        }
    }
}

/// The symbols a plan's `remove_symbol` operations name.
fn removed_by_plan(plan: &Plan) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for op in &plan.ops {
        if let crate::plan::OpKind::Symbol(edit) = &op.kind
            && edit.op == crate::plan::symbol::SymbolOp::RemoveSymbol
            && let Some(symbol) = &edit.symbol
            && !names.contains(symbol)
        {
            names.push(symbol.clone());
        }
    }
    names
}

/// A receipt that was written.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub commit: String,
    pub label_ref: String,
    pub receipt: Receipt,
}

/// Records one transaction. Open the repository before the transaction starts, so that a
/// missing or broken repository is found before anything is written.
pub struct Recorder {
    repo: gix::Repository,
    intent: Intent,
    scope: Vec<String>,
    before: Option<Scan>,
    root: std::path::PathBuf,
    /// The error of a publish that failed and was rolled back.
    failure: Option<serde_json::Value>,
    /// Set once a receipt was written.
    pub recorded: Option<Recorded>,
    /// `--stage`: `index.lock` and the index read under it, held from before the publish
    /// until the index is written.
    index_lock: Option<crate::git::index::Staging>,
    /// The blob ids of large post-images, hashed on another core while the files are
    /// published (`after/<path>` → id).
    hashing: Vec<(String, ledger::Hashing)>,
    /// Where each pre-image goes, decided while the files are published (`receipt::images`).
    placing: Option<Placing>,
}

impl Recorder {
    pub fn open(ws: &Workspace, intent: Intent) -> Result<Self> {
        Ok(Self::with_repo(crate::git::repo::open(ws)?, ws, intent))
    }

    /// [`Recorder::open`] on the repository of `ws` already opened.
    pub fn with_repo(repo: gix::Repository, ws: &Workspace, intent: Intent) -> Self {
        Self {
            repo,
            intent,
            scope: Vec::new(),
            before: None,
            root: ws.root.clone(),
            failure: None,
            recorded: None,
            index_lock: None,
            hashing: Vec::new(),
            placing: None,
        }
    }

    fn write(&mut self, files: &[FileChange], status: Status, observed: Observed) -> Result<()> {
        // The images first: each is hashed once, and its id goes into receipt.json. Every
        // object but the commit is stored together (`ledger::batched`).
        let (tree_id, receipt) = ledger::batched(&mut self.repo, |repo| {
            let mut tree = TreeFiles::default();
            let referenced = match status {
                Status::Applied => images::add(repo, &mut tree, files, self.placing.take())?,
                _ => Images::new(),
            };
            let mut images: Images = tree.entries.iter().cloned().collect();
            images.extend(referenced);
            for (path, hashing) in std::mem::take(&mut self.hashing) {
                images.extend(hashing.id().map(|id| (path, id)));
            }
            let mut receipt = build(
                repo,
                &self.root,
                &self.intent,
                (files, &images),
                status,
                observed,
            );
            receipt.error = self.failure.clone();
            let document = serde_json::to_vec_pretty(&receipt)
                .map_err(|e| Error::internal(format!("serialising the receipt: {e}")))?;
            tree.add(repo, "receipt.json".to_owned(), &document)?;
            // A plan of many files has a receipt and an input of a megabyte each: one at a time.
            drop(document);
            tree.add(repo, "input".to_owned(), &self.intent.input.get())?;
            let tree_id = ledger::write_tree(repo, &tree)?;
            Ok((tree_id, receipt))
        })?;
        let message = message(&receipt);
        let label_ref = format!("{LABEL_REF_PREFIX}{}", ref_safe_label(&receipt.label));
        let commit = ledger::append(&mut self.repo, LOG_REF, &label_ref, tree_id, &message)?;
        self.recorded = Some(Recorded {
            commit: commit.to_string(),
            label_ref,
            receipt,
        });
        Ok(())
    }
}

impl Recorder {
    /// Records a write to the index (`--cached`): observed by comparing index entries.
    pub fn record_index(&mut self, files: &[FileChange], changed: Vec<String>) -> Result<()> {
        let observed = Observed {
            method: "index".to_owned(),
            scope: Vec::new(),
            changed_files: changed,
            extra_files: Vec::new(),
            mismatched_files: Vec::new(),
        };
        self.write(files, Status::Applied, observed)
            .map_err(|e| unrecorded(e, files))
    }

    pub fn repo(&self) -> &gix::Repository {
        &self.repo
    }
}

impl txn::Observer for Recorder {
    fn api_changes(&mut self, changes: &[crate::lang::api::ApiChange]) {
        self.intent.acknowledged_api_changes = acknowledged(changes);
        for change in changes {
            let gone = change.change == crate::lang::api::Change::Removed;
            if gone && !self.intent.removed_symbols.contains(&change.symbol) {
                self.intent.removed_symbols.push(change.symbol.clone());
            }
        }
    }

    fn before_publish(&mut self, files: &[FileChange]) -> Result<()> {
        if self.intent.staged {
            let staging = crate::git::index::begin(&self.repo)?;
            staging.check(&self.repo, files)?;
            self.index_lock = Some(staging);
        }
        self.scope = observe::scope(files);
        self.before = Some(observe::scan(&self.root, &self.scope));
        self.hashing = large_post_images(&self.repo, files);
        self.placing = Some(Placing::start(&self.repo, files));
        Ok(())
    }

    fn after_publish(&mut self, files: &[FileChange], published: Result<(), &Error>) -> Result<()> {
        let before = self.before.take().unwrap_or_default();
        let after = observe::scan(&self.root, &self.scope);
        let scope = std::mem::take(&mut self.scope);
        match published {
            Ok(()) => {
                let observed = observe::compare(scope, &before, &after, files);
                self.write(files, Status::Applied, observed)
                    .map_err(|e| unrecorded(e, files))?;
                match self.index_lock.take() {
                    // Still under the file locks: no identedit writer moved these files since.
                    Some(staging) => staging
                        .stage(&self.repo, files)
                        .map_err(|e| unstaged(e, files)),
                    None => Ok(()),
                }
            }
            Err(failure) => {
                drop(self.placing.take().and_then(Placing::placed));
                let observed = observe::compare_rolled_back(scope, &before, &after, files);
                let mut error = json!({"code": failure.code.as_str(), "message": failure.message});
                if let Some(step) = failure.details.get("step") {
                    error["step"] = step.clone();
                }
                self.failure = Some(error);
                // The original failure is what the caller sees; a failed receipt write for
                // it never replaces that error.
                let _ = self.write(&[], Status::Failed, observed);
                Ok(())
            }
        }
    }
}

/// The API changes a receipt records: those the caller acknowledged.
pub fn acknowledged(changes: &[crate::lang::api::ApiChange]) -> Vec<serde_json::Value> {
    changes
        .iter()
        .filter(|c| c.acknowledged)
        .filter_map(|c| serde_json::to_value(c).ok())
        .collect()
}

/// The receipt a dry run would have written (not stored; blob ids computed, not written).
pub fn preview(
    repo: &gix::Repository,
    ws: &Workspace,
    intent: &Intent,
    files: &[FileChange],
) -> Option<Receipt> {
    let root = &ws.root;
    let observed = Observed {
        method: "none".to_owned(),
        ..Observed::default()
    };
    let images = Images::new();
    Some(build(
        repo,
        root,
        intent,
        (files, &images),
        Status::DryRun,
        observed,
    ))
}

/// Staging failed after the files were written and recorded: the error says so.
fn unstaged(error: Error, files: &[FileChange]) -> Error {
    let changed: Vec<&str> = files
        .iter()
        .filter(|c| c.action != Action::Unchanged)
        .map(|c| c.path.rel.as_str())
        .collect();
    let mut out = Error::new(
        error.code,
        format!(
            "the files were written and the receipt recorded, but staging failed: {}",
            error.message
        ),
    )
    .hint("The receipt is in `git identedit log`; stage details.changed_files with `git add` once the cause is fixed.")
    .detail("changed_files", changed)
    .detail("written", "all");
    for (key, value) in *error.details {
        out = out.detail(&key, value);
    }
    out
}

fn unrecorded(error: Error, files: &[FileChange]) -> Error {
    let changed: Vec<&str> = files
        .iter()
        .filter(|c| c.action != Action::Unchanged)
        .map(|c| c.path.rel.as_str())
        .collect();
    Error::new(
        Code::ReceiptNotRecorded,
        format!(
            "the files were written but the receipt could not be recorded: {}",
            error.message
        ),
    )
    .hint("Inspect the listed files; `verify` cannot prove this write.")
    .detail("changed_files", changed)
    .detail("cause", error.message)
}

fn message(receipt: &Receipt) -> String {
    let status = match receipt.status {
        Status::Applied => "applied",
        Status::Failed => "failed",
        Status::DryRun => "dry run",
    };
    let mut text = format!(
        "{}\n\nidentedit {} ({status}): {} file(s) from {}\n",
        receipt.label,
        receipt.command,
        receipt.files.len(),
        receipt.input.dialect
    );
    for file in &receipt.files {
        text.push_str(&format!("{:?} {}\n", file.action, file.path).to_lowercase());
    }
    text
}

/// Starts hashing the post-images of at least [`ledger::Hashing::WORTH`] bytes (their
/// blob ids go into receipt.json; stored as splices, they are never written as blobs).
fn large_post_images(
    repo: &gix::Repository,
    files: &[FileChange],
) -> Vec<(String, ledger::Hashing)> {
    let large = files.iter().filter(|c| c.action != Action::Unchanged);
    large
        .filter(|c| c.after_len().is_some_and(|n| n >= ledger::Hashing::WORTH))
        .filter_map(|c| {
            let after = c.after_arc()?;
            Some((
                format!("after/{}", c.path.rel),
                ledger::Hashing::start(repo, &after),
            ))
        })
        .collect()
}

fn build(
    repo: &gix::Repository,
    root: &std::path::Path,
    intent: &Intent,
    (files, images): (&[FileChange], &Images),
    status: Status,
    observed: Observed,
) -> Receipt {
    let records = files
        .iter()
        .filter(|c| c.action != Action::Unchanged)
        .map(|c| file_record(repo, c, images))
        .collect();
    Receipt {
        schema: RECEIPT_SCHEMA.to_owned(),
        kind: intent.kind,
        status,
        label: intent.label.clone(),
        tool: Tool::this(),
        command: intent.command.clone(),
        applied_to: intent.applied_to,
        staged: intent.staged,
        input: Input {
            dialect: intent.dialect.clone(),
            sha256: intent.input_digest.to_hex(),
            bytes: intent.input.len(),
        },
        // HEAD's commit as its branch names it: not peeled, which would read the object.
        head: repo
            .head()
            .ok()
            .and_then(|h| h.id())
            .map(|id| id.to_string()),
        time: now(),
        files: records,
        created_dirs: files
            .iter()
            .flat_map(|c| &c.new_dirs)
            .filter_map(|d| d.strip_prefix(root).ok())
            .map(|d| d.to_string_lossy().into_owned())
            .collect(),
        observed,
        acknowledged_api_changes: intent.acknowledged_api_changes.clone(),
        removed_symbols: intent.removed_symbols.clone(),
        undoes: intent.undoes.clone(),
        rebased: rebased(intent, files),
        error: None,
    }
}

/// Every rebased operation: those the engine found again in bytes that changed under it, and
/// those the command rebased before (a changeset's).
fn rebased(intent: &Intent, files: &[FileChange]) -> Vec<serde_json::Value> {
    let mut out = intent.rebased.clone();
    for change in files {
        for edit in &change.edits {
            if let Some(r) = &edit.rebased {
                let mut v = r.json();
                v["pointer"] = edit.pointer.clone().into();
                v["path"] = change.path.rel.clone().into();
                if !out.iter().any(|o| o["pointer"] == v["pointer"]) {
                    out.push(v);
                }
            }
        }
    }
    out
}

/// One changed path; blob ids come from `images` when the blobs were written, else they are
/// computed (a dry run writes nothing).
fn file_record(repo: &gix::Repository, change: &FileChange, images: &Images) -> FileRecord {
    // The bytes are read (unpacked, rebuilt) only for an id the receipt's tree lacks.
    let known = |side: &str| images.get(&format!("{side}/{}", change.path.rel)).copied();
    let blob_before = change
        .before
        .as_ref()
        .and_then(|b| known("before").or_else(|| ledger::blob_id(repo, &b.bytes.get())));
    let blob_after = change
        .after
        .as_ref()
        .and_then(|_| known("after").or_else(|| ledger::blob_id(repo, &change.after_bytes()?)));
    let mode_before = change.before.as_ref().map(|b| mode(&b.permissions));
    let mode_after = match change.action {
        Action::Deleted => None,
        _ => Some(
            change
                .new_permissions
                .as_ref()
                .map(mode)
                .or_else(|| mode_before.clone())
                .unwrap_or_else(|| "100644".to_owned()),
        ),
    };
    let (moved_from, moved_to) = match &change.moved {
        Some(Moved::From(from)) => (Some(from.clone()), None),
        Some(Moved::To(to)) => (None, Some(to.clone())),
        None => (None, None),
    };
    FileRecord {
        path: change.path.rel.clone(),
        action: change.action,
        moved_from,
        moved_to,
        mode_before,
        mode_after,
        sha256_before: change.digest_before().map(Digest::to_hex),
        sha256_after: change.digest_after().map(Digest::to_hex),
        blob_before: blob_before.map(|id| id.to_string()),
        blob_after: blob_after.map(|id| id.to_string()),
    }
}

/// A git file mode for permissions: executable or not.
fn mode(permissions: &std::fs::Permissions) -> String {
    if permissions.mode() & 0o111 != 0 {
        "100755".to_owned()
    } else {
        "100644".to_owned()
    }
}

fn now() -> String {
    gix::date::Time::now_utc().format_or_unix(gix::date::time::format::ISO8601_STRICT)
}
