//! `push`, `fetch` and `remote setup`: receipts travel with git's own transport.
//!
//! Each clone publishes its receipt log and label refs under its own namespace on the remote,
//! `refs/identedit/clones/<clone-id>/…` (the id is `identedit.clone`, made once per clone), so
//! logs from several clones never overwrite each other. Fetching copies every clone's namespace
//! to `refs/identedit/remotes/<remote>/clones/…`, where `show`, `verify` and `undo` find labels.
//! The notes (`refs/notes/identedit`) are fetched to `refs/notes/remotes/<remote>/identedit`
//! and merged into the local notes with git's `cat_sort_uniq` strategy, which keeps every
//! receipt line of both sides. Nothing runs on the server: these commands call `git`.

use std::path::Path;
use std::process::Command as Process;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::error::{Code, Error, Result};
use crate::report::Report;
use crate::workspace::Workspace;

/// The notes ref receipts are attached under.
const NOTES: &str = "refs/notes/identedit";
/// The notes merge strategy that keeps both sides' lines.
const MERGE_STRATEGY: &str = "cat_sort_uniq";

#[derive(Debug, Args)]
pub struct RemoteArgs {
    /// The remote (default: `origin`).
    pub remote: Option<String>,
}

#[derive(Debug, Args)]
pub struct SetupArgs {
    #[command(subcommand)]
    pub action: SetupAction,
}

#[derive(Debug, Subcommand)]
pub enum SetupAction {
    /// Write the receipt refspecs into `remote.<name>.push` / `remote.<name>.fetch`, so plain
    /// `git push` / `git fetch` carry the receipts (and `HEAD`, git's default push, stays).
    Setup(RemoteArgs),
}

fn remote_name(args: &RemoteArgs) -> &str {
    args.remote.as_deref().unwrap_or("origin")
}

