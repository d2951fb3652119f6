//! Help the git way: manual pages generated from the clap definitions (`man`), shell
//! completions (`completions`), and the short command list a bare `git identedit` prints.
//! `git identedit --help` and `git help identedit` make git run `man git-identedit`, so the
//! pages are written where `man` looks for a binary on `PATH`.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::json;

use crate::error::{Error, Result};
use crate::report::Report;
use crate::txn::journal::Recovered;

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write every page (`git-identedit.1`, `git-identedit-<command>.1`) into the man1
    /// directory beside the binary: `<prefix>/share/man/man1` for `<prefix>/bin/git-identedit`,
    /// where `man` looks for a program on `PATH`.
    #[arg(long)]
    pub install: bool,
    /// Write the pages into DIR instead (a `man1` directory; created when missing).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Shells `completions` writes scripts for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// The page name and roff source of the main page and of each subcommand's page.
pub fn pages() -> Vec<(String, Vec<u8>)> {
    let main = super::deferred::whole()
        .name("git-identedit")
        .bin_name("git identedit");
    let mut pages = vec![render("git-identedit".to_owned(), main.clone())];
    for sub in main.get_subcommands() {
        let name = format!("git-identedit-{}", sub.get_name());
        let page = sub
            .clone()
            .name(name.clone())
            .bin_name(format!("git identedit {}", sub.get_name()));
        pages.push(render(name, page));
    }
    pages
}

fn render(name: String, cmd: clap::Command) -> (String, Vec<u8>) {
    let mut out = Vec::new();
    // Rendering into a Vec cannot fail.
    let _ = clap_mangen::Man::new(cmd).render(&mut out);
    (format!("{name}.1"), out)
}

/// `man`: the main page on stdout, or every page written into a man1 directory.
pub fn man(args: &ManArgs) -> Result<(Report, Vec<Recovered>)> {
    let dir = match (&args.dir, args.install) {
        (Some(dir), _) => dir.clone(),
        (None, true) => default_man_dir()?,
        (None, false) => {
            let (_, page) = pages().swap_remove(0);
            let roff = String::from_utf8_lossy(&page).into_owned();
            let json = json!({"page": "git-identedit.1", "roff": roff});
            return Ok(text_report(roff, json));
        }
    };
    let written = write_pages(&dir)?;
    let mut text = format!(
        "wrote {} manual pages into {}\n",
        written.len(),
        dir.display()
    );
    text.push_str("`git identedit --help` and `git help identedit` now open them");
    text.push_str(" (when that directory's man/ is not found, add it to MANPATH).\n");
    Ok(text_report(
        text,
        json!({"dir": dir.to_string_lossy(), "pages": written}),
    ))
}

fn write_pages(dir: &Path) -> Result<Vec<String>> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::io(&format!("creating {}", dir.display()), &e))?;
    let mut written = Vec::new();
    for (name, page) in pages() {
        let path = dir.join(&name);
        std::fs::write(&path, page)
            .map_err(|e| Error::io(&format!("writing {}", path.display()), &e))?;
        written.push(name);
    }
    Ok(written)
}

/// `<prefix>/share/man/man1` for a binary at `<prefix>/bin/git-identedit`.
fn default_man_dir() -> Result<PathBuf> {
    let exe = std::env::current_exe().map_err(|e| Error::io("finding the running binary", &e))?;
    let prefix = exe.parent().and_then(Path::parent).ok_or_else(|| {
        super::usage_error("the binary has no parent directory: give `--dir DIR`")
    })?;
    Ok(prefix.join("share").join("man").join("man1"))
}

/// `completions SHELL`: the completion script on stdout.
pub fn completions(args: &CompletionsArgs) -> (Report, Vec<Recovered>) {
    // The scripts name the binary as it is installed (`git identedit` holds a space).
    let mut cmd = super::deferred::whole().bin_name("git-identedit");
    let mut out = Vec::new();
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    clap_complete::generate(shell, &mut cmd, "git-identedit", &mut out);
    let mut script = String::from_utf8_lossy(&out).into_owned();
    if args.shell == Shell::Bash {
        // The bash generator names each subcommand's case from its usage name, which keeps the
        // space of `git identedit`; the dispatch uses the binary's name.
        script = script.replace(
            "git__subcmd__identedit__subcmd__",
            "git__identedit__subcmd__",
        );
    }
    script.push_str(git_bridge(args.shell));
    text_report(
        script.clone(),
        json!({"shell": shell.to_string(), "script": script}),
    )
}

/// What lets `git identedit <TAB>` use the script (git's own completion calls these).
fn git_bridge(shell: Shell) -> &'static str {
    match shell {
        // git-completion.bash calls `_git_identedit` for `git identedit …`.
        Shell::Bash => concat!(
            "\n# `git identedit <TAB>`: git's completion calls _git_identedit.\n",
            "_git_identedit() {\n",
            "    local -a COMP_WORDS=(git-identedit \"${COMP_WORDS[@]:2}\")\n",
            "    local COMP_CWORD=$((COMP_CWORD - 1))\n",
            "    _git__identedit git-identedit \"${COMP_WORDS[COMP_CWORD]}\" ",
            "\"${COMP_WORDS[COMP_CWORD-1]}\"\n",
            "}\n",
        ),
        // zsh's `_git` calls `_git-identedit` for an external command; fish completes
        // `git-identedit` as typed.
        Shell::Zsh | Shell::Fish => "",
    }
}

/// What a bare `git identedit` prints: one line per command.
pub fn command_list() -> String {
    let cmd = super::deferred::whole();
    let mut text = String::from("usage: git identedit <command> [<options>]\n\n");
    let width = cmd
        .get_subcommands()
        .map(|s| s.get_name().len())
        .max()
        .unwrap_or(0);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        let first = about.split(". ").next().unwrap_or("").trim_end_matches('.');
        text.push_str(&format!("   {:width$}   {first}\n", sub.get_name()));
    }
    text.push_str("\n`git identedit <command> -h` lists a command's options; ");
    text.push_str("`git identedit --help` opens the manual (install it with `git identedit man --install`).\n");
    text
}

fn text_report(text: String, json: serde_json::Value) -> (Report, Vec<Recovered>) {
    let json = match json {
        serde_json::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    (Report::new(json, text), Vec::new())
}
