//! Help the git way and the one output rule: the command list of a bare `git identedit`,
//! suggestions for typos, man pages that `git identedit --help` opens after `man --install`,
//! completion scripts, and the text forms of `capabilities` and `instructions`.

use std::process::Command;

use crate::common::{BIN, Repo, code, parse_one_document};

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_bare_command_prints_the_command_list_and_succeeds() {
    let repo = Repo::new();
    let out = repo.run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list = stdout(&out);
    assert!(list.starts_with("usage: git identedit <command>"), "{list}");
    for command in [
        "edit",
        "patch",
        "read",
        "apply",
        "verify",
        "undo",
        "log",
        "man",
        "completions",
    ] {
        assert!(
            list.lines()
                .any(|l| l.trim_start().starts_with(&format!("{command} "))),
            "{command} missing from {list}"
        );
    }
    assert!(out.stderr.is_empty());
}

#[test]
fn a_mistyped_command_or_flag_names_the_nearest_one() {
    let repo = Repo::new();
    let out = repo.run(&["aply", "plan.json", "--format", "text"]);
    assert_eq!(out.status.code(), Some(2));
    let text = stderr(&out);
    assert!(
        text.starts_with("error[usage]: unrecognized subcommand 'aply'\n"),
        "{text}"
    );
    assert!(
        text.contains("Did you mean `git identedit apply`?"),
        "{text}"
    );
    let out = repo.run(&["edit", "a.txt", "--fnd", "x", "--format", "text"]);
    assert!(
        stderr(&out).contains("Did you mean `--find`? `git identedit edit -h`"),
        "{}",
        stderr(&out)
    );
    let (rc, doc) = repo.json(&["aply"]);
    assert_eq!((rc, code(&doc)), (2, "usage"));
    assert_eq!(doc["error"]["details"]["suggestion"], "apply");
}

#[test]
fn format_takes_only_output_formats_and_the_dialect_has_its_own_flag() {
    let repo = Repo::new();
    repo.write("a.txt", "one\n").commit();
    let (rc, doc) = repo.json(&["log", "--format", "blocks"]);
    assert_eq!((rc, code(&doc)), (2, "usage"), "{doc}");
    let out = repo.run(&["log", "--format", "blocks"]);
    assert!(
        parse_one_document(&out)["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("'blocks'"))
    );
    let blocks = "a.txt\n<<<<<<< SEARCH\none\n=======\ntwo\n>>>>>>> REPLACE\n";
    let (rc, doc) = repo.json_stdin(&["apply", "-", "--dialect", "blocks"], blocks);
    assert_eq!(rc, 0, "{doc}");
    assert_eq!(repo.text("a.txt"), "two\n");
}

#[test]
fn capabilities_and_instructions_have_text_forms_and_schema_is_always_the_schema() {
    let repo = Repo::new();
    let out = repo.run(&["capabilities", "--format", "text"]);
    let text = stdout(&out);
    assert!(text.starts_with("git-identedit "), "{text}");
    assert!(
        text.contains("\ncommands:\n") && text.contains("  anchor_missing "),
        "{text}"
    );
    // Piped without a format: capabilities follow the rule (JSON), instructions stay prose.
    assert_eq!(parse_one_document(&repo.run(&["capabilities"]))["ok"], true);
    let prose = stdout(&repo.run(&["instructions"]));
    assert!(
        prose.starts_with("# Editing files with git identedit"),
        "{prose}"
    );
    assert!(prose.contains("\n1. Read before you edit"), "{prose}");
    let (rc, doc) = repo.json(&["instructions"]);
    assert_eq!((rc, doc["command"].as_str()), (0, Some("instructions")));
    for format in ["text", "json"] {
        let out = repo.run(&["schema", "--format", format]);
        let schema: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON Schema");
        assert_eq!(
            schema["properties"]["type"]["const"], "source_edit_plan",
            "{format}"
        );
    }
}

#[test]
fn man_writes_one_page_per_command_that_man_renders() {
    let repo = Repo::plain();
    let dir = repo.path().join("man1");
    let out = repo.run(&[
        "man",
        "--dir",
        dir.to_str().expect("utf8"),
        "--format",
        "json",
    ]);
    let doc = parse_one_document(&out);
    assert_eq!(doc["ok"], true, "{doc}");
    for page in [
        "git-identedit.1",
        "git-identedit-apply.1",
        "git-identedit-completions.1",
    ] {
        let roff = std::fs::read_to_string(dir.join(page)).expect(page);
        assert!(roff.contains(".TH "), "{page} is not a man page");
    }
    let roff = std::fs::read_to_string(dir.join("git-identedit-apply.1")).expect("page");
    assert!(roff.contains("dry\\-run"), "{roff}");
}

/// The documented install: `git identedit man --install` beside a binary on PATH, then git's
/// own `--help` and `git help` find the page through man's PATH lookup.
#[test]
fn after_man_install_git_help_opens_the_page() {
    let prefix = tempfile::tempdir().expect("temp");
    let bin = prefix.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    std::fs::copy(BIN, bin.join("git-identedit")).expect("copy the binary");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |args: &[&str], program: &str| {
        Command::new(program)
            .args(args)
            .current_dir(prefix.path())
            .env("PATH", &path)
            .env_remove("MANPATH")
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("run")
    };
    let out = run(&["man", "--install", "--format", "text"], "git-identedit");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        prefix
            .path()
            .join("share/man/man1/git-identedit-apply.1")
            .is_file()
    );
    for args in [&["identedit", "--help"][..], &["help", "identedit"][..]] {
        let out = run(args, "git");
        let page = stdout(&out);
        assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
        assert!(
            page.contains("NAME") && page.contains("git-identedit"),
            "{page}"
        );
    }
}

#[test]
fn completion_scripts_for_bash_zsh_and_fish() {
    let repo = Repo::plain();
    let bash = stdout(&repo.run(&["completions", "bash"]));
    assert!(bash.contains("complete -F _git__identedit") && bash.contains("_git_identedit()"));
    assert!(stdout(&repo.run(&["completions", "zsh"])).starts_with("#compdef git-identedit"));
    assert!(stdout(&repo.run(&["completions", "fish"])).contains("complete -c git-identedit"));
    // git's bash completion calls `_git_identedit` with the words of `git identedit ap`.
    let script = repo.path().join("c.bash");
    std::fs::write(&script, &bash).expect("write");
    let probe = format!(
        "source {}; COMP_WORDS=(git identedit ap); COMP_CWORD=2; _git_identedit; echo \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let out = Command::new("bash")
        .args(["-c", &probe])
        .output()
        .expect("bash");
    assert_eq!(stdout(&out).trim(), "apply", "{}", stderr(&out));
    // A subcommand's options: `git identedit apply --dr`.
    let probe = format!(
        "source {}; COMP_WORDS=(git identedit apply --dr); COMP_CWORD=3; _git_identedit; echo \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let out = Command::new("bash")
        .args(["-c", &probe])
        .output()
        .expect("bash");
    assert_eq!(stdout(&out).trim(), "--dry-run", "{}", stderr(&out));
}
