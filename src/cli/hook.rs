//! `git identedit hook install|uninstall|pre-commit|post-commit`: the git hooks (see
//! [`crate::hook`]). Hook output is text by default (git shows it to the committer on
//! stderr); `--format json` gives one document.

use clap::{Args, Subcommand};
use serde_json::{Map, Value, json};

use crate::error::{Code, Error, Result};
use crate::hook::{self, install, note, precommit, published};
use crate::report::Report;
use crate::txn::journal::Recovered;
use crate::workspace::Workspace;

#[derive(Debug, Args)]
pub struct HookArgs {
    #[command(subcommand)]
    pub action: HookAction,
}

#[derive(Debug, Subcommand)]
pub enum HookAction {
    /// Install the pre-commit and post-commit hooks (core.hooksPath or the common git dir's
    /// hooks/), chaining any hook already there. Idempotent.
    Install,
    /// Remove exactly what `hook install` installed and put chained hooks back.
    Uninstall,
    /// Check what is staged; refuses the commit on a problem (run by the installed hook).
    PreCommit {
        /// Arguments git passes to the hook (none today), ignored.
        #[arg(hide = true, trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Attach the receipts applied since the previous commit to HEAD as a note.
    PostCommit {
        #[arg(hide = true, trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn report(json: Value, text: String, note: String) -> Report {
    let json = match json {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    Report::new(json, text).note(note)
}

pub fn run(ws: &Workspace, args: &HookArgs) -> Result<(Report, Vec<Recovered>)> {
    let mut repo = hook::open(&ws.cwd)?;
    let report = match &args.action {
        HookAction::Install => run_install(&repo)?,
        HookAction::Uninstall => run_uninstall(&repo)?,
        HookAction::PreCommit { .. } => run_pre_commit(&repo)?,
        HookAction::PostCommit { .. } => run_post_commit(&mut repo)?,
    };
    Ok((report, Vec::new()))
}

fn actions_text(actions: &[install::Action]) -> String {
    actions
        .iter()
        .map(|a| {
            let mut line = format!("{}: {} ({})", a.hook, a.action, a.path.display());
            if let Some(c) = &a.chained {
                line.push_str(&format!(", chained hook {}", c.display()));
            }
            if let Some(w) = &a.warning {
                line.push_str(&format!("; warning: {w}"));
            }
            line + "\n"
        })
        .collect()
}

fn run_install(repo: &gix::Repository) -> Result<Report> {
    let loc = install::locate(repo)?;
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| Error::io("the running binary's path", &e))?;
    let actions = install::install(&loc, &exe)?;
    // Notes follow rewritten commits (amend, rebase) through git's own notes.rewriteRef.
    let root = repo.workdir().unwrap_or_else(|| repo.git_dir());
    let rewrite_added = super::remote::configure_rewrite(root)?;
    Ok(report(
        json!({"hooks_dir": loc.hooks_dir, "manifest": loc.manifest, "hooks": actions,
               "notes_rewrite_ref": crate::hook::note::NOTES_REF, "notes_rewrite_added": rewrite_added}),
        actions_text(&actions),
        String::new(),
    ))
}

fn run_uninstall(repo: &gix::Repository) -> Result<Report> {
    let loc = install::locate(repo)?;
    let actions = install::uninstall(&loc)?;
    let root = repo.workdir().unwrap_or_else(|| repo.git_dir());
    let rewrite_removed = super::remote::unconfigure_rewrite(root)?;
    let text = if actions.is_empty() {
        "no identedit hooks installed\n".to_owned()
    } else {
        actions_text(&actions)
    };
    Ok(report(
        json!({"manifest": loc.manifest, "hooks": actions,
               "notes_rewrite_ref": crate::hook::note::NOTES_REF,
               "notes_rewrite_removed": rewrite_removed}),
        text,
        String::new(),
    ))
}

fn run_pre_commit(repo: &gix::Repository) -> Result<Report> {
    let unnoted = published::since_head(repo)?;
    let verdict = precommit::check(repo, &unnoted)?;
    let warnings: String = verdict
        .warnings
        .iter()
        .map(|w| format!("warning: {}: {}\n", w.path, w.message))
        .collect();
    if verdict.problems.is_empty() {
        return Ok(report(json!(verdict), String::new(), warnings));
    }
    let lines: Vec<String> = verdict
        .problems
        .iter()
        .map(|p| match p.line {
            Some(line) => format!("  {}:{line}: {}", p.path, p.message),
            None if p.path.is_empty() => format!("  {}", p.message),
            None => format!("  {}: {}", p.path, p.message),
        })
        .collect();
    Err(Error::new(
        Code::HookRefused,
        format!(
            "commit refused: {} problem(s) in what is staged\n{}\n{warnings}",
            verdict.problems.len(),
            lines.join("\n")
        )
        .trim_end()
        .to_owned(),
    )
    .hint("Fix the staged files and `git add` them (mark intended edit markers with the `identedit-allow-residue` attribute in .gitattributes); `git commit --no-verify` skips the check.")
    .detail("checked", verdict.checked)
    .detail("problems", json!(verdict.problems))
    .detail("warnings", json!(verdict.warnings)))
}

fn run_post_commit(repo: &mut gix::Repository) -> Result<Report> {
    let attached = note::post_commit(repo)?;
    let text = match &attached {
        Some(a) => {
            let mut text = format!(
                "identedit: {} receipt(s) attached to {} ({})",
                a.receipts.len(),
                &a.commit[..12.min(a.commit.len())],
                a.notes_ref
            );
            if !a.paths.is_empty() {
                text.push_str(&format!(" for {}", a.paths.join(", ")));
            }
            if a.pending > 0 {
                text.push_str(&format!(
                    "; {} receipt(s) of files not in this commit wait for a later commit",
                    a.pending
                ));
            }
            text + "\n"
        }
        None => String::new(),
    };
    Ok(report(json!({"attached": attached}), text, String::new()))
}