/// Runs `git -C root ARGS`, returning its stdout; a failure becomes an error naming the command.
fn git(root: &Path, args: &[&str]) -> Result<String> {
    let out = Process::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .map_err(|e| Error::io("running git", &e))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        return Err(Error::new(
            Code::IoError,
            format!("`git {}` failed: {stderr}", args.join(" ")),
        )
        .detail("git_stderr", stderr)
        .hint("Check the remote's name and that it is reachable (`git remote -v`)."));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether `name` resolves (a ref that exists).
fn has_ref(root: &Path, name: &str) -> bool {
    git(root, &["rev-parse", "--verify", "--quiet", name]).is_ok()
}

/// This clone's id, made once (a digest of the git directory's path and the time).
fn clone_id(root: &Path) -> Result<String> {
    if let Ok(id) = git(root, &["config", "--get", "identedit.clone"]) {
        let id = id.trim().to_owned();
        if !id.is_empty() {
            return Ok(id);
        }
    }
    let dir = git(root, &["rev-parse", "--absolute-git-dir"])?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let seed = format!("{}\n{nanos}\n{}", dir.trim(), std::process::id());
    let id = crate::plan::digest::Digest::of(seed.as_bytes()).hex_prefix(12);
    git(root, &["config", "identedit.clone", &id])?;
    Ok(id)
}

/// The refspecs `push` sends: this clone's log and labels into its namespace, and the notes.
fn push_refspecs(root: &Path, id: &str) -> Vec<String> {
    let mut specs = Vec::new();
    if has_ref(root, crate::receipt::LOG_REF) {
        specs.push(format!(
            "+refs/identedit/log:refs/identedit/clones/{id}/log"
        ));
        specs.push(format!(
            "+refs/identedit/receipts/*:refs/identedit/clones/{id}/receipts/*"
        ));
    }
    if has_ref(root, NOTES) {
        specs.push(format!("{NOTES}:{NOTES}"));
    }
    specs
}

/// The refspecs `fetch` asks for (every clone's namespace and the notes, remote-tracking).
fn fetch_refspecs(remote: &str) -> [String; 2] {
    [
        format!("+refs/identedit/clones/*:refs/identedit/remotes/{remote}/clones/*"),
        format!("+{NOTES}:{}", tracking_notes(remote)),
    ]
}

fn tracking_notes(remote: &str) -> String {
    format!("refs/notes/remotes/{remote}/identedit")
}

/// Fetches the receipts of `remote` and merges its notes into ours.
fn fetch_into(root: &Path, remote: &str) -> Result<Value> {
    let specs = fetch_refspecs(remote);
    let mut args = vec!["fetch", "--quiet", "--no-tags", remote];
    args.extend(specs.iter().map(String::as_str));
    // A remote with no receipts yet has neither ref: fetch what exists, one spec at a time.
    if git(root, &args).is_err() {
        for spec in &specs {
            let _ = git(root, &["fetch", "--quiet", "--no-tags", remote, spec]);
        }
        git(root, &["ls-remote", "--exit-code", remote, "HEAD"])
            .or_else(|_| git(root, &["ls-remote", remote]).map(|_| String::new()))?;
    }
    let notes = merge_notes(root, remote)?;
    let clones = git(
        root,
        &[
            "for-each-ref",
            "--format=%(refname)",
            &format!("refs/identedit/remotes/{remote}/clones/*/log"),
        ],
    )?;
    Ok(json!({"remote": remote, "notes": notes,
              "logs": clones.lines().collect::<Vec<_>>()}))
}

/// Merges the remote-tracking notes into `refs/notes/identedit`, keeping every line.
fn merge_notes(root: &Path, remote: &str) -> Result<&'static str> {
    let theirs = tracking_notes(remote);
    if !has_ref(root, &theirs) {
        return Ok("none");
    }
    if !has_ref(root, NOTES) {
        git(root, &["update-ref", NOTES, &theirs])?;
        return Ok("copied");
    }
    let identity = identity_args(root);
    let mut args: Vec<&str> = identity.iter().map(String::as_str).collect();
    args.extend([
        "notes",
        "--ref",
        NOTES,
        "merge",
        "--quiet",
        "-s",
        MERGE_STRATEGY,
        &theirs,
    ]);
    git(root, &args)?;
    Ok("merged")
}

/// `-c user.name/email` for the notes merge commit when the configuration has none.
fn identity_args(root: &Path) -> Vec<String> {
    let has = |key: &str| git(root, &["config", "--get", key]).is_ok();
    let env = |key: &str| std::env::var_os(key).is_some();
    let mut args = Vec::new();
    if !has("user.name") && !env("GIT_COMMITTER_NAME") {
        args.extend(["-c".to_owned(), "user.name=git-identedit".to_owned()]);
    }
    if !has("user.email") && !env("GIT_COMMITTER_EMAIL") {
        args.extend(["-c".to_owned(), "user.email=identedit@localhost".to_owned()]);
    }
    args
}

/// Makes git carry the notes over when `git commit --amend` or `git rebase` rewrites a commit
/// (`notes.rewriteRef`, added once beside any other rewrite refs). Returns whether it was added.
pub fn configure_rewrite(root: &Path) -> Result<bool> {
    let existing = git(root, &["config", "--get-all", "notes.rewriteRef"]).unwrap_or_default();
    let added = add_values(root, "notes.rewriteRef", &existing, &[NOTES.to_owned()])?;
    Ok(!added.is_empty())
}

/// Undoes [`configure_rewrite`]: removes the `notes.rewriteRef` value for identedit's notes
/// from the repository's configuration, keeping every other value. Returns whether it was there.
pub fn unconfigure_rewrite(root: &Path) -> Result<bool> {
    let key = "notes.rewriteRef";
    let existing = git(root, &["config", "--local", "--get-all", key]).unwrap_or_default();
    if !existing.lines().any(|v| v.trim() == NOTES) {
        return Ok(false);
    }
    // A value pattern (an extended regex): `NOTES` holds no character special to it.
    let pattern = format!("^{NOTES}$");
    git(root, &["config", "--local", "--unset-all", key, &pattern])?;
    Ok(true)
}

/// `git identedit fetch [REMOTE]`.
pub fn run_fetch(ws: &Workspace, args: &RemoteArgs) -> Result<Report> {
    let remote = remote_name(args);
    let json = fetch_into(&ws.root, remote)?;
    let text = format!(
        "fetched receipts from {remote} (notes: {})\n",
        json["notes"]
    );
    Ok(report(json, text))
}

/// `git identedit push [REMOTE]`: fetch and merge the remote's notes first, so the notes push
/// is a fast-forward that keeps the other clones' lines.
pub fn run_push(ws: &Workspace, args: &RemoteArgs) -> Result<Report> {
    let remote = remote_name(args);
    fetch_into(&ws.root, remote)?;
    let id = clone_id(&ws.root)?;
    let specs = push_refspecs(&ws.root, &id);
    if !specs.is_empty() {
        let mut argv = vec!["push", "--quiet", remote];
        argv.extend(specs.iter().map(String::as_str));
        git(&ws.root, &argv)?;
    }
    let text = format!(
        "pushed {} receipt ref(s) to {remote} as clone {id}\n",
        specs.len()
    );
    Ok(report(
        json!({"remote": remote, "clone": id, "refspecs": specs}),
        text,
    ))
}

/// `git identedit remote setup [REMOTE]`.
pub fn run_setup(ws: &Workspace, args: &SetupArgs) -> Result<Report> {
    let SetupAction::Setup(args) = &args.action;
    let remote = remote_name(args);
    let root = &ws.root;
    git(root, &["remote", "get-url", remote])?;
    let id = clone_id(root)?;
    let push_key = format!("remote.{remote}.push");
    let fetch_key = format!("remote.{remote}.fetch");
    let existing_push = git(root, &["config", "--get-all", &push_key]).unwrap_or_default();
    let mut push = Vec::new();
    if existing_push.trim().is_empty() {
        // A configured push refspec replaces git's default: keep pushing the current branch.
        push.push("HEAD".to_owned());
    }
    push.push(format!(
        "+refs/identedit/log:refs/identedit/clones/{id}/log"
    ));
    push.push(format!(
        "+refs/identedit/receipts/*:refs/identedit/clones/{id}/receipts/*"
    ));
    push.push(format!("{NOTES}:{NOTES}"));
    let added_push = add_values(root, &push_key, &existing_push, &push)?;
    let existing_fetch = git(root, &["config", "--get-all", &fetch_key]).unwrap_or_default();
    let added_fetch = add_values(root, &fetch_key, &existing_fetch, &fetch_refspecs(remote))?;
    git(
        root,
        &["config", "notes.identedit.mergeStrategy", MERGE_STRATEGY],
    )?;
    let text = format!(
        "{remote}: {} push and {} fetch refspec(s) added; notes merge with {MERGE_STRATEGY}\n",
        added_push.len(),
        added_fetch.len()
    );
    Ok(report(
        json!({"remote": remote, "clone": id, "push": added_push, "fetch": added_fetch,
               "notes_merge_strategy": MERGE_STRATEGY}),
        text,
    ))
}

/// Adds each of `values` to the multi-valued `key` unless already there; returns those added.
fn add_values(root: &Path, key: &str, existing: &str, values: &[String]) -> Result<Vec<String>> {
    let present: Vec<&str> = existing.lines().map(str::trim).collect();
    let mut added = Vec::new();
    for value in values {
        if !present.contains(&value.as_str()) {
            git(root, &["config", "--add", key, value])?;
            added.push(value.clone());
        }
    }
    Ok(added)
}

fn report(json: Value, text: String) -> Report {
    let json = match json {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    Report::new(json, text)
}
